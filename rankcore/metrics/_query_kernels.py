"""Per-query values of the list metrics (NDCG, ERR, AP and AP@k, reciprocal rank, precision), vectorized over queries.

Design
------
A. One stable sort of the rows by (query, score descending) puts every
   query's ranking in one contiguous block; the tie groups are the runs of
   equal scores inside a block.  Every metric below is then a sum over
   rows or over tie groups, reduced per query with ``np.add.reduceat``:
   O(n log n) time for the sort, O(n) after it, O(n) memory, no pairs.
B. Ties are never broken by position unless asked (``ties="first"``: row
   order inside the query, LightGBM's convention).  With ``ties="average"``
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

__all__ = ["Ranking", "rank_queries", "cutoffs", "dcg", "ideal_dcg", "average_precision", "reciprocal_rank",
           "expected_reciprocal_rank", "precision"]


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


def rank_queries(scores: np.ndarray, queries: Queries) -> Ranking:
    """The :class:`Ranking` of validated scores: one O(n log n) stable sort."""
    order = np.lexsort((-scores, queries.codes))
    query = queries.codes[order]
    first = queries.starts
    position = np.arange(order.shape[0], dtype=np.int64) - first[query]
    ranked = scores[order]
    new_group = np.ones(order.shape[0], dtype=bool)
    new_group[1:] = (ranked[1:] != ranked[:-1]) | (query[1:] != query[:-1])
    group_first = np.flatnonzero(new_group)
    group_size = np.diff(np.append(group_first, order.shape[0]))
    group = np.cumsum(new_group) - 1
    return Ranking(order, query, position, group, group_first, group_size, query[group_first],
                   position[group_first], queries.n_queries)


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
    """DCG@k per query: Σ_{place < k} gain / log2(place + 2); a tie's rows share its mean gain ("average")."""
    g = gains[ranking.order]
    if ties == "average":
        g = _tie_means(ranking, g)
    read = ranking.position < k[ranking.query]
    return ranking.per_query(np.where(read, g * _discount(ranking.position), 0.0))


def ideal_dcg(gains: np.ndarray, queries: Queries, k: np.ndarray) -> np.ndarray:
    """DCG@k per query of the best order (gains descending)."""
    order = np.lexsort((-gains, queries.codes))
    query = queries.codes[order]
    place = np.arange(order.shape[0], dtype=np.int64) - queries.starts[query]
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


def _before_in_query(ranking: Ranking, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """For sorted rows (or groups) in queries ``query``: the sum of ``values`` before each inside its query."""
    inclusive = np.cumsum(values)
    totals = np.bincount(query, weights=values, minlength=ranking.n_queries)
    start = np.concatenate([[0.0], np.cumsum(totals)])[query]
    return inclusive - values - start


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
        above = _before_in_query(ranking, rel, ranking.query)
        read = rel if k is None else np.where(ranking.position < k[ranking.query], rel, 0.0)
        total = ranking.per_query(read * (above + 1.0) / (ranking.position + 1.0))
    else:
        r = ranking.per_group(rel)
        m = ranking.group_size.astype(np.float64)
        p = ranking.group_place
        t = ranking.group_size if k is None else np.clip(k[ranking.group_query] - p, 0, ranking.group_size)
        c = _before_in_query(ranking, r, ranking.group_query)
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
    first_hit = hits[np.unique(query[hits], return_index=True)[1]]
    for g in first_hit:
        m, count, p = int(unit[g]), int(r[g]), int(place[g])
        if m == 1 or count == m:
            out[query[g]] = 1.0 / (p + 1)
            continue
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
        above = np.where(_before_in_query(ranking, certain, ranking.query) > 0, 0.0,
                         np.exp(_before_in_query(ranking, log_continue, ranking.query)))
        return ranking.per_query(np.where(ranking.position < kk, above * s / (ranking.position + 1.0), 0.0))
    above = np.where(_before_in_query(ranking, ranking.per_group(certain), ranking.group_query) > 0, 0.0,
                     np.exp(_before_in_query(ranking, ranking.per_group(log_continue), ranking.group_query)))
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
