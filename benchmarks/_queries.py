"""Grouped (per-query) data for the ranking benchmarks: LightGBM's LTR example and a synthetic generator.

* :func:`load_lambdarank` reads LightGBM's public learning-to-rank example
  (``lightgbm-lambdarank/rank.{train,test}.gz`` with their ``.query`` size
  files) from the datasets folder :mod:`_data` finds, both files joined with
  one query id per row.
* :func:`synthetic_queries` draws queries of varying sizes with graded labels
  0-4 from a nonlinear latent relevance: per-query shifts of the relevance
  (which a model that ignores the queries cannot see) and of the features
  (which it must see past), noise, a few informative features among many
  noisy ones, and few relevant documents per query, so that the top matters.
* :func:`retrieval_queries` draws many short queries (a few to a few hundred
  documents) whose features look like a search engine's: noisy, monotone
  transforms of a query-document match (text scores on several fields, their
  scale varying with the query), document-quality features, query-level
  features constant within a query, and noise; grades 0-2 (or 0-4).
* :func:`with_absent_features` sets each column to 0 on a share of its rows,
  as web-search sets of hundreds of features store a feature that a
  document lacks.
* :func:`query_normalized` maps every column to [0, 1] within each query,
  the form in which the LETOR collections ship their features.
* :func:`fixed_length_queries` cuts a fixed number of rows into queries of
  one length, for the cost-per-iteration tables.
"""

from __future__ import annotations

import gzip

import numpy as np

from _data import ENV_VAR, DatasetUnavailable, datasets_dir

LAMBDARANK_DIR = "lightgbm-lambdarank"
LAMBDARANK_FEATURES = 300

#: Latent-relevance cut points of the grades 1..4 (about 84 % / 9 % / 4 % / 2 % / 1 % of the rows).
_GRADE_CUTS = np.array([1.4, 2.0, 2.5, 3.0])


def load_lambdarank():
    """LightGBM's LTR example, train and test files joined.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (3773, 300)
    y : ndarray of float64
        Grades 0-4.
    qid : ndarray of int64
        One query id per row (0..250), rows in the files' order.

    Raises
    ------
    DatasetUnavailable
        The folder or one of its four files is missing.
    """
    from scipy import sparse
    from sklearn.datasets import load_svmlight_file

    folder = datasets_dir() / LAMBDARANK_DIR
    parts, labels, sizes = [], [], []
    for name in ("rank.train", "rank.test"):
        data, sizes_file = folder / f"{name}.gz", folder / f"{name}.query"
        if not (data.is_file() and sizes_file.is_file()):
            raise DatasetUnavailable(f"{data.name} or {sizes_file.name} not found in {folder} "
                                     f"(set {ENV_VAR} to the datasets folder)")
        with gzip.open(data, "rb") as fh:
            X, y = load_svmlight_file(fh, n_features=LAMBDARANK_FEATURES)
        part_sizes = np.loadtxt(sizes_file, dtype=np.int64, ndmin=1)
        if part_sizes.sum() != X.shape[0]:
            raise DatasetUnavailable(f"{sizes_file.name}: the sizes sum to {part_sizes.sum()}, "
                                     f"the data has {X.shape[0]} rows")
        parts.append(X)
        labels.append(y)
        sizes.append(part_sizes)
    sizes = np.concatenate(sizes)
    qid = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    return sparse.vstack(parts, format="csr"), np.concatenate(labels).astype(np.float64), qid


