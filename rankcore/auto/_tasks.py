"""One unit of the search: fit one candidate on one fold's training rows, score its validation rows.

:func:`run_task` is a plain function of its arguments (the data, the fold's
row indices, the candidate's spec, the seed, the thread count), so it runs
the same in this process and as a Dask task on a worker: the candidate is
passed on resolved in this process and resolved by its spec through the
registry on a worker, and its seed
depends only on the AutoRanker's seed and the fold -- never on which
candidates ran before, how many threads ran beside it, or where.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..validation import ArgumentRefusal, shown_type
from ._candidate import Candidate, CandidateContext, build_estimator, fit_estimator

__all__ = ["Task", "TaskResult", "run_task", "fold_seed", "REFIT_FOLD", "has_nan", "is_sparse"]

#: The "fold" number of the final refit on every row (its seed is drawn like a fold's).
REFIT_FOLD = -1


@dataclass(frozen=True)
class Task:
    """Fit candidate ``spec`` on fold ``fold`` of the plan."""

    candidate: int       # index in the search's candidate list
    spec: str
    fold: int
    keep_model: bool = False   # return the fitted model too (a fold of the first repeat: the fold bag)


@dataclass
class TaskResult:
    """The outcome of a :class:`Task`: validation scores and times, or the error."""

    candidate: int
    fold: int
    scores: np.ndarray | None
    fit_time: float
    score_time: float
    error: str | None = None
    warning: str | None = None     # the first warning the fit or the scoring raised (recorded, not shown)
    estimator: Any = None          # the fitted model, when the task asked to keep it
    refusal: Any = None            # the ArgumentRefusal the task failed with (class and fields), when it is one


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy.sparse matrix (AutoRanker's checked X is CSR or a C-ordered array)."""
    return hasattr(X, "toarray") and hasattr(X, "nnz")


def has_nan(X: Any) -> bool:
    """Whether ``X`` holds NaN; of a sparse matrix only its stored values are read (O(nnz), no dense copy)."""
    return bool(np.isnan(X.data).any()) if is_sparse(X) else bool(np.isnan(X).any())


def fold_seed(base_seed: int, fold: int) -> int:
    """The seed of every fit on ``fold`` (the same for every candidate: paired comparisons)."""
    return int(np.random.SeedSequence([int(base_seed), int(fold) + 1]).generate_state(1)[0] & 0x7FFFFFFF)


def make_context(metric: Any, X: np.ndarray, y: np.ndarray, seed: int, n_jobs: int,
                 has_missing: bool | None = None, categorical: tuple = (),
                 qid: np.ndarray | None = None, weighted: bool = False, init_score: bool = False,
                 position: bool = False) -> CandidateContext:
    """The context of a fit on (X, y); ``has_missing``: whether X holds NaN, when known (else looked up).

    ``metric``: the metric AutoRanker selects on, a spec string or a resolved
    Metric (then the context carries it as ``target_metric`` too, and its
    spec as ``metric``).

    ``categorical``: (column, number of categories) of X's category columns.
    ``qid``: each row's query code, for a fit within queries (y: grades;
    ``n_positive`` counts the rows of a grade above 0).  ``weighted``: the
    fit has ``sample_weight`` (``n_rows`` and ``n_positive`` still count rows).
    ``init_score``, ``position``: the fit has initial scores, display positions.  A scipy.sparse ``X`` makes
    ``sparse`` True.
    """
    missing = has_nan(X) if has_missing is None else bool(has_missing)
    target = None if isinstance(metric, str) else metric
    return CandidateContext(metric=metric if target is None else target.spec, target_metric=target,
                            n_rows=int(X.shape[0]), n_features=int(X.shape[1]),
                            n_positive=int(np.count_nonzero(y)), has_missing=missing,
                            random_state=seed, n_jobs=n_jobs, categorical=tuple(categorical),
                            n_queries=None if qid is None else int(np.unique(qid).shape[0]), weighted=weighted,
                            init_score=init_score, position=position, sparse=is_sparse(X))


