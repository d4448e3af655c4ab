"""The exact line and the top-k value/gradient of the boosted precision@k surrogates.

References: the generic line (``BoundObjective.line``: the Cython kernel at
f + α·h, tie-averaged subgradient · h) and the sorting kernel
``surrogate_batch``; random data with ties (integer scores, integer steps),
every supported kind, k from 1 to n.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.objectives._base import BoundObjective
from rankcore.precision_at_k import _surrogates
from rankcore.precision_at_k.objectives import TopKLine, _BoundPrecAtK, top_k_value_and_gradient
from rankcore.push._line_search import line_search

KINDS = ["avg", "struct", "ramp", "max"]


@st.composite
def problems(draw):
    n = draw(st.integers(2, 40))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int8)
    if y.sum() in (0, n):
        y[0], y[-1] = 1, 0
    f = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.float64) / 2
    h = np.array(draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)), dtype=np.float64)
    kind = draw(st.sampled_from(KINDS))
    k = draw(st.integers(1, n))
    if kind == "struct":
        k = max(k, int(y.sum()))
    return kind, k, y, f, h


@settings(max_examples=200, deadline=None)
@given(problems(), st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.0, 1.5, -0.75]))
def test_exact_line_matches_the_generic_line(problem, alpha):
    kind, k, y, f, h = problem
    bound = rankcore.resolve("objective", f"prec@k-{kind}:{k}").bind(y)
    fast = bound.line(f, h)
    assert isinstance(fast, TopKLine)
    slow = BoundObjective.line(bound, f, h)(alpha)  # the kernel at f + αh, grad · h
    got = fast(alpha)
    assert got.value == pytest.approx(slow.value, abs=1e-12)
    assert got.d1 == pytest.approx(slow.d1, abs=1e-12)
    assert math.isnan(got.d2)


@settings(max_examples=200, deadline=None)
@given(problems())
def test_top_k_value_and_gradient_matches_the_kernel(problem):
    kind, k, y, f, _ = problem
    value, grad, k_used = top_k_value_and_gradient(kind, k, y, f)
    ref_value, ref_grad, ref_k, _, _ = _surrogates.surrogate_batch(f, y, k, _surrogates.KINDS[kind], True)
    assert k_used == ref_k
    assert value == pytest.approx(ref_value, abs=1e-12)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-12)


def test_exact_line_falls_back_for_many_valued_directions():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(np.int8)
    f, h = rng.standard_normal(300), rng.standard_normal(300)  # 300 distinct values of h
    assert not isinstance(rankcore.resolve("objective", "prec@k-avg:10").bind(y).line(f, h), TopKLine)
    h2 = np.sign(h)
    assert isinstance(rankcore.resolve("objective", "prec@k-max:10").bind(y).line(f, h2), TopKLine)
    assert isinstance(rankcore.resolve("objective", "prec@k-avg:10").bind(y).line(f, h2), TopKLine)


@pytest.mark.parametrize("kind", KINDS)
def test_line_search_on_the_exact_line_finds_the_same_step(kind):
    """Same minimizer within tolerance as the generic line, and φ never increases."""
    rng = np.random.default_rng(1)
    for trial in range(8):
        n = 400
        y = (rng.random(n) < 0.25).astype(np.int8)
        f = rng.standard_normal(n)
        h = np.where(rng.random(n) < 0.5, -1.0, 1.0) * (1 + (rng.random(n) < 0.3))  # a few values, as a stump/tree
        k = int(y.sum()) if kind == "struct" else int(rng.integers(1, 60))
        bound = rankcore.resolve("objective", f"prec@k-{kind}:{k}").bind(y)
        fast = line_search(bound.line(f, h), log_value=False)
        slow = line_search(BoundObjective.line(bound, f, h), log_value=False)
        phi0 = bound.value(f)
        assert bound.value(f + fast.alpha * h) <= phi0 + 1e-12
        assert fast.value == pytest.approx(slow.value, abs=1e-9)
        if kind != "ramp":  # convex: the minimum value is unique (the minimizer may be a segment)
            assert bound.value(f + fast.alpha * h) == pytest.approx(bound.value(f + slow.alpha * h), abs=1e-9)


def test_boosting_same_model_with_exact_and_generic_line():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((600, 5))
    y = (X[:, 0] + 0.5 * rng.standard_normal(600) > 0.8).astype(int)

    def fit():
        return rankcore.boost(objective="prec@k-avg:0.1", n_iter=15, random_state=0, n_jobs=1).fit(X, y)

    fast = fit()
    _BoundPrecAtK.exact_line = False
    try:
        slow = fit()
    finally:
        _BoundPrecAtK.exact_line = True
    a, b = fast.decision_function(X), slow.decision_function(X)
    auc = rankcore.resolve("metric", "auc")
    assert abs(auc(y, a) - auc(y, b)) < 0.02
    assert fast.n_iter_ > 5
    assert np.all(np.diff(fast.objective_values_) <= 1e-12)  # the objective never increases
    assert fast.objective_values_[-1] == pytest.approx(slow.objective_values_[-1], abs=0.02)


@settings(max_examples=200, deadline=None)
@given(problems())
def test_exact_minimize_never_worse_than_the_generic_search(problem):
    """TopKLine.minimize (breakpoints of a piecewise-linear φ) reaches φ <= line_search's, with fewer evaluations."""
    kind, k, y, f, h = problem
    bound = rankcore.resolve("objective", f"prec@k-{kind}:{k}").bind(y)
    line = bound.line(f, h)
    exact = line.minimize(1e4)
    generic = line_search(bound.line(f, h), log_value=False)
    phi0 = bound.value(f)
    assert exact.value <= phi0 + 1e-12
    assert (exact.alpha == 0.0) == (generic.alpha == 0.0) or exact.value <= generic.value + 1e-9
    assert exact.alpha * generic.alpha >= 0.0                        # same orientation
    assert abs(exact.alpha) <= 1e4
    assert bound.value(f + exact.alpha * h) == pytest.approx(exact.value, abs=1e-9)
    if kind != "ramp":  # convex: one minimum value
        assert exact.value <= generic.value + 1e-9
    if generic.reason == "plateau":
        assert exact.reason == "plateau" and exact.alpha == generic.alpha


