"""The trees learner's two growth routes side by side, for the tests that they grow the same trees bit for bit: the
native grower (``search_in_memory``) and the multi-pass protocol (``multi_pass_search``, batched or not), each on its
own layout of the same seed; the statistics to grow on are ``_tree_references.route_statistics``."""

import numpy as np

from rankcore.learners._base import multi_pass_search
from rankcore.registry import resolve

#: The arrays that make a tree, by kind (an oblivious tree has one split per level, no child links).
_NODE_TREE = ("feature", "threshold", "nan_left", "left", "right", "value", "gain", "bins")
_OBLIVIOUS_TREE = ("feature", "threshold", "nan_left", "value", "gain", "bins")


def search_state(candidate):
    """Every array of a search's tree (node or oblivious) and its derivative, as bytes; None when it found none."""
    if candidate is None:
        return None
    r = candidate.ranker
    fields = _OBLIVIOUS_TREE if r.kind == "oblivious_tree" else _NODE_TREE
    return tuple(getattr(r, field).tobytes() for field in fields) + (np.float64(candidate.derivative).tobytes(),)


def both_routes(spec, X, gradients, curvatures, *, seed=0, batched=False):
    """[(native, protocol)] candidates of consecutive searches of the learner ``spec`` on X, one per
    (gradient, curvature) pair; ``batched`` makes the protocol's searches batched."""
    learner = resolve("learner", spec)
    native = learner.prepare(X, random_state=seed)
    protocol = learner.prepare(X, random_state=seed)
    block_n, block_p = native.encode(X), protocol.encode(X)
    if batched:
        protocol.begin_search = lambda **k: type(protocol).begin_search(protocol, batched=True)
    return [(native.search_in_memory([block_n], [g], [h]), multi_pass_search(protocol, [block_p], [g], [h]))
            for g, h in zip(gradients, curvatures)]


def assert_routes_agree(spec, X, gradients, curvatures, *, batched=False):
    """Both routes of the learner ``spec`` find the same tree (or none) at every search; returns the pairs."""
    pairs = both_routes(spec, X, gradients, curvatures, batched=batched)
    for a, b in pairs:
        assert search_state(a) == search_state(b)
    return pairs
