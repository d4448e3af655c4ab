"""The list metrics of search and recommendation: ``ndcg@k``, ``err@k``, ``map``, ``map@k``, ``mrr``.

Each judges one ranking per query with graded relevance (any non-negative
grades, ints or floats) and reports the mean over the queries; called
without ``qid`` the whole input is one query.  Per-query values come from
:mod:`rankcore.metrics._query_kernels` (one sort, no pairs).  The conventions
that make libraries disagree are parameters, stated in each class and in
``docs/metrics_queries.md``:

* ``ties``: ``"average"`` (default) counts a tie group as the expected value
  over a random order of the tie, as ``prec@k`` does; ``"first"`` breaks
  ties by row order inside the query (LightGBM's stable sort).
* ``empty``: a query without a relevant row (every grade 0) is left out of
  the mean (``"skip"``, default) or counts 0 or 1.  Such queries are counted
  in :func:`rankcore.metrics.per_query`'s report.
"""

from __future__ import annotations

import numbers
import re
from typing import Callable, ClassVar

import numpy as np

from ..spec import Parameter, count_or_fraction
from ._base import OrderMetric
from ._gains import GAIN, gain_table, outside_table
from ._queries import Queries
from ._refusal import MetricRefusal, k_beyond
from ._query_kernels import (
    QueryBlocks,
    Ranking,
    RankingCache,
    average_precision,
    cutoffs,
    dcg,
    expected_reciprocal_rank,
    ideal_dcg,
    rank_queries,
    reciprocal_rank,
)

#: scores -> one value per query (of labels and queries bound beforehand).
QueryScorer = Callable[[np.ndarray], np.ndarray]

__all__ = ["QueryMetric", "NDCG", "ERR", "MeanAveragePrecision", "MeanAveragePrecisionAtK", "MeanReciprocalRank",
           "CONVENTIONS", "MAP_CONVENTIONS", "MAP_LIST_CONVENTIONS"]


#: The settings (gain, ties, empty) of ``ndcg@k`` that reproduce each library's numbers.
CONVENTIONS = {
    "rankcore": ("exp", "average", "skip"),
    "lightgbm": ("exp", "first", "1"),
    # XGBoost's ndcg@k (ndcg_exp_gain=True, its default): LightGBM's rules; its ndcg@k- is empty=0, and
    # ndcg_exp_gain=False is gain=linear
    "xgboost": ("exp", "first", "1"),
    "sklearn": ("linear", "average", "0"),
    "trec_eval": ("linear", "first", "0"),
    # CatBoost's NDCG (its default type=Base): the grade as the gain, a tie in its worst order, 1 without a
    # relevant row
    "catboost": ("linear", "worst", "1"),
}

#: The conventions whose library scores a count k beyond every query (each query read whole, as its ndcg@100 or
#: map@100 on queries of 20 rows) where rankcore's own convention refuses it: every peer does (scikit-learn's
#: ndcg_score(k=K), CatBoost's NDCG:top=K and trec_eval's ndcg_cut.K read a query shorter than K over its rows).
PEERS_CAPPING_K = ("lightgbm", "xgboost", "sklearn", "trec_eval", "catboost")


def whole_query_advice(metric) -> str:
    """The spec to pass to read each query shorter than k whole (a peer library's ``convention``).

    Parameters
    ----------
    metric : Metric
        A resolved metric refused for a count k larger than every query.

    Returns
    -------
    str
        The words said after "choose k <= n" (``", or pass 'ndcg@k:10,convention=lightgbm' ..."``), or ``""``
        for a metric without such conventions (``prec@k`` keeps k as its denominator).
    """
    choices = next((p.choices or () for p in type(metric).parameters if p.name == "convention"), ())
    peers = [c for c in PEERS_CAPPING_K if c in choices]
    if not peers:
        return ""
    spec = metric.spec
    given = re.sub(r"convention=\w+", f"convention={peers[0]}", spec)
    wanted = given if given != spec else f"{spec}{',' if ':' in spec else ':'}convention={peers[0]}"
    return (f", or pass {wanted!r} to read each shorter query whole as {peers[0]} does (or convention="
            f"{', '.join(peers[1:])}: the library whose numbers you compare with; it sets its gains and ties too)")


# "" (the default) takes the rule of the metric's convention
_TIES = Parameter("ties", str, default="", choices=("average", "first"),
                  doc="'average': a tie counts as the expected value over a random order of it; "
                      "'first': row order inside the query")
