"""``fit(..., init_model=...)`` of the push family: continue a fitted model with more weak rankers.

LightGBM's ``init_model`` and XGBoost's ``xgb_model``: the training rows start from the model's scores
(``decision_function``), every validation set from its own, and the fitted model holds the init model's weak
rankers followed by the new ones.  The scores are additive, so the continuation may use another objective, price,
loss or learner settings -- as long as its learner can hold the init model's weak rankers in one model (it restores
each of them from its saved record: stumps and trees cannot share a model, nor oblivious and other trees).

What the continuation takes from the init model and what it refuses is decided here, once, before any boosting:

* the features: their number, their names (when both have them) and the columns split by category groups, with
  their categories -- the init model's trees read the codes of the rows as the continuation encodes them;
* one list or queries: a model fitted within queries (``qid``) is continued within queries, one fitted on one
  list without -- their scores mean different things (``classes_`` against relevance grades, one ranking against
  one per query);
* ``init_score``: a model fitted from initial scores (``from_init_score_``) is a correction to them, so its
  continuation needs them too (its rows start at ``init_score`` + the model's scores, and the result keeps
  ``from_init_score_``); a model fitted without them refuses ``init_score``, since the combined model would then
  need the rows' initial scores at prediction time for its first weak rankers but not for the others.

The fitted attributes of the result (:func:`prepend_init_model`) follow LightGBM's booster: ``n_iter_`` and
``rankers_`` count every weak ranker (the init model's first), ``init_iterations_`` how many of them came from the
init model, ``best_iteration_`` counts from the first of the init model's; the curves of the continuation
(``objective_values_``, ``validation_scores_``, ``evals_result_``) cover its new iterations alone, as LightGBM's
``evals_result_`` does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError

from .._threadsafe import snapshot
from ..validation import check_categorical_features

__all__ = ["InitModel", "read_init_model", "prepend_init_model"]

_FAMILY = "PushBoost, PNormPush or RankBoost"


@dataclass(frozen=True)
class InitModel:
    """A checked ``init_model``: the fitted estimator whose weak rankers a fit continues.

    Attributes
    ----------
    model : estimator of the push family
        Fitted; read, never modified.
    source : str
        How errors name it: ``"init_model"``, or ``"init_model (path)"`` for a model file.
    """

    model: Any
    source: str = "init_model"

    @property
    def from_init_score(self) -> bool:
        """Whether the init model was fitted from ``init_score`` (it is a correction to them)."""
        return bool(getattr(self.model, "from_init_score_", False))

    @property
    def n_rankers(self) -> int:
        return len(self.model.rankers_)

    def scores(self, X: Any, n_threads: int) -> np.ndarray:
        """The init model's ``decision_function`` of rows ``X`` as the continuation checked and encoded them."""
        model = self.model
        predict_sum = getattr(getattr(model, "_learner", None), "predict_sum", None)
        if predict_sum is not None:
            return np.asarray(predict_sum(model.rankers_, model.alphas_, X, n_threads), dtype=np.float64)
        scores = np.zeros(X.shape[0])
        for ranker, alpha in zip(model.rankers_, model.alphas_):
            scores += alpha * ranker.predict(X)
        return scores

    def start(self, estimator, setup, X: Any, inputs, classes, *, within_queries: bool):
        """The training rows' ``inputs`` with their scores moved by the init model's, once every check passed.

        ``estimator``: the continuation, its features checked (``_check_X``); ``setup``: its final setup (the
        learner that will hold both models' weak rankers); ``X``, ``inputs``: the training rows in the fit's order
        and their initial scores (``init_score``, or None).  Raises a ValueError naming ``init_model`` when the
        continuation differs from the init model in what cannot differ (see the module's docstring).
        """
        self.check(estimator, setup.learner, classes, within_queries=within_queries,
                   init_score=inputs.init_score is not None)
        base = self.scores(X, setup.n_threads)
        start = base if inputs.init_score is None else inputs.init_score + base
        return replace(inputs, init_score=start, named="init_model")

    def check(self, estimator, learner, classes=None, *, within_queries: bool, init_score: bool) -> None:
        """Every refusal of :meth:`start`, without scoring a row (a fit whose rows are elsewhere: Dask's).

        ``estimator``: the continuation with its features recorded (``n_features_in_``, ``feature_names_in_``);
        ``learner``: the learner that will hold both models' weak rankers; ``classes``: the continuation's labels
        (None: not known yet, not checked); ``init_score``: whether the fit is given initial scores.
        """
        self._check_features(estimator)
        self._check_queries(within_queries)
        self._check_learner(learner)
        self._check_classes(classes)
        if not init_score and self.from_init_score:
            raise ValueError(f"{self.source}: the model was fitted from init_score (from_init_score_), so its scores "
                             "are a correction to the rows' initial scores: pass the training rows' init_score (and "
                             "eval_init_score for eval_set), which the continuation starts from with the model's "
                             "scores added")
        if init_score and not self.from_init_score:
            raise ValueError(f"{self.source}: init_score is refused: the model was fitted without initial scores, so "
                             "a continuation from them would need the rows' initial scores at prediction time for "
                             "its new weak rankers but not for the model's; fit it from init_score first, or leave "
                             "init_score out")

    def eval_start(self, X_val: Any, init: np.ndarray | None, n_threads: int) -> np.ndarray:
        """Where a validation set's scores start: the init model's scores of ``X_val``, plus its ``init``."""
        base = self.scores(X_val, n_threads)
        return base if init is None else init + base

    def _check_features(self, estimator) -> None:
        model = self.model
        d = int(estimator.n_features_in_)
        if int(model.n_features_in_) != d:
            raise ValueError(f"{self.source}: the model was fitted on {int(model.n_features_in_)} features, X has "
                             f"{d}; continue it on rows of the same features")
        names, own = getattr(model, "feature_names_in_", None), getattr(estimator, "feature_names_in_", None)
        if names is not None and own is not None and list(names) != list(own):
            raise ValueError(f"{self.source}: the model was fitted on the features {list(names)}, X has "
                             f"{list(own)}; continue it on the same columns in the same order")
        columns, own_columns = split_columns(model), split_columns(estimator)
        if columns != own_columns:
            raise ValueError(f"{self.source}: the model splits the columns {list(columns)} by category groups, this "
                             f"fit {list(own_columns)}; give the same categorical_features and category columns")
        for j, (theirs, ours) in enumerate(zip(_categories(model, d), _categories(estimator, d))):
            if (theirs is None) != (ours is None) or (theirs is not None and not np.array_equal(theirs, ours)):
                raise ValueError(f"{self.source}: column {j}'s categories differ from the model's ("
                                 f"{_listed(theirs)} against X's {_listed(ours)}): its trees split the category "
                                 "codes; give the column the model's categories (pandas: set_categories)")

    def _check_queries(self, within_queries: bool) -> None:
        fitted_within = bool(self.model.ranks_within_queries_)
        if fitted_within and not within_queries:
            raise ValueError(f"{self.source}: the model was fitted within queries (qid), so its scores order the rows "
                             "of each query, from relevance grades; continue it with fit(X, y, qid=...) (or group=)")
        if within_queries and not fitted_within:
            raise ValueError(f"{self.source}: the model was fitted on one list (without qid), so its scores rank "
                             "every row against every other by its classes_; continue it without qid, or fit a "
                             "new model within queries")

    def _check_learner(self, learner) -> None:
        """The continuation's learner restores every weak ranker of the init model from its saved record."""
        for t, ranker in enumerate(self.model.rankers_):
            try:
                learner.ranker_from_state(ranker.to_state())
            except (TypeError, ValueError, KeyError, NotImplementedError) as exc:
                raise ValueError(f"{self.source}: the model's weak rankers (learner {self.model.learner_spec_!r}) "
                                 f"cannot live in one model with those of learner {learner.spec!r} (its weak ranker "
                                 f"{t}: {exc}); continue it with a learner whose weak rankers are of the same kind "
                                 f"(the model's learner: {self.model.learner_spec_!r})") from None

    def _check_classes(self, classes) -> None:
        theirs = getattr(self.model, "classes_", None)
        if theirs is not None and classes is not None and not np.array_equal(np.asarray(theirs), classes):
            theirs, classes = np.asarray(theirs).tolist(), np.asarray(classes).tolist()
            raise ValueError(f"{self.source}: the model ranks {theirs[1]!r} above {theirs[0]!r} (classes_ {theirs}), "
                             f"y has the classes {classes}; continue it on the same labels")


