"""The precision@k surrogates (docs/theory/precision_at_k.md): values, subgradients, hierarchy, ties, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _precision_at_k_reference import (
    brute_force_surrogate,
    prec_at_k_loss_counts,
    reference_surrogate,
)
from rankcore.precision_at_k import SURROGATES, surrogate, surrogate_and_grad
from rankcore.precision_at_k import _surrogates

KINDS = list(SURROGATES)
CONVEX = ["struct", "max", "avg"]


def fast_surrogate(y, s, k, kind):
    value, grad, k_used, d_star, _ = _surrogates.surrogate_batch(
        np.ascontiguousarray(s, dtype=np.float64), np.ascontiguousarray(y, dtype=np.int8), k,
        _surrogates.KINDS[kind], True)
    return value, grad, k_used, d_star


IMPLEMENTATIONS = {"reference": reference_surrogate, "fast": fast_surrogate}


@st.composite
def batches(draw, max_n=8, tie_levels=True):
    """Small labelled score vectors with both classes and (often) ties; k in [1, n₊]."""
    n = draw(st.integers(2, max_n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda v: 0 < sum(v) < len(v)))
    if tie_levels and draw(st.booleans()):
        s = draw(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.5]), min_size=n, max_size=n))
    else:
        s = draw(st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=n, max_size=n))
    k = draw(st.integers(1, sum(y)))
    return np.array(y, dtype=np.int8), np.array(s, dtype=np.float64), k


# ---------------------------------------------------------------------------
# values against brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("impl", list(IMPLEMENTATIONS), ids=str)
@pytest.mark.parametrize("kind", KINDS)
@given(data=batches())
def test_surrogate_value_equals_brute_force(impl, kind, data):
    y, s, k = data
    value = IMPLEMENTATIONS[impl](y, s, k, kind)[0]
    assert value == pytest.approx(brute_force_surrogate(y, s, k, kind), abs=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_surrogate_brute_force_on_random_ties(kind):
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        y = rng.integers(0, 2, n).astype(np.int8)
        if y.sum() in (0, n):
            continue
        s = rng.integers(-2, 3, n) / 2.0  # many ties
        for k in range(1, int(y.sum()) + 1):
            assert fast_surrogate(y, s, k, kind)[0] == pytest.approx(brute_force_surrogate(y, s, k, kind), abs=1e-9)


@given(data=batches())
def test_surrogate_hierarchy_loss_ramp_avg_max(data):
    y, s, k = data
    loss = prec_at_k_loss_counts(y, s, k)
    ramp, avg, mx = (fast_surrogate(y, s, k, kind)[0] for kind in ("ramp", "avg", "max"))
    assert loss <= ramp + 1e-9
    assert ramp <= avg + 1e-9
    assert avg <= mx + 1e-9


@given(data=batches())
def test_surrogate_avg_equals_struct_at_k_npos(data):
    y, s, _ = data
    k = int(y.sum())
    assert fast_surrogate(y, s, k, "avg")[0] == pytest.approx(fast_surrogate(y, s, k, "struct")[0], abs=1e-9)


def test_surrogate_struct_is_not_an_upper_bound():
    # k < n₊: a labelling can hide the high negative behind low-scored positives
    # (k = 1 < n₊ = 3): the top place is a negative, so the loss is 1, yet
    # struct = max(P_1 − P_3, 1 + N_1 − P_3) = max(9 − 27, 11 − 27) = −16
    y = np.array([1, 1, 1, 0], dtype=np.int8)
    s = np.array([9.0, 9.0, 9.0, 10.0])
    assert prec_at_k_loss_counts(y, s, 1) == 1.0
    assert fast_surrogate(y, s, 1, "struct")[0] == pytest.approx(-16.0)
    assert brute_force_surrogate(y, s, 1, "struct") == pytest.approx(-16.0)
    assert fast_surrogate(y, s, 1, "avg")[0] >= 1.0  # avg does bound it


# ---------------------------------------------------------------------------
# subgradients
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("impl", list(IMPLEMENTATIONS), ids=str)
@pytest.mark.parametrize("kind", CONVEX)
@given(data=batches(), seed=st.integers(0, 2**16))
def test_surrogate_subgradient_inequality(impl, kind, data, seed):
    y, s, k = data
    value, grad, _, _ = IMPLEMENTATIONS[impl](y, s, k, kind)
    rng = np.random.default_rng(seed)
    for scale in (0.01, 0.3, 3.0):
        other = s + scale * rng.standard_normal(s.shape)
        other_value = brute_force_surrogate(y, other, k, kind)
        assert other_value >= value + grad @ (other - s) - 1e-9


@pytest.mark.parametrize("kind", KINDS)
def test_surrogate_gradient_matches_finite_differences_without_ties(kind):
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(100):
        n = int(rng.integers(3, 12))
        y = rng.integers(0, 2, n).astype(np.int8)
        if y.sum() in (0, n):
            continue
        s = rng.standard_normal(n)
        k = int(rng.integers(1, y.sum() + 1))
        value, grad, _, _ = fast_surrogate(y, s, k, kind)
        # skip points where two Δ pieces are nearly tied (a kink)
        terms = sorted(reference_surrogate(y, s + 1e-6 * rng.standard_normal(n), k, kind)[0] for _ in range(2))
        if abs(terms[1] - terms[0]) > 1e-4:
            continue
        h = 1e-7
        numeric = np.array([(fast_surrogate(y, s + h * e, k, kind)[0]
                             - fast_surrogate(y, s - h * e, k, kind)[0]) / (2 * h)
                            for e in np.eye(n)])
        np.testing.assert_allclose(grad, numeric, atol=1e-5)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("kind", KINDS)
@given(data=batches())
def test_surrogate_fast_gradient_equals_reference(kind, data):
    y, s, k = data
    ref_value, ref_grad, ref_k, ref_d = reference_surrogate(y, s, k, kind)
    value, grad, k_used, d_star = fast_surrogate(y, s, k, kind)
    assert value == pytest.approx(ref_value, abs=1e-9)
    assert k_used == ref_k
    if d_star == ref_d:  # the same maximizing piece (rounding can pick another one at a tie)
        np.testing.assert_allclose(grad, ref_grad, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
@given(data=batches(), seed=st.integers(0, 2**16))
def test_surrogate_gradient_is_permutation_equivariant(kind, data, seed):
    # ties are never broken by array position
    y, s, k = data
    perm = np.random.default_rng(seed).permutation(len(y))
    _, grad, _, _ = fast_surrogate(y, s, k, kind)
    _, grad_perm, _, _ = fast_surrogate(y[perm], s[perm], k, kind)
    np.testing.assert_allclose(grad_perm, grad[perm], atol=1e-12)


def test_surrogate_at_zero_scores_is_one_per_slot():
    y = np.array([1, 0, 1, 0, 0, 1, 0, 0], dtype=np.int8)
    s = np.zeros(8)
    for kind in ("ramp", "max", "avg"):
        assert surrogate(y, s, 2, kind) == pytest.approx(1.0)
    value, grad = surrogate_and_grad(y, s, 2, "avg")
    # tie-averaged: every negative gets Δ*/(k·n₋), every positive −Δ*/(k·n₊)
    np.testing.assert_allclose(grad[y == 0], 2 / (2 * 5))
    np.testing.assert_allclose(grad[y == 1], -2 / (2 * 3))


# ---------------------------------------------------------------------------
# public wrapper: normalization, k, errors
# ---------------------------------------------------------------------------


def test_surrogate_normalized_by_k_and_fraction_k():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40).astype(np.int8)
    s = rng.standard_normal(40)
    raw, raw_grad = surrogate_and_grad(y, s, 4, "avg", normalize=False)
    val, g = surrogate_and_grad(y, s, 4, "avg")
    assert val == pytest.approx(raw / 4)
    np.testing.assert_allclose(g, raw_grad / 4)
    assert surrogate(y, s, 0.1, "max") == surrogate(y, s, 4, "max")  # 0.1 · 40 = 4


def test_surrogate_accepts_lists_and_bool_labels():
    assert surrogate([True, False, True], [0.2, 0.9, 0.1], 1, "max") == pytest.approx(
        surrogate(np.array([1, 0, 1]), np.array([0.2, 0.9, 0.1]), 1, "max"))


@pytest.mark.parametrize(
    "y, s, k, kind, error, match",
    [
        ([1, 0, 1], [0.1, 0.2, 0.3], 3, "avg", ValueError, r"k <= the number of positives \(2\)"),
        ([1, 0, 1], [0.1, 0.2, 0.3], 0, "avg", ValueError, "k: expected a count"),
        ([1, 0, 1], [0.1, 0.2, 0.3], 1.5, "avg", ValueError, "whole count"),
        ([1, 0, 1], [0.1, 0.2, 0.3], 1, "hinge", ValueError, "kind: expected one of"),
        ([1, 1, 1], [0.1, 0.2, 0.3], 1, "avg", ValueError, "both classes"),
        ([1, 0, 2], [0.1, 0.2, 0.3], 1, "avg", ValueError, "binary labels"),
        ([1, 0, 1], [0.1, np.nan, 0.3], 1, "avg", ValueError, "NaN"),
        ([1, 0, 1], [0.1, 0.3], 1, "avg", ValueError, "inconsistent lengths"),
        ([1, 0, 1], "abc", 1, "avg", TypeError, "string"),
        ([1, 0, 1], [0.1, 0.2, 0.3], "2", "avg", TypeError, "k: expected an integer count"),
    ],
)
def test_surrogate_bad_input(y, s, k, kind, error, match):
    with pytest.raises(error, match=match):
        surrogate(y, s, k, kind)


def test_surrogate_kernel_rejects_empty_batch():
    with pytest.raises(ValueError, match="non-empty"):
        _surrogates.surrogate_batch(np.zeros(0), np.zeros(0, dtype=np.int8), 1, 0, True)


def test_surrogate_large_batch_is_finite_and_bounded():
    rng = np.random.default_rng(3)
    y = (rng.random(200_000) < 0.01).astype(np.int8)
    s = rng.standard_normal(200_000) * 1e6
    for kind in KINDS:
        value, grad = surrogate_and_grad(y, s, 0.005, kind)
        assert np.isfinite(value) and np.isfinite(grad).all()
        # each negative's coefficient is in [0, 1/k]; the positive mass balances it for avg
        k = 1000
        assert grad.max() <= 1 / k + 1e-15
    value, grad = surrogate_and_grad(y, s, 0.005, "avg")
    assert grad.sum() == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("normalize", ["no", 0, 1, None, np.array([True])])
def test_normalize_must_be_a_flag(normalize):
    # any truthy value used to be taken: normalize="no" divided by k, silently
    y = np.array([1, 0, 1, 0, 0])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    for call in (surrogate, surrogate_and_grad):
        with pytest.raises(TypeError, match="normalize: expected True or False"):
            call(y, s, 1, "avg", normalize=normalize)
    assert surrogate(y, s, 1, "avg", normalize=np.bool_(False)) == surrogate(y, s, 1, "avg", normalize=False)
