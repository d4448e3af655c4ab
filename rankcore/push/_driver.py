"""The generic boosting (coordinate-descent) driver of the push family.

The coordinate descent of Rudin (2006), Figure 1 (docs/theory/push.md#coordinate-descent),
without the I × K × n array M: each iteration

1. the backend reduces the objective at the current scores to its global
   scalars (value and what every row's gradient weight follows from);
2. the backend sums the learner's statistics of those gradient weights over
   the blocks of rows, and the learner picks the weak ranker h maximizing
   |Σ_n g_n h(x_n)| (the sign of the coefficient is free);
3. the line search finds α along h from the backend's line function
   (safeguarded Newton / secant / bisection on φ′);
4. the backend applies f ← f + α h (f ← f + η α h with the layout's
   ``shrinkage`` η, the trees' learning rate; the record keeps η α).

A multi-pass layout (``layout.multi_pass``, e.g. trees) replaces step 2 by
``backend.learner_search(state)``: several reductions over the blocks, one
per split (see ``rankcore.learners._base``).

An objective without a value (``has_value=False``: LambdaMART's λ-gradients)
has no line to search: step 3 takes the weak ranker's own Newton step,
α = 1 (the learner's leaves are −Σg/Σh, ``Learner.newton_leaves``), and J
is recorded as NaN.  A layout with ``line_search = False`` (``trees:
line_search=false``) takes the same Newton step on an objective with a value,
which is then evaluated once per iteration (the record, overflow checks).

The driver knows nothing about losses, prices, learners' internals or where
the rows are: it sees a backend (``_backend.py``), a learner layout's
``select`` and the line search.

A step after which J stands above its value at the start, J_0 (the initial
scores: zeros, ``init_score`` or ``init_model``'s), by more than
``DIVERGENCE_RTOL`` (relative to |J_0|; on R = exp J for a log value) is
not kept: the backend takes it back (``backend.take_back``) and the fit
stops with ``"diverged"`` and a ``ConvergenceWarning`` naming the learning
rate -- the line search's step times a learning rate > 1, or a Newton
step (trees without line search, the position effects' step) times a
large one, overshoots the minimum and can climb at every tree.  A rise
that stays at or below J_0 (a Newton path's ordinary non-monotone step)
is left alone: only a model worse than the one it started from stops.  An
objective whose J is not one fixed function of the scores (``fixed_value``
False: weights read at each evaluation's scores) is not compared.

A layout with ``leaf_newton_steps = k > 1`` (``trees:leaf_newton_steps=k``)
has the backend take k − 1 more Newton steps on each tree's leaf values
before step 3 (``backend.leaf_newton_steps``: the gradient and curvature
again at the scores moved by the whole leaf values, summed per leaf), as
CatBoost's ``leaf_estimation_iterations``.
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
from dataclasses import dataclass, field
from typing import Callable

from .._caller import outside_stacklevel
from .._cpus import release_threads, threads_held_here
from ..learners import Candidate, WeakRanker
from ._line_search import MAX_STEP, line_search

__all__ = ["BoostingRecord", "BoostingResult", "run_boosting", "check_newton_steps"]


#: A step that leaves J above J_0 by more than DIVERGENCE_RTOL·|J_0| (by DIVERGENCE_RTOL for a log value J = log R:
#: R up by that factor) stops the fit as "diverged".  Far above the roundings of J on a flat start (a step that
#: barely moves it), far below any rise of a step that overshoots.
DIVERGENCE_RTOL = 1e-9

#: Monotone trees in a row whose line search finds no descent before a fit counts as converged.  Each is left out
#: rather than added with α <= 0, which would reverse its order: a tree grown on a row sample need not descend on
#: every row, and the next iteration draws another sample.
MAX_SKIPPED_TREES = 5


@dataclass(frozen=True)
class BoostingRecord:
    """One completed iteration: the ranker, its step, and J after the step."""

    iteration: int
    ranker: WeakRanker
    alpha: float
    value: float
    derivative: float
    line_evaluations: int


@dataclass
class BoostingResult:
    """What :func:`run_boosting` did.

    Attributes
    ----------
    initial_value : float
        J before the first iteration.
    records : list of BoostingRecord
    stop_reason : str
        ``"n_iter"``, ``"converged"`` (no weak ranker has |derivative| > tol),
        ``"no_decrease"`` (the best step does not lower J), ``"diverged"``
        (a step left J of the model above its value before any step --
        ``initial_value``, or with position effects and a line search J at
        the effects before their first step: it is taken back, the records
        end before it, and a ``ConvergenceWarning`` names the learning rate),
        ``"overflow"``
        (the gradient or curvature the learner sums, the derivative, the line
        search, the step's scores or J became non-finite: the records end at
        the last finite model, and a ``RuntimeWarning`` says so),
        ``"no_split"`` (the learner could form no weak ranker on these rows:
        every feature constant, too few rows for a tree's leaves -- or none
        that moves the scores: the trees' cap ``max_delta_step`` clamped the
        leaf values of the last tree, whose step is within ``tol`` or lowers
        nothing; a ``UserWarning`` says which constraint blocked), or whatever the
        callback returned (e.g. ``"early_stopping"``).  A run that ends with
        no iteration at all (a constant model) always warns.
    """

    initial_value: float
    records: list[BoostingRecord] = field(default_factory=list)
    stop_reason: str = "n_iter"


#: How many boosting loops the calling thread is inside (a fit in another fit's callback: two).
_loops_running = threading.local()


def _releasing_threads(loop: Callable) -> Callable:
    """Decorate the boosting loop: the threads it held for its iterations (``validation.hold_idle_threads``) go
    back to the fits on this process's other threads when it returns or raises (an interrupt included); a loop
    run inside another fit's callback on the same thread hands the outer fit's holding back instead."""
    @functools.wraps(loop)
    def run(*args, **kwargs):
        depth = getattr(_loops_running, "depth", 0)
        # only a loop running on this thread can be the holder: an outermost loop always drops what it finds
        outer = threads_held_here() if depth else None
        try:
            _loops_running.depth = depth + 1             # inside the try: an interrupt here still resets it
            return loop(*args, **kwargs)
        finally:
            _loops_running.depth = depth
            release_threads(outer)

    return run


@_releasing_threads
def run_boosting(
    backend,
    layout,
    *,
    n_iter: int,
    log_value: bool,
    has_value: bool = True,
    fixed_value: bool = True,
    tol: float = 0.0,
    max_step: float = MAX_STEP,
    callback: Callable[[BoostingRecord], str | None] | None = None,
) -> BoostingResult:
    """Run up to ``n_iter`` boosting iterations on a backend.

    Parameters
    ----------
    backend : object with the backend seam (see ``_backend.py``)
    layout : LearnerLayout
    n_iter : int
    log_value : bool
        The objective's working value is a logarithm (Newton on R′).
    has_value : bool
        False: the objective gives gradients and curvature only; every step is the weak ranker's Newton
        step (α = 1 before shrinkage), with no line search, and the records' values are NaN.
    fixed_value : bool
        ``Objective.fixed_value``: False (J is not one fixed function of the scores), no ``"diverged"`` stop.
    tol : float
        Stop when the best weak ranker's |Σ g h| is at most ``tol``.
    max_step : float
        Largest |α| per iteration.
    callback : callable, optional
        Called with each record; a returned string stops the fit with that
        reason (early stopping, interrupts).

    Returns
    -------
    BoostingResult

    Raises
    ------
    FloatingPointError
        If J is not finite at the initial scores (there is no finite model to keep).  A quantity that
        becomes non-finite later stops the fit with ``stop_reason = "overflow"`` and a ``RuntimeWarning``
        instead: it is never reported as convergence.
    """
    leaf_steps = _leaf_steps(backend, layout)
    state = backend.objective_state()
    value = backend.value(state) if has_value else math.nan
    if has_value:
        _check_initial_value(backend, value)
    result = BoostingResult(initial_value=value)
    start = _model_value(backend, state) if has_value else math.nan     # J_0, of the model before any step
    from_init = getattr(backend, "from_init", False) or False     # True/"init_score", or "init_model"
    refresh_threads = getattr(backend, "refresh_threads", _nothing)  # in memory: fewer threads if the CPUs filled up
    skipped = 0
    for iteration in range(1, n_iter + 1):
        if value == -math.inf:
            result.stop_reason = "converged"
            break
        refresh_threads()
        candidate = _next_candidate(backend, layout, state, result, iteration, tol, leaf_steps)
        if candidate is None:
            break
        if (found := _line_step(backend, layout, state, candidate, has_value, log_value, max_step, result,
                                iteration)) is None:
            break
        step, evaluations = found
        if step <= 0 and getattr(layout, "positive_steps", False):     # a monotone tree left out (MAX_SKIPPED_TREES)
            skipped += 1
            if skipped < MAX_SKIPPED_TREES:
                continue
            result.stop_reason = "no_decrease"
            break
        skipped = 0
        # shrinkage (the trees' learning rate): f ← f + η·α·h, recorded as the coefficient η·α
        alpha = step * float(getattr(layout, "shrinkage", 1.0))
        if (stepped := _apply_step(backend, candidate.ranker, alpha, has_value, result, iteration)) is None:
            break
        if has_value and fixed_value and _diverging(backend, layout, stepped, candidate.ranker, alpha, start,
                                                    log_value, result, iteration, from_init):
            break
        state = stepped
        if has_value:
            value = backend.value(state)
        record = BoostingRecord(len(result.records) + 1, candidate.ranker, float(alpha), float(value),
                                float(candidate.derivative), evaluations)
        result.records.append(record)
        if callback is not None:
            reason = callback(record)
            if reason:
                result.stop_reason = str(reason)
                break
    if not result.records and n_iter >= 1 and result.stop_reason in ("converged", "no_decrease"):
        _warn_constant(result, tol, from_init)
    return result


def _leaf_steps(backend, layout) -> int:
    """The layout's Newton steps per tree, checked against the backend; a ValueError for a layout that cannot run."""
    leaf_steps = int(getattr(layout, "leaf_newton_steps", 1))
    if leaf_steps > 1 and not callable(getattr(backend, "leaf_newton_steps", None)):
        raise ValueError(f"leaf_newton_steps={leaf_steps}: this backend ({type(backend).__name__}) takes one Newton "
                         "step per tree; fit in memory, or leave leaf_newton_steps at 1")
    missing = getattr(layout, "missing_row_groups", None)
    if missing:
        # said before the first tree (the trees' bootstrap by query without queries), rather than from inside a
        # search -- a Dask worker's, say
        raise ValueError(missing)
    return leaf_steps


