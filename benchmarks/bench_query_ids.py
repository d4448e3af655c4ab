"""Many queries: ``QueryKFold`` against scikit-learn's ``GroupKFold`` and the loop over queries it replaced, and
``check_qid`` of text ids hashed by pandas against the loop over rows, in one run each.

Run::

    RANKCORE_BENCH_PROFILE=full pytest benchmarks/bench_query_ids.py --benchmark-only -s

A recommender's data: one query per user (fast: 30,000 users; full: 300,000), 2 to 40 rows each (geometric,
mean about 20).  ``QueryKFold(5).split`` assigns whole queries to folds by the greedy "largest query to the
fold with the fewest rows", vectorized over runs of equal sizes; the loop it replaced (one ``argmin`` per query)
and ``GroupKFold(5)`` are timed on the same ids.  ``check_qid`` groups a pandas column of user names (fast: 300,000
rows; full: 3,000,000) by pandas' hashing, checked row by row, against the loop over rows it falls back to.
Best of three; ratios printed and kept in ``benchmark.extra_info``; nothing is asserted.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from rankcore import QueryKFold
from rankcore.metrics import _queries, check_qid

USERS = {"fast": 30_000, "full": 300_000}
NAMED_ROWS = {"fast": 300_000, "full": 3_000_000}
SUMMARY: list[str] = []
SUMMARY_TITLE = "query ids"


def _best_of(function, *args, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        function(*args)
        best = min(best, time.perf_counter() - start)
    return best


def _loop_folds(qid, n_splits: int) -> np.ndarray:
    """The assignment QueryKFold made before: each query, largest first, to the fold with the fewest rows."""
    sizes = check_qid(qid, len(qid)).sizes
    folds = np.empty(sizes.shape[0], dtype=np.int64)
    rows = np.zeros(n_splits, dtype=np.int64)
    for q in np.argsort(-sizes, kind="stable"):
        fold = int(np.argmin(rows))
        folds[q] = fold
        rows[fold] += sizes[q]
    return folds


def _record(benchmark, title: str, timings: dict, base: str) -> None:
    for name, seconds in timings.items():
        benchmark.extra_info[f"{name} seconds"] = seconds
        benchmark.extra_info[f"{name} / {base}"] = seconds / timings[base]
        SUMMARY.append(f"{title}: {name} {seconds * 1e3:.0f} ms ({seconds / timings[base]:.2f}x {base})")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)


def test_query_kfold_ratios(benchmark, profile):
    from sklearn.model_selection import GroupKFold

    rng = np.random.default_rng(0)
    sizes = np.minimum(rng.geometric(1 / 20, size=USERS[profile]) + 1, 40)
    qid = rng.permutation(np.repeat(np.arange(sizes.shape[0]), sizes))
    X = np.zeros((qid.shape[0], 1))
    timings = {
        "QueryKFold(5).split": _best_of(lambda: list(QueryKFold(5).split(X, groups=qid))),
        "the loop's assignment alone": _best_of(_loop_folds, qid, 5),
        "GroupKFold(5).split": _best_of(lambda: list(GroupKFold(5).split(X, groups=qid))),
    }
    _record(benchmark, f"{sizes.shape[0]} queries, {qid.shape[0]} rows", timings, "QueryKFold(5).split")


def test_text_ids_ratios(benchmark, profile, monkeypatch):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    names = np.array([f"user-{i:07d}" for i in range(NAMED_ROWS[profile] // 10)], dtype=object)
    column = pd.Series(names[rng.integers(0, names.shape[0], NAMED_ROWS[profile])])
    n = column.shape[0]
    timings = {"check_qid, hashed by pandas": _best_of(check_qid, column, n)}
    monkeypatch.setattr(_queries, "_text_ids", lambda arr: None)       # the loop over rows it falls back to
    timings["check_qid, row by row"] = _best_of(check_qid, column, n)
    _record(benchmark, f"{n} rows of {names.shape[0]} names", timings, "check_qid, hashed by pandas")
