"""The early-stopping hold-out's training rows reach the trees by index (``TakenRows``): no copy of ~90 % of X,
and the layout, the codes and the model are those of the copy, bit for bit."""

import tracemalloc
import warnings

import numpy as np
import pytest

import rankcore
import rankcore._taken_rows as taken_rows
from rankcore._taken_rows import TakenRows
from rankcore.registry import resolve
from rankcore.learners.trees import _binning
from rankcore.push import _boost_base


def _rows(n=3_000, d=9, seed=0):
    """Rows with NaN, a category column, columns mostly 0 (bundles), a constant one and one nonzero on 3 rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.random((n, d)) < 0.05] = np.nan
    X[:, 2] = rng.integers(0, 5, n)
    X[:, 4] = np.where(rng.random(n) < 0.9, 0.0, X[:, 4])
    X[:, 5] = np.where(rng.random(n) < 0.93, 0.0, 1.0)
    X[:, 6] = np.where(rng.random(n) < 0.95, 0.0, -2.0)
    X[:, 7] = 1.5
    X[:, 8] = 0.0
    X[:3, 8] = 4.0
    return X


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 97 rows or so: every blockwise pass crosses many block edges."""
    monkeypatch.setattr(taken_rows, "BLOCK_VALUES", 9 * 97)


@pytest.mark.parametrize("spec", ["trees", "trees:growth=oblivious", "trees:colsample=0.5",
                                  "trees:bin_subsample=500", "trees:min_samples_leaf=5"])
@pytest.mark.parametrize("weighted", [False, True])
def test_taken_rows_give_the_layout_and_codes_of_the_copy(small_blocks, spec, weighted):
    X = _rows()
    rng = np.random.default_rng(1)
    rows = np.sort(rng.choice(X.shape[0], 2_600, replace=False))
    w = rng.uniform(0.5, 2.0, rows.shape[0]) if weighted else None
    learner = resolve("learner", spec)
    categorical = [] if "oblivious" in spec else [2]
    extra = {"categorical_features": categorical} if categorical else {}
    copied = learner.prepare(X[rows], sample_weight=w, random_state=3, **extra)
    taken = learner.prepare(TakenRows(X, rows), sample_weight=w, random_state=3, **extra)
    assert len(copied.edges) == len(taken.edges)
    assert all(np.array_equal(a, b) for a, b in zip(copied.edges, taken.edges))
    assert copied.bundles == taken.bundles
    assert (copied.columns is None) == (taken.columns is None)
    if copied.columns is not None:
        assert np.array_equal(copied.columns, taken.columns)
    assert copied.categories.keys() == taken.categories.keys()
    codes = copied.encode(X[rows]).codes
    assert np.array_equal(codes, copied.encode(TakenRows(X, rows)).codes)
    assert np.array_equal(codes[100:700], copied.encode(TakenRows(X, rows)[100:700]).codes)


def _scores(X, y, **fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner="trees", random_state=0, n_iter=8).fit(X, y, **fit)
    return np.asarray(model.decision_function(X))


def test_holdout_fit_by_index_scores_as_the_copy(small_blocks, monkeypatch):
    # more than 10,000 rows of one list, no eval_set: early stopping holds out rows (``_fit_on_holdout``)
    X = np.vstack([_rows(seed=s) for s in range(4)])
    rng = np.random.default_rng(2)
    y = (np.nan_to_num(X[:, 0]) + (X[:, 2] == 1) + rng.normal(size=X.shape[0]) > 0.8).astype(int)
    w = rng.uniform(0.5, 2.0, X.shape[0])
    taken = [_scores(X, y), _scores(X, y, sample_weight=w)]
    monkeypatch.setattr(_boost_base, "_takes_row_index", lambda learner, X: False)      # the copy X[tr]
    copied = [_scores(X, y), _scores(X, y, sample_weight=w)]
    for a, b in zip(taken, copied):
        assert np.array_equal(a, b)


def _fit_peak(X, y) -> int:
    """tracemalloc's peak of a fit beyond the memory held when it starts (NumPy's allocations included)."""
    with warnings.catch_warnings():                   # its imports done beforehand (they are not the fit's)
        warnings.simplefilter("ignore")
        rankcore.boost(learner="trees", random_state=0, n_iter=1).fit(X, y)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rankcore.boost(learner="trees", random_state=0, n_iter=2).fit(X, y)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_holdout_fit_holds_no_copy_of_the_training_rows(monkeypatch):
    # the hold-out fit copied its training rows (0.9 of X) before binning them: 1.66 times X at its peak here.
    # Now it holds the codes both ways (a quarter of the float32 rows each), the hold-out's copy (0.1 of X) and
    # the search's buffers: 0.99 times X.  The binning's blocks are bounded in values (8 MB): made small here so
    # that a few MB of rows show how the fit's memory grows with them.
    monkeypatch.setattr(_binning, "_TRANSPOSE_VALUES", 1 << 14)
    monkeypatch.setattr(taken_rows, "BLOCK_VALUES", 1 << 15)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12_000, 100)).astype(np.float32)
    y = (X[:, 0] + rng.normal(size=X.shape[0]) > 1.0).astype(int)
    peak = _fit_peak(X, y)
    assert peak < 1.3 * X.nbytes, f"the fit held {peak / X.nbytes:.2f} times X's memory"


@pytest.mark.parametrize("order", ["bootstrap", "permutation"])
@pytest.mark.parametrize("weighted", [False, True])
def test_as_many_taken_rows_as_x_are_binned_as_their_copy(order, weighted):
    # the edges read X itself when the taken rows were as many as X's, whatever rows they were: a bootstrap's
    # repeats were not counted, a permutation's weights were paired with other rows
    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    rows = rng.integers(0, X.shape[0], X.shape[0]) if order == "bootstrap" else rng.permutation(X.shape[0])
    w = rng.uniform(0.1, 3.0, X.shape[0]) if weighted else None
    learner = resolve("learner", "trees:max_bins=8")
    copied = learner.prepare(X[rows], sample_weight=w, random_state=0)
    taken = learner.prepare(TakenRows(X, rows), sample_weight=w, random_state=0)
    assert all(np.array_equal(a, b) for a, b in zip(copied.edges, taken.edges))
