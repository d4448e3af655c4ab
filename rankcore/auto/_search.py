"""Successive halving over candidates x folds, within an optional time budget.

The search runs in *rungs*.  Rung r gives every surviving candidate the
folds up to ``rungs[r]`` (cumulative, in the plan's order, so every survivor
is judged on the same rows), then keeps the better half (never fewer than
:data:`MIN_SURVIVORS`, and always the anchor -- the first candidate, the
default trees -- against which the final choice is made, see
:mod:`rankcore.auto._selection`).  Without a time budget the rungs are fixed
by the plan, so the search is deterministic; with one, each task is started
only if the time spent so far, its predicted cost and the predicted cost of
the final refit fit in the budget, and rungs continue (more repeats of the
folds, the anchor and the leaders only) while time remains.

Costs are predicted from measurements: a candidate's first fold from the
fastest measured fit times its declared ``relative_cost`` ratio; later folds
from its own mean; a refit on all n rows from a fold fit on m rows as
(n/m)^1.2 times it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ._folds import FoldPlan
from ._tasks import Task, TaskResult

__all__ = ["SearchOutcome", "SuccessiveHalving", "default_rungs", "MIN_SURVIVORS", "ETA"]

#: Candidates kept at least after each rung (besides the anchor).
MIN_SURVIVORS = 3
#: Halving rate: each rung keeps about 1/ETA of its candidates.
ETA = 2
#: Refit cost on n rows from a fold fit on m rows: (n / m) ** REFIT_EXPONENT times.
REFIT_EXPONENT = 1.2


def default_rungs(plan: FoldPlan, budget: bool) -> list[int]:
    """Cumulative fold counts of the rungs.

    K-fold plans: the first two folds, then the rest of the first repeat,
    then one more rung per further repeat -- the plan's fixed repeats
    without a time budget (every repeat of ``cv=(K, R)``; the first only of
    ``cv="auto"``), all of them with one.  A hold-out: one rung.
    """
    if plan.kind == "holdout":
        return [1]
    k = plan.n_splits
    rungs = [min(2, k), k] if k > 2 else [k]
    repeats = plan.n_repeats if budget else plan.fixed_repeats
    rungs += [k * r for r in range(2, repeats + 1)]
    return rungs


@dataclass
class SearchOutcome:
    """Fold scores and times of every task run, by candidate."""

    scores: dict[int, dict[int, float]] = field(default_factory=dict)      # candidate -> fold -> mean unit score
    unit_scores: dict[int, dict[int, float]] = field(default_factory=dict)  # candidate -> unit -> metric value
    predictions: dict[int, dict[int, np.ndarray]] = field(default_factory=dict)
    models: dict[int, dict[int, Any]] = field(default_factory=dict)       # candidate -> fold -> kept fitted model
    fit_times: dict[int, list[float]] = field(default_factory=dict)
    score_times: dict[int, list[float]] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    refused: dict[int, dict[int, Any]] = field(default_factory=dict)       # candidate -> failed fold -> refusal/None
    warnings: dict[int, str] = field(default_factory=dict)                # candidate -> its first fold warning
    halved_after: dict[int, int] = field(default_factory=dict)            # candidate -> folds it got
    cut_by_budget: dict[int, int] = field(default_factory=dict)           # candidate -> folds it got
    not_run: set[int] = field(default_factory=set)
    n_folds_final: int = 0
    survivors: list[int] = field(default_factory=list)
    elapsed: float = 0.0
    # what ended the search: "completed" (every task of its rungs ran, halving aside) or "time_budget"
    stop_reason: str = "completed"

    def units_scores(self, candidates: list[int], units: list[int]) -> dict[int, np.ndarray]:
        """candidate -> its scores on ``units`` (every candidate must have them)."""
        return {c: np.array([self.unit_scores[c][u] for u in units]) for c in candidates}

    def why_none_scored(self, specs: list[str], budget: float | None) -> str:
        """Why no candidate (``specs``, by index) scored: each failure, then those the budget left unstarted (once
        the default failed its first fold the budget's floor is never measured: only this says the budget ended
        the rest)."""
        reasons = [f"{specs[c]}: {e}" for c, e in self.errors.items()]
        unrun = [repr(specs[c]) for c in sorted(self.not_run)]
        if unrun and budget is not None:
            reasons.append(f"time_budget={budget:g} s ran out before {', '.join(unrun)} could run: give a larger "
                           f"time_budget, or time_budget=None")
        return "; ".join(reasons) or "no time to fit any"

    def refusal(self, c: int) -> Any:
        """The :class:`~rankcore.validation.ArgumentRefusal` every fold candidate ``c`` ran failed with (one class
        and detail; it scored none), the first fold's; None otherwise (a fold scored, or failed another way)."""
        failed = [self.refused[c][f] for f in sorted(self.refused.get(c, {}))]
        if self.scores.get(c) or not failed or failed[0] is None:
            return None
        first = failed[0]
        return first if all(_same_refusal(r, first) for r in failed) else None

    def refusal_of_every_candidate(self, specs: list[str]) -> Any:
        """The refusal every fold of every candidate (``specs``, by index) failed with, said by the candidates
        (``"candidates: 'a', 'b': ..."``); None unless there is one (a candidate not run, another error...)."""
        refusals = [self.refusal(c) for c in range(len(specs))]
        if not refusals or refusals[0] is None or not all(_same_refusal(r, refusals[0]) for r in refusals):
            return None
        return named_refusal(refusals[0], specs)