# --------------------------------------------------------------------------
# The Cython candidate selection against a plain NumPy reference
# --------------------------------------------------------------------------


def _reference_candidates(y, f, h, count_pos, count_neg, lowest_pos, max_groups):
    """line_candidates in NumPy: groups of h in order of first appearance; per class and group the
    count highest (lowest) f and the ties of the count-th, by descending f."""
    if not np.all(np.isfinite(h)):
        return None
    values = []
    for v in h:
        if v not in values:
            values.append(v)
    if len(values) > max_groups:
        return None
    pos = y != 0
    out = []
    for cls, count, lowest in ((pos, count_pos, lowest_pos), (~pos, count_neg, False)):
        fs, hs, starts = [], [], [0]
        for v in values:
            g = f[cls & (h == v)]
            if count <= 0:
                g = g[:0]
            elif g.size > count:
                cut = np.sort(g)[count - 1] if lowest else np.sort(g)[g.size - count]
                g = g[g <= cut] if lowest else g[g >= cut]
            g = -np.sort(-g)
            fs.append(g)
            hs.append(np.full(g.size, v))
            starts.append(starts[-1] + g.size)
        out += [np.concatenate(fs), np.concatenate(hs), np.array(starts)]
    return (*out, float(np.sum(f[pos])), float(np.sum(h[pos])), int(pos.sum()), int((~pos).sum()))


@settings(max_examples=300, deadline=None)
@given(problems(), st.integers(1, 5), st.integers(1, 6), st.booleans())
def test_line_candidates_match_the_numpy_reference(problem, n_values, max_groups, lowest):
    from rankcore.precision_at_k._topk_line import line_candidates

    _, k, y, f, h = problem
    h = np.where(h > n_values - 3, float(n_values - 3), h)  # between 2 and 5 distinct values, ties in f
    got = line_candidates(y, f, h, k, max(k - 1, 0), lowest, max_groups)
    ref = _reference_candidates(y, f, h, k, max(k - 1, 0), lowest, max_groups)
    assert (got is None) == (ref is None)
    if ref is None:
        return
    for a, b in zip(got[:6], ref[:6]):
        np.testing.assert_array_equal(a, b)
    assert got[6] == pytest.approx(ref[6], abs=1e-12) and got[7] == pytest.approx(ref[7], abs=1e-12)
    assert got[8:] == ref[8:]


