"""The lead's calls to a peer run on the peer worker's event loop (``Shard.on_loop``), not its actor thread.

Dask's ``actor_execute`` awaits a coroutine method on the worker's loop; a
plain method is handed to the actor's thread and its result back, two
thread switches per call.  The peer's passes are plain methods, so the lead
calls them through the coroutine ``on_loop``.  No cluster: the routing and
the coroutine are checked in process (the lead tests check the trees on a
cluster).
"""

from __future__ import annotations

import asyncio
import threading

import pytest

pytest.importorskip("distributed")

from rankcore.dask import _lead  # noqa: E402
from rankcore.dask._shard import Shard  # noqa: E402


class _Recorder(_lead.Peer):
    """A peer whose Dask messages are recorded instead of sent."""

    def __init__(self):
        super().__init__("tcp://nowhere:1", "actor-key")
        self.sent = []

    def _dask_submit(self, method, *args):
        self.sent.append((method, args))
        return None


@pytest.mark.parametrize("on_loop", [True, False])
def test_the_lead_sends_its_passes_through_on_loop_unless_told_not_to(monkeypatch, on_loop):
    monkeypatch.setattr(_lead, "PEER_ON_LOOP", on_loop)
    peer = _Recorder()
    peer.submit("tree_pass", None, None, None, {"op": "root"})
    peer.submit("line_summary", 7, "ranker", "values", "G", 3)
    if on_loop:
        assert peer.sent == [("on_loop", ("tree_pass", None, None, None, {"op": "root"})),
                             ("on_loop", ("line_summary", 7, "ranker", "values", "G", 3))]
    else:
        assert peer.sent == [("tree_pass", (None, None, None, {"op": "root"})),
                             ("line_summary", (7, "ranker", "values", "G", 3))]


def test_on_loop_is_a_coroutine_running_the_method_in_the_awaiting_thread():
    assert asyncio.iscoroutinefunction(Shard.on_loop)        # what makes Dask await it on the loop

    class _Target:
        def tree_pass(self, *args):
            return args, threading.current_thread()

    coroutine = Shard.on_loop(_Target(), "tree_pass", 1, None, "x")
    args, thread = asyncio.run(coroutine)
    assert args == (1, None, "x") and thread is threading.current_thread()
