"""DaskAutoRanker refuses qid and group, naming itself and the in-memory AutoRanker."""

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")     # rankcore.dask needs the [dask] extra

from rankcore.dask import DaskAutoRanker  # noqa: E402

X = np.random.default_rng(0).normal(size=(20, 2))
Y = np.arange(20) % 3
QID = np.repeat(np.arange(4), 5)


@pytest.mark.parametrize("given", ["qid", "group"])
def test_dask_auto_ranker_refuses_queries(given):
    value = QID if given == "qid" else [5, 5, 5, 5]
    with pytest.raises(ValueError, match=rf"^DaskAutoRanker cannot search within queries \({given}\); fit "
                                         rf"rankcore.AutoRanker\(...\).fit\(X, y, {given}={given}\) in memory"):
        DaskAutoRanker(candidates=["stumps:n_iter=3"]).fit(X, Y, **{given: value})