def _apply_step(backend, ranker, alpha: float, has_value: bool, result: BoostingResult, iteration: int):
    """f ← f + α·h and the objective's state there; None when the step overflowed (``"overflow"`` set, the
    update not recorded: the model stays the last finite one)."""
    try:
        backend.apply_update(ranker, alpha)
        state = backend.objective_state()         # (a backend may apply the step here: on its workers)
    except FloatingPointError as exc:             # a score would overflow: the backend kept the scores before it
        _overflow(result, iteration, str(exc))
        return None
    if has_value:
        value = backend.value(state)
        if math.isnan(value) or value == math.inf:
            _overflow(result, iteration, f"the objective became {value} after the step")
            return None
    return state


def _above_start(value: float, start: float, log_value: bool) -> bool:
    """Whether J = ``value`` after a step stands above J_0 = ``start`` by more than :data:`DIVERGENCE_RTOL` (relative
    to |J_0|, or on R = exp J for a log value: J − J_0 > DIVERGENCE_RTOL).  A start of −inf never is (the loop stops
    there as converged)."""
    if not math.isfinite(start):
        return False
    slack = DIVERGENCE_RTOL if log_value else DIVERGENCE_RTOL * abs(start)
    return value - start > slack


def _diverging(backend, layout, state, ranker, alpha: float, start: float, log_value: bool, result: BoostingResult,
               iteration: int, from_init: bool | str) -> bool:
    """Whether the step just applied left J of the model above J_0 = ``start``: then it is taken back and the fit
    stops with ``"diverged"`` (warned)."""
    model = _model_value(backend, state)
    if not _above_start(model, start, log_value):
        return False
    _take_back(backend, ranker, alpha)
    _diverged(backend, layout, result, iteration, start, model, log_value, from_init)
    return True


