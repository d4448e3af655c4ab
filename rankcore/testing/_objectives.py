"""Contract checks of the ``objective`` family (see :class:`rankcore.Objective`)."""

from __future__ import annotations

import math

import numpy as np

from ._common import assert_finite, spec_round_trip_check

__all__ = ["CHECKS"]


def _labels(objective, rng, n):
    if objective.task == "graded" or objective.requires_queries:
        if objective.max_grade < 3:          # labels read as probabilities (cross-entropy): within its range
            return rng.uniform(0.0, objective.max_grade, n)
        return rng.integers(0, 4, n).astype(np.float64)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, size=max(2, n // 3), replace=False)] = 1
    return y


def _bound(objective, rng, n=30, weights=False):
    """Labels, weights and the bound objective; an objective that requires queries gets three interleaved ones."""
    y = _labels(objective, rng, n)
    w = rng.uniform(0.5, 2.0, n) if weights else None
    if objective.requires_queries:
        from ..metrics import check_qid

        return y, w, objective.bind(y, w, n_threads=1, queries=check_qid(np.arange(n) % 3, n))
    objective.check_target(y, w)
    return y, w, objective.bind(y, w, n_threads=1)


def _without_value(objective, bound, rng, n) -> bool:
    """For an objective without a value (``has_value`` False): its value is NaN, its gradient and curvature
    finite float64 of the scores' shape (the curvature at least the floor).  Returns whether that was the case
    to check: the checks of J then have nothing more to check."""
    from ..objectives import HESSIAN_FLOOR

    if objective.has_value:
        return False
    scores = rng.normal(size=n)
    scores.setflags(write=False)
    value, grad = bound.value_and_gradient(scores)
    assert math.isnan(value), f"objective {objective.spec!r}: has_value is False but the value is {value!r}"
    assert bound.has_hessian, f"objective {objective.spec!r}: without a value it must give a curvature (Newton steps)"
    _, grad2, hess = bound.value_gradient_hessian(scores)
    for what, arr in (("gradient", grad), ("hessian", hess)):
        assert isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == scores.shape, (
            f"objective {objective.spec!r}: {what} must be float64 of shape {scores.shape}")
        assert np.isfinite(arr).all(), f"objective {objective.spec!r}: non-finite {what}"
    np.testing.assert_array_equal(grad, grad2, err_msg=f"objective {objective.spec!r}: the two gradients differ")
    assert (hess >= HESSIAN_FLOOR).all(), f"objective {objective.spec!r}: hessian below the floor"
    return True


def check_objective_value_and_gradient_types(objective, rng):
    """value_and_gradient gives a finite float and a float64 gradient of the scores' shape."""
    y, w, bound = _bound(objective, rng)
    if _without_value(objective, bound, rng, y.shape[0]):
        return
    for scores in (np.zeros(y.shape[0]), rng.normal(size=y.shape[0])):
        scores.setflags(write=False)
        value, grad = bound.value_and_gradient(scores)
        assert isinstance(value, float) and math.isfinite(value), f"objective {objective.spec!r}: value {value!r}"
        assert isinstance(grad, np.ndarray) and grad.dtype == np.float64 and grad.shape == scores.shape, (
            f"objective {objective.spec!r}: gradient must be float64 of shape {scores.shape}")
        assert np.isfinite(grad).all(), f"objective {objective.spec!r}: non-finite gradient"
        assert bound.value(scores) == value or math.isclose(bound.value(scores), value, rel_tol=1e-12, abs_tol=1e-12), (
            f"objective {objective.spec!r}: value() and value_and_gradient() disagree")


def check_objective_gradient_finite_differences(objective, rng):
    """∇J agrees with central finite differences at random (tie-free) scores."""
    y, w, bound = _bound(objective, rng, n=20)
    if _without_value(objective, bound, rng, y.shape[0]):
        return
    scores = rng.normal(size=y.shape[0])
    _, grad = bound.value_and_gradient(scores)
    assert_finite(grad, owner=f"objective {objective.spec!r}", what="the gradient")
    eps = 1e-6
    fd = np.empty_like(scores)
    for j in range(scores.shape[0]):
        e = np.zeros_like(scores)
        e[j] = eps
        fd[j] = (bound.value(scores + e) - bound.value(scores - e)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-6 * max(1.0, np.abs(grad).max()),
                               err_msg=f"objective {objective.spec!r}: gradient vs finite differences")


def check_objective_line_function(objective, rng):
    """line(scores, h)(α) matches value(scores + α h); φ′ and φ″ (when given) match finite differences."""
    y, w, bound = _bound(objective, rng, n=24)
    if _without_value(objective, bound, rng, y.shape[0]):      # no value: the driver searches no line
        return
    scores = rng.normal(size=y.shape[0])
    h = rng.uniform(0, 1, y.shape[0])
    line = bound.line(scores, h)
    for alpha in (0.0, 0.37, -0.8):
        p = line(alpha)
        assert_finite([p.value, p.d1], owner=f"objective {objective.spec!r}", what=f"the line's φ, φ′ at α={alpha}")
        assert math.isclose(p.value, bound.value(scores + alpha * h), rel_tol=1e-10, abs_tol=1e-10), (
            f"objective {objective.spec!r}: line value at α={alpha} differs from value(scores + α h)")
        eps = 1e-6
        fd1 = (line(alpha + eps).value - line(alpha - eps).value) / (2 * eps)
        assert math.isclose(p.d1, fd1, rel_tol=1e-4, abs_tol=1e-6), (
            f"objective {objective.spec!r}: φ′({alpha}) = {p.d1} but finite differences give {fd1}")
        if math.isfinite(p.d2):
            fd2 = (line(alpha + eps).d1 - line(alpha - eps).d1) / (2 * eps)
            assert math.isclose(p.d2, fd2, rel_tol=1e-3, abs_tol=1e-5), (
                f"objective {objective.spec!r}: φ″({alpha}) = {p.d2} but finite differences give {fd2}")


def check_objective_sample_weight_multiplicity(objective, rng):
    """Integer sample weights act as multiplicities (or are refused with ValueError).

    Not for an objective without a value: its weights scale each row's gradient (LightGBM's lambdarank), and a
    copied row takes a place of its own in the query's ranking.
    """
    if not objective.has_value:
        return
    n = 16
    y = _labels(objective, rng, n)
    counts = rng.integers(1, 4, n).astype(np.float64)
    if not objective.supports_sample_weight:
        try:
            objective.bind(y, counts)
        except ValueError:
            return
        raise AssertionError(f"objective {objective.spec!r}: supports_sample_weight=False but weights were accepted")
    objective.check_target(y, counts)
    rep = np.repeat(np.arange(n), counts.astype(int))
    scores = rng.normal(size=n)
    v_w, g_w = objective.bind(y, counts).value_and_gradient(scores)
    objective.check_target(y[rep])
    v_r, g_r = objective.bind(y[rep], None).value_and_gradient(scores[rep])
    assert math.isclose(v_w, v_r, rel_tol=1e-9, abs_tol=1e-9), (
        f"objective {objective.spec!r}: weighted value {v_w} != value on repeated rows {v_r}")
    np.testing.assert_allclose(g_w, np.bincount(rep, weights=g_r, minlength=n), rtol=1e-8, atol=1e-10,
                               err_msg=f"objective {objective.spec!r}: weighted gradient != summed gradient of copies")


def check_objective_separable_blocks(objective, rng):
    """A separable objective gives the same value, gradient and line over any split into row blocks."""
    from ..objectives import RowBlock

    y, w, bound = _bound(objective, rng, n=40, weights=objective.supports_sample_weight)
    if not bound.separable:
        return
    weight = np.ones(y.shape[0]) if w is None else w
    order = np.argsort(y, kind="stable")            # the first block has no positives
    y, weight = y[order], weight[order]
    bound = objective.bind(y, None if w is None else weight, n_threads=1)
    scores = rng.normal(size=y.shape[0])
    h = rng.uniform(0, 1, y.shape[0])
    cuts = [0, 5, 6, 23, y.shape[0]]
    blocks = [RowBlock(y[a:b], weight[a:b], scores[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    G = bound.reduce(blocks)
    value, grad = bound.value_and_gradient(scores)
    assert math.isclose(bound.finish(G).value, value, rel_tol=1e-12, abs_tol=1e-12), (
        f"objective {objective.spec!r}: blocked value differs")
    blocked = np.concatenate([bound.block_gradient(b, G) for b in blocks])
    np.testing.assert_allclose(blocked, grad, rtol=1e-11, atol=1e-14,
                               err_msg=f"objective {objective.spec!r}: blocked gradient differs")
    dirs = [h[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    for alpha in (0.0, 0.5):
        p_blocks = bound.finish(bound.reduce(blocks, dirs, alpha), with_direction=True)
        p_whole = bound.line(scores, h)(alpha)
        for name in ("value", "d1", "d2"):
            a, b = getattr(p_blocks, name), getattr(p_whole, name)
            assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-10, abs_tol=1e-12), (
                f"objective {objective.spec!r}: blocked line {name} at α={alpha}: {a} != {b}")
    values = np.array([0.0, 1.0])
    hb = [np.round(d) for d in dirs]
    parts = [bound.block_line_summary(b, d, values, G) for b, d in zip(blocks, hb)]
    if all(p is not None for p in parts):
        line = bound.line_from_summary(bound.merge_line_summaries(parts), values, G)
        exact = bound.line(scores, np.concatenate(hb))
        for alpha in (0.0, -0.3, 0.9):
            a, b = line(alpha), exact(alpha)
            assert (math.isclose(a.value, b.value, rel_tol=1e-11)
                    and math.isclose(a.d1, b.d1, rel_tol=1e-9, abs_tol=1e-12)), (
                f"objective {objective.spec!r}: the compressed line search differs at α={alpha}")


def check_objective_curvature(objective, rng):
    """With ``has_hessian``: value_gradient_hessian agrees with value_and_gradient, h is finite,
    ≥ HESSIAN_FLOOR, float64 of the scores' shape, and the gradient matches finite differences of
    J along random directions.  Without it: value_gradient_hessian raises NotImplementedError."""
    from ..objectives import HESSIAN_FLOOR

    y, w, bound = _bound(objective, rng, n=24, weights=objective.supports_sample_weight)
    if _without_value(objective, bound, rng, y.shape[0]):
        return
    spec = objective.spec
    has = bound.has_hessian
    assert isinstance(has, bool), f"objective {spec!r}: has_hessian must be a bool, got {has!r}"
    scores = rng.normal(size=y.shape[0])
    if not has:
        try:
            bound.value_gradient_hessian(scores)
        except NotImplementedError:
            return
        raise AssertionError(f"objective {spec!r}: has_hessian is False but value_gradient_hessian returned")
    for s in (np.zeros(y.shape[0]), scores, 30.0 * scores):
        s.setflags(write=False)
        value, grad, hess = bound.value_gradient_hessian(s)
        v2, g2 = bound.value_and_gradient(s)
        assert isinstance(value, float) and math.isclose(value, v2, rel_tol=1e-12, abs_tol=1e-12), (
            f"objective {spec!r}: value_gradient_hessian's value {value!r} != value_and_gradient's {v2!r}")
        np.testing.assert_allclose(grad, g2, rtol=1e-12, atol=1e-15,
                                   err_msg=f"objective {spec!r}: value_gradient_hessian's gradient differs")
        assert isinstance(hess, np.ndarray) and hess.dtype == np.float64 and hess.shape == s.shape, (
            f"objective {spec!r}: hessian must be float64 of shape {s.shape}")
        assert np.isfinite(hess).all(), f"objective {spec!r}: non-finite hessian"
        assert (hess >= HESSIAN_FLOOR).all(), (
            f"objective {spec!r}: hessian below the floor {HESSIAN_FLOOR}: min {hess.min()!r}")
    _, grad, _ = bound.value_gradient_hessian(scores)
    eps = 1e-6
    for _ in range(3):
        d = rng.normal(size=y.shape[0])
        fd = (bound.value(scores + eps * d) - bound.value(scores - eps * d)) / (2 * eps)
        assert math.isclose(float(grad @ d), fd, rel_tol=1e-5, abs_tol=1e-7 * max(1.0, np.abs(grad).sum())), (
            f"objective {spec!r}: ⟨∇J, d⟩ = {float(grad @ d)} but finite differences give {fd}")
    if bound.separable:
        from ..objectives import RowBlock

        weight = np.ones(y.shape[0]) if w is None else w
        cuts = [0, 7, 8, y.shape[0]]
        blocks = [RowBlock(y[a:b], weight[a:b], scores[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
        G = bound.reduce(blocks)
        parts = [bound.block_gradient_hessian(b, G) for b in blocks]
        _, grad, hess = bound.value_gradient_hessian(scores)
        np.testing.assert_allclose(np.concatenate([g for g, _ in parts]), grad, rtol=1e-11, atol=1e-15,
                                   err_msg=f"objective {spec!r}: blocked gradient (with hessian) differs")
        np.testing.assert_allclose(np.concatenate([h for _, h in parts]), hess, rtol=1e-10, atol=1e-15,
                                   err_msg=f"objective {spec!r}: blocked hessian differs")


check_objective_spec_round_trip = spec_round_trip_check("objective")


CHECKS = [
    check_objective_value_and_gradient_types,
    check_objective_gradient_finite_differences,
    check_objective_line_function,
    check_objective_sample_weight_multiplicity,
    check_objective_separable_blocks,
    check_objective_curvature,
    check_objective_spec_round_trip,
]
