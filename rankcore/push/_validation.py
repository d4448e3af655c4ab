"""How early stopping holds data out: one validation split, or folds on small data.

The rule, in one place so that every learner (stumps, thresholds, trees, a
plugin's) gets the same:

* A hold-out must be worth scoring: at least ``MIN_VALIDATION_ROWS`` rows and,
  for two-class targets, about ``MIN_VALIDATION_CLASS`` rows of each class.
  (On a 200-row set a 10 % split is 20 rows and perhaps 5 positives: its AUC
  moves by 0.05 when one positive changes places, and the fit stops at noise.)
* ``early_stopping="auto"`` (the default) switches on above
  ``AUTO_MIN_ROWS`` training rows only, as scikit-learn's
  HistGradientBoosting does, and works the large-data way: the stratified
  ``validation_fraction`` hold-out, the fit on the other rows, the best
  iteration kept -- no refit, which would double the cost.  When the hold-out
  would not meet the floors (a rare class), the fit runs without early
  stopping and says so (``NO_VALIDATION``).
* ``early_stopping=True`` holds out the stratified fraction only when it holds
  at least ``MIN_HOLDOUT_ROWS`` rows (and meets the class floor); on smaller
  data holding out enough rows would starve the fit and one split is noisy,
  so the number of iterations is chosen by ``CV_FOLDS``-fold (stratified)
  cross-validation instead: every row is validated once, the folds' curves
  are averaged, and of the iteration counts within ``CV_SLACK`` standard
  errors of the best mean the largest is taken (:func:`selected_iteration`).
  The estimator then refits on all the rows with the chosen number of
  iterations (see ``_boost_base._BaseBoost.fit``).

* Within queries (``fit(..., qid=...)``) every split keeps queries whole:
  the hold-out is whole queries, drawn from the sorted query ids with the
  seed until they hold ``validation_fraction`` of the rows, and the folds
  deal whole queries (``_queries.query_folds``); the floors count rows as
  above, and a split needs two queries.

:func:`resolve_early_stopping` is the whole rule of the three settings.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .._held_warnings import held_warnings

MIN_VALIDATION_ROWS = 50
MIN_VALIDATION_CLASS = 10
#: ``early_stopping=True`` cross-validates unless the hold-out holds this many rows.
MIN_HOLDOUT_ROWS = 1_000
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


def holdout_size(n: int, fraction: float, n_pos: int | None = None, min_rows: int = MIN_VALIDATION_ROWS) -> int:
    """Rows a hold-out needs: max(fraction·n, ``min_rows``, enough rows for 10 of each class).

    ``n_pos`` is None for graded targets (no class floor).
    """
    need = max(math.ceil(fraction * n), min_rows)
    if n_pos is not None:
        for count in (n_pos, n - n_pos):
            need = max(need, math.ceil(MIN_VALIDATION_CLASS * n / max(count, 1)))
    return need


def holdout_rows(y: np.ndarray, n_val: int, rng: np.random.Generator, *,
                 stratify: bool) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, validation rows), each ascending: ``n_val`` rows drawn at random, stratified on request.

    Stratified (0/1 labels), each class gives its share of the ``n_val``
    rows, rounded to the nearest row (the positives' count rounded, the
    negatives' the rest), so every class keeps within one row of its share
    on both sides.  Each class's rows are drawn without replacement by
    ``rng``: the same generator state, the same split.

    O(n) time and memory.  (A fit's hold-out is drawn once per fit; the
    generic splitter of scikit-learn took 9 ms on 50,000 rows, 4 % of a
    whole fit, where this takes under 1 ms.)
    """
    n = y.shape[0]
    if stratify:
        positives = np.flatnonzero(y)
        negatives = np.flatnonzero(y == 0)
        n_pos_val = int(np.floor(n_val * positives.shape[0] / n + 0.5))
        n_pos_val = min(max(n_pos_val, 0), positives.shape[0], n_val)
        n_pos_val = max(n_pos_val, n_val - negatives.shape[0])
        validation = np.concatenate([rng.choice(positives, n_pos_val, replace=False),
                                     rng.choice(negatives, n_val - n_pos_val, replace=False)])
    else:
        validation = rng.choice(n, n_val, replace=False)
    validation.sort()
    held_out = np.zeros(n, dtype=bool)
    held_out[validation] = True
    return np.flatnonzero(~held_out), validation


