"""Huge step sizes (the trees' ``learning_rate`` up to 1e308) end in the named overflow stop, never NumPy's warning.

Any learning rate > 0 is accepted, as LightGBM accepts it; a step that overflows a sum the fit needs stops the
fit with ``stop_reason_ = "overflow"`` and the library's RuntimeWarning, keeping the finite iterations before
it.  Before, the per-query push leaked ``overflow encountered in exp`` and reported ``"converged"`` (its
gradient overflowed, so the trees found no split), the objectives without a value raised "scores: must be
finite" from the next iteration, and the single list leaked NumPy's warnings from the step itself.
"""

import math
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.learners._base import Candidate
from rankcore.learners._features import FeatureRanker
from rankcore.objectives._base import LinePoint
from rankcore.push import add_step, check_finite_gradient
from rankcore.push import _driver
from rankcore.push._driver import run_boosting

NAMED = "stop_reason_ = 'overflow'"


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    grades = np.clip(np.round(X[:, 0] + rng.normal(size=300) + 1), 0, 3).astype(int)
    binary = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    return X, grades, binary, np.repeat(np.arange(30), 10)


def _fit_recording(params, rate, within_queries):
    """(model, warnings) of a fit with every warning recorded (NumPy's included: they are not filtered)."""
    X, grades, binary, qid = _data()
    learner = f"trees:learning_rate={rate}" + params.pop("learner_options", "")
    model = rankcore.boost(learner=learner, random_state=0, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if within_queries:
            model.fit(X, grades, qid=qid)
        else:
            model.fit(X, binary)
    return model, X, caught


# (spec parameters, learning rate, within queries): each one leaked a NumPy RuntimeWarning, reported
# "converged" or "no_split" on an overflowed gradient, or raised "scores: must be finite" before the fix
CASES = [
    ({}, "30", True),                                           # the default per-query push (QueryRMSE blend)
    ({}, "1e10", True),
    ({}, "1e308", True),
    ({"price": "pow:16"}, "30", True),
    ({"learner_options": ",line_search=true"}, "1e3", True),
    ({"learner_options": ",line_search=true"}, "1e100", True),
    ({"objective": "lambdarank"}, "1e308", True),
    ({"objective": "yetirank"}, "1e308", True),
    ({"objective": "xendcg"}, "1e308", True),
    ({"loss": "logistic"}, "1e308", False),
    ({"objective": "cross-entropy"}, "1e300", False),
]


@pytest.mark.parametrize("params, rate, within_queries", CASES,
                         ids=[f"{p}-{r}-{'qid' if q else 'single'}" for p, r, q in CASES])
def test_a_huge_learning_rate_stops_with_the_named_overflow(monkeypatch, params, rate, within_queries):
    # the overflow stop itself: with the "diverged" stop off, as before it (tests/push/test_push_diverged.py has it
    # on: these steps raise J above its start first, most at the first tree)
    monkeypatch.setattr(_driver, "DIVERGENCE_RTOL", math.inf)
    model, X, caught = _fit_recording(dict(params), rate, within_queries)
    runtime = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert [m for m in runtime if NAMED not in m] == []          # no NumPy warning leaks
    assert model.stop_reason_ == "overflow" and len(runtime) == 1
    assert f"the model keeps the {model.n_iter_} finite iteration(s)" in runtime[0]
    assert np.isfinite(model.decision_function(X)).all()
    values = np.asarray(model.objective_values_, dtype=np.float64)
    assert not np.any(values == np.inf) and len(model.alphas_) == model.n_iter_


@pytest.mark.parametrize("rate", ["0.1", "3"])
def test_ordinary_learning_rates_within_queries_do_not_stop_on_overflow(rate):
    model, X, caught = _fit_recording({"n_iter": 20}, rate, True)
    assert model.stop_reason_ != "overflow"
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("scale", [1e20, 1e60, 1e300])
def test_the_per_query_push_gives_no_gradient_for_scores_beyond_its_digits_without_a_warning(scale):
    # r·|f| beyond 2^50: the log-space weights keep no digit (finite garbage at 1e20, inf at 1e60, NumPy's
    # warnings at 1e300); J keeps its relative precision, the gradient and curvature are NaN for the driver
    from rankcore.metrics._queries import check_qid
    from rankcore.objectives._query_push import QueryPush

    _, grades, _, qid = _data()
    bound = QueryPush(gain_weighted=True).bind(grades, check_qid(qid, grades.shape[0]))
    scores = np.random.default_rng(1).normal(size=grades.shape[0]) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, grad, hess = bound.value_gradient_hessian(scores)
        _, grad_only = bound.value_and_gradient(scores)
        bound.line(scores, np.sign(scores))(1.0)
        below_value, below_grad, _ = bound.value_gradient_hessian(scores / scale * 2.0 ** 40)
    assert math.isfinite(value) and value == bound.value(scores)
    assert np.isnan(grad).all() and np.isnan(hess).all() and np.isnan(grad_only).all()
    assert math.isfinite(below_value) and np.isfinite(below_grad).all()   # within the digits: a gradient


# ----------------------------------------------------------------------------
# The seams: the in-memory step and the gradient check
# ----------------------------------------------------------------------------
def test_add_step_refuses_an_overflowing_step_and_leaves_every_block_unchanged():
    scores = [np.array([1.0, -2.0]), np.array([1e308, 3.0])]
    before = [s.copy() for s in scores]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FloatingPointError, match=r"alpha = 1e\+300 .* overflow float64"):
            add_step(scores, [np.array([0.5, 1.0]), np.array([1e8, 0.0])], 1e300)
    for s, b in zip(scores, before):
        np.testing.assert_array_equal(s, b)


