"""The Dask backend's per-class histogram kernel against its NumPy reference (no cluster needed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

# rankcore.dask (the package holding the kernel) imports only with the [dask] extra installed
pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from rankcore.dask._kernels import class_histograms  # noqa: E402


def reference_class_histograms(codes, g, n_neg, hist):
    """hist[j, c, class] += Σ g over rows with code c of feature j and that class (plain NumPy)."""
    d, n = codes.shape
    B = hist.shape[1]
    for j in range(d):
        for cls, rows in ((0, slice(0, n_neg)), (1, slice(n_neg, n))):
            hist[j, :, cls] += np.bincount(codes[j, rows].astype(np.intp), weights=g[rows], minlength=B)[:B]


def fast_class_histograms(codes, g, n_neg, hist, n_threads=1):
    class_histograms(codes, g, n_neg, hist, n_threads)


def _case(seed, n, d, B, dtype):
    """Codes, gradient and the negatives' row count (rows sorted negatives first, as the backend stores them)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, B, size=(d, n)).astype(dtype)
    codes[:, : n // 3] = codes[:, :1]                   # runs of equal codes (the interleaved path)
    n_neg = int(rng.integers(0, n + 1)) if n else 0
    g = rng.normal(size=n)
    g[rng.random(n) < 0.1] = 0.0
    return np.ascontiguousarray(codes), g, n_neg


@pytest.mark.parametrize("impl", [reference_class_histograms, fast_class_histograms], ids=["reference", "fast"])
@pytest.mark.parametrize("n, d, B, dtype", [(0, 3, 4, np.uint8), (1, 1, 2, np.uint8), (17, 5, 7, np.uint8),
                                            (40_000, 4, 256, np.uint8), (3_001, 3, 1000, np.uint16)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_class_histograms_match_a_direct_sum(impl, n, d, B, dtype):
    codes, g, n_neg = _case(n + d, n, d, B, dtype)
    hist = np.full((d, B, 2), 0.5)                      # the kernel adds into hist
    impl(codes, g, n_neg, hist)
    want = np.full((d, B, 2), 0.5)
    cls = (np.arange(n) >= n_neg).astype(np.intp)
    for j in range(d):
        np.add.at(want, (j, codes[j].astype(np.intp), cls), g)
    np.testing.assert_allclose(hist, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_threads", [1, 2, 4], ids=lambda t: f"threads={t}")
def test_class_histograms_do_not_depend_on_threads(n_threads):
    codes, g, n_neg = _case(3, 50_000, 7, 256, np.uint8)
    one = np.zeros((7, 256, 2))
    class_histograms(codes, g, n_neg, one, 1)
    many = np.zeros((7, 256, 2))
    class_histograms(codes, g, n_neg, many, n_threads)
    np.testing.assert_array_equal(one, many)
    # the two classes added are the one-class histogram of the learners
    from rankcore.learners import _histogram

    plain = np.empty((7, 256))
    _histogram.histograms(codes, g, plain, 1)
    np.testing.assert_allclose(one.sum(axis=2), plain, rtol=1e-12, atol=1e-12)


def test_class_histograms_reject_bad_shapes():
    codes, g, _ = _case(0, 10, 2, 4, np.uint8)
    with pytest.raises(ValueError, match="hist: expected shape"):
        class_histograms(codes, g, 3, np.zeros((3, 4, 2)), 1)
    with pytest.raises(ValueError, match="expected 10 rows"):
        class_histograms(codes, g[:5], 3, np.zeros((2, 4, 2)), 1)
    with pytest.raises(ValueError, match="n_neg"):
        class_histograms(codes, g, 11, np.zeros((2, 4, 2)), 1)


@pytest.mark.parametrize("impl", [reference_class_histograms, fast_class_histograms], ids=["reference", "fast"])
@pytest.mark.parametrize("where", ["no-negatives", "no-positives", "split-mid-row-block", "split-at-block-edge"])
def test_class_histograms_class_boundary_edge_cases(impl, where):
    """n_neg = 0, n_neg = n, and splits inside / at the edge of a ROWS = 16384 block of the kernel."""
    n, d, B = 40_003, 3, 256
    n_neg = {"no-negatives": 0, "no-positives": n, "split-mid-row-block": 16_384 + 5,
             "split-at-block-edge": 2 * 16_384}[where]
    rng = np.random.default_rng(11)
    codes = np.ascontiguousarray(rng.integers(0, 3, size=(d, n)).astype(np.uint8))   # few bins: many ties
    codes[:, -7:] = 255                                                               # the last bin is used
    g = rng.normal(size=n)
    hist = np.zeros((d, B, 2))
    impl(codes, g, n_neg, hist)
    want = np.zeros((d, B, 2))
    cls = (np.arange(n) >= n_neg).astype(np.intp)
    for j in range(d):
        np.add.at(want, (j, codes[j].astype(np.intp), cls), g)
    np.testing.assert_allclose(hist, want, rtol=1e-12, atol=1e-9)
    if where == "no-negatives":
        assert not hist[:, :, 0].any()
    if where == "no-positives":
        assert not hist[:, :, 1].any()


@given(st.integers(0, 2**32 - 1), st.integers(0, 300), st.integers(1, 4), st.integers(2, 256),
       st.sampled_from([np.uint8, np.uint16]), st.integers(1, 3))
def test_class_histograms_invariants(seed, n, d, B, dtype, n_threads):
    """Random shapes and class splits: equal to the reference, and the classes add up to the row sums."""
    rng = np.random.default_rng(seed)
    codes = np.ascontiguousarray(rng.integers(0, B, size=(d, n)).astype(dtype))
    g = np.round(rng.normal(size=n), 2)                                     # repeated values
    n_neg = int(rng.integers(0, n + 1))
    fast = np.zeros((d, B, 2))
    class_histograms(codes, g, n_neg, fast, n_threads)
    ref = np.zeros((d, B, 2))
    reference_class_histograms(codes, g, n_neg, ref)
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast[:, :, 0].sum(axis=1), np.full(d, g[:n_neg].sum()), atol=1e-9)
    np.testing.assert_allclose(fast[:, :, 1].sum(axis=1), np.full(d, g[n_neg:].sum()), atol=1e-9)