def plan_query_validation(queries, fraction: float, seed, *, min_rows: int = MIN_VALIDATION_ROWS) -> ValidationPlan:
    """:func:`plan_validation` for rows in query order: a hold-out of whole queries, else folds of whole queries.

    Raises
    ------
    ValueError
        Fewer than two queries.
    """
    from ._queries import query_folds

    n, n_queries = int(queries.codes.shape[0]), queries.n_queries
    if n_queries < 2:
        raise ValueError(f"early_stopping: at least 2 queries are needed to validate the number of iterations on "
                         f"whole queries, got {n_queries}")
    held, folds = query_folds(queries, fraction, seed, n_folds=min(CV_FOLDS, n_queries))
    if holdout_size(n, fraction, None, min_rows) <= math.ceil(fraction * n) and held.shape[0] < n:
        kept = np.setdiff1d(np.arange(n), held, assume_unique=True)
        return ValidationPlan("holdout", ((kept, held),))
    everything = np.arange(n)
    return ValidationPlan("cv", tuple((np.setdiff1d(everything, va, assume_unique=True), va) for va in folds))


def plan_validation(y: np.ndarray, fraction: float, seed, *, stratify: bool,
                    min_rows: int = MIN_VALIDATION_ROWS) -> ValidationPlan:
    """The hold-out of ``fraction`` when it meets the floors (``min_rows`` rows), else stratified K-fold.

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
    min_rows : int
        The fewest rows a hold-out may have (``MIN_HOLDOUT_ROWS`` for
        ``early_stopping=True``).

    Raises
    ------
    ValueError
        Too few rows (or too few of a class) for even two folds.
    """
    from sklearn.model_selection import KFold, StratifiedKFold

    y = np.asarray(y)
    n = y.shape[0]
    n_pos = int(np.count_nonzero(y)) if stratify else None
    rng = np.random.default_rng(seed)
    wanted = math.ceil(fraction * n)
    if holdout_size(n, fraction, n_pos, min_rows) <= wanted:
        return ValidationPlan("holdout", (holdout_rows(y, wanted, rng, stratify=stratify),))
    state = int(rng.integers(0, 2**31 - 1))
    idx = np.arange(n)
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
                           stratify: bool, n_queries: int | None = None,
                           patience_given: bool = False) -> EarlyStopping:
    """The rule of ``early_stopping`` (True, False or ``"auto"``) for training labels ``y``.

    ``"auto"`` is on when ``y`` has more than :data:`AUTO_MIN_ROWS` rows:
    then on ``eval_set`` if given, else on a hold-out of ``fraction`` -- when
    that meets the floors of :func:`holdout_size`; when it does not, the fit
    runs without early stopping and ``fallback`` says why.  Within queries
    (``n_queries`` given) ``"auto"`` never stops: a hold-out of whole
    training queries scores too few queries to stop on (NDCG@10 per query
    varies widely), and stopping on it cost up to 0.06 NDCG@10 on held-out
    queries where the full ``n_iter`` did not; an ``eval_set`` of about as
    many queries is no better, and LightGBM's users pass one to watch the
    fit.  ``early_stopping=True`` stops on it.  Without queries, ``"auto"``
    also stops on an ``eval_set`` of up to :data:`AUTO_MIN_ROWS` training
    rows when the user set ``n_iter_no_change`` (``patience_given``; as
    ``True``, without the large-data settings): that is LightGBM's and
    XGBoost's ``early_stopping_rounds`` with a validation set, which a user
    who sets a patience means.
    """
    if setting is False:
        return EarlyStopping("off")
    if setting is True:
        return EarlyStopping("eval_set" if has_eval_set else "select")
    n = int(y.shape[0])
    if has_eval_set and patience_given and n <= AUTO_MIN_ROWS and n_queries is None:
        return EarlyStopping("eval_set")       # as True: no large-data settings on small data
    if n <= AUTO_MIN_ROWS:
        return EarlyStopping("off")
    if n_queries is not None:      # an eval_set is watched (validation_scores_), as LightGBM's, not stopped on
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


def named_parameters(given, learner) -> set[str]:
    """The spec parameters of ``learner`` that the user's ``learner`` parameter ``given`` names.

    A spec string names its positional and keyword parameters (``"trees"``
    names none); a configured component names every parameter.
    """
    from ..spec import parse_spec

    if not isinstance(given, str):
        return {p.name for p in learner.parameters}
    _, args, kwargs = parse_spec(given)
    return {p.name for p in learner.parameters[: len(args)]} | set(kwargs)


def large_data_learner(given, learner, settings=None):
    """``learner`` with its ``large_data_params`` set where the user's ``learner`` parameter leaves them out.

    ``given`` is the estimator's ``learner`` parameter as the user set it: a
    spec string (only the spec parameters it names are the user's; ``"trees"``
    names none) or a configured component (every parameter is the user's: it
    is kept as it is).  ``settings`` replaces ``large_data_params`` (the
    per-query defaults use the same rule).
    """
    if settings is None:
        settings = getattr(learner, "large_data_params", None)
    settings = dict(settings or {})
    if not settings or not isinstance(given, str):
        return learner
    explicit = named_parameters(given, learner)
    changes = {name: value for name, value in settings.items() if name not in explicit}
    if not changes:
        return learner
    return type(learner)(**{**learner.params, **changes})


