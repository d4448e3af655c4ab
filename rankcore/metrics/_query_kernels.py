"""Per-query values of the list metrics (NDCG, ERR, AP and AP@k, reciprocal rank, precision), vectorized over queries.

Design
------
A. The rows sorted by (query, score descending), ties by row, put every
   query's ranking in one contiguous block; the tie groups are the runs of
   equal scores inside a block.  Every metric below is then a sum over
   rows or over tie groups, reduced per query: O(n) after the sort, O(n)
   memory, no pairs.  The sort is one grouping of the rows by query
   (:class:`QueryBlocks`, which depends on the query ids alone: a
   validation set scored after every iteration groups its rows once) and a
   compiled sort inside each block (``_query_blocks.sort_within_queries``),
   O(Σ n_q log n_q) rather than a global sort's O(n log n) across queries.
B. Ties are never broken by position unless asked (``ties="first"``: row
   order inside the query, LightGBM's convention; ``ndcg@k``'s
   ``ties="worst"`` orders a tie by gain, lowest first, CatBoost's).  With ``ties="average"``
   a tie group counts as the expected value over a uniformly random order
   of the tie.  For DCG and precision that expectation is linear: each row
   of the group takes the group's mean gain.  For AP it has a closed form
   per group (harmonic numbers).  The reciprocal rank needs the first group
   with a relevant row (O(its size), one per query); ERR the mean products
   of the group's continue probabilities over subsets, a recurrence run for
   every tied group above k at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _err_ties
from ._queries import Queries
from ._query_blocks import running_sums_within, sort_within_queries

__all__ = ["QueryBlocks", "Ranking", "RankingCache", "rank_queries", "cutoffs", "dcg", "ideal_dcg", "average_precision",
           "reciprocal_rank", "expected_reciprocal_rank", "precision"]


@dataclass(frozen=True)
class Ranking:
    """Rows sorted by (query, score descending), ties in row order, and the tie groups of that order.

    ``order[i]`` is the row at sorted position i; ``position[i]`` its 0-based
    place inside its query.  Group g covers sorted positions
    ``group_first[g] : group_first[g] + group_size[g]`` of query
    ``group_query[g]``, starting at place ``group_place[g]``.
    """

    order: np.ndarray
    query: np.ndarray
    position: np.ndarray
    group: np.ndarray
    group_first: np.ndarray
    group_size: np.ndarray
    group_query: np.ndarray
    group_place: np.ndarray
    n_queries: int

    def per_query(self, row_values: np.ndarray) -> np.ndarray:
        """Sum of sorted-row values per query."""
        return np.bincount(self.query, weights=row_values, minlength=self.n_queries)

    def per_group(self, row_values: np.ndarray) -> np.ndarray:
        """Sum of sorted-row values per tie group."""
        return np.add.reduceat(row_values, self.group_first) if row_values.shape[0] else row_values

    def groups_per_query(self, group_values: np.ndarray) -> np.ndarray:
        return np.bincount(self.group_query, weights=group_values, minlength=self.n_queries)


@dataclass(frozen=True)
class QueryBlocks:
    """The rows grouped by query, and what every ranking of them shares: the query and place of each position.

    ``rows[starts[q] : starts[q] + sizes[q]]`` are query q's rows in row
    order; ``query[i]`` and ``position[i]`` are the query of sorted position
    i and its 0-based place inside that query -- the same for every score
    vector, since a ranking reorders the rows only inside their query.
    """

    rows: np.ndarray
    query: np.ndarray
    position: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, queries: Queries) -> "QueryBlocks":
        """The blocks of ``queries``: one stable O(n log n) sort of the query codes, O(n) memory."""
        rows = np.ascontiguousarray(queries.rows(), dtype=np.int64)
        query = queries.codes[rows]
        starts = queries.starts
        position = np.arange(rows.shape[0], dtype=np.int64) - starts[query]
        return cls(rows, query, position, starts, np.ascontiguousarray(queries.sizes, dtype=np.int64))


#: Queries up to this many rows are sorted by the compiled sort (one thread a query); longer ones by NumPy's
#: stable sort, about 3 times faster on a million rows of few distinct values, as fast on distinct ones.
_COMPILED_SORT_ROWS = 4096


def _descending_within(values: np.ndarray, queries: Queries, blocks: QueryBlocks, n_threads: int = 1) -> np.ndarray:
    """The rows by (query, value descending), ties by row: ``np.lexsort((-values, queries.codes))``."""
    if values.shape != blocks.rows.shape:
        raise ValueError(f"scores: expected one score per row ({blocks.rows.shape[0]}), got shape {values.shape}")
    if not np.isfinite(values).all():      # NaN has no place in the compiled sort's order: NumPy's puts it last
        return np.lexsort((-values, queries.codes))
    values = np.ascontiguousarray(values, dtype=np.float64)
    order = np.empty(blocks.rows.shape[0], dtype=np.int64)
    sort_within_queries(values, blocks.rows, blocks.starts, blocks.sizes, order, _COMPILED_SORT_ROWS, int(n_threads))
    for q in np.flatnonzero(blocks.sizes > _COMPILED_SORT_ROWS):
        rows = blocks.rows[blocks.starts[q]: blocks.starts[q] + blocks.sizes[q]]
        order[blocks.starts[q]: blocks.starts[q] + blocks.sizes[q]] = rows[np.argsort(-values[rows], kind="stable")]
    return order


def rank_queries(scores: np.ndarray, queries: Queries, *, blocks: QueryBlocks | None = None,
                 n_threads: int = 1) -> Ranking:
    """The :class:`Ranking` of validated scores: the order of a stable sort by (query, score descending).

    ``blocks``: :meth:`QueryBlocks.of` ``queries``, when the caller keeps
    them for several score vectors.  Each query's rows are sorted inside
    their block (``n_threads`` share the queries; the order does not depend
    on them): O(Σ n_q log n_q) time, plus O(n log n) for the blocks when
    not given; O(n) memory.
    """
    blocks = QueryBlocks.of(queries) if blocks is None else blocks
    order = _descending_within(scores, queries, blocks, n_threads)
    query, position = blocks.query, blocks.position
    ranked = scores[order]
    new_group = np.ones(order.shape[0], dtype=bool)
    new_group[1:] = (ranked[1:] != ranked[:-1]) | (query[1:] != query[:-1])
    group_first = np.flatnonzero(new_group)
    group_size = np.diff(np.append(group_first, order.shape[0]))
    group = np.cumsum(new_group) - 1
    return Ranking(order, query, position, group, group_first, group_size, query[group_first],
                   position[group_first], queries.n_queries)


class RankingCache:
    """One set of queries ranked once for several list metrics scored on the same scores (a validation set's).

    Each list metric bound with a cache (``bind_queries(..., cache=)``) asks it for the :class:`Ranking` of its
    scores; the cache keeps the last ranking with a copy of the scores it was made from, and sorts again only when
    the scores differ (compared in O(n), against the sort's O(Σ n_q log n_q)), so the metrics of one set after one
    iteration share one sort, and scores changed in place are never read from a stale ranking.

    Parameters
    ----------
    queries : Queries
    n_threads : int
        Threads of the sort (the ranking does not depend on them).
    """

    def __init__(self, queries: Queries, n_threads: int = 1):
        self.queries = queries
        self.blocks = QueryBlocks.of(queries)
        self.n_threads = int(n_threads)
        self._scores: np.ndarray | None = None
        self._ranking: Ranking | None = None

    def rank(self, scores: np.ndarray) -> Ranking:
        """The ranking of ``scores`` (validated float64, one a row): the kept one when the scores are the same."""
        if self._scores is None or not np.array_equal(self._scores, scores):
            self._ranking = rank_queries(scores, self.queries, blocks=self.blocks, n_threads=self.n_threads)
            self._scores = np.array(scores, dtype=np.float64, copy=True)
        return self._ranking


def cutoffs(k: int | float, sizes: np.ndarray) -> np.ndarray:
    """Per query, the k places a metric reads: a count capped at the query's size, or a fraction of it."""
    if isinstance(k, float) and k < 1:
        return np.maximum(1, np.floor(k * sizes + 0.5)).astype(np.int64)
    return np.minimum(int(k), sizes).astype(np.int64)


def _discount(places: np.ndarray) -> np.ndarray:
    """1 / log2(place + 2) for 0-based places."""
    return 1.0 / np.log2(places + 2.0)


def _tie_means(ranking: Ranking, row_values: np.ndarray) -> np.ndarray:
    """Each sorted row's value replaced by the mean over its tie group."""
    means = ranking.per_group(row_values) / ranking.group_size
    return means[ranking.group]


def dcg(ranking: Ranking, gains: np.ndarray, k: np.ndarray, ties: str) -> np.ndarray:
    """DCG@k per query: Σ_{place < k} gain / log2(place + 2); a tie's rows share its mean gain ("average"), or
    take its places lowest gain first ("worst", CatBoost's order; one more O(n log n) sort)."""
    g = gains[ranking.order]
    if ties == "average":
        g = _tie_means(ranking, g)
    elif ties == "worst":          # the groups are runs of sorted positions: this reorders each group alone
        g = g[np.lexsort((g, ranking.group))]
    read = ranking.position < k[ranking.query]
    return ranking.per_query(np.where(read, g * _discount(ranking.position), 0.0))


def ideal_dcg(gains: np.ndarray, queries: Queries, k: np.ndarray, blocks: QueryBlocks | None = None) -> np.ndarray:
    """DCG@k per query of the best order (gains descending; ``blocks``: :meth:`QueryBlocks.of` ``queries``)."""
    blocks = QueryBlocks.of(queries) if blocks is None else blocks
    order = _descending_within(gains, queries, blocks)
    query, place = blocks.query, blocks.position
    read = place < k[query]
    return np.bincount(query, weights=np.where(read, gains[order] * _discount(place), 0.0),
                       minlength=queries.n_queries)


def precision(ranking: Ranking, relevant: np.ndarray, k: np.ndarray, ties: str) -> np.ndarray:
    """Relevant rows among the first k places per query, divided by k (a tie straddling k shares its places)."""
    r = relevant[ranking.order].astype(np.float64)
    if ties == "average":
        r = _tie_means(ranking, r)
    read = ranking.position < k[ranking.query]
    return ranking.per_query(np.where(read, r, 0.0)) / k


def _before_in_query(values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """For sorted rows (or groups) in queries ``query``: the sum of ``values`` before each inside its query.

    Summed from 0 at each query's first entry (``running_sums_within``), so
    that a query's value does not depend on the rows ranked before it.
    """
    out = np.empty(values.shape[0])
    running_sums_within(np.ascontiguousarray(values, dtype=np.float64), np.ascontiguousarray(query, dtype=np.int64),
                        out)
    return out


def average_precision(ranking: Ranking, relevant: np.ndarray, n_relevant: np.ndarray, ties: str,
                      k: np.ndarray | None = None) -> np.ndarray:
    """AP per query: Σ over relevant rows of the precision at their place, over ``n_relevant`` (0 where it is 0).

    ``k`` (one cut-off per query) reads only the first k places (``map@k``);
    None reads the whole list.  With ``ties="average"``, a group of m rows
    at places p+1..p+m holding r relevant rows, c relevant rows above it, of
    which its first t = min(m, k − p) slots are read, contributes its
    expectation (r/m)·Σ_{s ≤ t} (c + 1 + (s−1)(r−1)/(m−1)) / (p+s), summed in
    closed form with harmonic numbers H: (r/m)·[(c+1)·D + (r−1)/(m−1)·(t −
    (p+1)·D)], D = H(p+t) − H(p).
    """
    rel = relevant[ranking.order].astype(np.float64)
    if ties == "first":
        above = _before_in_query(rel, ranking.query)
        read = rel if k is None else np.where(ranking.position < k[ranking.query], rel, 0.0)
        total = ranking.per_query(read * (above + 1.0) / (ranking.position + 1.0))
    else:
        r = ranking.per_group(rel)
        m = ranking.group_size.astype(np.float64)
        p = ranking.group_place
        t = ranking.group_size if k is None else np.clip(k[ranking.group_query] - p, 0, ranking.group_size)
        c = _before_in_query(r, ranking.group_query)
        harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, rel.shape[0] + 1))])
        D = harmonic[p + t] - harmonic[p]
        spread = np.divide(r - 1.0, m - 1.0, out=np.zeros_like(r), where=m > 1)
        total = ranking.groups_per_query((r / m) * ((c + 1.0) * D + spread * (t - (p + 1.0) * D)))
    return np.divide(total, n_relevant, out=np.zeros_like(total), where=n_relevant > 0)


