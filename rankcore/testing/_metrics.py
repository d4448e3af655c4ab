"""Contract checks for metrics (the ``metric`` family).

Each ``check_xxx(metric, rng)`` uses only the public :class:`rankcore.Metric`
interface, so it applies as is to a third-party metric plugin.  Data are
small integer-valued scores (many ties, exact in floating point) so that the
checks exercise the tie conventions and never depend on rounding.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..metrics import MetricValueError
from ._common import assert_finite

__all__ = [
    "CHECKS",
    "check_metric_attributes",
    "check_metric_spec_round_trip",
    "check_metric_value_type",
    "check_metric_loss_direction",
    "check_metric_monotone",
    "check_metric_sorted_kernel",
    "check_metric_permutation_invariance",
    "check_metric_shift_invariance",
    "check_metric_rejects_bad_input",
    "check_metric_one_class",
    "check_metric_weighted_groups",
    "check_metric_query_values",
]

_SIZES = (30, 61, 200)


def _labels(metric, rng, n):
    """Labels for the metric's task with both classes (or two grades) present."""
    if metric.task == "graded":
        y = rng.integers(0, 4, size=n).astype(np.float64)
        y[:2] = (0.0, 3.0)
    else:
        y = (rng.random(n) < rng.uniform(0.2, 0.6)).astype(np.int8)
        y[:2] = (0, 1)
    return rng.permutation(y)


