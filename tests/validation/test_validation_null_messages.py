"""A null in ``sample_weight``, ``y`` or scores is said as a missing value (null), not as the NaN it became.

A Polars null and pandas' ``pd.NA`` (a nullable ``Float64``/``Int64`` column) turn into NaN when read as float64;
the message said "got NaN", a value the caller never wrote.  (Before: "expected finite numbers, got NaN at
position 5 (1 in all)".)  A real NaN is still said as NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from rankcore.push import PNormPush


def data(n=12):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 2)), np.tile([0.0, 1.0], n // 2)


def nulls(values, kind):
    values = list(values)
    values[5] = None
    if kind == "polars":
        pl = pytest.importorskip("polars")
        return pl.Series(values, dtype=pl.Float64)
    pd = pytest.importorskip("pandas")
    return pd.Series(values, dtype="Float64" if kind == "Float64" else "Int64")


@pytest.mark.parametrize("kind", ["polars", "Float64", "Int64"])
@pytest.mark.parametrize("argument", ["sample_weight", "y"])
def test_a_null_is_said_as_a_missing_value_naming_the_argument(kind, argument):
    X, y = data()
    kwargs = {"sample_weight": nulls(np.ones(12), kind)} if argument == "sample_weight" else {}
    target = nulls(y, kind) if argument == "y" else y
    with pytest.raises(ValueError, match=rf"^{argument}: .*got a missing value \(null\) at position 5 \(1 in all\)"
                       ) as caught:
        PNormPush(n_iter=2).fit(X, target, **kwargs)
    assert "NaN" not in str(caught.value)
    assert caught.value.parameter == argument


def test_metric_scores_with_a_null():
    pl = pytest.importorskip("polars")
    _, y = data()
    scores = pl.Series([0.5] * 5 + [None] + [0.1] * 6, dtype=pl.Float64)
    with pytest.raises(ValueError, match=r"scores: .*got a missing value \(null\) at position 5"):
        rankcore.evaluate(y, scores, "auc")


def test_a_real_nan_is_still_called_nan():
    pd = pytest.importorskip("pandas")
    X, y = data()
    weights = pd.Series(np.ones(12))
    weights[5] = np.nan
    with pytest.raises(ValueError, match=r"got NaN at position 5"):
        PNormPush(n_iter=2).fit(X, y, sample_weight=weights)
