"""Node histograms filled from column-major codes (``codes_t``): the row-major route's sums, bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.learners.trees import _histogram
from rankcore.learners.trees._block import slot_layout

from _tree_references import node_histogram, sparse_and_dense_block


def _histograms(codes, slots, g, h, idx, start, end, n_threads, identity, unit_h, listed=None, counts=None):
    """The node's histogram from the row-major codes alone and with their column-major copy (the latter with
    the vector updates where the CPU has them and with the scalar ones: the same bits, checked here)."""
    n = codes.shape[0]
    out = []
    for codes_t in (None, np.ascontiguousarray(codes.T)):
        hist = np.full((slots.n_slots, 3), np.nan)
        _histogram.node_histogram(codes, slots, g, h, idx, start, end, np.empty(n), np.empty(n), hist, n_threads,
                                  identity, unit_h, listed, counts, codes_t)
        out.append(hist)
    before = _histogram.vector_updates(False)
    try:
        scalar = np.full((slots.n_slots, 3), np.nan)
        _histogram.node_histogram(codes, slots, g, h, idx, start, end, np.empty(n), np.empty(n), scalar, n_threads,
                                  identity, unit_h, listed, counts, np.ascontiguousarray(codes.T))
    finally:
        _histogram.vector_updates(before)
    np.testing.assert_array_equal(out[1], scalar)
    assert np.array_equal(np.signbit(out[1]), np.signbit(scalar))
    return out


# n = 9,500 rows: column-major for any node; 40,000: only for nodes of 1/8 of the rows or more
@pytest.mark.parametrize("n,m", [(9500, 1), (9500, 37), (9500, 9000), (40000, 1200), (40000, 5000),
                                 (40000, 40000)], ids=lambda v: f"{v}")
@pytest.mark.parametrize("unit_h", [False, True], ids=["h", "unit_h"])
@pytest.mark.parametrize("n_threads", [1, 2], ids=["threads=1", "threads=2"])
def test_column_major_histogram_matches_reference(n, m, unit_h, n_threads):
    """Columns of 255 bins with ties (runs of one bin), groups of 8 columns and a remainder of 3: every slot
    the reference's sums, scattered rows and the identity root alike."""
    rng = np.random.default_rng(n + m)
    d = 19
    codes = rng.integers(0, 255, size=(n, d)).astype(np.uint8)
    codes[rng.random((n, d)) < 0.4] = 7
    codes[:, 3] = rng.integers(0, 2, size=n)             # a column of two bins: consecutive rows share slots
    codes[rng.random((n, d)) < 0.02] = 255               # the NaN bin of 254 edges
    slots = slot_layout(np.full(d, 254))
    g, h = rng.normal(size=n), np.ones(n) if unit_h else rng.random(n)
    idx = np.sort(rng.permutation(n)[:m]).astype(np.int32)       # a node's rows ascend (stable partitions)
    idx = np.concatenate([idx, np.setdiff1d(np.arange(n, dtype=np.int32), idx)])
    rows_major, cols_major = _histograms(codes, slots, g, h, idx, 0, m, n_threads, False, unit_h)
    np.testing.assert_array_equal(cols_major, rows_major)
    np.testing.assert_array_equal(cols_major, node_histogram(codes, slots, g, h, idx[:m], unit_h))
    if m == n:
        ident = np.arange(n, dtype=np.int32)
        rows_major, cols_major = _histograms(codes, slots, g, h, ident, 0, n, n_threads, True, unit_h)
        np.testing.assert_array_equal(cols_major, rows_major)
        np.testing.assert_array_equal(cols_major, node_histogram(codes, slots, g, h, ident, unit_h))


@pytest.mark.parametrize("n_threads", [1, 2], ids=["threads=1", "threads=2"])
def test_column_major_histogram_with_bundles_listed_rows_and_counts(n_threads):
    """Sparse bundles (listed rows), their default bins, NaN and copied root counts beside dense columns read
    column-major: the row-major route's bits."""
    rng = np.random.default_rng(3 + n_threads)
    n = 5000
    _, layout, block = sparse_and_dense_block(rng, n, 23)
    g, h = rng.normal(size=n), rng.random(n)
    counts = _histogram.root_counts(block.codes, layout.slots, block.listed, n_threads)
    ident = np.arange(n, dtype=np.int32)
    for listed in (None, block.listed):
        for known in (None, counts):
            rows_major, cols_major = _histograms(block.codes, layout.slots, g, h, ident, 0, n, n_threads, True,
                                                 False, listed, known)
            np.testing.assert_array_equal(cols_major, rows_major)
        idx = rng.permutation(n).astype(np.int32)
        idx[:700] = np.sort(idx[:700])
        rows_major, cols_major = _histograms(block.codes, layout.slots, g, h, idx, 0, 700, n_threads, False, False,
                                             listed)
        np.testing.assert_array_equal(cols_major, rows_major)


