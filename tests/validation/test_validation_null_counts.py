"""A column holding both nulls and NaN (or ±inf): each kind counted as itself, the other kind named beside it.

A Polars null, pandas' ``pd.NA`` or a ``None`` becomes NaN when read as float64.  The refusal said "got a missing
value (null) at position 0 (1 in all)" when the column also held two NaN (never mentioned: the next call failed
again), and "got NaN at position 0 (3 in all)" when one NaN stood first and the other two were nulls.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore

LABELS = np.tile([0, 1], 5)


def _polars(values):
    pl = pytest.importorskip("polars")
    return pl.Series(values, dtype=pl.Float64)


def _scores(first, *rest):
    return [first, *rest, *np.linspace(0.0, 1.0, 10 - 1 - len(rest))]


@pytest.mark.parametrize("make", [_polars, lambda v: np.array(v, dtype=object)], ids=["polars", "object"])
def test_a_null_first_counts_the_nulls_and_names_the_nan_besides(make):
    scores = make(_scores(None, float("nan"), float("nan")))
    with pytest.raises(ValueError, match=r"got a missing value \(null\) at position 0 \(1 in all; and 2 NaN or "
                                         r"infinite values\)"):
        rankcore.evaluate(LABELS, scores, "auc")


@pytest.mark.parametrize("make", [_polars, lambda v: np.array(v, dtype=object)], ids=["polars", "object"])
def test_a_nan_first_counts_the_nan_and_names_the_nulls_besides(make):
    scores = make(_scores(float("nan"), None, None))
    with pytest.raises(ValueError, match=r"got NaN at position 0 \(1 in all; and 2 missing values \(null\)\)"):
        rankcore.evaluate(LABELS, scores, "auc")


def test_an_infinite_value_first_does_not_count_the_nulls_as_infinite():
    scores = _polars(_scores(float("inf"), None))
    with pytest.raises(ValueError, match=r"got infinite values at position 0 \(1 in all; and 1 missing value "
                                         r"\(null\)\)"):
        rankcore.evaluate(LABELS, scores, "auc")


def test_nulls_alone_and_nan_alone_keep_their_message():
    with pytest.raises(ValueError, match=r"got a missing value \(null\) at position 0 \(2 in all\)$"):
        rankcore.evaluate(LABELS, _polars(_scores(None, None)), "auc")
    with pytest.raises(ValueError, match=r"got NaN at position 0 \(2 in all\)$"):
        rankcore.evaluate(LABELS, _polars(_scores(float("nan"), float("nan"))), "auc")


def test_a_numpy_backed_pandas_column_holds_no_null_and_is_not_read_item_by_item():
    # its NaN is a NaN (a None there became one on construction); reading millions of items in Python to find
    # nulls that cannot be there took seconds to refuse one NaN
    pd = pytest.importorskip("pandas")
    from rankcore._numbers import null_mask

    assert null_mask(pd.Series([np.nan, 1.0, None])) is None
    nullable = null_mask(pd.Series([None, 1.0, 2.0], dtype="Float64"))
    assert nullable.tolist() == [True, False, False]
    with pytest.raises(ValueError, match=r"got NaN at position 1 \(1 in all\)"):
        rankcore.evaluate(LABELS, pd.Series(_scores(0.5, np.nan)), "auc")
