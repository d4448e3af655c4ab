"""Node histograms on several threads: the gathered and the row-by-row routes give the one-thread sums, bit for bit."""

import numpy as np
import pytest

from rankcore.learners.trees import _histogram
from rankcore.learners.trees._block import slot_layout
from rankcore.registry import resolve

from _tree_references import node_histogram, sparse_and_dense_block


@pytest.mark.parametrize("m", [300, 2500, 9000])        # one thread; two reading g[r] themselves; two after a gather
@pytest.mark.parametrize("unit_h", [False, True])
def test_plain_histogram_routes_match_reference(m, unit_h):
    rng = np.random.default_rng(m)
    n, d = 9500, 6
    codes = rng.integers(0, 30, size=(n, d)).astype(np.uint8)
    codes[rng.random((n, d)) < 0.5] = 0                  # runs of one bin, as sparse columns have
    codes[rng.random((n, d)) < 0.05] = 30                # the NaN bin of 29 edges
    slots = slot_layout(np.full(d, 29))
    g, h = rng.normal(size=n), np.ones(n) if unit_h else rng.random(n)
    idx = rng.permutation(n).astype(np.int32)
    start = 123
    rows = idx[start:start + m]
    ref = node_histogram(codes, slots, g, h, rows, unit_h)
    if unit_h:
        ref[:, 1] = ref[:, 2]
    for n_threads in (1, 2):
        hist = np.full((slots.n_slots, 3), np.nan)
        _histogram.node_histogram(codes, slots, g, h, idx, start, start + m, np.empty(n), np.empty(n), hist,
                                     n_threads, False, unit_h)
        np.testing.assert_array_equal(hist, ref)


def test_bundled_histogram_on_two_threads_equals_one():
    """The bundled features' default-bin slots (the node's totals minus the others) on both routes."""
    rng = np.random.default_rng(5)
    n = 8000
    levels = (5, 9, 4, 12)
    X = np.hstack([np.eye(k)[rng.integers(0, k, n)] for k in levels] + [rng.normal(size=(n, 2))])
    layout = resolve("learner", "trees").prepare(X, random_state=0)
    assert layout.bundles
    codes = layout.encode(X).codes
    g, h = rng.normal(size=n), rng.random(n)
    idx = rng.permutation(n).astype(np.int32)
    for start, end in [(10, 60), (100, 4100), (0, n)]:
        hists = []
        for n_threads in (1, 2):
            hist = np.full((layout.n_slots, 3), np.nan)
            _histogram.node_histogram(codes, layout.slots, g, h, idx, start, end, np.empty(n), np.empty(n), hist,
                                         n_threads)
            hists.append(hist)
        np.testing.assert_array_equal(hists[1], hists[0])
        rows = idx[start:end]
        for j in range(X.shape[1]):
            fh = hists[0][layout.feature_slots(j)]
            np.testing.assert_array_equal(fh[:, 2].sum(), end - start)
            np.testing.assert_allclose(fh[:, 0].sum(), g[rows].sum(), atol=1e-9)


@pytest.mark.parametrize("m", [300, 9000])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_histogram_wider_than_a_block_matches_reference(m, n_threads):
    """A histogram of more slots than one walk over the rows fills (HIST_BLOCK_SLOTS) is filled block by block:
    every slot once, in row order (the root without a gather, a gathered node and a node read row by row)."""
    rng = np.random.default_rng(m + n_threads)
    n, d = 9500, 90                                      # 90 columns of 256 slots: 23,040 slots, three blocks
    codes = rng.integers(0, 255, size=(n, d)).astype(np.uint8)
    codes[rng.random((n, d)) < 0.3] = 0
    codes[rng.random((n, d)) < 0.02] = 255               # the NaN bin of 254 edges
    slots = slot_layout(np.full(d, 254))
    assert slots.n_slots > 2 * 8192
    g, h = rng.normal(size=n), rng.random(n)
    idx = rng.permutation(n).astype(np.int32)
    for start, end, identity in [(0, n, True), (123, 123 + m, False)]:
        if identity:
            idx_used = np.arange(n, dtype=np.int32)
        else:
            idx_used = idx
        ref = node_histogram(codes, slots, g, h, idx_used[start:end], False)
        hist = np.full((slots.n_slots, 3), np.nan)
        _histogram.node_histogram(codes, slots, g, h, idx_used, start, end, np.empty(n), np.empty(n), hist,
                                  n_threads, identity, False)
        np.testing.assert_array_equal(hist, ref)


def test_wide_bundled_histogram_with_listed_rows():
    """Sparse bundles, their listed rows and wide dense columns across several blocks: every feature counts
    every row once, the listed route gives the same bits as the codes, two threads the same as one."""
    rng = np.random.default_rng(11)
    n = 6000
    onehots = [np.eye(30)[rng.integers(0, 30, n)] * (rng.random((n, 1)) < 0.05) for _ in range(60)]
    X = np.hstack(onehots + [rng.normal(size=(n, 70))])
    layout = resolve("learner", "trees").prepare(X, random_state=0)
    assert layout.slots.sparse_columns >= 8 and layout.n_slots > 2 * 8192 - 1000
    block = layout.encode(X)
    assert block.listed is not None
    g, h = rng.normal(size=n), rng.random(n)
    idx = rng.permutation(n).astype(np.int32)
    for start, end in [(0, n), (50, 2550)]:
        hists = []
        for n_threads, listed in [(1, None), (1, block.listed), (2, block.listed)]:
            hist = np.full((layout.n_slots, 3), np.nan)
            _histogram.node_histogram(block.codes, layout.slots, g, h, idx, start, end, np.empty(n), np.empty(n),
                                      hist, n_threads, False, False, listed)
            hists.append(hist)
        np.testing.assert_array_equal(hists[1], hists[0])
        np.testing.assert_array_equal(hists[2], hists[0])
        rows = idx[start:end]
        for j in range(layout.n_features):
            fh = hists[0][layout.feature_slots(j)]
            np.testing.assert_array_equal(fh[:, 2].sum(), end - start)
            np.testing.assert_allclose(fh[:, 0].sum(), g[rows].sum(), atol=1e-9)


@pytest.mark.parametrize("unit_h", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_root_counts_copied_give_the_counted_histogram(unit_h, n_threads):
    """A root histogram given its counts (root_counts) is the one that counts its rows, bit for bit: plain
    columns, sparse bundles read from their codes and from their listed rows, bundled default bins."""
    rng = np.random.default_rng(7 + n_threads)
    n = 5000
    _, layout, block = sparse_and_dense_block(rng, n, 40)
    counts = _histogram.root_counts(block.codes, layout.slots, block.listed, n_threads)
    assert counts.shape == (layout.n_slots,) and counts.sum() > 0
    g, h = rng.normal(size=n), np.ones(n) if unit_h else rng.random(n)
    ident = np.arange(n, dtype=np.int32)
    for listed in (None, block.listed):
        counted = np.full((layout.n_slots, 3), np.nan)
        copied = np.full((layout.n_slots, 3), np.nan)
        for out, known in ((counted, None), (copied, counts)):
            _histogram.node_histogram(block.codes, layout.slots, g, h, ident, 0, n, np.empty(n), np.empty(n), out,
                                      n_threads, True, unit_h, listed, known)
        np.testing.assert_array_equal(copied, counted)
    np.testing.assert_array_equal(block.root_counts(layout.slots), counts)
    with pytest.raises(ValueError, match="counts must hold one count per slot"):
        _histogram.node_histogram(block.codes, layout.slots, g, h, ident, 0, n, np.empty(n), np.empty(n), counted,
                                  n_threads, True, unit_h, None, counts[:-1])
