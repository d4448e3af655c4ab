"""The precision@k surrogates as boosting objectives (``prec@k-avg:k`` and friends)."""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from _precision_at_k_reference import brute_force_surrogate
from rankcore.precision_at_k import surrogate_and_grad
from rankcore.registry import registry
from rankcore.spec import SpecError

SPECS = {"avg": "prec@k-avg", "max": "prec@k-max", "ramp": "prec@k-ramp"}


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int8)
    y[:2] = [0, 1]
    return y, np.round(rng.standard_normal(n), 1)  # ties


def test_objectives_registered_by_the_builtin_plugin():
    reg = registry()
    for name in ("prec@k-avg", "prec@k-max", "prec@k-ramp", "prec@k-struct"):
        entry = reg.entry("objective", name)
        assert entry.distribution == "rankcore"
        assert entry.plugin == "rankcore.precision_at_k._plugin"


@pytest.mark.parametrize("kind", list(SPECS))
@pytest.mark.parametrize("k", [1, 4, 0.1, "n+"], ids=str)
def test_objective_equals_surrogate(kind, k):
    y, s = _data()
    objective = rankcore.resolve("objective", f"{SPECS[kind]}:{k}")
    k_count = int(y.sum()) if k == "n+" else k
    value, grad = surrogate_and_grad(y, s, k_count, kind)
    assert objective(y, s) == pytest.approx(value)
    np.testing.assert_allclose(objective.gradient(y, s), grad)
    bound = objective.bind(y)
    v2, g2 = bound.value_and_gradient(s)
    assert v2 == pytest.approx(value) and bound.value(s) == pytest.approx(value)
    np.testing.assert_allclose(g2, grad)


def test_objective_brute_force_small():
    y = np.array([1, 0, 1, 0, 0, 1, 0], dtype=np.int8)
    s = np.array([0.5, 0.5, -1.0, 2.0, 0.0, 0.5, 1.0])
    for kind in SPECS:
        assert rankcore.resolve("objective", f"{SPECS[kind]}:2")(y, s) == pytest.approx(
            brute_force_surrogate(y, s, 2, kind) / 2)


def test_objective_line_is_consistent_with_value():
    y, s = _data()
    bound = rankcore.resolve("objective", "prec@k-avg:5").bind(y)
    h = (np.random.default_rng(1).random(len(y)) > 0.5).astype(float)
    line = bound.line(s, h)
    for alpha in (0.0, 0.3, 2.0):
        point = line(alpha)
        assert point.value == pytest.approx(bound.value(s + alpha * h))
        assert point.d1 == pytest.approx(bound.value_and_gradient(s + alpha * h)[1] @ h)


@pytest.mark.parametrize("kind", ["avg", "max", "ramp"])
def test_objective_is_shift_invariant(kind):
    y, s = _data()
    objective = rankcore.resolve("objective", f"{SPECS[kind]}:5")
    assert objective(y, s + 3.0) == pytest.approx(objective(y, s))
    assert objective.gradient(y, s).sum() == pytest.approx(0.0, abs=1e-12)


def test_objective_k_above_npos_is_capped():
    y, s = _data()
    n_pos = int(y.sum())
    big = rankcore.resolve("objective", f"prec@k-avg:{n_pos + 5}")
    assert big(y, s) == pytest.approx(rankcore.resolve("objective", "prec@k-avg:n+")(y, s))


def test_struct_objective_only_for_k_at_least_npos():
    y, s = _data()
    n_pos = int(y.sum())
    struct = rankcore.resolve("objective", "prec@k-struct")
    assert struct.spec == "prec@k-struct"
    # at k = n₊, struct = avg
    assert struct(y, s) == pytest.approx(rankcore.resolve("objective", "prec@k-avg:n+")(y, s))
    with pytest.raises(ValueError, match=r"k = 3 < n₊ .* unbounded below"):
        rankcore.resolve("objective", "prec@k-struct:3")(y, s)
    assert rankcore.resolve("objective", f"prec@k-struct:{n_pos}")(y, s) == pytest.approx(struct(y, s))


