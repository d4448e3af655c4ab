"""scikit-learn estimators of the push family: PushBoost, PNormPush, RankBoost, boost().

Each estimator resolves its spec strings at ``fit`` (objective, or loss +
price; learner; metric), prepares the learner, binds the objective to the
training labels, and runs the generic driver on an in-memory backend.
Fitted models are lists of (weak ranker, coefficient) pairs; the score of a
row is Σ_t α_t h_t(x).
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any, Iterator

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted, validate_data

from .._threadsafe import fits_on_a_copy, reads_a_snapshot
from ..registry import resolve
from ..spec import Component
from ..validation import (
    check_bipartite_target,
    check_finite_scores,
    check_graded_labels,
    check_matrix,
    check_sample_weight,
    check_same_length,
    effective_n_threads,
)
from ..validation import reject_1d
from ._backend import InMemoryBackend
from ._driver import BoostingRecord, run_boosting
from ._progress import IterationInfo, Progress, check_callbacks, run_callbacks
from ._tie_break import check_tie_break_scale, tie_break_offsets
from ._validation import patience, plan_validation

__all__ = ["PushBoost", "PNormPush", "RankBoost", "boost"]

_STOP_REASONS = ("n_iter", "converged", "early_stopping")


def _spec_text(value: Any, family: str, name: str) -> str:
    if isinstance(value, Component):
        return value.spec
    if isinstance(value, str):
        return value
    raise TypeError(f"{name}: expected a {family} spec string such as {_EXAMPLES[family]!r} "
                    f"or a rankcore component, got {type(value).__name__}")


_EXAMPLES = {"loss": "exp", "price": "pow:4", "learner": "stumps", "objective": "push:exp,pow:4", "metric": "auc"}


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_float(value: Any, name: str, *, low: float, high: float = math.inf,
                 low_open: bool = False, high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name}: expected a number, got {value!r}")
    v = float(value)
    if (v <= low if low_open else v < low) or (v >= high if high_open else v > high):
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name}: expected a number in {lo}{low:g}, {high:g}{hi}, got {value!r}")
    return v


def _int_seed(random_state: Any) -> Any:
    """A seed NumPy's default_rng accepts, from None, an int, a Generator or a RandomState."""
    if random_state is None or isinstance(random_state, np.random.Generator) or (
            isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise ValueError(f"random_state: expected None, an integer >= 0 or a numpy random generator, "
                     f"got {random_state!r}")


class _BaseBoost(BaseEstimator):
    """Shared fit / predict / persistence of the push-family estimators."""

    # ------------------------------------------------------------------
    # What the subclasses define
    # ------------------------------------------------------------------
    def _objective_spec(self) -> Any:
        raise NotImplementedError

    # ------------------------------------------------------------------
    # Parameters
    # ------------------------------------------------------------------
    def _resolve_components(self):
        objective = resolve("objective", self._objective_spec())
        learner = resolve("learner", _spec_text(self.learner, "learner", "learner"))
        return objective, learner

    def _validate_common(self) -> None:
        _check_int(self.n_iter, "n_iter", 1)
        _check_float(self.tol, "tol", low=0.0)
        if not isinstance(self.early_stopping, (bool, np.bool_)):
            raise ValueError(f"early_stopping: expected True or False, got {self.early_stopping!r}")
        _check_float(self.validation_fraction, "validation_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
        if self.n_iter_no_change is not None:
            _check_int(self.n_iter_no_change, "n_iter_no_change", 1)
        _check_int(self.verbose, "verbose", 0)
        effective_n_threads(self.n_jobs)
        _int_seed(self.random_state)

    def _scoring_metric(self, task: str | None = None):
        scoring = self.scoring
        if scoring is None:
            task = task or getattr(self, "task_", None) or self._task()
            scoring = "misrank" if task == "graded" else "auc"
        metric = resolve("metric", _spec_text(scoring, "metric", "scoring"))
        if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
            raise ValueError(f"scoring: the metric {metric.spec!r} is not a scalar score")
        return metric

    # ------------------------------------------------------------------
    # fit
    # ------------------------------------------------------------------
    def _allow_nan(self, learner=None) -> bool:
        """The learner handles missing values (``allow_nan``, e.g. trees): NaN is then accepted in X."""
        learner = learner if learner is not None else getattr(self, "_learner", None)
        return bool(getattr(learner, "allow_nan", False))

    def _check_X(self, X, *, reset: bool, learner=None) -> np.ndarray:
        reject_1d(X)
        validate_data(self, X, reset=reset, skip_check_array=True)
        arr = np.asarray(X) if not hasattr(X, "toarray") else X
        dtype = np.float32 if getattr(arr, "dtype", None) == np.float32 else np.float64
        X_arr = check_matrix(X, name="X", dtype=dtype, allow_nan=self._allow_nan(learner))
        if not reset and X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X: expected {self.n_features_in_} features (as in fit), got {X_arr.shape[1]}")
        return X_arr

    def _check_target(self, objective, y, n: int):
        if objective.task == "graded":
            y_clean = check_graded_labels(y, name="y")
            classes = None
        else:
            y_clean, classes = check_bipartite_target(y, name="y")
        check_same_length(X=np.empty(n), y=y_clean)
        return y_clean, classes

    @fits_on_a_copy
    def fit(self, X, y, sample_weight=None, *, eval_set=None, callbacks=None):
        """Boost ``n_iter`` weak rankers on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite numbers; float32 is kept as float32 for the learners.
        y : array-like of shape (n_samples,)
            Two labels (the greater one is the relevant class ranked on
            top) for bipartite objectives; real-valued grades for graded ones.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, used as multiplicities by the push objective.
        eval_set : tuple (X_val, y_val), optional
            Validation data scored by ``scoring`` after every iteration
            (``validation_scores_``); with ``early_stopping=True`` it replaces
            the internal split.
        callbacks : callable or list of callables, optional
            Each is called after every iteration with an
            :class:`~rankcore.push.IterationInfo` (iteration, objective,
            alpha, ranker, validation score, elapsed seconds).  A truthy
            return value stops the fit: a string becomes ``stop_reason_``,
            anything else stops with ``"callback"``.  The weak rankers chosen
            so far are kept.

        Returns
        -------
        self
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        self._validate_params()
        self._validate_common()
        user_callbacks = check_callbacks(callbacks)
        objective, learner = self._resolve_components()
        X_arr = self._check_X(X, reset=True, learner=learner)
        y_clean, classes = self._check_target(objective, y, X_arr.shape[0])
        w = None if sample_weight is None else check_sample_weight(sample_weight, X_arr.shape[0])
        if w is not None and not objective.supports_sample_weight:
            raise ValueError(f"sample_weight: the objective {objective.spec!r} does not support sample weights")
        n_threads = effective_n_threads(self.n_jobs)
        seed = _int_seed(self.random_state)
        metric = None
        monitor = eval_set is not None or self.early_stopping
        if monitor:
            metric = self._scoring_metric(objective.task)

        if self.thresholds is not None and not learner.uses_thresholds:
            raise ValueError(f"thresholds: the learner {learner.spec!r} does not use thresholds; leave thresholds=None")
        fit_on = self._make_backend_factory(objective, learner, n_threads, seed)
        if eval_set is None and self.early_stopping:
            self._fit_with_selected_n_iter(X_arr, y_clean, w, classes, objective, learner, metric, fit_on, seed,
                                           user_callbacks)
            return self
        X_val = y_val = None
        if eval_set is not None:
            X_val, y_val = self._check_eval_set(eval_set, objective, classes)
        objective.check_target(y_clean, w)
        layout, backend = fit_on(X_arr, y_clean, w)
        result, records, history, best = self._boost(backend, layout, objective, metric, X_val, y_val,
                                                     user_callbacks)
        self._set_fitted(objective, learner, classes, result, records, history, best, monitor=monitor)
        return self

    def _make_backend_factory(self, objective, learner, n_threads, seed):
        """A function (X, y, w) -> (layout, backend) preparing the learner and objective on some rows."""

        def fit_on(X, y, w):
            layout = learner.prepare(X, sample_weight=w, thresholds=self.thresholds, random_state=seed,
                                     n_threads=n_threads)
            problem = objective.bind(y, w, n_threads=n_threads)
            # A non-smooth objective starts from distinct training scores (never part of the model).
            start = tie_break_offsets(X.shape[0], check_tie_break_scale(objective), seed)
            backend = InMemoryBackend(problem, layout, X, y, w, n_threads=n_threads, initial_scores=start)
            return layout, backend

        return fit_on

    def _fit_with_selected_n_iter(self, X, y, w, classes, objective, learner, metric, fit_on, seed, user_callbacks):
        """Early stopping without ``eval_set``: choose n_iter on held-out rows, then refit on all rows.

        The split rule is :func:`rankcore.push._validation.plan_validation`: a
        stratified ``validation_fraction`` hold-out when it holds enough rows
        of each class, else K-fold cross-validation.  A hold-out run stops
        after the patience; cross-validation runs every fold for ``n_iter``
        iterations and averages the folds' validation losses.  The best
        iteration count (the first minimum of the validation loss) is then
        boosted on all the rows, with ``verbose`` and ``callbacks``.  Works
        for any learner: only ``prepare``/``predict`` are used.
        """
        stratify = objective.task != "graded"
        plan = plan_validation(y, float(self.validation_fraction), seed, stratify=stratify)
        n_iter = int(self.n_iter)
        losses, scores, reasons = [], [], []
        for tr, va in plan.folds:
            w_tr = None if w is None else w[tr]
            objective.check_target(y[tr], w_tr)
            layout, backend = fit_on(X[tr], y[tr], w_tr)
            result, _, history, _ = self._boost(backend, layout, objective, metric, X[va], y[va],
                                                stop_early=plan.kind == "holdout", silent=True)
            curve = np.array([metric(y[va], np.zeros(va.shape[0]))] + history, dtype=np.float64)
            # a fit that converged early keeps its last scores for the remaining iterations
            curve = np.concatenate([curve, np.full(n_iter + 1 - curve.shape[0], curve[-1])])
            scores.append(curve)
            losses.append(np.array([metric.to_loss(float(v)) for v in curve]))
            reasons.append(self._stop_reason(result))
        mean_loss = np.mean(losses, axis=0)
        mean_score = np.mean(scores, axis=0)
        if plan.kind == "holdout":
            ran = len(history)
            mean_loss, mean_score = mean_loss[: ran + 1], mean_score[: ran + 1]
        best_n = int(np.argmin(mean_loss))            # the first minimum: fewest iterations
        objective.check_target(y, w)
        stop_reason = reasons[0] if plan.kind == "holdout" else "early_stopping"
        if best_n < n_iter:
            stop_reason = "early_stopping"
        layout, backend = fit_on(X, y, w)
        # best_n = 0 (no iteration helps on validation data) runs no iteration: the constant model
        result, records, _, _ = self._boost(backend, layout, objective, None, None, None, user_callbacks,
                                            n_iter=best_n, stop_early=False)
        best = {"iteration": best_n}
        self._set_fitted(objective, learner, classes, result, records, list(mean_score[1:]), best, monitor=True)
        self.stop_reason_ = stop_reason

    def _boost(self, backend, layout, objective, metric, X_val, y_val, user_callbacks=(), *, n_iter=None,
               stop_early=None, silent=False):
        """Run the driver with validation monitoring, progress, user callbacks and early stopping.

        Shared by every backend (in memory, Dask).  Returns ``(result, records
        kept, validation history, best)``: with early stopping the records are
        cut back to the best iteration.  ``n_iter`` and ``stop_early``
        override the estimator's ``n_iter`` and ``early_stopping``; ``silent``
        turns progress off (the selection fits of early stopping).
        """
        n_iter = int(self.n_iter) if n_iter is None else int(n_iter)
        stop_early = bool(self.early_stopping) if stop_early is None else bool(stop_early)
        wait = patience(self.n_iter_no_change, n_iter)
        val_scores = None if X_val is None else np.zeros(X_val.shape[0])
        history: list[float] = []
        progress = Progress(0 if silent else self.verbose, n_iter, metric.spec if metric is not None else None,
                            stream=sys.stdout)
        best = {"iteration": 0, "loss": math.inf}

        def callback(record: BoostingRecord):
            score = None
            if val_scores is not None:
                val_scores[:] += record.alpha * record.ranker.predict(X_val)
                score = float(metric(y_val, val_scores))
                history.append(score)
                loss = metric.to_loss(score)
                if loss < best["loss"]:
                    best.update(iteration=record.iteration, loss=loss)
            progress.update(record, score)
            if user_callbacks:
                info = IterationInfo(record.iteration, int(self.n_iter), record.value, record.alpha, record.ranker,
                                     score, progress.elapsed())
                reason = run_callbacks(user_callbacks, info)
                if reason:
                    return reason
            if stop_early and score is not None and record.iteration - best["iteration"] >= wait:
                return "early_stopping"
            return None

        if val_scores is not None:
            best.update(iteration=0, loss=metric.to_loss(float(metric(y_val, val_scores))))
        progress.start()
        result = run_boosting(backend, layout, n_iter=n_iter, log_value=objective.log_value,
                              tol=float(self.tol), callback=callback)
        records = result.records
        if stop_early and best["iteration"] < len(records):
            records = records[: best["iteration"]]
        progress.finish(len(records), self._stop_reason(result))
        return result, records, history, best

    @staticmethod
    def _stop_reason(result) -> str:
        return "converged" if result.stop_reason == "no_decrease" else result.stop_reason

    def _set_fitted(self, objective, learner, classes, result, records, history, best, *, monitor: bool):
        """The fitted attributes from a run of :meth:`_boost`."""
        self.objective_spec_ = objective.spec
        self.learner_spec_ = learner.spec
        self.task_ = objective.task
        if classes is not None:
            self.classes_ = classes
        self.rankers_ = [r.ranker for r in records]
        self.alphas_ = np.array([r.alpha for r in records], dtype=np.float64)
        self.objective_values_ = np.array([result.initial_value] + [r.value for r in records], dtype=np.float64)
        self.n_iter_ = len(records)
        self.stop_reason_ = self._stop_reason(result)
        if monitor:
            self.validation_scores_ = np.array(history[: len(records)], dtype=np.float64)
            self.best_iteration_ = int(best["iteration"])
        self._learner = learner

    def _check_eval_set(self, eval_set, objective, classes):
        if not (isinstance(eval_set, (tuple, list)) and len(eval_set) == 2):
            raise ValueError("eval_set: expected a pair (X_val, y_val)")
        X_val = check_matrix(eval_set[0], name="eval_set X", dtype=np.float64,
                             allow_nan=self._allow_nan(self._resolve_components()[1]))
        if X_val.shape[1] != self.n_features_in_:
            raise ValueError(f"eval_set X: expected {self.n_features_in_} features (as X), got {X_val.shape[1]}")
        if objective.task == "graded":
            y_val = check_graded_labels(eval_set[1], name="eval_set y")
        else:
            y_arr = np.asarray(eval_set[1])
            if y_arr.ndim != 1 or not np.isin(y_arr, classes).all():
                raise ValueError(f"eval_set y: expected labels among the training classes {list(classes)!r}")
            y_val = (y_arr == classes[1]).astype(np.int8)
        check_same_length(**{"eval_set X": X_val, "eval_set y": y_val})
        return X_val, y_val

    # ------------------------------------------------------------------
    # Prediction
    # ------------------------------------------------------------------
    @reads_a_snapshot
    def decision_function(self, X) -> np.ndarray:
        """Scores Σ_t α_t h_t(x): higher means closer to the top of the ranking.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,)
        """
        predict_sum = getattr(getattr(self, "_learner", None), "predict_sum", None)
        if predict_sum is not None:          # one parallel pass over the rows for every tree (Cython)
            check_is_fitted(self)
            X_arr = self._check_X(X, reset=False)
            scores = predict_sum(self.rankers_, self.alphas_, X_arr, effective_n_threads(self.n_jobs))
            return check_finite_scores(scores, owner=f"{type(self).__name__}.decision_function", X=X)
        scores = None
        for scores in self._staged(X):
            pass
        return check_finite_scores(scores, owner=f"{type(self).__name__}.decision_function", X=X)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total split gain per feature over the trees, normalised to sum 1 (tree learners only).

        All zeros when no tree was grown.
        """
        check_is_fitted(self)
        if not all(hasattr(r, "importances") for r in self.rankers_) or not hasattr(self._learner, "predict_sum"):
            raise AttributeError(f"feature_importances_: the learner {self.learner_spec_!r} does not record split "
                                 f"gains (use a tree learner)")
        total = np.zeros(int(self.n_features_in_))
        for ranker in self.rankers_:
            total += ranker.importances(total.shape[0])
        s = total.sum()
        return total / s if s > 0 else total

    @reads_a_snapshot
    def staged_decision_function(self, X) -> Iterator[np.ndarray]:
        """Scores after each iteration 1, 2, ..., n_iter_ (a generator of arrays)."""
        first = True
        for scores in self._staged(X):
            if first:           # the scores before the first iteration are not a stage
                first = False
                continue
            yield check_finite_scores(scores, owner=f"{type(self).__name__}.staged_decision_function", X=X).copy()

    def _staged(self, X):
        check_is_fitted(self)
        X_arr = self._check_X(X, reset=False)
        scores = np.zeros(X_arr.shape[0])
        yield scores
        for ranker, alpha in zip(self.rankers_, self.alphas_):
            with np.errstate(over="ignore", invalid="ignore"):   # non-finite scores are refused by the callers
                scores += alpha * ranker.predict(X_arr)
            yield scores

    @reads_a_snapshot
    def score(self, X, y) -> float:
        """The ``scoring`` metric of ``decision_function(X)`` against ``y`` (higher is better)."""
        check_is_fitted(self)
        metric = self._scoring_metric()
        scores = self.decision_function(X)
        if getattr(self, "task_", "bipartite") == "graded":
            y_clean = check_graded_labels(y, name="y")
        else:
            y_arr = np.asarray(y)
            if y_arr.ndim != 1 or not np.isin(y_arr, self.classes_).all():
                raise ValueError(f"y: expected labels among the training classes {list(self.classes_)!r}")
            y_clean = (y_arr == self.classes_[1]).astype(np.int8)
        check_same_length(X=scores, y=y_clean)
        value = float(metric(y_clean, scores))
        return value if metric.greater_is_better else -value

    # ------------------------------------------------------------------
    # Persistence (rankcore.persistence: JSON, no pickle)
    # ------------------------------------------------------------------
    def _get_fitted_state(self) -> dict:
        state = {
            "objective": self.objective_spec_,
            "learner": self.learner_spec_,
            "task": self.task_,
            "n_features_in": int(self.n_features_in_),
            "rankers": [r.to_state() for r in self.rankers_],
            "alphas": np.ascontiguousarray(self.alphas_, dtype=np.float64),
            "objective_values": np.ascontiguousarray(self.objective_values_, dtype=np.float64),
            "stop_reason": self.stop_reason_,
        }
        if hasattr(self, "classes_"):
            classes = self.classes_
            state["classes"] = classes if classes.dtype.kind in "biuf" else [str(c) for c in classes]
        if hasattr(self, "feature_names_in_"):
            state["feature_names_in"] = [str(name) for name in self.feature_names_in_]
        if hasattr(self, "validation_scores_"):
            state["validation_scores"] = np.ascontiguousarray(self.validation_scores_, dtype=np.float64)
            state["best_iteration"] = int(self.best_iteration_)
        return state

    def _set_fitted_state(self, state: dict) -> None:
        from ..persistence import ModelFormatError

        name = type(self).__name__

        def fail(message):
            raise ModelFormatError(f"{name} state: {message}")

        required = {"objective", "learner", "task", "n_features_in", "rankers", "alphas", "objective_values",
                    "stop_reason"}
        optional = {"classes", "feature_names_in", "validation_scores", "best_iteration"}
        keys = set(state)
        if not required <= keys or not keys <= required | optional:
            fail(f"unexpected or missing fields {sorted((keys - required - optional) | (required - keys))}")
        try:  # the parameters read from the file pass the same checks as in fit
            self._validate_params()
            self._validate_common()
            self._scoring_metric(state["task"] if state["task"] in ("bipartite", "graded") else None)
        except (TypeError, ValueError) as exc:
            fail(f"invalid parameters: {exc}")
        try:
            objective, learner = self._resolve_components()
        except (TypeError, ValueError) as exc:
            fail(f"the parameters do not resolve: {exc}")
        if state["objective"] != objective.spec:
            fail(f"objective {state['objective']!r} does not match the parameters ({objective.spec!r})")
        if state["learner"] != learner.spec:
            fail(f"learner {state['learner']!r} does not match the parameters ({learner.spec!r})")
        if state["task"] != objective.task:
            fail(f"task {state['task']!r} does not match the objective's ({objective.task!r})")
        d = state["n_features_in"]
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            fail(f"n_features_in must be a positive integer, got {d!r}")
        alphas = state["alphas"]
        if not (isinstance(alphas, np.ndarray) and alphas.dtype == np.float64 and alphas.ndim == 1):
            fail("alphas must be a float64 vector")
        if not np.isfinite(alphas).all():
            fail("alphas must be finite")
        T = alphas.shape[0]
        if T > self.n_iter:
            fail(f"{T} iterations stored, but n_iter={self.n_iter}")
        raw = state["rankers"]
        if not isinstance(raw, list) or len(raw) != T:
            fail(f"rankers must be a list of {T} records (one per coefficient)")
        rankers = []
        for t, record in enumerate(raw):
            if not isinstance(record, dict):
                fail(f"rankers[{t}] must be a record")
            try:
                ranker = learner.ranker_from_state(record)
            except (TypeError, ValueError, KeyError) as exc:
                fail(f"rankers[{t}]: {exc}")
            if any(not 0 <= j < d for j in ranker.features):
                fail(f"rankers[{t}] reads feature {max(ranker.features)}, but n_features_in={d}")
            rankers.append(ranker)
        values = state["objective_values"]
        if not (isinstance(values, np.ndarray) and values.dtype == np.float64 and values.shape == (T + 1,)):
            fail(f"objective_values must be a float64 vector of length {T + 1}")
        if np.isnan(values).any() or (values == np.inf).any():
            fail("objective_values must not contain NaN or +inf")
        if np.any(np.diff(values) > 1e-9 * np.maximum(1.0, np.abs(values[1:]))):
            fail("objective_values must not increase (the driver never increases the objective)")
        if state["stop_reason"] not in _STOP_REASONS:
            fail(f"stop_reason must be one of {_STOP_REASONS}, got {state['stop_reason']!r}")
        classes = state.get("classes")
        if objective.task == "graded":
            if classes is not None:
                fail("a graded model has no classes")
        else:
            if classes is None:
                fail("classes are missing")
            classes = np.asarray(classes)
            if classes.ndim != 1 or classes.shape[0] != 2:
                fail("classes must hold exactly two labels")
            if classes.dtype.kind == "f" and not np.isfinite(classes).all():
                fail("classes must be finite")
            if not classes[0] < classes[1]:
                fail("classes must be two sorted, distinct labels")
        names = state.get("feature_names_in")
        if names is not None and not (isinstance(names, list) and len(names) == d
                                      and all(isinstance(s, str) for s in names)):
            fail(f"feature_names_in must be a list of {d} strings")
        has_val = "validation_scores" in state
        if has_val != ("best_iteration" in state):
            fail("validation_scores and best_iteration go together")
        if has_val:
            scores = state["validation_scores"]
            if not (isinstance(scores, np.ndarray) and scores.dtype == np.float64 and scores.shape == (T,)):
                fail(f"validation_scores must be a float64 vector of length {T}")
            best = state["best_iteration"]
            if isinstance(best, bool) or not isinstance(best, int) or best < 0:
                fail(f"best_iteration must be a non-negative integer, got {best!r}")

        self.objective_spec_ = objective.spec
        self.learner_spec_ = learner.spec
        self.task_ = objective.task
        if classes is not None:
            self.classes_ = classes
        self.n_features_in_ = d
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.rankers_ = rankers
        self.alphas_ = alphas
        self.objective_values_ = values
        self.n_iter_ = T
        self.stop_reason_ = state["stop_reason"]
        if has_val:
            self.validation_scores_ = state["validation_scores"]
            self.best_iteration_ = state["best_iteration"]
        self._learner = learner

    # ------------------------------------------------------------------
    def _validate_params(self) -> None:  # scikit-learn's hook name; ours are explicit checks
        pass

    def _task(self) -> str:
        """``"bipartite"`` or ``"graded"``: the labels the configured objective takes."""
        try:
            return resolve("objective", self._objective_spec()).task
        except (TypeError, ValueError):
            return "bipartite"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        try:
            learner = resolve("learner", _spec_text(self.learner, "learner", "learner"))
        except (TypeError, ValueError):
            learner = None
        tags.input_tags.allow_nan = self._allow_nan(learner) if learner is not None else False
        if self._task() != "graded":
            # Not a classifier (no predict), but a two-class target: ClassifierTags
            # with multi_class=False makes scikit-learn's checks send two classes.
            tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


_COMMON_DOC = """
    learner : str or Learner, default="stumps"
        Weak-learner family: ``"stumps"`` (best threshold per feature, binned;
        ``"stumps:max_bins=1024"``), ``"thresholds"`` (``"thresholds:q=4"``
        quantile thresholds, or the ``thresholds`` parameter), ``"features"``
        (min–max scaled features: a linear model, as in the paper), or a
        plugin's.
    n_iter : int, default=100
        Boosting iterations (weak rankers added).
    thresholds : list of array-like, optional
        Per-feature candidate thresholds for threshold learners (``stumps``:
        the bin edges, e.g. from :func:`rankcore.learners.bin_edges`;
        ``thresholds``: the thresholds themselves).
    tol : float, default=1e-12
        Stop when no weak ranker has |∂J/∂α| above ``tol`` (J is the log of
        the push objective, so this is a relative rate).
    early_stopping : bool, default=False
        Choose the number of iterations (at most ``n_iter``) on validation
        data scored with ``scoring`` after every iteration.  With
        ``fit(..., eval_set=...)``: stop after ``n_iter_no_change``
        iterations without improvement and keep the best iteration's model.
        Without: hold out a stratified ``validation_fraction`` of the rows
        (drawn with ``random_state``) when that holds at least 50 rows and
        about 10 of each class, else use 5-fold cross-validation (the folds'
        validation curves averaged); then refit on all the rows with the
        best number of iterations (``rankcore.push._validation``).
    scoring : str, optional
        A registered metric (``"rmax"``, ``"prec@k:20"``, ``"pauc:0.1"``, ...)
        for early stopping, ``eval_set`` and :meth:`score`.  Default:
        ``"auc"`` for bipartite objectives, ``"misrank"`` for graded ones.
    validation_fraction : float, default=0.1
        The share of rows held out by ``early_stopping`` (see there).
    n_iter_no_change : int or None, default=None
        The patience of early stopping, in iterations; None: max(10, n_iter / 5).
    random_state : None, int or numpy Generator
        Seeds the validation split, the learners' sampling (bin edges of
        data larger than ``stumps``'s ``subsample``) and, for a non-smooth
        objective (``tie_break_scale > 0``, e.g. ``"prec@k-avg:20"``), the
        order of the tie-break offset the training scores start from.
    n_jobs : int or None, default=None
        Threads for the kernels (None or -1: all cores).  Results do not
        depend on it.
    verbose : int, default=0
        0: silent; 1: a progress line about every tenth of the iterations;
        2: every iteration.

    Attributes
    ----------
    rankers_ : list of WeakRanker
        The weak ranker chosen at each iteration (may repeat).
    alphas_ : ndarray of shape (n_iter_,)
        Their coefficients; ``decision_function(X) = Σ_t alphas_[t] · rankers_[t].predict(X)``.
    objective_values_ : ndarray of shape (n_iter_ + 1,)
        The working objective J (log R for the push objective) before the
        first iteration and after each one; never increasing.  For a
        non-smooth objective it is J of the training scores, which carry the
        tie-break offset ε: within G·s/2 of J of ``decision_function(X)``
        (s the objective's ``tie_break_scale``, G a bound on ‖∇J‖₁; for the
        precision@k surrogates G = 2, so within s).
    n_iter_ : int
    stop_reason_ : str
        ``"n_iter"``, ``"converged"`` or ``"early_stopping"``.
    validation_scores_ : ndarray
        The ``scoring`` metric on the validation data after each iteration
        (with ``early_stopping`` or ``eval_set``).
    best_iteration_ : int
        Iteration with the best validation score (0 = no iteration).
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the relevant class ranked on top.
    objective_spec_, learner_spec_ : str
        The resolved components.
    n_features_in_, feature_names_in_
"""


class PushBoost(_BaseBoost):
    __doc__ = """Boosting for the push objective R_{g,ℓ} = Σ_k g(Σ_i ℓ(f_i − f_k)), or any registered objective.

    Minimizes the objective over linear combinations of weak rankers by
    coordinate descent (Rudin 2006, docs/theory/push.md#coordinate-descent), with every pairwise sum computed
    without pairs where the loss allows it and in log space, so
    ``price="pow:64"`` stays finite.

    Parameters
    ----------
    loss : str or Loss, default="exp"
        Pairwise loss ℓ: ``"exp"``, ``"logistic"``, ``"hinge"``, ``"sqhinge"``
        or a plugin's.
    price : str, Price or None, default=None
        Price g: ``"identity"`` (RankBoost), ``"pow:p"`` (P-Norm Push),
        ``"exp:β"``, or a plugin's.  Larger p pushes harder at the top.
        None: the learner's ``default_price`` -- ``"pow:4"`` for stumps,
        thresholds and features, ``"pow:2"`` for trees (which fit the
        training rows more closely, so a milder push generalizes better).
    objective : str or Objective, optional
        Any registered objective instead (e.g. ``"prec@k-avg:20"``); then
        ``loss`` and ``price`` must stay at their defaults.
""" + _COMMON_DOC + """
    Examples
    --------
    >>> import rankcore
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = rankcore.boost(loss="exp", price="pow:4", learner="stumps", n_iter=20).fit(X, 1 - y)
    >>> model.decision_function(X[:3]).shape
    (3,)
    """

    def __init__(self, *, loss="exp", price=None, objective=None, learner="stumps", n_iter=100,
                 thresholds=None, tol=1e-12, early_stopping=False, scoring=None, validation_fraction=0.1,
                 n_iter_no_change=None, random_state=None, n_jobs=None, verbose=0):
        self.loss = loss
        self.price = price
        self.objective = objective
        self.learner = learner
        self.n_iter = n_iter
        self.thresholds = thresholds
        self.tol = tol
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _objective_spec(self):
        loss = _spec_text(self.loss, "loss", "loss")
        if self.objective is None:
            from ..objectives._push import PushObjective

            if self.price is None:        # the learner's own default (pow:4; pow:2 for trees)
                learner = resolve("learner", _spec_text(self.learner, "learner", "learner"))
                price = learner.default_price
            else:
                price = _spec_text(self.price, "price", "price")
            return PushObjective(loss=loss, price=price)
        price = None if self.price is None else _spec_text(self.price, "price", "price")
        if loss != "exp" or price is not None:
            raise ValueError(
                f"objective={self.objective!r} replaces loss and price; got also loss={loss!r}, price={price!r} "
                "(leave them at their defaults, or use objective='push:<loss>,<price>')"
            )
        return _spec_text(self.objective, "objective", "objective")


class PNormPush(_BaseBoost):
    __doc__ = """P-Norm Push (Rudin 2006): exponential loss, price g(r) = r^p, boosted.

    The same estimator as ``PushBoost(loss="exp", price=f"pow:{p}")``.

    Parameters
    ----------
    p : float, default=4
        The power, in [1, 1e6] (``rankcore.prices.MAX_POWER``); p = 1 is
        RankBoost, larger p pushes harder at the top.
""" + _COMMON_DOC

    def __init__(self, *, p=4.0, learner="stumps", n_iter=100, thresholds=None, tol=1e-12, early_stopping=False,
                 scoring=None, validation_fraction=0.1, n_iter_no_change=None, random_state=None, n_jobs=None,
                 verbose=0):
        self.p = p
        self.learner = learner
        self.n_iter = n_iter
        self.thresholds = thresholds
        self.tol = tol
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _objective_spec(self):
        from ..objectives._push import PushObjective
        from ..prices._builtin import MAX_POWER

        p = _check_float(self.p, "p", low=1.0)
        if p > MAX_POWER:
            raise ValueError(f"p: expected a number in [1, {MAX_POWER:g}] (rankcore.prices.MAX_POWER), got {self.p!r}")

        return PushObjective(loss="exp", price=f"pow:{p!r}")


class RankBoost(_BaseBoost):
    __doc__ = """RankBoost for bipartite ranking (Freund et al. 2003): exponential loss, no push.

    The same estimator as ``PushBoost(loss="exp", price="identity")``; with
    binary weak rankers each step equals RankBoost's closed form ½ ln(W₊/W₋).

    Parameters
    ----------
""" + _COMMON_DOC

    def __init__(self, *, learner="stumps", n_iter=100, thresholds=None, tol=1e-12, early_stopping=False,
                 scoring=None, validation_fraction=0.1, n_iter_no_change=None, random_state=None, n_jobs=None,
                 verbose=0):
        self.learner = learner
        self.n_iter = n_iter
        self.thresholds = thresholds
        self.tol = tol
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _objective_spec(self):
        from ..objectives._push import PushObjective

        return PushObjective(loss="exp", price="identity")


def boost(*, loss: Any = "exp", price: Any = None, objective: Any = None, learner: Any = "stumps",
          n_iter: int = 100, **params: Any) -> PushBoost:
    """An unfitted :class:`PushBoost` for the given components.

    ``rankcore.boost(loss="exp", price="pow:16", learner="features", n_iter=200)``
    is P-Norm Push with p = 16 on min–max scaled features;
    ``rankcore.boost(objective="prec@k-avg:20", learner="stumps")`` boosts any
    registered objective; ``rankcore.boost(learner="trees")`` grows gradient-boosted
    trees on the push objective (price ``pow:2``, the trees' default; each tree on
    a seeded 80 % of the rows, so pass ``random_state`` for repeatable fits).  Other
    keyword arguments are :class:`PushBoost`'s.
    """
    return PushBoost(loss=loss, price=price, objective=objective, learner=learner, n_iter=n_iter, **params)