@contextmanager
def held_out_queries_counted(plan: ValidationPlan, fold: int):
    """Within it, a metric that counts none of the queries early stopping held out is refused as early stopping's.

    The metric's own words name ``y`` and ask to score other queries, but the user chose neither these queries
    nor their labels: the hold-out (or fold ``fold`` of the cross-validation) drew them from the training
    queries, and on sparse relevance it can draw no query with a relevant row.
    """
    from ..metrics import MetricRefusal

    try:
        yield
    except MetricRefusal as exc:
        if exc.reason != "no_query":
            raise
        if plan.kind == "holdout":
            part, more = "a hold-out", "raise validation_fraction"
        else:
            # the folds deal every query once, whatever validation_fraction: a larger one does not fill this fold
            part = f"fold {fold + 1} of {len(plan.folds)} of the cross-validation used on data this small"
            more = (f"give the training data more queries with relevant rows (each of the {len(plan.folds)} folds "
                    f"needs one), another random_state (which deals the queries to the folds)")
        detail = (f"metric {exc.spec!r} counts none of the {exc.n_queries} queries early stopping held out of the "
                  f"training queries ({part}) to choose the number of iterations (it leaves out queries without a "
                  f"relevant row, or with one class); pass validation queries with relevant rows as "
                  f"eval_set=(X_val, y_val, qid_val), {more}, or fit with early_stopping=False")
        raise exc.with_context(f"early_stopping: {detail}", detail=detail, advice=None, remedy=None) from None


@contextmanager
def selection_fit_warnings(plan: ValidationPlan):
    """Within it, the warnings of early stopping's selection fits (of ``plan``) are held; on leaving, each kind
    (its category and its text, numbers aside) is raised once, saying it came from those fits.

    A selection fit is not the model: its warning that "the model is constant" or stopped at iteration 1 is about
    a fit on part of the rows, while the model is fitted on all of them afterwards, so it must say so.  Each
    keeps the place in the caller's code it was raised at and its module; warnings held when a fit raises are said
    before the error goes on (:func:`rankcore._held_warnings.held_warnings`).
    """
    def reword(same: list, numbers_differ: bool) -> str:
        where = ("the rows beside its hold-out" if plan.kind == "holdout"
                 else f"the training rows of {len(same)} of its {len(plan.folds)} folds")
        if numbers_differ:          # the fits' rows, iterations or columns: the first fit's are shown, said to be
            where += " (the first of them said, the others with other numbers)"
        return (f"early stopping's fit on {where}, which chooses n_iter before the model is fitted on all the rows: "
                f"{same[0].message}")

    with held_warnings(reword):
        yield


def last_minimum(losses) -> int:
    """The index of the last minimum of ``losses``: of tied best validation scores, the later iteration."""
    losses = np.asarray(losses, dtype=np.float64)
    return int(losses.shape[0] - 1 - np.argmin(losses[::-1]))


#: Cross-validation keeps the last iteration whose mean validation loss is within this many
#: standard errors (over the folds) of the minimum: a tie within the folds' noise goes to the
#: later iteration (measured in docs/push.md, *Early stopping*: 0.5 keeps the stumps recipe's
#: gain on small data and does not stop trees short on svmguide1 and spambase).
CV_SLACK = 0.5


def selected_iteration(fold_losses) -> int:
    """The iteration count chosen from validation loss curves, one row per fold (t = 0 ... T).

    One curve (a hold-out): its last minimum.  Several (cross-validation): the
    last t whose mean loss is at most the minimum mean plus ``CV_SLACK``
    standard errors of the folds' losses at that minimum.
    """
    fold_losses = np.atleast_2d(np.asarray(fold_losses, dtype=np.float64))
    mean = fold_losses.mean(axis=0)
    best = last_minimum(mean)
    k = fold_losses.shape[0]
    if k < 2 or CV_SLACK <= 0:
        return best
    se = fold_losses[:, best].std(ddof=1) / math.sqrt(k)
    if not math.isfinite(se):
        # a fold's loss is -inf at the best count (its validation objective reached 0: log 0), so no spread
        # can be measured there and the best mean, -inf, is unmatched: keep it
        return best
    return int(np.flatnonzero(mean <= mean[best] + CV_SLACK * se)[-1])
