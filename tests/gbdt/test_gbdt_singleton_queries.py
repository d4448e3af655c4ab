"""The library's query sizes reach a metric adapter as sizes: a validation set of one-row queries, which LightGBM
takes and scores, is no ``group`` of n ones to tell apart from one id per row (``rankcore.fit(group=...)``)."""

import numpy as np
import pytest

from rankcore.gbdt import lightgbm_metric

lgb = pytest.importorskip("lightgbm")


def test_a_validation_set_of_one_row_queries_is_scored_as_lightgbm_scores_it():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 3, size=60).astype(float)
    X_valid, y_valid = rng.normal(size=(12, 3)), rng.integers(0, 3, size=12).astype(float)
    train = lgb.Dataset(X, y, group=[20, 20, 20])
    valid = lgb.Dataset(X_valid, y_valid, group=[1] * 12, reference=train)
    result = {}
    lgb.train({"objective": "lambdarank", "metric": "ndcg", "eval_at": [1], "verbose": -1, "num_threads": 1,
               "min_child_samples": 5}, train, num_boost_round=3, valid_sets=[valid], valid_names=["v"],
              feval=lightgbm_metric("ndcg@k:1"), callbacks=[lgb.record_evaluation(result)])
    ours = [key for key in result["v"] if key != "ndcg@1"]
    assert len(ours) == 1
    # a one-row query is ranked right whatever the scores: LightGBM's own ndcg@1 and rankcore's say 1
    assert result["v"][ours[0]] == result["v"]["ndcg@1"] == [1.0, 1.0, 1.0]
