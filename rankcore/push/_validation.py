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

With ``early_stopping=True`` the estimator then refits on all the rows with
the chosen number of iterations (see ``_estimators._BaseBoost.fit``).

``early_stopping="auto"`` (the default) switches on above ``AUTO_MIN_ROWS``
training rows only, as scikit-learn's HistGradientBoosting does, and then
works the large-data way: the stratified hold-out, the fit on the other
rows, the best iteration kept -- no refit, which would double the cost.  When
the hold-out would not meet the floors (a rare class), it falls back to no
early stopping and says so (``NO_VALIDATION``).  :func:`resolve_early_stopping`
is the whole rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_VALIDATION_ROWS = 50
MIN_VALIDATION_CLASS = 10
CV_FOLDS = 5
#: ``early_stopping="auto"`` is on for more training rows than this.
AUTO_MIN_ROWS = 10_000
#: ``stop_reason_`` of an ``early_stopping="auto"`` fit that had too few rows for a validation split.
NO_VALIDATION = "no_validation_split"


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


@dataclass(frozen=True)
class EarlyStopping:
    """How one fit chooses its number of iterations: ``early_stopping`` resolved against the data.

    Attributes
    ----------
    mode : str
        ``"off"`` (``n_iter`` iterations), ``"eval_set"`` (stop on the given
        validation data, keep the best prefix), ``"holdout"`` (hold out a
        stratified fraction, fit on the rest, keep the best prefix: no
        refit) or ``"select"`` (hold-out or cross-validation, then a refit on
        every row: ``early_stopping=True`` without ``eval_set``).
    auto : bool
        Switched on by ``"auto"``: the estimator's large-data settings apply.
    fallback : str
        Why ``"auto"`` could not validate ("" when it did not fall back).
    """

    mode: str
    auto: bool = False
    fallback: str = ""

    @property
    def on(self) -> bool:
        return self.mode != "off"


def resolve_early_stopping(setting, y: np.ndarray, fraction: float, *, has_eval_set: bool,
                           stratify: bool) -> EarlyStopping:
    """The rule of ``early_stopping`` (True, False or ``"auto"``) for training labels ``y``.

    ``"auto"`` is on when ``y`` has more than :data:`AUTO_MIN_ROWS` rows:
    then on ``eval_set`` if given, else on a hold-out of ``fraction`` -- when
    that meets the floors of :func:`holdout_size`; when it does not, the fit
    runs without early stopping and ``fallback`` says why.
    """
    if setting is False:
        return EarlyStopping("off")
    if setting is True:
        return EarlyStopping("eval_set" if has_eval_set else "select")
    n = int(y.shape[0])
    if n <= AUTO_MIN_ROWS:
        return EarlyStopping("off")
    if has_eval_set:
        return EarlyStopping("eval_set", auto=True)
    n_pos = int(np.count_nonzero(y)) if stratify else None
    wanted = math.ceil(fraction * n)
    need = holdout_size(n, fraction, n_pos)
    if need <= wanted:
        return EarlyStopping("holdout", auto=True)
    what = (f"at least {MIN_VALIDATION_ROWS} rows" if n_pos is None or wanted < MIN_VALIDATION_ROWS
            else f"about {MIN_VALIDATION_CLASS} rows of each class")
    return EarlyStopping("off", fallback=(
        f"early_stopping='auto': a validation_fraction={fraction:g} hold-out of the {n} rows "
        f"({wanted} rows) would not hold {what} (it would need {need} rows); "
        f"fitted n_iter iterations without early stopping (stop_reason_ = {NO_VALIDATION!r}). "
        "Raise validation_fraction, pass eval_set, or set early_stopping=True (cross-validation)"))


def large_data_learner(given, learner):
    """``learner`` with its ``large_data_params`` set where the user's ``learner`` parameter leaves them out.

    ``given`` is the estimator's ``learner`` parameter as the user set it: a
    spec string (only the spec parameters it names are the user's; ``"trees"``
    names none) or a configured component (every parameter is the user's: it
    is kept as it is).
    """
    from ..spec import parse_spec

    settings = dict(getattr(learner, "large_data_params", None) or {})
    if not settings or not isinstance(given, str):
        return learner
    _, args, kwargs = parse_spec(given)
    explicit = {p.name for p in learner.parameters[: len(args)]} | set(kwargs)
    changes = {name: value for name, value in settings.items() if name not in explicit}
    if not changes:
        return learner
    return type(learner)(**{**learner.params, **changes})


def last_minimum(losses) -> int:
    """The index of the last minimum of ``losses``: of tied best validation scores, the later iteration."""
    losses = np.asarray(losses, dtype=np.float64)
    return int(losses.shape[0] - 1 - np.argmin(losses[::-1]))