def test_add_step_adds_exactly_what_the_plain_update_adds():
    rng = np.random.default_rng(0)
    f, h = rng.normal(size=50) * 1e300, rng.normal(size=50)
    expected = f + 0.7 * h
    add_step([f], [h], 0.7)
    np.testing.assert_array_equal(f, expected)
    # one block near the largest double, not overflowing: the exact sums are taken
    f, h = np.array([1.7e308, -1.7e308]), np.array([-1.0, 1.0])
    expected = f + h * 1e308
    add_step([f], [h], 1e308)
    np.testing.assert_array_equal(f, expected)
    assert np.isfinite(f).all()


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_check_finite_gradient_names_the_quantity(bad):
    check_finite_gradient([np.ones(3)], [np.ones(3)])
    with pytest.raises(FloatingPointError, match="gradient"):
        check_finite_gradient([np.ones(2), np.array([0.0, bad])])
    with pytest.raises(FloatingPointError, match="curvature"):
        check_finite_gradient([np.ones(2)], [np.array([bad, 1.0])])


class _Layout:
    def select(self, stats):
        return Candidate(FeatureRanker(0, 0.0, 1.0), -1.0)


class _Backend:
    """J = −t after t steps along φ(α) = (α − 1)² − 1 − t; ``fail`` raises FloatingPointError from a seam method
    at the given step count."""

    def __init__(self, fail: str, at: int):
        self.steps, self.fail, self.at = 0, fail, at

    def objective_state(self):
        return self.steps

    def value(self, state):
        return -float(state)

    def learner_statistics(self, state):
        if self.fail == "statistics" and self.steps == self.at:
            raise FloatingPointError("the objective's gradient at the current scores is not finite")

    def line_function(self, state, ranker):
        return lambda a: LinePoint(a, (a - 1.0) ** 2 - 1.0 - state, 2.0 * (a - 1.0), 2.0)

    def apply_update(self, ranker, alpha):
        if self.fail == "update" and self.steps == self.at:
            raise FloatingPointError("the step makes a training score overflow float64")
        self.steps += 1


@pytest.mark.parametrize("fail", ["statistics", "update"])
def test_a_seam_overflow_stops_the_driver_keeping_the_finite_iterations(fail):
    with pytest.warns(RuntimeWarning, match=r"iteration 3: .*keeps the 2 finite iteration\(s\)"):
        result = run_boosting(_Backend(fail, 2), _Layout(), n_iter=5, log_value=False)
    assert result.stop_reason == "overflow" and len(result.records) == 2