def reciprocal_rank(ranking: Ranking, relevant: np.ndarray, ties: str) -> np.ndarray:
    """1 / (place of the first relevant row) per query (0 without one).

    With ``ties="average"``, the first group holding a relevant row (m rows
    after p others, r relevant) gives E[1/(p+J)], P(J = j) = C(m−j, r−1)/C(m, r):
    O(m) for that one group.
    """
    out = np.zeros(ranking.n_queries)
    rel = relevant[ranking.order].astype(np.float64)
    unit = ranking.group_size if ties == "average" else np.ones(rel.shape[0], dtype=np.int64)
    if ties == "average":
        r = ranking.per_group(rel)
        query, place = ranking.group_query, ranking.group_place
    else:
        r, query, place = rel, ranking.query, ranking.position
    hits = np.flatnonzero(r > 0)
    if not hits.size:
        return out
    hit_query = query[hits]              # ascending: the rows (groups) are in ranking order, query by query
    first_hit = hits[np.concatenate([[True], hit_query[1:] != hit_query[:-1]])]
    # a first hit that is certain (a row of its own, or a group of relevant rows only) is at its place
    certain = (unit[first_hit] == 1) | (r[first_hit] == unit[first_hit])
    out[query[first_hit[certain]]] = 1.0 / (place[first_hit[certain]] + 1.0)
    for g in first_hit[~certain]:
        m, count, p = int(unit[g]), int(r[g]), int(place[g])
        probability, expected = count / m, 0.0
        for j in range(1, m - count + 2):              # J <= m - count + 1: the others fit below
            expected += probability / (p + j)
            if j < m - count + 1:
                probability *= (m - j - count + 1) / (m - j)
        out[query[g]] = expected
    return out


