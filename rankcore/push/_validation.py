"""How early stopping holds data out: one validation split, or folds on small data.

The rule, in one place so that every learner (stumps, thresholds, trees, a
plugin's) gets the same:

* A hold-out must be worth scoring: at least ``MIN_VALIDATION_ROWS`` rows and,
  for two-class targets, about ``MIN_VALIDATION_CLASS`` rows of each class.
  (On a 200-row set a 10 % split is 20 rows and perhaps 5 positives: its AUC
  moves by 0.05 when one positive changes places, and the fit stops at noise.)
* When ``validation_fraction`` of the rows already meets those floors, that
  stratified fraction is held out (the large-data case: one extra fit's worth
  of scoring, no extra fits).
* Otherwise the data are small: holding out enough rows would starve the fit,
  so the number of iterations is chosen by ``CV_FOLDS``-fold (stratified)
  cross-validation instead -- every row is validated once and the folds'
  validation curves are averaged, which is far less noisy than one small split.

Either way the estimator then refits on all the rows with the chosen number
of iterations (see ``_estimators._BaseBoost.fit``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_VALIDATION_ROWS = 50
MIN_VALIDATION_CLASS = 10
CV_FOLDS = 5


@dataclass(frozen=True)
class ValidationPlan:
    """Row indices of each (train, validation) pair; one pair for a hold-out."""

    kind: str                                    # "holdout" or "cv"
    folds: tuple[tuple[np.ndarray, np.ndarray], ...]


def holdout_size(n: int, fraction: float, n_pos: int | None = None) -> int:
    """Rows a hold-out needs: max(fraction·n, 50 rows, enough rows for 10 of each class).

    ``n_pos`` is None for graded targets (no class floor).
    """
    need = max(math.ceil(fraction * n), MIN_VALIDATION_ROWS)
    if n_pos is not None:
        for count in (n_pos, n - n_pos):
            need = max(need, math.ceil(MIN_VALIDATION_CLASS * n / max(count, 1)))
    return need


def plan_validation(y: np.ndarray, fraction: float, seed, *, stratify: bool) -> ValidationPlan:
    """The hold-out of ``fraction`` when it meets the floors, else stratified K-fold.

    Parameters
    ----------
    y : ndarray of shape (n,)
        0/1 labels (``stratify=True``) or grades.
    fraction : float in (0, 1)
        ``validation_fraction``.
    seed : None, int or numpy Generator
        Draws the split (the same seed, the same split).
    stratify : bool
        Keep the class shares in every part (two-class targets).

    Raises
    ------
    ValueError
        Too few rows (or too few of a class) for even two folds.
    """
    from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

    y = np.asarray(y)
    n = y.shape[0]
    n_pos = int(np.count_nonzero(y)) if stratify else None
    state = int(np.random.default_rng(seed).integers(0, 2**31 - 1))
    idx = np.arange(n)
    wanted = math.ceil(fraction * n)
    if holdout_size(n, fraction, n_pos) <= wanted:
        tr, va = train_test_split(idx, test_size=wanted, stratify=y if stratify else None, random_state=state)
        return ValidationPlan("holdout", ((np.sort(tr), np.sort(va)),))
    smallest = min(n_pos, n - n_pos) if stratify else n
    n_folds = min(CV_FOLDS, smallest)
    if n_folds < 2:
        what = "rows" if not stratify else "rows of each class"
        raise ValueError(f"early_stopping: at least 2 {what} are needed to validate the number of iterations, "
                         f"got {smallest}")
    splitter = (StratifiedKFold if stratify else KFold)(n_splits=n_folds, shuffle=True, random_state=state)
    folds = tuple((np.sort(tr), np.sort(va)) for tr, va in splitter.split(idx, y if stratify else None))
    return ValidationPlan("cv", folds)


def patience(n_iter_no_change, n_iter: int) -> int:
    """Iterations without improvement before stopping: the given number, or max(10, n_iter / 5) for None."""
    if n_iter_no_change is None:
        return max(10, math.ceil(n_iter / 5))
    return int(n_iter_no_change)