def read_init_model(init_model: Any, family: type) -> InitModel | None:
    """``fit``'s ``init_model`` checked: a fitted estimator of ``family``, or the path of its saved model file.

    Raises TypeError for anything else, ValueError (a ``NotFittedError`` for an unfitted estimator) naming
    ``init_model`` and what was expected; a file that cannot be read or is not a model of ``family`` says why.
    """
    if init_model is None:
        return None
    source = "init_model"
    if isinstance(init_model, (str, os.PathLike)):
        from ..persistence import load_model

        path = os.fspath(init_model)
        source = f"init_model ({path})"
        try:
            init_model = load_model(path)
        except (OSError, ValueError) as exc:
            raise ValueError(f"init_model: cannot read the model file {path!r}: {exc}") from None
    if not isinstance(init_model, family):
        got = f"the class {init_model.__name__}" if isinstance(init_model, type) else f"a {type(init_model).__name__}"
        raise TypeError(f"{source}: expected a fitted {_FAMILY} (or the path of its saved model file), got {got}")
    if not hasattr(init_model, "rankers_"):
        raise NotFittedError(f"{source}: this {type(init_model).__name__} is not fitted; fit it first (or pass the "
                             "path of a saved model file)")
    # one whole model even if another thread refits it meanwhile (or this fit continues the estimator in place)
    return InitModel(snapshot(init_model), source)


