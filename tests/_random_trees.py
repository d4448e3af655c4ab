"""Hypothesis strategies of random trees for the explanation kernels' tests: thresholds on the grid the tests' rows
are drawn from (so rows tie with them), random NaN sides, some categorical nodes (left categories among 0..3), a
column splitting at several places of a path."""

import numpy as np
from hypothesis import strategies as st

from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker
from rankcore.learners.trees._ranker import TreeRanker

__all__ = ["node_trees", "oblivious_trees", "chain_tree"]

THRESHOLDS = [-0.5, 0.0, 0.5]


@st.composite
def node_trees(draw, d, max_depth=4):
    """A random node tree over d columns, leaves of values in {−2, −1.5, ..., 2}."""
    feature, threshold, nan_left, left, right, value, categories = [], [], [], [], [], [], []

    def node(depth):
        k = len(feature)
        for column in (feature, threshold, nan_left, left, right, value, categories):
            column.append(None)
        if depth == max_depth or depth > 0 and draw(st.booleans()):
            feature[k], threshold[k], nan_left[k], left[k], right[k] = 0, 0.0, 0, -1, -1
            value[k] = draw(st.integers(-4, 4)) / 2.0
            return k
        feature[k] = draw(st.integers(0, d - 1))
        threshold[k] = draw(st.sampled_from(THRESHOLDS))
        nan_left[k] = int(draw(st.booleans()))
        value[k] = 0.0
        if draw(st.integers(0, 4)) == 0:
            categories[k] = sorted(draw(st.sets(st.integers(0, 3), min_size=1, max_size=3)))
        left[k] = node(depth + 1)
        right[k] = node(depth + 1)
        return k

    node(0)
    return TreeRanker(feature, threshold, nan_left, left, right, value, [0.0] * len(feature), categories=categories)


@st.composite
def oblivious_trees(draw, d, max_depth=4):
    """A random oblivious tree over d columns: a column per level (repeats allowed), NaN sides drawn."""
    depth = draw(st.integers(0, max_depth))
    feature = draw(st.lists(st.integers(0, d - 1), min_size=depth, max_size=depth))
    threshold = draw(st.lists(st.sampled_from(THRESHOLDS), min_size=depth, max_size=depth))
    nan_left = draw(st.lists(st.integers(0, 1), min_size=depth, max_size=depth))
    value = draw(st.lists(st.integers(-4, 4), min_size=1 << depth, max_size=1 << depth))
    return ObliviousTreeRanker(feature, threshold, nan_left, np.array(value) / 2.0, [0.0] * depth)


def chain_tree(depth: int = 40):
    """``(tree, x, Z)``: a chain of ``depth`` splits on ``depth`` distinct features (node k: feature k, its left
    child a leaf of value k + 1, the last right child a leaf of −7), x all ones and one background row z that parts
    from x on every other feature (the even ones), so a walk's A and B grow to depth / 2 each."""
    feature, threshold, nan_left, left, right, value = [], [], [], [], [], []
    for k in range(depth):
        node = len(feature)
        feature += [k, 0]
        threshold += [0.0, 0.0]
        nan_left += [1, 0]
        left += [node + 1, -1]
        right += [node + 2, -1]
        value += [0.0, float(k + 1)]
    feature.append(0), threshold.append(0.0), nan_left.append(0), left.append(-1), right.append(-1)
    value.append(-7.0)
    tree = TreeRanker(feature, threshold, nan_left, left, right, value, [0.0] * len(feature))
    return tree, np.ones((1, depth)), np.where(np.arange(depth) % 2 == 0, -1.0, 1.0)[None, :]
