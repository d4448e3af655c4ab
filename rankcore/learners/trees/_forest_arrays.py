"""A forest's joined node arrays, built once per fitted list of trees and reused by every prediction.

The prediction kernels read every tree's nodes from arrays concatenated over
the trees.  Joining them costs O(total nodes) per call: on a model of 300
trees scoring one row that was most of the call (a scoring service pays it on
every request).  Trees are immutable once built (their arrays are read-only),
so the joined arrays of one list of trees never change: they are kept beside
the list's last tree, weakly, and dropped with it.

A list is recognised by the identity of each of its trees (the entry holds
the trees before the last, so that their ids cannot be reused while it
lives), so a continued model (the same first trees and more) or a list cut
short (a model truncated to its best iteration) gets its own arrays.
Forests of more than :data:`CACHED_NODES` nodes are not kept: their joined
copy would double a large model's memory for a cost that is small beside
scoring the rows such a model is used on.  Nor is a single tree (its arrays
need no joining; a fit adds its trees' scores one by one), nor a list whose last
tree comes earlier in it too (its entry would keep its own key alive).  All kept forests
together hold at most :data:`KEPT_NODES` nodes: beyond, the store is emptied
before the next is kept, so a caller that scores many different lists (every
prefix of a model, say) cannot grow it without bound; and keeping a list drops
the kept lists that begin it (a continued model's init model).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["forest_arrays", "CACHED_NODES", "KEPT_NODES"]

#: The most nodes (over all trees) of a forest whose joined arrays are kept: about 40 MB of node arrays.
CACHED_NODES = 1 << 20

#: The most nodes of all kept forests together (a service's dozens of models fit many times over).
KEPT_NODES = 1 << 21

# family of arrays ("walk", "levels") -> {last tree: (every tree's id, the trees before the last, the arrays, nodes)}
_KEPT: dict[str, weakref.WeakKeyDictionary] = {}
_LOCK = threading.Lock()


def forest_arrays(family: str, rankers: Sequence[Any], build: Callable[[Sequence[Any]], Any],
                  n_nodes: Callable[[Sequence[Any]], int]):
    """``build(rankers)``, computed once per list of trees and kept while its last tree lives.

    Parameters
    ----------
    family : str
        Which arrays (``"walk"``: the node walk's; ``"levels"``: oblivious trees'); each has its own store.
    rankers : sequence of trees
        The fitted trees, in order (not empty).
    build : callable
        ``rankers -> arrays``; its NumPy arrays are made read-only before they are shared.
    n_nodes : callable
        ``rankers ->`` the trees' total nodes (asked when building): forests of more than
        :data:`CACHED_NODES` are built on every call.

    Returns
    -------
    The built arrays (read-only), the same objects on every call for the same trees.

    Notes
    -----
    O(T) time (in C: the trees' ids) to recognise a list already seen, else ``build``'s; memory: one
    joined copy of each kept forest's nodes.  Safe from many threads: two
    threads may build the same arrays once each; one is kept.
    """
    last = rankers[-1]
    ids = tuple(map(id, rankers))
    with _LOCK:
        try:
            entry = _KEPT.get(family, {}).get(last)
        except TypeError:           # a tree without weak references (a plugin's): built on every call
            entry = None
    if entry is not None and entry[0] == ids:
        return entry[2]
    arrays = _read_only(build(rankers))
    nodes = n_nodes(rankers) if len(rankers) > 1 else CACHED_NODES + 1
    if nodes <= CACHED_NODES and not _holds(rankers[:-1], last):
        with _LOCK:
            if sum(e[3] for kept in _KEPT.values() for e in kept.values()) + nodes > KEPT_NODES:
                _KEPT.clear()
            kept = _KEPT.setdefault(family, weakref.WeakKeyDictionary())
            _drop_prefixes(kept, ids)
            try:
                kept[last] = (ids, tuple(rankers[:-1]), arrays, nodes)
            except TypeError:
                pass
    return arrays


def _drop_prefixes(kept: weakref.WeakKeyDictionary, ids: tuple) -> None:
    """Drop the kept forests whose trees begin ``ids``'s list (O(kept entries × T), when keeping a new one).

    A continued model (``init_model``) holds its init model's trees first; that shorter list's entry is keyed on
    one of them, so it would live as long as the continued model does -- after a chain of continuations, one
    joined copy per link.  A caller alternating between a prefix and the whole list joins the prefix again.
    """
    for tree, entry in list(kept.items()):
        if len(entry[0]) < len(ids) and ids[:len(entry[0])] == entry[0]:
            del kept[tree]


def _holds(trees: Sequence[Any], tree: Any) -> bool:
    """Whether ``tree`` itself is among ``trees``: a list whose last tree comes earlier too (``trees + trees[:3]``)
    is not kept, as its entry would hold its own key strongly and never be dropped (O(T), when building only)."""
    return any(t is tree for t in trees)


def _read_only(arrays):
    """``arrays`` (nested tuples and dicts of NumPy arrays) with every array made read-only, in place."""
    if isinstance(arrays, np.ndarray):
        arrays.flags.writeable = False
    elif isinstance(arrays, dict):
        for value in arrays.values():
            _read_only(value)
    elif isinstance(arrays, (tuple, list)):
        for value in arrays:
            _read_only(value)
    return arrays
