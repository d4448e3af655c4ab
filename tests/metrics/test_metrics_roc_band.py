"""rankcore.metrics.roc_band: its argument checks and the scores' order, against a plain NumPy bootstrap."""

import numpy as np
import pytest

from rankcore.metrics import roc_band

Y = [0, 0, 1, 1, 0, 1, 0, 1]
S = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.6, 0.9]


@pytest.mark.parametrize("max_fp, error, match", [
    (-1, ValueError, r"^max_fp: expected a whole count >= 0, got -1$"),
    (2.7, ValueError, r"^max_fp: expected a whole count >= 0, got 2\.7$"),
    (float("inf"), ValueError, r"^max_fp: expected a whole count >= 0, got inf$"),
    (float("nan"), ValueError, r"^max_fp: expected a whole count >= 0, got nan$"),
    (True, ValueError, r"^max_fp: expected a count, got a boolean$"),
    (None, TypeError, r"^max_fp: expected a whole count of false positives >= 0, got None$"),
    ("3", TypeError, r"^max_fp: expected a whole count of false positives >= 0, got '3'$"),
], ids=["negative", "fraction", "inf", "nan", "bool", "none", "text"])
def test_max_fp_that_is_not_a_count_is_named(max_fp, error, match):
    with pytest.raises(error, match=match):
        roc_band(Y, S, max_fp=max_fp)


def test_a_count_beyond_the_negatives_ends_the_grid_at_them():
    fp, lower, upper = roc_band(Y, S, max_fp=10**12, n_boot=100)
    assert fp.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    whole = roc_band(Y, S, max_fp=4, n_boot=100)
    for got, expected in zip((fp, lower, upper), whole):
        np.testing.assert_array_equal(got, expected)


def test_integers_beyond_2_53_keep_their_order():
    # as float64 these four scores are one tie
    big = roc_band([0, 1, 0, 1], [2**62, 2**62 + 1, 2**62 + 2, 2**62 + 3], max_fp=2, n_boot=100)
    small = roc_band([0, 1, 0, 1], [0, 1, 2, 3], max_fp=2, n_boot=100)
    for got, expected in zip(big, small):
        np.testing.assert_array_equal(got, expected)


def test_the_band_holds_the_curve_of_the_data_and_widens_with_the_level():
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    s = y + rng.normal(size=300)
    fp, lower, upper = roc_band(y, s, max_fp=40, n_boot=300, random_state=1)
    _, lower50, upper50 = roc_band(y, s, max_fp=40, n_boot=300, random_state=1, level=0.5)
    # the observed curve's true positives at each count (the top of vertical steps)
    order = np.argsort(-s, kind="stable")
    fp_seen, tp_seen = np.cumsum(1 - y[order]), np.cumsum(y[order])
    observed = np.array([tp_seen[fp_seen <= x].max() for x in fp])
    assert np.all(lower <= upper) and np.all(lower <= lower50) and np.all(upper50 <= upper)
    assert np.mean((lower <= observed) & (observed <= upper)) > 0.9