@pytest.mark.parametrize(
    "spec, error, match",
    [
        ("prec@k-avg", SpecError, "missing parameter k"),
        ("prec@k-avg:x", SpecError, "k must be a count, a fraction or n"),
        ("prec@k-avg:0", SpecError, "k must be"),
        ("prec@k-avg:2.5", SpecError, "whole count"),
        ("prec@k-avg:1,2", SpecError, "too many arguments"),
    ],
)
def test_objective_bad_specs(spec, error, match):
    with pytest.raises(error, match=match):
        rankcore.resolve("objective", spec)


def test_objective_bad_data():
    y, s = _data()
    objective = rankcore.resolve("objective", "prec@k-avg:5")
    with pytest.raises(ValueError, match="expected a count in"):
        rankcore.resolve("objective", "prec@k-avg:500")(y, s)
    with pytest.raises(ValueError, match="both classes"):
        objective(np.ones(5), np.zeros(5))
    with pytest.raises(ValueError, match="sample_weight"):
        objective.bind(y, np.ones(len(y)))
    with pytest.raises(ValueError, match="NaN"):
        objective(y, np.full(len(y), np.nan))


def test_objective_spec_round_trip():
    for spec in ("prec@k-avg:5", "prec@k-max:0.1", "prec@k-ramp:n+", "prec@k-struct"):
        objective = rankcore.resolve("objective", spec)
        assert rankcore.resolve("objective", objective.spec) == objective


# ---------------------------------------------------------------------------
# the boosting driver minimizes them (rankcore.boost, the push issue's driver)
# ---------------------------------------------------------------------------


def _boost():
    try:
        return rankcore.boost
    except (AttributeError, ImportError) as exc:  # pragma: no cover - until the driver ships
        pytest.skip(f"rankcore.boost is not available: {exc}")


def _planted_tail(n=600, seed=0):
    # positives sit in a tail of feature 0 (with a second condition), so
    # stumps can lift a positive-rich region above all but a few negatives
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    y = ((X[:, 0] + 0.3 * rng.standard_normal(n) > 1.3) & (X[:, 1] > -1.0)).astype(int)
    return X, y


@pytest.mark.parametrize("spec, ratio", [("prec@k-avg:0.05", 0.5), ("prec@k-ramp:0.05", 0.5),
                                         ("prec@k-struct", 0.8), ("prec@k-avg:n+", 0.8)])
def test_driver_decreases_surrogate_on_training_data(spec, ratio):
    from rankcore.metrics import prec_at_k

    X, y = _planted_tail()
    model = _boost()(objective=spec, learner="stumps", n_iter=40).fit(X, y)
    values = model.objective_values_
    assert values[0] == pytest.approx(1.0)  # all scores tie at the start: one per slot
    assert np.all(np.diff(values) <= 1e-12), "the objective must never increase"
    assert values[-1] < ratio * values[0]
    # the value is the surrogate of the final training scores, and it bounds the prec@k loss
    objective = rankcore.resolve("objective", spec)
    scores = model.decision_function(X)
    assert objective(y, scores) == pytest.approx(values[-1])
    k = int(y.sum()) if spec.endswith(("n+", "struct")) else 0.05
    assert 1 - prec_at_k(y, scores, k) <= values[-1] + 1e-9
    assert prec_at_k(y, scores, k) > 2 * y.mean()


def test_driver_never_increases_max_surrogate():
    X, y = _planted_tail()
    values = _boost()(objective="prec@k-max:0.05", learner="stumps", n_iter=20).fit(X, y).objective_values_
    assert np.all(np.diff(values) <= 1e-12)


@pytest.mark.xfail(strict=True, reason=(
    "the surrogates are not differentiable where scores tie (everywhere at f = 0, and often with "
    "stumps): the driver picks the weak ranker by the tie-averaged subgradient, whose direction need "
    "not descend, and stops at once; it needs a fallback to the next candidates (or selection by the "
    "one-sided derivative) for non-smooth objectives"))
def test_driver_decreases_avg_surrogate_from_all_ties_on_a_disc():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 5))
    y = ((X[:, 0] ** 2 + X[:, 1] ** 2) < 0.8).astype(int)
    values = _boost()(objective="prec@k-avg:0.1", learner="stumps", n_iter=30).fit(X, y).objective_values_
    assert values[-1] < 0.9