def _model_value(backend, state) -> float:
    """J of the model at ``state``: the backend's value, or the state's ``model_value`` where that is taken elsewhere
    (at the position effects after their step, which the model does not have yet)."""
    model = getattr(state, "model_value", None)
    return backend.value(state) if model is None else float(model)


def _take_back(backend, ranker, alpha: float) -> None:
    """Undo f ← f + α·h (and the position effects' step the evaluation after it took) on a backend that can: the fit
    stops at the model before the step, and the backend's scores say so too."""
    take_back = getattr(backend, "take_back", None)
    if callable(take_back):
        take_back(ranker, alpha)


def _line_step(backend, layout, state, candidate, has_value: bool, log_value: bool, max_step: float,
               result: BoostingResult, iteration: int) -> tuple[float, int] | None:
    """``(α, objective evaluations)`` of the candidate: the line search's step, or the Newton step 1 without
    one; None when the search stopped the fit (``result.stop_reason`` set)."""
    if not (has_value and getattr(layout, "line_search", True)):
        return 1.0, 0
    search = _search_line(backend, state, candidate.ranker, log_value, max_step, result, iteration)
    if search is None and result.stop_reason in ("converged", "no_decrease"):
        _stalled_by_learner(backend, layout, result, iteration, candidate.ranker)
    return None if search is None else (search.alpha, search.n_evaluations)


