"""The tie-break offset: where a non-smooth objective's training scores start (generic, objective-agnostic)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankcore
from rankcore.push._backend import InMemoryBackend
from rankcore.push._driver import run_boosting
from rankcore.push._tie_break import check_tie_break_scale, tie_break_offsets
from rankcore.registry import resolve

from _plugin_registration import components_registered


# --------------------------------------------------------------------------
# The offsets
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 10, 1001])
@pytest.mark.parametrize("scale", [1e-6, 0.1, 3.0])
def test_offsets_are_a_permutation_of_an_even_grid(n, scale):
    eps = tie_break_offsets(n, scale, 0)
    assert eps.dtype == np.float64 and eps.shape == (n,)
    grid = np.sort(eps)
    assert grid[0] == -scale / 2 and grid[-1] == scale / 2               # range exactly the scale
    np.testing.assert_allclose(np.diff(grid), scale / (n - 1), rtol=1e-9)  # evenly spaced: no near-ties
    assert abs(eps.sum()) <= 1e-12 * n * scale


def test_offsets_follow_the_random_state():
    a, b, c = tie_break_offsets(500, 0.1, 3), tie_break_offsets(500, 0.1, 3), tie_break_offsets(500, 0.1, 4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # a Generator is used as given (deterministic for its state)
    g1 = tie_break_offsets(500, 0.1, np.random.default_rng(9))
    g2 = tie_break_offsets(500, 0.1, np.random.default_rng(9))
    np.testing.assert_array_equal(g1, g2)
    # an int seed has its own stream: not the permutation default_rng(seed) draws first
    assert not np.array_equal(np.argsort(a), np.random.default_rng(3).permutation(500))


def test_offsets_edge_cases():
    assert tie_break_offsets(10, 0.0, 0) is None
    np.testing.assert_array_equal(tie_break_offsets(1, 0.5, 0), [0.0])
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(ValueError, match="tie-break scale"):
            tie_break_offsets(10, bad, 0)
    with pytest.raises(ValueError, match="at least one row"):
        tie_break_offsets(0, 0.1, 0)


class _Declares:
    spec = "dummy"

    def __init__(self, scale):
        self.tie_break_scale = scale


def test_check_tie_break_scale():
    assert check_tie_break_scale(object()) == 0.0                         # objectives that do not declare one
    assert check_tie_break_scale(resolve("objective", "push:exp,pow:4")) == 0.0
    assert check_tie_break_scale(rankcore.Objective) == 0.0                # the base class default
    assert check_tie_break_scale(_Declares(0.25)) == 0.25
    for bad in (-1.0, math.nan, math.inf, "0.1", True, None):
        with pytest.raises(ValueError, match=r"objective 'dummy': tie_break_scale must be a finite number >= 0"):
            check_tie_break_scale(_Declares(bad))


# --------------------------------------------------------------------------
# The backend's start
# --------------------------------------------------------------------------

def _data(seed=0, n=240, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] - 0.5 * X[:, 1] + rng.normal(0, 1, n) > 0.7).astype(np.int8)
    return X, y


def test_backend_initial_scores_are_validated_and_copied():
    X, y = _data()
    objective = resolve("objective", "push:exp,pow:2")
    layout = resolve("learner", "stumps").prepare(X)
    start = tie_break_offsets(len(y), 0.1, 0)
    kept = start.copy()
    backend = InMemoryBackend(objective.bind(y), layout, X, y, initial_scores=start)
    np.testing.assert_array_equal(backend.scores, start)
    run_boosting(backend, layout, n_iter=3, log_value=True)
    np.testing.assert_array_equal(start, kept)                               # the caller's array is not updated
    with pytest.raises(ValueError, match=rf"initial_scores: expected {len(y)} finite numbers .* shape \(3,\)"):
        InMemoryBackend(objective.bind(y), layout, X, y, initial_scores=np.zeros(3))
    bad = start.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match="NaN or inf"):
        InMemoryBackend(objective.bind(y), layout, X, y, initial_scores=bad)


def test_a_constant_start_changes_nothing_for_a_shift_invariant_objective():
    X, y = _data(1)
    objective = resolve("objective", "push:exp,pow:4")
    layout = resolve("learner", "stumps").prepare(X)
    runs = []
    for start in (None, np.full(len(y), 2.5)):
        backend = InMemoryBackend(objective.bind(y), layout, X, y, initial_scores=start)
        runs.append(run_boosting(backend, layout, n_iter=10, log_value=True).records)
    assert [r.ranker for r in runs[0]] == [r.ranker for r in runs[1]]
    np.testing.assert_allclose([r.alpha for r in runs[1]], [r.alpha for r in runs[0]], rtol=1e-9)


def test_blocked_backend_with_a_start_equals_single_block():
    """The start is per row, so it goes with the rows into any block structure (the Dask seam)."""
    X, y = _data(2, n=300)
    objective = resolve("objective", "push:exp,pow:4")
    layout = resolve("learner", "stumps").prepare(X)
    start = tie_break_offsets(len(y), 0.5, 1)
    runs = []
    for blocks in (None, [37, 1, 200, 62], 64):
        backend = InMemoryBackend(objective.bind(y), layout, X, y, block_rows=blocks, initial_scores=start)
        runs.append(run_boosting(backend, layout, n_iter=10, log_value=True).records)
    for other in runs[1:]:
        assert [r.ranker for r in other] == [r.ranker for r in runs[0]]
        np.testing.assert_allclose([r.alpha for r in other], [r.alpha for r in runs[0]], rtol=1e-9)


# --------------------------------------------------------------------------
# The estimators read the capability of any objective (a plugin here)
# --------------------------------------------------------------------------

class TopNegativeHinge(rankcore.Objective):
    """max(0, 1 + max_k f_k − mean_i f_i): piecewise linear, with a kink wherever negatives tie at the top."""

    name = "test-topneg"
    supports_sample_weight = False

    def value_and_gradient(self, y, scores, sample_weight=None):
        neg = np.flatnonzero(y == 0)
        pos = y == 1
        top = scores[neg].max()
        value = 1.0 + top - scores[pos].mean()
        grad = np.zeros_like(scores)
        if value <= 0:
            return 0.0, grad
        tied = neg[scores[neg] == top]
        grad[tied] = 1.0 / tied.size                  # tie-averaged subgradient of the max
        grad[pos] = -1.0 / pos.sum()
        return float(value), grad


class TopNegativeHingeTieBreak(TopNegativeHinge):
    name = "test-topneg-tb"
    tie_break_scale = 0.05


@pytest.fixture
def topneg_plugin():
    with components_registered("rankcore_register_objectives", [TopNegativeHinge, TopNegativeHingeTieBreak],
                               "tie-break-test-plugin", distribution="rankcore tests"):
        yield


def test_plugin_objective_declaring_a_scale_gets_the_offset(topneg_plugin):
    X, y = _data(3, n=300)
    # from the all-tied start every negative ties at the top: the averaged subgradient selects a stump
    # that lifts some negative, so the maximum rises and the fit stops at once
    plain = rankcore.boost(objective="test-topneg", learner="stumps", n_iter=20, random_state=0).fit(X, y)
    assert plain.n_iter_ == 0
    broken = rankcore.boost(objective="test-topneg-tb", learner="stumps", n_iter=20, random_state=0).fit(X, y)
    values = broken.objective_values_
    # (a pure maximum soon jams again at the ties the line search itself creates -- its minimizer along h
    # is where the top negative meets the next one -- so only the start is at stake here)
    assert broken.n_iter_ >= 1 and np.all(np.diff(values) <= 1e-12) and values[-1] < values[0]
    # the model does not carry the offset; J moves by at most scale · ‖∇J‖₁ / 2 = 0.05
    J = resolve("objective", "test-topneg")
    assert abs(J(y, broken.decision_function(X)) - values[-1]) <= 0.05
    start = tie_break_offsets(len(y), 0.05, 0)
    assert J(y, start) == pytest.approx(values[0], abs=1e-12)


def test_estimator_refuses_a_bad_scale(topneg_plugin, monkeypatch):
    X, y = _data(4, n=100)
    monkeypatch.setattr(TopNegativeHingeTieBreak, "tie_break_scale", -1.0)
    with pytest.raises(ValueError, match="tie_break_scale must be a finite number >= 0, got -1.0"):
        rankcore.boost(objective="test-topneg-tb", n_iter=3).fit(X, y)


def test_smooth_objectives_start_at_zero():
    """The push objective declares no scale: the estimator's fit is the zero-start driver run, exactly."""
    X, y = _data(5)
    model = rankcore.PNormPush(p=4, n_iter=8, n_jobs=1, random_state=0).fit(X, y)
    objective = resolve("objective", "push:exp,pow:4")
    layout = resolve("learner", "stumps").prepare(X, random_state=0)
    backend = InMemoryBackend(objective.bind(y), layout, X, y)
    records = run_boosting(backend, layout, n_iter=8, log_value=True).records
    assert model.rankers_ == [r.ranker for r in records]
    np.testing.assert_array_equal(model.alphas_, [r.alpha for r in records])


