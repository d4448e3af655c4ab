"""The Dask estimators that rank one list refuse qid and group before touching a cluster (DaskAutoRanker: its own
test; DaskPushBoost fits within queries)."""

import numpy as np
import pytest

pytest.importorskip("dask")

from rankcore.dask import DaskExactBoost  # noqa: E402

X = np.random.default_rng(0).normal(size=(20, 2))
Y = np.arange(20) % 2


@pytest.mark.parametrize("estimator", [DaskExactBoost()],
                         ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("given", ["qid", "group"])
def test_dask_qid_refused(estimator, given):
    value = np.repeat(np.arange(4), 5) if given == "qid" else [5, 5, 5, 5]
    with pytest.raises(ValueError, match=rf"^{type(estimator).__name__} ranks one list; it cannot fit within "
                                         rf"queries \({given}\)"):
        estimator.fit(X, Y, **{given: value})
