"""DaskAutoRanker exports its chosen trees as AutoRanker does: the same files as the in-process search's."""

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra
pytest.importorskip("distributed")

import rankcore  # noqa: E402
from rankcore.dask import DaskAutoRanker  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401


def test_dask_auto_ranker_writes_the_in_process_files(dask_client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + 0.6 * rng.normal(size=200) > 0.5).astype(int)
    params = dict(candidates=["trees:n_iter=8,max_leaves=4"], random_state=5, n_jobs=1)
    remote = DaskAutoRanker(client=dask_client, **params).fit(X, y)
    local = rankcore.AutoRanker(**params).fit(X, y)
    assert isinstance(remote.best_estimator_, rankcore.auto.FoldBag)
    assert remote.to_lightgbm() == local.to_lightgbm()
    assert remote.to_xgboost_json() == local.to_xgboost_json()


def test_dask_auto_rankers_refusals_name_its_class(dask_client):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0.5).astype(int)
    remote = DaskAutoRanker(client=dask_client, candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(X, y)
    for method in ("to_lightgbm", "to_xgboost_json"):
        with pytest.raises(TypeError, match=rf"^DaskAutoRanker.{method}: the chosen model 'linear:n_epochs=2'"):
            getattr(remote, method)()
