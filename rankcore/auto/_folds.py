"""How AutoRanker holds data out: repeated stratified folds on small data, one hold-out on large data.

The plan is fixed before any fit by the labels and the seed alone, so every
candidate is judged on the same rows (paired comparisons) and the same seed
gives the same plan.  Folds are ordered repeat by repeat; the search
(:mod:`rankcore.auto._search`) gives a candidate the first few folds and more
only if it survives, so that a plan with several repeats costs little for
candidates that lose early.  Each repeat is drawn when the search first asks
for one of its folds (in order, from one seeded stream: the same folds as
drawing them all at once), so a repeat never used costs nothing.

Before anything is fitted, :func:`check_metric_on_folds` computes the metric
on every validation part with constant scores: a metric that cannot be
computed there (k larger than a fold, a single class in a fold) is an error
naming the metric and the fold size, not a failure after minutes of fitting.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..metrics import MetricRefusal

__all__ = ["FoldPlan", "Units", "plan_folds", "plan_units", "check_cv", "check_metric_on_units", "part_advice",
           "CV_MAX_ROWS", "N_FOLDS", "MAX_REPEATS", "MAX_CV_REPEATS", "HOLDOUT_FRACTION", "HOLDOUT_UNITS"]

#: ``cv="auto"`` uses repeated K-fold up to this many rows, one hold-out beyond.  Up to here five folds (and
#: the fold bag) cost at most about 25 one-thread LightGBM fits (ticdata, 9,822 rows: 23x); from 3,000 to
#: 10,000 rows they chose better than one hold-out, nested on 12 sets (docs/auto.md, *How it chooses*).
CV_MAX_ROWS = 10_000
#: Folds per repeat of ``cv="auto"``.
N_FOLDS = 5
#: Repeats ``cv="auto"`` plans on small data (the search uses as many as it can afford).
MAX_REPEATS = 3
#: Most repeats a pair ``cv=(K, R)`` may ask for: the search fits every candidate on the K·R folds (with a
#: budget, as many as time allows); beyond 100 repeats the mean fold score's standard error has shrunk tenfold
#: and further repeats only cost fits.
MAX_CV_REPEATS = 100
#: Share of the rows ``cv="auto"`` holds out on large data.
HOLDOUT_FRACTION = 0.2
#: Stratified parts a hold-out's validation rows are scored in (units of variance).
HOLDOUT_UNITS = 5


@dataclass(frozen=True)
class FoldPlan:
    """Row indices of every (train, validation) pair, in the order the search uses them.

    Attributes
    ----------
    kind : str
        ``"kfold"`` (one or more repeats of stratified K-fold) or ``"holdout"``.
    folds : sequence of (ndarray, ndarray)
        Sorted training and validation row indices (a K-fold plan draws each
        repeat on first access).
    n_splits, n_repeats : int
        Folds per repeat (1 for a hold-out) and repeats.
    fixed_repeats : int
        The repeats a search without a time budget uses: all the repeats a
        pair ``(K, R)`` asks for; the first only of ``cv="auto"``'s.
    by_query : bool
        The folds keep every query whole (``fit(..., qid=...)``; see
        :mod:`rankcore.auto._queries`) instead of stratifying the two classes.
    given : str or None
        A hold-out that is the user's validation set of this name
        (``fit(..., eval_set=...)``): trained on every row of X, validated on
        the set's rows (appended after X's); the search keeps each
        candidate's model, which is the one chosen (no refit).
    """

    kind: str
    folds: Sequence
    n_splits: int
    n_repeats: int
    fixed_repeats: int = 1
    by_query: bool = False
    given: str | None = None

    @property
    def n_folds(self) -> int:
        return len(self.folds)

    def describe(self, n_used: int | None = None) -> str:
        """``"5-fold stratified cross-validation, 2 repeats"`` (of the first ``n_used`` folds)."""
        used = self.n_folds if n_used is None else n_used
        if self.given is not None:
            n_val = self.folds[0][1].shape[0]
            return f"the eval_set {self.given!r} ({n_val} rows{' in whole queries' if self.by_query else ''})"
        if self.kind == "holdout":
            n_val = self.folds[0][1].shape[0]
            text = f"hold-out of {n_val} rows in whole queries" if self.by_query else \
                f"stratified hold-out of {n_val} rows"
            return text if used <= 1 else f"{text}, {used} draws"
        repeats = math.ceil(used / self.n_splits)
        text = f"{self.n_splits}-fold cross-validation over whole queries" if self.by_query else \
            f"{self.n_splits}-fold stratified cross-validation"
        return text + (f", {repeats} repeats" if repeats > 1 else "")

    def to_state(self) -> dict:
        return {"kind": self.kind, "n_splits": self.n_splits, "n_repeats": self.n_repeats,
                "validation_rows": [int(va.shape[0]) for _, va in self.folds]}


def check_cv(cv) -> object:
    """Validate the ``cv`` parameter; returns it unchanged.

    ``"auto"``; an integer K >= 2 (stratified K-fold); a pair ``(K, R)``
    (K folds, R repeats, R at most :data:`MAX_CV_REPEATS`); or a fraction
    in (0, 1) (one stratified hold-out of that share of the rows).
    """
    if isinstance(cv, str):
        if cv != "auto":
            raise ValueError(f"cv: expected 'auto', an integer >= 2, a pair (n_splits, n_repeats) or a fraction "
                             f"in (0, 1), got {cv!r}")
        return cv
    if _is_int(cv):
        if cv < 2:
            raise ValueError(f"cv: expected at least 2 folds, got {cv!r}")
        return cv
    if isinstance(cv, (tuple, list)):
        if len(cv) != 2 or not all(_is_int(v) for v in cv) or cv[0] < 2 or not 1 <= cv[1] <= MAX_CV_REPEATS:
            raise ValueError(f"cv: a pair must be (n_splits >= 2, n_repeats from 1 to {MAX_CV_REPEATS}), "
                             f"got {cv!r}")
        return cv
    if isinstance(cv, numbers.Real) and not isinstance(cv, bool) and 0 < float(cv) < 1:
        return cv
    raise ValueError(f"cv: expected 'auto', an integer >= 2, a pair (n_splits, n_repeats) or a fraction in (0, 1), "
                     f"got {cv!r}")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def plan_folds(y: np.ndarray, cv, seed: int) -> FoldPlan:
    """The fold plan of ``cv`` for 0/1 labels ``y``, drawn with ``seed``.

    ``cv="auto"``: up to :data:`CV_MAX_ROWS` rows, :data:`MAX_REPEATS`
    repeats of stratified :data:`N_FOLDS`-fold (fewer folds when a class has
    fewer rows than that); beyond, one stratified hold-out of
    :data:`HOLDOUT_FRACTION` of the rows.

    Raises
    ------
    ValueError
        A class with fewer rows than the folds need.
    """
    y = np.asarray(y)
    n = y.shape[0]
    smallest = int(min(np.count_nonzero(y), n - np.count_nonzero(y)))
    if isinstance(cv, str):                      # "auto"
        if n > CV_MAX_ROWS:
            return _holdout(y, HOLDOUT_FRACTION, seed)
        n_splits = min(N_FOLDS, smallest)
        if n_splits < 2:
            raise ValueError(f"y: cross-validation needs at least 2 rows of each class, got {smallest} of the "
                             f"smaller class")
        return FoldPlan("kfold", RepeatedFolds(y, n_splits, MAX_REPEATS, seed), n_splits, MAX_REPEATS, 1)
    if _is_int(cv) or isinstance(cv, (tuple, list)):
        n_splits, n_repeats = (int(cv), 1) if _is_int(cv) else (int(cv[0]), int(cv[1]))
        if smallest < n_splits:
            raise ValueError(f"cv: {n_splits}-fold stratified cross-validation needs at least {n_splits} rows of "
                             f"each class, got {smallest} of the smaller class; use fewer folds")
        return FoldPlan("kfold", RepeatedFolds(y, n_splits, n_repeats, seed), n_splits, n_repeats, n_repeats)
    return _holdout(y, float(cv), seed)


class RepeatedFolds(Sequence):
    """The folds of ``n_repeats`` repeats of stratified ``n_splits``-fold, each repeat drawn on first access.

    Repeat r's shuffle seed is the r-th draw of one generator seeded with
    ``seed``, so drawing lazily gives the same folds as drawing every
    repeat up front -- in O(n) memory per repeat actually used.
    """

    def __init__(self, y: np.ndarray, n_splits: int, n_repeats: int, seed: int):
        self._y = y
        self._n_splits = n_splits
        self._n_repeats = n_repeats
        self._rng = np.random.default_rng(seed)
        self._drawn: list[tuple[np.ndarray, np.ndarray]] = []

    def __len__(self) -> int:
        return self._n_splits * self._n_repeats

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[f] for f in range(*index.indices(len(self)))]
        f = operator.index(index)
        f += len(self) if f < 0 else 0
        if not 0 <= f < len(self):
            raise IndexError(f"fold {index} of a plan of {len(self)} folds")
        while len(self._drawn) <= f:
            self._draw_next_repeat()
        return self._drawn[f]

    def _draw_next_repeat(self) -> None:
        from sklearn.model_selection import StratifiedKFold

        state = int(self._rng.integers(2**31 - 1))
        splitter = StratifiedKFold(n_splits=self._n_splits, shuffle=True, random_state=state)
        self._drawn += [(np.sort(tr), np.sort(va)) for tr, va in splitter.split(np.zeros(self._y.shape[0]), self._y)]


def _holdout(y, fraction: float, seed: int) -> FoldPlan:
    from sklearn.model_selection import train_test_split

    n = y.shape[0]
    n_val = max(1, min(n - 1, math.ceil(fraction * n)))
    idx = np.arange(n)
    try:
        tr, va = train_test_split(idx, test_size=n_val, stratify=y, random_state=seed)
    except ValueError as exc:
        raise ValueError(f"cv: cannot hold out {n_val} of {n} rows with both classes on each side ({exc})") from None
    return FoldPlan("holdout", ((np.sort(tr), np.sort(va)),), 1, 1)


@dataclass(frozen=True)
class Units:
    """How validation rows are cut into scoring units.

    Attributes
    ----------
    rows : list of ndarray
        Row indices (into the whole data) of each unit's validation rows.
    fold : list of int
        The plan fold each unit belongs to (its predictions come from that fold's model).
    within : list of ndarray
        Positions of the unit's rows within its fold's validation part.
    group : list of int
        Units of one group have disjoint rows and come from one repeat (or one hold-out).
    variance_inflation : float
        n_validation / n_train for K-fold units (Nadeau-Bengio), 0 for the parts of one hold-out.
    """

    rows: list
    fold: list
    within: list
    group: list
    variance_inflation: float

    def __len__(self) -> int:
        return len(self.rows)



def plan_units(plan: FoldPlan, y: np.ndarray, seed: int) -> Units:
    """The scoring units of ``plan``: each K-fold validation part, or :data:`HOLDOUT_UNITS` parts of a hold-out.

    A hold-out's validation rows are cut into stratified parts (fewer when a
    class has fewer rows) so that the selection sees the spread of the
    score; its parts form one group and no Nadeau-Bengio inflation applies
    (one model, disjoint rows).
    """
    from sklearn.model_selection import StratifiedKFold

    rows, folds, within, groups = [], [], [], []
    if plan.kind == "holdout":
        for f, (_, va) in enumerate(plan.folds):
            y_val = y[va]
            parts = min(HOLDOUT_UNITS, int(min(np.count_nonzero(y_val), y_val.shape[0] - np.count_nonzero(y_val))))
            if parts < 2:
                rows.append(va), folds.append(f), within.append(np.arange(va.shape[0])), groups.append(f)
                continue
            splitter = StratifiedKFold(n_splits=parts, shuffle=True, random_state=seed)
            for _, part in splitter.split(np.zeros(y_val.shape[0]), y_val):
                part = np.sort(part)
                rows.append(va[part]), folds.append(f), within.append(part), groups.append(f)
        return Units(rows, folds, within, groups, 0.0)
    # Every repeat's folds have the first repeat's sizes (StratifiedKFold allots each class's rows to the folds
    # from the labels alone), so the sizes are read there and no further repeat is drawn for them.
    first = plan.folds[:plan.n_splits]
    n_val = np.mean([va.shape[0] for _, va in first] * plan.n_repeats)
    n_tr = np.mean([tr.shape[0] for tr, _ in first] * plan.n_repeats)
    folds = list(range(plan.n_folds))
    return Units(_FoldPart(plan.folds, "rows"), folds, _FoldPart(plan.folds, "within"),
                 [f // plan.n_splits for f in folds], float(n_val / n_tr))


class _FoldPart(Sequence):
    """Unit u of a K-fold plan is fold u's validation part: its ``"rows"``, or the positions ``"within"`` it."""

    def __init__(self, folds: Sequence, part: str):
        self._folds, self._part = folds, part

    def __len__(self) -> int:
        return len(self._folds)

    def __getitem__(self, u):
        validation = self._folds[u][1]
        return validation if self._part == "rows" else np.arange(validation.shape[0])