# ----------------------------------------------------------------------------
# Finite but huge gradient weights: the trees' gains overflow, the stop is "overflow", not "no_split"
# ----------------------------------------------------------------------------
def _clicks():
    X, _, _, qid = _data()
    position = np.tile(np.arange(10), 30)
    clicks = (np.random.default_rng(2).random(300) < 0.3 / (1 + position)).astype(int)
    return X, clicks, qid, position


@pytest.mark.parametrize("case", ["lambdarank-weights-1e300", "lambdarank-weights-1e200", "lambdarank-weights-1e153",
                                  "position-1e308"])
def test_gradient_sums_past_the_gain_limit_stop_as_overflow_not_no_split(case):
    # before: "no_split" ("the learner found no weak ranker"), a UserWarning -- the gains G²/(H + λ) of gradient
    # weights summing past 1.3e154 are inf or NaN, so the search counted no split (the effects of a learning rate
    # of 1e308 moved the gradient to ~1e306 before the first tree); at 1e153 a child's gain of +inf made the noisy
    # oblivious level read the feature before the first: "split_tables: node 0 splits on feature -1"
    if case.startswith("lambdarank"):
        X, grades, _, qid = _data()
        weight = np.full(300, float(case.rsplit("-", 1)[1]))
        model = rankcore.boost(objective="lambdarank", learner="trees", random_state=0, n_jobs=1)
        fit = lambda: model.fit(X, grades, weight, qid=qid)          # noqa: E731
    else:
        X, clicks, qid, position = _clicks()
        model = rankcore.boost(learner="trees:learning_rate=1e308", random_state=0, n_jobs=1)
        fit = lambda: model.fit(X, clicks, qid=qid, position=position)   # noqa: E731
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    assert model.stop_reason_ == "overflow"
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and NAMED in messages[0] and "split gains" in messages[0]
    assert np.isfinite(model.decision_function(X)).all()


def test_lambdarank_weights_within_the_gain_limit_still_fit():
    X, grades, _, qid = _data()
    model = rankcore.boost(objective="lambdarank", learner="trees", n_iter=20, random_state=0, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, grades, np.full(300, 1e100), qid=qid)
    assert model.stop_reason_ == "n_iter" and model.n_iter_ == 20


def test_check_gain_sums_bounds_each_sign_of_the_gradient():
    from rankcore.push._backend import check_gain_sums

    limit = math.sqrt(np.finfo(np.float64).max)
    check_gain_sums([np.array([limit / 2, -limit / 2]), np.array([limit / 4, -limit / 4])])
    check_gain_sums([np.zeros(0)])
    with pytest.raises(FloatingPointError, match="split gains"):
        check_gain_sums([np.array([limit * 0.6, -1.0]), np.array([limit * 0.6])])
    with pytest.raises(FloatingPointError, match="split gains"):
        check_gain_sums([np.array([-1e300, 1e300])])


@pytest.mark.parametrize("rate", ["1e155", "1e300"])
def test_position_effects_first_step_overflowing_j_stops_as_overflow_not_an_error(rate):
    # before: FloatingPointError "not finite at the initial scores" -- the line search's J is taken at the effects
    # after their first step, which a learning rate this large overflows before any tree; that step is not taken
    X, clicks, qid, position = _clicks()
    model = rankcore.boost(learner=f"trees:learning_rate={rate},line_search=true", n_iter=30, random_state=0,
                           n_jobs=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, clicks, qid=qid, position=position)
    assert model.stop_reason_ == "overflow"
    assert [str(w.message) for w in caught if NAMED not in str(w.message)] == []
    assert np.isfinite(model.decision_function(X)).all()
    ordinary = rankcore.boost(learner="trees:line_search=true", n_iter=30, random_state=0, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ordinary.fit(X, clicks, qid=qid, position=position)
    assert ordinary.stop_reason_ == "n_iter"
