"""Choosing λ: hold-out on a geometric grid, and the a-priori rule.

The rules: docs/theory/kernel_ranking.md#choosing-the-regularization-parameter.

Both reuse one decomposition per training set: the hold-out choice scores
the whole grid (every filter, every λ) from the one spectrum of the fitting
part, through any registered metric.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .._caller import outside_stacklevel
from ..filters import Filter
from ..metrics import Metric

__all__ = ["default_grid", "HoldoutResult", "holdout_split", "holdout_choice", "GridEdgeWarning", "AprioriResult",
           "apriori_choice"]

#: The paper's grid: λ_j = λ₀ q^j, λ₀ = 1, q = 0.95, j = 1..200 (Kriukova, Pereverzyev and Tkachenko 2014).
GRID_START, GRID_RATIO, GRID_SIZE = 1.0, 0.95, 200


def default_grid() -> np.ndarray:
    """λ₀ q^j for j = 1..200 with λ₀ = 1, q = 0.95 (descending)."""
    return GRID_START * GRID_RATIO ** np.arange(1, GRID_SIZE + 1, dtype=np.float64)


def metric_labels(metric: Metric, y: np.ndarray) -> np.ndarray:
    """The labels ``metric`` takes: the grades themselves, or 0/1 (greater value = 1) for bipartite metrics."""
    if metric.task == "graded":
        return y
    values = np.unique(y)
    if values.shape[0] != 2:
        raise ValueError(
            f"metric: {metric.spec!r} is a bipartite metric and needs two label values, "
            f"got {values.shape[0]} distinct values in y; use a graded metric such as 'misrank'"
        )
    return (y == values[1]).astype(np.int8)


def holdout_split(y_metric: np.ndarray, holdout_size: float, rng: np.random.Generator,
                  *, bipartite: bool) -> tuple[np.ndarray, np.ndarray]:
    """Indices (fit, validation): a random split, stratified for two-valued labels (``bipartite``).

    Both parts get at least two rows and two different label values (a ranking
    metric on one value is undefined); random splits are redrawn up to 100
    times to get there, then a ``ValueError`` explains what is missing.
    """
    m = y_metric.shape[0]
    n_val = int(round(holdout_size * m))
    if n_val < 2 or m - n_val < 2:
        raise ValueError(
            f"holdout_size: {holdout_size!r} of {m} samples leaves {m - n_val} to fit and {n_val} to choose "
            "lambda; both parts need at least 2 samples"
        )
    if bipartite:
        parts_fit, parts_val = [], []
        for value in np.unique(y_metric):
            idx = rng.permutation(np.flatnonzero(y_metric == value))
            k = int(round(holdout_size * idx.shape[0]))
            k = min(max(k, 1), idx.shape[0] - 1) if idx.shape[0] >= 2 else k
            parts_val.append(idx[:k])
            parts_fit.append(idx[k:])
        fit, val = np.sort(np.concatenate(parts_fit)), np.sort(np.concatenate(parts_val))
        if np.unique(y_metric[fit]).shape[0] < 2 or np.unique(y_metric[val]).shape[0] < 2:
            raise ValueError("y: the hold-out choice needs at least 2 samples of each class")
        return fit, val
    for _ in range(100):
        perm = rng.permutation(m)
        val, fit = np.sort(perm[:n_val]), np.sort(perm[n_val:])
        if np.unique(y_metric[val]).shape[0] >= 2 and np.unique(y_metric[fit]).shape[0] >= 2:
            return fit, val
    raise ValueError(
        f"y: no split of the {m} samples into {m - n_val} to fit and {n_val} to choose lambda gave two "
        "different label values in both parts"
    )


def best_index(losses: np.ndarray, lams: np.ndarray) -> tuple[int, int]:
    """(filter, λ) with the least loss; ties go to the first filter, then to the largest λ.

    Scanning a descending grid and keeping only strict improvements picks the
    largest λ among equals -- the most regularized of the equally good models.
    """
    best = np.nanmin(losses)
    rows, cols = np.nonzero(losses == best)
    first = rows.min()
    candidates = cols[rows == first]
    return int(first), int(candidates[np.argmax(lams[candidates])])


@dataclass
class HoldoutResult:
    """Outcome of a hold-out choice.

    Attributes
    ----------
    losses : ndarray, shape (n_filters, n_lams)
        The metric's loss form on the held-out part (lower is better).
    filter_index, lam_index : int
        The chosen filter and λ.
    fit_index, val_index : ndarray
        Rows used to fit and to choose.
    coef : ndarray
        Coefficients of the chosen model fitted on the fitting part.
    support : ndarray
        The rows ``coef`` refers to.
    """

    losses: np.ndarray
    filter_index: int
    lam_index: int
    fit_index: np.ndarray
    val_index: np.ndarray
    coef: np.ndarray
    support: np.ndarray
    spectrum: Any = field(repr=False, default=None)
    lams: Any = field(repr=False, default=None)


def holdout_choice(
    X: np.ndarray,
    y: np.ndarray,
    *,
    filters: Sequence[Filter],
    lams: np.ndarray,
    metric: Metric,
    holdout_size: float,
    rng: np.random.Generator,
    decompose: Callable[[np.ndarray, np.ndarray], tuple[Any, np.ndarray]],
    gram: Callable[[np.ndarray, np.ndarray], np.ndarray],
    extend: bool = False,
) -> HoldoutResult:
    """Fit on one part, score every (filter, λ) on the other, return the best.

    ``decompose(X_fit, y_fit) -> (spectrum, support_rows)`` and
    ``gram(X_a, X_b) -> K(X_a, X_b)`` come from the estimator.  Cost: one
    decomposition of the fitting part, the coefficient path (k = filters ×
    λs vectors), one (n_val × n_support) kernel block, k metric evaluations.

    With ``extend``, a choice at either end of the grid (a sign that the
    best λ lies beyond it) is reported with a :class:`GridEdgeWarning` and
    the grid is continued geometrically past that end, one decade at a time
    (at most :data:`MAX_EXTENSIONS` times, from the same decomposition), as
    long as the new values improve the held-out loss strictly.
    ``HoldoutResult.lams`` is the grid finally scored.
    """
    y_metric = metric_labels(metric, y)
    # stratified whenever y has two values, whatever the metric (misrank, the default, reads them as grades)
    two_valued = metric.task != "graded" or np.unique(y_metric).shape[0] == 2
    fit, val = holdout_split(y_metric, holdout_size, rng, bipartite=two_valued)
    spectrum, support = decompose(X[fit], y[fit])
    K_vs = gram(X[val], support)
    y_val = y_metric[val]

    def score(lam_values):
        C = spectrum.path(filters, lam_values)  # (n_f, n_l, n_s)
        scores = C.reshape(-1, C.shape[-1]) @ K_vs.T  # (n_f * n_l, n_val)
        losses = np.array([metric.loss(y_val, row) for row in scores]).reshape(C.shape[0], C.shape[1])
        return C, losses

    lams = np.asarray(lams, dtype=np.float64)
    C, losses = score(lams)
    fi, li = best_index(losses, lams)
    if extend and lams.shape[0] >= 2:
        C, losses, lams, fi, li = _extend_at_edge(score, C, losses, lams, fi, li)
    spectrum.release()
    return HoldoutResult(losses, fi, li, fit, val, C[fi, li].copy(), support, spectrum, lams)


#: Decades a hold-out grid may be continued past its ends (see :func:`holdout_choice`).
MAX_EXTENSIONS = 3


class GridEdgeWarning(UserWarning):
    """The hold-out choice of λ fell on an end of its grid."""


def _median_ratio(sorted_lams):
    """The median ratio of neighbouring values of an increasing grid (the geometric mean of the middle two).

    Quotients and square roots are rounded the same on every IEEE machine, where NumPy's
    vectorized ``exp`` and ``log`` differ in the last bit from one CPU's instruction set to
    another's: the extended grid, saved with the model, stays the same everywhere.
    """
    quotients = np.sort(sorted_lams[1:] / sorted_lams[:-1])
    if not quotients.size:
        return 1.0
    middle = quotients.size // 2
    if quotients.size % 2:
        return float(quotients[middle])
    return math.sqrt(float(quotients[middle - 1]) * float(quotients[middle]))


def _extend_at_edge(score, C, losses, lams, fi, li):
    """Continue the grid past the end where the choice fell (one decade per round)."""
    start = float(lams[li])
    order = np.argsort(lams)
    low, high = lams[order[0]], lams[order[-1]]
    if lams[li] not in (low, high):
        return C, losses, lams, fi, li
    side = "smallest" if lams[li] == low else "largest"
    ratio = _median_ratio(lams[order])
    ratio = ratio if ratio > 1.0 + 1e-12 else 10.0 ** 0.25
    n_new = max(1, math.ceil(math.log(10.0) / math.log(ratio)))
    sign = -1 if side == "smallest" else 1
    for _ in range(MAX_EXTENSIONS):
        edge = float(lams.min() if side == "smallest" else lams.max())
        new = np.array([edge * ratio ** (sign * k) for k in range(1, n_new + 1)])
        new = new[(new > 1e-300) & np.isfinite(new)]
        if not new.size:
            break
        C_new, losses_new = score(new)
        best_old = float(np.nanmin(losses))
        lams = np.concatenate([lams, new])
        C = np.concatenate([C, C_new], axis=1)
        losses = np.concatenate([losses, losses_new], axis=1)
        if not float(np.nanmin(losses_new)) < best_old:
            break  # nothing better beyond: keep the original choice
        fi, li = best_index(losses, lams)
        if lams[li] != (lams.min() if side == "smallest" else lams.max()):
            break
    order = np.argsort(-lams, kind="stable")  # keep the grid descending, as it came
    C, losses, lams = C[:, order], losses[:, order], lams[order]
    li = int(np.flatnonzero(order == li)[0])
    at_new_end = lams[li] in (lams.min(), lams.max()) and lams[li] != start
    # a coarse metric (prec@k on a few held-out positives) ties over much of the grid: the largest of the tied λ
    # is then taken, at the grid's top, and a wider grid is not what helps
    ties = int(np.count_nonzero(losses[fi] == losses[fi, li])) - 1
    how = "every other value of lambda" if ties == losses.shape[1] - 1 else f"{ties} other values of lambda"
    tied = (f"; its held-out loss is tied with {how}, and the largest of equals in the given grid is taken: "
            "the metric hardly tells them apart on the held-out rows (a finer one, such as 'auc' or 'pauc:0.1', "
            "or a larger holdout_size would)") if ties > 0 else ""
    warnings.warn(
        f"lam='holdout': the held-out loss was least at the {side} lambda of the grid ({start:.3g}); the grid was "
        f"extended to [{lams.min():.3g}, {lams.max():.3g}] and the choice is now {float(lams[li]):.3g}"
        f"{' (at its new end: consider a wider lam_grid)' if at_new_end and not ties else ''}{tied}.",
        GridEdgeWarning, stacklevel=outside_stacklevel())
    return C, losses, lams, fi, li


@dataclass
class AprioriResult:
    """Outcome of the a-priori rule: log λ₊(s) = log α − (β/2) log s fitted on subsets.

    Attributes
    ----------
    sizes : ndarray of int
        Subset sizes s (repeated sizes are separate subsets).
    lams : ndarray
        λ₊(s) chosen by hold-out on each subset.
    alpha, beta : float
        The least-squares fit.
    lam : float
        The extrapolation α m^{−β/2} to the full training size m, clipped to
        ``bounds`` when given.
    extrapolated : float
        α m^{−β/2} before clipping (differs from ``lam`` when the fit on
        small, noisy subsets points outside the grid).
    """

    sizes: np.ndarray
    lams: np.ndarray
    alpha: float
    beta: float
    lam: float
    extrapolated: float


def apriori_choice(
    X: np.ndarray,
    y: np.ndarray,
    *,
    sizes: Sequence[int],
    choose: Callable[[np.ndarray, np.ndarray], float],
    rng: np.random.Generator,
    bounds: tuple[float, float] | None = None,
) -> AprioriResult:
    """The a priori choice: λ₊ on random subsets of the given sizes, then log-linear extrapolation.

    The rule is in docs/theory/kernel_ranking.md#choosing-the-regularization-parameter.

    ``choose(X_sub, y_sub) -> λ₊`` runs the hold-out choice on one subset.
    ``bounds=(low, high)`` clips the extrapolated λ to the range the hold-out
    choice itself may return (the grid): a least-squares line through a few
    noisy points can have any slope, and a λ far outside the grid (1e-9 from
    subsets whose λ₊ all lie in [1e-4, 1]) is an artefact of that noise, not
    information.  Clipping is reported with a warning.
    """
    m = X.shape[0]
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    chosen = np.empty(sizes_arr.shape[0])
    for i, s in enumerate(sizes_arr):
        for _ in range(100):  # a subset whose labels are all equal cannot rank: draw again
            sub = np.sort(rng.choice(m, int(s), replace=False))
            if np.unique(y[sub]).shape[0] >= 2:
                break
        else:
            raise ValueError(f"apriori_sizes: no subset of size {int(s)} had two different label values")
        try:
            chosen[i] = choose(X[sub], y[sub])
        except ValueError as exc:
            raise ValueError(f"apriori_sizes: the hold-out choice on a subset of size {int(s)} failed: {exc}") from None
    design = np.column_stack([np.ones(sizes_arr.shape[0]), -0.5 * np.log(sizes_arr.astype(float))])
    (log_alpha, beta), *_ = np.linalg.lstsq(design, np.log(chosen), rcond=None)
    extrapolated = math.exp(log_alpha - 0.5 * beta * math.log(m))
    lam = extrapolated
    if bounds is not None:
        low, high = float(min(bounds)), float(max(bounds))
        lam = min(max(extrapolated, low), high)
        if lam != extrapolated:
            warnings.warn(
                f"lam='apriori': the extrapolation alpha * m^(-beta/2) = {extrapolated:.3g} "
                f"(alpha = {math.exp(log_alpha):.3g},"
                f" beta = {beta:.3g}, from subset choices {np.array2string(chosen, precision=3)}) lies outside the grid"
                f" [{low:.3g}, {high:.3g}]; using {lam:.3g}. Repeat sizes in apriori_sizes (or use larger subsets)"
                " to steady the fit.", UserWarning, stacklevel=outside_stacklevel())
    return AprioriResult(sizes_arr, chosen, math.exp(log_alpha), float(beta), lam, extrapolated)