# ndcg@k's ties also take CatBoost's rule: its NDCG sorts a tie by grade, lowest first
_NDCG_TIES = Parameter("ties", str, default="", choices=("average", "first", "worst"),
                       doc="'average': a tie counts as the expected value over a random order of it; "
                           "'first': row order inside the query; 'worst': a tie's rows of lowest gain first "
                           "(CatBoost's)")
_EMPTY = Parameter("empty", str, default="", choices=("skip", "0", "1"),
                   doc="a query without a relevant row: left out of the mean, or counted as 0 or 1")
_K = Parameter("k", count_or_fraction, doc="the places read: a count >= 1 or a fraction in (0, 1) of each query")


class QueryMetric(OrderMetric):
    """A graded list metric computed per query and averaged (the base of ``ndcg@k``, ``err@k``, ``map``, ``mrr``).

    Subclasses implement :meth:`bind_ranked` (what depends on the labels,
    once; then the values of a ranking); queries without a relevant row
    follow ``empty``.  Called without ``qid`` the input is one query.
    O(n log n) time (one sort), O(n) memory; :meth:`bind_queries` binds the
    labels of rows scored again and again.
    """

    task = "graded"
    bounded = True
    monotone = False          # "monotone" is defined for 0/1 labels; these metrics take grades
    requires_both_classes = False
    #: Defaults of (ties, empty) when the spec leaves them out.
    default_conventions: ClassVar[tuple[str, str]] = ("average", "skip")

    def _validate(self) -> None:
        self.ties_rule = self.ties or self.default_conventions[0]
        self.empty_rule = self.empty or self.default_conventions[1]

    @property
    def reads_short_queries_whole(self) -> bool:
        """A count k beyond every query reads each query whole instead of being refused.

        rankcore's own convention refuses such a k (it cuts no query: most
        likely a mistake); a peer's convention gives the peer's number,
        and every peer (:data:`PEERS_CAPPING_K`) caps k at each query's rows there.
        """
        return getattr(self, "convention", "rankcore") in PEERS_CAPPING_K

    @property
    def ties_by_row_order(self) -> bool:  # type: ignore[override]
        """``ties="first"`` orders a tie by row."""
        return self.ties_rule == "first"

    def check_data(self, y: np.ndarray, scores: np.ndarray) -> None:
        self.check_query_data(y, Queries.single(int(y.shape[0])))

    def check_query_data(self, y: np.ndarray, queries: Queries) -> None:
        """Grades >= 0; a count k no larger than the largest query (of the whole data, for a part of it:
        :meth:`~rankcore.metrics.Queries.part_of`)."""
        negative = np.flatnonzero(y < 0)
        if negative.size:
            detail = f"takes relevance grades >= 0, got {float(y[negative[0]])!r} at row {int(negative[0])}"
            raise MetricRefusal.said_of(self.spec, "labels", detail, row=int(negative[0]))
        k = getattr(self, "k", None)
        largest = queries.longest          # of the data judged: a part of it (a fold) may hold only shorter queries
        if isinstance(k, numbers.Integral) and k > largest and not self.reads_short_queries_whole:
            where = "the input" if queries.n_queries == 1 and not queries.whole_longest else "every query"
            raise k_beyond(self.spec, k, largest, where, whole_query_advice(self))

    def bind_ranked(self, y: np.ndarray, queries: Queries, blocks: QueryBlocks) -> Callable[[Ranking], np.ndarray]:
        """ranking -> the value of each query, whatever its relevant rows (validated, checked labels).

        Subclasses compute here, once, what depends only on the labels and
        the queries (gains, cut-offs, the ideal DCG, the relevant rows per
        query; ``blocks`` are the queries' rows); the function returned
        reads one :class:`Ranking` of the scores.
        """
        raise NotImplementedError

    def bind_queries(self, y: np.ndarray, queries: Queries, *, n_threads: int = 1,
                     cache: RankingCache | None = None) -> QueryScorer:
        """scores -> :meth:`query_values` of ``(y, scores, queries)``, bit for bit, with the labels bound once.

        For scoring the same rows again and again (a validation set after
        every iteration): the labels are checked, the rows grouped by query
        and everything that depends only on the labels computed here, once;
        each call then sorts the scores inside the queries
        (``n_threads`` share them; the values do not depend on it) and
        reads the ranking: O(Σ n_q log n_q) a call.  The scores must be
        finite float64 values, one a row.  ``cache``: a
        :class:`RankingCache` of these ``queries`` shared with other list
        metrics of the same rows, which then sort each score vector once.
        """
        self.check_query_data(y, queries)
        if cache is not None and cache.queries is not queries:
            raise ValueError("cache: a RankingCache of other queries; bind each metric with its own rows' cache")
        blocks = QueryBlocks.of(queries) if cache is None else cache.blocks
        values_of = self.bind_ranked(y, queries, blocks)
        empty = self.empty_queries(y, queries)
        fill = {"skip": np.nan, "0": 0.0, "1": 1.0}[self.empty_rule]

        def values(scores: np.ndarray) -> np.ndarray:
            ranking = (rank_queries(scores, queries, blocks=blocks, n_threads=n_threads) if cache is None
                       else cache.rank(scores))
            return np.where(empty, fill, values_of(ranking))

        return values

    def empty_queries(self, y: np.ndarray, queries: Queries) -> np.ndarray:
        """A bool per query: no relevant row (every grade 0), so the query follows ``empty``.  O(n)."""
        return np.bincount(queries.codes, weights=(y > 0).astype(np.float64), minlength=queries.n_queries) == 0

    def query_values(self, y: np.ndarray, scores: np.ndarray, queries: Queries) -> np.ndarray:
        return self.bind_queries(y, queries)(scores)

    def compute(self, y: np.ndarray, scores: np.ndarray) -> float:
        values = self.query_values(y, scores, Queries.single(int(y.shape[0])))
        if np.isnan(values[0]):
            # a gain table may give grades > 0 no gain (ndcg@k's "0/0/3"): then no grade is 0, and saying so misled
            why = "every grade is 0" if not (y > 0).any() else "no row's grade has a gain > 0 in its gain table"
            detail = f"is undefined without a relevant row ({why}); pass empty=0 or empty=1 to give such a list a value"
            raise MetricRefusal.said_of(self.spec, "no_query", detail, n_queries=1)
        return float(values[0])