def part_advice(remedy: str, larger: str, both: str | None = None) -> str:
    """The advice that ends a refusal of the metric on the parts scored (``MetricRefusal.remedy``): a metric that
    fits them or ``larger`` parts (``"metric_or_larger"``), or ``both`` (default ``larger``) for parts that hold both
    classes (``"both_classes"``); ``larger``: ``"a larger eval_set"``, or the command line's ``"a larger file"``."""
    if remedy == "metric_or_larger":
        return ("Use a metric that fits them (for precision at the top, a fraction such as 'prec@k:0.05') or larger "
                f"validation parts ({larger})")
    return f"Each needs both classes: use {larger if both is None else both}"


def check_metric_on_units(metric, y: np.ndarray, plan: FoldPlan, units: Units, eval_set: str | None = None) -> None:
    """Raise a :class:`~rankcore.metrics.MetricRefusal`, before any fit, if ``metric`` cannot be computed on some
    scoring unit.

    The metric is evaluated on each unit's labels with constant scores: what
    fails there (k larger than the unit, a single class) would fail after
    fitting too.  ``eval_set``: the label of the user's validation set the
    units are parts of (``"eval_set"``), which the refusal carries with
    ``parameter="metric"`` (AutoRanker's, which named the metric); None for
    parts of X.
    """
    # The units of the first group stand for all: the folds of every repeat have the same sizes and class
    # counts (see plan_units), which is all the metric reads from constant scores.
    checked = [u for u in range(len(units)) if units.group[u] == units.group[0]]
    sizes = sorted({int(units.rows[u].shape[0]) for u in checked})
    size_text = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    if plan.kind == "kfold":
        where, part = f"the validation folds of {plan.describe()} ({size_text} rows each", "fold"
    else:
        # the user's eval_set describes itself as "the eval_set 'name'"
        where = f"{'' if plan.given is not None else 'the '}{plan.describe()} (scored in {len(units)} part(s) of " \
                f"{size_text} rows"
        part = "part"
    larger, both = (("a larger eval_set",) * 2 if plan.given is not None else
                    ("fewer folds, a larger hold-out", "fewer folds or a larger hold-out"))
    for number, u in enumerate(checked, start=1):
        y_val = y[units.rows[u]]
        try:
            metric(y_val, np.zeros(y_val.shape[0]))
        except (ValueError, TypeError) as exc:
            positives = int(np.count_nonzero(y_val))
            remedy = "metric_or_larger" if 0 < positives < y_val.shape[0] else "both_classes"
            advice = part_advice(remedy, larger, both)
            # a refusal keeps its class and fields, said by its detail (the sentence names the metric once)
            detail = f"{exc.detail if isinstance(exc, MetricRefusal) else exc}. {advice}"
            message = (f"metric {metric.spec!r} cannot be computed on {where}; {part} {number} has "
                       f"{y_val.shape[0]} rows, {positives} relevant): {detail}")
            # the advice as a field: a caller that names the eval_set its own way says its own (``part_advice``)
            facts = {"advice": advice, "remedy": remedy}
            if eval_set is not None:
                facts.update(parameter="metric", eval_set=eval_set)
            if isinstance(exc, MetricRefusal):
                raise exc.with_context(message, detail=detail, **facts) from None
            # a plugin's own error: a refusal of no known kind, its fields said all the same
            raise MetricRefusal(message, spec=metric.spec, reason="other", detail=detail, **facts) from None
