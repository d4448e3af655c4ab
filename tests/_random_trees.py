"""Hypothesis strategies of random trees for the explanation kernels' tests: thresholds on the grid the tests' rows
are drawn from (so rows tie with them), random NaN sides, some categorical nodes (left categories among 0..3), a
column splitting at several places of a path."""

import numpy as np
from hypothesis import strategies as st

from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker
from rankcore.learners.trees._ranker import TreeRanker

__all__ = ["node_trees", "oblivious_trees"]

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
