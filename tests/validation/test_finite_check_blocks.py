"""The NaN/±inf check of arrays reads them in blocks: the same first entry and count as a whole-array mask, in
bounded memory (a whole n × d mask, twice over, was half a float32 X's memory)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore import _numbers
from rankcore.validation import check_matrix


def _reference(arr, allow_nan):
    bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if not bad.any():
        return None
    return int(np.flatnonzero(bad.ravel())[0]), int(bad.sum())


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**31), ndim=st.integers(1, 3), layout=st.sampled_from(["C", "F", "strided"]),
       block=st.integers(1, 40), allow_nan=st.booleans(), dtype=st.sampled_from([np.float32, np.float64]))
def test_the_first_bad_entry_and_the_count_are_the_whole_masks(seed, ndim, layout, block, allow_nan, dtype):
    rng = np.random.default_rng(seed)
    shape = tuple(int(v) for v in rng.integers(1, 7, size=ndim))
    arr = rng.normal(size=shape).astype(dtype)
    u = rng.random(shape)
    arr[u < 0.06] = np.nan
    arr[u > 0.96] = np.inf
    arr[(u > 0.93) & (u <= 0.96)] = -np.inf
    if layout == "F":
        arr = np.asfortranarray(arr)
    elif layout == "strided":
        arr = arr[::2]
    old = _numbers._FINITE_BLOCK
    _numbers._FINITE_BLOCK = block
    try:
        assert _numbers.first_not_finite(arr, allow_nan) == _reference(arr, allow_nan)
    finally:
        _numbers._FINITE_BLOCK = old


@pytest.mark.parametrize("order", ["C", "F"])
def test_the_check_of_a_large_array_holds_no_mask_of_its_size(order):
    X = np.asarray(np.random.default_rng(0).normal(size=(2000, 500)), order=order)       # 8 MB of float64
    tracemalloc.start()
    try:
        checked = check_matrix(X, name="X")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert checked is X or np.shares_memory(checked, X) or order == "F"
    if order == "C":        # no copy: what the check itself holds (a whole mask was a quarter of X, twice)
        assert peak < 0.05 * X.nbytes, peak


def test_the_refusal_names_the_first_entry_and_counts_all():
    X = np.zeros((300_000, 3))
    X[250_000, 2] = np.inf
    X[299_999, 0] = np.nan
    with pytest.raises(ValueError, match=r"X: expected finite numbers, got infinite values at row 250000, "
                                         r"column 2 \(2 in all\)"):
        check_matrix(X, name="X")


@pytest.mark.parametrize("value, found", [(np.nan, (0, 1)), (np.inf, (0, 1)), (1.5, None)])
def test_a_lone_value_is_checked_as_the_whole_array_check_did(value, found):
    # a 0-d array was passed as finite whatever it held: the blocks are slices of a leading axis it lacks
    assert _numbers.first_not_finite(np.array(value), allow_nan=False) == found
    assert _numbers.first_not_finite(np.array(np.nan), allow_nan=True) is None
