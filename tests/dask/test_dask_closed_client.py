"""A closed Dask client given to a Dask estimator is refused by name, not by an error from inside distributed."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from rankcore.dask import DaskPushBoost  # noqa: E402


def test_a_closed_client_is_refused_by_name():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        client = distributed.Client(cluster)
        client.close()
        with pytest.raises(ValueError, match=r"^client: the Dask client is closed"):
            DaskPushBoost(client=client, n_iter=2).fit(X, y)