def synthetic_queries(n_queries=200, *, min_size=10, max_size=1000, n_informative=6, n_noise=44,
                      noise=0.5, monotone=0.0, random_state=0):
    """Queries of log-uniform sizes with graded labels 0-4 from a nonlinear latent relevance.

    Parameters
    ----------
    n_queries : int
    min_size, max_size : int
        Query sizes are drawn log-uniformly in [min_size, max_size].
    n_informative : int >= 4
        Features the relevance depends on (through products, a sine and a
        threshold); each also carries a per-query offset unrelated to it.
    n_noise : int
        Features independent of the relevance.
    noise : float
        Standard deviation of the relevance's row noise.
    monotone : float
        0 (the default): the first informative feature enters the relevance
        through a sine.  Above 0 it enters as ``monotone · tanh(1.5 z)``
        instead, and three of the noise columns become copies of it (plus a
        normal of 0.5, drawn apart from the other draws), so that single
        features order each query well, as retrieval scores do; the other
        draws are the same.
    random_state : int

    Returns
    -------
    X : ndarray of shape (n, n_informative + n_noise), float64
    y : ndarray of float64
        Grades 0-4, most rows 0 (few relevant documents per query).
    qid : ndarray of int64
        Query ids 0..n_queries-1, rows grouped by query.
    """
    if n_informative < 4:
        raise ValueError(f"n_informative: the relevance uses 4 features at least, got {n_informative}")
    rng = np.random.default_rng(random_state)
    sizes = np.exp(rng.uniform(np.log(min_size), np.log(max_size + 1), n_queries)).astype(np.int64)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    n = qid.shape[0]
    z = rng.normal(size=(n, n_informative))
    first = monotone * np.tanh(1.5 * z[:, 0]) if monotone > 0 else np.sin(1.5 * z[:, 0])
    relevance = (first + 0.6 * z[:, 1] * z[:, 2] + 0.8 * (z[:, 3] > 0.5)
                 + 0.3 * z[:, 4:].sum(axis=1) / np.sqrt(max(n_informative - 4, 1)))
    relevance += rng.normal(0.0, 0.4, n_queries)[qid] + rng.normal(0.0, noise, n)
    y = np.searchsorted(_GRADE_CUTS, relevance).astype(np.float64)
    # The features a ranker sees: each informative one shifted per query (as a text score's scale
    # varies from query to query), then noise columns.
    shifted = z + rng.normal(0.0, 0.5, (n_queries, n_informative))[qid]
    X = np.hstack([shifted, rng.normal(size=(n, n_noise))])
    if monotone > 0:
        if n_noise < 3:
            raise ValueError(f"n_noise: monotone > 0 turns 3 noise columns into copies, got {n_noise}")
        copies = np.random.default_rng([random_state, 1]).normal(0.0, 0.5, (n, 3))
        X[:, n_informative:n_informative + 3] = shifted[:, :1] + copies
    return X, y, qid


def retrieval_queries(n_queries=800, *, mean_size=20, max_grade=2, n_match=25, n_quality=5, n_query=6,
                      n_noise=10, random_state=0):
    """Queries shaped like web-search data: many queries of log-normal sizes, retrieval-score-like features.

    The latent relevance of a row is a saturating function of its match to the
    query, plus document quality, an interaction of the two, a periodic
    term of a freshness-like feature, a per-query difficulty shift and noise;
    the grades are its quantiles (about 62 % of the rows at 0, 35 % at the
    middle grades, 3 % at the top).

    Parameters
    ----------
    n_queries : int
    mean_size : int
        Median query size (log-normal sizes, clipped to 3-400 rows).
    max_grade : int
        Grades 0..max_grade.
    n_match, n_quality, n_query, n_noise : int
        Text-score-like features (noisy monotone transforms of the match, in
        five correlated "fields", scaled per query), document-quality
        features, query-level features (constant within a query) and noise.
    random_state : int

    Returns
    -------
    X : ndarray of shape (n, n_match + n_quality + 1 + n_query + n_noise), float64
    y : ndarray of float64
    qid : ndarray of int64
    """
    rng = np.random.default_rng(random_state)
    sizes = np.clip(rng.lognormal(np.log(mean_size), 0.6, n_queries).astype(np.int64), 3, 400)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    n = qid.shape[0]
    difficulty = rng.normal(0.0, 0.8, n_queries)
    scale = np.exp(rng.normal(0.0, 0.4, n_queries))
    length = rng.integers(1, 8, n_queries)
    match = rng.normal(size=n) + 0.3 * difficulty[qid]
    quality = rng.normal(size=n)
    fresh = rng.normal(size=n)
    latent = (1.2 * np.tanh(match) + 0.5 * quality + 0.4 * match * (quality > 0.5) + 0.3 * np.sin(2 * fresh)
              + difficulty[qid] + rng.normal(0.0, 0.6, n))
    y = np.searchsorted(np.quantile(latent, np.linspace(0.62, 0.97, max_grade)), latent).astype(np.float64)
    columns = []
    field_noise = rng.normal(size=(n, 5))
    for j in range(n_match):
        s = match + 0.8 * field_noise[:, j % 5] + rng.normal(0.0, 0.6, n)
        if j % 3 == 0:        # a BM25-like score: grows with the match, scaled by the query
            columns.append(np.logaddexp(0.0, 2.0 * s) * scale[qid] * (1.0 + 0.2 * length[qid]))
        elif j % 3 == 1:      # a bounded similarity, shifted by the query's length
            columns.append(1.0 / (1.0 + np.exp(-s)) + 0.1 * length[qid])
        else:                 # a heavy-tailed count
            columns.append(np.exp(0.5 * s) * scale[qid])
    for j in range(n_quality):
        noisy = quality + rng.normal(0.0, 0.7, n)
        columns.append(np.exp(noisy) if j % 2 == 0 else noisy)
    columns.append(fresh + rng.normal(0.0, 0.3, n))
    for j in range(n_query):
        per_query = length * (j + 1) + rng.normal(0.0, 1.0, n_queries) + 0.5 * difficulty * (j % 2)
        columns.append(per_query[qid])
    columns.extend(rng.normal(size=n) for _ in range(n_noise))
    return np.column_stack(columns), y, qid


