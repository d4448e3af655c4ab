"""A whole tree grown by one shard, the *lead*, which calls the other shards for each pass.

The client's part of a multi-pass search (``rankcore.learners._base``,
"Multi-pass searches") costs one round trip to the workers per pass.  For a
layout declaring ``remote_search`` the backend sends the whole search to the
first shard instead: its actor runs the search on its copy of the layout,
asks every shard for each pass (itself directly, the others over direct
channels on Dask's comm layer, ``rankcore.dask._channel``, or Dask's actor
messages where a channel cannot be opened; all at once), adds their arrays in shard order -- the
client's order, so the tree is the same bit for bit -- and returns only the
finished tree.  The histograms of the other workers travel to the lead,
never to the client, and the client waits once per tree.

When the objective summarizes its line along a ranker of few values, the
lead also asks the shards for that summary as soon as the tree is known: the
client's line search and next objective state then need no round trip.  When the search finds no split, the
lead asks the shards for their gradient's sums of each sign (the client checks the gain limit on them).
"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Peer", "TreeOutcome", "grow_tree"]

#: Whether a peer runs the lead's calls on its worker's event loop (``Shard.on_loop``), where the message
#: arrives, rather than handing each to its actor thread and back: two thread switches fewer per call.
PEER_ON_LOOP = True


@dataclass
class TreeOutcome:
    """What the lead returns to the client for one tree.

    Attributes
    ----------
    candidate : Candidate or None
        The search's result.
    reason : str or None
        The layout's ``no_candidate_reason()`` after the search.
    passes : int
        The passes the shards computed (each a round trip between workers).
    line_summaries : list or None
        Each shard's merged line summary along the tree (shard order), when asked for and given.
    held : int or None
        The number every shard now holds the tree's h under (``Shard._directions``), when the line
        summary was asked for: the update then refers to the tree by it instead of sending it again.
    sign_sums : list or None
        When the search found no split: every block's (Σ g > 0, −Σ g < 0), in shard and block order
        (``Shard.gain_sums``), for the client's check of the gain limit.
    """

    candidate: Any
    reason: str | None
    passes: int
    line_summaries: list | None = None
    held: int | None = None
    sign_sums: list | None = None


class Peer:
    """Another worker's shard, called from the lead's actor thread.

    Through a direct :class:`~rankcore.dask._channel.Channel` once
    :meth:`connect` has opened one, else through the
    worker's own connection pool (Dask's ``actor_execute`` message, as an
    actor proxy sends it).  A proxy would also hold a client on the worker
    and, when the peer's worker is lost, wait for the actor to be recomputed,
    which a shard pinned to that worker never is: here the lost connection
    is an ``OSError`` at once, which the client reports.

    Parameters
    ----------
    address : str
        The peer's worker.
    key : str
        Its actor's key.
    """

    def __init__(self, address: str, key: str):
        self.address = address
        self.key = key
        self.channel = None

    def connect(self) -> None:
        """Open a direct channel to the peer, when its worker offers one (``Shard.open_channel``).

        A peer whose listener cannot be reached (a firewall between the
        workers) keeps Dask's messages: the same calls, at their cost.
        """
        from distributed import get_worker

        from ._channel import Channel

        address = _Reply(self._dask_submit("open_channel")).result()
        if address is None:
            return
        worker = get_worker()
        try:
            self.channel = Channel(address, worker.security.get_connection_args("worker"), worker.loop.asyncio_loop)
        except OSError:
            self.channel = None

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None

    def submit(self, method: str, *args):
        """Start ``method(*args)`` on the peer; the returned object's ``result()`` is its value."""
        if self.channel is not None:
            return self.channel.submit(method, *args)
        if PEER_ON_LOOP:                   # Shard.on_loop(method, *args): run where the message is read
            return _Reply(self._dask_submit("on_loop", method, *args))
        return _Reply(self._dask_submit(method, *args))

    def _dask_submit(self, method: str, *args) -> "concurrent.futures.Future":
        import asyncio

        from distributed import get_worker
        from distributed.protocol import to_serialize

        worker = get_worker()

        async def call():
            return await worker.rpc(self.address).actor_execute(
                function=method, actor=self.key, args=[to_serialize(arg) for arg in args], kwargs={})

        return asyncio.run_coroutine_threadsafe(call(), worker.loop.asyncio_loop)


class _Reply:
    """A Dask ``actor_execute`` call's future: ``result()`` is the method's value or raises its exception."""

    def __init__(self, future):
        self.future = future

    def result(self):
        message = self.future.result()
        if message["status"] == "OK":
            return message["result"]
        raise message["exception"]


def _on_every_shard(lead, peers: list, method: str, *args) -> list:
    """``method(*args)`` of the lead and its peers, the peers' running while the lead computes; shard order."""
    replies = [peer.submit(method, *args) for peer in peers]
    mine = getattr(lead, method)(*args)
    return [mine] + [reply.result() for reply in replies]


def grow_tree(lead, peers: list, update, G, token, plan: dict, *, batched: bool, summarize: bool,
              number: int) -> TreeOutcome:
    """Run one tree's search on the lead shard (``lead``, a :class:`~rankcore.dask._shard.Shard`).

    Parameters
    ----------
    lead : Shard
        The shard running the search (its layout copy searches; its blocks answer first).
    peers : list of Peer
        The other shards, in the client's shard order.
    update, G, token
        As the first ``Shard.tree_pass`` of a search takes them (the pending
        update, the objective's stages, the client's state token).
    plan : dict
        The layout's ``draw_search()``, drawn on the client.
    batched : bool
        Ask for the batched search (``batched_search`` layouts).
    summarize : bool
        Also return the shards' line summaries along the tree.
    number : int
        The tree's number (the client's): the line summary's message carries the tree to every
        shard once, and each shard keeps its h under this number for the update.
    """
    layout = lead.layout
    search = layout.begin_search(batched=True, plan=plan) if batched else layout.begin_search(plan=plan)
    first, passes, totals = (update, G, token), 0, []
    while (request := search.next_request()) is not None:
        # the peers' arrays are only added into the sums (copied if one is the first and read-only)
        parts = _on_every_shard(lead, peers, "tree_pass", *first, request)
        first = (None, None, None)
        passes += 1
        total = None
        for part in parts:
            if part is None:
                continue
            if total is None:              # the lead's own array, or one received: the search's from now on
                total = part if part.flags.writeable else part.copy()
            else:
                total += part              # in place: the client's sums, in shard order, without a new array
        search.receive(total)
        totals.append(total)
    candidate = search.result()
    release = getattr(layout, "release_histograms", None)
    if release is not None:
        release(totals)                    # the passes' stacks: the search is done reading them
    outcome = TreeOutcome(candidate, layout.no_candidate_reason(), passes)
    if candidate is None:
        # an empty search: gradient sums past the gain limit make it an overflow (the client checks them)
        outcome.sign_sums = [pair for part in _on_every_shard(lead, peers, "gain_sums", token) for pair in part]
    if summarize and candidate is not None and candidate.ranker.values is not None:
        values = np.asarray(candidate.ranker.values, dtype=np.float64)
        parts = _on_every_shard(lead, peers, "line_summary", number, candidate.ranker, values, G, token)
        outcome.held = number
        if all(part is not None for part in parts):
            outcome.line_summaries = parts
    return outcome
