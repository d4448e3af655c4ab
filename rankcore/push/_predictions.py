"""What a fitted push estimator computes: its scores, staged scores, split-gain importances and its ``score``.

The mixin :class:`BoostPredictions` of every push estimator (``_BaseBoost``):
the score of a row is Σ_t α_t h_t(x) over the fitted (weak ranker,
coefficient) pairs; :meth:`BoostPredictions.score` takes the estimator's
``scoring`` metric (within queries for a model fitted with ``qid``).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from .._peer_names import RECORDED_BY, names_peer_predict_arguments, names_peer_score_arguments
from .._state_fields import refuse_labels_coded_otherwise
from .._threadsafe import reads_a_snapshot
from ..base import ignore_score_weights, require_score_queries
from ..metrics import Queries, check_queries
from ..validation import check_finite_scores, check_graded_labels, check_same_length, threads_for_work
from ._row_inputs import check_init_score
from ._scoring import OBJECTIVE_SCORING, query_scorer, within_largest_query

__all__ = ["BoostPredictions"]


#: Row-by-ranker visits below which every prediction kernel runs on one thread (the dense trees' walk, the least
#: of their thresholds): a request of a few rows does not read the host's load to choose threads it cannot use.
SERIAL_VISITS = 1024


class BoostPredictions:
    """Mixin of ``_BaseBoost``: the fitted model's scores and its ``score`` (the learner, the fitted rankers, the
    input checks and the setup record are the estimator's)."""

    @names_peer_predict_arguments
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
            threads = threads_for_work(self.n_jobs, X_arr.shape[0] * len(self.rankers_), SERIAL_VISITS)
            scores = predict_sum(self.rankers_, self.alphas_, X_arr, threads)
            return check_finite_scores(scores, owner=f"{type(self).__name__}.decision_function", X=X)
        check_is_fitted(self)
        scores = self._summed(self._check_X(X, reset=False))
        return check_finite_scores(scores, owner=f"{type(self).__name__}.decision_function", X=X)

    def _checked_decision_function(self, X: np.ndarray) -> np.ndarray:
        """:meth:`decision_function` of rows already checked by an outer estimator such as AutoRanker (a
        C-contiguous float64 array of ``n_features_in_`` columns, no ±inf; NaN only when
        :meth:`_checked_takes_nan`): the same scores, without checking them again.

        A model that kept category columns reads its codes through its categories: the public path."""
        categories = self._categories()
        if categories is not None and any(c is not None for c in categories):
            return self.decision_function(X)
        predict_sum = getattr(getattr(self, "_learner", None), "predict_sum", None)
        if predict_sum is not None:
            threads = threads_for_work(self.n_jobs, X.shape[0] * len(self.rankers_), SERIAL_VISITS)
            scores = predict_sum(self.rankers_, self.alphas_, X, threads)
        else:
            scores = self._summed(X)
        return check_finite_scores(scores, owner=f"{type(self).__name__}.decision_function", X=X)

    def _checked_takes_nan(self) -> bool:
        """Whether :meth:`_checked_decision_function` scores rows with NaN: as its learner does (trees)."""
        return self._allows_nan()

    def _summed(self, X_arr: np.ndarray) -> np.ndarray:
        """Σ_t α_t h_t(x) of checked rows, added in the order of :meth:`_staged` (the same rounding), under one
        ``errstate`` rather than one per ranker (a third of a one-row call of 100 stumps)."""
        scores = np.zeros(X_arr.shape[0])
        with np.errstate(over="ignore", invalid="ignore"):   # non-finite scores are refused by the callers
            for ranker, alpha in zip(self.rankers_, self.alphas_):
                scores += alpha * ranker.predict(X_arr)
        return scores

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total split gain per feature over the trees, normalised to sum 1 (tree learners only).

        All zeros when no tree was grown.  Split counts: :meth:`feature_importances` with ``kind="split"``.
        """
        self._require_fitted("feature_importances_")
        if not all(hasattr(r, "importances") for r in self.rankers_) or not hasattr(self._learner, "predict_sum"):
            self._refuse_missing("feature_importances_", f"the learner {self.learner_spec_!r} does not record "
                                 "split gains (use a tree learner)")
        total = np.zeros(int(self.n_features_in_))
        for ranker in self.rankers_:
            total += ranker.importances(total.shape[0])
        s = total.sum()
        return total / s if s > 0 else total

    def feature_importances(self, kind: str = "gain") -> np.ndarray:
        """Per-feature importance of the fitted weak rankers, as LightGBM's ``importance_type``.

        A method rather than an estimator parameter (LightGBM's ``importance_type=``): what is read from a fitted
        model changes nothing in its fit, its parameters or its file.

        Parameters
        ----------
        kind : {"gain", "split"}, default "gain"
            ``"gain"``: total split gain per feature, normalised to sum 1
            (:attr:`feature_importances_`; tree learners).  ``"split"``: how
            many split nodes use each feature over the model, as integers (not
            normalised, as LightGBM's ``"split"``): a tree's internal nodes
            (an oblivious tree's level l counts its 2**l nodes, as the tree
            exported to LightGBM does), one per ``stumps``/``thresholds``
            ranker.

        Returns
        -------
        ndarray of shape (n_features_in_,)
            float64 for ``"gain"``, int64 for ``"split"``; all zeros when no split was made.

        Raises
        ------
        AttributeError
            The learner records no splits (``features``, a plugin's rankers
            without ``split_counts``), or, for ``"gain"``, no split gains.
        """
        if not isinstance(kind, str):
            raise TypeError(f"kind: expected 'gain' or 'split', got {type(kind).__name__}")
        if kind not in ("gain", "split"):
            raise ValueError(f"kind: expected 'gain' or 'split', got {kind!r}")
        if kind == "gain":
            return self.feature_importances_
        self._require_fitted("feature_importances")
        if not all(hasattr(r, "split_counts") for r in self.rankers_):
            raise AttributeError(f"feature_importances(kind='split'): the learner {self.learner_spec_!r} fits weak "
                                 "rankers without splits (use a tree, stumps or thresholds learner)")
        total = np.zeros(int(self.n_features_in_), dtype=np.int64)
        for ranker in self.rankers_:
            total += ranker.split_counts(total.shape[0])
        return total

    @property
    def best_score_(self) -> dict:
        """Fitted with ``eval_set``: every set's metrics after iteration ``best_iteration_``, ``{set name: {metric:
        value}}`` as LightGBM's ``best_score_`` (read from ``evals_result_``, whose layout it shares).

        With early stopping that is the model's last iteration; without, the
        best iteration of the watched set, which the model goes past.  When no
        iteration of the fit bettered its start (``best_iteration_`` 0, or a
        continuation's init model's last), the sets' scores before the fit's
        first iteration, which the fit computed (``evals_start_``).
        """
        self._require_fitted("best_score_")
        evals = self.__dict__.get("evals_result_")
        if evals is None:
            # early_stopping=True's held-out rows give validation_scores_ and best_iteration_, not a set's scores
            watched = ("; the held-out rows' metric is validation_scores_[best_iteration_ - 1]"
                       if "validation_scores_" in self.__dict__ else "")
            self._refuse_missing("best_score_", f"it is {RECORDED_BY['best_score_']}{watched}")
        # the curves are of the fit's own iterations: a continuation's start after its init model's
        t = int(self.best_iteration_) - int(getattr(self, "init_iterations_", 0))
        if t < 1:
            start = self.__dict__.get("evals_start_")
            if start is not None:       # the start's scores: the model's scores at best_iteration_
                return {name: dict(metrics) for name, metrics in start.items()}
            # a model saved before the fits kept their start's scores
            self._refuse_missing("best_score_", f"no iteration improved the watched set (best_iteration_ = "
                                 f"{self.best_iteration_}, before the fit's first) and the model does not hold the "
                                 "scores of its start (evals_start_: a model saved by an earlier rankcore)")
        return {name: {metric: float(curve[t - 1]) for metric, curve in metrics.items()}
                for name, metrics in evals.items()}

    def _require_fitted(self, name: str) -> None:
        """Refuse ``name`` of an unfitted model in the words of the estimators' other missing fitted attributes
        (a ``NotFittedError``, so scikit-learn's checks and ``hasattr`` see what they expect)."""
        try:
            check_is_fitted(self)
        except NotFittedError:
            owner = type(self).__name__
            raise NotFittedError(f"{owner} has no {name}: {owner} is not fitted yet: call fit(X, y) first") from None

    def _refuse_missing(self, name: str, why: str) -> None:
        """Refuse the fitted model's missing ``name`` (an ``AttributeError``: ``hasattr`` is False), saying why."""
        raise AttributeError(f"{type(self).__name__} has no {name}: {why}", name=name, obj=self)

    @names_peer_predict_arguments
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

    # sample_weight third and qid by keyword, as in fit and scikit-learn's score(X, y, sample_weight): callers that
    # pass weights by position must not have them read as query ids
    @names_peer_score_arguments
    @reads_a_snapshot
    def score(self, X, y, sample_weight=None, *, qid=None, group=None, init_score=None) -> float:
        """The ``scoring`` metric of ``decision_function(X)`` against ``y`` (higher is better).

        ``init_score``: the rows' initial scores, for a model fitted from
        ``init_score``: the metric is then that of ``decision_function(X) +
        init_score``, the scores the model was fitted to correct (with
        scikit-learn's metadata routing, request it with
        ``set_score_request(init_score=True)``).

        With ``qid`` (one query id per row) or ``group`` (LightGBM's sizes
        of consecutive queries, as in :meth:`fit`) the metric is computed
        within each query and averaged over the queries it counts.  A model
        fitted within queries scores by ``ndcg@k:10`` unless ``scoring``
        names a metric (on queries shorter than 10 rows: NDCG of the whole
        query).  ``sample_weight`` (third, as in scikit-learn's ``score``) is
        ignored with a warning: the ranking metrics count every row once.
        ``qid`` and ``group`` are passed by keyword.  A model fitted within queries needs ``qid`` or
        ``group`` (a ValueError without: the rows pooled into one list would
        give a meaningless number); both are an error, as in :meth:`fit`.
        """
        check_is_fitted(self)
        ignore_score_weights(sample_weight, self)
        if self.ranks_within_queries_:
            require_score_queries(qid, self, group)
        scores = self.decision_function(X)
        if init_score is not None:
            scores = scores + check_init_score(init_score, scores.shape[0])
        return self._score_of(scores, y, qid, group=group)

    def _score_of(self, scores: np.ndarray, y, qid=None, *, group=None) -> float:
        """:meth:`score` of the scores ``decision_function`` gave (the Dask estimators compute them on the workers)."""
        task = getattr(self, "task_", "bipartite")
        setup = self._setup_record()
        default = self.ranks_within_queries_ and setup.params.scoring in (None, OBJECTIVE_SCORING)
        if self.ranks_within_queries_:
            setup = self._query_setup(setup)
        metric = setup.metric if setup.task == task else self._scoring_metric(task)
        if getattr(self, "task_", "bipartite") == "graded":
            y_clean = check_graded_labels(y, name="y")
        else:
            refuse_labels_coded_otherwise(self, y, source=type(self).__name__)
            y_arr = np.asarray(y)
            if y_arr.ndim != 1 or not np.isin(y_arr, self.classes_).all():
                raise ValueError("y: expected labels among the training classes "
                                 f"{np.asarray(self.classes_).tolist()!r}")
            y_clean = (y_arr == self.classes_[1]).astype(np.int8)
        check_same_length(X=scores, y=y_clean)
        given = check_queries(qid, group, scores.shape[0])
        queries = Queries.single(scores.shape[0]) if given is None else given
        if given is None and not default:
            value = float(metric(y_clean, scores))
        else:
            value = query_scorer(within_largest_query(metric, queries) if default else metric, y_clean, queries)(scores)
        return value if metric.greater_is_better else -value

    @property
    def ranks_within_queries_(self) -> bool:
        """Whether the model was fitted within queries (``fit(..., qid=...)`` or ``group=``)."""
        check_is_fitted(self)
        return hasattr(self, "n_queries_")
