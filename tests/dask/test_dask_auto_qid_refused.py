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


@pytest.mark.parametrize("given", ["position", "init_score", "eval_set", "eval_names", "eval_metric",
                                   "eval_init_score"])
def test_dask_auto_ranker_refuses_the_in_memory_fit_inputs(given):
    value = (X, Y % 2) if given == "eval_set" else ["a"] if given == "eval_names" else "auc" \
        if given == "eval_metric" else np.zeros(20)
    with pytest.raises(ValueError, match=rf"^{given}: DaskAutoRanker takes no {given} \(its tasks carry the rows "
                                         rf"and their weights only\); fit rankcore.AutoRanker\(...\).fit\(X, y, "
                                         rf"{given}=...\) in memory"):
        DaskAutoRanker(candidates=["stumps:n_iter=3"]).fit(X, Y % 2, **{given: value})


def test_dask_auto_ranker_refuses_init_model_as_auto_ranker_does():
    with pytest.raises(ValueError, match="^init_model: AutoRanker does not continue a fitted model"):
        DaskAutoRanker(candidates=["stumps:n_iter=3"]).fit(X, Y % 2, init_model=object())
