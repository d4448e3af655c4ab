"""A learner plugin whose ``contributions`` takes no ``groups``, on Dask: the in-memory estimator's clear TypeError,
said on the client before any chunk is computed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.learners.trees._learner import Trees  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _old_trees import OldTrees  # noqa: E402
from _plugin_registration import components_registered  # noqa: E402


def _fitted(learner: str, seed: int):
    """200 rows × 4 (in memory and as a Dask array of three chunks) and a distributed fit of 3 trees of ``learner``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    Xd = da.from_array(X, chunks=(70, -1))
    model = DaskPushBoost(placement="distributed", learner=learner, n_iter=3,
                          random_state=0).fit(Xd, da.from_array(y, chunks=(70,)))
    return X, Xd, model


def test_groups_to_a_plugin_without_them_are_refused_on_the_client(dask_client):
    with components_registered("rankcore_register_learners", [OldTrees], "dask-groups-test-learner"):
        X, Xd, model = _fitted("old-trees:max_leaves=4", seed=0)
        lazy = model.feature_contributions(Xd, background=X[:10])      # no groups: as before
        np.testing.assert_array_equal(lazy.compute(), model.to_local().feature_contributions(X, background=X[:10]))
        for method, name in ((model.feature_contributions, "contributions"),
                             (model.feature_interactions, "interaction_values")):
            with pytest.raises(TypeError, match=f"the learner 'old-trees.*has a method {name} that takes no "
                                                "groups"):
                method(Xd, background=X[:10], groups=[0, 0, 1, 2])


class StrictTrees(Trees):
    """A plugin's trees whose methods take the thread count as a required argument, as the estimators pass it."""

    name = "dask-strict-trees"
    aliases = ()

    @staticmethod
    def contributions(rankers, alphas, X, n_threads, background=None, groups=None):
        return Trees.contributions(rankers, alphas, X, n_threads, background=background, groups=groups)


def test_the_client_check_passes_the_thread_count_as_the_chunks_do(dask_client):  # noqa: F811
    """The client's call on no rows (the checks of covers and columns) passes every argument the chunks' calls
    pass: a plugin whose ``n_threads`` has no default is explained as in memory (it was a TypeError of Python's)."""
    with components_registered("rankcore_register_learners", [StrictTrees], "dask-strict-test-learner"):
        X, Xd, model = _fitted("dask-strict-trees:max_leaves=4", seed=1)
        local = model.to_local()
        np.testing.assert_array_equal(model.feature_contributions(Xd).compute(), local.feature_contributions(X))
        grouped = {"background": X[:10], "groups": [0, 0, 1, 2]}
        np.testing.assert_array_equal(model.feature_contributions(Xd, **grouped).compute(),
                                      local.feature_contributions(X, **grouped))
