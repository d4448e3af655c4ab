"""A Dask ``qid`` of fewer entries than the rows that reads as LightGBM's sizes: the refusal says so, as the
in-memory fit's does (before: "expected 200 entries (one per row of X), got 4" alone)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.validation import ArgumentRefusal  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

_HINT = "these look like the sizes of consecutive queries (LightGBM's group): pass them as group= instead"


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    return da.from_array(X, chunks=100), da.from_array(rng.integers(0, 3, 200), chunks=100)


@pytest.mark.parametrize("local", [False, True])
def test_dask_qid_of_sizes_gets_the_sizes_hint(dask_client, local):  # noqa: F811
    X, y = _data()
    sizes = np.array([50, 50, 60, 40])
    qid = sizes if local else da.from_array(sizes, chunks=2)
    with pytest.raises(ArgumentRefusal if not local else ValueError, match=r"^qid: expected") as info:
        DaskPushBoost(learner="trees", n_iter=2, client=dask_client).fit(X, y, qid=qid)
    assert _HINT in str(info.value)


def test_dask_qid_of_another_wrong_length_gets_no_sizes_hint(dask_client):  # noqa: F811
    X, y = _data()
    with pytest.raises(ArgumentRefusal, match=r"^qid: expected 200 entries \(one per row of X\), got 3$"):
        DaskPushBoost(learner="trees", n_iter=2, client=dask_client).fit(X, y, qid=da.from_array(np.array([1, 2, 3])))