class NDCG(QueryMetric):
    """Normalized discounted cumulative gain of the first k places, averaged over queries (higher is better).

    DCG@k = Σ_{place < k} gain(grade) / log2(place + 2), divided by the DCG@k
    of the best order.  ``gain``: ``exp`` 2^grade − 1 (default; any grade,
    no cap), ``linear`` the grade, or a table per integer grade
    (``"0/1/3/7"``).  ``convention`` sets (gain, ties, empty) to a library's
    (:data:`CONVENTIONS`); an explicit ``gain``/``ties``/``empty`` overrides it.
    ``ties="worst"`` puts a tie's rows of lowest gain first, as CatBoost's
    NDCG does (no row order: the value does not depend on it).
    """

    name = "ndcg@k"
    parameters = (
        _K,
        Parameter("gain", GAIN, default="", doc="'exp' 2^grade - 1, 'linear', or gains per grade '0/1/3/7'"),
        _NDCG_TIES,
        _EMPTY,
        Parameter("convention", str, default="rankcore", choices=tuple(CONVENTIONS),
                  doc="the library whose gain, tie rule and empty-query value the defaults follow"),
    )
    examples = ("ndcg@k:10", "ndcg@k:5,gain=linear,ties=first,empty=0", "ndcg@k:0.5,convention=lightgbm",
                "ndcg@k:3,gain=0/1/3/7/15", "ndcg@k:10,convention=catboost", "ndcg@k:10,convention=xgboost,empty=0")

    def _validate(self) -> None:
        gain, ties, empty = CONVENTIONS[self.convention]
        self.gain_rule = self.gain or gain
        self.ties_rule = self.ties or ties
        self.empty_rule = self.empty or empty

    def gains(self, y: np.ndarray) -> np.ndarray:
        """The gain of each grade."""
        if self.gain_rule == "exp":
            bad = np.flatnonzero(y >= 1024.0)
            if bad.size:
                # the row as the caller gave it, as every other refused grade is named
                raise _grade_refusal(self.spec, f"the gain 2^grade - 1 overflows for grades >= 1024, got "
                                                f"{float(y[bad[0]])!r} at row {int(bad[0])}; use gain=linear or a "
                                                f"gain table", int(bad[0]))
            return np.expm1(y * np.log(2.0))
        if self.gain_rule == "linear":
            return y
        table = gain_table(self.gain_rule)
        bad = outside_table(table, y)
        if bad.size:
            raise _grade_refusal(self.spec, f"has gains for the grades 0..{table.shape[0] - 1}, got "
                                            f"{float(y[bad[0]])!r} at row {int(bad[0])}", int(bad[0]), sep=" ")
        return table[y.astype(np.int64)]

    def empty_queries(self, y: np.ndarray, queries: Queries) -> np.ndarray:
        """No relevant row, or (a gain table with a 0 for a grade > 0) no row of positive gain.

        No order of such a query gains anything: its best DCG is 0 and NDCG
        0/0, so it follows ``empty`` as LightGBM's ``label_gain`` does (a
        query of best DCG 0 scores 1 there) rather than counting 0.  The
        exp and linear gains are 0 at grade 0 only: the same queries.  O(n).
        """
        gained = np.bincount(queries.codes, weights=(self.gains(y) > 0).astype(np.float64),
                             minlength=queries.n_queries) > 0
        return super().empty_queries(y, queries) | ~gained

    def bind_ranked(self, y, queries, blocks):
        gains = _scaled_per_query(self.gains(y), queries)
        k = cutoffs(self.k, queries.sizes)
        best = ideal_dcg(gains, queries, k, blocks)
        ties = self.ties_rule

        def values(ranking: Ranking) -> np.ndarray:
            got = dcg(ranking, gains, k, ties)
            ratio = np.divide(got, best, out=np.zeros_like(got), where=best > 0)
            # a tie's mean gain is a sum over its group divided by its size: rounding can put a best order 1 ulp
            # above 1
            return np.minimum(ratio, 1.0)

        return values