def _next_candidate(backend, layout, state, result: BoostingResult, iteration: int, tol: float,
                    leaf_steps: int) -> Candidate | None:
    """The iteration's weak ranker (its leaf values refined by ``leaf_steps`` − 1 more Newton steps), or None
    with ``result.stop_reason`` set: an overflow, no candidate, or a derivative within ``tol``."""
    try:
        candidate = _best_candidate(backend, layout, state)
    except FloatingPointError as exc:          # a gradient or curvature the learner cannot sum (the backend's check)
        _overflow(result, iteration, str(exc))
        return None
    if candidate is not None and not math.isfinite(candidate.derivative):
        _overflow(result, iteration, f"the best weak ranker's derivative is {candidate.derivative}")
        return None
    if candidate is None:
        why = _no_candidate_reason(layout)
        if why is not None or not result.records:
            _no_split(result, iteration, why, getattr(backend, "from_init", False) or False)
        else:
            result.stop_reason = "converged"
        return None
    if abs(candidate.derivative) <= tol:
        result.stop_reason = "converged"
        _stalled_by_learner(backend, layout, result, iteration, candidate.ranker, candidate.derivative, tol, state)
        return None
    if leaf_steps > 1:
        # more Newton steps on the tree's leaf values, its splits fixed (trees: leaf_newton_steps)
        candidate = Candidate(backend.leaf_newton_steps(state, candidate.ranker, leaf_steps - 1),
                              candidate.derivative)
    return candidate


def check_newton_steps(objective, learner, scoring) -> None:
    """An objective without a value takes Newton steps: it needs Newton leaves, and cannot be the validation score.

    Raises ``ParameterError`` naming the objective and the learner (or ``scoring="objective"``).
    """
    from ..spec import ParameterError
    from ._query_defaults import QUERY_METRIC
    from ._scoring import OBJECTIVE_SCORING

    if objective.has_value:
        return
    if not learner.newton_leaves:
        raise ParameterError(f"objective {objective.spec!r} gives gradients and curvature but no value, so each step "
                             f"is a weak ranker's own Newton step; the learner {learner.spec!r} has no Newton leaves "
                             "(use learner='trees', with any growth)")
    if scoring == OBJECTIVE_SCORING:
        raise ParameterError(f"scoring='objective': the objective {objective.spec!r} has no value to validate on; "
                             f"pass a metric such as {QUERY_METRIC!r}")


