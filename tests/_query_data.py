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
