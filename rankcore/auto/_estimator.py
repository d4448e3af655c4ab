"""AutoRanker: the best top of the list for the data at hand, chosen by honest cross-validation.

``fit`` validates everything first (parameters, data, the metric on every
validation part), then runs successive halving over candidates x folds
(:mod:`._search`), chooses a candidate -- or the rank-average blend of the
leaders -- with the variance-aware, nested rule of :mod:`._selection`,
refits the choice on every row (on a K-fold plan averaged with its fold
models: :mod:`._bag`) and records the leaderboard.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .._blas import blas_limit
from .._peer_names import names_peer_predict_arguments, names_peer_score_arguments
from .._categories import encode_categories, warn_unused_categories
from .._setup import EstimatorSetup
from .._state_fields import refuse_labels_coded_otherwise
from ..base import (Ranker, declared_attribute, fits_on_a_copy, reads_a_snapshot, ignore_score_weights,
                    require_score_queries)
from ..metrics import Queries, check_queries
from ..push import check_init_score, names_peer_fit_arguments, row_weights, say
from .._frames import validate_columns
from ..validation import (ArgumentRefusal, check_bipartite_target, check_matrix, check_same_length, dense_bytes,
                          dense_size, effective_n_threads, fit_seed, reject_1d, shown_type)
from ._bag import FoldBag, standardization
from ._candidate import (NO_SAMPLE_WEIGHT, NO_SPARSE, Candidate, build_estimator, candidate_scores, checked_rows,
                         fit_estimator, nan_rows, registered_candidates, warnings_named_by)
from ._queries import QUERY_METRIC, PerQueryMean, QueryData, canonical_order, check_grades, query_labels
from ._params import AUTO_FITTED, AUTO_PARAMETERS
from ._progress import SearchEvent, SearchProgress, check_callbacks
from ._report import blend_name, build_leaderboard
from ._search import SuccessiveHalving, default_rungs
from ._selection import fixed_blend, select, warn_default_not_evaluated
from ._small_data import SMALL_DATA_ROWS, small_data_candidates, uses_small_data_blend
from ._explain import AutoExplanations
from ._export import TreeExport
from ._fit_data import FitData, one_list_data, query_data, refuse_metric
from ._fit_inputs import refuse_eval_metrics, refuse_init_model
from ._fit_results import INIT_SCORE_CHOICE, kept_models, publish_eval_results
from ._saved import encode_fitted
from ._state import restore_state
from ._tasks import REFIT_FOLD, fold_seed, is_sparse, make_context

__all__ = ["AutoRanker", "DEFAULT_METRIC"]

#: The metric of ``metric=None`` on one list (within queries: :data:`QUERY_METRIC`, ``ndcg@k:10`` per query).
DEFAULT_METRIC = "pauc:0.1"

#: The most levels a category column keeps at fit: the trees candidates' ``max_bins``, within which they split it by
#: groups of categories (a column of more keeps its most frequent, the others read as missing values).
CATEGORY_LIMIT = 255


def _held_out_scale(scores: np.ndarray, model) -> np.ndarray:
    """A fold's out-of-fold scores on the scale ``model`` scores on: standardized by themselves for a fold bag."""
    if isinstance(model, FoldBag):
        center, scale = standardization(scores)
        return (scores - center) / scale
    return scores


@dataclass(frozen=True)
class AutoSetup(EstimatorSetup):
    """AutoRanker's configuration, checked and resolved once: what ``fit`` and loading a file use.

    Attributes
    ----------
    metric : Metric
        The resolved metric the search chooses by on one list.
    query_metric : Metric
        The resolved metric within queries (``fit(..., qid=...)``): the
        ``metric`` named, or :data:`QUERY_METRIC` for None.
    candidates : tuple of Candidate or None
        The candidates asked for, resolved (the anchor first); None:
        ``candidates="auto"``, the registered defaults for the data's size.
    budget : float or None
        ``time_budget``.
    n_threads : int
        ``n_jobs`` as a thread count.
    """

    metric: Any
    query_metric: Any
    candidates: tuple[Candidate, ...] | None
    budget: float | None
    n_threads: int


def check_params(estimator: "AutoRanker") -> AutoSetup:
    """Check every parameter of ``estimator`` and resolve what needs the registry: its :class:`AutoSetup`.

    The declared checks (:data:`~rankcore.auto._params.AUTO_PARAMETERS`) run
    first; then the metric and the candidates are resolved.
    """
    from ..base import resolve_parameter

    checked = estimator._check_params()
    metric = resolve_parameter("metric", "metric", DEFAULT_METRIC if checked.metric is None else checked.metric)
    if getattr(metric, "family", None) != "metric":
        raise TypeError(f"metric: expected a metric spec string such as 'pauc:0.1' or a rankcore Metric, "
                        f"got {type(checked.metric).__name__}")
    if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
        refuse_metric(metric)
    query_metric = metric if checked.metric is not None else resolve_parameter("metric", "metric", QUERY_METRIC)
    return AutoSetup(checked, metric, query_metric, _check_candidates(checked.candidates), checked.time_budget,
                     effective_n_threads(checked.n_jobs))


