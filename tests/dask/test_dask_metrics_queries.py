"""rankcore.dask.evaluate with qid: queries spread over chunks in any order give the in-memory numbers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import rankcore  # noqa: E402
import rankcore.dask  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

SPECS = ["ndcg@k:5", "ndcg@k:3,convention=lightgbm", "ndcg@k:0.5,gain=linear,ties=first,empty=0", "map",
         "mrr:ties=first", "err@k:4", "misrank", "map@k:3,convention=lightgbm"]


def _queries(seed, n=700, n_queries=60):
    """Shuffled rows of queries (every query spread over several chunks), graded labels, scores with ties."""
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, n_queries, size=n)
    grade = rng.integers(0, 5, size=n) * (rng.random(n) < 0.4)
    scores = np.round(rng.normal(size=n) + 0.3 * grade, 1)
    return qid, grade.astype(np.float64), scores


@pytest.mark.parametrize("seed", [0, 1])
def test_graded_metrics_within_queries_equal_in_memory(dask_client, seed):  # noqa: F811
    qid, y, s = _queries(seed)
    expected = rankcore.evaluate(y, s, SPECS, qid=qid)
    got = rankcore.dask.evaluate(da.from_array(y, chunks=97), da.from_array(s, chunks=(50, 200, 13, 437)), SPECS,
                                 qid=da.from_array(qid, chunks=41), client=dask_client)
    assert dict(got) == expected                     # exactly: ties=first keeps the row order
    assert all(got.exact.values()) and got.bounds == {k: (v, v) for k, v in expected.items()}
    # a single list gives other numbers: the queries are used
    assert rankcore.dask.evaluate(y > 0, s, ["auc"], client=dask_client)["auc"] != \
        rankcore.dask.evaluate(y > 0, s, ["auc"], qid=qid, client=dask_client)["auc"]


def test_text_query_ids_in_a_dataframe_and_bipartite_metrics(dask_client):  # noqa: F811
    qid, y, s = _queries(2)
    labels = (y >= 2).astype(np.int8)
    names = np.array([f"user-{q}" for q in qid], dtype=object)
    frame = dd.from_pandas(pd.DataFrame({"q": names, "y": labels, "s": s}), npartitions=5)
    specs = ["auc", "prec@k:3", "pnorm:2", "rmax"]         # pnorm has no distributed form: fine within queries
    expected = rankcore.evaluate(labels, s, specs, qid=names)
    assert dict(rankcore.dask.evaluate(frame["y"], frame["s"], specs, qid=frame["q"], client=dask_client)) == expected


def test_bad_query_ids_name_the_argument(dask_client):  # noqa: F811
    qid, y, s = _queries(3, n=100)
    with pytest.raises(ValueError, match=r"qid: expected one query id per row \(100 rows\), got 99"):
        rankcore.dask.evaluate(y, s, ["map"], qid=qid[:-1], client=dask_client)
    holes = qid.astype(np.float64)
    holes[17] = np.nan
    with pytest.raises(ValueError, match="qid: query ids must not be .*NaN.* at row 17"):
        rankcore.dask.evaluate(y, s, ["map"], qid=da.from_array(holes, chunks=30), client=dask_client)
    with pytest.raises(ValueError, match="takes relevance grades >= 0"):
        rankcore.dask.evaluate(-y, s, ["map"], qid=qid, client=dask_client)
    with pytest.raises(ValueError, match="not a single number"):
        rankcore.dask.evaluate(y > 0, s, ["roc"], qid=qid, client=dask_client)


@pytest.mark.parametrize("kwargs, message", [({"tol": -1}, "tol: expected a number >= 0"),
                                             ({"bins": 0}, "bins: expected an integer >= 2"),
                                             ({"max_passes": -5}, "max_passes: expected an integer >= 0")])
def test_the_refinement_arguments_are_checked_with_qid_too(dask_client, kwargs, message):  # noqa: F811
    # the qid branch returned before the checks: the same call was refused without qid and taken with it
    qid, y, s = _queries(0, n=60, n_queries=6)
    with pytest.raises(ValueError, match=message):
        rankcore.dask.evaluate(da.from_array(y, chunks=20), da.from_array(s, chunks=20), ["ndcg@k:5"],
                               qid=da.from_array(qid, chunks=20), client=dask_client, **kwargs)
