"""Small synthetic grouped data with graded labels, shared by the tests of fits within queries."""

from __future__ import annotations

import numpy as np


def graded_queries(seed: int = 0, n_queries: int = 24, rows: tuple[int, int] = (6, 16), n_features: int = 4):
    """(X, y, qid): queries of varied sizes, interleaved (not sorted, not contiguous), string ids.

    Grades 0-3 follow the first two features plus noise, so a ranker can
    learn them; one query has a single grade (nothing to order) and one has
    no relevant row.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(rows[0], rows[1], n_queries)
    qid = np.repeat([f"q{j:02d}" for j in range(n_queries)], sizes)
    X = rng.normal(size=(qid.shape[0], n_features))
    signal = X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.6, size=qid.shape[0])
    y = np.clip(np.round(signal + 1.0), 0, 3)
    y[qid == "q00"] = 2.0            # a single grade: no pair to order
    y[qid == "q01"] = 0.0            # no relevant row (left out of ndcg's mean)
    order = rng.permutation(qid.shape[0])
    return X[order], y[order], qid[order]


def consecutive_queries(seed: int, n_queries: int = 40):
    """(X, y, qid, sizes): queries of 2..11 rows in consecutive blocks (as LightGBM and XGBoost take them), four
    features, grades 0..3 following the first feature, and query 3 all 0 (no relevant row)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 12, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=qid.size) + 1), 0, 3)
    y[qid == 3] = 0.0
    return X, y, qid, sizes


def logged_clicks(seed: int, n_queries: int = 300, size: int = 10, n_features: int = 5):
    """(X, clicks, qid, position, grades): each query shown in the order of a logger that ranked by feature 4, which
    says nothing of the grades (from features 0 and 1); a row at place p (0 first) is seen with probability
    1 / (p + 1) and then clicked with probability growing with its grade."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), size)
    X = rng.normal(size=(qid.size, n_features))
    grades = np.clip(np.round(X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.5, size=qid.size)) + 1, 0, 3)
    logger = 0.3 * grades + 3.0 * X[:, 4] + rng.normal(size=qid.size)
    position = np.empty(qid.size, dtype=np.int64)
    for q in range(n_queries):
        rows = slice(q * size, (q + 1) * size)
        position[rows] = np.argsort(np.argsort(-logger[rows], kind="stable"), kind="stable")
    seen = rng.random(qid.size) < 1.0 / (position + 1.0)
    clicks = (seen & (rng.random(qid.size) < 0.1 + 0.9 * (2.0 ** grades - 1) / 7)).astype(np.float64)
    return X, clicks, qid, position, grades


def short_queries(seed: int = 0, n_queries: int = 60, long: int = 12, n_features: int = 5):
    """(X, y, qid): queries of 2 to 5 rows and one of ``long`` rows (``long`` = 0: none), consecutive integer ids,
    labels 0/1 following the first feature plus noise (a count k of 10 reaches only the long query)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 6, n_queries)
    if long:
        sizes[0] = long
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n_features))
    y = (X[:, 0] + rng.normal(size=qid.size) > 0.5).astype(int)
    return X, y, qid


def xgboost_evals(y, scores, qid, names, **params):
    """XGBoost's eval metrics ``names`` of ``scores`` (per query ``qid``), at full precision: a booster with eta 0 adds
    nothing to the margins.  The rows reach XGBoost sorted by query (stable), as it needs them; ``params`` are more
    booster parameters (``ndcg_exp_gain=False``).  Skips the test without XGBoost."""
    import pytest

    xgb = pytest.importorskip("xgboost")
    y, scores, qid = np.asarray(y), np.asarray(scores), np.asarray(qid)
    order = np.argsort(qid, kind="stable")
    data = xgb.DMatrix(np.zeros((y.shape[0], 1)), label=y[order], qid=qid[order], base_margin=scores[order])
    record: dict = {}
    xgb.train({"objective": "rank:pairwise", "eval_metric": list(names), "eta": 0.0, "max_depth": 1, "nthread": 1,
               **params}, data, num_boost_round=1, evals=[(data, "v")], evals_result=record, verbose_eval=False)
    return {name: record["v"][name][0] for name in names}