def test_line_candidates_reject_non_finite_directions_and_bad_arguments():
    from rankcore.precision_at_k._topk_line import line_candidates

    y = np.array([1, 0, 1, 0], dtype=np.int8)
    f = np.array([0.5, 0.1, -0.2, 0.3])
    assert line_candidates(y, f, np.array([1.0, np.nan, 1.0, 1.0]), 2, 2, False, 8) is None
    assert line_candidates(y, f, np.array([1.0, 2.0, 3.0, 4.0]), 2, 2, False, 3) is None
    with pytest.raises(ValueError, match="direction"):
        line_candidates(y, f, np.ones(3), 2, 2, False, 8)
    with pytest.raises(ValueError, match="max_groups"):
        line_candidates(y, f, np.ones(4), 2, 2, False, 0)


# --------------------------------------------------------------------------
# The line minimum against a brute-force enumeration
# --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(problems(), st.sampled_from([None, 1e-3, 0.1, 0.5, 1.0, 4.0]))
def test_line_minimum_against_brute_force(problem, first_step):
    """Convex kinds: the global minimum along the line from any first trial step.  ramp (not
    convex): the steps of piecewise_linear_search, unchanged, and never above φ(0)."""
    from rankcore.push._line_search import piecewise_linear_search
    from _precision_at_k_reference import brute_force_line_minimum

    kind, k, y, f, h = problem
    n = y.shape[0]
    if n > 14:
        y, f, h = y[:14], f[:14], h[:14]
        if y.sum() in (0, y.shape[0]):
            y[0], y[-1] = 1, 0
        k = min(k, 14)
        if kind == "struct":
            k = max(k, int(y.sum()))
    bound = rankcore.resolve("objective", f"prec@k-{kind}:{k}").bind(y)
    line = bound.line(f, h)
    line.step_memory[0] = first_step
    got = line.minimize(1e4)
    brute = brute_force_line_minimum(y, f, h, bound.k, kind) / bound.k
    assert got.value == pytest.approx(bound.value(f + got.alpha * h), abs=1e-9)
    assert got.value <= bound.value(f) + 1e-12
    if kind in TopKLine.CONVEX_KINDS:
        assert got.value == pytest.approx(brute, abs=1e-9)
        if got.alpha != 0.0:
            assert line.step_memory[0] == abs(got.alpha)  # the next line's first trial step
    else:
        assert got.value >= brute - 1e-9
        assert got == piecewise_linear_search(bound.line(f, h), max_step=1e4)


@settings(max_examples=200, deadline=None)
@given(problems(), st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.0, 1.5, -0.75, 3.0]), st.booleans())
def test_exact_line_along_a_stump_matches_the_generic_line(problem, alpha, low_first):
    """Two values of h (a stump): the two-way merge, both orders of the groups, ties across groups."""
    kind, k, y, f, h = problem
    h = np.where(h > 0, 1.0, -0.5) if low_first else np.where(h > 0, -0.5, 1.0)
    bound = rankcore.resolve("objective", f"prec@k-{kind}:{k}").bind(y)
    fast = bound.line(f, h)
    slow = BoundObjective.line(bound, f, h)(alpha)
    got = fast(alpha)
    assert got.value == pytest.approx(slow.value, abs=1e-12)
    assert got.d1 == pytest.approx(slow.d1, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(problems(), st.sampled_from([0.0, 0.5, -1.0, 1.5]))
def test_line_kernel_and_top_k_gradient_match_the_numpy_reference(problem, alpha):
    """LineKernel's value and top_k_value_and_gradient against the plain NumPy Δ-decomposition."""
    from _precision_at_k_reference import reference_surrogate

    kind, k, y, f, h = problem
    g = f + alpha * h
    ref_value, ref_grad, ref_k, _ = reference_surrogate(y, g, k, kind)
    value, grad, k_used = top_k_value_and_gradient(kind, k, y, g)
    assert k_used == ref_k
    assert value == pytest.approx(ref_value, abs=1e-12)
    np.testing.assert_allclose(grad, ref_grad, atol=1e-12)
    line = TopKLine.build(kind, k, y, f, h)
    assert line.point(alpha)[0] == pytest.approx(ref_value, abs=1e-12)