def _check_candidates(candidates) -> tuple[Candidate, ...] | None:
    from ..registry import resolve
    from ..validation import said_again

    if isinstance(candidates, str):
        if candidates == "auto":
            return None
        candidates = [candidates]
    if not isinstance(candidates, (list, tuple)) or not candidates:
        raise ValueError(f"candidates: expected 'auto' or a non-empty list of candidate specs, got {candidates!r}")
    resolved: dict[str, Candidate] = {}
    for item in candidates:
        if not isinstance(item, str):
            raise TypeError(f"candidates: expected candidate spec strings such as 'trees' or 'kernel:rbf', "
                            f"got {type(item).__name__}")
        try:
            candidate = resolve("candidate", item)
        except ValueError as exc:
            # named as the other refusals of the list are: the option, then the candidate (a refusal, such as a
            # trees candidate's monotone value, keeps its class and fields; a SpecError stays one)
            raise said_again(exc, f"candidates: {item!r}: {exc}") from None
        if candidate.spec in resolved:
            raise ValueError(f"candidates: {candidate.spec!r} is listed twice")
        resolved[candidate.spec] = candidate
    return tuple(resolved.values())


def _with_column_names(candidates, feature_names):
    """The candidates with the columns of X they give by name (``trees:interactions=age+income``) resolved to
    indices, each shown by its spec as given: the search fits its folds as arrays (None: the default search)."""
    if candidates is None:
        return None
    return tuple(candidate.with_column_names(feature_names) for candidate in candidates)


def default_candidates() -> list[Candidate]:
    """The candidates of ``candidates="auto"``: every registered class's ``default_specs``, by priority, resolved."""
    return registered_candidates(lambda cls: cls.default_search_specs())


def default_specs() -> list[str]:
    """The specs of ``candidates="auto"`` (:func:`default_candidates`)."""
    return [candidate.spec for candidate in default_candidates()]


def _first_pass_predictions(n_rows: int, specs, plan, outcome) -> dict[str, np.ndarray]:
    """candidate spec -> its out-of-fold score of each row over the plan's first pass of folds (NaN elsewhere)."""
    first = range(min(plan.n_splits if plan.kind == "kfold" else 1, plan.n_folds))
    out = {}
    for c, by_fold in outcome.predictions.items():
        if c in outcome.errors or not all(f in by_fold for f in first):
            continue
        scores = np.full(n_rows, np.nan)
        for f in first:
            scores[plan.folds[f][1]] = by_fold[f]
        out[specs[c]] = scores
    return out


def sparse_readers() -> list[str]:
    """The names of the registered candidate classes that read sparse X as it is (``accepts_sparse``)."""
    from ..registry import registry

    return [entry.name for entry in registry().in_order("candidate") if entry.cls.accepts_sparse]


def sparse_candidates_refusal(details: str, shape) -> ArgumentRefusal:
    """The refusal of ``candidates`` when none of them reads sparse X (``details``: each one's skip reason)."""
    readers = ", ".join(repr(name) for name in sparse_readers())
    detail = (f"none applies to these data ({details}); X is sparse: list candidates that read sparse input as it "
              f"is ({readers}), or pass a dense X (X.toarray(), {dense_size(shape)})")
    return ArgumentRefusal.said("candidates", detail)


def dense_rows(X, chosen: str) -> np.ndarray:
    """Sparse rows to score by a model that reads dense rows only (fitted on dense X): their dense copy, within
    :data:`~rankcore.validation.DENSE_BYTES_LIMIT` (as a DataFrame of Sparse columns is made dense), else refused."""
    from ..validation import DENSE_BYTES_LIMIT

    if dense_bytes(X.shape) <= DENSE_BYTES_LIMIT:
        return X.toarray()
    raise TypeError(f"X: the chosen model {chosen!r} reads dense rows only (it was fitted on a dense X) and the "
                    f"dense copy of these sparse rows would take {dense_size(X.shape)}; score them in batches of "
                    f"rows, or fit on sparse X (the candidates that read it: "
                    f"{', '.join(repr(name) for name in sparse_readers())})")


def _base_seed(random_state) -> int:
    """The seed every fit of the search derives its own from; None: a draw from NumPy's global RandomState."""
    return int(fit_seed(random_state))


