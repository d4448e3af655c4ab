"""A direct TCP channel from the lead shard to another worker's shard, for the passes of a tree's search.

The lead (``rankcore.dask._lead``) calls every other shard once per pass of
a tree's search: a dozen calls per leaf-wise tree.  Through Dask's actor
messages (``actor_execute``) a call costs ~2 ms of CPU on each side (the
event loop's message handling, a hop to the actor's thread, the result's
framing) besides the histograms' bytes; on 2 cores shared by both workers,
that CPU is fit time.  A channel carries the same calls over one socket
between the two actors' threads: the request pickled, the result pickled
with its arrays' buffers sent as they are (pickle protocol 5, out of band),
received into buffers reused from pass to pass.

Calls on a channel are strictly sequential (the lead never has two
outstanding on one peer), so a call is a request written at once and a
reply read when the lead wants it: the peer computes while the lead
computes its own share.

Safety: the peer listens on its worker's host, accepts a single connection,
and reads nothing from it (no unpickling) before the connection has sent the
secret the peer handed the lead through Dask.  The channel needs plain TCP
between the workers (``tcp://`` addresses); for other schemes (TLS,
in-process) :func:`channel_host` returns None and the lead keeps Dask's
messages.

Failure: a peer whose process dies closes its socket; the lead's read then
fails at once with an ``OSError`` (``ConnectionError``), which the client
reports as a lost worker.  TCP keep-alive probes end a read on a peer whose
machine vanished without closing anything (within about a minute).
"""

from __future__ import annotations

import hmac
import pickle
import secrets
import socket
import struct
import threading

__all__ = ["ChannelServer", "Channel", "channel_host"]

#: Seconds the peer waits for the lead to connect before it stops listening.
ACCEPT_TIMEOUT = 60.0
#: Seconds the lead tries to connect before it keeps Dask's messages for that peer.
CONNECT_TIMEOUT = 10.0
_SECRET_BYTES = 32
_HEADER = struct.Struct("!Q")          # a length
_OK, _ERROR, _CLOSE = b"o", b"e", b"c"


def channel_host(address: str) -> str | None:
    """The host of a worker's ``tcp://host:port`` address, or None when it is not plain TCP."""
    scheme, sep, rest = address.partition("://")
    if not sep or scheme != "tcp":
        return None
    host = rest.rsplit(":", 1)[0]
    return host.strip("[]") or None


def _keep_alive(sock: socket.socket) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", 20), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 6)):
        if hasattr(socket, option):                   # Linux; elsewhere the system's defaults
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


def _recv_exactly(sock: socket.socket, view: memoryview) -> None:
    while view.nbytes:
        got = sock.recv_into(view)
        if got == 0:
            raise ConnectionError("the channel's other end closed the connection")
        view = view[got:]


def _send(sock: socket.socket, kind: bytes, obj) -> None:
    """One message: kind, the pickle's length and the buffers' lengths, the pickle, the buffers."""
    buffers: list = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    head = kind + _HEADER.pack(len(data)) + _HEADER.pack(len(raws)) + b"".join(_HEADER.pack(r.nbytes) for r in raws)
    sock.sendall(head)
    sock.sendall(data)
    for raw in raws:
        sock.sendall(raw)


class _Receiver:
    """Reads messages from one socket; the out-of-band buffers land in arrays reused from call to call."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self._scratch: list[bytearray] = []

    def _read(self, nbytes: int) -> bytearray:
        out = bytearray(nbytes)
        _recv_exactly(self.sock, memoryview(out))
        return out

    def receive(self, *, reuse: bool):
        """(kind, object).  ``reuse``: the object's arrays are read-only views of buffers the next call overwrites."""
        kind = bytes(self._read(1))
        n_data, n_buffers = _HEADER.unpack(self._read(8))[0], _HEADER.unpack(self._read(8))[0]
        sizes = [_HEADER.unpack(self._read(8))[0] for _ in range(n_buffers)]
        data = self._read(n_data)
        buffers = []
        for k, size in enumerate(sizes):
            if reuse:
                while len(self._scratch) <= k:
                    self._scratch.append(bytearray())
                if len(self._scratch[k]) < size:
                    self._scratch[k] = bytearray(size)
                view = memoryview(self._scratch[k])[:size]
                _recv_exactly(self.sock, view)
                buffers.append(view.toreadonly())
            else:
                buffers.append(self._read(size))
        return kind, pickle.loads(data, buffers=buffers)


class ChannelServer:
    """The peer's end: listens once, then serves the lead's calls on ``target`` in a thread of its own.

    ``target``: the object whose methods the lead calls (the peer's
    :class:`~rankcore.dask._shard.Shard`); ``target.after_reply(method,
    result)`` is called once the result has been sent (buffers it may reuse).
    The thread ends when the lead closes the channel or its connection ends.
    """

    def __init__(self, target, host: str):
        self.target = target
        self.secret = secrets.token_bytes(_SECRET_BYTES)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.bind((host, 0))
        self._listener.listen(1)
        self._listener.settimeout(ACCEPT_TIMEOUT)
        self.address = (host, self._listener.getsockname()[1])
        self._thread = threading.Thread(target=self._serve, name="rankcore-channel", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        try:
            try:
                sock, _ = self._listener.accept()
            finally:
                self._listener.close()
            with sock:
                _keep_alive(sock)
                secret = bytearray(_SECRET_BYTES)
                _recv_exactly(sock, memoryview(secret))
                if not hmac.compare_digest(bytes(secret), self.secret):
                    return                               # not the lead: read nothing more from it
                receiver = _Receiver(sock)
                while True:
                    kind, message = receiver.receive(reuse=False)
                    if kind == _CLOSE:
                        return
                    method, args = message
                    try:
                        result = getattr(self.target, method)(*args)
                    except Exception as exc:             # the lead raises it (its class kept where it pickles)
                        _send(sock, _ERROR, _picklable(exc))
                        continue
                    _send(sock, _OK, result)
                    self.target.after_reply(method, result)
        except OSError:
            return                                       # the lead is gone (its fit failed or ended)
        finally:
            self.target = None


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


class Channel:
    """The lead's end of a channel to one peer: :meth:`submit` a call, then :meth:`result` its reply."""

    def __init__(self, address: tuple, secret: bytes):
        self.sock = socket.create_connection(tuple(address), timeout=CONNECT_TIMEOUT)
        self.sock.settimeout(None)          # a pass may take long: a lost peer is a closed socket or keep-alive
        _keep_alive(self.sock)
        self.sock.sendall(secret)
        self._receiver = _Receiver(self.sock)
        self._reuse = False

    def submit(self, method: str, *args, reuse: bool = False) -> "Channel":
        """Send the call; ``reuse``: its result's arrays may be overwritten by the next call's (read-only)."""
        _send(self.sock, _OK, (method, args))
        self._reuse = reuse
        return self

    def result(self):
        """The submitted call's result, or its exception raised here."""
        kind, obj = self._receiver.receive(reuse=self._reuse)
        if kind == _ERROR:
            raise obj
        return obj

    def close(self) -> None:
        try:
            _send(self.sock, _CLOSE, None)
        except OSError:
            pass
        finally:
            self.sock.close()
