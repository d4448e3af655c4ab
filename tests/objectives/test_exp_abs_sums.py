"""group_abs_sums (the line-search summary from a gradient): every way of finding a row's value, one reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.objectives import _exp_kernels

LEVELS = range(_exp_kernels.simd_level() + 1)
CHUNK = 16384


def _reference(y, g, h, values):
    """Σ|g| per (value, class) summed row by row within chunks of 16,384 rows, then chunk by chunk; bad rows."""
    V = len(values)
    index = {float(v): i for i, v in enumerate(values)}
    total = [[0.0, 0.0] for _ in range(V)]
    bad = 0
    for c0 in range(0, len(g), CHUNK):
        part = [[0.0, 0.0] for _ in range(V)]
        for r in range(c0, min(c0 + CHUNK, len(g))):
            v = index.get(float(h[r])) if not np.isnan(h[r]) else None
            if v is None:
                bad += 1
                continue
            a = g[r] if g[r] >= 0 else -g[r]
            part[v][0 if y[r] != 0 else 1] += float(a)
        for v in range(V):
            for k in range(2):
                total[v][k] = total[v][k] + part[v][k]
    return np.array(total).reshape(V, 2), bad


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), V=st.sampled_from([0, 1, 2, 3, 5, 8, 9, 16, 31, 32, 33, 40, 63, 200]),
       n=st.sampled_from([0, 1, 7, 500, 17000]), bad_share=st.sampled_from([0.0, 0.05]))
def test_group_abs_sums_match_reference_at_every_level(seed, V, n, bad_share):
    rng = np.random.default_rng(seed)
    values = np.unique(np.round(rng.normal(size=V), 3))
    if values.size and rng.random() < 0.3:
        values[np.argmin(np.abs(values))] = 0.0           # a leaf value of 0: -0.0 rows match it
    h = values[rng.integers(0, values.size, n)] if values.size else np.zeros(n)
    if n:
        h[rng.random(n) < 0.1] *= -1.0 if values.size and 0.0 in values else 1.0
        wrong = rng.random(n) < bad_share
        h[wrong] = np.where(rng.random(int(wrong.sum())) < 0.5, np.nan, 1e9)
    g = rng.normal(size=n)
    g[rng.random(n) < 0.05] = -0.0
    y = (rng.random(n) < 0.3).astype(np.int8)
    ref, ref_bad = _reference(y, g, h, values)
    # the tree's route: each row's position in values given (255, out of range, for a row of no value)
    position = {float(v): i for i, v in enumerate(values)}
    index = np.array([position.get(float(v), 255) if not np.isnan(v) else 255 for v in h], dtype=np.uint8)
    before = _exp_kernels.simd_level()
    try:
        for level in LEVELS:
            _exp_kernels.simd_level(level)
            for n_threads in (1, 2):
                out = np.full((values.size, 2), np.nan)
                bad = _exp_kernels.group_abs_sums(y, g, h, values, out, n_threads)
                assert bad == ref_bad
                np.testing.assert_array_equal(out, ref)
                out = np.full((values.size, 2), np.nan)
                bad = _exp_kernels.group_abs_sums(y, g, np.full(n, np.nan), values, out, n_threads, index)
                assert bad == ref_bad                    # h is not read on this route
                np.testing.assert_array_equal(out, ref)
    finally:
        _exp_kernels.simd_level(before)


def test_group_abs_sums_with_repeated_values_keeps_the_search():
    """Values not strictly ascending (a repeat): the binary search's answer, at every level."""
    values = np.array([-1.0, 0.5, 0.5, 2.0])
    h = np.array([0.5, -1.0, 2.0, 0.5, 3.0])
    g = np.array([1.0, -2.0, 3.0, -4.0, 5.0])
    y = np.array([1, 0, 1, 0, 1], dtype=np.int8)
    outs = []
    before = _exp_kernels.simd_level()
    try:
        for level in LEVELS:
            _exp_kernels.simd_level(level)
            out = np.empty((4, 2))
            outs.append((_exp_kernels.group_abs_sums(y, g, h, values, out, 1), out))
    finally:
        _exp_kernels.simd_level(before)
    for bad, out in outs:
        assert bad == 1
        np.testing.assert_array_equal(out, outs[0][1])
    assert outs[0][1].sum() == 10.0


def test_group_abs_sums_refuses_a_value_index_of_the_wrong_length():
    with pytest.raises(ValueError, match="value_index must have one entry per row"):
        _exp_kernels.group_abs_sums(np.zeros(3, dtype=np.int8), np.ones(3), np.zeros(3), np.zeros(1),
                                    np.empty((1, 2)), 1, np.zeros(2, dtype=np.uint8))


def test_exp_simd_level_validation():
    with pytest.raises(ValueError, match="level"):
        _exp_kernels.simd_level(3)
