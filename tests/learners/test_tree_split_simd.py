"""The split scan's vector gains: every width (2, AVX2 4, AVX-512 8 doubles) gives the scalar arithmetic's result."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _tree_references import numeric_split_gains
from rankcore.learners.trees import _split
from rankcore.learners.trees._block import slot_layout
from rankcore.learners.trees._ranker import TIE_TOLERANCE

LEVELS = range(_split.simd_level() + 1)


def _feature_best_reference(fh, msl, mcw, l2):
    """(best gain or −1, parent term) of one numeric feature's slots (bins, then NaN), candidate by candidate.

    Python floats in the kernel's order of operations: the gains agree bit for bit.
    """
    nb = fh.shape[0] - 2
    cg = ch = cc = 0.0
    cums = []
    for b in range(nb + 1):
        if b == 0 or np.any(fh[b] != 0):          # an all-zero slot repeats the previous candidates
            cg, ch, cc = cg + float(fh[b, 0]), ch + float(fh[b, 1]), cc + float(fh[b, 2])
            cums.append((b, cg, ch, cc))
    ng, nh, nc = (float(v) for v in fh[nb + 1])
    tg, th, tc = cg + ng, ch + nh, cc + nc
    parent = tg * tg / (th + l2) if th + l2 > 0 else 0.0
    gains = [gain for gain, _, _ in numeric_split_gains(cums, (ng, nh, nc), (tg, th, tc), nb, parent, msl, mcw, l2)]
    return max([-1.0, *gains]), parent


def _random_histogram(rng, n_edges, n_rows, nan_share, residue):
    """Row sums per slot of random codes; optionally rounding residues in empty slots (subtracted histograms)."""
    slots = slot_layout(n_edges)
    hist = np.zeros((slots.n_slots, 3))
    g = np.round(rng.normal(size=n_rows), 2)                  # rounded: exact ties between features
    h = rng.uniform(0.1, 1.0, n_rows)
    for j, nb in enumerate(n_edges):
        codes = rng.integers(0, nb + 1, n_rows) if rng.random() < 0.5 else rng.binomial(nb, 0.2, n_rows)
        codes[rng.random(n_rows) < nan_share] = nb + 1
        np.add.at(hist, slots.base[j] + codes, np.column_stack([g, h, np.ones(n_rows)]))
    if residue:
        empty = np.flatnonzero(hist[:, 2] == 0)
        picked = empty[rng.random(empty.size) < 0.3]
        hist[picked, 0] = rng.normal(size=picked.size) * 1e-16
        hist[picked, 1] = rng.normal(size=picked.size) * 1e-17
    return slots, hist


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), nan_share=st.sampled_from([0.0, 0.05, 0.5]), residue=st.booleans(),
       n_rows=st.sampled_from([3, 40, 500]), params=st.sampled_from([(1.0, 0.0, 0.0), (5.0, 0.5, 1.0),
                                                                   (20.0, 1e-3, 0.0), (1.0, 0.0, -0.05)]))
def test_feature_gains_match_reference_at_every_width(seed, nan_share, residue, n_rows, params):
    """Per-feature best gains: every width equals the reference bit for bit (vector bodies and scalar tails)."""
    rng = np.random.default_rng(seed)
    d = 9
    n_edges = rng.choice([2, 3, 6, 7, 8, 9, 14, 15, 16, 23, 31, 100, 254], size=d).astype(np.intp)
    slots, hist = _random_histogram(rng, n_edges, n_rows, nan_share, residue)
    mask = np.ones(d, np.uint8)
    mask[rng.integers(d)] = 0
    msl, mcw, l2 = params
    ref = np.array([_feature_best_reference(hist[slots.base[j]:slots.base[j] + n_edges[j] + 2], msl, mcw, l2)
                    for j in range(d)]).T
    ref[0, mask == 0] = -1.0
    before = _split.simd_level()
    try:
        for level in LEVELS:
            _split.simd_level(level)
            got = _split.feature_gains(hist, slots, mask, msl, mcw, l2)
            np.testing.assert_array_equal(got, ref)
    finally:
        _split.simd_level(before)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), nan_share=st.sampled_from([0.0, 0.1]), n_rows=st.sampled_from([30, 400]))
def test_sibling_subtraction_in_the_scan_at_every_width(seed, nan_share, n_rows):
    """hist − subtract (bitwise NumPy's), then the same gains as the reference on the difference, at every width.

    The parent's and a child's histograms, summed in different orders, leave rounding residues in the
    other child's empty slots; binary and masked features keep their own subtraction loop.
    """
    rng = np.random.default_rng(seed)
    d = 10
    n_edges = rng.choice([1, 2, 5, 8, 13, 16, 17, 30, 254], size=d).astype(np.intp)
    slots, parent = _random_histogram(rng, n_edges, n_rows, nan_share, True)
    _, child = _random_histogram(rng, n_edges, max(2, n_rows // 3), nan_share, False)
    mask = (rng.random(d) < 0.8).astype(np.uint8)
    before = _split.simd_level()
    results = []
    try:
        for level in LEVELS:
            _split.simd_level(level)
            hist = parent.copy()
            got = _split.feature_gains(hist, slots, mask, 2.0, 0.0, 0.5, subtract=child)
            results.append((hist, got))
    finally:
        _split.simd_level(before)
    expected = parent - child
    for j in range(d):
        fh = expected[slots.base[j]:slots.base[j] + n_edges[j] + 2]
        if mask[j] and n_edges[j] > 1:
            ref = _feature_best_reference(fh, 2.0, 0.0, 0.5)
            for hist, got in results:
                assert (got[0, j], got[1, j]) == ref
    for hist, got in results:
        np.testing.assert_array_equal(hist, expected)
        np.testing.assert_array_equal(got, results[0][1])


@pytest.mark.parametrize("n_edges", [8, 9, 15, 16, 17])
def test_nan_residue_follows_the_side_with_more_rows(n_edges):
    """No NaN rows but a residue in the NaN slot: the candidate with as many rows on each side takes it (NaN left)."""
    slots = slot_layout(np.array([n_edges], dtype=np.intp))
    hist = np.zeros((slots.n_slots, 3))
    hist[:n_edges + 1, 2] = 2.0
    hist[:n_edges + 1, 1] = 1.0
    hist[:n_edges + 1, 0] = np.where(np.arange(n_edges + 1) < (n_edges + 1) // 2, -1.0, 1.0)
    hist[n_edges + 1, 0] = 0.25                   # a rounding residue, large enough to change the gain
    ref = _feature_best_reference(hist, 1.0, 0.0, 0.0)
    before = _split.simd_level()
    try:
        for level in LEVELS:
            _split.simd_level(level)
            got = _split.feature_gains(hist, slots, np.ones(1, np.uint8), 1.0, 0.0, 0.0)
            assert (got[0, 0], got[1, 0]) == ref
    finally:
        _split.simd_level(before)


@pytest.mark.parametrize("seed", range(6))
def test_best_split_same_at_every_width(seed):
    """The chosen split (feature, bin, NaN side, sums, gain) does not depend on the vector width."""
    rng = np.random.default_rng(seed)
    n_edges = rng.choice([1, 5, 13, 64, 254], size=30).astype(np.intp)
    slots, hist = _random_histogram(rng, n_edges, 800, [0.0, 0.1][seed % 2], seed % 3 == 0)
    mask = np.ones(n_edges.size, np.uint8)
    before = _split.simd_level()
    outs = []
    try:
        for level in LEVELS:
            _split.simd_level(level)
            out = np.zeros(10)
            found = _split.best_split(hist, slots, mask, 5.0, 1e-3, 0.5, TIE_TOLERANCE, out, 1)
            outs.append((found, out))
    finally:
        _split.simd_level(before)
    assert outs[0][0]
    for found, out in outs[1:]:
        assert found == outs[0][0]
        np.testing.assert_array_equal(out, outs[0][1])


def test_simd_level_validation():
    with pytest.raises(ValueError, match="level"):
        _split.simd_level(3)
    with pytest.raises(ValueError, match="level"):
        _split.simd_level(-1)
    assert _split.simd_level() == _split.simd_level(_split.simd_level())


@pytest.mark.parametrize("level", [-1, 3, 1.0, "1", True, None])
def test_checked_level_refuses_what_is_not_a_supported_level(level):
    from rankcore._simd import checked_level

    with pytest.raises(ValueError, match="supports levels 0 to 2"):
        checked_level(level, 2)
    assert checked_level(2, 2) == 2 and checked_level(0, 0) == 0