def test_the_no_ranker_warning_names_the_stop_reason_the_model_reports():
    # the driver's own name for it ('no_decrease') is not a stop_reason_ a user ever sees
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 5))
    y = ((X[:, 0] ** 2 + X[:, 1] ** 2) < 0.8).astype(int)
    with pytest.warns(UserWarning, match=r"added no weak ranker \(stop_reason_ = 'converged'\)"):
        model = rankcore.boost(objective="prec@k-avg:0.1,tie_break=0", learner="stumps", n_iter=30).fit(X, y)
    assert model.stop_reason_ == "converged"


def test_the_drivers_warnings_point_at_the_users_call():
    # a fixed stacklevel pointed at rankcore/push/_boost_base.py, whatever path the call took
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 5))
    y = ((X[:, 0] ** 2 + X[:, 1] ** 2) < 0.8).astype(int)
    with pytest.warns(UserWarning, match="added no weak ranker") as caught:
        rankcore.boost(objective="prec@k-avg:0.1,tie_break=0", learner="stumps", n_iter=30).fit(X, y)
    assert {w.filename for w in caught} == {__file__}
    with pytest.warns(UserWarning, match="the fitted model is constant") as caught:
        rankcore.ExactBoost(n_runs=2, n_rounds=2).fit(np.ones((20, 2)), np.arange(20) % 2)
    assert {w.filename for w in caught if "constant" in str(w.message)} == {__file__}


@pytest.mark.parametrize("n_rows, scale, error, says", [
    (2.5, 0.1, TypeError, "n_rows: expected an integer number of training rows, got float"),
    (True, 0.1, TypeError, "n_rows: expected an integer number of training rows, got bool"),
    (10, "0.1", TypeError, "scale: the tie-break scale must be a finite number >= 0, got str"),
    (-1, 0.1, ValueError, "n_rows: expected at least one row, got -1"),
])
def test_offsets_refuse_bad_arguments_by_name(n_rows, scale, error, says):
    # n_rows=2.5 used to give two offsets without a word, and scale="0.1" a raw comparison TypeError
    with pytest.raises(error, match=says):
        tie_break_offsets(n_rows, scale, 0)
    np.testing.assert_array_equal(np.sort(tie_break_offsets(np.int64(3), np.float64(0.1), 0)), [-0.05, 0.0, 0.05])
