"""The threads' share of the code columns by cost (``SlotLayout.set_column_work``): the groups a NumPy
reference gives, and histograms, trees and fits that do not depend on where the groups fall."""

import numpy as np
import pytest

from rankcore.learners.trees import _histogram
from rankcore.learners.trees._column_work import column_work
from rankcore.learners.trees._block import slot_layout
from rankcore.registry import resolve

from _tree_references import node_histogram, sparse_and_dense_block


def _reference_groups(work, T):
    """Group t starts at the first column whose cost partial sum reaches t/T of the total (NumPy)."""
    cum = np.r_[0.0, np.cumsum(np.asarray(work, dtype=np.float64))]
    n = len(work)
    inner = [int(np.searchsorted(cum, cum[n] * (t / T), side="left")) for t in range(1, T)]
    return np.array([0, *inner, n])


def _works(n_cols, rng):
    yield "random", rng.random(n_cols)
    yield "ties", np.ones(n_cols)
    yield "zeros between", np.where(rng.random(n_cols) < 0.5, 0.0, rng.integers(1, 4, n_cols).astype(float))
    yield "one column holds it all", np.eye(n_cols)[n_cols // 3]
    yield "first costs most", np.r_[1000.0, np.ones(n_cols - 1)]
    yield "last costs most", np.r_[np.ones(n_cols - 1), 1000.0]           # the last group empty, ending the columns


def _counted_slots(slots):
    """The slots the reference and the kernels both count: not a bundled feature's default bin (filled by
    subtraction) nor a sparse bundle's code 0 (skipped)."""
    z = np.asarray(slots.default_bin)
    counted = np.ones(slots.n_slots, dtype=bool)
    counted[(np.asarray(slots.base) + z)[z >= 0]] = False
    counted[np.asarray(slots.col_base)[:slots.sparse_columns]] = False
    return counted


def _one_thread_histogram(block, slots, g, h, rows_idx, start, end, identity, unit_h):
    """The node's one-thread histogram with equal column counts, checked against the reference where it counts."""
    n = block.codes.shape[0]
    ref = node_histogram(block.codes, slots, g, h, rows_idx[start:end], unit_h)
    slots.set_column_work(None)
    one = np.full((slots.n_slots, 3), np.nan)
    _histogram.node_histogram(block.codes, slots, g, h, rows_idx, start, end, np.empty(n), np.empty(n), one, 1,
                              identity, unit_h, block.listed, None, block.codes_t)
    counted = _counted_slots(slots)
    np.testing.assert_array_equal(one[counted], ref[counted])
    return one


@pytest.mark.parametrize("T", [1, 2, 3, 8, 40])
def test_column_groups_match_reference(T):
    rng = np.random.default_rng(T)
    slots = slot_layout(np.full(25, 7))
    np.testing.assert_array_equal(_histogram.column_groups(slots, T), (np.arange(T + 1) * 25) // T)
    for name, work in _works(25, rng):
        slots.set_column_work(work)
        groups = _histogram.column_groups(slots, T)
        np.testing.assert_array_equal(groups, _reference_groups(work, T), err_msg=name)
        assert groups[0] == 0 and groups[-1] == 25 and np.all(np.diff(groups) >= 0), name
    slots.set_column_work(None)
    np.testing.assert_array_equal(_histogram.column_groups(slots, T), (np.arange(T + 1) * 25) // T)


def test_column_groups_balance_the_cost():
    """With many small columns each group's cost is within one column's of the total's 1/T."""
    rng = np.random.default_rng(1)
    work = rng.random(300)
    slots = slot_layout(np.full(300, 3))
    slots.set_column_work(work)
    for T in (2, 3, 5):
        g = _histogram.column_groups(slots, T)
        costs = np.array([work[g[t]:g[t + 1]].sum() for t in range(T)])
        assert np.all(np.abs(costs - work.sum() / T) <= 2 * work.max())


@pytest.mark.parametrize("work", [[1.0, 2.0], [1.0] * 5 + [-1.0], [np.nan] * 6, [0.0] * 6, [[1.0] * 6]],
                         ids=["short", "negative", "nan", "zero total", "2-d"])
def test_set_column_work_refuses_bad_costs(work):
    slots = slot_layout(np.full(6, 4))
    with pytest.raises(ValueError, match=r"work: expected 6 finite costs"):
        slots.set_column_work(work)
    assert slots.column_work is None


@pytest.mark.parametrize("unit_h", [False, True])
@pytest.mark.parametrize("n_threads", [2, 3])
def test_histograms_with_column_work_equal_reference(n_threads, unit_h):
    """Sparse bundles read from their listed rows beside dense columns, the groups wherever the costs put
    them: every slot the reference's sum, bit for bit (a root, a gathered node, a node read row by row)."""
    rng = np.random.default_rng(n_threads)
    n = 5000
    _, layout, block = sparse_and_dense_block(rng, n, 40)
    slots = layout.slots
    g, h = rng.normal(size=n), np.ones(n) if unit_h else rng.random(n)
    g[rng.random(n) < 0.2] = 0.5                                          # ties
    idx = rng.permutation(n).astype(np.int32)
    ident = np.arange(n, dtype=np.int32)
    # the reference counts every slot; the kernels skip a sparse bundle's code 0 and fill the bundled
    # features' default-bin slots by subtraction: those are compared with the one-thread kernel only
    for rows_idx, start, end, identity in [(ident, 0, n, True), (idx, 0, 2500, False), (idx, 17, 160, False),
                                           (idx, 9, 9, False)]:
        one = _one_thread_histogram(block, slots, g, h, rows_idx, start, end, identity, unit_h)
        for name, work in [("data", column_work(block.codes_t, slots)), *_works(slots.n_cols, rng)]:
            slots.set_column_work(work)
            for listed in (None, block.listed):
                hist = np.full((slots.n_slots, 3), np.nan)
                _histogram.node_histogram(block.codes, slots, g, h, rows_idx, start, end, np.empty(n), np.empty(n),
                                          hist, n_threads, identity, unit_h, listed, None, block.codes_t)
                np.testing.assert_array_equal(hist, one, err_msg=f"{name}, {start}:{end}")
    slots.set_column_work(None)


def test_column_work_counts_sparse_rows_and_slots():
    """A sparse bundle costs its rows off code 0 (each SPARSE_CODE_WORK), a dense column every row, each plus
    its slots' share."""
    rng = np.random.default_rng(4)
    _, layout, block = sparse_and_dense_block(rng, 3000, 10)
    slots = layout.slots
    work = column_work(block.codes_t, slots)
    s = slots.sparse_columns
    widths = np.diff(np.r_[np.asarray(slots.col_base), slots.n_slots])
    from rankcore.learners.trees._column_work import COLUMN_SLOT_WORK, SPARSE_CODE_WORK
    rows = work - COLUMN_SLOT_WORK * widths
    np.testing.assert_array_equal(rows[:s], SPARSE_CODE_WORK * (block.codes[:, :s] != 0).sum(0))
    np.testing.assert_array_equal(rows[s:], 3000)


@pytest.mark.parametrize("spec", ["trees:growth=oblivious", "trees:growth=leafwise"])
def test_two_thread_fit_with_costed_columns_equals_one_thread(spec, exact_threads):
    """A sparse and dense fit on two threads (the columns shared by cost) scores as the one-thread fit."""
    import rankcore

    exact_threads(2)
    rng = np.random.default_rng(9)
    X, _, _ = sparse_and_dense_block(rng, 3000, 30)
    qid = np.repeat(np.arange(150), 20)
    y = (X[:, 60] > 0).astype(float) + (X[:, :60].sum(1) > 0)
    scores = [rankcore.boost(learner=spec, n_iter=30, random_state=0, n_jobs=t).fit(X, y, qid=qid).decision_function(X)
              for t in (1, 2)]
    np.testing.assert_array_equal(scores[0], scores[1])


@pytest.mark.parametrize("spec", ["trees:max_leaves=2", "trees:max_leaves=8", "trees:max_leaves=8,subsample=1",
                                  "trees:growth=oblivious,max_depth=3"])
def test_two_columns_last_costing_most_two_threads_equal_one_thread(spec, exact_threads):
    """Two columns, the second of 64 bins costing more than half: by cost the second thread gets no column.
    Its empty group ended the columns and once read a slot bound past them (zeroing the other thread's slots,
    or memory before the histogram): trees differed on every two-thread fit (on a busy machine n_jobs=2 ran
    one thread, and this test passed with the bug: ``exact_threads``, conftest.py)."""
    import rankcore

    exact_threads(2)
    rng = np.random.default_rng(0)
    n = 4000
    category = rng.integers(0, 4, n).astype(float)
    number = rng.normal(size=n)
    X = np.column_stack([category, number])
    y = (np.array([0.0, 1.0, -1.0, 0.5])[category.astype(int)] + number + rng.normal(size=n) > 0.5).astype(int)
    scores = [rankcore.PushBoost(learner=spec, n_iter=5, random_state=0, n_jobs=t).fit(X, y).decision_function(X)
              for t in (1, 2, 2, 2)]
    for s in scores[1:]:
        np.testing.assert_array_equal(s, scores[0])


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_oblivious_level_region_equals_one_thread(weighted, exact_threads):
    """The oblivious grower fills a level's histograms and walks its gains in one region: nodes large enough
    for a gather (HIST_PARALLEL_ROWS) and small ones read row by row, sparse bundles' listed rows, sampled
    rows; the same scores on 1, 2 and 3 threads."""
    import rankcore

    exact_threads(3)
    rng = np.random.default_rng(12)
    n = 20_000
    X, _, _ = sparse_and_dense_block(rng, n, 12)
    qid = np.repeat(np.arange(n // 40), 40)
    y = (X[:, 60] > 0).astype(float) + (X[:, :60].sum(1) > 0)
    kw = {"sample_weight": rng.uniform(0.5, 2.0, n)} if weighted else {}
    spec = "trees:growth=oblivious,max_depth=6,subsample=0.9"
    scores = [rankcore.boost(learner=spec, n_iter=8, random_state=1, n_jobs=t).fit(X, y, qid=qid, **kw)
              .decision_function(X) for t in (1, 2, 3)]
    np.testing.assert_array_equal(scores[1], scores[0])
    np.testing.assert_array_equal(scores[2], scores[0])


def test_oblivious_grower_without_column_slots_equals_one_thread():
    """Columns not in slot order (no ``column_slots``): the histograms are filled before the level's gain pass,
    not in its region; the same tree on 1, 2 and 3 threads, with and without costs."""
    from rankcore.learners.trees._grow_oblivious import ObliviousGrower

    rng = np.random.default_rng(21)
    n, d, nb = 12_000, 9, 30
    perm = rng.permutation(d)                          # feature j in column perm[j]
    plain = slot_layout(np.full(d, nb))
    base = np.asarray(plain.base)
    col_base = np.empty(d, dtype=np.intp)
    col_base[perm] = base
    slots = _histogram.SlotLayout(base, np.full(d, nb), perm, col_base, np.full(d, -1), plain.n_slots)
    assert not slots.column_slots
    codes_f = rng.integers(0, nb + 1, size=(n, d)).astype(np.uint8)
    codes = np.empty_like(codes_f)
    codes[:, perm] = codes_f
    codes_t = np.ascontiguousarray(codes.T)
    g, h = rng.normal(size=n) + (codes_f[:, 0] > 12), rng.uniform(0.5, 1.5, n)
    mask = np.ones(d, dtype=np.uint8)
    trees = []
    for T, work in [(1, None), (2, None), (3, None), (2, rng.random(d))]:
        slots.set_column_work(work)
        grower = ObliviousGrower(slots, 6, 20.0, 1.0, 0.0, 1e-12, 0.0, T)
        levels = grower.grow(codes, codes_t, g, h, np.arange(n, dtype=np.int32), np.empty(n, dtype=np.int32),
                             np.empty(n), np.empty(n), mask, 0, 0, False)
        assert levels == 6
        trees.append([np.asarray(a).tobytes() if isinstance(a, np.ndarray) else a for a in grower.tree(0.0)])
    assert trees[1] == trees[0] and trees[2] == trees[0] and trees[3] == trees[0]


@pytest.mark.parametrize("unit_h", [False, True])
def test_listed_rows_split_anywhere_equal_reference(unit_h):
    """Many sparse bundles of many bins, listed (their slots beyond one block of the row-wise route), on
    40,000 rows: nodes read row by row (under an eighth of the rows) and column by column, the two
    threads' boundary at the first, a middle and the last sparse column and among the dense ones.
    Every slot the reference's sum, bit for bit, and the one-thread histogram's."""
    rng = np.random.default_rng(11)
    n, n_sparse = 40_000, 160
    sparse = rng.normal(size=(n, n_sparse)) * (rng.random((n, n_sparse)) < rng.uniform(0.05, 0.4, n_sparse))
    dense = np.round(rng.normal(size=(n, 6)), 2)
    X = np.hstack([sparse, dense])
    layout = resolve("learner", "trees").prepare(X, random_state=0)
    block = layout.encode(X)
    slots = layout.slots
    s = slots.sparse_columns
    assert block.listed is not None and s >= 150 and slots.col_base[s] > 8192    # more than one row-wise block
    g, h = rng.normal(size=n), np.ones(n) if unit_h else rng.random(n)
    g[rng.random(n) < 0.2] = 0.5                                                  # ties
    idx = np.concatenate([np.sort(p) for p in np.split(rng.permutation(n).astype(np.int32), [1_200, 21_200])])
    ident = np.arange(n, dtype=np.int32)
    for rows_idx, start, end, identity in [(idx, 0, 1_200, False), (idx, 1_200, 21_200, False),
                                           (ident, 0, n, True), (idx, 5, 5, False)]:
        one = _one_thread_histogram(block, slots, g, h, rows_idx, start, end, identity, unit_h)
        for boundary in (1, s // 2, s - 1, s, s + 3):
            slots.set_column_work(np.eye(slots.n_cols)[boundary - 1] + np.eye(slots.n_cols)[boundary])
            assert list(_histogram.column_groups(slots, 2)) == [0, boundary, slots.n_cols]
            for codes_t in (None, block.codes_t):
                hist = np.full((slots.n_slots, 3), np.nan)
                _histogram.node_histogram(block.codes, slots, g, h, rows_idx, start, end, np.empty(n), np.empty(n),
                                          hist, 2, identity, unit_h, block.listed, None, codes_t)
                np.testing.assert_array_equal(hist, one, err_msg=f"boundary {boundary}, {start}:{end}")
    slots.set_column_work(None)
