"""A direct channel from the lead shard to another worker's shard, on Dask's own comm layer.

The lead (``rankcore.dask._lead``) calls every other shard once per pass of
a tree's search: a dozen calls per leaf-wise tree.  Through Dask's actor
messages (``actor_execute``) a call costs ~2 ms of CPU on each side (the
scheduler-style message handling, a hop to the actor's thread, the
result's framing) besides the histograms' bytes; on 2 cores shared by both
workers, that CPU is fit time.  A channel carries the same calls over one
connection of Dask's comm layer between the two shards -- the way workers
talk to each other in Dask's own peer-to-peer shuffles and dask-cuda's
"explicit comms": :func:`distributed.comm.listen` and
:func:`distributed.comm.connect` on the worker's own scheme (``tcp://``,
``tls://``, ``inproc://``, ...) with the worker's security settings, each
message a ``Comm.write``/``Comm.read`` whose arrays travel as Dask frames
(:func:`distributed.protocol.to_serialize`), not as pickled copies.

Both ends run on event loops: the peer's listener on its worker's loop,
which hands each call to one thread of the channel's own (the worker's loop
stays free for heartbeats while the shard computes); the lead's connection
on its worker's loop too (a private loop in a thread of the lead's measured
no consistently cheaper, ``docs/studies/dask_trees_round_trips.md``).  Calls
on a channel are strictly sequential (the lead never has two outstanding on
one peer): a call is a request written at once and a reply read when the
lead wants it, so the peer computes while the lead computes its own share.
Dask's comms read each message into fresh buffers: a received histogram is
a new array each pass (an allocation of its size; no copy beyond the read).

Cost: Dask's message protocol has a fixed cost per message (msgpack framing,
serializer dispatch, metrics), ~2.2-2.6 ms of CPU per call on both ends
against ~0.5-0.8 ms for a raw socket; in a fit the channel saves only 5-9 %
of the worker CPU of Dask's actor messages, which is why
``DaskBackend.direct_channels`` defaults to False.

Safety: the listener accepts connections as the worker's own listener does
(Dask's handshake; with TLS configured, only peers holding the cluster's
certificates), serves the first one and stops listening.

Failure: a peer whose process dies closes its connection; the lead's read
then fails at once with Dask's ``CommClosedError`` (an ``OSError``), which
the client reports as a lost worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

__all__ = ["ChannelServer", "Channel", "listen_address"]

#: Seconds the peer waits for the lead to connect before it stops listening.
ACCEPT_TIMEOUT = 60.0
#: Seconds the lead tries to connect before it keeps Dask's messages for that peer.
CONNECT_TIMEOUT = 10.0
#: Name of the threads a channel runs its peer's calls in (the tests count them).
THREAD_NAME = "rankcore-channel"

_CLOSE = "close"


def listen_address(worker_address: str) -> str:
    """Where a channel listens: the worker's scheme and host, any free port (``inproc``: a fresh address)."""
    from distributed.comm.addressing import parse_address, parse_host_port, unparse_address, unparse_host_port

    scheme, loc = parse_address(worker_address)
    if scheme == "inproc":
        return "inproc://"
    host, _ = parse_host_port(loc)
    return unparse_address(scheme, unparse_host_port(host, 0))


def _picklable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


class ChannelServer:
    """The peer's end: a listener on the worker's loop serving one lead's calls on ``target``.

    ``target``: the object whose methods the lead calls (the peer's
    :class:`~rankcore.dask._shard.Shard`); ``target.after_reply(method,
    result)`` is called once the result has been written (buffers it may
    reuse).  Start it with :meth:`start` (a coroutine, on the worker's
    loop); :attr:`address` is then the address the lead connects to.  The
    serving thread ends when the lead closes the channel or its connection
    ends.

    Parameters
    ----------
    target : object
        The shard.
    address : str
        Where to listen (:func:`listen_address`).
    listen_args : dict
        The worker's ``security.get_listen_args("worker")``.
    """

    def __init__(self, target, address: str, listen_args: dict):
        self.target = target
        self._where = address
        self._listen_args = listen_args
        self._listener = None
        self._expiry = None
        self.address = None
        # an in-process comm hands the lead the very objects: then the peer must not reuse their buffers
        self._copies = not address.startswith("inproc://")
        self.served = asyncio.Event()        # set once the connection has ended (tests wait on it)

    async def start(self) -> str:
        from distributed.comm import listen

        self._listener = listen(self._where, self._handle, deserialize=True, **self._listen_args)
        await self._listener.start()
        self.address = self._listener.contact_address
        self._expiry = asyncio.get_running_loop().call_later(ACCEPT_TIMEOUT, self._stop_listening)
        return self.address

    def _stop_listening(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        if self._listener is not None:
            self._listener.stop()
            self._listener = None

    async def _handle(self, comm) -> None:
        from distributed.protocol import to_serialize

        if self.target is None:               # a second connection: the lead already has the channel
            await comm.close()
            return
        self._stop_listening()
        target, self.target = self.target, None
        loop = asyncio.get_running_loop()
        pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=THREAD_NAME)
        try:
            while True:
                message = await comm.read()
                if message == _CLOSE:
                    return
                method, args = message["method"], message["args"]
                try:
                    result = await loop.run_in_executor(pool, lambda: getattr(target, method)(*args))
                except Exception as exc:          # the lead raises it (its class kept where it pickles)
                    await comm.write({"error": to_serialize(_picklable(exc))})
                    continue
                await comm.write({"result": to_serialize(result)})
                if self._copies:                  # the lead holds a copy now: the buffers are free again
                    target.after_reply(method, result)
        except OSError:
            return                                 # the lead is gone (its fit failed or ended)
        finally:
            pool.shutdown(wait=False)
            comm.abort()
            self.served.set()


class Channel:
    """The lead's end of a channel to one peer: :meth:`submit` a call, then :meth:`result` its reply.

    Built from the lead's thread; its connection lives on ``loop`` (an
    asyncio loop running in another thread: the lead's worker's loop).

    Parameters
    ----------
    address : str
        The peer's :attr:`ChannelServer.address`.
    connection_args : dict
        The worker's ``security.get_connection_args("worker")``.
    loop : asyncio.AbstractEventLoop
        The loop the connection is driven on.
    """

    def __init__(self, address: str, connection_args: dict, loop):
        from distributed.comm import connect

        self._loop = loop
        self._pending = None
        self.comm = self._run(connect(address, timeout=CONNECT_TIMEOUT, **connection_args)).result()

    def _run(self, coro) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def _call(self, message):
        await self.comm.write(message)
        return await self.comm.read()

    def submit(self, method: str, *args) -> "Channel":
        """Send the call ``method(*args)``; :meth:`result` then waits for its reply."""
        from distributed.protocol import to_serialize

        self._pending = self._run(self._call({"method": method, "args": to_serialize(args)}))
        return self

    def result(self):
        """The submitted call's result, or its exception raised here."""
        reply, self._pending = self._pending.result(), None
        if "error" in reply:
            raise reply["error"]
        return reply["result"]

    def close(self) -> None:
        """Tell the peer the channel is done (its serving thread ends), then close the connection."""
        async def close():
            try:
                await self.comm.write(_CLOSE)
            except OSError:
                pass
            finally:
                await self.comm.close()

        try:
            self._run(close()).result(timeout=CONNECT_TIMEOUT)
        except Exception:                       # a lost peer: its connection is gone already
            self._loop.call_soon_threadsafe(self.comm.abort)
