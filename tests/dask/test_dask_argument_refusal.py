"""A Dask fit's refusals of ``position`` and ``sample_weight`` made on a worker reach the client as
``ArgumentRefusal`` with their fields (pickled between processes on a 2-worker LocalCluster), in the words of
before."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.validation import ArgumentRefusal  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _refusals import refused  # noqa: E402

CHUNKS = (90, 60, 90)


def _data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(240, 3))
    qid = np.repeat(np.arange(40), 6)
    y = (X[:, 0] + rng.normal(size=240) > 0.5).astype(int)
    position = np.tile(np.arange(6), 40)
    return X, y, qid, position


def _dask(a):
    return da.from_array(a, chunks=(CHUNKS, -1) if a.ndim == 2 else (CHUNKS,))


def _fit(X, y, **given):
    return DaskPushBoost(n_iter=2, placement="distributed").fit(_dask(X), _dask(y), **given)


def _refusal(call) -> ArgumentRefusal:
    return refused(call)


def test_a_position_refused_on_a_worker_keeps_its_fields(dask_client):
    X, y, qid, position = _data()
    position[100] = -1                                       # row 10 of chunk 1, whose first row is row 90
    exc = _refusal(lambda: _fit(X, y, qid=_dask(qid), position=_dask(position)))
    assert exc.parameter == "position" and exc.reason == "value"
    assert str(exc) == ("position: display positions are integers >= 0, row 10 has -1 (chunk 1, whose first row is "
                        "row 90 of X)")
    assert exc.detail == str(exc)[len("position: "):]


def test_weights_refused_on_a_worker_keep_their_fields(dask_client):
    X, y, _, _ = _data()
    w = np.ones(240)
    w[95] = -2.0
    exc = _refusal(lambda: _fit(X, y, sample_weight=_dask(w)))
    assert (exc.parameter, exc.detail) == ("sample_weight (chunk 1)", "expected non-negative weights, got [-2.0]")


@pytest.mark.parametrize("weights, detail", [
    (np.zeros(240), "expected a positive total weight, got all zeros"),
    (np.ones(7), "expected 240 entries (one per row of X), got 7"),
])
def test_weights_refused_on_the_client_say_sample_weight(dask_client, weights, detail):
    X, y, _, _ = _data()
    exc = _refusal(lambda: _fit(X, y, sample_weight=weights))
    assert (exc.parameter, exc.detail) == ("sample_weight", detail)


@pytest.mark.parametrize("placement", ["distributed", "one_worker"])
def test_a_malformed_sparse_eval_set_is_a_refusal_of_eval_set_x(dask_client, placement):
    """A set's X checked on the client (distributed) or on the worker that fits (one_worker, pickled back): the
    ArgumentRefusal of ``eval_set X`` the in-memory fit raises, with its fields."""
    import scipy.sparse as sp

    X, y, _, _ = _data()
    X_val = sp.csr_matrix(np.where(X > 0, X, 0.0))
    X_val.indices[3] = 9
    exc = _refusal(lambda: DaskPushBoost(n_iter=2, placement=placement).fit(_dask(X), _dask(y),
                                                                            eval_set=[(X, y), (X_val, y)]))
    assert type(exc) is ArgumentRefusal and exc.parameter == "eval_set[1] X"
    assert str(exc).startswith("eval_set[1] X: malformed sparse CSR matrix of shape (240, 3): every column index ")
    assert exc.detail == str(exc)[len("eval_set[1] X: "):]
