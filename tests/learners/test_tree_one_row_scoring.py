"""Scoring one row at a time (an alerting service's call) does not re-scan every tree's nodes."""
import numpy as np

from rankcore.learners.trees._ranker import TreeRanker, predict_forest


class _CountingTuple(tuple):
    """A tuple that counts how often it is iterated."""

    scans = 0

    def __iter__(self):
        type(self).scans += 1
        return super().__iter__()


def _stump(categories=None):
    """x0 <= 0.5 -> -1, else +1 (node 0 categorical when ``categories`` says so)."""
    return TreeRanker(np.array([0, -1, -1], dtype=np.int32), np.array([0.5, 0.0, 0.0]),
                      np.zeros(3, dtype=np.uint8), np.array([1, -1, -1], dtype=np.int32),
                      np.array([2, -1, -1], dtype=np.int32), np.array([0.0, -1.0, 1.0]), np.zeros(3),
                      categories=categories)


def test_categorical_is_read_once_per_tree_not_once_per_prediction():
    trees = [_stump() for _ in range(5)]
    for tree in trees:
        tree.categories = _CountingTuple(tree.categories)
    _CountingTuple.scans = 0
    row = np.array([[1.0]])
    first = predict_forest(trees, np.ones(5), row)
    scans_after_first = _CountingTuple.scans
    for _ in range(20):
        np.testing.assert_array_equal(predict_forest(trees, np.ones(5), row), first)
    # before the cache every call scanned every tree's nodes again: 5 + 20 * 5 scans
    assert scans_after_first == 5
    assert _CountingTuple.scans == scans_after_first
    np.testing.assert_array_equal(first, [5.0])


def test_categorical_follows_new_categories():
    tree = _stump()
    assert not tree.categorical
    tree.categories = (np.array([2.0]), None, None)     # node 0 now sends category 2 left
    assert tree.categorical
    scores = predict_forest([tree, _stump()], np.ones(2), np.array([[2.0], [1.0]]))
    # row 0: category 2 goes left (-1) in the first tree, right (+1) in the second; row 1 goes right in both
    np.testing.assert_array_equal(scores, [0.0, 2.0])
    tree.categories = (None, None, None)
    assert not tree.categorical


def test_categorical_follows_a_list_of_categories_changed_in_place():
    # a list keeps its identity when changed in place: a cache keyed on it answered for its old contents
    tree = _stump()
    tree.categories = [None, None, None]
    assert not tree.categorical
    tree.categories[0] = np.array([2.0])
    assert tree.categorical
    np.testing.assert_array_equal(predict_forest([tree], np.ones(1), np.array([[2.0], [1.0]])), [-1.0, 1.0])
