"""ERR with ties averaged: each tie group's table is as wide as its own slots, not the widest group's."""

import tracemalloc

import numpy as np
import pytest

from rankcore.metrics import per_query
from rankcore.metrics._query_kernels import _tied_stops, _tied_stops_alike


@pytest.mark.parametrize("seed", range(5))
def test_groups_by_width_class_give_the_one_pass_values(seed):
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 40, size=60)
    slots = np.minimum(size, rng.integers(0, 45, size=60))
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    place = rng.integers(0, 50, size=60).astype(np.float64)
    stop = rng.random(int(size.sum()))
    # the same terms; a row's sum over fewer trailing zeros may round 1 ulp apart
    np.testing.assert_allclose(_tied_stops(stop, first, size, slots, place),
                               _tied_stops_alike(stop, first, size, slots, place), rtol=1e-14, atol=0)


def test_one_long_tie_beside_many_short_ones_takes_little_memory():
    # 3,000 ties of two rows and one tie of 2,000 rows read whole: one table for all would be 3,001 x 2,001 doubles
    n_pairs = 3000
    y = np.concatenate([np.tile([1, 0], n_pairs), np.random.default_rng(1).integers(0, 3, 2000)])
    s = np.concatenate([np.repeat(np.arange(n_pairs), 2).astype(float), np.zeros(2000)])
    qid = np.concatenate([np.repeat(np.arange(n_pairs), 2), np.full(2000, n_pairs)])
    per_query(y[:4], s[:4], "err@k:2", qid=qid[:4])          # imports and first-call work outside the count
    tracemalloc.start()
    try:
        values = per_query(y, s, "err@k:2000", qid=qid).values
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 12e6, peak
    # a two-row tie of grades 1 and 0, R = (2^1 - 1) / 2^2 (the largest grade is 2): the 1 first half the time
    # (R / 1), second the other half (R / 2): ERR = (1/4 + 1/8) / 2
    np.testing.assert_allclose(values[:n_pairs], 0.1875, rtol=1e-12)
