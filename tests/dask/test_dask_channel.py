"""The lead's direct channels to the other shards on Dask's comm layer (``rankcore.dask._channel``).

The channel's two ends run here in one process over loopback TCP on an event
loop of the test's own (the same code the workers run on theirs); the fit
tests compare the lead's trees over channels with those over Dask's actor
messages on the shared cluster, bit for bit.
"""

from __future__ import annotations

import asyncio
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("distributed")

from rankcore.dask import _channel  # noqa: E402
from rankcore.dask._channel import THREAD_NAME, Channel, ChannelServer, listen_address  # noqa: E402


class _Target:
    """Stands for a shard: methods the lead calls, and the buffers handed back after each reply."""

    def __init__(self):
        self.released = []
        self.threads = set()

    def tree_pass(self, k):
        self.threads.add(threading.current_thread().name)
        return np.full((3, 4), float(k))

    def pair(self, a, b):
        return a, {"sum": a + b}

    def fail(self):
        raise ValueError("bad request: k must be positive")

    def after_reply(self, method, result):
        self.released.append(method)


@pytest.fixture
def loop():
    """An asyncio loop in a thread, standing for a worker's event loop."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)


def _on(loop, coro):
    return asyncio.run_coroutine_threadsafe(coro, loop).result(10)


def _channel_threads():
    return sum(t.name.startswith(THREAD_NAME) for t in threading.enumerate())


def _served(loop):
    target = _Target()
    server = ChannelServer(target, "tcp://127.0.0.1:0", {})
    address = _on(loop, server.start())
    return target, server, Channel(address, {}, loop)


def _wait_served(loop, server):
    async def wait():
        await asyncio.wait_for(server.served.wait(), 5)
    _on(loop, wait())


def test_calls_return_values_in_order_off_the_loop_and_the_thread_ends_with_the_channel(loop):
    target, server, channel = _served(loop)
    assert server.address.startswith("tcp://127.0.0.1:")
    first = channel.submit("tree_pass", 1).result()
    np.testing.assert_array_equal(first, np.ones((3, 4)))
    second = channel.submit("tree_pass", 2).result()
    np.testing.assert_array_equal(second, np.full((3, 4), 2.0))
    np.testing.assert_array_equal(first, np.ones((3, 4)))          # a fresh array each reply
    a, b = channel.submit("pair", np.arange(5.0), np.ones(5)).result()
    np.testing.assert_array_equal(a, np.arange(5.0))
    np.testing.assert_array_equal(b["sum"], np.arange(5.0) + 1)
    assert all(name.startswith(THREAD_NAME) for name in target.threads)   # not on the loop's thread
    assert _channel_threads() == 1
    channel.close()
    _wait_served(loop, server)
    deadline = time.monotonic() + 5
    while _channel_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _channel_threads() == 0
    assert target.released == ["tree_pass"] * 2 + ["pair"]        # each after its reply was written


def test_an_error_on_the_peer_is_raised_by_the_lead_and_the_channel_goes_on(loop):
    _, server, channel = _served(loop)
    with pytest.raises(ValueError, match="k must be positive"):
        channel.submit("fail").result()
    np.testing.assert_array_equal(channel.submit("tree_pass", 4).result(), np.full((3, 4), 4.0))
    channel.close()
    _wait_served(loop, server)


def test_the_listener_serves_one_lead_only(loop, monkeypatch):
    _, server, channel = _served(loop)
    channel.submit("tree_pass", 1).result()
    monkeypatch.setattr(_channel, "CONNECT_TIMEOUT", 0.3)
    with pytest.raises(OSError):                       # it stopped listening once the lead connected
        Channel(server.address, {}, loop)
    channel.close()


def test_a_peer_that_dies_is_an_oserror_at_once_not_a_hang(loop, monkeypatch):
    from distributed.comm import listen

    async def die(comm):                               # the peer's process ends mid-call: its comm closes
        await comm.read()
        comm.abort()

    async def start():
        listener = listen("tcp://127.0.0.1:0", die)
        await listener.start()
        return listener

    listener = _on(loop, start())
    channel = Channel(listener.contact_address, {}, loop)
    begin = time.monotonic()
    with pytest.raises(OSError):
        channel.submit("tree_pass", 1).result()
    assert time.monotonic() - begin < 5
    loop.call_soon_threadsafe(listener.stop)


def test_a_peer_whose_listener_cannot_be_reached_keeps_dask_messages(loop, monkeypatch):
    import concurrent.futures
    import socket

    import distributed
    from distributed.security import Security

    from rankcore.dask._lead import Peer

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()                                    # nothing listens there now: the connection is refused
    offer = concurrent.futures.Future()
    offer.set_result({"status": "OK", "result": f"tcp://127.0.0.1:{port}"})
    monkeypatch.setattr(Peer, "_dask_submit", lambda self, method, *args: offer)
    monkeypatch.setattr(_channel, "CONNECT_TIMEOUT", 0.3)
    worker = SimpleNamespace(security=Security(), loop=SimpleNamespace(asyncio_loop=loop))
    monkeypatch.setattr(distributed, "get_worker", lambda: worker)
    peer = Peer("tcp://127.0.0.1:1", "shard-key")
    peer.connect()
    assert peer.channel is None


def test_a_worker_that_cannot_open_a_listener_offers_no_channel(loop, monkeypatch):
    import distributed
    import distributed.comm
    from distributed.security import Security

    from rankcore.dask._shard import Shard

    def refuse(*args, **kwargs):
        raise OSError("no port for you")

    monkeypatch.setattr(distributed.comm, "listen", refuse)
    worker = SimpleNamespace(address="tcp://127.0.0.1:4000", security=Security(),
                             loop=SimpleNamespace(asyncio_loop=loop))
    monkeypatch.setattr(distributed, "get_worker", lambda: worker)
    assert Shard.open_channel(SimpleNamespace()) is None


@pytest.mark.parametrize("address, where", [("tcp://127.0.0.1:4000", "tcp://127.0.0.1:0"),
                                            ("tcp://[::1]:4000", "tcp://[::1]:0"),
                                            ("tls://10.0.0.1:4000", "tls://10.0.0.1:0"),
                                            ("inproc://10.0.0.1/1/2", "inproc://")])
def test_the_listener_takes_the_workers_scheme_and_host(address, where):
    assert listen_address(address) == where


# ----------------------------------------------------------------------
# The fit over channels
# ----------------------------------------------------------------------
import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._backend import DaskBackend  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from test_dask_trees_lead import _data  # noqa: E402  (the same rows as the lead's own tests)


@pytest.mark.parametrize("spec", ["trees", "trees:growth=depthwise,colsample=0.7"])
def test_the_lead_grows_the_same_trees_over_channels_as_over_dask_messages(dask_client, monkeypatch,  # noqa: F811
                                                                          spec):
    X, y = _data()
    chunks = (700, 300, 1200, 800)
    Xd, yd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))
    models = {}
    for channels in (True, False):
        monkeypatch.setattr(DaskBackend, "direct_channels", channels)
        models[channels] = DaskPushBoost(placement="distributed", learner=spec, n_iter=4, random_state=0).fit(Xd, yd)
    a, b = models[True], models[False]
    assert [r.to_state() for r in a.rankers_] == [r.to_state() for r in b.rankers_]
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    assert a.fit_info_["round_trips"] == b.fit_info_["round_trips"]
    assert a.fit_info_["worker_passes"] == b.fit_info_["worker_passes"] > 0
    # the channels end with the fit: no serving thread is left on a worker
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(dask_client.run(_channel_threads).values()):
        time.sleep(0.1)
    assert not any(dask_client.run(_channel_threads).values())


def test_the_channels_carry_the_lead_passes(dask_client, monkeypatch):  # noqa: F811
    """The fit really uses a channel: counted on the peer's serving side."""
    monkeypatch.setattr(DaskBackend, "direct_channels", True)
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=((1500, 1500), -1)), da.from_array(y, chunks=((1500, 1500),))
    dask_client.run(_count_served)
    try:
        model = DaskPushBoost(placement="distributed",
                              learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(Xd, yd)
        served = sum(dask_client.run(_served_count).values())
    finally:
        dask_client.run(_uncount_served)
    assert served == model.fit_info_["worker_passes"] + model.n_iter_    # every pass, and each line summary


def _count_served():
    from rankcore.dask import _shard

    original = _shard.Shard.after_reply
    _shard._COUNT = [0, original]

    def after_reply(self, method, result):
        _shard._COUNT[0] += 1
        return original(self, method, result)

    _shard.Shard.after_reply = after_reply


def _served_count():
    from rankcore.dask import _shard

    return _shard._COUNT[0]


def _uncount_served():
    from rankcore.dask import _shard

    _shard.Shard.after_reply = _shard._COUNT[1]
    del _shard._COUNT