def with_absent_features(X, *, low=0.3, high=0.95, random_state=0):
    """A copy of X with column j set to 0 on a share of its rows drawn uniformly in [low, high].

    Web-search sets with hundreds of features store a feature that a document
    lacks as 0, so that most columns are 0 on most rows; a tree learner's
    histograms then cost by their nonzero values, not by their rows.  The
    absent rows of each column are drawn independently, so the columns are
    not exclusive (no bundling merges them).

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    low, high : float in [0, 1], low <= high
        The range of the columns' shares of absent rows.
    random_state : int

    Returns
    -------
    ndarray of shape (n, d), float64
    """
    if not 0.0 <= low <= high <= 1.0:
        raise ValueError(f"low, high: expected 0 <= low <= high <= 1, got {low}, {high}")
    rng = np.random.default_rng(random_state)
    out = np.array(X, dtype=np.float64)
    for j, share in enumerate(rng.uniform(low, high, out.shape[1])):
        out[rng.random(out.shape[0]) < share, j] = 0.0
    return out


def query_normalized(X, qid):
    """A copy of X with every column mapped to [0, 1] within each query (min to 0, max to 1).

    Public LTR collections of the LETOR family ship their features
    normalized this way ("query-level normalization"): a feature's values
    say where a document stands among its query's documents, no longer how
    high it is across queries, and a column constant within a query (a
    query-level feature) becomes 0 there.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    qid : ndarray of shape (n,)
        Query ids; each query's rows need not be contiguous.

    Returns
    -------
    ndarray of shape (n, d), float64
    """
    X = np.asarray(X, dtype=np.float64)
    _, inverse = np.unique(np.asarray(qid), return_inverse=True)
    n_queries = int(inverse.max()) + 1 if inverse.size else 0
    low = np.full((n_queries, X.shape[1]), np.inf)
    high = np.full((n_queries, X.shape[1]), -np.inf)
    np.minimum.at(low, inverse, X)
    np.maximum.at(high, inverse, X)
    span = (high - low)[inverse]
    out = np.zeros_like(X)
    varies = span > 0
    out[varies] = ((X - low[inverse]) / np.where(varies, span, 1.0))[varies]
    return out


def fixed_length_queries(n_rows, length, *, n_features=20, random_state=0):
    """``n_rows`` rows cut into queries of ``length`` rows: (X, y, qid), grades 0-4 from the first features."""
    rng = np.random.default_rng(random_state)
    qid = np.repeat(np.arange(n_rows // length, dtype=np.int64), length)
    n = qid.shape[0]
    X = rng.normal(size=(n, n_features))
    relevance = np.sin(1.5 * X[:, 0]) + 0.6 * X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    y = np.searchsorted(_GRADE_CUTS, relevance).astype(np.float64)
    return X, y, qid
