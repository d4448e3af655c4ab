"""The oblivious trees' cells for the interventional SHAP interaction values (``_treeshap_interventional_interactions
.pyx``): ``oblivious_cells`` against the NumPy steps it replaced (``cells_reference``) on random levels and rows with
ties, NaN going either way, infinities and edge shapes (no row, one row, depth-0 trees), one thread against two bit
for bit; ``add_cell_blocks`` against its NumPy reference; whole forests on one and two threads; the refusals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _interventional_interaction_reference import cell_blocks_reference, cells_reference
from rankcore.learners.trees import _treeshap_interventional_interactions as kernel
from rankcore.learners.trees._contributions import cell_levels
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker

THRESHOLDS = np.array([-1.0, -0.5, 0.0, 0.5, 2.0])
VALUES = np.array([-np.inf, -1.0, -0.5, 0.0, 0.25, 0.5, 2.0, np.inf, np.nan])     # ties with every threshold


def _forest(rng, d: int, T: int, max_depth: int = 8) -> list:
    """T random oblivious trees over d columns (depth 0 allowed, a column repeated across levels)."""
    trees = []
    for _ in range(T):
        depth = int(rng.integers(0, max_depth + 1))
        trees.append(ObliviousTreeRanker(rng.integers(0, d, depth), rng.choice(THRESHOLDS, depth),
                                         rng.integers(0, 2, depth), rng.normal(size=1 << depth), [0.0] * depth))
    return trees


def _rows(rng, n: int, d: int) -> np.ndarray:
    X = rng.choice(VALUES, (n, d))
    noise = rng.random((n, d)) < 0.3
    X[noise] = rng.normal(size=(n, d))[noise]
    return X


def _kernel_cells(X, trees, n_threads=1):
    levels = cell_levels(trees, [np.unique(t.feature) for t in trees], X.shape[1])
    cells = np.full((len(trees), X.shape[0]), -7, dtype=np.int32)
    kernel.oblivious_cells(np.ascontiguousarray(X), *levels, cells, n_threads)
    return cells


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2, 7, 300]), st.integers(1, 6), st.integers(0, 6))
def test_cells_match_the_numpy_steps(seed, n, d, T):
    rng = np.random.default_rng(seed)
    trees, X = _forest(rng, d, T), _rows(rng, n, d)
    got = _kernel_cells(X, trees)
    assert got.shape == (T, n)
    for t, tree in enumerate(trees):
        np.testing.assert_array_equal(got[t], cells_reference(X, tree.feature, tree.threshold, tree.nan_left))
    np.testing.assert_array_equal(_kernel_cells(X, trees, 2), got)


def test_nan_goes_each_way_and_ties_go_left():
    """A value equal to the threshold goes left (x > threshold is false), NaN as nan_left says, ±inf as ordered."""
    trees = [ObliviousTreeRanker([0, 0], [0.5, 0.5], [1, 0], [0.0] * 4, [0.0] * 2)]
    X = np.array([[0.5], [np.nan], [np.inf], [-np.inf], [0.5000001]])
    np.testing.assert_array_equal(_kernel_cells(X, trees)[0], [0, 2, 3, 0, 3])


def test_two_threads_give_every_bit_of_one_on_many_rows():
    """Enough rows and levels for the kernel's two threads to run (n · (levels + trees) >= 16384)."""
    rng = np.random.default_rng(5)
    trees, X = _forest(rng, 9, 40), _rows(rng, 2_000, 9)
    one = _kernel_cells(X, trees, 1)
    np.testing.assert_array_equal(_kernel_cells(X, trees, 2), one)
    np.testing.assert_array_equal(one[3], cells_reference(X, trees[3].feature, trees[3].threshold,
                                                          trees[3].nan_left))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 3, 50]), st.integers(1, 5))
def test_cell_blocks_match_their_reference(seed, n, T):
    rng = np.random.default_rng(seed)
    d, G = 6, 8
    trees, X = _forest(rng, d, T, max_depth=4), _rows(rng, n, d)
    cells = _kernel_cells(X, trees)
    slots, tables, used = [], [], []
    for t, tree in enumerate(trees):
        present = np.unique(cells[t])
        keep = present[rng.random(present.shape[0]) < 0.8]          # some cells without a block: slot −1
        slot = np.full(1 << tree.depth, -1, dtype=np.int32)
        slot[keep] = np.arange(keep.shape[0], dtype=np.int32)
        players = np.unique(rng.integers(0, G, tree.depth)) if tree.depth else np.zeros(0, dtype=np.int64)
        slots.append(slot)
        tables.append(rng.normal(size=(keep.shape[0], players.shape[0], players.shape[0])))
        used.append(players)
    out = rng.normal(size=(n, G + 1, G + 1))
    want = out.copy()
    cell_blocks_reference(cells, slots, tables, used, want)
    for threads in (1, 2):
        got = out.copy()
        kernel.add_cell_blocks(cells, *_packed(slots, tables, used), got, threads)
        np.testing.assert_array_equal(got, want)


def _packed(slots, tables, used):
    def starts(arrays):
        return np.r_[0, np.cumsum([a.size for a in arrays])].astype(np.intp)
    return (np.concatenate(slots).astype(np.int32), starts(slots), np.concatenate([a.ravel() for a in tables]),
            starts(tables)[:-1], np.concatenate(used).astype(np.int32), starts(used))


