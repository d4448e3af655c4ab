"""The grouped line summaries of the exponential push (``group_abs_sums``, ``lse_by_value``) against NumPy.

Their rows are grouped by the value of the direction h among the declared ``values``: by a hash table from
9 values on, by a binary search below.  Both must find the same positions, count the same unknown values
(NaN, values not declared) and treat −0.0 as 0.0.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rankcore.objectives import _exp_kernels


def _reference(y, g, w, f, h, values, pos_coef, neg_coef):
    """Σ|g| and the log-sum-exp of the weights per (value, class), and the rows whose h is not a value."""
    V = values.shape[0]
    sums = np.zeros((V, 2))
    lse = np.full((V, 2), -np.inf)
    bad_sums = bad_lse = 0
    for r in range(y.shape[0]):
        hits = np.flatnonzero(values == h[r])
        if w[r] > 0 and hits.size == 0:
            bad_lse += 1
        if hits.size == 0:
            bad_sums += 1
            continue
        v = hits[-1]
        side = 0 if y[r] != 0 else 1
        sums[v, side] += abs(g[r])
        if w[r] > 0:
            e = np.log(w[r]) + (pos_coef if side == 0 else neg_coef) * f[r]
            lse[v, side] = np.logaddexp(lse[v, side], e)
    return sums, lse, bad_sums, bad_lse


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 300), V=st.integers(1, 80), seed=st.integers(0, 2**31 - 1),
       n_threads=st.sampled_from([1, 2]))
def test_grouped_sums_match_numpy(n, V, seed, n_threads):
    rng = np.random.default_rng(seed)
    values = np.unique(np.round(rng.normal(size=V), 2))          # ascending, distinct, ties in h
    if rng.random() < 0.5:
        values = np.unique(np.append(values, 0.0))
    V = values.shape[0]
    h = values[rng.integers(0, V, n)] if n else np.empty(0)
    odd = rng.random(n) < 0.1                                     # values not declared
    h[odd] = rng.choice([np.nan, 1e9, -1e9, 0.123456789], size=int(odd.sum()))
    zero = h == 0.0
    h[zero & (rng.random(n) < 0.5)] = -0.0                        # −0.0 is the value 0.0
    y = (rng.random(n) < 0.3).astype(np.int8)
    g = rng.normal(size=n)
    w = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.5, 2.0, n))
    f = rng.normal(size=n)
    ref_sums, ref_lse, ref_bad_sums, ref_bad_lse = _reference(y, g, w, f, h, values, -1.0, 2.0)
    sums = np.empty((V, 2))
    lse = np.empty((V, 2))
    assert _exp_kernels.group_abs_sums(y, g, h, values, sums, n_threads) == ref_bad_sums
    assert _exp_kernels.lse_by_value(y, w, f, h, values, -1.0, 2.0, lse, n_threads) == ref_bad_lse
    np.testing.assert_allclose(sums, ref_sums, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lse, ref_lse, rtol=1e-12)


@pytest.mark.parametrize("V", [2, 8, 9, 63, 255])
def test_every_declared_value_is_found(V):
    """Each value maps to its own position, whatever the table's size (the binary search below 9 values)."""
    values = np.sort(np.random.default_rng(V).normal(size=V))
    h = np.concatenate([values, values[::-1]])
    y = np.zeros(h.shape[0], dtype=np.int8)
    g = np.concatenate([np.arange(V), np.arange(V)[::-1]]).astype(float) + 1.0
    sums = np.empty((V, 2))
    assert _exp_kernels.group_abs_sums(y, g, h, values, sums, 1) == 0
    np.testing.assert_array_equal(sums[:, 1], 2.0 * (np.arange(V) + 1.0))
    np.testing.assert_array_equal(sums[:, 0], 0.0)
