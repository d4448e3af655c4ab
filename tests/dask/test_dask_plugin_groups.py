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
from _plugin_registration import components_registered  # noqa: E402


class OldTrees(Trees):
    """A plugin's trees written before ``groups``."""

    name = "dask-old-trees"
    aliases = ()

    @staticmethod
    def contributions(rankers, alphas, X, n_threads=1, background=None):
        return Trees.contributions(rankers, alphas, X, n_threads, background=background)

    @staticmethod
    def interaction_values(rankers, alphas, X, n_threads=1, max_bytes=None, background=None):
        return Trees.interaction_values(rankers, alphas, X, n_threads, max_bytes, background=background)


def test_groups_to_a_plugin_without_them_are_refused_on_the_client(dask_client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    with components_registered("rankcore_register_learners", [OldTrees], "dask-groups-test-learner"):
        Xd = da.from_array(X, chunks=(70, -1))
        model = DaskPushBoost(placement="distributed", learner="dask-old-trees:max_leaves=4", n_iter=3,
                              random_state=0).fit(Xd, da.from_array(y, chunks=(70,)))
        lazy = model.feature_contributions(Xd, background=X[:10])      # no groups: as before
        np.testing.assert_array_equal(lazy.compute(), model.to_local().feature_contributions(X, background=X[:10]))
        for method, name in ((model.feature_contributions, "contributions"),
                             (model.feature_interactions, "interaction_values")):
            with pytest.raises(TypeError, match=f"the learner 'dask-old-trees.*has a {name} method that takes no "
                                                "groups"):
                method(Xd, background=X[:10], groups=[0, 0, 1, 2])