def run_task(X: np.ndarray, y: np.ndarray, train: np.ndarray, validation: np.ndarray, task: Task, metric: Any,
             base_seed: int, n_jobs: int, x_has_missing: bool | None = None,
             categorical: tuple = (), candidate: Candidate | None = None,
             qid: np.ndarray | None = None, sample_weight: np.ndarray | None = None,
             init_score: np.ndarray | None = None, position: np.ndarray | None = None) -> TaskResult:
    """Fit ``task``'s candidate on ``X[train]`` and score ``X[validation]``.

    ``metric``: the metric AutoRanker selects on, a resolved Metric or its
    spec (see :func:`make_context`).

    ``x_has_missing``: whether X holds NaN, when the caller knows (an
    executor looks once, not once per task: a pass over X); None: look.
    ``categorical``: (column, number of categories) of X's category columns.
    ``candidate``: the task's candidate, resolved by the caller (once for all
    its tasks); None: resolved from ``task.spec`` here.
    ``qid``: each row's query code (of every row of X): the candidate is
    fitted within the queries of its training rows.
    ``sample_weight``: each row's weight (of every row of X): the candidate
    is fitted with its training rows' weights; the validation rows are
    scored unweighted.
    ``init_score``: each row's initial score (of every row of X): the
    candidate is fitted from its training rows' ones, and a validation row is
    scored at its initial score plus the model's score (what the model was
    fitted to rank).  ``position``: each row's display position, for the fit.
    Errors are returned (``TaskResult.error``), not raised; the first warning
    is returned too (``TaskResult.warning``), not shown.
    """
    from ..registry import resolve

    if x_has_missing is None:
        x_has_missing = has_nan(X)
    start = time.perf_counter()
    fit_time = 0.0
    with warnings.catch_warnings(record=True) as caught:
        # a fold's fit that warns (trees that cannot split 40 rows...) is noted in the leaderboard, not shown
        # once per fold: the user sees the warnings of the final refit, of the model they get
        warnings.simplefilter("always")
        try:
            if candidate is None:
                candidate = resolve("candidate", task.spec)
            X_tr, y_tr = X[train], y[train]
            q_tr = None if qid is None else qid[train]
            w_tr = None if sample_weight is None else sample_weight[train]
            init_tr = None if init_score is None else init_score[train]
            pos_tr = None if position is None else position[train]
            # without NaN in X none is in its rows; with some, the training part's own look decides
            context = make_context(metric, X_tr, y_tr, fold_seed(base_seed, task.fold), n_jobs,
                                   has_missing=None if x_has_missing else False, categorical=categorical, qid=q_tr,
                                   weighted=w_tr is not None, init_score=init_tr is not None,
                                   position=pos_tr is not None)
            estimator = build_estimator(candidate, context, x_has_missing)
            fit_estimator(estimator, X_tr, y_tr, q_tr, w_tr, init_tr, pos_tr)
            fit_time = time.perf_counter() - start
            start = time.perf_counter()
            scores = np.asarray(candidate.scores(estimator, X[validation]), dtype=np.float64)
            if init_score is not None:        # the model corrects the initial scores: ranked by their sum
                scores = scores + init_score[validation]
            if scores.shape != (validation.shape[0],):
                raise ValueError(f"scores of shape {scores.shape}, expected ({validation.shape[0]},)")
            if not np.isfinite(scores).all():
                raise ValueError("non-finite scores")
            return TaskResult(task.candidate, task.fold, scores, fit_time, time.perf_counter() - start,
                              warning=_first(caught), estimator=estimator if task.keep_model else None)
        except Exception as exc:  # noqa: BLE001 - a failing candidate is recorded and the search goes on
            if not fit_time:
                fit_time = time.perf_counter() - start
            return TaskResult(task.candidate, task.fold, None, fit_time, 0.0, _one_line(exc, shown_type(exc)),
                              refusal=_refusal(exc))


def _refusal(exc: Exception) -> ArgumentRefusal | None:
    """``exc`` made anew when it is an :class:`ArgumentRefusal` (its class and fields: AutoRanker raises it when
    it is about the arguments), without the traceback that would hold the fold's rows; None for another error, or
    a refusal its fields cannot make again (it could not cross from a Dask worker either)."""
    if not isinstance(exc, ArgumentRefusal):
        return None
    try:
        return exc.with_context(str(exc))
    except Exception:  # noqa: BLE001 - a plugin's subclass that cannot be rebuilt: said by its error text alone
        return None


def _one_line(message, kind: str) -> str:
    return " ".join(f"{kind}: {message}".split())[:300]


def _first(caught) -> str | None:
    return _one_line(caught[0].message, caught[0].category.__name__) if caught else None
