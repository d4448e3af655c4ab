"""Overflow in the push family: bounded price parameters, and a non-finite step is never "converged"."""

import math
import warnings

import numpy as np
import pytest

import rankcore
from rankcore import PNormPush, PushBoost, RankBoost
from rankcore.learners._base import Candidate
from rankcore.learners._features import FeatureRanker
from rankcore.objectives._base import LinePoint
from rankcore.prices import MAX_POWER, MAX_RATE
from rankcore.push._driver import run_boosting
from rankcore.registry import resolve
from rankcore.spec import SpecError


def _data(seed=0, n=200, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    return X, y


# ----------------------------------------------------------------------------
# Price bounds, enforced when the spec is parsed
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["pow:1e300", "pow:1e7", "pow:inf", "exp:1e300", "exp:1001", "exp:inf"])
def test_price_parameters_out_of_bounds_are_refused_at_parse(spec):
    with pytest.raises(SpecError, match=r"must be a number >= 1 and <= 1e\+06|must be a number > 0 and <= 1000"):
        resolve("price", spec)


@pytest.mark.parametrize("spec", [f"pow:{MAX_POWER!r}", f"exp:{MAX_RATE!r}", "pow:1", "exp:1e-3"])
def test_price_parameters_at_the_bounds_are_accepted(spec):
    resolve("price", spec)


@pytest.mark.parametrize("make", [lambda: PNormPush(p=1e15), lambda: PushBoost(price="exp:1e300"),
                                  lambda: PushBoost(price="pow:1e300")],
                         ids=["pnormpush-p1e15", "exp1e300", "pow1e300"])
def test_huge_price_parameters_raise_instead_of_converging(make):
    X, y = _data()
    with pytest.raises(ValueError, match="1e\\+06|1000"):
        make().fit(X, y)


def test_largest_power_still_learns():
    X, y = _data()
    model = PNormPush(p=MAX_POWER, n_iter=10).fit(X, y)
    assert model.n_iter_ == 10 and model.stop_reason_ == "n_iter"


# ----------------------------------------------------------------------------
# Features whose range overflows float64
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("learner", ["features", "stumps"])
def test_feature_range_overflowing_float64_is_learned_like_its_rescaled_copy(learner):
    X, y = _data()
    signs = np.where(X[:, 0] > 0, 1.0, -1.0)
    huge, unit = X.copy(), X.copy()
    huge[:, 0], unit[:, 0] = 1e308 * signs, signs          # the range 2e308 overflows
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # no overflow / invalid-value warnings
        a = RankBoost(learner=learner, n_iter=30).fit(huge, y)
    b = RankBoost(learner=learner, n_iter=30).fit(unit, y)
    assert a.stop_reason_ == b.stop_reason_ and a.n_iter_ == b.n_iter_ > 0
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    assert [r.feature for r in a.rankers_] == [r.feature for r in b.rankers_]
    np.testing.assert_array_equal(a.decision_function(huge), b.decision_function(unit))


def test_feature_ranker_scales_an_overflowing_range_exactly():
    ranker = FeatureRanker(0, -1e308, 1.5e308)
    x = np.array([[-1e308], [1.5e308], [0.25e308]])
    np.testing.assert_array_equal(ranker.predict(x), [0.0, 1.0, 0.5])


# ----------------------------------------------------------------------------
# The driver: non-finite quantities stop with "overflow", keep the last finite model, warn
# ----------------------------------------------------------------------------
class _Layout:
    """A layout whose best candidate's derivative is read from a script, one value per iteration."""

    def __init__(self, derivatives):
        self.derivatives = list(derivatives)

    def select(self, stats):
        return Candidate(FeatureRanker(0, 0.0, 1.0), self.derivatives.pop(0))


class _Backend:
    """Each iteration the line φ(α) = (α − 1)² − 1 − t (t steps so far): J = −t, α = 1.

    ``value_after`` overrides J after the given number of steps.
    """

    def __init__(self, value_after=None):
        self.steps = 0
        self.value_after = value_after or {}

    def objective_state(self):
        return self.steps

    def value(self, state):
        return self.value_after.get(state, -float(state))

    def learner_statistics(self, state):
        return None

    def line_function(self, state, ranker):
        return lambda a: LinePoint(a, (a - 1.0) ** 2 - 1.0 - state, 2.0 * (a - 1.0), 2.0)

    def apply_update(self, ranker, alpha):
        self.steps += 1


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_derivative_stops_with_overflow_keeping_the_finite_iterations(bad):
    backend = _Backend()
    layout = _Layout([-1.0, -1.0, bad, -1.0])
    with pytest.warns(RuntimeWarning, match="iteration 3.*2 finite iteration"):
        result = run_boosting(backend, layout, n_iter=4, log_value=False)
    assert result.stop_reason == "overflow"
    assert len(result.records) == 2


def test_non_finite_derivative_at_the_first_iteration_is_not_converged():
    with pytest.warns(RuntimeWarning, match="overflow"):
        result = run_boosting(_Backend(), _Layout([math.nan]), n_iter=3, log_value=False)
    assert result.stop_reason == "overflow" and result.records == []


def test_objective_becoming_infinite_after_a_step_is_not_recorded():
    backend = _Backend(value_after={2: math.inf})
    with pytest.warns(RuntimeWarning, match="iteration 2"):
        result = run_boosting(backend, _Layout([-1.0] * 5), n_iter=5, log_value=False)
    assert result.stop_reason == "overflow" and len(result.records) == 1
    assert all(math.isfinite(r.value) for r in result.records)


def test_non_finite_initial_objective_raises():
    with pytest.raises(FloatingPointError, match="initial scores"):
        run_boosting(_Backend(value_after={0: math.nan}), _Layout([-1.0]), n_iter=3, log_value=False)


@pytest.mark.parametrize("price", ["pow:1e300", "exp:1e300"])
def test_cli_refuses_out_of_bound_prices_with_exit_2(price, tmp_path, capsys):
    from rankcore.cli import main

    X, y = _data()
    data = tmp_path / "d.csv"
    np.savetxt(data, np.column_stack([X, y]), delimiter=",", header="a,b,c,d,e,y", comments="")
    assert main(["fit", str(data), "--label", "y", "--price", price, "--out", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and ("<= 1e+06" in err or "<= 1000" in err)
    assert not (tmp_path / "m.json").exists()


class _NaNPrice(rankcore.Price):
    """A broken plugin price: g is NaN everywhere."""

    name = "test-nan-price"

    def value(self, r):
        return np.full(np.shape(r), np.nan)

    def derivative(self, r):
        return np.full(np.shape(r), np.nan)


@pytest.mark.parametrize("learner", ["stumps", "trees"])
def test_a_price_giving_nan_is_an_error_naming_the_objective(learner):
    # the NaN sums merged to J = -inf (a perfect ranking): a constant model, "converged"
    from _plugin_registration import components_registered

    X = np.random.default_rng(0).normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with components_registered("rankcore_register_prices", [_NaNPrice], "nan-price"):
        with pytest.raises(FloatingPointError, match=r"objective 'push:exp,test-nan-price': not finite at the "
                                                     r"initial scores \(J = nan\): a NaN from its loss or price"):
            rankcore.boost(price="test-nan-price", learner=learner, n_iter=5, random_state=0).fit(X, y)