def _search_line(backend, state, ranker, log_value: bool, max_step: float, result: BoostingResult, iteration: int):
    """The line search along ``ranker``; None when the fit stops here (overflow, or no step lowers J)."""
    phi = backend.line_function(state, ranker)
    try:
        search = _minimize_line(phi, log_value, max_step)
    except FloatingPointError as exc:
        _overflow(result, iteration, str(exc))
        return None
    if not (math.isfinite(search.alpha) and (math.isfinite(search.value) or search.value == -math.inf)):
        _overflow(result, iteration, f"the line search returned alpha = {search.alpha}, J = {search.value}")
        return None
    if search.alpha == 0.0:
        result.stop_reason = "converged" if search.reason == "stationary" else "no_decrease"
        return None
    return search


def _best_candidate(backend, layout, state):
    """The learner's best weak ranker at ``state`` (None when it can form none)."""
    if getattr(layout, "multi_pass", False):
        return backend.learner_search(state)     # several reductions (one per tree split)
    stats = backend.learner_statistics(state)
    return layout.select(stats)


def _minimize_line(phi, log_value: bool, max_step: float):
    """Minimize the line function ``phi`` (a :class:`LineSearchResult`).

    A line function may know φ's shape (e.g. piecewise linear) and minimize it
    exactly, with :func:`line_search`'s semantics.
    """
    minimize = getattr(phi, "minimize", None)
    if minimize is not None:
        return minimize(max_step)
    return line_search(phi, log_value=log_value, max_step=max_step)


def _check_initial_value(backend, value: float) -> None:
    """A FloatingPointError when J is NaN or +inf at the initial scores: there is no finite model to keep."""
    if math.isfinite(value) or value == -math.inf:
        return
    objective = getattr(getattr(backend, "problem", None), "objective", None)
    named = f"objective {objective.spec!r}" if objective is not None else "the objective"
    why = ("a NaN from its loss or price (a plugin's?)" if math.isnan(value)
           else "an overflow: weights or scores too large for its loss and price")
    from_init = getattr(backend, "from_init", False)
    if from_init == "init_model":
        why += " (the initial scores are init_model's, plus any init_score: rescale the objective's inputs)"
    elif from_init:
        why += " (the initial scores are init_score's: rescale them)"
    raise FloatingPointError(f"{named}: not finite at the initial scores (J = {value}): {why}")


def _nothing() -> None:
    """What a backend without :meth:`refresh_threads` does before each iteration."""


def _warn_constant(result: BoostingResult, tol: float, from_init: bool | str = False) -> None:
    """Warn that the run added no weak ranker, so the model is constant (from ``init_score``: adds nothing)."""
    reason = "converged" if result.stop_reason == "no_decrease" else result.stop_reason   # as the estimator says it
    warnings.warn(
        f"boosting added no weak ranker (stop_reason_ = {reason!r}): no step along the best weak "
        f"ranker lowers the objective beyond tol = {tol:g}, so " + _NOTHING_ADDED[from_init],
        UserWarning, stacklevel=outside_stacklevel())


#: What a model without weak rankers is, fitted from 0, from ``init_score`` or continuing an ``init_model``.
_NOTHING_ADDED = {False: "the model is constant", True: "the model adds nothing to init_score",
                  "init_score": "the model adds nothing to init_score",
                  "init_model": "the continuation adds nothing to init_model"}


def _no_candidate_reason(layout) -> str | None:
    """The layout's account of an empty search (``LearnerLayout.no_candidate_reason``), if it gives one."""
    ask = getattr(layout, "no_candidate_reason", None)
    return ask() if callable(ask) else None


def _stalled_by_learner(backend, layout, result: BoostingResult, iteration: int, ranker,
                        derivative: float | None = None, tol: float | None = None, state=None) -> None:
    """A stop as converged made ``"no_split"`` when the layout says a setting of its family left the ranker's step no
    effect (``LearnerLayout.stalled_reason``: the trees' cap ``max_delta_step``); the records are unchanged.

    On the ``tol`` rule, a layout that can search without the setting (``without_stalling_setting``) is asked
    for the ranker the fit without it would take at ``state``: when that one's derivative is within ``tol`` too
    (or it forms none), the fit without the setting stops here all the same, so the fit converged.  The
    ranker's own account (its leaves without the cap) is not that ranker: the uncapped gains choose other
    splits, and a greedy search need not find the larger decrement."""
    ask = getattr(layout, "stalled_reason", None)
    why = ask(ranker, derivative, tol) if callable(ask) else None
    lift = getattr(layout, "without_stalling_setting", None)
    if why is not None and derivative is not None and state is not None and callable(lift):
        with lift():
            free = _best_candidate(backend, layout, state)
        if free is None or not abs(free.derivative) > tol:        # NaN: not beyond tol either
            why = None
    if why is not None:
        _no_split(result, iteration, why, getattr(backend, "from_init", False) or False)


