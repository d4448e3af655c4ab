"""Queries with a first-stage score (or another per-row column read aside) in a CSV column, shared by the tests of
``fit --init-score``, ``fit --eval-metric`` and ``--weight``."""

from __future__ import annotations

import csv

import numpy as np

#: Iterations of the fits of these tests: enough for the scores to differ, few for speed.
N_ITER = "8"
HEADER = ["query", "a", "b", "prior", "c", "grade"]


def ranked(seed, n_queries=24):
    """Queries of 4..10 rows, graded 0..3, and a first-stage score that knows the first feature."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 11, size=n_queries)
    query = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(query.size, 3))
    grade = np.clip(np.round(X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.5, size=query.size) + 1), 0, 3)
    prior = 0.8 * X[:, 0] + rng.normal(scale=0.3, size=query.size)
    return query, X, prior, grade.astype(int)


def write(path, query, X, prior, grade, header=HEADER, aside="prior"):
    """The rows as a CSV file of the columns ``header`` (floats written exactly, by their repr), ``prior`` in the
    column ``aside``; ``path``."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        for i in range(query.size):
            row = {"query": f"q{query[i]}", aside: repr(float(prior[i])), "grade": str(grade[i]),
                   **{name: repr(float(v)) for name, v in zip("abc", X[i])}}
            writer.writerow([row[name] for name in header])
    return path


def read(path, aside="prior"):
    """(frame of a, b, c; grades; query ids; the column ``aside``), read with the csv module, not rankcore's
    reader."""
    import pandas as pd

    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    frame = pd.DataFrame({name: [float(r[name]) for r in rows] for name in "abc"})
    return (frame, np.array([float(r["grade"]) for r in rows]), np.array([r["query"] for r in rows]),
            np.array([float(r[aside]) for r in rows]))
