"""``ndcg@10`` is ``ndcg@k:10``: the registry's ``name@K`` shorthand for metrics registered as ``name@k``."""

import numpy as np
import pytest

import rankcore
from rankcore.registry import UnknownComponentError, resolve


@pytest.mark.parametrize("short, full", [
    ("ndcg@10", "ndcg@k:10"),
    ("ndcg@3:gain=linear,empty=1", "ndcg@k:3,gain=linear,empty=1"),
    ("err@5", "err@k:5"),
    ("prec@4", "prec@k:4"),
    ("prec@0.25", "prec@k:0.25"),
])
def test_shorthand_is_the_k_metric(short, full):
    assert resolve("metric", short).spec == resolve("metric", full).spec
    rng = np.random.default_rng(0)
    y, s, qid = rng.integers(0, 2, 120), rng.normal(size=120), np.repeat(np.arange(8), 15)
    assert rankcore.evaluate(y, s, [short], qid=qid)[short] == rankcore.evaluate(y, s, [full], qid=qid)[full]


@pytest.mark.parametrize("spec", ["foo@10", "auc@10", "ndcg@ten"])
def test_shorthand_of_no_k_metric_is_unknown(spec):
    with pytest.raises(UnknownComponentError, match="unknown metric"):
        resolve("metric", spec)


def test_shorthand_as_estimator_scoring():
    from rankcore.push import PushBoost

    assert PushBoost(scoring="ndcg@10")._setup_record().metric.spec == "ndcg@k:10"
