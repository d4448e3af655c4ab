"""What every estimator of the push family shares: ``_BaseBoost`` and its setup record, ``BoostSetup``.

Each estimator (:mod:`rankcore.push._estimators`) checks its parameters and resolves its spec strings once at
``fit`` (:meth:`_BaseBoost._setup`: objective, or loss + price; learner;
scoring metric), prepares the learner, binds the objective to the training
labels, and runs the generic driver on an in-memory backend.  Fitted models
are lists of (weak ranker, coefficient) pairs; the score of a row is
Σ_t α_t h_t(x).  Parameters and fitted state are declared in
:mod:`rankcore.push._params`; loading a model file in
:mod:`rankcore.push._persistence`.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._caller import outside_stacklevel
from .._setup import EstimatorSetup
from .._taken_rows import TakenRows
from .._threadsafe import fits_on_a_copy
from ..base import CheckedParams, Fitted, Ranker, TrainingCurve, declared_attribute, resolve_parameter
from ..spec import ParameterError
from .._categories import (FittedOnNumbers, category_columns, folded_level_counts, refuse_inexact_ids,
                           warn_unlisted_categories, warn_unused_categories)
from .._frames import as_pandas_frame, computed_dask_frame, validate_columns
from ..validation import (ArgumentRefusal, check_bipartite_target, check_categorical_features,
                          check_graded_labels, check_learner_matrix, check_same_length, effective_n_threads, fit_seed,
                          reject_1d)
from ._backend import InMemoryBackend
from ._contributions import FeatureContributions
from ._tree_leaves import TreeLeaves
from ._lightgbm_export import LightGBMExport
from ._xgboost_export import XGBoostJSONExport
from ._driver import BoostingRecord, check_newton_steps, run_boosting
from ._eval_rows import EvalSetRows
from ._eval_sets import EvalSets, Validation, ValidationSet, eval_set_stopping, read_eval_sets
from ._init_model import InitModel, prepend_init_model, read_init_model
from ._params import DEFAULT_N_ITER, PUSH_FITTED, STOP_REASONS
from ._click_model import fit_click_model
from ._persistence import restore_push_state
from ._predictions import BoostPredictions
from ._progress import IterationInfo, Progress, check_callbacks, run_callbacks, say
from .._peer_names import peer_name_hint
from ._peer_names import names_peer_fit_arguments
from ..objectives import PositionEffects, curvature_unit
from ._row_inputs import RowInputs, check_init_score, warn_nothing_kept, warn_one_sided_init
from ._queries import (check_grades, check_rows, check_some_query_ranks, check_training_part, query_positions,
                       query_rows, row_weights, single_grade_queries, subset)
from ._query_defaults import (QUERY_CATEGORICAL_PARAMS, QUERY_LEARNER_PARAMS, QUERY_METRIC, QUERY_N_ITER,
                              QUERY_SHAPE_PARAMS, searches_from_start)
from ._scoring import LARGE_DATA_METRIC, OBJECTIVE_SCORING, MetricScoring, ObjectiveScoring
from ._tie_break import check_tie_break_scale, tie_break_offsets
from ._column_names import columns_named, setup_with_column_names
from ._validation import (
    MIN_HOLDOUT_ROWS,
    NO_VALIDATION,
    large_data_learner,
    named_parameters,
    patience,
    selected_iteration,
    held_out_queries_counted,
    selection_fit_warnings,
    plan_query_validation,
    plan_validation,
    resolve_early_stopping,
)

_STOP_REASONS = STOP_REASONS


@dataclass(frozen=True)
class BoostSetup(EstimatorSetup):
    """A push estimator's configuration, checked and resolved once: what a fit, the tags and loading use.

    Attributes
    ----------
    objective, learner : Objective, Learner
        The resolved components.
    metric : Metric
        The ``scoring`` metric of :meth:`score` (default: ``auc``, or
        ``misrank`` for a graded objective).
    validation : MetricScoring or ObjectiveScoring
        What validation data are scored by (``scoring``; see ``_scoring``).
    n_threads : int
        ``n_jobs`` as a thread count.
    n_iter : int
        The iteration cap: ``n_iter``, or the default for None.
    within_queries : bool
        The setup of a fit within queries (``_BaseBoost._query_setup``): the
        labels are relevance grades, validation and :meth:`score` go per query.
    """

    objective: Any
    learner: Any
    metric: Any
    validation: Any
    n_threads: int
    n_iter: int
    within_queries: bool = False

    @property
    def task(self) -> str:
        """The labels a fit takes: the objective's, or relevance grades (``"graded"``) within queries."""
        return "graded" if self.within_queries else self.objective.task

    def for_large_data(self) -> "BoostSetup":
        """The setup when ``early_stopping="auto"`` switches on: the learner's large-data settings.

        Spec parameters of ``learner.large_data_params`` that the user's
        learner spec leaves out are set, ``n_iter=None`` becomes
        ``learner.large_data_n_iter`` (when the learner declares one), and
        ``scoring=None`` validates by ``pauc:0.1`` (bipartite objectives).
        Within queries the per-query defaults hold (``_query_defaults``): the
        learner keeps its per-query parameters and ``n_iter=None`` its
        per-query cap; the hold-out of whole queries validates by ``ndcg@k:10``.
        """
        settings = dict(self.learner.large_data_params or {})
        if self.within_queries:
            settings = {name: value for name, value in settings.items()
                        if name not in QUERY_LEARNER_PARAMS.get(self.learner.name, {})}
        learner = large_data_learner(self.params.learner, self.learner, settings)
        n_iter = self.n_iter
        if self.params.n_iter is None and self.learner.large_data_n_iter is not None and not self.within_queries:
            n_iter = int(self.learner.large_data_n_iter)
        validation = self.validation
        if self.params.scoring is None and self.task != "graded":     # (within queries: graded, ndcg@k:10)
            validation = MetricScoring(resolve_parameter("scoring", "metric", LARGE_DATA_METRIC), default=True)
        return replace(self, learner=learner, n_iter=n_iter, validation=validation)


