"""QueryKFold's folds, computed with NumPy one run of equal query sizes at a time, are the folds of the loop over
queries it replaced (kept here as the reference), for every input and random_state."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils import check_random_state

from rankcore import QueryKFold
from rankcore._query_folds import _greedy_folds
from rankcore.metrics import check_qid


def reference_folds(qid, n_splits, shuffle, random_state):
    """The loop of the former QueryKFold: each query, largest first, to the fold with the fewest rows so far."""
    sizes = check_qid(qid, len(qid)).sizes
    folds = np.empty(sizes.shape[0], dtype=np.int64)
    if shuffle:
        order = check_random_state(random_state).permutation(sizes.shape[0])
        folds[order] = np.arange(sizes.shape[0]) % n_splits
        return folds
    rows = np.zeros(n_splits, dtype=np.int64)
    for q in np.argsort(-sizes, kind="stable"):
        fold = int(np.argmin(rows))
        folds[q] = fold
        rows[fold] += sizes[q]
    return folds


def reference_split(qid, n_splits, shuffle=False, random_state=None):
    fold_of_row = reference_folds(qid, n_splits, shuffle, random_state)[check_qid(qid, len(qid)).codes]
    return [(np.flatnonzero(fold_of_row != f), np.flatnonzero(fold_of_row == f)) for f in range(n_splits)]


def random_ids(rng, kind):
    n_queries = int(rng.integers(2, 80))
    high = int(rng.choice([2, 4, 30, 500]))                        # small highs: many ties of query sizes
    sizes = rng.integers(1, high, size=n_queries)
    if rng.random() < 0.3:                                          # one large query ahead of many small ones
        sizes[int(rng.integers(n_queries))] = int(rng.integers(200, 2000))
    names = rng.permutation(n_queries)
    if kind == "str":
        names = np.array([f"user{v}" for v in names])
    elif kind == "object":                                          # tuples: ids NumPy cannot sort
        values = [("u", int(v)) if v % 2 else ("x", str(v)) for v in names]
        names = np.empty(n_queries, dtype=object)
        names[:] = values
    return rng.permutation(np.repeat(names, sizes))


@pytest.mark.parametrize("kind", ["int", "str", "object"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_folds_equal_the_loop_over_queries(kind, shuffle):
    rng = np.random.default_rng(7 + 3 * shuffle + len(kind))
    for _ in range(60):
        qid = random_ids(rng, kind)
        n_queries = len(set(qid.tolist()))
        n_splits = int(rng.integers(2, min(n_queries, 12) + 1))
        seed = int(rng.integers(1000)) if shuffle else None
        got = list(QueryKFold(n_splits, shuffle=shuffle, random_state=seed).split(np.zeros((len(qid), 1)), qid=qid))
        want = reference_split(qid, n_splits, shuffle, seed)
        assert len(got) == n_splits
        for (train, test), (ref_train, ref_test) in zip(got, want):
            np.testing.assert_array_equal(test, ref_test)
            np.testing.assert_array_equal(train, ref_train)


def test_greedy_folds_on_sizes_with_many_ties():
    # the fold assignment itself, on sizes alone: runs of equal sizes of every length, folds from 2 to more than
    # the queries of a run, and loads left unequal by an earlier large query
    rng = np.random.default_rng(3)
    for _ in range(400):
        n_queries = int(rng.integers(2, 120))
        sizes = rng.integers(1, int(rng.choice([2, 3, 6, 50])), size=n_queries)
        if rng.random() < 0.4:
            sizes[:int(rng.integers(1, 4))] = rng.integers(50, 5000)
        n_splits = int(rng.integers(2, n_queries + 1))
        qid = np.repeat(np.arange(n_queries), sizes)
        np.testing.assert_array_equal(_greedy_folds(sizes.astype(np.int64), n_splits),
                                      reference_folds(qid, n_splits, False, None))