def test_forests_on_one_and_two_threads_agree_bit_for_bit(exact_threads):
    """The whole call (cells, tables, blocks, main effects) with ``n_jobs`` 1 and 2 threads, rows and background
    rows with ties and NaN, and with one row and one background row."""
    import rankcore

    rng = np.random.default_rng(0)
    X = _rows(rng, 2_500, 8)
    X[np.isinf(X)] = 3.0                                  # the estimators refuse infinities
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0.5).astype(float)
    model = rankcore.boost(learner="trees:growth=oblivious", n_iter=30, random_state=0, n_jobs=1)
    model.fit(X[:2_000], y[:2_000])
    exact_threads(2)
    for rows, background in ((X[2_000:], X[:60]), (X[2_000:2_001], X[:1])):
        one = model.set_params(n_jobs=1).feature_interactions(rows, background=background)
        two = model.set_params(n_jobs=2).feature_interactions(rows, background=background)
        np.testing.assert_array_equal(one, two)


def test_oblivious_cells_refusals():
    X = np.zeros((3, 2))
    ok = (np.array([0, 1], dtype=np.int32), np.zeros(2), np.zeros(2, dtype=np.uint8), np.array([0, 2], dtype=np.intp))
    with pytest.raises(ValueError, match="cells must be"):
        kernel.oblivious_cells(X, *ok, np.zeros((1, 4), dtype=np.int32))
    with pytest.raises(ValueError, match="splits column 2"):
        kernel.oblivious_cells(X, np.array([0, 2], dtype=np.int32), *ok[1:], np.zeros((1, 3), dtype=np.int32))
    with pytest.raises(ValueError, match="levels"):
        kernel.oblivious_cells(X, *ok[:3], np.array([0, 3], dtype=np.intp), np.zeros((1, 3), dtype=np.int32))
    deep = np.zeros(31, dtype=np.int32)
    with pytest.raises(ValueError, match="levels"):
        kernel.oblivious_cells(X, deep, np.zeros(31), np.zeros(31, dtype=np.uint8), np.array([0, 31], dtype=np.intp),
                               np.zeros((1, 3), dtype=np.int32))
    with pytest.raises(ValueError, match="level_threshold"):
        kernel.oblivious_cells(X, ok[0], np.zeros(1), *ok[2:], np.zeros((1, 3), dtype=np.int32))


@pytest.mark.parametrize("bad", [-1, 4])
def test_add_cell_blocks_refuses_cells_outside_the_tree(bad):
    """A depth-2 tree has cells 0..3: any other cell is refused before a block is added."""
    cells = np.array([[0, bad]], dtype=np.int32)
    slot = np.zeros(4, dtype=np.int32)
    out = np.zeros((2, 3, 3))
    with pytest.raises(ValueError, match="outside their trees"):
        kernel.add_cell_blocks(cells, slot, np.array([0, 4], dtype=np.intp), np.ones(4), np.array([0], dtype=np.intp),
                               np.array([0, 1], dtype=np.int32), np.array([0, 2], dtype=np.intp), out, 1)
    assert not out.any()


@pytest.mark.parametrize("slot, slot_start, table_start, used_start", [
    ([5, -1], [0, 2], [0], [0, 2]),          # a slot past the tree's one (2, 2) block
    ([-7, -1], [0, 2], [0], [0, 2]),         # a slot below −1
    ([0, -1], [0, 2], [100], [0, 2]),        # the tree's table starts past the table
    ([0, -1], [0, 2], [-4], [0, 2]),         # ... or before it
    ([0, -1], [0, 2], [0], [2, 0]),          # players not an ascending range
    ([0, -1, 0, 0], [3, 1], [0], [0, 2]),    # slots not an ascending range ...
    ([0, -1], [-2, 2], [0], [0, 2]),         # ... nor read before the slot array
])
def test_add_cell_blocks_refuses_slots_and_blocks_outside_their_arrays(slot, slot_start, table_start, used_start):
    """Inconsistent slots, table starts or player ranges are refused before anything is read or added: the blocks
    are read unchecked, so they would add memory beyond the table (values of 1e267 were added before the check)."""
    cells = np.zeros((1, 3), dtype=np.int32)
    out = np.zeros((3, 3, 3))
    with pytest.raises(ValueError, match="tree 0's slots, players or blocks"):
        kernel.add_cell_blocks(cells, np.array(slot, dtype=np.int32), np.array(slot_start, dtype=np.intp),
                               np.ones(4), np.array(table_start, dtype=np.intp), np.array([0, 1], dtype=np.int32),
                               np.array(used_start, dtype=np.intp), out, 1)
    assert not out.any()
    kernel.add_cell_blocks(cells, np.array([0, -1], dtype=np.int32), np.array([0, 2], dtype=np.intp), np.ones(4),
                           np.array([0], dtype=np.intp), np.array([0, 1], dtype=np.int32),
                           np.array([0, 2], dtype=np.intp), out, 1)             # the consistent call adds the block
    np.testing.assert_array_equal(out[:, :2, :2], np.ones((3, 2, 2)))
