"""Synthetic data shaped like the real sets where the trees' layout matters (one-hot, sparse and rare counts).

Built in memory and never written; each maker takes a seed, so a benchmark
and a study that call it with the same arguments see the same data.  The
trees' whole-fit benchmark (``bench_trees.py``) and the studies in
``studies/`` share them.
"""

from __future__ import annotations

import numpy as np

#: The UCI Adult census' categorical columns and their level counts (workclass ... native-country).
CENSUS_LEVELS = (9, 16, 7, 15, 6, 5, 2, 42)
CENSUS_ROWS = 32_561


def census_shaped(n: int = CENSUS_ROWS, seed: int = 2):
    """One-hot categorical columns with the census' level counts, plus 6 numeric columns (2 mostly zero).

    Levels are drawn with skewed (Zipf-like) frequencies; the label follows
    a logistic model of a few levels, the numeric columns and one
    interaction, with about 24 % positives (as in the census).
    """
    rng = np.random.default_rng(seed)
    blocks, logit = [], np.zeros(n)
    for levels in CENSUS_LEVELS:
        p = 1.0 / np.arange(1, levels + 1) ** 1.2
        codes = rng.choice(levels, size=n, p=p / p.sum())
        effect = rng.normal(scale=0.8, size=levels)
        logit += effect[codes]
        blocks.append(np.eye(levels, dtype=np.float64)[codes])
    numeric = rng.normal(size=(n, 6))
    numeric[:, 0] = np.round(17 + 60 * rng.beta(2, 4, n))                    # age-like
    numeric[:, 4] = np.where(rng.random(n) < 0.08, np.round(np.exp(rng.normal(8, 1, n))), 0.0)   # gains
    numeric[:, 5] = np.where(rng.random(n) < 0.05, np.round(np.exp(rng.normal(7, 0.5, n))), 0.0)
    logit += 0.04 * (numeric[:, 0] - 38) + 0.5 * numeric[:, 1] + 0.8 * (numeric[:, 4] > 5000)
    logit += 0.6 * blocks[0][:, 0] * numeric[:, 2]
    y = (rng.random(n) < 1 / (1 + np.exp(-(logit - np.quantile(logit, 0.76))))).astype(np.int8)
    return np.ascontiguousarray(np.hstack(blocks + [numeric])), y


def sparse_counts(n: int = 8_190, d: int = 1_500, density: float = 0.02, seed: int = 3):
    """n × d Poisson counts on ``density`` of the entries (most columns binary), about 45 % positives.

    The label follows a logistic model of 60 columns' presence and two
    interactions: many mostly-zero columns of a few distinct values, as in
    bag-of-words or event-count tables.
    """
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < density, rng.poisson(0.3, size=(n, d)) + 1.0, 0.0)
    used = rng.choice(d, size=60, replace=False)
    logit = (X[:, used] > 0) @ rng.normal(scale=1.0, size=60)
    logit += 1.5 * (X[:, used[0]] > 0) * (X[:, used[1]] > 0) - 1.0 * (X[:, used[2]] > 1)
    y = (rng.random(n) < 1 / (1 + np.exp(-(logit - np.quantile(logit, 0.55))))).astype(np.int8)
    return np.ascontiguousarray(X), y


def skewed_counts(n: int = 8_190, d: int = 1_500, seed: int = 5):
    """n × d Poisson counts whose columns' shares of nonzero entries fall as a power of their rank.

    Column j (from 0) is nonzero on a share 0.3·(j + 1)^-0.8 of the rows, as
    word counts are (a few common, most rare): about three quarters of the
    columns are nonzero on fewer than 20 rows -- modeldata's grant
    applications have the same share -- and no split of 20-row leaves can
    use them.  The label follows a logistic model of 40 of the first 300
    columns' presence.
    """
    rng = np.random.default_rng(seed)
    share = 0.3 * (np.arange(d) + 1.0) ** -0.8
    X = np.where(rng.random((n, d)) < share, rng.poisson(0.3, size=(n, d)) + 1.0, 0.0)
    used = rng.choice(300, size=40, replace=False)
    logit = (X[:, used] > 0) @ rng.normal(scale=1.0, size=40)
    y = (rng.random(n) < 1 / (1 + np.exp(-(logit - np.quantile(logit, 0.55))))).astype(np.int8)
    return np.ascontiguousarray(X), y