def prepend_init_model(estimator, init: InitModel) -> None:
    """Make the fitted continuation ``estimator`` the whole model: the init model's weak rankers, then its own.

    ``init_iterations_`` records how many come first; ``n_iter_`` and ``best_iteration_`` count every weak ranker
    (LightGBM's ``current_iteration()`` and ``best_iteration`` after a continuation); the continuation's curves
    stay its own.  ``from_init_score_`` is the init model's (the start of both).  An init model without weak rankers
    (a constant model, 0 everywhere) leaves the fit as it is, without ``init_iterations_``.
    """
    model = init.model
    k = init.n_rankers
    if k:
        estimator.init_iterations_ = k
    estimator.rankers_ = list(model.rankers_) + list(estimator.rankers_)
    estimator.alphas_ = np.concatenate([np.asarray(model.alphas_, dtype=np.float64), estimator.alphas_])
    estimator.n_iter_ = len(estimator.rankers_)
    if hasattr(estimator, "best_iteration_"):
        estimator.best_iteration_ = k + int(estimator.best_iteration_)
    if not init.from_init_score:
        vars(estimator).pop("from_init_score_", None)


def split_columns(estimator) -> tuple[int, ...]:
    """The columns a fitted push estimator splits by category groups (a loaded one: from its file's categories
    and its ``categorical_features``)."""
    columns = getattr(estimator, "_categorical_columns", None)
    if columns is not None:
        return tuple(columns)
    d = int(estimator.n_features_in_)
    from_frame = [j for j, c in enumerate(getattr(estimator, "categories_", None) or ()) if c is not None]
    given = check_categorical_features(getattr(estimator, "categorical_features", None), d,
                                       getattr(estimator, "feature_names_in_", None))
    return tuple(sorted(set(from_frame) | set(given)))


def _categories(estimator, d: int) -> list:
    """Each column's categories kept at fit (None for a column that has none)."""
    categories = getattr(estimator, "categories_", None)
    return list(categories) if categories is not None else [None] * d


def _listed(categories) -> str:
    if categories is None:
        return "no categories"
    shown = [c.item() if hasattr(c, "item") else c for c in list(categories)[:6]]
    return repr(shown)[:-1] + (", ...]" if len(categories) > 6 else "]")
