"""ERR with ties averaged: the compiled expected stops against the NumPy recurrence, in memory of O(slots)."""

import tracemalloc

import numpy as np
import pytest

from rankcore.metrics import per_query
from rankcore.metrics._query_kernels import _tied_stops


def tied_stops_reference(stop: np.ndarray, first: np.ndarray, size: np.ndarray, slots: np.ndarray,
                      place: np.ndarray) -> np.ndarray:
    """The plain NumPy form of the expected stops in tie groups: Σ_{t < slots} stop at the t-th slot / (place + t + 1).

    For continue probabilities x = 1 − stop of the group's m rows in a random
    order, the t-th slot stops exactly there with probability E_t − E_{t+1},
    E_t the mean product of x over t-subsets (E_0 = 1).  Adding the group's
    j-th row: E_t ← ((j−t)/j)·E_t + (t/j)·x_j·E_{t−1}, every term in [0, 1].
    All groups at once, the largest first, so the groups still growing at
    step j are a prefix: O(Σ m · max slots) time, O(groups · max slots) memory
    (so :func:`_tied_stops` gives it groups of like slot counts).
    """
    by_size = np.argsort(-size, kind="stable")
    first, size, slots, place = first[by_size], size[by_size], slots[by_size], place[by_size]
    width = int(slots.max()) + 1
    t = np.arange(width, dtype=np.float64)
    E = np.zeros((first.shape[0], width))
    E[:, 0] = 1.0
    growing = np.searchsorted(-size, -np.arange(1, int(size[0]) + 1), side="right")  # groups with size >= j
    for j, count in enumerate(growing, start=1):
        x = 1.0 - stop[first[:count] + j - 1]
        part = E[:count]
        shifted = np.zeros_like(part)
        shifted[:, 1:] = part[:, :-1]
        E[:count] = ((j - t) / j) * part + (t / j) * x[:, None] * shifted
    stopped = np.where(t[:-1] < slots[:, None], (E[:, :-1] - E[:, 1:]) / (place[:, None] + 1.0 + t[:-1]), 0.0)
    out = np.empty(first.shape[0])
    out[by_size] = stopped.sum(axis=1)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_the_compiled_stops_equal_the_numpy_recurrence(seed):
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 40, size=60)
    slots = np.minimum(size, rng.integers(0, 45, size=60))
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    place = rng.integers(0, 50, size=60).astype(np.float64)
    stop = rng.random(int(size.sum()))
    stop[rng.random(stop.shape[0]) < 0.2] = 0.0                 # rows that never stop (grade 0), and certain ones
    stop[rng.random(stop.shape[0]) < 0.05] = 1.0
    # the same terms; the sums' order differs (pairwise in NumPy), so a value may round an ulp or two apart
    np.testing.assert_allclose(_tied_stops(stop, first, size, slots, place),
                               tied_stops_reference(stop, first, size, slots, place), rtol=1e-13, atol=1e-16)


def test_one_tie_of_many_rows_is_linear_in_its_rows():
    # a constant model on one long list at err@k:10: the NumPy form stepped through every row in Python (11 s at
    # 1.6 million rows); one row each: the closed form of a tie of equal stops, x^t
    n = 200_000
    value = _tied_stops(np.full(n, 0.25), np.array([0]), np.array([n]), np.array([10]), np.array([0.0]))
    expected = sum(0.75 ** t * 0.25 / (t + 1) for t in range(10))
    np.testing.assert_allclose(value, [expected], rtol=1e-12)


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


@pytest.mark.parametrize("mean_stop", [0.02, 0.3, 0.9])
def test_slots_past_a_negligible_product_are_left_out_within_rounding(mean_stop):
    # E_t <= mean(x)^t: slots past 2^-60 of it are dropped, so a fractional k on a long tie is not quadratic
    rng = np.random.default_rng(3)
    m = 3000
    stop = np.clip(rng.normal(mean_stop, 0.05, m), 0.0, 1.0)
    args = np.array([0]), np.array([m]), np.array([m // 2]), np.array([4.0])
    np.testing.assert_allclose(_tied_stops(stop, *args), tied_stops_reference(stop, *args), rtol=1e-12, atol=1e-17)
