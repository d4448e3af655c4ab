"""``recall@k`` and ``hit@k``: how much of a query's relevant rows its first k places find (recommenders' metrics).

Both read a row as relevant when its grade is > 0, follow ``ties`` and
``empty`` as the other list metrics of :mod:`rankcore.metrics._query` do, and
are averaged over the queries.  Their per-query values come from one sort of
every query (:mod:`rankcore.metrics._query_kernels`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from ..spec import Parameter
from ._query import _EMPTY, _K, _TIES, QueryMetric
from ._query_kernels import Ranking, cutoffs

__all__ = ["RecallAtK", "HitAtK", "hits", "found_at_k"]


class RecallAtK(QueryMetric):
    """Mean over queries of the relevant rows among the first k places over R; relevant: grade > 0.

    R is the query's relevant rows (``denominator=relevant``, the default:
    a query with more than k relevant rows cannot reach 1) or min(R, k)
    (``denominator=min``: every query can reach 1).  A tie straddling place
    k shares its places (``ties=average``: the expected count over a random
    order of the tie) or takes them in row order (``ties=first``).  Queries
    without a relevant row follow ``empty`` (left out by default).
    """

    name = "recall@k"
    parameters = (
        _K,
        _TIES,
        _EMPTY,
        Parameter("denominator", str, default="relevant", choices=("relevant", "min"),
                  doc="the divisor: R, the query's relevant rows (the default), or min(R, k)"),
    )
    examples = ("recall@k:10", "recall@k:5,denominator=min", "recall@k:0.2,ties=first,empty=0")

    def bind_ranked(self, y, queries, blocks):
        relevant = y > 0
        k = cutoffs(self.k, queries.sizes)
        n_relevant = np.bincount(queries.codes, weights=relevant.astype(np.float64), minlength=queries.n_queries)
        divisor = np.minimum(n_relevant, k) if self.denominator == "min" else n_relevant
        ties = self.ties_rule

        def values(ranking: Ranking) -> np.ndarray:
            found = found_at_k(ranking, relevant, k, ties)
            # at most 1: a straddling tie's share r * t / m, added to the whole count above it, can round 1 ulp up
            return np.minimum(np.divide(found, divisor, out=np.zeros_like(found), where=divisor > 0), 1.0)

        return values


class HitAtK(QueryMetric):
    """Mean over queries of 1 when a relevant row is among the first k places, else 0 (the hit rate at k).

    A tie straddling place k counts the probability that a random order of
    it puts a relevant row in the places it reads (``ties=average``), or
    takes its places in row order (``ties=first``).  Queries without a
    relevant row follow ``empty`` (left out by default).
    """

    name = "hit@k"
    parameters = (_K, _TIES, _EMPTY)
    examples = ("hit@k:10", "hit@k:1,ties=first,empty=0")

    def bind_ranked(self, y, queries, blocks):
        relevant, k, ties = y > 0, cutoffs(self.k, queries.sizes), self.ties_rule
        return lambda ranking: hits(ranking, relevant, k, ties)


def found_at_k(ranking: Ranking, relevant: np.ndarray, k: np.ndarray, ties: str) -> np.ndarray:
    """Per query, the relevant rows among its first k places (their expected count over a random order of the tie
    straddling place k with ``ties="average"``).

    A group of m rows holding r relevant rows, of which its first t slots
    are read, gives r · t / m: a whole count r for a group read whole, so a
    ranking that finds every relevant row counts exactly R (a precision@k
    times k would not: 15 / 22 · 22 is 1 ulp below 15).  O(n) after the sort.
    """
    rel = relevant[ranking.order].astype(np.float64)
    if ties == "first":
        return ranking.per_query(np.where(ranking.position < k[ranking.query], rel, 0.0))
    t = np.clip(k[ranking.group_query] - ranking.group_place, 0, ranking.group_size)
    return ranking.groups_per_query(ranking.per_group(rel) * t / ranking.group_size)


def hits(ranking: Ranking, relevant: np.ndarray, k: np.ndarray, ties: str) -> np.ndarray:
    """Per query, the probability that a relevant row is among its first k places.

    With ``ties="average"`` a group of m rows at places p+1..p+m holding r
    relevant rows, of which its first t = min(m, k − p) slots are read, misses
    with probability C(m − r, t) / C(m, t) (the read slots drawn from its
    rows at random); a query's misses multiply over its groups, all but the
    one straddling k being read whole or not at all.  O(n) after the sort.
    """
    if ties == "first":
        return (found_at_k(ranking, relevant, k, ties) > 0).astype(np.float64)
    r = ranking.per_group(relevant[ranking.order].astype(np.float64))
    m = ranking.group_size.astype(np.float64)
    t = np.clip(k[ranking.group_query] - ranking.group_place, 0, ranking.group_size).astype(np.float64)
    # log C(m - r, t) - log C(m, t); the group always misses when no slot is read (t = 0), never when the read
    # slots cannot all go to its m - r others (t > m - r)
    possible = t <= m - r
    log_miss = np.where(possible, gammaln(np.maximum(m - r, t) + 1) - gammaln(np.maximum(m - r - t, 0) + 1)
                        - gammaln(m + 1) + gammaln(m - t + 1), 0.0)
    missed_all = ranking.groups_per_query(np.where(possible, 0.0, 1.0)) == 0
    return np.where(missed_all, -np.expm1(ranking.groups_per_query(log_miss)), 1.0)
