"""A plugin objective within queries through the default binding, and a plugin objective's NaN gradient.

The default ``Objective.bind`` hands ``queries`` to a ``value_and_gradient`` that takes ``queries=``, and refuses
an objective that declares ``ranks_within_queries`` but can take them nowhere (it would fit one list over every row
while the model says "within queries").  A NaN in a plugin's gradient is refused naming the objective, rather than
stopping the fit as an overflow.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from _plugin_registration import components_registered

import rankcore
from rankcore.metrics import check_qid


def _pairwise_squared(y, scores, codes):
    """Σ over queries, pairs y_a > y_b of one query: (1 − (f_a − f_b))², and its gradient (a plain double loop)."""
    value, grad = 0.0, np.zeros_like(scores)
    for a in range(y.size):
        for b in range(y.size):
            if codes[a] == codes[b] and y[a] > y[b]:
                r = 1.0 - (scores[a] - scores[b])
                value += r * r
                grad[a] -= 2.0 * r
                grad[b] += 2.0 * r
    return value, grad


class WithinQueries(rankcore.Objective):
    """The pairwise squared loss within each query, its queries taken by value_and_gradient (default bind)."""

    name = "within-queries-for-tests"
    task = "graded"
    ranks_within_queries = True
    supports_sample_weight = False
    calls: list = []

    def value_and_gradient(self, y, scores, sample_weight=None, queries=None):
        codes = np.zeros(y.size, dtype=np.int64) if queries is None else queries.codes
        type(self).calls.append(queries is not None)
        return _pairwise_squared(y, scores, codes)


class DeclaresOnly(rankcore.Objective):
    """Declares ranks_within_queries, but neither overrides bind nor takes queries: it cannot rank within them."""

    name = "declares-only-for-tests"
    task = "graded"
    ranks_within_queries = True

    def value_and_gradient(self, y, scores, sample_weight=None):
        return _pairwise_squared(y, scores, np.zeros(y.size, dtype=np.int64))


class NaNGradient(rankcore.Objective):
    """A squared error whose gradient is NaN at row 3: a bug of the plugin."""

    name = "nan-gradient-for-tests"
    task = "graded"

    def value_and_gradient(self, y, scores, sample_weight=None):
        grad = 2.0 * (scores - y)
        grad[3] = np.nan
        return float(np.sum((scores - y) ** 2)), grad


class NaNGradientNewton(NaNGradient):
    """Its value_and_gradient is finite; the gradient value_gradient_hessian gives is NaN at row 3."""

    name = "nan-gradient-newton-for-tests"

    def value_and_gradient(self, y, scores, sample_weight=None):
        return float(np.sum((scores - y) ** 2)), 2.0 * (scores - y)

    def value_gradient_hessian(self, y, scores, sample_weight=None):
        value, grad = self.value_and_gradient(y, scores)
        grad[3] = np.nan
        return value, grad, np.full_like(grad, 2.0)


class NaiveLogistic(rankcore.Objective):
    """The logistic loss written naively: its gradient exp(f) / (1 + exp(f)) − y is inf / inf = NaN past f = 709,
    beside a value J = +inf -- an overflow of the scores, not a bug of the objective."""

    name = "naive-logistic-for-tests"
    task = "binary"

    def value_and_gradient(self, y, scores, sample_weight=None):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(scores)
            return float(np.sum(np.log1p(e) - y * scores)), e / (1.0 + e) - y


def _squared(self, y, scores, sample_weight=None, queries=None, scale=1.0):
    return float(scale * np.sum((scores - y) ** 2)), 2.0 * scale * (scores - y)


def _squared_line(self, y, scores, direction, sample_weight=None, scale=1.0):     # takes no queries=
    grad = 2.0 * scale * (scores - y)
    return float(scale * np.sum((scores - y) ** 2)), float(grad @ direction), float(2.0 * scale * direction @ direction)


class PartialMethods(rankcore.Objective):
    """Methods made by functools.partialmethod (callables without a __name__): only the first takes queries=."""

    name = "partial-methods-for-tests"
    task = "graded"
    ranks_within_queries = True
    value_and_gradient = functools.partialmethod(_squared, scale=2.0)
    line_derivatives = functools.partialmethod(_squared_line, scale=2.0)


OBJECTIVES = [WithinQueries, DeclaresOnly, NaNGradient, NaNGradientNewton, NaiveLogistic, PartialMethods]


@pytest.fixture
def registered():
    with components_registered("rankcore_register_objectives", OBJECTIVES, "objective-plugin-queries-tests"):
        yield


def _data(seed=0, n_queries=12):
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.repeat(np.arange(n_queries), rng.integers(3, 8, n_queries)))   # queries interleaved
    X = rng.normal(size=(qid.size, 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=qid.size) + 1), 0, 3)
    return X, y, qid


def test_default_bind_hands_the_queries_to_value_and_gradient(registered):
    X, y, qid = _data()
    queries = check_qid(qid, qid.size)
    scores = np.random.default_rng(1).normal(size=qid.size)
    bound = rankcore.resolve("objective", "within-queries-for-tests").bind(y, queries=queries)
    value, grad = bound.value_and_gradient(scores)
    ref_value, ref_grad = _pairwise_squared(y, scores, qid)
    assert value == pytest.approx(ref_value, rel=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-12)
    # the line search's evaluations see them too: φ′(0) is the within-query gradient along the direction
    direction = np.linspace(-1.0, 1.0, qid.size)
    point = bound.line(scores, direction)(0.0)
    assert point.d1 == pytest.approx(float(ref_grad @ direction), rel=1e-12)


def test_a_fit_with_qid_ranks_within_the_queries(registered):
    X, y, qid = _data()
    WithinQueries.calls.clear()
    model = rankcore.boost(learner="stumps", objective="within-queries-for-tests", n_iter=3).fit(X, y, qid=qid)
    assert model.ranks_within_queries_ and WithinQueries.calls and all(WithinQueries.calls)
    # the recorded start is the within-query value at f = 0, not the one-list value over every pair of grades
    assert model.objective_values_[0] == pytest.approx(_pairwise_squared(y, np.zeros(y.size), qid)[0], rel=1e-12)


def test_an_objective_that_cannot_take_the_queries_is_refused(registered):
    X, y, qid = _data()
    with pytest.raises(TypeError, match=r"declares-only-for-tests.*ranks_within_queries.*bind\(\.\.\., queries=\)"):
        rankcore.boost(learner="stumps", objective="declares-only-for-tests", n_iter=2).fit(X, y, qid=qid)
    # without queries it is an objective on one list, as before
    model = rankcore.boost(learner="stumps", objective="declares-only-for-tests", n_iter=2).fit(X, y)
    assert model.n_iter_ == 2


@pytest.mark.parametrize("spec, method, learner", [
    ("nan-gradient-for-tests", "value_and_gradient", "trees"),
    ("nan-gradient-for-tests", "value_and_gradient", "stumps"),
    ("nan-gradient-newton-for-tests", "value_gradient_hessian", "trees"),     # the stumps take no curvature
])
def test_a_nan_gradient_is_the_objectives_error_not_an_overflow(registered, spec, method, learner):
    X, y, _ = _data()
    with pytest.raises(ValueError, match=rf"objective '{spec}': {method} returned a gradient that is NaN at 1 of "
                                         rf"{y.size} rows \(the first: row 3\)"):
        rankcore.boost(learner=learner, objective=spec, n_iter=3).fit(X, y)


def test_a_nan_gradient_beside_an_overflowed_value_stops_the_fit_as_an_overflow(registered):
    # scores pushed past exp's range: J = +inf says the step overflowed; the fit keeps the last finite model
    X = np.random.default_rng(0).normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(np.int8)       # separable: the line search's step is huge
    with pytest.warns(RuntimeWarning, match="overflow"):
        model = rankcore.boost(learner="trees:learning_rate=1000", objective="naive-logistic-for-tests",
                               n_iter=20).fit(X, y)
    assert model.stop_reason_ == "overflow"
    assert np.isfinite(model.decision_function(X)).all()


def test_each_method_is_asked_for_queries_by_its_own_name(registered):
    # partialmethods have no __name__: line_derivatives must not inherit value_and_gradient's answer
    X, y, qid = _data()
    queries = check_qid(qid, qid.size)
    bound = rankcore.resolve("objective", "partial-methods-for-tests").bind(y, queries=queries)
    scores = np.zeros(y.size)
    value, grad = bound.value_and_gradient(scores)
    assert value == pytest.approx(2.0 * float(np.sum(y ** 2)), rel=1e-12)
    direction = np.ones(y.size)
    assert bound.line(scores, direction)(0.0).d1 == pytest.approx(float(grad @ direction), rel=1e-12)
