"""Query ids that mix numbers and text are refused on Dask as in memory, wherever the ids meet.

One chunk holding the integer 5 and another the string "5": NumPy's
concatenation of the chunks' ids would make both text, so the Dask fit saw
one query where the in-memory fit of the same ids (an object array) sees
two.  Both now refuse them (an ``ArgumentTypeRefusal`` of ``qid`` naming an
id of each type and its chunk): the distributed fit's survey of the ids,
the fit on one worker, a validation set's ids, ``score`` and
``rankcore.dask.evaluate``.  Ids of one
type in every chunk still fit (the ``test_dask_queries`` equalities).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402

import rankcore.dask  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.validation import ArgumentTypeRefusal  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _query_data import graded_queries  # noqa: E402

CHUNKS = (90, 41, 120, 77)


def _data():
    X, y, qid = graded_queries(0, n_queries=32, rows=(6, 18))
    n = sum(CHUNKS)
    return X[:n], y[:n], np.unique(qid[:n], return_inverse=True)[1].astype(np.int64) + 1      # ids 1, 2, ...


def _mixed_ids(qid, text_chunk: int = 2):
    """The ids chunked as CHUNKS, chunk ``text_chunk``'s as strings ("5"), the others' as integers (5)."""
    cuts = np.cumsum((0,) + CHUNKS)
    parts = []
    for k in range(len(CHUNKS)):
        part = qid[cuts[k]:cuts[k + 1]]
        part = part.astype(str) if k == text_chunk else part
        parts.append(da.from_delayed(dask.delayed(part), shape=part.shape, dtype=object))
    return da.concatenate(parts)


def _dask(X, y):
    return da.from_array(X, chunks=(CHUNKS, -1)), da.from_array(y, chunks=(CHUNKS,))


def _assert_refused(info, where: str):
    exc = info.value
    assert isinstance(exc, TypeError) and isinstance(exc, ValueError)
    assert exc.parameter.endswith("qid")
    assert "query ids mix numbers and text" in str(exc) and where in str(exc)
    assert "(int)" in str(exc) and "(str)" in str(exc)


def test_the_ids_are_text_in_one_chunk_only():
    """The fixture itself: without the refusal the chunks' ids would be one type once concatenated."""
    X, y, qid = _data()
    chunks = [np.asarray(c) for c in dask.compute(*_mixed_ids(qid).to_delayed().ravel())]
    assert [c.dtype.kind for c in chunks] == ["i", "i", "U", "i"]
    assert np.concatenate(chunks).dtype.kind == "U"       # NumPy's join: 5 and "5" become one id


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_fit_refuses_ids_of_two_types(dask_client, placement):  # noqa: F811
    X, y, qid = _data()
    Xd, yd = _dask(X, y)
    model = DaskPushBoost(learner="trees", n_iter=2, random_state=0, placement=placement)
    with pytest.raises(ArgumentTypeRefusal) as info:
        model.fit(Xd, yd, qid=_mixed_ids(qid))
    _assert_refused(info, "chunk 2")


def test_fit_in_memory_refuses_the_same_ids():
    """The in-memory fit of the same ids (one object array) refuses them too: the two agree."""
    X, y, qid = _data()
    ids = qid.astype(object)
    ids[CHUNKS[0] + CHUNKS[1]:] = [str(v) for v in ids[CHUNKS[0] + CHUNKS[1]:]]
    with pytest.raises(ArgumentTypeRefusal) as info:
        rankcore.PushBoost(learner="trees", n_iter=2, random_state=0).fit(X, y, qid=ids)
    _assert_refused(info, "at row")


def test_score_and_evaluate_refuse_ids_of_two_types(dask_client):  # noqa: F811
    X, y, qid = _data()
    Xd, yd = _dask(X, y)
    model = DaskPushBoost(learner="trees", n_iter=2, random_state=0).fit(Xd, yd, qid=da.from_array(qid, CHUNKS))
    with pytest.raises(ArgumentTypeRefusal) as info:
        model.score(Xd, yd, qid=_mixed_ids(qid))
    _assert_refused(info, "of chunk 2")
    scores = model.decision_function(Xd)
    with pytest.raises(ArgumentTypeRefusal) as info:
        rankcore.dask.evaluate(yd, scores, "ndcg@k:5", qid=_mixed_ids(qid), client=dask_client)
    _assert_refused(info, "of chunk 2")
    # ids of one type in every chunk: scored, as before
    assert np.isfinite(rankcore.dask.evaluate(yd, scores, "ndcg@k:5", qid=_mixed_ids(qid, text_chunk=-1),
                                              client=dask_client)["ndcg@k:5"])


