"""Public metric functions: ``rankcore.metrics.auc(y, scores)`` and friends.

Every function validates its input (:mod:`rankcore.validation`), splits the
scores by label, sorts each side once and runs an O(n) Cython kernel, so the
cost is one O(n log n) sort.  To evaluate several metrics on the same scores,
use :func:`rankcore.evaluate`, which validates and sorts only once.

Conventions shared by all of them:

* ``y`` holds 0/1 labels (bool, int or float); 1 marks the relevant
  (positive) examples that should be ranked at the top.  ``misrank`` takes
  real-valued (graded) labels instead.
* Only the order of the scores matters: any strictly increasing transform
  of the scores leaves every value unchanged.
* Ties are never broken by position in the array; each function says how
  tied scores count.
* A value that is undefined (auc with only one class present) raises a
  ``ValueError``; nothing returns NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._curves import ROC, Height, RocCurve
from ._graded import Misrank
from ._scalar import AUC, KS, MaxHeight, PartialAUC, PNormRisk, PrecisionAtK, RMax, TwoWayPartialAUC

__all__ = [
    "auc",
    "pauc",
    "tpauc",
    "ks",
    "prec_at_k",
    "rmax",
    "max_height",
    "height",
    "pnorm_risk",
    "misrank",
    "roc_curve",
]


#: Docstring sections shared by the metric functions, written once: ``{name}`` in a docstring stands for one.
_SHARED_DOC = {
    "parameters_y_scores": """Parameters
    ----------
    y : array-like of shape (n,)
        Labels in {0, 1}; 1 = relevant.
    scores : array-like of shape (n,)
        Finite scores.""",
    "raises_one_class": """Raises
    ------
    ValueError
        One class present, or any input error listed under :func:`auc`.""",
}


def _with_shared_doc(function):
    """``function`` with each ``{name}`` of :data:`_SHARED_DOC` in its docstring replaced by the entry.

    A docstring stripped by ``python -OO`` (None) stays None.
    """
    if function.__doc__ is not None:
        for name, entry in _SHARED_DOC.items():
            function.__doc__ = function.__doc__.replace("{" + name + "}", entry)
    return function


def auc(y: Any, scores: Any) -> float:
    """Area under the ROC curve (spec ``"auc"``); higher is better.

    auc = (1/IK) Σ_i Σ_k [1(f_i > f_k) + ½·1(f_i = f_k)] over the I positives
    and K negatives: the probability that a random positive is scored above a
    random negative.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels in {0, 1}; 1 = relevant.
    scores : array-like of shape (n,)
        Finite scores; higher means "rank higher".

    Returns
    -------
    float
        In [0, 1]; 0.5 for a constant scorer, 1 when every positive is above
        every negative.

    Raises
    ------
    ValueError
        If only one class is present (auc is undefined), on NaN/inf, labels
        outside {0, 1}, empty input or different lengths.
    TypeError
        Non-numeric input.

    Notes
    -----
    Ties: a positive and a negative with the same score count one half (the
    expected value under a random order of the tie); equals scikit-learn's
    ``roc_auc_score``.  O(n log n) time (one sort), O(n) memory.

    Examples
    --------
    >>> from rankcore.metrics import auc
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> auc([0, 1], [0.5, 0.5])  # a tie counts one half
    0.5
    """
    return AUC()(y, scores)


@_with_shared_doc
def pauc(y: Any, scores: Any, max_fpr: float, *, scale: str = "raw") -> float:
    """Partial area under the ROC curve for FPR in [0, max_fpr] (spec ``"pauc:max_fpr[,scale]"``); higher is better.

    {parameters_y_scores}
    max_fpr : float in (0, 1]
        α, the right end of the false-positive-rate range.
    scale : {"raw", "mcclish"}, default "raw"
        ``"raw"``: the area itself, in [0, α] -- α for a perfect ranking,
        α²/2 for a constant scorer.  ``"mcclish"``: the McClish
        standardization ½·(1 + (raw − α²/2)/(α − α²/2)) that scikit-learn's
        ``roc_auc_score(max_fpr=α)`` returns: 0.5 for a random scorer, 1 for
        a perfect one (below 0.5 is possible for worse-than-random rankings).

    Returns
    -------
    float
        The area on the scale asked for: in [0, α] (raw) or at most 1 (McClish).

    Raises
    ------
    ValueError
        One class present, ``max_fpr`` outside (0, 1], an unknown ``scale``,
        or any input error listed under :func:`auc`.

    Notes
    -----
    Ties: a group of tied scores with c₊ positives and c₋ negatives is a
    straight (diagonal) segment of the ROC curve, as in scikit-learn's
    ``roc_curve``; the curve is cut at FPR = α by linear interpolation.
    With α = 1 both scales equal :func:`auc`.  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import pauc
    >>> y, s = [0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> round(pauc(y, s, 0.5), 6)
    0.388889
    >>> round(pauc(y, s, 0.5, scale="mcclish"), 6)
    0.851852
    """
    return PartialAUC(max_fpr=max_fpr, scale=scale)(y, scores)


@_with_shared_doc
def tpauc(y: Any, scores: Any, min_tpr: float, max_fpr: float, *, scale: str = "raw") -> float:
    """Two-way partial AUC (spec ``"tpauc:min_tpr,max_fpr[,scale]"``); higher is better.

    The area of the ROC region with TPR >= β (``min_tpr``) and FPR <= α
    (``max_fpr``): ∫_0^α max(0, ROC(u) − β) du.  It scores how well the
    hardest positives are ranked against the hardest negatives.

    {parameters_y_scores}
    min_tpr : float in [0, 1)
        β.
    max_fpr : float in (0, 1]
        α.
    scale : {"raw", "normalized"}, default "raw"
        ``"raw"``: the area, in [0, (1 − β)α].  ``"normalized"``: divided
        by (1 − β)α, so a perfect ranking scores 1.

    Returns
    -------
    float
        The area on the scale asked for: in [0, (1 − β)α] (raw) or [0, 1] (normalized).

    Raises
    ------
    ValueError
        One class present, parameters out of range, or any input error
        listed under :func:`auc`.

    Notes
    -----
    Ties are diagonal ROC segments as in :func:`pauc`; with β = 0 the raw
    value equals ``pauc(y, scores, α)``.  A constant scorer gets
    max(0, α − β)²/2 (raw).  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import tpauc
    >>> y, s = [0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> round(tpauc(y, s, 0.5, 0.5), 6)
    0.138889
    >>> round(tpauc(y, s, 0.5, 0.5, scale="normalized"), 6)
    0.555556
    """
    return TwoWayPartialAUC(min_tpr=min_tpr, max_fpr=max_fpr, scale=scale)(y, scores)


@_with_shared_doc
def ks(y: Any, scores: Any) -> float:
    """Kolmogorov-Smirnov statistic (spec ``"ks"``); higher is better.

    ks = max_t (F₋(t) − F₊(t)), where F₋ and F₊ are the empirical CDFs
    P(score <= t) of the negatives and of the positives: the largest vertical
    distance between the ROC curve and the diagonal.

    {parameters_y_scores}

    Returns
    -------
    float
        In [0, 1]; 0 for a constant scorer or when the positives are
        entirely below the negatives (the one-sided statistic), 1 for a
        perfect ranking.

    {raises_one_class}

    Notes
    -----
    Ties: the CDFs jump by whole tie groups (thresholds are the distinct
    scores), so a tie is never split.  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import ks
    >>> ks([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    0.6666666666666666
    """
    return KS()(y, scores)


@_with_shared_doc
def prec_at_k(y: Any, scores: Any, k: int | float) -> float:
    """Precision among the k top-scored examples (spec ``"prec@k:k"``); higher is better.

    {parameters_y_scores}
    k : int or float
        A count in [1, n], or a fraction κ in (0, 1) of n, resolved to
        max(1, floor(κ·n + 0.5)).

    Returns
    -------
    float
        (1/k)·(number of positives among the k top scores), in [0, 1].

    Raises
    ------
    ValueError
        k > n, k <= 0, a non-integral k >= 1, or any input error listed under
        :func:`auc` other than "one class".
    TypeError
        k is not a number.

    Notes
    -----
    * Ties: if the k-th score is tied, the tie group gets fractional credit:
      the expected number of its positives that a random order of the tie
      would put in the top k.  A constant scorer therefore gets the base
      rate I/n.
    * k larger than the number of positives I keeps k as the denominator,
      so the best possible value is I/k < 1 (some libraries divide by
      min(k, I) instead; rankcore does not).
    * One class present is allowed: only negatives gives 0, only positives 1.
    * O(n log n) time (the split and sort); the kernel itself only walks
      the top k scores.

    Examples
    --------
    >>> from rankcore.metrics import prec_at_k
    >>> y, s = [0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> round(prec_at_k(y, s, 3), 6)
    0.666667
    >>> prec_at_k([1, 0, 0, 0], [1.0, 1.0, 1.0, 1.0], 2)  # a full tie: the base rate
    0.25
    >>> prec_at_k([1, 0, 0, 0], [4.0, 3.0, 2.0, 1.0], 2)  # k > #positives: still divided by k
    0.5
    """
    return PrecisionAtK(k=k)(y, scores)


@_with_shared_doc
def rmax(y: Any, scores: Any) -> int:
    """Number of positives scored strictly above every negative (spec ``"rmax"``); higher is better.

    The height of the leftmost point of the ROC curve (in counts), and the
    "R_max" reported in the P-Norm Push experiments.

    {parameters_y_scores}

    Returns
    -------
    int
        In [0, I].

    {raises_one_class}

    Notes
    -----
    Ties: a positive tied with the highest negative is *not* above it and
    does not count.  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import rmax
    >>> rmax([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    2
    >>> rmax([0, 1, 1], [0.5, 0.5, 0.9])  # the tied positive does not count
    1
    """
    return RMax()(y, scores)


@_with_shared_doc
def max_height(y: Any, scores: Any) -> int:
    """The largest height over the negatives, I − rmax (spec ``"max_height"``); lower is better.

    max_k #{i : f_i <= f_k}: the number of positives at or below the
    highest-scored negative -- the "R_max" of the push theory (docs/theory/push.md#the-top-of-the-list).

    {parameters_y_scores}

    Returns
    -------
    int
        In [0, I]; 0 when every positive is above every negative.

    {raises_one_class}

    Notes
    -----
    Ties: a positive tied with a negative counts toward that negative's
    height.  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import max_height
    >>> max_height([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    1
    """
    return MaxHeight()(y, scores)


@_with_shared_doc
def height(y: Any, scores: Any) -> np.ndarray:
    """Height of every negative: #{positives scored at or below it} (spec ``"height"``); lower is better.

    {parameters_y_scores}

    Returns
    -------
    ndarray of int64, shape (K,)
        Height(k) = #{i : f_i <= f_k}, one entry per negative, in the order
        the negatives appear in ``y``.

    {raises_one_class}

    Notes
    -----
    Ties: a positive tied with a negative counts toward its height.
    ``height(y, s).max() == max_height(y, s)``.  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import height
    >>> height([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    array([0, 0, 1])
    """
    return Height()(y, scores)


@_with_shared_doc
def pnorm_risk(y: Any, scores: Any, p: float, theta: float = 0.0) -> float:
    """The P-Norm Push risk R^p_θ (spec ``"pnorm:p[,theta]"``); lower is better.

    R^p_θ = ( (1/K) Σ_k ( (1/I) Σ_i 1[f_i − f_k <= θ] )^p )^{1/p}: the ℓ_p
    mean of the negatives' relative heights, the quantity of the push
    generalization bound (docs/theory/metrics.md#p-norm-risk).  Larger p weighs the highest-scored
    negatives more; as p grows it approaches max_height / I.

    {parameters_y_scores}
    p : float >= 1
    theta : float, default 0
        Margin: a positive must beat a negative by more than θ to count as
        ranked above it.

    Returns
    -------
    float
        In [0, 1]; 0 when every positive beats every negative by more than θ.

    Raises
    ------
    ValueError
        One class present, p < 1, or any input error listed under :func:`auc`.

    Notes
    -----
    Ties: with θ = 0 a positive tied with a negative counts as a miss
    (f_i − f_k = 0 <= 0).  With p = 1 and θ = 0 it equals 1 − auc plus half
    the fraction of tied pairs.  Stable for large p (p = 64): the power sum
    is scaled by its largest term.  O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import pnorm_risk
    >>> y, s = [0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> round(pnorm_risk(y, s, 1), 6)
    0.111111
    >>> round(pnorm_risk(y, s, 64), 6)
    0.32766
    """
    return PNormRisk(p=p, theta=theta)(y, scores)


def misrank(y: Any, scores: Any) -> float:
    """Pairwise misranking rate for graded labels (spec ``"misrank"``); lower is better.

    misrank = #{(i, j) : y_i > y_j and f_i <= f_j} / #{(i, j) : y_i > y_j}.

    Parameters
    ----------
    y : array-like of shape (n,)
        Real-valued relevance labels (0/1 labels work too).
    scores : array-like of shape (n,)
        Finite scores.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        All labels equal (no pair to judge), NaN/inf, empty input or
        different lengths.

    Notes
    -----
    * Ties in the scores count as misranked (f_i <= f_j), so a constant
      scorer gets 1; with 0/1 labels misrank = 1 − auc + ½·(tied pairs).
    * Ties in the labels are not pairs and do not count at all.
    * Not monotone in the sense of docs/theory/metrics.md#monotone-metrics (``monotone = False``), so
      ExactBoost does not accept it.
    * O(n log n) by inversion counting (a Fenwick tree), never O(n²).

    Examples
    --------
    >>> from rankcore.metrics import misrank
    >>> misrank([1.0, 2.0, 3.0], [0.3, 0.1, 0.2])
    0.6666666666666666
    >>> misrank([1.0, 2.0, 2.0], [0.0, 1.0, 1.0])  # the tie in y is not a pair
    0.0
    """
    return Misrank()(y, scores)


@_with_shared_doc
def roc_curve(y: Any, scores: Any, *, max_fp: int | None = None) -> RocCurve:
    """The ROC curve as counts and rates (spec ``"roc[:max_fp]"``).

    {parameters_y_scores}
    max_fp : int >= 0, optional
        Return only the leftmost portion of the curve: the points with at
        most ``max_fp`` false positives.  ``None``: the whole curve.

    Returns
    -------
    RocCurve
        A named tuple ``(fp, tp, fpr, tpr, thresholds)``: counts (int64),
        rates (float64) and thresholds (``+inf`` first, then the distinct
        scores in decreasing order).  Point m counts the examples scored
        >= thresholds[m].

    Raises
    ------
    ValueError
        One class present (the rates are undefined), a negative ``max_fp``,
        or any input error listed under :func:`auc`.

    Notes
    -----
    Ties: one point per distinct score, so a tie group is one (diagonal)
    step; the same points as scikit-learn's
    ``roc_curve(y, scores, drop_intermediate=False)``.  The last point with
    fp == 0 has tp == rmax, so ``max_fp=0`` shows the climb to rmax.
    O(n log n) time.

    Examples
    --------
    >>> from rankcore.metrics import roc_curve
    >>> curve = roc_curve([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], max_fp=1)
    >>> curve.fp.tolist(), curve.tp.tolist()
    ([0, 0, 0, 1, 1], [0, 1, 2, 2, 3])
    >>> curve.thresholds.tolist()
    [inf, 0.6, 0.5, 0.4, 0.3]
    """
    return ROC(max_fp=max_fp)(y, scores)
