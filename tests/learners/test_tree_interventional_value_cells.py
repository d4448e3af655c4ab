"""The oblivious trees' cells for the SHAP values, interventional and path-dependent: ``add_cell_values``
(``_treeshap.pyx``), which now takes each row's cells found once by ``oblivious_cells``, against its NumPy
reference (``cell_values_reference``) on random trees, tables and rows with ties and NaN, one thread against two
bit for bit; whole forests on one and two threads and in batches of one tree; the refusals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _interventional_reference import cell_values_reference
from test_tree_interventional_cells import _forest, _kernel_cells, _rows
from rankcore.learners.trees import _contributions, _treeshap
from rankcore.learners.trees._interventional import forest_interventional


def _packed(tables, used):
    def starts(arrays):
        return np.r_[0, np.cumsum([a.size for a in arrays])].astype(np.intp)
    return (np.concatenate([a.ravel() for a in tables]) if tables else np.zeros(0), starts(tables)[:-1],
            np.concatenate(used).astype(np.int32) if used else np.zeros(0, dtype=np.int32), starts(used))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 3, 50]), st.integers(0, 6))
def test_cell_values_match_their_reference(seed, n, T):
    rng = np.random.default_rng(seed)
    d, W = 6, 8
    trees, X = _forest(rng, d, T, max_depth=5), _rows(rng, n, d)
    cells = _kernel_cells(X, trees)
    used = [np.unique(rng.integers(0, W, t.depth)) if t.depth else np.zeros(0, dtype=np.int64) for t in trees]
    tables = [rng.normal(size=(1 << t.depth, u.shape[0])) for t, u in zip(trees, used)]
    out = rng.normal(size=(n, W + 1))
    want = out.copy()
    cell_values_reference(cells, tables, used, want)
    for threads in (1, 2):
        got = out.copy()
        _treeshap.add_cell_values(cells, *_packed(tables, used), got, threads)
        np.testing.assert_array_equal(got, want)
    assert n == 0 or not any(u.shape[0] for u in used) or not np.array_equal(want, out)


def test_two_threads_give_every_bit_of_one_on_many_rows(exact_threads):
    """Enough rows and trees for the kernel's two threads to run (n · T >= 4096)."""
    exact_threads(2)
    rng = np.random.default_rng(3)
    trees, X = _forest(rng, 9, 30), _rows(rng, 1_000, 9)
    cells = _kernel_cells(X, trees)
    used = [np.unique(t.feature).astype(np.int32) for t in trees]
    tables = [rng.normal(size=(1 << t.depth, u.shape[0])) for t, u in zip(trees, used)]
    want = np.zeros((1_000, 9))
    cell_values_reference(cells, tables, used, want)
    for threads in (1, 2):
        got = np.zeros((1_000, 9))
        _treeshap.add_cell_values(cells, *_packed(tables, used), got, threads)
        np.testing.assert_array_equal(got, want)


def _model(rng):
    import rankcore

    X = _rows(rng, 1_300, 6)
    X[np.isinf(X)] = 3.0                                  # the estimators refuse infinities
    y = (np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 2]) > 0.2).astype(float)
    model = rankcore.boost(learner="trees:growth=oblivious,max_depth=5", n_iter=25, random_state=0, n_jobs=1)
    return model.fit(X[:1_000], y[:1_000]), X[1_000:]


def test_forests_on_one_and_two_threads_and_in_batches_of_one_tree_agree(exact_threads, monkeypatch):
    """The interventional values (with and without groups) and the path-dependent values of a fitted oblivious
    forest: ``n_jobs`` 1 and 2, and the rows' cells kept for one tree at a time (``CELL_ENTRIES`` of one row),
    every bit the same; one row and one background row too."""
    model, X = _model(np.random.default_rng(0))
    exact_threads(2)
    groups = [0, 1, 1, 2, 0, 2]
    cases = ((X[:250], X[250:]), (X[:1], X[299:]))

    def run(jobs):
        model.set_params(n_jobs=jobs)
        values = [model.feature_contributions(rows, background=bg) for rows, bg in cases]
        grouped = [model.feature_contributions(rows, background=bg, groups=groups) for rows, bg in cases]
        return values + grouped + [model.feature_contributions(X[:250]), model.feature_contributions(X[:1])]

    one = run(1)
    for got, want in zip(run(2), one):
        np.testing.assert_array_equal(got, want)
    monkeypatch.setattr(_contributions, "CELL_ENTRIES", 1)
    import rankcore.learners.trees._interventional as interventional
    monkeypatch.setattr(interventional, "CELL_ENTRIES", 1)
    for got, want in zip(run(1), one):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(one[0].sum(axis=1), model.decision_function(X[:250]), rtol=1e-9, atol=1e-12)


def test_random_oblivious_forests_with_infinities_and_nan_match_a_forest_of_one_tree_at_a_time():
    """Each tree's values added alone equal its share of the forest's (the batches only bound memory)."""
    rng = np.random.default_rng(7)
    trees, X, Z = _forest(rng, 5, 12), _rows(rng, 200, 5), _rows(rng, 30, 5)
    alphas = rng.normal(size=12)
    whole = forest_interventional(trees, alphas, X, Z)
    parts = sum(forest_interventional(trees[t:t + 1], alphas[t:t + 1], X, Z) for t in range(12))
    np.testing.assert_allclose(whole, parts, rtol=1e-10, atol=1e-10)


def test_add_cell_values_refusals():
    cells = np.array([[0, 3]], dtype=np.int32)            # a depth-2 tree: cells 0..3
    table, used = np.ones(8), np.array([0, 1], dtype=np.int32)
    start, used_start = np.array([0], dtype=np.intp), np.array([0, 2], dtype=np.intp)
    out = np.zeros((2, 3))
    _treeshap.add_cell_values(cells, table, start, used, used_start, out, 1)
    np.testing.assert_array_equal(out, [[1, 1, 0], [1, 1, 0]])
    for bad in (-1, 4):
        with pytest.raises(ValueError, match="outside their trees' tables"):
            _treeshap.add_cell_values(np.array([[0, bad]], dtype=np.int32), table, start, used, used_start, out, 1)
    with pytest.raises(ValueError, match="feature 3 outside out's columns"):
        _treeshap.add_cell_values(cells, table, start, np.array([0, 3], dtype=np.int32), used_start, out, 1)
    with pytest.raises(ValueError, match="unique_start needs T"):
        _treeshap.add_cell_values(cells, table, start, used, np.array([0], dtype=np.intp), out, 1)
    with pytest.raises(ValueError, match="rows"):
        _treeshap.add_cell_values(cells, table, start, used, used_start, np.zeros((3, 3)), 1)
    with pytest.raises(ValueError, match="runs outside"):
        _treeshap.add_cell_values(cells, table, start, used, np.array([0, 5], dtype=np.intp), out, 1)
    np.testing.assert_array_equal(out, [[1, 1, 0], [1, 1, 0]])