def test_an_eval_sets_and_an_in_memory_scores_dask_ids_are_refused_alike(dask_client):  # noqa: F811
    """Ids computed to the client (a validation set's, ``score`` of in-memory X) are joined chunk by chunk too."""
    X, y, qid = _data()
    Xd, yd = _dask(X, y)
    qd = da.from_array(qid, CHUNKS)
    model = DaskPushBoost(learner="trees", n_iter=2, random_state=0)
    with pytest.raises(ArgumentTypeRefusal) as info:
        model.fit(Xd, yd, qid=qd, eval_set=(X, y, _mixed_ids(qid)))
    _assert_refused(info, "of chunk 2")
    assert info.value.parameter == "eval_set qid"
    model.fit(Xd, yd, qid=qd, eval_set=(X, y, _mixed_ids(qid, text_chunk=-1)))      # one type: taken
    with pytest.raises(ArgumentTypeRefusal) as info:
        model.score(X, y, qid=_mixed_ids(qid))
    _assert_refused(info, "of chunk 2")


def _chunked(parts):
    return da.concatenate([da.from_delayed(dask.delayed(p), shape=p.shape, dtype=object) for p in parts])


def test_a_nan_chunk_is_missing_and_bytes_beside_text_are_two_ids_as_in_memory(dask_client):  # noqa: F811
    """A chunk of float ids holding NaN beside chunks of text: refused as a missing id (NumPy's join would make it
    the text "nan"); chunks of b"..." and "..." ids: the queries of one object array holding them."""
    X, y, qid = _data()
    Xd, yd = _dask(X, y)
    model = DaskPushBoost(learner="trees", n_iter=2, random_state=0).fit(Xd, yd, qid=da.from_array(qid, CHUNKS))
    scores = model.decision_function(Xd)
    cuts = np.cumsum((0,) + CHUNKS)
    text = [qid[cuts[k]:cuts[k + 1]].astype(str) for k in range(len(CHUNKS))]
    holed = text[:1] + [np.where(np.arange(CHUNKS[1]) == 3, np.nan, 1.0)] + text[2:]
    with pytest.raises(ValueError, match="qid: query ids must not be NaN, got NaN at row 3 of chunk 1"):
        rankcore.dask.evaluate(yd, scores, "ndcg@k:5", qid=_chunked(holed), client=dask_client)
    encoded = [t.astype("S") if k % 2 else t for k, t in enumerate(text)]       # b"5" in chunks 1, 3; "5" in 0, 2
    ids = np.concatenate([e.astype(object) for e in encoded])
    expected = rankcore.evaluate(y, np.asarray(scores), "ndcg@k:5", qid=ids)["ndcg@k:5"]
    got = rankcore.dask.evaluate(yd, scores, "ndcg@k:5", qid=_chunked(encoded), client=dask_client)["ndcg@k:5"]
    assert got == pytest.approx(expected, abs=1e-12)
    assert got != pytest.approx(rankcore.evaluate(y, np.asarray(scores), "ndcg@k:5", qid=qid)["ndcg@k:5"], abs=1e-9)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_text_ids_of_a_string_column_fit_score_and_evaluate_without_a_warning(dask_client, placement):  # noqa: F811
    """Text ids read from a CSV or Parquet file are a pandas ``string`` column: Dask warned at every call that it
    made them objects (which rankcore asked for); they are the in-memory ids, and no warning is given."""
    import warnings

    import dask.dataframe as dd
    import pandas as pd

    X, y, qid = _data()
    text = pd.Series([f"q{q:03d}" for q in qid], dtype="string")
    ids = dd.from_pandas(text, npartitions=4)
    X_d = da.from_array(X, chunks=(CHUNKS, -1))
    y_d = da.from_array(y, chunks=(CHUNKS,))
    params = dict(learner="trees:max_leaves=4", n_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = DaskPushBoost(placement=placement, **params).fit(X_d, y_d, qid=ids)
        scored = model.score(X_d, y_d, qid=ids)
        evaluated = rankcore.dask.evaluate(y_d, model.decision_function(X_d), ["ndcg@k:10"], qid=ids)
    local = rankcore.PushBoost(**params).fit(X, y, qid=text.to_numpy(dtype=object))
    np.testing.assert_allclose(model.to_local().decision_function(X), local.decision_function(X), rtol=1e-9,
                               atol=1e-12)
    assert scored == pytest.approx(local.score(X, y, qid=text.to_numpy(dtype=object)), rel=1e-9)
    assert evaluated["ndcg@k:10"] == pytest.approx(scored, rel=1e-12)
