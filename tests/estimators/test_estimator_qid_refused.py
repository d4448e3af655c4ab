"""Estimators that rank one list refuse qid and group, naming themselves and the push estimators."""

import numpy as np
import pytest

from rankcore.exactboost import ExactBoost
from rankcore.precision_at_k import PerceptronAtK, SGDAtK
from rankcore.rkhs import KernelRanker

X = np.random.default_rng(0).normal(size=(20, 2))
Y = np.arange(20) % 2
QID = np.repeat(np.arange(4), 5)


@pytest.mark.parametrize("estimator", [KernelRanker(), PerceptronAtK(k=3), SGDAtK(k=3), ExactBoost()],
                         ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("given", ["qid", "group"])
def test_estimator_qid_refused(estimator, given):
    value = QID if given == "qid" else [5, 5, 5, 5]
    with pytest.raises(ValueError, match=rf"^{type(estimator).__name__} ranks one list; it cannot fit within "
                                         rf"queries \({given}\); use rankcore.boost\(...\)"):
        estimator.fit(X, Y, **{given: value})