class _BaseBoost(BoostPredictions, EvalSetRows, FeatureContributions, TreeLeaves, LightGBMExport, XGBoostJSONExport,
                 Ranker):
    """Shared fit / predict / persistence of the push-family estimators."""

    fitted = PUSH_FITTED + (Fitted("n_iter_"),)
    iteration_parameter = "n_iter"
    monitor_parameter = "scoring"

    # ------------------------------------------------------------------
    # What the subclasses define
    # ------------------------------------------------------------------
    def _objective(self, params: CheckedParams, learner) -> Any:
        """The resolved objective of the parameters (``learner`` gives the default price)."""
        raise NotImplementedError

    @classmethod
    def _constructor_hint(cls, name: str) -> str:
        # scikit-learn's spelling is the constructor's (PushBoost(warm_start=True)): the hint set_params gives
        hint = peer_name_hint(name)
        return f"; {hint}" if hint else ""

    def set_params(self, **params: Any) -> "_BaseBoost":
        """scikit-learn's ``set_params``; LightGBM's and XGBoost's names (a search grid over ``n_estimators`` or
        ``num_leaves``, say) are a ValueError naming rankcore's, as :func:`rankcore.boost` does."""
        known = self._get_param_names()
        for name in params:
            if name not in known and peer_name_hint(name):
                raise ValueError(f"{name}: {type(self).__name__} has no parameter {name!r}; {peer_name_hint(name)}")
        return super().set_params(**params)

    # ------------------------------------------------------------------
    # Parameters, resolved once
    # ------------------------------------------------------------------
    def _setup(self) -> BoostSetup:
        """Check every parameter and resolve every spec string: the record a fit works from."""
        params = self._check_params()
        learner = resolve_parameter("learner", "learner", params.learner)
        objective = self._objective(params, learner)
        check_newton_steps(objective, learner, params.scoring)
        metric = self._scoring_metric(objective.task, params.scoring)
        # a metric the user did not name (scoring=None) is not said as ``scoring=`` in its refusals
        validation = (ObjectiveScoring(objective) if params.scoring == OBJECTIVE_SCORING
                      else MetricScoring(metric, default=params.scoring is None))
        n_iter = DEFAULT_N_ITER if params.n_iter is None else int(params.n_iter)
        return BoostSetup(params, objective, learner, metric, validation, effective_n_threads(params.n_jobs), n_iter)

    def _query_objective(self, params: CheckedParams, learner, objective) -> Any:
        """The objective of a fit within queries (``objective``: the one without; PushBoost reads the defaults)."""
        return objective

    def _query_setup(self, setup: BoostSetup, categorical: bool = False) -> BoostSetup:
        """The setup of a fit within queries: the per-query defaults (``_query_defaults``) where the user left them.

        ``categorical``: the rows have categorical columns, which the default's oblivious trees cannot split;
        :data:`QUERY_CATEGORICAL_PARAMS` then replace the default's shape (unless the user's spec sets one).
        Monotone and interaction constraints (``trees:monotone=...``, ``trees:interactions=...``) keep the
        oblivious trees: they take both.
        The default objective's QueryRMSE weight is the one for few queries until the queries are counted
        (:meth:`_for_ranked_queries`).
        """
        params = setup.params
        learner = setup.learner
        extra = dict(QUERY_LEARNER_PARAMS.get(learner.name, {}))
        shape = QUERY_SHAPE_PARAMS.get(learner.name, ())
        if named_parameters(params.learner, learner) & set(shape):
            extra = {name: value for name, value in extra.items() if name not in shape}
        elif categorical:
            extra.update(QUERY_CATEGORICAL_PARAMS.get(learner.name, {}))
        if extra:
            learner = large_data_learner(params.learner, learner, extra)
        objective = self._query_objective(params, learner, setup.objective)
        check_newton_steps(objective, learner, params.scoring)
        metric = setup.metric
        if params.scoring in (None, OBJECTIVE_SCORING):
            metric = resolve_parameter("scoring", "metric", QUERY_METRIC)
        validation = (ObjectiveScoring(objective) if params.scoring == OBJECTIVE_SCORING
                      else MetricScoring(metric, default=params.scoring is None))
        n_iter = int(QUERY_N_ITER) if params.n_iter is None and QUERY_N_ITER is not None else setup.n_iter
        return replace(setup, objective=objective, learner=learner, metric=metric, validation=validation,
                       n_iter=n_iter, within_queries=True)

    def _for_ranked_queries(self, setup: BoostSetup, n_ranked_queries: int) -> BoostSetup:
        """The query setup ``setup`` once the fit's queries with two grades are counted (PushBoost: the default
        objective's QueryRMSE weight depends on the count)."""
        return setup

    def _scoring_metric(self, task: str, scoring: Any = None):
        """The metric of :meth:`score`: ``scoring``, or the task's default for None and ``"objective"``."""
        scoring = self.scoring if scoring is None else scoring
        if scoring is None or scoring == OBJECTIVE_SCORING:
            scoring = "misrank" if task == "graded" else "auc"
        metric = resolve_parameter("scoring", "metric", scoring)
        if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
            raise ParameterError(f"scoring: the metric {metric.spec!r} is not a scalar score")
        return metric

    def _task(self) -> str:
        """``"bipartite"`` or ``"graded"``: the labels the configured objective takes (its class declares it)."""
        objective = getattr(self, "objective", None)      # None: the push objective (two classes)
        return "bipartite" if objective is None else declared_attribute("objective", objective, "task", "bipartite")

    def _allows_nan(self) -> bool:
        """The configured learner handles missing values (its class declares ``allow_nan``, e.g. trees)."""
        return bool(declared_attribute("learner", self.learner, "allow_nan", False))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # sparse X as far as the configured learner takes it (trees)
        tags.input_tags.sparse = bool(declared_attribute("learner", self.learner, "accept_sparse", False))
        return tags

    # ------------------------------------------------------------------
    # fit
    # ------------------------------------------------------------------
    def _check_X(self, X, *, reset: bool, learner=None, init_categories: list | None = None,
                 continuing: bool = False, sample_weight=None) -> np.ndarray:
        """``X`` checked and encoded; ``init_categories`` (a fit continuing a model: the model's categories, see
        :meth:`InitModel.categories_for`) reads the frame's category columns by the model's categories.
        ``continuing`` (an ``init_model``): no column is folded -- the model's categories are kept, and a frame
        not read by them has category columns the continuation refuses, which a fold's warning would precede.
        ``sample_weight`` (a fit): a folded column keeps its levels of most weight."""
        reject_1d(X)
        given = X = computed_dask_frame(X)   # a Dask DataFrame: the pandas frame it computes to
        X = as_pandas_frame(X)        # a Polars or Arrow table: its names, categories and nulls as pandas reads them
        validate_columns(self, X, reset=reset)
        # sparse X and category columns as far as the learner takes them; a fit keeps categories, read by value
        learner = learner if learner is not None else getattr(self, "_learner", None)
        fitted = init_categories if reset else self._categories()
        # a fit folds a column of more levels than the trees' bins into its most frequent ones (the rest: missing);
        # a continuation keeps the init model's levels instead: its trees read their codes
        X_arr, categories = check_learner_matrix(X, learner, categories=fitted,
                                                 feature_names=getattr(self, "feature_names_in_", None),
                                                 fold=reset and not continuing, null_source=given,
                                                 sample_weight=sample_weight)
        if reset:
            if categories is not None and init_categories is not None:
                self.categories_ = list(categories)
                warn_unlisted_categories(X, categories)
            elif categories is not None:
                self.categories_ = categories
                warn_unused_categories(X, categories)
                seen = folded_level_counts(X, categories)
                if seen is not None:        # recorded for `rankcore info`: the levels kept of those the rows held
                    self.category_levels_seen_ = seen
            elif category_columns(X):       # read by their values; LightGBM would read such a column's codes
                self.category_columns_read_as_values_ = category_columns(X)
            from_frame = [j for j, c in enumerate(categories or ()) if c is not None]
            self._categorical_columns = self._categorical(from_frame, X_arr.shape[1], learner, X)
        if not reset and X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X: expected {self.n_features_in_} features (as in fit), got {X_arr.shape[1]}")
        return X_arr

    #: ``setup`` with the learner's columns given by name resolved (``_column_names``)
    _with_column_names = staticmethod(setup_with_column_names)

    def _categories(self) -> list | None:
        """The categories kept at fit (``FittedOnNumbers`` for a fit on an array, without feature names; None: a
        file of a DataFrame fit written before categories were kept, whose frames are read by their own codes)."""
        if hasattr(self, "categories_") or hasattr(self, "feature_names_in_") or not hasattr(self, "n_features_in_"):
            return getattr(self, "categories_", None)
        return FittedOnNumbers([None] * int(self.n_features_in_))

    def _categorical(self, from_frame, n_features: int, learner, X=None) -> tuple[int, ...]:
        """The columns split by category groups: a frame's ``category`` columns and ``categorical_features``."""
        given = check_categorical_features(self.categorical_features, n_features,
                                           getattr(self, "feature_names_in_", None))
        if given and not getattr(learner, "accept_categorical", False):
            raise ValueError(f"categorical_features: the learner {getattr(learner, 'spec', learner)!r} does not "
                             f"split by category groups (learner='trees' does); got columns {list(given)}")
        refuse_inexact_ids(X, given)
        return tuple(sorted(set(from_frame) | set(given)))

    def _check_target(self, objective, y, n: int):
        if objective.task == "graded":
            y_clean = check_graded_labels(y, name="y")
            classes = None
        else:
            # more than two labels without queries: most often grades meant to be ranked within queries
            y_clean, classes = check_bipartite_target(
                y, name="y", more_classes_hint="graded labels are ranked within queries: pass fit(X, y, qid=...) "
                                               "(one query id per row) or group=... (query sizes)")
        check_same_length(X=np.empty(n), y=y_clean)
        return y_clean, classes

    # scikit-learn's metadata routing: fit and score take each row's query when a meta-estimator has it
    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    @names_peer_fit_arguments
    @fits_on_a_copy
    def fit(self, X, y, sample_weight=None, *, qid=None, group=None, position=None, init_score=None, eval_set=None,
            eval_names=None, eval_metric=None, eval_init_score=None, callbacks=None, init_model=None):
        """Boost up to ``n_iter`` weak rankers on ``(X, y)``, on one list or within queries.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite numbers; float32 is kept as float32 for the learners.
        y : array-like of shape (n_samples,)
            Two labels (the greater one is the relevant class ranked on
            top) for bipartite objectives; real-valued grades for graded ones.
            With ``qid``: relevance grades, any finite numbers >= 0.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, used as multiplicities by the push objective.
        qid : array-like of shape (n_samples,), optional
            One query id per row (any hashable type; rows need not be sorted or contiguous): rank within each
            query.  The objective compares only rows of the same query and orders every lower grade below the
            higher ones (the push objective of ``loss`` and ``price`` per query; ``objective="lambdarank"``); a
            query whose rows share one grade has no pair for the push (``n_queries_without_pairs_``; the
            default's QueryRMSE term still pulls its scores together).  Early stopping holds out whole queries,
            and validation and :meth:`score` go per query (``ndcg@k:10`` unless ``scoring`` says otherwise;
            :meth:`score` then needs ``qid``).  A count k of ``scoring`` is refused only when no query of these
            rows (or of an ``eval_set``, on its own) reaches it: a hold-out of shorter queries reads them whole.
        group : array-like of int, optional
            LightGBM's form of ``qid``: the sizes of consecutive queries.
        position : array-like of int, optional
            With ``qid``: the place each row was shown at (integers >= 0), for labels that are clicks, explained by
            the row's score plus an effect of its position learned beside the trees (``position_effects_``, shrunk
            by ``position_l2``; needs a per-query objective with a curvature; the model ranks by the score alone),
            or with ``position_bias="em"`` by the click model θ_p σ(f(x)) (``position_propensities_``; docs/clicks.md).
        init_score : array-like of shape (n_samples,), optional
            Finite scores the training rows start from (LightGBM's
            ``init_score``, XGBoost's ``base_margin``): a first-stage
            ranker's scores, say, that the model learns a correction to.
            The model is the weak rankers alone: ``decision_function(X)``
            does not include them -- add the new rows' own initial scores.
        eval_set : tuple (X_val, y_val), or (X_val, y_val, qid_val) with qid, or a list of them, optional
            Validation data scored by ``scoring`` after every iteration; when
            early stopping is on (``True``, or ``"auto"`` on more than 10,000
            training rows, or with ``n_iter_no_change`` set and no ``qid``)
            it replaces the internal split.  A list of sets
            (LightGBM's and XGBoost's ``[(X_train, y_train), (X_val, y_val)]``;
            within queries one triple per set) scores every set
            (``evals_result_``) and watches the last one -- early stopping,
            ``validation_scores_`` and ``best_iteration_`` are its --, skipping
            a set that is the training data itself (the same ``X`` and ``y``
            objects).  When every set is, the fit warns and does not stop
            early (LightGBM's rule): it records the curves and runs ``n_iter``.
        eval_names : list of str, optional
            The sets' names in ``evals_result_``, one per set of ``eval_set``
            (LightGBM's); default ``"validation_0"``, ``"validation_1"``, ...
            by the sets' places, and ``"training"`` for a set that is the
            training data itself (LightGBM's name; no other set may take it).
        eval_init_score : array-like, or a list of them (or None), optional
            With ``init_score``: each validation set's initial scores (one
            array for one set, a list with one entry per set), so that a set
            is scored at the model's scores plus its own initial scores, as
            the training rows are fitted (LightGBM's ``eval_init_score``).
            Rows held out by early stopping take theirs from ``init_score``.
        eval_metric : str or sequence of str, optional
            More metrics recorded on every set of ``eval_set`` after each
            iteration (a list, tuple, 1-D array or Series of specs; a set,
            having no order, is refused; LightGBM's name; registered scalar metrics such as
            ``"ndcg@k:1"``, ``"map@k:10"``, ``"auc"``; per query with
            ``qid``): ``evals_result_[set][spec]``, after ``scoring``'s curve.
            Early stopping, ``validation_scores_``, progress and callbacks
            follow ``scoring`` alone: the model is the same.  A repeated spec,
            or ``scoring``'s own metric, is recorded once.
        callbacks : callable or list of callables, optional
            Each is called after every iteration with an
            :class:`~rankcore.base.IterationInfo` (iteration, objective,
            alpha, ranker, validation score, elapsed seconds).  A truthy
            return value stops the fit: a string becomes ``stop_reason_``,
            anything else stops with ``"callback"``.  The weak rankers chosen
            so far are kept -- with early stopping on validation data, those
            up to the best iteration so far, as when the patience runs out.
        init_model : PushBoost, PNormPush or RankBoost, or str or os.PathLike, optional
            A fitted model (or its saved model file) to continue, as LightGBM's
            ``init_model`` and XGBoost's ``xgb_model``: the training rows and
            every validation set start from its scores, and the model is its
            weak rankers followed by up to ``n_iter`` new ones (``n_iter_``
            counts both, ``init_iterations_`` the first; see "Continuing a
            model" in docs/query_positions_and_init.md).

        Returns
        -------
        self
        """
        if self._setup_record().params.position_bias.em:      # the click model: a fit per EM round (_click_model)
            return fit_click_model(self, X, y, sample_weight, dict(qid=qid, group=group, position=position,
                init_score=init_score, init_model=read_init_model(init_model, _BaseBoost), callbacks=callbacks,
                eval_set=eval_set, eval_names=eval_names, eval_metric=eval_metric, eval_init_score=eval_init_score))
        evals = read_eval_sets(eval_set, eval_names, eval_metric, X=X, y=y, init_scores=eval_init_score, qid=qid,
                               group=group)
        init = read_init_model(init_model, _BaseBoost)
        self._fit_rows([X, y, sample_weight], qid=qid, group=group, position=position, init_score=init_score,
                       eval_set=evals, callbacks=callbacks, init_model=init)
        if init is not None:
            prepend_init_model(self, init)
        return self

    def _fit_rows(self, arrays: list, *, qid=None, group=None, position=None, init_score=None,
                  eval_set: EvalSets | None = None, callbacks=None, init_model: InitModel | None = None):
        """:meth:`fit` on ``arrays = [X, y, sample_weight]``, a list it empties: it holds the only references.

        ``eval_set``: the validation sets as :func:`~rankcore.push._eval_sets.read_eval_sets` read them;
        ``init_model``: the checked model the fit continues (its weak rankers are not added here).

        Once the rows are encoded the fit reads only their codes (a quarter
        of float32 X), so it lets go of X there: a caller that keeps no
        reference of its own -- the one-worker Dask fit, whose worker
        gathered the rows for this fit alone -- frees X for the rest of the
        fit.  The model is the same either way.
        """
        X, y, sample_weight = arrays
        arrays.clear()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        setup = self._setup_record()
        user_callbacks = check_callbacks(callbacks)
        if init_model is not None:
            # the callbacks count the iterations from the init model's first, as LightGBM's; its categories read
            # the frame (a Polars one as pandas reads it), once
            user_callbacks, X = init_model.counting_callbacks(user_callbacks), as_pandas_frame(X)
        init_categories = None if init_model is None else init_model.categories_for(X)
        X_arr = self._check_X(X, reset=True, learner=setup.learner, init_categories=init_categories,
                              continuing=init_model is not None, sample_weight=sample_weight)
        self._keep_init_folds(init_model, init_categories)
        # columns the learner names (trees:interactions=age+income) become indices before anything reads them
        setup = self._with_column_names(setup, getattr(self, "feature_names_in_", None))
        n = X_arr.shape[0]
        rows = query_rows(qid, group, n)
        given_init = check_init_score(init_score, n)          # in the rows' given order (an eval_set of them)
        inputs = RowInputs(query_positions(position, rows, n), given_init if rows is None else rows.take(given_init))
        if rows is None:
            setup.objective.check_queries(None)
            y_clean, classes = self._check_target(setup.objective, y, n)
            queries = None
        else:
            setup = self._query_setup(setup, categorical=bool(getattr(self, "_categorical_columns", ())))
            setup.objective.check_queries(rows.queries)
            y_clean, classes, queries = rows.take(check_grades(y, n, objective=setup.objective)), None, rows.queries
            check_some_query_ranks(queries.n_queries, single_grade_queries(y_clean, queries))
            given_w = row_weights(sample_weight, n, queries)
            # a query of weight 0 (or whose rows of positive weight share one grade) is a dropped query: no pair
            # (weights that leave no query a pair are the objective's refusal, which names them)
            n_single = single_grade_queries(y_clean, queries, None if given_w is None else rows.take(given_w))
            setup = self._for_ranked_queries(setup, queries.n_queries - n_single)
            X_arr = rows.take(X_arr)
        params, objective, learner = setup.params, setup.objective, setup.learner
        if rows is None:
            given_w = row_weights(sample_weight, n, queries)     # in the rows' given order (an eval_set of them)
        if given_w is not None and not objective.supports_sample_weight:
            raise ArgumentRefusal.said("sample_weight",
                                       f"the objective {objective.spec!r} does not support sample weights")
        w = given_w if rows is None else rows.take(given_w)
        if params.thresholds is not None and not learner.uses_thresholds:
            raise ValueError(f"thresholds: the learner {learner.spec!r} does not use thresholds; leave thresholds=None")
        seed = fit_seed(params.random_state)
        stopping = resolve_early_stopping(params.early_stopping, y_clean, params.validation_fraction,
                                          has_eval_set=eval_set is not None, stratify=setup.task != "graded",
                                          n_queries=None if queries is None else queries.n_queries,
                                          patience_given=self.n_iter_no_change is not None)
        if stopping.fallback:
            warnings.warn(stopping.fallback, UserWarning, stacklevel=outside_stacklevel())
        stopping = eval_set_stopping(stopping, eval_set)        # LightGBM's: training data watched, not stopped on
        if stopping.auto:
            setup = setup.for_large_data()
        if init_model is not None:       # the training rows start from its scores (in the rows' order, as X_arr)
            inputs = init_model.start(self, setup, X_arr, inputs, classes, within_queries=queries is not None,
                                      labels=y_clean if classes is None else None)
        if queries is not None:
            self._describe_queries(setup, queries, n_single)
        if (warn_unused := getattr(setup.learner, "warn_unused_columns", None)) is not None:   # once per fit
            warn_unused(X_arr.shape[1], getattr(self, "feature_names_in_", None))
        fit_on = self._make_backend_factory(setup, seed)
        data = (X_arr, y_clean, w, classes, fit_on, seed, user_callbacks)
        if stopping.mode == "select":
            self._fit_with_selected_n_iter(setup, *data, queries=queries, inputs=inputs)
            return self
        if stopping.mode == "holdout":            # one list only: within queries "auto" never stops
            data = [*data]
            del X, X_arr                          # the hold-out's fit takes X from the list (and lets go of it)
            self._fit_on_holdout(setup, data, inputs)
            return self
        validation = None if eval_set is None else self._check_eval_sets(eval_set, setup, classes,
                                                                         within_queries=queries is not None,
                                                                         train_init=given_init, init_model=init_model,
                                                                         train_weight=given_w)
        check_rows(objective, y_clean, w, queries)
        layout, backend = fit_on(X_arr, y_clean, w, queries, inputs)
        del X, X_arr, data          # encoded: the boosting reads the codes (see the docstring)
        result, records, history, best = self._boost(backend, layout, setup, validation, user_callbacks,
                                                     stop_early=stopping.mode == "eval_set")
        self._set_fitted(setup, classes, result, records, history, best, monitor=validation is not None,
                         validation=validation, from_init=inputs.from_init)
        self._set_position_effects(inputs.positions, backend)
        if stopping.fallback and self.stop_reason_ == "n_iter":
            self.stop_reason_ = NO_VALIDATION
        return self

    def _keep_init_folds(self, init_model: InitModel | None, init_categories: list | None) -> None:
        """A continuation keeps its init model's categories: a column folded then is still folded, and
        ``category_levels_seen_`` (which ``rankcore info`` says) carries over."""
        seen = getattr(init_model and init_model.model, "category_levels_seen_", None)
        if init_categories is not None and seen is not None:
            self.category_levels_seen_ = list(seen)

    def _describe_queries(self, setup: BoostSetup, queries, n_single: int) -> None:
        """Set the queries' fitted attributes (every query given to ``fit``; ``n_single`` of them of one grade) and
        report them with ``verbose``."""
        self.n_queries_, self.n_queries_without_pairs_ = queries.n_queries, n_single
        if setup.params.verbose:
            say(f"ranking within {self.n_queries_} queries ({self.n_queries_without_pairs_} with a single grade: "
                "no pair to order)")

    def _make_backend_factory(self, setup: BoostSetup, seed):
        """A function (X, y, w) -> (layout, backend) preparing the learner and objective on some rows."""
        objective, learner, n_threads = setup.objective, setup.learner, setup.n_threads
        thresholds = setup.params.thresholds

        def fit_on(X, y, w, queries=None, inputs=RowInputs()):
            categorical = getattr(self, "_categorical_columns", ())      # split by category groups (the trees)
            extra = {"categorical_features": categorical} if categorical and learner.accept_categorical else {}
            with columns_named(getattr(self, "feature_names_in_", None)):
                layout = learner.prepare(X, sample_weight=w, thresholds=thresholds, random_state=seed,
                                         n_threads=n_threads, **extra)
            if queries is not None and getattr(layout, "wants_row_groups", False):
                # the trees' Bayesian bootstrap by query (trees:bagging_unit=query) weighs each row by its query
                layout.set_row_groups(queries.codes)
            # queries reach the objective only when there are some: a plugin's bind(y, w, n_threads=) works as before
            extra_bind = {} if queries is None else {"queries": queries}
            if objective.randomized:              # its noise follows the fit's seed
                extra_bind["random_state"] = seed
            problem = objective.bind(y, w, n_threads=n_threads, **extra_bind)
            if hasattr(layout, "curvature_unit"):    # the trees' min_child_weight floor, in the objective's scale
                layout.curvature_unit = curvature_unit(objective, y.shape[0], None if w is None else np.sum(w))
            positions = inputs.positions
            if positions is not None:
                problem = PositionEffects(problem, positions.codes, positions.ids.shape[0],
                                          l2=setup.params.position_l2, rate=float(getattr(layout, "shrinkage", 1.0)),
                                          start=positions.start)
            if not getattr(layout, "line_search", True) and not problem.has_hessian and setup.within_queries \
                    and "line_search" not in named_parameters(setup.params.learner, learner):
                layout.line_search = True     # the per-query default's Newton steps; this objective has no curvature
            if not getattr(layout, "line_search", True) and not problem.has_hessian:
                raise ValueError(f"learner {learner.spec!r}: line_search=false takes each tree's Newton step, which "
                                 f"needs a curvature; the objective {objective.spec!r} has none (leave line_search "
                                 "at true)")
            if getattr(layout, "leaf_newton_steps", 1) > 1 and not problem.has_hessian:
                raise ValueError(f"learner {learner.spec!r}: leaf_newton_steps > 1 takes Newton steps on each tree's "
                                 f"leaf values, which need a curvature; the objective {objective.spec!r} has none "
                                 "(leave leaf_newton_steps at 1)")
            # A non-smooth objective starts from distinct training scores, and init_score moves the start (neither is
            # part of the model).
            start = inputs.start(tie_break_offsets(X.shape[0], check_tie_break_scale(objective), seed))
            if searches_from_start(objective, layout, setup.params.learner, learner,
                                   within_queries=setup.within_queries, started=lambda: np.any(start)):
                layout.line_search = True       # Newton steps from far initial scores overshoot (_query_defaults)
            backend = InMemoryBackend(problem, layout, X, y, w, n_threads=n_threads, initial_scores=start)
            backend.from_init = inputs.from_init or False     # the driver's messages name init_score (init_model)
            return layout, backend

        return fit_on

    def _fit_on_holdout(self, setup, data: list, inputs=RowInputs()):
        """``early_stopping="auto"`` on large data: boost on all but a stratified hold-out, keep the best prefix.

        No refit on every row (it would double the cost): the model is the
        best prefix of the fit on the other rows, as scikit-learn's
        HistGradientBoosting does.  ``verbose`` and ``callbacks`` follow it.
        One list only: within queries ``"auto"`` holds out no training query.
        ``data``: the list (X, y, w, classes, fit_on, seed, user_callbacks);
        X is taken out of it and let go of once the hold-out is copied and
        the training part encoded (as :meth:`_fit_rows` does); a learner that
        ``takes_row_index`` reads the training rows of X by index, others a copy.
        """
        X, y, w, classes, fit_on, seed, user_callbacks = data
        data[0] = None
        objective = setup.objective
        plan = plan_validation(y, setup.params.validation_fraction, seed, stratify=objective.task != "graded")
        (tr, va), = plan.folds            # a hold-out: resolve_early_stopping checked the floors
        w_tr, w_va = (None, None) if w is None else (w[tr], w[va])
        check_rows(objective, y, w, None)
        check_training_part(objective, y[tr], w_tr, None, "the rows left beside the hold-out")
        X_va = X[va]
        # a learner that reads rows by index bins the training rows in blocks: no copy of ~90 % of X
        X_tr = TakenRows(X, tr) if _takes_row_index(setup.learner, X) else X[tr]
        del X
        layout, backend = fit_on(X_tr, y[tr], w_tr, None, inputs.take(tr))
        del X_tr
        held_out = Validation.held_out(X_va, y[va], w_va, init=inputs.take(va).init_score)
        result, records, history, best = self._boost(backend, layout, setup, held_out, user_callbacks,
                                                     stop_early=True)
        self._set_fitted(setup, classes, result, records, history, best, monitor=True, from_init=inputs.from_init)

    def _fit_with_selected_n_iter(self, setup, X, y, w, classes, fit_on, seed, user_callbacks, *, queries=None,
                                  inputs=RowInputs()):
        """``early_stopping=True`` without ``eval_set``: choose n_iter on held-out rows, then refit on all rows.

        The split rule is :func:`rankcore.push._validation.plan_validation`: a
        stratified ``validation_fraction`` hold-out when it holds at least
        ``MIN_HOLDOUT_ROWS`` rows and enough of each class, else K-fold
        cross-validation.  A hold-out run stops after the patience and keeps
        the last minimum of its validation loss; cross-validation runs every
        fold for ``n_iter`` iterations and takes the largest count within
        ``CV_SLACK`` standard errors of the best mean loss
        (:func:`~rankcore.push._validation.selected_iteration`).  That count is
        then boosted on all the rows, with ``verbose`` and ``callbacks``.
        Works for any learner: only ``prepare``/``predict`` are used.  With
        ``queries`` every split keeps queries whole.
        """
        objective, scoring = setup.objective, setup.validation
        fraction = setup.params.validation_fraction
        plan = (plan_validation(y, fraction, seed, stratify=objective.task != "graded", min_rows=MIN_HOLDOUT_ROWS)
                if queries is None else plan_query_validation(queries, fraction, seed, min_rows=MIN_HOLDOUT_ROWS))
        n_iter = setup.n_iter
        losses, scores = [], []
        check_rows(objective, y, w, queries)
        with selection_fit_warnings(plan):   # the fits that choose n_iter are not the model: say so
            for k, (tr, va) in enumerate(plan.folds):
                w_tr, w_va = (None, None) if w is None else (w[tr], w[va])
                # a part of the training data: a k of ``scoring`` reaching a training query reads shorter ones whole
                q_tr, q_va = (None, None) if queries is None else (subset(queries, tr),
                                                                  subset(queries, va).part_of(queries.longest))
                check_training_part(objective, y[tr], w_tr, q_tr,
                                     "the rows left beside the hold-out" if plan.kind == "holdout"
                                     else f"the training rows of fold {k + 1} of {len(plan.folds)}")
                layout, backend = fit_on(X[tr], y[tr], w_tr, q_tr, inputs.take(tr))
                held_out = Validation.held_out(X[va], y[va], w_va, q_va, init=inputs.take(va).init_score)
                with held_out_queries_counted(plan, k):
                    _, _, history, best = self._boost(backend, layout, setup, held_out,
                                                      stop_early=plan.kind == "holdout", silent=True)
                curve = np.array([best["start"]] + history, dtype=np.float64)
                # a fit that converged early keeps its last scores for the remaining iterations
                curve = np.concatenate([curve, np.full(n_iter + 1 - curve.shape[0], curve[-1])])
                scores.append(curve)
                losses.append(np.array([scoring.to_loss(float(v)) for v in curve]))
        mean_loss = np.mean(losses, axis=0)
        mean_score = np.mean(scores, axis=0)
        if plan.kind == "holdout":
            ran = len(history)
            mean_loss, mean_score = mean_loss[: ran + 1], mean_score[: ran + 1]
        best_n = selected_iteration(np.asarray(losses)[:, : mean_loss.shape[0]])
        # early stopping that kept every iteration stopped nothing: the refit that made the model says why it ended
        # (a hold-out as cross-validation: the hold-out fit's own reason is not the model's)
        stop_reason = "early_stopping" if best_n < n_iter else None
        if setup.params.verbose:        # the refit's table alone would read as a fit of best_n iterations asked for
            say(_selection_line(plan, best_n, n_iter, scoring.name))
        layout, backend = fit_on(X, y, w, queries, inputs)
        # best_n = 0 (no iteration helps on validation data) runs no iteration: the constant model
        result, records, _, _ = self._boost(backend, layout, setup, None, user_callbacks, n_iter=best_n,
                                            stop_early=False, stop_as=stop_reason)
        best = {"iteration": best_n}
        if len(records) < best_n or stop_reason is None:
            # the refit ended first (a callback, convergence, no split), or ran every iteration after
            # cross-validation: its reason and length are the model's
            stop_reason, best = self._stop_reason(result), {"iteration": len(records)}
        self._set_fitted(setup, classes, result, records, list(mean_score[1:]), best, monitor=True,
                         from_init=inputs.from_init)
        self._set_position_effects(inputs.positions, backend)
        self.stop_reason_ = stop_reason
        if best_n == 0:
            warn_nothing_kept(type(self).__name__, f"early stopping chose 0 iterations: no iteration improved the "
                              f"held-out {scoring.name} ({plan.kind})", inputs.from_init)

    def _boost(self, backend, layout, setup, validation: Validation | None = None, user_callbacks=(), *,
               n_iter=None, stop_early=False, silent=False, stop_as=None):
        """Run the driver with validation monitoring, progress, user callbacks and early stopping.

        Shared by every backend (in memory, Dask).  Returns ``(result, records
        kept, validation history, best)``: every set of ``validation`` is
        scored after each iteration (its ``curve``); the history, early
        stopping, progress and callbacks follow the watched set.  With
        ``stop_early`` the fit stops after the patience and the records are
        cut back to the best iteration -- of tied best validation scores the
        later one, so that a metric that saturates (AUC 1 on a small
        validation set) does not stop the fit at its first perfect iteration.
        ``n_iter`` overrides ``setup.n_iter``; ``silent`` turns progress off
        (the selection fits of early stopping).  ``stop_as``: the reason the
        last line gives when the run reaches ``n_iter`` (the refit after early
        stopping chose ``n_iter``: ``"early_stopping"``, as ``stop_reason_``).
        """
        n_iter = setup.n_iter if n_iter is None else int(n_iter)
        wait = patience(setup.params.n_iter_no_change, n_iter)
        sets = () if validation is None else validation.sets
        watched = None if validation is None else validation.watched_set
        to_loss = setup.validation.to_loss
        # a continuation's callbacks count from the init model's first weak ranker (CountedCallbacks): the lines too
        progress = Progress(0 if silent else setup.params.verbose, n_iter, _score_columns(sets, setup.validation.name),
                            stream=sys.stdout, first=getattr(user_callbacks, "first", 0))
        best = {"iteration": 0, "loss": math.inf}
        # a learner that sums its rankers natively (trees) adds α·h of the validation rows in one
        # parallel pass with the fit's threads (ValidationSet.add)
        predict_sum = getattr(setup.learner, "predict_sum", None)

        def callback(record: BoostingRecord):
            score = None
            for one in sets:
                value = one.add(record.ranker, record.alpha, predict_sum, setup.n_threads)
                if one is watched:
                    score = value
            if score is not None:
                loss = to_loss(score)
                if loss <= best["loss"]:             # ties: the later iteration
                    best.update(iteration=record.iteration, loss=loss)
            progress.update(record, [score] if len(sets) == 1 else [one.curve[-1] for one in sets])
            if user_callbacks:
                info = IterationInfo(record.iteration, n_iter, record.value, record.alpha, record.ranker,
                                     score, progress.elapsed())
                reason = run_callbacks(user_callbacks, info)
                if reason:
                    return reason
            if stop_early and score is not None and record.iteration - best["iteration"] >= wait:
                return "early_stopping"
            return None

        for one in sets:
            start = one.start(setup.validation, setup.n_threads, validation.metrics)
            if one is watched:
                best.update(iteration=0, loss=to_loss(start), start=start)
        progress.start()
        objective = setup.objective
        result = run_boosting(backend, layout, n_iter=n_iter, log_value=objective.log_value,
                              has_value=objective.has_value, fixed_value=bool(getattr(objective, "fixed_value", True)),
                              tol=float(setup.params.tol), callback=callback)
        records = result.records
        if stop_early and best["iteration"] < len(records):
            records = records[: best["iteration"]]
        reached = stop_as is not None and len(result.records) >= n_iter
        progress.finish(len(records), stop_as if reached else self._stop_reason(result), len(result.records))
        return result, records, [] if watched is None else watched.curve, best

    @staticmethod
    def _stop_reason(result) -> str:
        return "converged" if result.stop_reason == "no_decrease" else result.stop_reason

    def _set_fitted(self, setup, classes, result, records, history, best, *, monitor: bool,
                    validation: Validation | None = None, from_init: bool | str | None = False):
        """The fitted attributes from a run of :meth:`_boost` (``validation``: its sets, recorded when they are the
        user's ``eval_set``)."""
        objective, learner = setup.objective, setup.learner
        self.objective_spec_ = objective.spec
        self.learner_spec_ = learner.spec
        self.task_ = setup.task
        if classes is not None:
            self.classes_ = classes
        self.rankers_ = [r.ranker for r in records]
        self.alphas_ = np.array([r.alpha for r in records], dtype=np.float64)
        self.objective_values_ = np.array([result.initial_value] + [r.value for r in records], dtype=np.float64)
        self.n_iter_ = len(records)
        self.stop_reason_ = self._stop_reason(result)
        if from_init:
            self.from_init_score_ = True
        if not records and result.records:     # early stopping on eval_set cut every iteration
            warn_nothing_kept(type(self).__name__, f"early stopping kept 0 of {len(result.records)} iterations: none "
                              "improved the eval_set score", from_init)
        if monitor:
            self.validation_scores_ = np.array(history[: len(records)], dtype=np.float64)
            self.best_iteration_ = int(best["iteration"])
            self.validation_metric_ = setup.validation.name
        if validation is not None and validation.from_eval_set:
            self.evals_result_ = validation.curves(setup.validation.name, len(records))
            self.evals_start_ = validation.starts(setup.validation.name)
        self._learner = learner

    def _set_position_effects(self, positions, backend) -> None:
        """``position_ids_`` and ``position_effects_`` of a fit given ``position`` (b as its last kept tree was grown
        with)."""
        if positions is not None:
            self.position_ids_ = positions.ids
            self.position_effects_ = backend.problem.effects_after(self.n_iter_)

    def _check_eval_sets(self, evals: EvalSets, setup, classes, *, within_queries: bool,
                         train_init: np.ndarray | None = None, init_model: InitModel | None = None,
                         train_weight: np.ndarray | None = None) -> Validation:
        """The checked validation sets of ``eval_set`` (as :func:`read_eval_sets` read it); errors name the set.

        ``train_init``: the training rows' ``init_score`` (in their given order), the initial scores of a set that is
        the training data itself and has none of its own.  Initial scores on one side only are warned about: a set
        scored without them is scored on another scale than the rows are fitted on.  ``init_model``: the model the
        fit continues; every set starts from its scores too.  ``train_weight``: the training rows' checked
        ``sample_weight`` (in their given order), the weights of a set that is the training data itself, so that
        ``scoring="objective"`` reads there the objective the fit minimizes (as LightGBM weighs its training set).
        """
        inits = evals.init_scores or (None,) * len(evals.sets)
        if train_init is not None:
            inits = tuple(train_init if init is None and i in evals.training else init for i, init in enumerate(inits))
        sets = []
        for i, given in enumerate(evals.sets):
            label = evals.label(i)
            if within_queries:
                X_val, y_val, q_val = self._check_query_eval_set(given, setup, label)
            else:
                X_val, y_val = self._check_eval_set(given, setup.objective, classes, setup.learner, label)
                q_val = None
            init = check_init_score(inits[i], X_val.shape[0],
                                    name="eval_init_score" if len(evals.sets) == 1 else f"eval_init_score[{i}]")
            init = init if init_model is None else init_model.eval_start(X_val, init, setup.n_threads)
            w_val = train_weight if i in evals.training else None
            sets.append(ValidationSet(X_val, y_val, w_val, q_val, name=evals.names[i], label=label, init=init))
        warn_one_sided_init(train_init is not None, inits, continued=init_model is not None)   # every set checked
        return Validation.of_eval_sets(tuple(sets), evals, setup.validation)

    def _training_curve(self) -> TrainingCurve:
        values = np.asarray(self.objective_values_, dtype=np.float64)
        validation = None
        if hasattr(self, "validation_scores_"):
            validation = np.full(values.shape[0], np.nan)
            validation[1:] = self.validation_scores_
        metric = None
        if validation is not None:
            metric = getattr(self, "validation_metric_", None) or self._scoring_metric(self.task_).spec
        first = getattr(self, "init_iterations_", 0)       # a continuation's curve starts at its init model's end
        return TrainingCurve(first + np.arange(values.shape[0]), values, validation,
                             "objective J (log R)" if _log_objective(self) else "objective J", metric, "iteration")

    # ------------------------------------------------------------------
    # Persistence (rankcore.persistence: JSON, no pickle)
    # ------------------------------------------------------------------
    def _check_loaded_params(self, state: dict) -> BoostSetup:
        return self._setup_record()

    def _restore_fitted_state(self, state: dict, setup: BoostSetup) -> None:
        restore_push_state(self, state, setup)