def _same_refusal(refusal, other) -> bool:
    return refusal is not None and (type(refusal), refusal.detail) == (type(other), other.detail)


def named_refusal(refusal, specs: list[str]) -> BaseException | None:
    """``refusal`` (a fold fit's) said by the candidates that raised it, as their unreadable values are
    (``"candidates: 'trees:monotone=1/0': monotone: ..."``): its class and fields kept; None when its class cannot
    be made of those words (a plugin's refusal that checks its message: the failures are summed up as before)."""
    from ..validation import said_again

    try:
        return said_again(refusal, f"candidates: {', '.join(repr(spec) for spec in specs)}: {refusal}")
    except Exception:  # noqa: BLE001 - the plugin constructor's own error would hide the candidates' failures
        return None


class SuccessiveHalving:
    """Run the rungs for candidates ``specs`` (index 0 is the anchor) on ``plan``.

    Parameters
    ----------
    specs : list of str
        Candidate specs, the anchor first.
    relative_costs : list of float
        Their declared costs relative to the anchor.
    plan : FoldPlan
    y : ndarray
        0/1 labels of every row (to score validation parts).
    units : Units
        The scoring units of the plan.
    metric : Metric
        Resolved; ``greater_is_better`` decides the order.
    run : callable
        ``run(tasks, may_start, on_result) -> list[TaskResult]`` (the executor).
    budget : float or None
        Seconds for the whole fit, refit included.
    n_rows : int
        Rows of the final refit.
    on_event : callable, optional
        Called with each TaskResult after it is recorded (progress).
    keep_models : bool, default=False
        Keep each candidate's fitted models of the first repeat's folds of a
        K-fold plan (``outcome.models``: the fold bag); a candidate's are
        dropped when it is halved.  On a plan of a user's eval_set
        (``plan.given``) they are always kept: they are the choice.
    task_specs : list of str, optional
        The spec each candidate's tasks resolve it by (default ``specs``,
        the names shown): a candidate's ``task_spec``.
    """

    def __init__(self, specs, relative_costs, plan: FoldPlan, y, units, metric, run: Callable,
                 budget: float | None, n_rows: int, on_event: Callable | None = None,
                 clock: Callable[[], float] = time.perf_counter, keep_models: bool = False, task_specs=None):
        self.specs = list(specs)
        # a task resolves its candidate by spec (on a Dask worker too): columns given by name are indices there
        self.task_specs = self.specs if task_specs is None else list(task_specs)
        self.relative_costs = [max(float(c), 1e-3) for c in relative_costs]
        self.plan, self.y, self.units, self.metric = plan, y, units, metric
        self.run, self.budget, self.n_rows = run, budget, n_rows
        self.on_event, self.clock = on_event, clock
        self.start = clock()
        self.outcome = SearchOutcome()
        self.planned_tasks = 0
        # a K-fold plan's fold models make the fold bag; a user's eval_set's are the chosen models themselves
        self.keep_models = (bool(keep_models) and plan.kind == "kfold") or plan.given is not None

    # ------------------------------------------------------------------
    # Cost predictions
    # ------------------------------------------------------------------
    def _fold_cost(self, c: int) -> float:
        """Predicted seconds of one fold fit + score of candidate ``c``."""
        times = self.outcome.fit_times.get(c)
        if times:
            return float(np.mean(times) + np.mean(self.outcome.score_times[c]))
        measured = [(np.mean(t) + np.mean(self.outcome.score_times[k])) / self.relative_costs[k]
                    for k, t in self.outcome.fit_times.items() if t]
        if not measured:
            return math.nan
        return min(measured) * self.relative_costs[c]

    def refit_cost(self, c: int) -> float:
        """Predicted seconds of refitting candidate ``c`` on every row."""
        n_train = self.plan.folds[0][0].shape[0]
        return self._fold_cost(c) * (self.n_rows / n_train) ** REFIT_EXPONENT

    def _refit_reserve(self, alive: list[int]) -> float:
        """Seconds kept for the final refit: the two most expensive refits among the three leaders (a blend)."""
        leaders = self._ranked(alive)[:3]
        costs = sorted((self.refit_cost(c) for c in leaders if not math.isnan(self.refit_cost(c))), reverse=True)
        return float(sum(costs[:2]))

    def elapsed(self) -> float:
        return self.clock() - self.start

    def _may_start(self, alive: list[int]) -> Callable[[Task], bool]:
        if self.budget is None:
            return lambda task: True

        def may_start(task: Task) -> bool:
            cost = self._fold_cost(task.candidate)
            if math.isnan(cost):
                return True            # the first task: nothing is measured yet
            return self.elapsed() + cost + self._refit_reserve(alive) <= self.budget

        return may_start

    # ------------------------------------------------------------------
    # The rungs
    # ------------------------------------------------------------------
    def _record(self, result: TaskResult) -> None:
        c = result.candidate
        self.outcome.fit_times.setdefault(c, []).append(result.fit_time)
        self.outcome.score_times.setdefault(c, []).append(result.score_time)
        if result.warning is not None:
            self.outcome.warnings.setdefault(c, f"fold {result.fold + 1} warned: {result.warning}")
        if result.error is not None:
            self.outcome.errors.setdefault(c, f"fold {result.fold + 1}: {result.error}")
            self.outcome.refused.setdefault(c, {})[result.fold] = result.refusal
        else:
            values = []
            for u, fold in enumerate(self.units.fold):
                if fold == result.fold:
                    value = float(self.metric(self.y[self.units.rows[u]], result.scores[self.units.within[u]]))
                    self.outcome.unit_scores.setdefault(c, {})[u] = value
                    values.append(value)
            self.outcome.scores.setdefault(c, {})[result.fold] = float(np.mean(values))
            self.outcome.predictions.setdefault(c, {})[result.fold] = result.scores
            if result.estimator is not None:
                self.outcome.models.setdefault(c, {})[result.fold] = result.estimator
        if self.on_event is not None:
            self.on_event(result, self)

    def mean_score(self, c: int, n_folds: int | None = None) -> float:
        got = self.outcome.scores.get(c, {})
        folds = range(n_folds) if n_folds is not None else got.keys()
        values = [got[f] for f in folds if f in got]
        return float(np.mean(values)) if values else math.nan

    def _ranked(self, alive: list[int], n_folds: int | None = None) -> list[int]:
        """``alive``, best mean first (ties: the earlier candidate first)."""
        sign = 1.0 if self.metric.greater_is_better else -1.0

        def key(c):
            m = self.mean_score(c, n_folds)
            return (-(sign * m) if not math.isnan(m) else math.inf, c)

        return sorted(alive, key=key)

    def _plan_size(self, rungs: list[int]) -> int:
        """Tasks the rungs would run if every candidate succeeded (an upper bound for progress displays)."""
        n, done, total = len(self.specs), 0, 0
        for r, upto in enumerate(rungs):
            upto = min(upto, self.plan.n_folds)
            total += n * max(0, upto - done)
            done = max(done, upto)
            if r < len(rungs) - 1:
                n = min(n, max(MIN_SURVIVORS, math.ceil(n / ETA)) + 1)
        return total

    def _check_budget_floor(self, first: Task) -> None:
        """After the first task (the anchor's): refuse a budget smaller than that candidate's fold and refit."""
        if self.budget is None or first.candidate in self.outcome.errors:
            return
        needed = self.elapsed() + self.refit_cost(first.candidate)
        if needed > self.budget:
            raise ValueError(
                f"time_budget: {self.budget:g} s is too small for even one candidate: the default, "
                f"{first.spec!r}, needs about {needed:.2g} s on these data (its first fold of "
                f"{self.plan.describe(1)} and its refit on all {self.n_rows} rows, measured); "
                f"give at least that, or time_budget=None")

    def run_search(self, rungs: list[int]) -> SearchOutcome:
        alive = list(range(len(self.specs)))
        done = 0
        out = self.outcome
        self.planned_tasks = self._plan_size(rungs)
        for r, upto in enumerate(rungs):
            upto = min(upto, self.plan.n_folds)
            if upto <= done:
                continue
            # fold-major: every survivor gets fold f before any gets fold f + 1, so a budget that runs out
            # leaves the survivors with the same folds (give or take the last)
            order = alive if r else sorted(alive, key=lambda c: (self.relative_costs[c], c))
            if r == 0 and self.budget is not None and 0 in order:
                # the anchor first: a budget that runs out early must still leave the default the others are
                # judged against, rather than a cheaper candidate chosen with nothing to compare it with
                order = [0] + [c for c in order if c != 0]
            tasks = [Task(c, self.task_specs[c], f, self._keeps(f)) for f in range(done, upto) for c in order]
            if r == 0 and self.budget is not None:
                self.run(tasks[:1], self._may_start(alive), self._record)
                self._check_budget_floor(tasks[0])
                tasks = tasks[1:]
            self.run(tasks, self._may_start(alive), self._record)
            self._refuse_constraints(alive)
            alive = [c for c in alive if c not in out.errors]
            complete = [c for c in alive if all(f in out.scores.get(c, {}) for f in range(upto))]
            if len(complete) < len(alive):      # only the budget leaves a rung's task unstarted
                out.stop_reason = "time_budget"
                alive, done = self._cut_short(alive)
                break
            done = upto
            if r < len(rungs) - 1:
                alive = self._halve(alive, done)
        out.n_folds_final = done
        out.survivors = alive
        out.elapsed = self.elapsed()
        return out

    def _refuse_constraints(self, candidates: list[int]) -> None:
        """Raise a candidate's refusal of its own constraints (``monotone``, ``interactions``) against X's columns,
        those of every fold: the user's arguments, never the luck of a fold -- the search would go on without
        the constraints asked for (another refusal, of some folds only, stays a leaderboard note)."""
        from ..learners import ConstraintRefusal

        for c in candidates:
            refusal = self.outcome.refusal(c)
            named = named_refusal(refusal, [self.specs[c]]) if isinstance(refusal, ConstraintRefusal) else None
            if named is not None:
                raise named from None

    def _keeps(self, fold: int) -> bool:
        """Whether the model fitted on ``fold`` is kept (a fold of the first repeat, when models are kept)."""
        return self.keep_models and fold < self.plan.n_splits

    def _consecutive_folds(self, c: int) -> int:
        got = self.outcome.scores.get(c, {})
        n = 0
        while n in got:
            n += 1
        return n

    def _cut_short(self, alive: list[int]) -> tuple[list[int], int]:
        """The budget stopped a rung: compare on the folds the candidates share.

        The rung runs fold-major, the anchor first in each fold, so when the budget runs out the anchor may hold
        one fold more than the rest: they are compared on the folds all of them got, never dropped for the
        fold they were not given time for. Candidates two folds or more behind the most any got (a costlier
        candidate's folds wait while cheaper ones run) are dropped for the budget, those with none are "not run".
        """
        counts = {c: self._consecutive_folds(c) for c in alive}
        for c in alive:
            if counts[c] == 0:
                self.outcome.not_run.add(c)
        alive = [c for c in alive if counts[c] > 0]
        if not alive:
            return [], 0
        most = max(counts[c] for c in alive)
        for c in alive:
            if counts[c] < most - 1:          # its folds were put off (a costlier candidate) until none were left
                self.outcome.cut_by_budget[c] = counts[c]
        alive = [c for c in alive if counts[c] >= most - 1]
        return alive, min(counts[c] for c in alive)

    def _halve(self, alive: list[int], n_folds: int) -> list[int]:
        keep = max(MIN_SURVIVORS, math.ceil(len(alive) / ETA))
        ranked = self._ranked(alive, n_folds)
        kept = ranked[:keep]
        if 0 in alive and 0 not in kept:
            kept.append(0)                    # the anchor always stays: the choice is made against it
        for c in alive:
            if c not in kept:
                self.outcome.halved_after[c] = n_folds
                self.outcome.models.pop(c, None)      # a halved candidate is never the choice
        return sorted(kept)