def _grade_refusal(spec: str, detail: str, row: int, sep: str = ": ") -> MetricRefusal:
    """A gain's refusal of the grade at ``row``: ``"y: metric 'spec'{sep}{detail}"``, the row as a field (the
    fields :meth:`MetricRefusal.of_metric` gives a metric's own ValueError, which these were)."""
    return MetricRefusal(f"y: metric {spec!r}{sep}{detail}", spec=spec, reason="other", detail=detail, labels="y",
                         row=row)


def _scaled_per_query(gains: np.ndarray, queries) -> np.ndarray:
    """Each query's gains times the power of two that brings its largest below 1.

    NDCG is a ratio of two sums of one query's gains, so scaling them changes
    nothing -- and by a power of two, not a bit: every product and sum is the
    unscaled one's, exponent shifted.  But the sums of gains near 2^1023
    (grades near 1023, a linear gain near the largest double) would overflow
    to inf without it.  Time O(n), memory O(n).
    """
    top = np.zeros(queries.n_queries)
    np.maximum.at(top, queries.codes, gains)
    _, exponent = np.frexp(top)
    return np.ldexp(gains, -exponent[queries.codes])


#: The largest ``max_grade`` of ``err@k`` (2^-1000 is a normal double: the stopping probabilities keep their digits).
MAX_ERR_GRADE = 1000.0


class ERR(QueryMetric):
    """Expected reciprocal rank of the first k places, averaged over queries (higher is better).

    A reader scans down the list and stops at a row of grade g with
    probability R = (2^g − 1) / 2^g_max; ERR@k = Σ_{place < k} R / (place + 1)
    · Π_{earlier} (1 − R).  ``max_grade`` is g_max (default: the largest grade
    in ``y`` over every query; give it to compare values across data sets).
    """

    name = "err@k"
    parameters = (
        _K,
        _TIES,
        _EMPTY,
        # at most 1000: 2^-g_max stays a normal double; beyond about 1074 every stopping probability rounds to 0
        # and ERR is 0 for any ranking
        Parameter("max_grade", float, default=None, minimum=0.0, exclusive_minimum=True, maximum=MAX_ERR_GRADE,
                  saved_beyond_maximum=True,
                  doc="g_max of the stopping probability (2^g - 1) / 2^g_max, at most 1000; default: the largest "
                      "grade"),
    )
    examples = ("err@k:10", "err@k:5,max_grade=4,ties=first,empty=0")

    def check_query_data(self, y, queries):
        super().check_query_data(y, queries)
        if self.max_grade is not None and float(y.max()) > self.max_grade:
            detail = f"takes grades <= max_grade = {self.max_grade:g}, got {float(y.max())!r}"
            raise MetricRefusal.said_of(self.spec, "labels", detail)

    def bind_ranked(self, y, queries, blocks):
        top = self.max_grade if self.max_grade is not None else float(y.max())
        # (2^g - 1) / 2^top written as 2^(g - top) - 2^-top: finite for any grade
        stop = np.exp2(y - top) - np.exp2(-top) if top > 0 else np.zeros_like(y)
        k, ties = cutoffs(self.k, queries.sizes), self.ties_rule
        return lambda ranking: expected_reciprocal_rank(ranking, stop, k, ties)


#: The settings (ties, empty) of ``map`` that reproduce each library's numbers: XGBoost's ``map`` orders a tie by
#: row and scores a query without a relevant row 1 (its ``map-``: 0).
MAP_LIST_CONVENTIONS = {
    "rankcore": ("average", "skip"),
    "xgboost": ("first", "1"),
}