class AutoRanker(TreeExport, AutoExplanations, Ranker):
    """Cross-validates rankcore's learners on your top-of-list metric and keeps the best (or their blend).

    Candidates from every family -- gradient-boosted trees (and on every
    row), a linear ranker, kernel ranking on small data, ExactBoost on the
    metric itself on small narrow tables, push stumps and LightGBM/XGBoost on
    request, and any candidate a plugin registers -- are scored on the same
    folds; successive halving drops the weak ones
    early; the default trees are kept unless another candidate beats them by
    more than the noise of the folds; a rank-average blend of the two leaders
    wins only if a nested estimate says it does.  On small data (at most
    ``SMALL_DATA_ROWS`` = 120 rows) the default search chooses nothing: it
    fits the small-data candidates (the linear ranker, kernel ranking and
    ExactBoost) and keeps their rank-average blend, since folds of a few
    dozen rows cannot tell the candidates apart.  The choice is refitted on
    every row and, on a K-fold plan, averaged with the models the search
    fitted on the folds (``bag_folds``).  With ``fit(X, y, qid=qid)`` it
    ranks within queries: folds of whole queries, the metric per query
    (``ndcg@k:10`` by default), the candidates that rank within queries.
    ``fit(X, y, sample_weight=w)`` trains every fit with its rows' weights
    (candidates that take none are skipped) and chooses unweighted.  A
    chosen refit or fold bag of trees is written as one LightGBM model or
    XGBoost JSON dump (:meth:`to_lightgbm`, :meth:`to_xgboost_json`).
    See ``docs/auto.md``.

    Attributes
    ----------
    best_estimator_ : estimator
        The chosen candidate refitted on every row -- on a K-fold plan a
        :class:`~rankcore.auto.FoldBag` of that refit and the candidate's fold
        models (``bag_folds``) -- or a :class:`~rankcore.auto.RankAverage` of
        the blend's members (each bagged the same way).
    best_candidate_ : str
        Its spec (``"blend(trees+kernel)"`` for a blend).
    best_score_ : float
        Its mean validation score (for a blend: the nested estimate).
    leaderboard_ : Leaderboard
        Every candidate: status, mean ± sd, fold scores, times, notes
        (``leaderboard_.to_frame()`` with pandas).
    cv_results_ : dict
        The same in scikit-learn's ``cv_results_`` layout.
    best_index_ : int
        Row of the choice in ``cv_results_``.
    cv_description_ : str
        The folds used, in words.
    cv_predictions_ : dict of str to ndarray
        Candidate spec -> out-of-fold score of every row over the first pass of
        folds (each row scored by a model that did not see it; NaN for rows a
        hold-out did not validate), for the candidates evaluated on that whole
        pass.  Not saved in model files.
    metric_ : str
        The spec of the metric the search chose by (resolved: ``"pauc:0.1"``).
    selection_reason_ : str
    search_time_, refit_time_ : float
        Seconds of the search and of the final refit.  NaN after a load, as
        the leaderboard's ``fit_time`` and ``score_time``: model files hold no
        durations, so the same fit writes the same file.
    search_stop_reason_ : str
        What ended the search: ``"completed"`` (every task it planned ran,
        but those successive halving dropped) or ``"time_budget"`` (the
        ``time_budget`` ran out first; the leaderboard says which candidates
        got fewer folds or none).  Not saved in model files.
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the relevant class ranked on top.
        Absent after a fit within queries (y holds grades).
    n_queries_, n_queries_without_pairs_ : int
        After a fit within queries only: the queries, and those whose rows
        share one grade (a single row, or ties: nothing to order there).
    ranks_within_queries_ : bool
        Whether the model was chosen within queries.
    from_init_score_ : bool
        Set (True) only after ``fit(..., init_score=s)``: the model is a
        correction to scores it does not hold (rank by ``s`` plus
        :meth:`decision_function`).
    evals_result_ : dict
        After ``fit(..., eval_set=...)`` only: set name -> metric spec ->
        candidate spec -> value on the whole set.  Saved in model files.
    categories_ : list of (ndarray or None)
        Fitted on a pandas DataFrame with ``category`` columns: per column,
        the categories of a category column (None for the others).  Every
        candidate sees such a column as its values' positions among these
        categories (0, 1, ...; missing: NaN), and a frame scored later is
        encoded the same way by value: a category not listed scores as a
        missing value.
    n_features_in_, feature_names_in_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import rankcore
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> auto = rankcore.AutoRanker(candidates=["trees", "linear"], random_state=0).fit(X, 1 - y)
    >>> auto.best_candidate_ in ("trees", "linear", "blend(trees+linear)")
    True
    """

    name = "AutoRanker"
    aliases = ("auto",)
    summary = "cross-validated choice among rankcore's learners on a top-of-list metric (docs/auto.md)"
    #: ``rankcore auto`` is its command (``rankcore fit --model`` fits one configured learner).
    command_line = False
    command_line_instead = "use `rankcore auto` (it cross-validates the candidates and saves the chosen model)"
    examples = ("AutoRanker:candidates=linear,blend=False,random_state=0",)
    parameters = AUTO_PARAMETERS
    fitted = AUTO_FITTED
    #: scipy.sparse X is searched as it is by the candidates that read it (``Candidate.accepts_sparse``)
    accepts_sparse = True

    # scikit-learn's metadata routing: fit and score take each row's query when a meta-estimator has it; fit's
    # sample_weight is asked for as in scikit-learn's own estimators, by set_fit_request(sample_weight=True) (score's
    # stays unset: declined, a Pipeline's score under routing would fail on the None it passes)
    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    # ------------------------------------------------------------------
    # fit
    # ------------------------------------------------------------------
    # init_model stays in the signature (scikit-learn's routing reads it) and is refused: no hint names it
    @names_peer_fit_arguments(constructor=None, auto=True, refuses=("init_model",))
    @fits_on_a_copy
    def fit(self, X, y, sample_weight=None, *, qid=None, group=None, position=None, init_score=None, eval_set=None,
            eval_names=None, eval_metric=None, eval_init_score=None, callbacks=None, init_model=None):
        """Search the candidates on ``(X, y)``, choose, and refit the choice on every row.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            NaN is accepted when a candidate accepts it (the trees do);
            candidates that do not are then skipped.  A sparse matrix (or a
            DataFrame of ``Sparse`` columns) stays sparse, as CSR: the
            candidates that read it (``Candidate.accepts_sparse``: the trees,
            ``linear``, ``lightgbm``) get it as it is, the others are
            skipped (see ``docs/auto_fit_inputs.md``).
        y : array-like of shape (n_samples,)
            Two labels; the greater one is the relevant class ranked on top.
            With ``qid``: relevance grades, any finite numbers >= 0.
        sample_weight : array-like of shape (n_samples,), optional
            Finite weights >= 0, not all zero, one per row.  Training only:
            every fit (folds, refit, blend members, fold bag) gets its rows'
            weights; the selection counts every validation row once.
            Candidates taking no ``sample_weight`` are skipped, and the
            small-data blend (whose members take none) gives way to a search.
        qid : array-like of shape (n_samples,), optional
            One query id per row (any hashable type; rows need not be sorted
            or contiguous): rank within each query.  Folds and scoring parts
            are sets of whole queries, the metric is taken per query and
            averaged (``ndcg@k:10`` for ``metric=None``), and only the
            candidates that rank within queries are fitted (the others are
            listed as skipped).  A query with one row or one grade is
            counted (``n_queries_without_pairs_``), never an error.
        group : array-like of int, optional
            LightGBM's form of ``qid``: the sizes of consecutive queries.
        position : array-like of int, optional
            With ``qid``: each row's display position, for labels that are
            clicks; every fit gets its rows' (``PushBoost.fit``'s
            ``position``); candidates taking none are skipped.
        init_score : array-like of shape (n_samples,), optional
            Finite scores the rows start from (LightGBM's ``init_score``):
            every fit learns a correction to them, candidates are chosen by
            the initial plus the model's scores, no blend or fold bag is
            made, and ``decision_function`` is the correction alone (add the
            rows' own initial scores).  Candidates taking none are skipped.
        eval_set, eval_names, eval_metric, eval_init_score : optional
            As ``PushBoost.fit``'s: ``(X_val, y_val)`` (within queries
            ``(X_val, y_val, qid_val)``) or a list of them.  The candidates
            are then fitted once on every row of X and chosen on the last
            set that is not X itself, instead of by cross-validation; the
            models so validated are kept (no refit).  ``evals_result_``
            holds every candidate's ``metric`` and ``eval_metric``
            values on every set.  See ``docs/auto_fit_inputs.md``, *Your own
            validation data*.
        callbacks : callable or list of callables, optional
            Each is called with a :class:`~rankcore.auto.SearchEvent` after
            every task (candidate x fold).
        init_model : None
            Refused with a ValueError saying why (AutoRanker continues no model).

        Returns
        -------
        self
        """
        started = time.perf_counter()
        if y is None:
            raise ValueError("AutoRanker requires y to be passed, but the target y is None")
        refuse_init_model(init_model)
        setup = self._setup_record()
        listeners = check_callbacks(callbacks)
        seed = _base_seed(self.random_state)
        given = dict(eval_set=eval_set, eval_names=eval_names, eval_metric=eval_metric,
                     eval_init_score=eval_init_score, init_score=init_score, position=position)
        if qid is None and group is None:
            data = one_list_data(self, X, y, sample_weight, setup, seed, **given)
        else:
            data = query_data(self, X, y, qid, group, sample_weight, setup, seed, **given)
        self._search_and_choose(data, setup, seed, listeners, started)
        return self

    def _search_and_choose(self, data: FitData, setup: AutoSetup, seed: int, listeners, started: float) -> None:
        """Run the search on ``data``'s plan, choose, refit (or keep an eval_set's models) and publish."""
        rows, metric, plan, found, evals = data.rows, data.metric, data.plan, data.found, data.evals
        n_threads, n = setup.n_threads, rows.n_train
        X_arr, y_fit, codes, weights, extras = rows.X[:n], rows.y[:n], rows.codes, rows.weights, rows.extras
        codes = None if codes is None else codes[:n]
        self.metric_ = metric.spec
        if evals is not None:
            refuse_eval_metrics(evals, metric, codes is not None)
        # the small-data blend's members take no weights, no initial scores; an eval_set replaces its folds
        small = (codes is None and weights is None and not extras.given() and evals is None
                 and uses_small_data_blend(n, setup.candidates, self.blend))
        applicable, skipped = self._applicable(setup.candidates, X_arr, y_fit, n_threads, metric, small,
                                               qid=codes, weighted=weights is not None, extras=extras,
                                               fold_rows=n if evals is not None else None)
        specs = [candidate.spec for candidate in applicable]
        progress = SearchProgress(metric.spec) if self.verbose else None
        if progress is not None and found is not None:
            # on stdout with the display, as every estimator's verbose line (a closed pipe drops it)
            say(f"ranking within {found.describe()}: folds of whole queries, each scored per query "
                f"(blend and fold bag as on one list)")
        # the metric itself, not its spec: an unregistered Metric object's spec does not resolve
        executor = self.make_executor(rows.X, rows.y, plan, metric, seed, n_threads, **rows.executor_inputs())
        search = SuccessiveHalving(
            specs, [candidate.relative_cost for candidate in applicable], plan, rows.labels, data.units,
            data.unit_metric, executor, setup.budget, n,
            on_event=self._event_forwarder(specs, plan, listeners, progress), clock=time.perf_counter,
            keep_models=bool(self.bag_folds), task_specs=[candidate.task_spec for candidate in applicable])
        search.start = started
        # every candidate's BLAS calls within AutoRanker's threads (plugins' candidates too)
        with blas_limit(n_threads):
            rungs = default_rungs(plan, setup.budget is not None)
            if small and plan.kind == "kfold":
                # no halving and only the fixed repeats: every member of the fixed blend gets the same folds
                rungs = [plan.n_splits * plan.fixed_repeats]
            outcome = search.run_search(rungs)
            self._choose_and_refit(X_arr, y_fit, applicable, skipped, plan, data.units, search, outcome,
                                   data.unit_metric, seed, n_threads, small, labels=rows.labels, qid=codes,
                                   sample_weight=weights, extras=extras, n_rows=rows.X.shape[0])
        if extras.init_score is not None:
            self.from_init_score_ = True
        if evals is not None:
            publish_eval_results(self, evals, applicable, outcome, metric, n, within=codes is not None,
                                 default=self.metric is None and codes is not None)
        outcome.models.clear()
        if found is not None:
            self._publish_queries(found, evals is None)
        self.search_time_ = outcome.elapsed
        self.search_stop_reason_ = outcome.stop_reason
        if progress is not None:
            progress.close(f"chose {self.best_candidate_} ({metric.spec} {self.best_score_:.4f})")

    def _check_data(self, X, y, sample_weight=None):
        """(X, 0/1 labels, the weights or None) of a fit on one list."""
        X_arr = self._check_X(X, sample_weight)
        y01, classes = check_bipartite_target(y)
        check_same_length(X=X_arr, y=y01)
        self.classes_ = classes
        return X_arr, y01, row_weights(sample_weight, X_arr.shape[0], None)

    def _check_X(self, X, sample_weight=None) -> np.ndarray:
        reject_1d(X)
        validate_data(self, X, reset=True, skip_check_array=True)
        # a DataFrame's category columns: every candidate sees a value's position among the categories; a column of
        # more levels than the trees split by groups keeps its most frequent (by weight), as the push's fit does --
        # the trees would otherwise split its positions as numbers
        X_frame = X
        X, categories = encode_categories(X, None, max_categories=CATEGORY_LIMIT, sample_weight=sample_weight)
        if categories is not None and any(c is not None for c in categories):
            self.categories_ = categories
            warn_unused_categories(X_frame, categories)        # as the push's fit: they do not score as missing
        # scipy.sparse X (and a DataFrame of Sparse columns) stays sparse, as CSR: candidates that read it get it as
        # it is, the others are skipped (``_applicable``)
        return check_matrix(X, name="X", dtype=np.float64, allow_nan=True, accept_sparse=True)

    def _check_query_data(self, X, y, qid, group, sample_weight=None) -> tuple:
        """(X, grades, the weights or None, the queries) of a fit within queries, the rows in the canonical order
        (:mod:`._queries`): the weights follow their rows."""
        X_arr = self._check_X(X, sample_weight)
        n = X_arr.shape[0]
        queries = check_queries(qid, group, n)
        grades = check_grades(y, n)
        order = canonical_order(X_arr, grades, queries.codes)
        in_order = Queries(queries.labels, queries.codes[order], queries.sizes)
        grades = grades[order]
        starts = in_order.starts                  # each query's rows are contiguous now
        single = int(np.count_nonzero(np.minimum.reduceat(grades, starts) == np.maximum.reduceat(grades, starts)))
        weights = row_weights(sample_weight, n, queries)
        return X_arr[order], grades, None if weights is None else weights[order], QueryData(in_order, order, single)

    def _publish_queries(self, found: QueryData, reorder: bool = True) -> None:
        """The fitted state of a fit within queries: the counts, and the out-of-fold scores in the input's order
        (``reorder`` False: they are an eval_set's, in its order already)."""
        self.n_queries_ = found.n_queries
        self.n_queries_without_pairs_ = found.n_without_pairs
        # the counts are X's: after an eval_set's own rows they are said to be the fit's, not the set's
        counts = f" ({found.describe()})" if reorder else f", fitted on {found.describe()}"
        self.cv_description_ = f"{self.cv_description_}{counts}"
        self.leaderboard_.description = self.cv_description_
        if not reorder:
            return
        back = np.empty_like(found.order)
        back[found.order] = np.arange(found.order.shape[0])
        self.cv_predictions_ = {spec: scores[back] for spec, scores in self.cv_predictions_.items()}

    def _setup(self) -> AutoSetup:
        return check_params(self)

    def _applicable(self, requested, X, y, n_threads, metric_spec, small=False, qid=None, weighted=False,
                    extras=None, fold_rows=None):
        """The candidates that apply to the data (the anchor first), and why the others were skipped (by spec).

        ``requested``: the resolved candidates asked for, or None for the
        default ones.  ``small``: the default search on small data, which fits
        only the small-data blend's members (the other default candidates are
        listed as skipped, with that reason).  ``qid``: each row's query code
        (a fit within queries: candidates that rank one list are skipped).
        ``weighted``: the fit has ``sample_weight`` (candidates that take
        none are skipped).  ``extras``: the fit's initial scores and positions
        (candidates that take none are skipped).  ``fold_rows``: the rows a
        fit trains on (default: 80% of X, a fold's training part).  A
        candidate naming columns of X takes their indices here, before any fit
        (a name that is not a column: refused).
        """
        requested = _with_column_names(requested, getattr(self, "feature_names_in_", None))
        candidates = list(requested) if requested is not None else default_candidates()
        skipped: dict[str, str] = {}
        if small:
            members = small_data_candidates()
            names = [m.spec for m in members]
            # the note names the members that apply, once known (sparse X or weights skip some): set below
            skipped = {c.spec: "" for c in candidates if c.spec not in names}
            candidates = members
        context = make_context(metric_spec, X, y, 0, n_threads, categorical=self.categorical_columns(), qid=qid,
                               weighted=weighted, init_score=extras is not None and extras.init_score is not None,
                               position=extras is not None and extras.position is not None)
        # a fold's training part
        context = replace(context, n_rows=int(round(X.shape[0] * 0.8)) if fold_rows is None else fold_rows)
        applicable, fitted_as = [], {}
        for candidate in candidates:
            spec = candidate.spec
            reason = candidate.skip_reason(context)
            identity = None if reason is not None else candidate.fit_identity(context)
            if identity is not None and identity in fitted_as:
                reason = f"fits the same model as {fitted_as[identity]!r} on these data"
            elif identity is not None:
                fitted_as[identity] = spec
            if reason is None:
                applicable.append(candidate)
            else:
                skipped[spec] = reason
        if small:
            kept = ", ".join(c.spec for c in applicable) or "none"
            skipped.update({spec: f"small data (at most {SMALL_DATA_ROWS} rows): the default search keeps the "
                                  f"blend of {kept}" for spec, note in skipped.items() if not note})
        if not applicable:
            details = "; ".join(f"{s}: {r}" for s, r in skipped.items())
            advice = ""
            if any(reason.startswith(NO_SAMPLE_WEIGHT) for reason in skipped.values()):
                takers = "'trees', 'stumps', 'lightgbm'" + ("" if qid is not None else ", 'xgboost'")
                advice = ("; sample_weight is the reason for some: fit without it, or list candidates that take it "
                          f"({takers})")
            if NO_SPARSE in skipped.values():
                raise sparse_candidates_refusal(details, X.shape)
            raise ValueError(f"candidates: none applies to these data ({details}){advice}")
        return applicable, skipped

    def make_executor(self, X, y, plan, metric_spec, seed, n_threads, qid=None, sample_weight=None, init_score=None,
                      position=None):
        """Where the search's tasks run: a callable ``run(tasks, may_start, on_result)``.

        In this process, one task after the other on ``n_threads`` threads
        (:class:`~rankcore.auto.LocalExecutor`); :class:`rankcore.dask.DaskAutoRanker`
        overrides it.  ``plan.folds[f]`` is fold ``f``'s (training, validation)
        row indices; a task is run by :func:`~rankcore.auto.run_task` with
        ``metric_spec`` (the resolved Metric the search selects on: a task
        passes it on as is, since an unregistered metric's spec would not
        resolve) and the base ``seed``, so results never depend on where.
        ``qid`` (a fit within queries only): each row's query code;
        ``sample_weight`` (a weighted fit only): each row's weight, which
        ``run_task`` takes; ``init_score``, ``position``: each row's initial
        score, display position (fits given them). An override is passed
        each only when it is set.
        """
        from ._executors import LocalExecutor

        return LocalExecutor(X, y, plan, metric_spec, seed, n_threads, self.categorical_columns(), qid,
                             sample_weight, init_score, position)

    def categorical_columns(self) -> tuple[tuple[int, int], ...]:
        """(column, number of categories) of the fit's category columns (see ``categories_``)."""
        categories = getattr(self, "categories_", None) or ()
        return tuple((j, len(c)) for j, c in enumerate(categories) if c is not None)

    @staticmethod
    def _event_forwarder(specs, plan, listeners, progress):
        if not listeners and progress is None:
            return None
        sinks = list(listeners) + ([progress] if progress is not None else [])
        done = [0]

        def forward(result, search):
            done[0] += 1
            scored = [c for c in range(len(specs)) if search.outcome.scores.get(c)]
            best = search._ranked(scored)[0] if scored else None
            value = search.outcome.scores.get(result.candidate, {}).get(result.fold)
            event = SearchEvent(
                candidate=specs[result.candidate], fold=result.fold + 1, n_splits=plan.n_splits, done=done[0],
                planned=search.planned_tasks, score=value, error=result.error,
                best=None if best is None else specs[best],
                best_score=math.nan if best is None else search.mean_score(best), elapsed=search.elapsed())
            for sink in sinks:
                sink(event)

        return forward

    # ------------------------------------------------------------------
    # Choosing and refitting
    # ------------------------------------------------------------------
    def _choose_and_refit(self, X, y, candidates, skipped, plan, units, search, outcome, metric, seed, n_threads,
                          small=False, *, labels=None, qid=None, sample_weight=None, extras=None, n_rows=None):
        """Choose from the search's outcome, refit, and set the fitted attributes.

        ``labels``: the rows' labels as the units are scored on (default
        ``y``; within queries, grades with their query codes); ``qid``: each
        row's query code for the refit (None: one list); ``sample_weight``:
        each row's weight for the refit (None: unweighted); ``extras``: each
        row's initial score and position for the refit; ``n_rows``: the rows
        searched (X's, then an eval_set's).
        """
        from ._folds import Units

        specs = [candidate.spec for candidate in candidates]
        # the folds' fits (on arrays) named X's columns by index
        outcome.warnings = {c: candidates[c].named_warning(text) for c, text in outcome.warnings.items()}
        alive = outcome.survivors
        if not alive:
            refusal = outcome.refusal_of_every_candidate(specs)      # one refusal of every fit: raised as it is
            if refusal is not None:
                raise refusal from None
            why = outcome.why_none_scored(specs, search.budget)
            raise ValueError(f"AutoRanker: no candidate could be evaluated ({why})")
        used = [u for u in range(len(units)) if units.fold[u] < outcome.n_folds_final]
        sub = Units([units.rows[u] for u in used], [units.fold[u] for u in used],
                    [units.within[u] for u in used], [units.group[u] for u in used], units.variance_inflation)
        scores = outcome.units_scores(alive, used)
        predictions = {c: [outcome.predictions[c][units.fold[u]][units.within[u]] for u in used] for c in alive}
        labels = [(y if labels is None else labels)[units.rows[u]] for u in used]
        sign = 1.0 if metric.greater_is_better else -1.0
        if small:
            selection = fixed_blend(scores, predictions, labels, tuple(alive), sign, metric,
                                    f"small data (at most {SMALL_DATA_ROWS} rows): the rank average of the "
                                    f"small-data candidates, fixed before any fit")
        else:
            # from initial scores a model's scores add to them: a blend's quantiles or a bag's standardized
            # scores would not
            from_init = extras is not None and extras.init_score is not None
            selection = select(scores, predictions, labels, sub, 0, sign, metric,
                               blend=bool(self.blend) and not from_init)
            if from_init:
                selection.reason += INIT_SCORE_CHOICE
        selection.units_used = used
        refit_start = time.perf_counter()
        kept = kept_models(plan, selection.chosen, outcome)      # an eval_set's: the models validated there
        chosen, fitted, failures = kept if kept is not None else \
            self._refit(X, y, plan, selection, alive, scores, sign, candidates, metric, seed, n_threads, qid,
                        sample_weight, extras)
        n_splits = plan.n_splits if extras is None or extras.init_score is None else 1
        fitted = [self._fold_bag(candidates[c], refit, outcome.predictions[c], outcome.models.get(c, {}), n_splits)
                  for c, refit in zip(chosen, fitted)]
        if plan.given is None:
            outcome.models.clear()                 # the bag holds what it needs; the other fold models go
        if len(chosen) > 1:
            # a member's quantiles are taken among its out-of-fold scores, on the scale its model scores on
            references = [np.concatenate([_held_out_scale(outcome.predictions[c][f], fitted[i])
                                          for f in range(outcome.n_folds_final)])
                          for i, c in enumerate(chosen)]
            from ._blend import RankAverage, quantile_reference

            self.best_estimator_ = RankAverage([specs[c] for c in chosen], fitted,
                                               [quantile_reference(r) for r in references])
            self.best_candidate_ = blend_name([specs[c] for c in chosen])
            self.best_score_ = float(sign * np.mean(selection.blend_nested))
            self.selection_reason_ = selection.reason
        else:
            self.best_estimator_ = fitted[0]
            self.best_candidate_ = specs[chosen[0]]
            self.best_score_ = float(np.mean(scores[chosen[0]]))
            self.selection_reason_ = selection.reason if chosen == selection.chosen else \
                "the next best single candidate (the choice failed to refit)"
        self.refit_time_ = time.perf_counter() - refit_start
        self.cv_description_ = plan.describe(outcome.n_folds_final)
        self.leaderboard_ = build_leaderboard(search, selection, chosen, skipped, metric, self.cv_description_,
                                              failures)
        self.cv_results_ = self.leaderboard_.cv_results()
        self.best_index_ = 0
        self._candidate = (candidates[chosen[0]]
                           if len(chosen) == 1 and not isinstance(fitted[0], FoldBag) else None)
        self.cv_predictions_ = _first_pass_predictions(X.shape[0] if n_rows is None else n_rows, specs, plan,
                                                       outcome)
        if not small and 0 not in scores:          # no bar was cleared: say so, not only in selection_reason_
            warn_default_not_evaluated(specs[0], self.best_candidate_, outcome)

    def _fold_bag(self, candidate: Candidate, refit, predictions: dict, models: dict, n_splits: int):
        """The refit averaged with the candidate's fold models of the first repeat, if it has all of them."""
        if not (self.bag_folds and n_splits >= 2 and all(f in models and f in predictions for f in range(n_splits))):
            return refit
        pooled = np.concatenate([predictions[f] for f in range(n_splits)])
        scaling = [standardization(pooled)] + [standardization(predictions[f]) for f in range(n_splits)]
        return FoldBag(candidate.spec, [refit] + [models[f] for f in range(n_splits)], [c for c, _ in scaling],
                       [s for _, s in scaling], scorer=candidate.scores)

    def _refit(self, X, y, plan, selection, alive, scores, sign, candidates, metric_spec, seed, n_threads,
               qid=None, sample_weight=None, extras=None):
        """Refit the choice on every row (within the queries ``qid``, with the rows' ``sample_weight``, initial
        scores and positions ``extras``); on a failure fall back to the single choice, then the next best."""
        init, places = (None, None) if extras is None else (extras.init_score, extras.position)
        context = make_context(metric_spec, X, y, fold_seed(seed, REFIT_FOLD), n_threads,
                               categorical=self.categorical_columns(), qid=qid, weighted=sample_weight is not None,
                               init_score=init is not None, position=places is not None)
        # every repeat has the first one's fold sizes: no further repeat is drawn for them
        context = replace(context, validated_rows=max(int(tr.shape[0]) for tr, _ in plan.folds[:plan.n_splits]))
        order = [selection.chosen]
        if selection.is_blend:
            order.append((selection.single,))
        by_mean = sorted(alive, key=lambda c: (-sign * float(np.mean(scores[c])), c))
        order += [(c,) for c in by_mean if (c,) not in order]
        failures: dict[int, str] = {}
        for members in order:
            if any(c in failures for c in members):
                continue
            fitted = []
            for c in members:
                try:
                    estimator = build_estimator(candidates[c], context, context.has_missing)
                    with warnings_named_by(candidates[c]):      # the fit on arrays names X's columns by index
                        fit_estimator(estimator, X, y, qid, sample_weight, init, places)
                    fitted.append(estimator)
                except Warning:         # the caller's filter made a warning an error: theirs, not a failed refit
                    raise
                except Exception as exc:  # noqa: BLE001 - recorded; the next choice is refitted
                    failures[c] = " ".join(f"{shown_type(exc)}: {exc}".split())[:300]
                    break
            if len(fitted) == len(members):
                return members, fitted, failures
        raise ValueError("AutoRanker: every candidate failed its final refit ("
                         + "; ".join(f"{candidates[c].spec}: {e}" for c, e in failures.items()) + ")")

    # ------------------------------------------------------------------
    # Prediction
    # ------------------------------------------------------------------
    @names_peer_predict_arguments
    @reads_a_snapshot
    def decision_function(self, X) -> np.ndarray:
        """The chosen model's scores of the rows of X (n_samples, n_features): higher is nearer the top.

        A blend scores each row alone (the mean of its members' quantiles), so
        the score of a row does not depend on the other rows of X.
        """
        check_is_fitted(self)
        X_arr = self._prediction_rows(X)
        candidate = getattr(self, "_candidate", None)
        if candidate is None or type(candidate).scores is Candidate.scores:
            # checked rows: the members skip their own checks (not for sparse rows or ±inf, which each checks its
            # way; rows with NaN only into the members that take missing values)
            checked = checked_rows(X_arr)
            nan = not checked and nan_rows(X_arr)
            scores = candidate_scores(self.best_estimator_, X_arr, checked=checked or nan, nan=nan)
        else:
            scores = np.asarray(candidate.scores(self.best_estimator_, X_arr), dtype=np.float64)
        if not np.isfinite(scores).all():
            raise FloatingPointError(f"AutoRanker.decision_function: the chosen model {self.best_candidate_!r} "
                                     f"gave non-finite scores")
        return scores

    def _prediction_rows(self, X) -> np.ndarray:
        """X checked against the fit and encoded as every candidate reads it: float64, categories as positions."""
        reject_1d(X)
        validate_columns(self, X, reset=False)
        # matched by value to the fit's categories; a fit without category columns refuses them
        X, _ = encode_categories(X, getattr(self, "categories_", None) or [None] * self.n_features_in_,
                                 feature_names=getattr(self, "feature_names_in_", None))
        X_arr = check_matrix(X, name="X", dtype=np.float64, allow_nan=True, accept_sparse=True)
        if X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X: expected {self.n_features_in_} features (as in fit), got {X_arr.shape[1]}")
        best = getattr(self, "best_estimator_", None)
        if is_sparse(X_arr) and best is not None:
            from ._saved import reads_sparse

            if not reads_sparse(best):
                X_arr = dense_rows(X_arr, self.best_candidate_)
        return X_arr

    # sample_weight third and qid by keyword, as in fit and scikit-learn's score(X, y, sample_weight): callers that
    # pass weights by position must not have them read as query ids
    @names_peer_score_arguments
    @reads_a_snapshot
    def score(self, X, y, sample_weight=None, *, qid=None, group=None, init_score=None) -> float:
        """The ``metric`` of ``decision_function(X)`` against ``y`` (higher is better: negated if lower is).

        ``init_score``: the rows' initial scores, for a model fitted from
        ``init_score``: the metric is that of ``decision_function(X) +
        init_score``, what the model was chosen by (as ``PushBoost.score``).

        A model fitted within queries takes relevance grades and scores per
        query (``qid``: one query id per row, or ``group``: LightGBM's sizes
        of consecutive queries, as in :meth:`fit`; one of them is required:
        the rows pooled into one list would give a meaningless number); a
        model of one list takes its two labels, per query with either.
        """
        from ..registry import resolve

        check_is_fitted(self)
        ignore_score_weights(sample_weight, self)
        setup = self._setup_record()
        within = self.ranks_within_queries_
        if within:
            require_score_queries(qid, self, group)
        configured = setup.query_metric if within else setup.metric
        metric = configured if configured.spec == self.leaderboard_.metric else \
            resolve("metric", self.leaderboard_.metric)
        scores = self.decision_function(X)
        if init_score is not None:
            scores = scores + check_init_score(init_score, scores.shape[0])
        if within:
            y_clean = check_grades(y, scores.shape[0])
        else:
            refuse_labels_coded_otherwise(self, y, source=type(self).__name__)
            y_arr = np.asarray(y)
            if y_arr.ndim != 1 or not np.isin(y_arr, self.classes_).all():
                raise ValueError("y: expected labels among the training classes "
                                 f"{np.asarray(self.classes_).tolist()!r}")
            check_same_length(X=scores, y=y_arr)
            y_clean = (y_arr == self.classes_[1]).astype(np.int8)
        given = check_queries(qid, group, scores.shape[0])
        if within or given is not None:
            queries = Queries.single(scores.shape[0]) if given is None else given
            value = PerQueryMean(metric, default=within and self.metric is None)(
                query_labels(y_clean.astype(np.float64), queries.codes), scores)
        else:
            value = float(metric(y_clean, scores))
        return value if metric.greater_is_better else -value

    @property
    def ranks_within_queries_(self) -> bool:
        """Whether the model was chosen within queries (``fit(..., qid=...)`` or ``group=``)."""
        check_is_fitted(self)
        return hasattr(self, "n_queries_")

    # ------------------------------------------------------------------
    # Persistence (rankcore.persistence: JSON, no pickle) and tags
    # ------------------------------------------------------------------
    def _get_fitted_state(self) -> dict:
        state = super()._get_fitted_state()
        state["best"] = encode_fitted(self.best_estimator_, self.best_candidate_)   # names the candidate
        return state

    def _check_loaded_params(self, state: dict) -> AutoSetup:
        return self._setup_record()

    def _restore_fitted_state(self, state: dict, setup: AutoSetup) -> None:
        restore_state(self, state, setup.metric, setup.query_metric)
        self._candidate = None

    def __sklearn_tags__(self):
        """scikit-learn's tags: what ``fit`` takes under these parameters, never what the fit chose.

        As scikit-learn's meta-estimators (``GridSearchCV``, ``Pipeline``) read their tags from their parameters,
        not from a fitted model, and since its tools clone an estimator before fitting it, the tags of a fitted
        AutoRanker are those of its unfitted clone: ``sparse`` when a candidate asked for reads sparse X,
        ``allow_nan`` when one takes or imputes NaN, whichever candidate was chosen.
        """
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        # fit refuses sparse X when no candidate asked for reads it: the class-wide accepts_sparse would overstate it
        tags.input_tags.sparse = any(declared_attribute("candidate", spec, "accepts_sparse", False)
                                     for spec in self._asked_specs())
        return tags

    def _allows_nan(self) -> bool:
        # the parameters' answer alone (see __sklearn_tags__): a fit's chosen model would make a clone differ
        return any(declared_attribute("candidate", spec, "accepts_missing", False)
                   or declared_attribute("candidate", spec, "impute_missing", False) for spec in self._asked_specs())

    def _asked_specs(self) -> list[str]:
        """The candidate specs as given (``"auto"``: every registered class's default ones), unresolved."""
        from ..registry import registry

        if isinstance(self.candidates, (list, tuple)):
            return list(self.candidates)
        if self.candidates != "auto":
            return [self.candidates]
        return [spec for entry in registry().in_order("candidate") for spec in entry.cls.default_search_specs()]
