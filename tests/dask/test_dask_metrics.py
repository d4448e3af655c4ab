"""rankcore.dask.evaluate against the in-memory metrics; the ROC-cell bounds and key order offline.

The cluster tests run on the shared 2-worker LocalCluster; the bound and
refinement logic is also checked without Dask, on random cells against a
brute-force enumeration of the staircases inside the uncertain cells.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import _metrics  # noqa: E402
from rankcore.metrics import RocCells  # noqa: E402
from rankcore.dask._order import RankSearch, float_keys, interval_counts, keys_to_float  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

CHUNKS = (50, 13, 300, 137, 100)
BOUNDED = ["auc", "pauc:0.1", "pauc:0.3,mcclish", "tpauc:0.5,0.5", "tpauc:0.2,0.3,normalized", "ks"]
EXACT = ["prec@k:1", "prec@k:10", "prec@k:0.25", "prec@k:600", "rmax", "max_height"]


def _scores(seed, ties=True, n=600):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = rng.normal(size=n) + 0.8 * y
    if ties:
        s = np.round(s, 1)                               # many tie groups with both classes
    order = np.argsort(y, kind="stable")                 # the first chunk holds negatives only
    return y[order], s[order]


def _dask(y, s, chunks=CHUNKS):
    return da.from_array(y, chunks=(chunks,)), da.from_array(s, chunks=(chunks,))


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "distinct"])
def test_dask_evaluate_exact_equals_in_memory(dask_client, ties):
    y, s = _scores(1, ties)
    yd, sd = _dask(y, s)
    metrics = BOUNDED + EXACT
    got = rankcore.dask.evaluate(yd, sd, metrics, tol=0.0)
    want = rankcore.evaluate(y, s, metrics)
    assert list(got) == metrics
    for key in metrics:
        assert got.exact[key], key
        assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-13), key
        assert type(got[key]) is type(want[key]), key


def test_dask_evaluate_bounds_contain_the_exact_value(dask_client):
    y, s = _scores(2, ties=False, n=2000)
    yd, sd = _dask(y, s, chunks=(500, 700, 800))
    want = rankcore.evaluate(y, s, BOUNDED)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = rankcore.dask.evaluate(yd, sd, BOUNDED, tol=0.0, bins=8, max_passes=2)
    assert any("refinement passes" in str(w.message) for w in caught)
    for key in BOUNDED:
        low, high = got.bounds[key]
        assert low - 1e-12 <= want[key] <= high + 1e-12, key
        assert low - 1e-12 <= got[key] <= high + 1e-12, key
    assert not all(got.exact.values())
    loose = rankcore.dask.evaluate(yd, sd, ["auc"], tol=1e-3)
    low, high = loose.bounds["auc"]
    assert high - low <= 1e-3 and low - 1e-12 <= want["auc"] <= high + 1e-12


def test_dask_evaluate_large_k_by_refinement(dask_client, monkeypatch):
    """prec@k for k beyond the top-k merge goes through exact key selection: same values."""
    monkeypatch.setattr(_metrics, "TOPK_MERGE_MAX", 5)
    y, s = _scores(3)
    yd, sd = _dask(y, s)
    metrics = ["prec@k:6", "prec@k:77", "prec@k:0.5", "prec@k:600"]
    got = rankcore.dask.evaluate(yd, sd, metrics)
    want = rankcore.evaluate(y, s, metrics)
    for key in metrics:
        assert got[key] == pytest.approx(want[key], rel=1e-12), key


def test_dask_evaluate_one_class_and_bad_input(dask_client):
    y, s = _scores(4)
    yd, sd = _dask(np.zeros_like(y), s)
    got = rankcore.dask.evaluate(yd, sd, ["prec@k:5"])
    assert got["prec@k:5"] == 0.0
    with pytest.raises(ValueError, match="'auc' needs both classes"):
        rankcore.dask.evaluate(yd, sd, ["auc"])
    with pytest.raises(ValueError, match="not available on distributed scores"):
        rankcore.dask.evaluate(*_dask(y, s), ["misrank"])
    bad = s.copy()
    bad[400] = np.inf
    with pytest.raises(ValueError, match=r"scores \(chunk 3\)"):
        rankcore.dask.evaluate(*_dask(y, bad), ["auc"])
    with pytest.raises(ValueError, match=r"y \(chunk"):
        rankcore.dask.evaluate(*_dask(y * 2, s), ["auc"])
    with pytest.raises(ValueError, match="k"):
        rankcore.dask.evaluate(*_dask(y, s), ["prec@k:601"])
    with pytest.raises(ValueError, match="inconsistent lengths"):
        rankcore.dask.evaluate(da.from_array(y[:-1]), da.from_array(s), ["auc"])
    with pytest.raises(ValueError, match="tol"):
        rankcore.dask.evaluate(*_dask(y, s), ["auc"], tol=-1)


def test_dask_evaluate_extreme_scores_exact(dask_client):
    """Scores spanning the whole float range (±1.7e308, subnormals, ±0): the key cells never overflow."""
    rng = np.random.default_rng(6)
    n = 500
    y = (rng.random(n) < 0.4).astype(np.int8)
    pool = np.array([-np.finfo(float).max, -1e300, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1e-300, 1.0, 1e300,
                     np.finfo(float).max])
    s = rng.choice(pool, size=n) * np.where(rng.random(n) < 0.5, 1.0, 1.0 - 1e-15 * rng.integers(0, 9, n))
    s[:3] = [np.finfo(float).max, -np.finfo(float).max, 0.0]
    yd, sd = _dask(y, s, chunks=(100, 150, 250))
    metrics = BOUNDED + EXACT[:3] + ["rmax"]
    got = rankcore.dask.evaluate(yd, sd, metrics, tol=0.0)
    want = rankcore.evaluate(y, s, metrics)
    for key in metrics:
        assert got.exact[key], key
        assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-13), key


def test_dask_evaluate_rejects_bad_input_clearly(dask_client):
    y, s = _scores(7)
    yd, sd = _dask(y, s)
    with pytest.raises(TypeError, match="metrics: expected a spec string"):
        rankcore.dask.evaluate(yd, sd, 3)
    with pytest.raises(ValueError, match="metrics: expected at least one"):
        rankcore.dask.evaluate(yd, sd, [])
    with pytest.raises(ValueError, match=r"scores: expected a 1-D array, got shape \(600, 2\)"):
        rankcore.dask.evaluate(yd, da.stack([sd, sd], axis=1), ["auc"])
    nan = s.copy()
    nan[10] = np.nan
    with pytest.raises(ValueError, match=r"scores \(chunk 0\): expected finite numbers, got NaN"):
        rankcore.dask.evaluate(yd, da.from_array(nan, chunks=(CHUNKS,)), ["auc"])
    with pytest.raises(TypeError, match=r"y \(chunk \d\): expected numbers"):
        rankcore.dask.evaluate(da.from_array(np.full(600, "a"), chunks=(CHUNKS,)), sd, ["auc"])
    with pytest.raises(ValueError, match="scores: expected at least one score"):
        rankcore.dask.evaluate(da.zeros(0), da.zeros(0), ["auc"])
    with pytest.raises(ValueError, match="bins: expected an integer >= 2"):
        rankcore.dask.evaluate(yd, sd, ["auc"], bins=1)
    with pytest.raises(ValueError, match="max_passes"):
        rankcore.dask.evaluate(yd, sd, ["auc"], max_passes=-1)
    with pytest.raises(TypeError, match="client: expected a distributed.Client"):
        rankcore.dask.evaluate(yd, sd, ["auc"], client="tcp://nowhere")
    with pytest.raises(ValueError, match="'rmax' needs both classes"):
        rankcore.dask.evaluate(da.ones(600, chunks=(CHUNKS,)), sd, ["rmax"])
    # labels chunked differently from the scores (and given as floats / in memory) are aligned
    got = rankcore.dask.evaluate(da.from_array(y.astype(float), chunks=77), sd, ["auc", "prec@k:10"], tol=0.0)
    want = rankcore.evaluate(y, s, ["auc", "prec@k:10"])
    assert got["auc"] == pytest.approx(want["auc"], rel=1e-12) and got["prec@k:10"] == want["prec@k:10"]
    assert rankcore.dask.evaluate(y, s, ["auc"], tol=0.0)["auc"] == pytest.approx(want["auc"], rel=1e-12)


# --------------------------------------------------------------------------
# ROC cells without Dask: bounds against brute force
# --------------------------------------------------------------------------

def _cells_from(y, s, cuts):
    """Cells whose key ranges are the given cuts over the sorted distinct keys (some uncertain)."""
    keys = float_keys(s)
    distinct = np.unique(keys)
    bounds = np.unique(np.r_[0, np.sort(cuts) % distinct.size, distinct.size])
    cells = RocCells(int(distinct[0]), int(distinct[-1]), int(y.sum()), int((1 - y).sum()))
    lo, hi, pos, neg = [], [], [], []
    for a, b in zip(bounds[:-1], bounds[1:]):
        inside = (keys >= distinct[a]) & (keys <= distinct[b - 1])
        lo.append(int(distinct[a]))
        hi.append(int(distinct[b - 1]))
        pos.append(int(y[inside].sum()))
        neg.append(int((1 - y[inside]).sum()))
    cells.lo, cells.hi = np.array(lo, dtype=np.uint64), np.array(hi, dtype=np.uint64)
    cells.pos, cells.neg = np.array(pos, dtype=np.int64), np.array(neg, dtype=np.int64)
    return cells


@given(st.integers(0, 10_000), st.lists(st.integers(0, 10_000), max_size=6))
def test_roc_cells_bounds_bracket_every_order_inside_the_cells(seed, cuts):
    """Any scores consistent with the cells (any order inside them) give a value inside [low, high]."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    y = (rng.random(n) < 0.4).astype(np.int8)
    y[0], y[1] = 1, 0
    s = np.round(rng.normal(size=n), 1)
    cells = _cells_from(y, s, np.asarray(cuts, dtype=np.int64))
    keys = float_keys(s)
    metrics = {spec: rankcore.resolve("metric", spec) for spec in BOUNDED}
    bounds = {spec: m.roc_bounds(cells) for spec, m in metrics.items()}
    cell_of = np.searchsorted(np.array([int(h) for h in cells.hi], dtype=np.uint64), keys)
    single = np.array([lo == hi for lo, hi in zip(cells.lo, cells.hi)])
    for _ in range(4):
        # cells keep their order; inside a cell any order (with ties) -- except a single-score cell, a tie group
        within = np.where(single[cell_of], 0, rng.integers(0, 3, size=n))
        ranked = cell_of * 10.0 + within
        for spec, metric in metrics.items():
            value = metric(y, ranked)
            _, low, high = bounds[spec]
            assert low - 1e-12 <= value <= high + 1e-12, (spec, value, low, high)
    # treating uncertain cells as ties: the value of scores that tie within every cell
    tied = cell_of.astype(float)
    for spec, metric in metrics.items():
        assert bounds[spec][0] == pytest.approx(metric(y, tied), abs=1e-12), spec