def _selection_line(plan, best_n: int, n_iter: int, metric: str) -> str:
    """What ``verbose`` says of ``early_stopping=True`` without ``eval_set`` before the refit's table."""
    how = (f"a hold-out of {plan.folds[0][1].shape[0]} rows" if plan.kind == "holdout"
           else f"{len(plan.folds)}-fold cross-validation")
    return f"early stopping chose {best_n} of {n_iter} iterations ({how}, {metric}); the refit on every row:"


def _score_columns(sets: tuple, metric: str) -> list[str]:
    """The verbose table's score columns: ``val <metric>`` for one set (a hold-out, or one ``eval_set``), else a
    column per set named by its name (``eval_names``), as LightGBM logs every set."""
    if len(sets) == 1:
        return [f"val {metric}"]
    return [f"{one.name} {metric}" for one in sets]


def _log_objective(estimator) -> bool:
    """Whether the working objective J is the log of the objective (the push objective's J = log R)."""
    return bool(declared_attribute("objective", estimator.objective_spec_, "log_value", False))


def _takes_row_index(learner, X) -> bool:
    """The learner reads dense float rows by index (``takes_row_index``): X need not be copied for a part of it."""
    return (getattr(learner, "takes_row_index", False) and isinstance(X, np.ndarray) and X.ndim == 2
            and X.dtype in (np.float32, np.float64))