def _data(metric, rng, n):
    y = _labels(metric, rng, n)
    scores = rng.integers(0, max(3, n // 4), size=n).astype(np.float64)
    return y, scores


def _same(a, b) -> bool:
    """Equal values (scalars within 1e-12, or arrays / named tuples of arrays exactly)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def _not_worse(metric, before: float, after: float) -> bool:
    tol = 1e-12 * max(1.0, abs(before))
    return after >= before - tol if metric.greater_is_better else after <= before + tol


# ---------------------------------------------------------------------------


def check_metric_attributes(metric, rng):
    """The class attributes have the documented types and agree with each other."""
    cls = type(metric)
    assert metric.family == "metric", f"{cls.__name__}.family must be 'metric', got {metric.family!r}"
    assert metric.task in ("bipartite", "graded"), (
        f"{metric.spec}: task must be 'bipartite' or 'graded', got {metric.task!r}")
    for attr in ("monotone", "scalar", "bounded", "requires_both_classes"):
        assert isinstance(getattr(metric, attr), bool), (
            f"{metric.spec}: {attr} must be a bool, got {getattr(metric, attr)!r}")
    assert metric.greater_is_better in (True, False, None), (
        f"{metric.spec}: greater_is_better must be True, False or None, got {metric.greater_is_better!r}")
    if metric.scalar:
        assert metric.greater_is_better is not None, (
            f"{metric.spec}: a scalar metric must state its direction (greater_is_better True or False)")
    doc = (cls.__doc__ or "").strip()
    assert doc, f"{cls.__name__} needs a docstring (its first line is shown by rankcore plugins)"


def check_metric_spec_round_trip(metric, rng):
    """``resolve("metric", m.spec)`` rebuilds an equal metric."""
    from ..registry import resolve

    again = resolve("metric", metric.spec)
    assert again == metric, (f"resolve('metric', {metric.spec!r}) gave {type(again).__name__} "
                              f"{again.params!r}, expected {type(metric).__name__} {metric.params!r}")


def _call(metric, y, scores):
    """``metric(y, scores)``, or the non-finite value it returned (``Metric.__call__`` refuses it):
    the checks below name such a value themselves ("is NaN")."""
    try:
        return metric(y, scores)
    except MetricValueError as exc:
        return exc.value


def _loss(metric, y, scores):
    """``metric.loss(y, scores)``, or ``to_loss`` of the non-finite value the metric returned."""
    try:
        return metric.loss(y, scores)
    except MetricValueError as exc:
        return metric.to_loss(exc.value)


def check_metric_value_type(metric, rng):
    """Scalar metrics return finite real numbers (in [0, 1] when bounded); nothing returns None."""
    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        value = _call(metric, y, scores)
        if metric.scalar:
            assert isinstance(value, numbers.Real) and not isinstance(value, bool), (
                f"{metric.spec}: expected a real number, got {type(value).__name__} {value!r}")
            assert math.isfinite(value), f"{metric.spec}: expected a finite value, got {value!r} (n={n})"
            if metric.bounded:
                assert 0.0 <= value <= 1.0, f"{metric.spec}: bounded metric gave {value!r}, outside [0, 1]"
        else:
            assert value is not None, f"{metric.spec}: returned None"


def check_metric_loss_direction(metric, rng):
    """``to_loss`` is lower-is-better and consistent with ``greater_is_better``; ``loss`` = to_loss(value)."""
    if not metric.scalar:
        try:
            metric.to_loss(0.0)
        except TypeError:
            return
        raise AssertionError(f"{metric.spec}: a non-scalar metric must raise TypeError in to_loss")
    values = []
    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        value = _call(metric, y, scores)
        assert _same(_loss(metric, y, scores), metric.to_loss(value)), (
            f"{metric.spec}: loss(y, s) differs from to_loss(metric(y, s))")
        values.append(float(value))
        # a perfect-ish and a reversed scoring give values to compare too
        values.append(float(_call(metric, y, np.asarray(y, dtype=np.float64) + 0.0)))
    for a in values:
        for b in values:
            if a == b:
                continue
            la, lb = metric.to_loss(a), metric.to_loss(b)
            better = a > b if metric.greater_is_better else a < b
            assert (la < lb) == better, (
                f"{metric.spec}: to_loss({a!r}) = {la!r}, to_loss({b!r}) = {lb!r} contradicts "
                f"greater_is_better={metric.greater_is_better}")


def check_metric_monotone(metric, rng):
    """A monotone metric never gets worse when a positive rises or a negative falls."""
    if not (metric.monotone and metric.scalar and metric.task == "bipartite"):
        return
    for trial in range(40):
        y, scores = _data(metric, rng, _SIZES[trial % len(_SIZES)])
        before = float(_call(metric, y, scores))
        moved = scores.copy()
        idx = int(rng.integers(0, y.shape[0]))
        step = float(rng.integers(0, 4))  # 0 keeps, small steps make and break ties
        moved[idx] += step if y[idx] == 1 else -step
        after = float(_call(metric, y, moved))
        assert_finite([before, after], owner=metric.spec, what="the value before and after the move")
        assert _not_worse(metric, before, after), (
            f"{metric.spec}: not monotone: moving the {'positive' if y[idx] == 1 else 'negative'} "
            f"at {idx} from {scores[idx]} to {moved[idx]} changed the value from {before!r} to {after!r}")


def check_metric_sorted_kernel(metric, rng):
    """When a metric offers a sorted kernel, it agrees with ``metric(y, scores)``."""
    kernel = metric.sorted_kernel()
    if kernel is None:
        return
    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        pos, neg = np.sort(scores[y == 1]), np.sort(scores[y == 0])
        direct = _call(metric, y, scores)
        via_kernel = kernel.evaluate(pos, neg)
        via_sorted = metric.from_sorted(pos, neg)
        assert _same(float(direct), via_kernel), (
            f"{metric.spec}: sorted_kernel().evaluate gave {via_kernel!r}, metric(y, s) gave {direct!r}")
        assert _same(direct, via_sorted), (
            f"{metric.spec}: from_sorted gave {via_sorted!r}, metric(y, s) gave {direct!r}")


def check_metric_permutation_invariance(metric, rng):
    """Reordering the examples does not change a scalar metric (ties are not broken by position).

    A metric that declares ``ties_by_row_order`` is checked on scores without ties.
    """
    if not metric.scalar:
        return
    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        if getattr(metric, "ties_by_row_order", False):
            scores = rng.permutation(n).astype(np.float64)
        perm = rng.permutation(n)
        a, b = _call(metric, y, scores), _call(metric, y[perm], scores[perm])
        assert _same(a, b), f"{metric.spec}: permuting the examples changed the value from {a!r} to {b!r}"


def check_metric_shift_invariance(metric, rng):
    """A metric that declares ``shift_invariant`` is unchanged by adding a constant to every score."""
    if not (metric.scalar and metric.shift_invariant):
        return
    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        a = _call(metric, y, scores)
        for shift in (1000.0, -2.5):            # both ways: a threshold at 0 moves under either sign
            b = _call(metric, y, scores + shift)
            assert _same(a, b), (f"{metric.spec}: adding {shift:g} to every score changed the value from {a!r} "
                                 f"to {b!r}")


def check_metric_order_invariance(metric, rng):
    """A metric that declares ``order_invariant`` is unchanged by a strictly increasing map of the scores.

    (rankcore relies on it: integer scores beyond 2**53 are replaced by their ranks for such a metric.) A
    ``labels_order_invariant`` metric is likewise unchanged by a strictly increasing map of graded labels.
    """
    if not metric.scalar:
        return
    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        a = _call(metric, y, scores)
        if metric.order_invariant:
            for name, mapped in (("exp", np.exp(scores / max(1.0, np.abs(scores).max()) * 5)),
                                 ("a cube plus 7", scores**3 + 7.0), ("the ranks", _dense_ranks(scores))):
                b = _call(metric, y, mapped)
                assert _same(a, b), (f"{metric.spec}: declares order_invariant, but mapping the scores to {name} "
                                     f"(same order) changed the value from {a!r} to {b!r}")
        if metric.labels_order_invariant and metric.task == "graded":
            b = _call(metric, y * 3.0 + 1.0, scores)
            assert _same(a, b), (f"{metric.spec}: declares labels_order_invariant, but mapping the grades to "
                                 f"3·y + 1 (same order) changed the value from {a!r} to {b!r}")


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1].astype(np.float64)


def _expect_error(metric, kinds, y, scores, what):
    try:
        value = metric(y, scores)
    except kinds as exc:
        assert str(exc), f"{metric.spec}: {what} raised {type(exc).__name__} without a message"
        return
    except Exception as exc:  # the wrong kind of error
        raise AssertionError(
            f"{metric.spec}: {what} should raise {'/'.join(k.__name__ for k in kinds)}, "
            f"got {type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"{metric.spec}: {what} should raise, returned {value!r}")


def check_metric_rejects_bad_input(metric, rng):
    """NaN/inf, wrong lengths, empty or non-numeric input, bad labels raise clear errors."""
    y, scores = _data(metric, rng, 40)
    bad = scores.copy()
    bad[3] = np.nan
    _expect_error(metric, (ValueError,), y, bad, "NaN in scores")
    bad[3] = np.inf
    _expect_error(metric, (ValueError,), y, bad, "inf in scores")
    _expect_error(metric, (ValueError,), y, scores[:-1], "scores shorter than y")
    _expect_error(metric, (ValueError,), y, scores.reshape(-1, 2), "2-D scores")
    _expect_error(metric, (ValueError,), y[:0], scores[:0], "empty input")
    _expect_error(metric, (TypeError,), y, ["a"] * y.shape[0], "string scores")
    if metric.task == "bipartite":
        labels = np.asarray(y, dtype=np.float64).copy()
        labels[0] = 2.0
        _expect_error(metric, (ValueError,), labels, scores, "label 2 in a bipartite metric")
        labels[0] = np.nan
        _expect_error(metric, (ValueError,), labels, scores, "NaN label")


def check_metric_one_class(metric, rng):
    """With a single class present: a clear ValueError, or (when allowed) a finite value."""
    if metric.task != "bipartite":
        return
    n = 40
    scores = rng.integers(0, 8, size=n).astype(np.float64)
    for label in (0, 1):
        y = np.full(n, label, dtype=np.int8)
        if metric.requires_both_classes:
            _expect_error(metric, (ValueError,), y, scores, f"only label {label}")
        else:
            value = _call(metric, y, scores)
            if metric.scalar:
                assert math.isfinite(float(value)), (
                    f"{metric.spec}: with only label {label} expected a finite value, got {value!r}")


def check_metric_weighted_groups(metric, rng):
    """A declared resampling form (``weighted_groups``) equals the metric of the repeated rows.

    Unit weights give the metric itself; integer weights (a bootstrap
    replicate) give the metric of each row repeated that many times.
    """
    if not getattr(metric, "weighted_groups", False):
        return
    assert metric.task == "bipartite", f"{metric.spec}: weighted_groups is a form of bipartite metrics"
    from ..metrics import tie_groups

    for n in _SIZES:
        y, scores = _data(metric, rng, n)
        pos = np.sort(scores[y == 1])
        neg = np.sort(scores[y == 0])
        pos_size, neg_size, values = tie_groups(pos, neg)
        got = metric.from_weighted_groups(pos_size.astype(float), neg_size.astype(float))
        assert _same(float(got), float(metric(y, scores))), (
            f"{metric.spec}: from_weighted_groups with unit weights gives {got!r}, the metric {metric(y, scores)!r}")
        pos_w = rng.integers(0, 3, pos_size.shape[0]) * (pos_size > 0)
        neg_w = rng.integers(0, 3, neg_size.shape[0]) * (neg_size > 0)
        pos_w[np.argmax(pos_size)] += 1  # both classes keep some weight
        neg_w[np.argmax(neg_size)] += 1
        y_rep = np.r_[np.ones(pos_w.sum(), np.int8), np.zeros(neg_w.sum(), np.int8)]
        s_rep = np.r_[np.repeat(values, pos_w), np.repeat(values, neg_w)]
        got = metric.from_weighted_groups(pos_w.astype(float), neg_w.astype(float))
        try:
            expected = float(metric(y_rep, s_rep))
        except ValueError:
            continue  # a parameter that does not fit the repeated rows (k > n)
        assert _same(float(got), expected), (
            f"{metric.spec}: from_weighted_groups with integer weights gives {got!r}, the metric of the "
            f"repeated rows {expected!r}")


def check_metric_query_values(metric, rng):
    """With ``qid``: one query gives the metric itself; the values per query ignore the order of the rows.

    A metric that is not a single number must refuse ``qid`` with a ValueError.
    """
    from rankcore.metrics import Queries
    from rankcore.metrics import check_qid

    n = _SIZES[-1]
    y, scores = _data(metric, rng, n)
    if not metric.scalar:
        _expect_query_error(metric, y, scores)
        return
    whole = metric.query_values(y, scores, Queries.single(n))
    assert whole.shape == (1,) and _same(float(whole[0]), float(_call(metric, y, scores))), (
        f"{metric.spec}: query_values on one query gave {whole!r}, the metric {_call(metric, y, scores)!r}")
    if getattr(metric, "ties_by_row_order", False):
        scores = rng.permutation(n).astype(np.float64)
    qid = rng.integers(0, 3, size=n)
    values = metric.query_values(y, scores, check_qid(qid, n))
    perm = rng.permutation(n)
    again = metric.query_values(y[perm], scores[perm], check_qid(qid[perm], n))
    assert values.shape == (3,) and not np.isinf(values).any(), f"{metric.spec}: query_values gave {values!r}"
    assert np.allclose(values, again, rtol=1e-12, atol=1e-12, equal_nan=True), (
        f"{metric.spec}: permuting the rows changed the values per query from {values!r} to {again!r}")


def _expect_query_error(metric, y, scores):
    from rankcore.metrics import check_qid

    try:
        metric.query_values(y, scores, check_qid(np.arange(y.shape[0]) % 2, y.shape[0]))
    except ValueError as exc:
        assert "qid" in str(exc), f"{metric.spec}: refusing qid, the error should name qid: {exc}"
        return
    raise AssertionError(f"{metric.spec}: a metric that is not a single number should refuse qid")


CHECKS = [
    check_metric_attributes,
    check_metric_spec_round_trip,
    check_metric_value_type,
    check_metric_loss_direction,
    check_metric_monotone,
    check_metric_sorted_kernel,
    check_metric_permutation_invariance,
    check_metric_shift_invariance,
    check_metric_order_invariance,
    check_metric_rejects_bad_input,
    check_metric_one_class,
    check_metric_weighted_groups,
    check_metric_query_values,
]
