"""The split scan of one-edge (binary, one-hot) features against a plain reference of the same arithmetic."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _tree_references import first_within_tolerance
from rankcore.learners.trees import _split
from rankcore.learners.trees._block import slot_layout
from rankcore.learners.trees._ranker import TIE_TOLERANCE


def _binary_reference(hist, mask, msl, mcw, l2):
    """best_split of binary features: (gain, feature, bin, nan_left, left, right) or None.

    Every feature has the slots bin 0, bin 1, NaN.  Candidates in the kernel's
    order (bin 0 NaN left, bin 0 NaN right, bin 1 NaN right), sums and gains
    in its order of operations, so the gains agree bit for bit.
    """
    cands, scale = [], 0.0
    for j in range(hist.shape[0] // 3):
        s0, s1, sn = hist[3 * j], hist[3 * j + 1], hist[3 * j + 2]
        one = bool(np.any(s1 != 0))
        g0, h0, c0 = 0.0 + s0[0], 0.0 + s0[1], 0.0 + s0[2]
        cg, ch, cc = (g0 + s1[0], h0 + s1[1], c0 + s1[2]) if one else (g0, h0, c0)
        tg, th, tc = cg + sn[0], ch + sn[1], cc + sn[2]
        parent = tg * tg / (th + l2) if th + l2 > 0 else 0.0
        scale = max(scale, parent)
        if not mask[j]:
            continue
        has_nan = sn[2] > 0
        options = []
        for nan_left in (True, False):
            if not has_nan and nan_left != (c0 >= tc - c0):
                continue
            options.append((0, nan_left, (g0 + sn[0], h0 + sn[1], c0 + sn[2]) if nan_left else (g0, h0, c0)))
        if has_nan and one:
            options.append((1, False, (cg, ch, cc)))
        for b, nan_left, (lg, lh, lc) in options:
            rg, rh, rc = tg - lg, th - lh, tc - lc
            if lc < msl or rc < msl or lh < mcw or rh < mcw or lh + l2 <= 0 or rh + l2 <= 0:
                continue
            gain = lg * lg / (lh + l2) + rg * rg / (rh + l2) - parent
            cands.append((gain, j, b, nan_left, (lg, lh, lc), (rg, rh, rc)))
    return first_within_tolerance(cands, scale, TIE_TOLERANCE)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 7), st.sampled_from([(1.0, 0.0, 0.0), (3.0, 0.5, 1.0), (1.0, 0.0, 2.5)]),
       st.integers(1, 2))
def test_binary_scan_matches_the_reference_bitwise(seed, d, params, n_threads):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 12, size=(d, 3)).astype(float)
    c[rng.random((d, 3)) < 0.3] = 0.0                   # empty bins: bin 1, NaN, or bin 0
    g = np.round(rng.normal(size=(d, 3)) * c, 1)        # ties of gains within and across features
    h = np.round(rng.uniform(0.2, 1.0, size=(d, 3)) * c, 2)
    hist = np.stack([g, h, c], axis=-1).reshape(3 * d, 3)
    if d > 1 and rng.random() < 0.5:
        hist[3:6] = hist[0:3]                           # feature 1 ties feature 0 exactly
    mask = (rng.random(d) < 0.8).astype(np.uint8)
    msl, mcw, l2 = params
    out = np.empty(10)
    found = _split.best_split(hist, slot_layout(np.ones(d, dtype=np.intp)), mask, msl, mcw, l2,
                                     TIE_TOLERANCE, out, n_threads)
    ref = _binary_reference(hist, mask, msl, mcw, l2)
    assert found == (ref is not None)
    if ref is not None:
        gain, j, b, nan_left, left, right = ref
        assert (out[0], int(out[1]), int(out[2]), bool(out[3])) == (gain, j, b, nan_left)
        assert tuple(out[4:7]) == left and tuple(out[7:10]) == right


def test_binary_scan_takes_every_value_left_only_with_nan_right():
    """A node where bin 1 holds rows and NaN decides: bin 1 (all values left, NaN right) can win."""
    slots = slot_layout(np.ones(1, dtype=np.intp))
    hist = np.array([[1.0, 1.0, 10.0], [1.0, 1.0, 10.0], [-20.0, 5.0, 10.0]])    # NaN rows carry the signal
    out = np.empty(10)
    assert _split.best_split(hist, slots, np.ones(1, np.uint8), 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 1)
    assert (int(out[2]), bool(out[3])) == (1, False)
    assert tuple(out[4:7]) == (2.0, 2.0, 20.0)
    hist[1] = 0.0                                       # bin 1 empty: bin 0 with NaN right is the same split
    assert _split.best_split(hist, slots, np.ones(1, np.uint8), 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 1)
    assert (int(out[2]), bool(out[3])) == (0, False)


def test_binary_scan_without_nan_sends_nan_to_the_larger_side_left_at_a_tie():
    """No NaN at the node: one direction only, NaN left when the left side holds at least half the rows."""
    slots = slot_layout(np.ones(1, dtype=np.intp))
    out = np.empty(10)
    for c1, nan_left in ((5.0, True), (6.0, False), (4.0, True)):
        hist = np.array([[3.0, 1.0, 5.0], [-2.0, 1.0, c1], [0.0, 0.0, 0.0]])
        assert _split.best_split(hist, slots, np.ones(1, np.uint8), 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 1)
        assert (int(out[2]), bool(out[3])) == (0, nan_left)
        assert out[0] == _binary_reference(hist, np.ones(1), 1.0, 0.0, 0.0)[0]