@pytest.mark.parametrize("n_threads", [1, 2], ids=["threads=1", "threads=2"])
def test_vector_updates_stay_off_the_slot_after_a_thread_s_last_column(n_threads):
    """Groups of 8 columns update each slot with four doubles, the fourth on the next slot's Σg (+ -0.0).  With
    16 columns on two threads, every row's column 7 code (the NaN slot, its range's last) is next to column 8's
    slot 0, which the other thread fills for every row at the same time: a vector update there would lose some
    of its additions.  The reference's sums, every signed zero included."""
    rng = np.random.default_rng(11)
    n, d = 40_000, 16
    codes = rng.integers(0, 255, size=(n, d)).astype(np.uint8)
    codes[:, 7] = 255
    codes[:, 8] = 0
    codes[:, 12] = 254                                    # the last edge's slot: the NaN slot follows it
    slots = slot_layout(np.full(d, 254))
    g, h = rng.normal(size=n), rng.random(n)
    g[::97] = -0.0
    idx = np.arange(n, dtype=np.int32)
    for start, end, identity in [(0, n, True), (0, 30_000, False)]:
        reference = node_histogram(codes, slots, g, h, idx[start:end], False)
        for _ in range(8 if n_threads > 1 else 1):       # a race shows in some runs only
            rows_major, cols_major = _histograms(codes, slots, g, h, idx, start, end, n_threads, identity, False)
            np.testing.assert_array_equal(cols_major, reference)
            np.testing.assert_array_equal(rows_major, reference)
            assert np.array_equal(np.signbit(cols_major), np.signbit(reference))


@pytest.mark.parametrize("n_threads", [1, 2], ids=["threads=1", "threads=2"])
def test_groups_mixing_columns_of_few_and_many_bins(n_threads):
    """Groups of columns of 2 to 256 slots, rows often in neighbouring slots of a column (where each vector
    update's fourth lane meets the next row's slot): the reference's bits."""
    rng = np.random.default_rng(5)
    n_edges = np.array([254, 1, 30, 31, 254, 7, 254, 254, 0, 2, 29, 3, 1, 5, 6, 4, 254, 100, 254])
    n, m = 9_000, 6_000
    codes = np.column_stack([rng.integers(0, e + 2, size=n) for e in n_edges]).astype(np.uint8)
    slots = slot_layout(n_edges)
    g, h = rng.normal(size=n), rng.random(n)
    idx = np.sort(rng.permutation(n)[:m]).astype(np.int32)
    idx = np.concatenate([idx, np.setdiff1d(np.arange(n, dtype=np.int32), idx)])
    rows_major, cols_major = _histograms(codes, slots, g, h, idx, 0, m, n_threads, False, False)
    np.testing.assert_array_equal(cols_major, rows_major)
    np.testing.assert_array_equal(cols_major, node_histogram(codes, slots, g, h, idx[:m], False))


def test_the_vector_updates_switch_refuses_non_bools():
    with pytest.raises(TypeError, match="on: expected a bool or None, got 1"):
        _histogram.vector_updates(1)
    before = _histogram.vector_updates()
    assert _histogram.vector_updates(False) is before
    assert _histogram.vector_updates() is False
    _histogram.vector_updates(before)
    assert _histogram.vector_updates() is before


def test_column_major_codes_of_the_wrong_shape_are_refused():
    n, d = 50, 4
    codes = np.zeros((n, d), dtype=np.uint8)
    slots = slot_layout(np.full(d, 3))
    hist = np.empty((slots.n_slots, 3))
    with pytest.raises(ValueError, match=r"codes_t must be codes transposed, shape \(4, 50\)"):
        _histogram.node_histogram(codes, slots, np.zeros(n), np.ones(n), np.arange(n, dtype=np.int32), 0, n,
                                  np.empty(n), np.empty(n), hist, 1, True, False, None, None, codes[:, :3].T.copy())


# ----------------------------------------------------------------------
# transpose_codes: the column-major copy the growers' partitions read
# ----------------------------------------------------------------------
def _check_transpose(codes, n_threads):
    out = _histogram.transpose_codes(codes, n_threads)
    expect = np.ascontiguousarray(codes.T)
    assert out.dtype == np.uint8 and out.shape == expect.shape and out.flags.c_contiguous
    np.testing.assert_array_equal(out, expect)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 300), c=st.integers(0, 6), levels=st.sampled_from([1, 2, 3, 256]),
       seed=st.integers(0, 2**32 - 1), n_threads=st.sampled_from([1, 2]))
def test_transpose_codes_is_numpy_s_transpose(n, c, levels, seed, n_threads):
    # blocks of 64 rows and a partial last block; few levels: ties in every column; 1 level: all equal
    codes = np.random.default_rng(seed).integers(0, levels, size=(n, c)).astype(np.uint8)
    _check_transpose(codes, n_threads)


@pytest.mark.parametrize("n, c", [(0, 0), (0, 3), (5, 0), (1, 1), (1, 7), (64, 1), (65, 2), (70_001, 16)])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_transpose_codes_edge_shapes_and_the_threaded_pass(n, c, n_threads):
    # (70,001, 16) is past the kernel's threshold for threads (2^20 codes); one row, one column, empty sides
    codes = np.random.default_rng(n * 31 + c).integers(0, 256, size=(n, c)).astype(np.uint8)
    _check_transpose(codes, n_threads)
    _check_transpose(np.full((n, c), 7, dtype=np.uint8), n_threads)