class MeanAveragePrecision(QueryMetric):
    """Mean over queries of the average precision; a row is relevant when its grade is > 0 (higher is better).

    AP = (1/R) Σ over the R relevant rows of the precision at their place,
    reading the whole list (trec_eval's ``map``).
    """

    name = "map"
    parameters = (
        _TIES,
        _EMPTY,
        Parameter("convention", str, default="rankcore", choices=tuple(MAP_LIST_CONVENTIONS),
                  doc="the library whose tie rule and empty-query value the defaults follow"),
    )
    examples = ("map", "map:ties=first,empty=0", "map:convention=xgboost")

    @property
    def default_conventions(self) -> tuple[str, str]:  # type: ignore[override]
        return MAP_LIST_CONVENTIONS[self.convention]

    def bind_ranked(self, y, queries, blocks):
        relevant = y > 0
        n_relevant = np.bincount(queries.codes, weights=relevant.astype(np.float64), minlength=queries.n_queries)
        ties = self.ties_rule
        return lambda ranking: average_precision(ranking, relevant, n_relevant, ties)


#: The settings (ties, empty) of ``map@k`` that reproduce each library's numbers.
MAP_CONVENTIONS = {
    "rankcore": ("average", "skip"),
    "lightgbm": ("first", "1"),
    "xgboost": ("first", "1"),
    # trec_eval's map_cut.K: ties by document id (here row order), a query without a relevant document 0, and
    # the divisor R (MAP_DIVISORS); a query shorter than K is read whole (PEERS_CAPPING_K)
    "trec_eval": ("first", "0"),
}

#: ``map@k``'s divisor under each convention when the spec leaves ``denominator`` out (others: ``min``).
MAP_DIVISORS = {"trec_eval": "relevant"}


class MeanAveragePrecisionAtK(QueryMetric):
    """Mean over queries of the average precision of the first k places; relevant: grade > 0 (higher is better).

    AP@k = Σ over the relevant rows among the first k places of the precision
    at their place, divided by min(R, k) (``denominator=min``, default:
    LightGBM's and XGBoost's ``map@k``) or by R (``denominator=relevant``:
    trec_eval's ``map_cut.k``), R the query's relevant rows.  ``convention``
    sets (ties, empty) to a library's (:data:`MAP_CONVENTIONS`), and
    ``convention=trec_eval`` the divisor R too (:data:`MAP_DIVISORS`); an
    explicit ``ties``/``empty``/``denominator`` overrides it.
    """

    name = "map@k"
    parameters = (
        _K,
        _TIES,
        _EMPTY,
        # "" (the default) takes the convention's: R for trec_eval, else min(R, k)
        Parameter("denominator", str, default="", choices=("min", "relevant"),
                  doc="AP@k's divisor: min(R, k) (LightGBM, XGBoost; the default) or R, the query's relevant rows "
                      "(trec_eval; the default of convention=trec_eval)"),
        Parameter("convention", str, default="rankcore", choices=tuple(MAP_CONVENTIONS),
                  doc="the library whose tie rule and empty-query value the defaults follow"),
    )
    examples = ("map@k:10", "map@k:5,convention=lightgbm", "map@k:0.5,ties=first,empty=0,denominator=relevant",
                "map@k:10,convention=trec_eval")

    @property
    def default_conventions(self) -> tuple[str, str]:  # type: ignore[override]
        return MAP_CONVENTIONS[self.convention]

    def _validate(self) -> None:
        super()._validate()
        self.denominator_rule = self.denominator or MAP_DIVISORS.get(self.convention, "min")

    def bind_ranked(self, y, queries, blocks):
        relevant = y > 0
        k = cutoffs(self.k, queries.sizes)
        n_relevant = np.bincount(queries.codes, weights=relevant.astype(np.float64), minlength=queries.n_queries)
        divisor = np.minimum(n_relevant, k) if self.denominator_rule == "min" else n_relevant
        ties = self.ties_rule
        return lambda ranking: average_precision(ranking, relevant, divisor, ties, k)


class MeanReciprocalRank(QueryMetric):
    """Mean over queries of 1 / (place of the first relevant row); relevant: grade > 0 (higher is better)."""

    name = "mrr"
    parameters = (_TIES, _EMPTY)
    examples = ("mrr", "mrr:ties=first,empty=0")

    def bind_ranked(self, y, queries, blocks):
        relevant, ties = y > 0, self.ties_rule
        return lambda ranking: reciprocal_rank(ranking, relevant, ties)