def _no_split(result: BoostingResult, iteration: int, why: str | None, from_init: bool | str = False) -> None:
    """Stop with ``"no_split"``: the learner could form no weak ranker; warn, saying why."""
    result.stop_reason = "no_split"
    kept = len(result.records)
    model = _NOTHING_ADDED[from_init] if not kept else f"the model keeps the {kept} iteration(s) before it"
    warnings.warn(
        f"boosting stopped at iteration {iteration} (stop_reason_ = 'no_split'): "
        f"{why or 'the learner found no weak ranker on the training rows'}; {model}",
        UserWarning, stacklevel=outside_stacklevel())


def _diverged(backend, layout, result: BoostingResult, iteration: int, start: float, value: float, log_value: bool,
              from_init: bool | str = False) -> None:
    """Stop with ``"diverged"``: the step of ``iteration`` left J above J_0 (not kept); warn with the likely cause."""
    from sklearn.exceptions import ConvergenceWarning

    result.stop_reason = "diverged"
    kept = len(result.records)
    model = _NOTHING_ADDED[from_init] if not kept else f"the model keeps the {kept} iteration(s) before it"
    named = "J (log R)" if log_value else "J"
    warnings.warn(
        f"boosting stopped at iteration {iteration} (stop_reason_ = 'diverged'): its step raised the objective "
        f"{named} from {start:.6g} at the start to {value:.6g}, so it was not taken; {model}. "
        + _divergence_cause(backend, layout), ConvergenceWarning, stacklevel=outside_stacklevel())


def _divergence_cause(backend, layout) -> str:
    """The likely cause of a step that overshot, naming the parameter to change and its current value."""
    rate = float(getattr(layout, "shrinkage", 1.0))
    effects = (f"; the position effects take Newton steps of their own at the same rate ({rate:g})"
               if getattr(backend, "learns_position_effects", False) else "")
    if not getattr(layout, "line_search", True):
        return (f"Each tree takes its Newton step times learning_rate={rate:g}, without a line search, and it overshot"
                f"{effects}: lower the learning rate below {rate:g}, search each step (trees:line_search=true) or "
                "cap the leaves (trees:max_delta_step).")
    if rate > 1.0:
        return (f"The learner's learning_rate={rate:g} multiplies the line search's step (the minimum of J along "
                f"the tree), so any value above 1 overshoots{effects}: lower it to at most 1 (e.g. "
                "trees:learning_rate=0.1).")
    # a line search at a rate <= 1 never raises a J that is one fixed function of the scores along the weak ranker:
    # what rose is the position effects' own Newton step, or J itself moved (weights read at the scores)
    if effects:
        lower = f"lower the learning rate below {rate:g} or " if hasattr(layout, "learning_rate") else ""
        return (f"The line search lowers J along the weak ranker, but the position effects' own Newton step (at rate "
                f"{rate:g}) overshot: {lower}raise position_l2, which shrinks their steps.")
    return ("A line search at a learning rate <= 1 never raises a J that is one fixed function of the scores, so "
            "this objective's J moves with them (weights read at each evaluation's scores): such an objective "
            "declares fixed_value = False (its values are then not compared with the start).")


def _overflow(result: BoostingResult, iteration: int, what: str) -> None:
    """Stop with ``"overflow"``, keeping the records so far (the last finite model), and warn."""
    result.stop_reason = "overflow"
    warnings.warn(
        f"boosting stopped at iteration {iteration}: {what}; the model keeps the "
        f"{len(result.records)} finite iteration(s) before it (stop_reason_ = 'overflow'). "
        "Lower the learning rate, rescale the features or use a gentler price.",
        RuntimeWarning, stacklevel=outside_stacklevel())