@given(st.integers(0, 10_000), st.integers(2, 40), st.sampled_from(["auc", "pauc:0.2", "tpauc:0.3,0.4", "ks"]))
def test_roc_cells_refinement_brackets_then_reaches_the_exact_value(seed, bins, spec):
    """The refinement loop of evaluate, without Dask: every pass's interval holds the exact value, the
    proportional split of a small budget of sub-bins keeps narrowing, and it ends exact (tol = 0)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    y = (rng.random(n) < 0.35).astype(np.int8)
    y[0], y[1] = 1, 0
    s = np.where(rng.random(n) < 0.5, np.round(rng.normal(size=n), 1), rng.normal(size=n) * 10.0 ** rng.integers(-5, 6))
    metric = rankcore.resolve("metric", spec)
    want = metric(y, s)
    keys = float_keys(s)
    cells = RocCells(int(keys.min()), int(keys.max()), int(y.sum()), int(n - y.sum()))
    for _ in range(64 * n):           # each pass splits a cell; a cell is one key after <= 64 halvings
        value, low, high = metric.roc_bounds(cells)
        assert low - 1e-12 <= want <= high + 1e-12 and low - 1e-12 <= value <= high + 1e-12
        request = cells.request([metric], bins)
        if request is None:
            break
        cells.update(_metrics._cell_counts(0, y, s, *request))
        assert int(cells.pos.sum()) == int(y.sum()) and int(cells.neg.sum()) == n - int(y.sum())
        assert np.all(cells.lo <= cells.hi) and np.all(cells.hi[:-1] < cells.lo[1:])
    else:
        raise AssertionError(f"the refinement did not finish in {64 * n} passes")
    value, low, high = metric.roc_bounds(cells)
    assert low == pytest.approx(high, abs=1e-12)
    assert value == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_roc_cells_exact_when_every_cell_is_a_tie_group_or_pure():
    y, s = _scores(5, n=300)
    keys = float_keys(s)
    cells = _cells_from(y, s, np.arange(np.unique(keys).size))    # one cell per distinct score
    assert not cells.uncertain.any()
    want = rankcore.evaluate(y, s, BOUNDED)
    for spec in BOUNDED:
        value, low, high = rankcore.resolve("metric", spec).roc_bounds(cells)
        assert value == low == high
        assert value == pytest.approx(want[spec], rel=1e-12, abs=1e-14), spec


# --------------------------------------------------------------------------
# Keys and exact selection without Dask
# --------------------------------------------------------------------------

@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=2, max_size=50))
def test_float_keys_sort_like_the_floats(values):
    x = np.asarray(values, dtype=np.float64)
    k = float_keys(x)
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(k[order].astype(object)) >= 0)
    assert np.array_equal(k[:, None] == k[None, :], x[:, None] == x[None, :])
    np.testing.assert_array_equal(keys_to_float(k), x + 0.0)


@given(st.integers(0, 10_000), st.integers(2, 64))
def test_rank_search_finds_weighted_lower_quantiles(seed, bins):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    x = np.where(rng.random(n) < 0.3, rng.normal(size=n) * 1e-300, np.round(rng.normal(size=n), 2) * 1e6)
    w = rng.integers(1, 4, size=n).astype(float)
    levels = np.sort(rng.uniform(0, w.sum(), size=3))
    levels[levels == 0] = 1.0
    search = RankSearch(np.zeros(3, dtype=np.intp), levels, np.full(3, float_keys(x).min()),
                        np.full(3, float_keys(x).max()), bins=bins)
    while not search.done:
        search.update(interval_counts(x[:, None], w, *search.request()))
    distinct, inverse = np.unique(x, return_inverse=True)
    cumulative = np.cumsum(np.bincount(inverse, weights=w))
    want = distinct[np.minimum(np.searchsorted(cumulative, levels, side="left"), distinct.size - 1)]
    np.testing.assert_array_equal(search.values(), want)
    assert search.passes <= math.ceil(64 / math.log2(bins)) + 1


@pytest.mark.parametrize("spec", ["auc", "rmax", "pauc:0.1"])
@pytest.mark.parametrize("label", [0, 1])
def test_dask_evaluate_refuses_one_class_as_evaluate_does(dask_client, spec, label):
    """Before: a plain ValueError where ``rankcore.evaluate`` raises a ``MetricRefusal`` with the same words."""
    y, s = _scores(4)
    y = np.full_like(y, label)
    with pytest.raises(rankcore.MetricRefusal) as local:
        rankcore.evaluate(y, s, [spec])
    with pytest.raises(rankcore.MetricRefusal) as distributed:
        rankcore.dask.evaluate(*_dask(y, s), [spec])
    assert str(distributed.value) == str(local.value)
    assert distributed.value.facts() == local.value.facts()
