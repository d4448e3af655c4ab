"""The lead's direct channels to the other shards (``rankcore.dask._channel``) and the fit over them.

The channel's two ends run here in one process over loopback (the same code
the workers run); the fit tests compare the lead's trees over channels with
those over Dask's actor messages on the shared cluster, bit for bit.
"""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from rankcore.dask._channel import Channel, ChannelServer, channel_host


class _Target:
    """Stands for a shard: methods the lead calls, and the buffers handed back after each reply."""

    def __init__(self):
        self.released = []

    def tree_pass(self, k):
        return np.full((3, 4), float(k))

    def pair(self, a, b):
        return a, {"sum": a + b}

    def fail(self):
        raise ValueError("bad request: k must be positive")

    def after_reply(self, method, result):
        self.released.append(method)


def _served():
    target = _Target()
    server = ChannelServer(target, "127.0.0.1")
    return target, server, Channel(server.address, server.secret)


def test_calls_return_values_in_order_and_reused_arrays_are_read_only():
    target, server, channel = _served()
    first = channel.submit("tree_pass", 1, reuse=True).result()
    assert not first.flags.writeable
    np.testing.assert_array_equal(first, np.ones((3, 4)))
    kept = first.copy()
    second = channel.submit("tree_pass", 2, reuse=True).result()
    np.testing.assert_array_equal(second, np.full((3, 4), 2.0))
    np.testing.assert_array_equal(kept, np.ones((3, 4)))
    fresh = channel.submit("tree_pass", 3).result()
    assert fresh.flags.writeable
    a, b = channel.submit("pair", np.arange(5.0), np.ones(5)).result()
    np.testing.assert_array_equal(b["sum"], np.arange(5.0) + 1)
    channel.close()
    server._thread.join(5)
    assert not server._thread.is_alive()
    assert target.released == ["tree_pass"] * 3 + ["pair"]        # each after its reply was sent


def test_an_error_on_the_peer_is_raised_by_the_lead_and_the_channel_goes_on():
    _, server, channel = _served()
    with pytest.raises(ValueError, match="k must be positive"):
        channel.submit("fail").result()
    np.testing.assert_array_equal(channel.submit("tree_pass", 4).result(), np.full((3, 4), 4.0))
    channel.close()


def test_a_connection_without_the_secret_is_dropped_unread():
    target, server, channel = _served()
    channel.sock.close()                              # the lead's connection never comes: use the slot
    server2 = ChannelServer(target, "127.0.0.1")
    intruder = Channel(server2.address, b"x" * 32)
    with pytest.raises(OSError):
        intruder.submit("tree_pass", 1).result()
    server2._thread.join(5)
    assert not server2._thread.is_alive()


def test_a_peer_that_dies_is_an_oserror_at_once_not_a_hang():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    accepted = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    channel = Channel(listener.getsockname(), b"s" * 32)
    for _ in range(100):
        if accepted:
            break
        time.sleep(0.01)
    accepted[0].close()                               # the peer's process ends: its socket closes
    start = time.monotonic()
    with pytest.raises(OSError):
        channel.submit("tree_pass", 1).result()
    assert time.monotonic() - start < 5
    listener.close()


def test_a_peer_whose_port_cannot_be_reached_keeps_dask_messages(monkeypatch):
    import concurrent.futures

    from rankcore.dask._lead import Peer

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    address = closed.getsockname()
    closed.close()                                    # nothing listens there now: the connection is refused
    offer = concurrent.futures.Future()
    offer.set_result({"status": "OK", "result": (address, b"s" * 32)})
    monkeypatch.setattr(Peer, "_dask_submit", lambda self, method, *args: offer)
    peer = Peer("tcp://127.0.0.1:1", "shard-key")
    peer.connect()
    assert peer.channel is None


@pytest.mark.parametrize("address, host", [("tcp://127.0.0.1:4000", "127.0.0.1"), ("tcp://[::1]:4000", "::1"),
                                           ("tls://10.0.0.1:4000", None), ("inproc://10.0.0.1/1/2", None)])
def test_only_plain_tcp_workers_offer_a_channel(address, host):
    assert channel_host(address) == host


# ----------------------------------------------------------------------
# The fit over channels
# ----------------------------------------------------------------------
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._backend import DaskBackend  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def _data(n=3000, d=6, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = np.round(X[:, 3], 1)                      # ties
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


def _channel_threads():
    return sum(t.name == "rankcore-channel" for t in threading.enumerate())


@pytest.mark.parametrize("spec", ["trees", "trees:growth=depthwise,colsample=0.7"])
def test_the_lead_grows_the_same_trees_over_channels_as_over_dask_messages(dask_client, monkeypatch,  # noqa: F811
                                                                          spec):
    X, y = _data()
    chunks = (700, 300, 1200, 800)
    Xd, yd = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))
    models = {}
    for channels in (True, False):
        monkeypatch.setattr(DaskBackend, "direct_channels", channels)
        models[channels] = DaskPushBoost(learner=spec, n_iter=4, random_state=0).fit(Xd, yd)
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
    X, y = _data()
    Xd, yd = da.from_array(X, chunks=((1500, 1500), -1)), da.from_array(y, chunks=((1500, 1500),))
    dask_client.run(_count_served)
    try:
        model = DaskPushBoost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(Xd, yd)
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
