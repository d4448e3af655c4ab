"""ExactBoost's ``max_bins``: quantile bin codes computed once per fit.

The codes and edges against plain NumPy, the first round against an
exhaustive search over the bin edges, the training losses against the
stumps' own definition (x <= ξ), identical models for any ``n_jobs``, and the
exact mode unchanged when no feature has more distinct values than
``max_bins``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rankcore
from rankcore import ExactBoost
from rankcore.exactboost import prepare_data
from rankcore.learners import bin_edges


def data_with_ties(seed=0, n=300, d=5):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=3, n_redundant=0, random_state=seed)
    X = np.round(X, 1)  # ties: a few dozen distinct values per feature
    X[:, 0] = np.round(X[:, 0] > 0)  # a binary feature (never binned)
    return np.ascontiguousarray(X), y.astype(np.int8)


def reference_codes(x, edges):
    """Bin code of every value: the number of edges strictly below it (plain NumPy)."""
    return (x[:, None] > edges[None, :]).sum(axis=1)


@pytest.mark.parametrize("max_bins", [2, 5, 16, 1000])
def test_prepare_data_codes_and_edges_match_numpy(max_bins):
    X, y = data_with_ties()
    data = prepare_data(X, y, max_bins)
    plain = prepare_data(X, y)
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        start, count = int(data.value_start[j]), int(data.n_values[j])
        if values.size <= max_bins:  # exact: the same ranks and values as without bins
            assert data.binned is None or not data.binned[j]
            np.testing.assert_array_equal(data.ranks[j], plain.ranks[j])
            np.testing.assert_array_equal(data.values[start:start + count], values)
            continue
        assert data.binned[j] == 1
        edges = bin_edges(X[:, j:j + 1], max_bins, subsample=None)[0]
        assert count == edges.size + 1 <= max_bins
        np.testing.assert_array_equal(data.values[start:start + count - 1], edges)
        np.testing.assert_array_equal(data.ranks[j], reference_codes(X[:, j], edges))
        # every bin holds at least one row, and x <= edge[c] exactly for codes <= c
        assert np.array_equal(np.unique(data.ranks[j]), np.arange(count))
        for c, e in enumerate(edges):
            np.testing.assert_array_equal(X[:, j] <= e, data.ranks[j] <= c)
    if max_bins == 1000:
        assert data.binned is None


@pytest.mark.parametrize("metric", ["auc", "ks", "prec@k:0.2"])
def test_binned_first_round_is_the_exhaustive_optimum_over_edges(metric):
    X, y = data_with_ties(seed=3, n=80, d=3)
    max_bins, depth = 4, 3
    model = ExactBoost(metric=metric, n_runs=1, n_rounds=1, subsample=1.0, feature_subsample=1.0, max_boxes=None,
                       depth=depth, max_bins=max_bins, margin=0.05, random_state=0, tie_break=None).fit(X, y)
    if model.stumps_.shape[0] == 0:
        pytest.skip("the best stump did not pass the acceptance test")
    m = rankcore.resolve("metric", metric)
    grid = 2**depth
    cuts = {}
    best = np.inf
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        cuts[j] = (bin_edges(X[:, j:j + 1], max_bins, subsample=None)[0] if values.size > max_bins
                   else (values[:-1] + values[1:]) / 2)
        for xi in cuts[j]:
            for k in range(-grid, grid + 1):
                dv = 2 * k / grid
                best = min(best, m.loss(y, np.where(X[:, j] <= xi, -dv / 2, dv / 2) - 0.05 * y))
    feature, xi, a, b = model.stumps_[0]
    assert np.any(np.isclose(cuts[int(feature)], xi, rtol=0, atol=1e-12))
    found = m.loss(y, np.where(X[:, int(feature)] <= xi, a, b) - 0.05 * y)
    assert found == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("metric", ["auc", "prec@k:0.1"])
def test_binned_training_loss_is_the_loss_of_the_stumps(metric):
    """The kernel's cut (codes <= c) and the stored threshold (x <= edge) split the rows alike."""
    X, y = data_with_ties(seed=1)
    model = ExactBoost(metric=metric, n_runs=3, n_rounds=15, max_bins=6, random_state=0).fit(X, y)
    m = rankcore.resolve("metric", metric)
    assert model.stumps_.shape[0] > 0
    for run in range(3):
        s = np.zeros(X.shape[0])
        for feature, xi, a, b in model.run_stumps(run):
            s += np.where(X[:, int(feature)] <= xi, a, b)
        assert m.loss(y, s) == pytest.approx(model.train_loss_[run, -1], abs=1e-12)
    # thresholds of binned features are bin edges
    data = prepare_data(X, y, 6)
    for feature, xi, _, _ in model.stumps_:
        j = int(feature)
        if data.binned is not None and data.binned[j]:
            start = int(data.value_start[j])
            assert xi in data.values[start:start + int(data.n_values[j]) - 1]


@pytest.mark.parametrize("metric", ["auc", "ks"])
def test_binned_model_is_the_same_whatever_n_jobs(metric, exact_threads):
    exact_threads(2)
    X, y = data_with_ties(seed=2)
    one = ExactBoost(metric=metric, n_runs=7, n_rounds=10, max_bins=8, random_state=3, n_jobs=1).fit(X, y)
    two = ExactBoost(metric=metric, n_runs=7, n_rounds=10, max_bins=8, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.stumps_, two.stumps_)
    np.testing.assert_array_equal(one.train_loss_, two.train_loss_)


def test_bins_that_do_not_bind_give_the_exact_model():
    X, y = data_with_ties(seed=4)
    exact = ExactBoost(n_runs=4, n_rounds=10, max_bins=None, random_state=0).fit(X, y)
    wide = ExactBoost(n_runs=4, n_rounds=10, max_bins=int(max(np.unique(c).size for c in X.T)),
                      random_state=0).fit(X, y)
    narrow = ExactBoost(n_runs=4, n_rounds=10, max_bins=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(exact.stumps_, wide.stumps_)
    assert not np.array_equal(exact.stumps_, narrow.stumps_)


@pytest.mark.parametrize("value", [0, 1, 65537, 2.5, True, "16"])
def test_max_bins_is_validated(value):
    X, y = data_with_ties()
    with pytest.raises(ValueError, match="max_bins"):
        ExactBoost(n_runs=1, n_rounds=1, max_bins=value).fit(X, y)
    if not isinstance(value, (str, float)):
        with pytest.raises(ValueError, match="max_bins"):
            prepare_data(X, y, value)


def test_defaults_agree_between_the_estimator_run_settings_and_dask():
    """depth, max_boxes, max_bins... moved together: no copy kept an old default."""
    import dataclasses
    import inspect

    from rankcore.exactboost import RunSettings

    params = ExactBoost().get_params()
    assert (params["depth"], params["max_boxes"], params["max_bins"]) == (3, 128, None)
    for field in dataclasses.fields(RunSettings):
        if field.name in params and field.name not in ("metric", "tie_break"):
            assert field.default == params[field.name], field.name
    pytest.importorskip("distributed")
    from rankcore.dask import DaskExactBoost

    dask_defaults = {name: p.default for name, p in inspect.signature(DaskExactBoost.__init__).parameters.items()
                     if p.default is not inspect.Parameter.empty}
    for name, value in params.items():
        assert dask_defaults[name] == value, name