def _tied_stops(stop: np.ndarray, first: np.ndarray, size: np.ndarray, slots: np.ndarray,
                place: np.ndarray) -> np.ndarray:
    """Per tie group, the expected Σ_{t < slots} stop at its t-th slot / (place + t + 1) times what continues to it.

    For continue probabilities x = 1 − stop of the group's m rows in a random
    order, the t-th slot stops exactly there with probability E_t − E_{t+1},
    E_t the mean product of x over t-subsets (E_0 = 1), built row by row in a
    compiled pass (``_err_ties.tied_stops``): O(Σ m · slots) time, O(max
    slots) memory.
    """
    out = np.empty(first.shape[0])
    _err_ties.tied_stops(np.ascontiguousarray(stop, dtype=np.float64), first.astype(np.int64),
                         size.astype(np.int64), slots.astype(np.int64),
                         np.ascontiguousarray(place, dtype=np.float64), out)
    return out


def expected_reciprocal_rank(ranking: Ranking, stop: np.ndarray, k: np.ndarray, ties: str) -> np.ndarray:
    """ERR@k per query: Σ_{place < k} stop / (place + 1) · Π_{earlier places} (1 − stop).

    With ``ties="average"``, a group at places p+1.. with "continue"
    probabilities x = 1 − stop contributes, at its t-th slot, (E_t − E_{t+1}) /
    (p + t + 1) times the product above it (:func:`_tied_stops`, the t-th slot
    stopping exactly there): O(m · min(m, k − p)) per tied group, all at once.
    """
    s = stop[ranking.order]
    # the product of (1 - stop) above each row or group, as a sum of logs; a certain stop (stop = 1,
    # a grade far above the others) is counted apart, since its log is -inf
    certain = (s >= 1.0).astype(np.float64)
    log_continue = np.log1p(-np.where(certain > 0, 0.0, s))
    if ties == "first":
        kk = k[ranking.query]
        above = np.where(_before_in_query(certain, ranking.query) > 0, 0.0,
                         np.exp(_before_in_query(log_continue, ranking.query)))
        return ranking.per_query(np.where(ranking.position < kk, above * s / (ranking.position + 1.0), 0.0))
    above = np.where(_before_in_query(ranking.per_group(certain), ranking.group_query) > 0, 0.0,
                     np.exp(_before_in_query(ranking.per_group(log_continue), ranking.group_query)))
    p = ranking.group_place
    single = ranking.group_size == 1
    read = p < k[ranking.group_query]
    values = np.where(single & read, above * ranking.per_group(s) / (p + 1.0), 0.0)
    tied = np.flatnonzero(~single & read)
    if tied.size:
        slots = np.minimum(ranking.group_size[tied], k[ranking.group_query[tied]] - p[tied])
        values[tied] = above[tied] * _tied_stops(s, ranking.group_first[tied], ranking.group_size[tied], slots,
                                                 p[tied])
    return ranking.groups_per_query(values)
