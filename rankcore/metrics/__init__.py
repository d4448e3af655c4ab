"""Ranking metrics (the ``metric`` plugin family).

Functions take ``(y, scores)`` and return one value (``auc``, ``pauc``,
``tpauc``, ``ks``, ``prec_at_k``, ``rmax``, ``max_height``, ``pnorm_risk``,
``misrank``) or a curve/vector (``roc_curve``, ``height``);
:func:`evaluate` computes several at once from spec strings.  The classes
are the registered metric plugins behind them; ``Metric.sorted_kernel()``
gives the nogil Cython kernel (:mod:`rankcore.metrics.sorted_kernels`).
:func:`confidence_interval` and :func:`compare` give intervals and paired
tests (DeLong for the AUC, a one-sort bootstrap for every metric).
With ``qid`` every scalar metric is computed per query and averaged
(:func:`per_query` shows each query); ``ndcg@k``, ``err@k``, ``map``,
``map@k``, ``mrr``, ``recall@k`` and ``hit@k`` are the list metrics of search and recommendation, on graded
labels.
See ``docs/metrics.md`` for definitions and tie conventions.
"""

from ._base import Metric, MetricValueError, check_metric_data
from ._curves import ROC, Height, RocCurve
from . import _functions, _scalar
from ._evaluate import evaluate, resolve_metrics
from ._functions import (
    auc,
    height,
    ks,
    max_height,
    misrank,
    pauc,
    pnorm_risk,
    prec_at_k,
    rmax,
    roc_curve,
    tpauc,
)
from ._gains import GAIN, gain_table, outside_table
from ._graded import Misrank
from ._interval_results import MAX_BOOT, MIN_BOOT, ConfidenceInterval, DroppedReplicatesWarning, PairedComparison
from ._intervals import compare, confidence_interval

from ._queries import Queries, check_qid, check_queries, joined_ids, looks_like_sizes, sizes_hint
from ._query import (ERR, NDCG, MeanAveragePrecision, MeanAveragePrecisionAtK, MeanReciprocalRank,
                     whole_query_advice)
from ._query_recall import HitAtK, RecallAtK
from ._query_evaluate import QueryValues, TooFewPairedQueries, TooFewQueries, per_query, query_values_of
from ._refusal import MetricRefusal, k_beyond, one_class
from ._query_kernels import RankingCache
from ._resampling import tie_groups
from ._roc_band import roc_band
from ._roc_cells import RocCells
from ._scorer import make_query_scorer
from ._scalar import AUC, KS, MaxHeight, PartialAUC, PNormRisk, PrecisionAtK, RMax, TwoWayPartialAUC
from ._split import split_sorted

# the metric functions and the scalar metric classes are listed once, in their modules
__all__ = [
    "Metric",
    "MetricValueError",
    "MetricRefusal",
    "k_beyond",
    "whole_query_advice",
    "one_class",
    "check_metric_data",
    "tie_groups",
    "evaluate",
    "resolve_metrics",
    "confidence_interval",
    "compare",
    "ConfidenceInterval",
    "PairedComparison",
    "DroppedReplicatesWarning",
    "MIN_BOOT",
    "MAX_BOOT",
    "roc_band",
    "split_sorted",
    "per_query",
    "query_values_of",
    "RankingCache",
    "Queries",
    "GAIN",
    "gain_table",
    "outside_table",
    "check_qid",
    "looks_like_sizes",
    "sizes_hint",
    "check_queries",
    "joined_ids",
    "make_query_scorer",
    "QueryValues",
    "TooFewQueries",
    "TooFewPairedQueries",
    "NDCG",
    "ERR",
    "MeanAveragePrecision",
    "MeanAveragePrecisionAtK",
    "MeanReciprocalRank",
    "RecallAtK",
    "HitAtK",
    *_functions.__all__,
    "RocCurve",
    *_scalar.__all__,
    "Height",
    "Misrank",
    "ROC",
    "RocCells",
]
