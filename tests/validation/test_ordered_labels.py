"""``ordered_labels``: a two-valued numeric target is read without a sort; the result is ``np.unique``'s."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.validation import ordered_labels


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 50), n_values=st.integers(1, 4),
       dtype=st.sampled_from([np.float32, np.float64, np.int64, np.uint8, np.int8, bool]),
       nan=st.booleans())
def test_labels_and_codes_are_numpy_unique(seed, n, n_values, dtype, nan):
    rng = np.random.default_rng(seed)
    pool = rng.integers(-3, 4, size=n_values)
    y = rng.choice(pool, size=n)
    y = (y > 0) if dtype is bool else y.astype(np.float64 if nan else dtype)
    if nan and dtype is not bool:
        y[rng.random(n) < 0.3] = np.nan
        y = y.astype(dtype) if np.dtype(dtype).kind == "f" else y
    labels, codes = ordered_labels(y, "y")
    want_labels, want_codes = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(labels, want_labels)
    assert labels.dtype == want_labels.dtype
    np.testing.assert_array_equal(codes, want_codes)
    assert codes.dtype == want_codes.dtype and codes.shape == want_codes.shape


def test_two_values_in_any_order():
    labels, codes = ordered_labels(np.array([7.0, 2.0, 7.0, 2.0, 2.0]), "y")
    np.testing.assert_array_equal(labels, [2.0, 7.0])
    np.testing.assert_array_equal(codes, [1, 0, 1, 0, 0])
