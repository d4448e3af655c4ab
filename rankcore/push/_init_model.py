"""``fit(..., init_model=...)`` of the push family: continue a fitted model with more weak rankers.

LightGBM's ``init_model`` and XGBoost's ``xgb_model``: the training rows start from the model's scores
(``decision_function``), every validation set from its own, and the fitted model holds the init model's weak
rankers followed by the new ones.  The scores are additive, so the continuation may use another objective, price,
loss or learner settings -- as long as its learner can hold the init model's weak rankers in one model (it restores
each of them from its saved record: stumps and trees cannot share a model, nor oblivious and other trees).

What the continuation takes from the init model and what it refuses is decided here, once, before any boosting:

* the features: their number, their names (when both have them) and the columns split by category groups; a
  frame's ``category`` columns are read by the init model's categories (:meth:`InitModel.categories_for`), so the
  continuation's ``categories_`` are the model's (its trees read the codes of the rows as the continuation encodes
  them), and other categories are refused only where they are not read so (an array of codes, a Dask fit);
* one list or queries: a model fitted within queries (``qid``) is continued within queries, one fitted on one
  list without -- their scores mean different things (``classes_`` against relevance grades, one ranking against
  one per query); on one list, a model of two labels (``task_`` bipartite) on the same ``classes_`` (by a graded
  objective only when the grades are those two labels, numbers: the greater above), a graded one by a graded
  objective (its grades are not recorded: two labels cannot be checked against them);
* the learner's constraints: a model fitted with monotone or interaction constraints (``trees:monotone=...``,
  ``trees:interactions=...``) is continued with the same ones, and one fitted without them without -- the
  model's ``learner_spec_`` is the continuation's, and would claim of the whole model what only its new trees
  satisfy (or hide a constraint its first trees satisfy and its new ones need not);
* ``init_score``: a model fitted from initial scores (``from_init_score_``) is a correction to them, so its
  continuation needs them too (its rows start at ``init_score`` + the model's scores, and the result keeps
  ``from_init_score_``); a model fitted without them refuses ``init_score``, since the combined model would then
  need the rows' initial scores at prediction time for its first weak rankers but not for the others.

The fitted attributes of the result (:func:`prepend_init_model`) follow LightGBM's booster: ``n_iter_`` and
``rankers_`` count every weak ranker (the init model's first), ``init_iterations_`` how many of them came from the
init model (0 for a model without any), ``best_iteration_`` counts from the first of the init model's; the curves
of the continuation (``objective_values_``, ``validation_scores_``, ``evals_result_``) cover its new iterations
alone, as LightGBM's ``evals_result_`` does, and ``callbacks`` see the iterations counted from the init model's
first too (:meth:`InitModel.counting_callbacks`, LightGBM's ``env.iteration``).  A fit with ``position`` starts
its position effects at the init model's (``position_effects_`` by ``position_ids_``; 0 for a place it never
saw), so that n trees and then m more are the fit of n + m there too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError

from .._argument_refusal import with_article
from .._callbacks import CountedCallbacks
from .._categories import FittedOnNumbers, category_columns
from .._state_fields import refuse_labels_coded_otherwise
from .._threadsafe import snapshot
from ..validation import check_categorical_features
from ._column_refusal import InitModelColumns

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

    def start(self, estimator, setup, X: Any, inputs, classes, *, within_queries: bool, labels=None):
        """The training rows' ``inputs`` with their scores moved by the init model's, once every check passed.

        ``estimator``: the continuation, its features checked (``_check_X``); ``setup``: its final setup (the
        learner that will hold both models' weak rankers); ``X``, ``inputs``: the training rows in the fit's order
        and their initial scores (``init_score``, or None); ``labels``: one list's checked grades (a graded
        objective).  Raises a ValueError naming ``init_model`` when the continuation differs from the init model in
        what cannot differ (see the module's docstring).
        """
        self.check(estimator, setup.learner, classes, within_queries=within_queries,
                   init_score=inputs.init_score is not None, setup=setup, labels=labels)
        base = self.scores(X, setup.n_threads)
        start = base if inputs.init_score is None else inputs.init_score + base
        return replace(inputs, init_score=start, named="init_model", positions=self._positions(inputs.positions))

    def check(self, estimator, learner, classes=None, *, within_queries: bool, init_score: bool, setup=None,
              labels=None) -> None:
        """Every refusal of :meth:`start`, without scoring a row (a fit whose rows are elsewhere: Dask's).

        ``estimator``: the continuation with its features recorded (``n_features_in_``, ``feature_names_in_``);
        ``learner``: the learner that will hold both models' weak rankers; ``classes``: the continuation's labels
        (None: not known yet, not checked); ``init_score``: whether the fit is given initial scores; ``setup``: the
        fit's setup (its task and objective, and the ``learner`` parameter as given; None: not checked);
        ``labels``: one list's checked grades (None: not known, a change of task that they could allow is not
        refused).
        """
        self._check_features(estimator, learner)
        self._check_queries(within_queries)
        if setup is not None:
            self._check_task(setup.task, setup.objective.spec, labels)
        self._check_learner(learner, None if setup is None else setup.params.learner)
        self._check_constraints(learner)
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

    def categories_for(self, X: Any) -> list | None:
        """The categories to read the continuation's frame ``X`` (pandas) by: the init model's, or None.

        A continuation reads a frame's ``category`` columns by value, as the init model scores it, so that its
        trees read the codes they were grown on: a level the model lists keeps its code, one it does not list is a
        missing value (:func:`~rankcore._categories.warn_unlisted_categories` warns).  None -- the fit keeps the
        frame's own categories and :meth:`check` refuses what differs -- when the model kept no categories, or
        ``X`` is not a frame of the model's columns (names when both have them) with category columns where the
        model had them.
        """
        kept = getattr(self.model, "categories_", None)
        if not kept or isinstance(kept, FittedOnNumbers) or all(c is None for c in kept):
            return None
        if not hasattr(X, "dtypes") or not hasattr(X, "columns") or X.shape[1] != len(kept):
            return None
        names = getattr(self.model, "feature_names_in_", None)
        if names is not None and [str(c) for c in X.columns] != [str(c) for c in names]:
            return None
        if category_columns(X) != tuple(j for j, c in enumerate(kept) if c is not None):
            return None
        return list(kept)

    def counting_callbacks(self, callbacks: tuple) -> tuple:
        """``callbacks`` that see the iterations counted from the init model's first weak ranker (LightGBM's
        ``env.iteration`` in a continuation): ``IterationInfo.iteration`` and ``n_iter`` plus its weak rankers.
        The progress display (``verbose``) reads the same count from them, so that its lines, the callbacks and
        ``best_iteration_`` number an iteration alike."""
        return CountedCallbacks(callbacks, self.n_rankers)

    def position_start(self, ids: np.ndarray):
        """(places, start): the display places of a continuation whose rows show ``ids`` (sorted, distinct) --
        those and the init model's (``position_ids_``) -- and the effects they start at: the init model's
        (``position_effects_``; a place of its alone keeps its effect, no row moves it), 0 for a place new to
        the continuation.  None when the init model has no position effects (every place starts at 0)."""
        theirs, effects = getattr(self.model, "position_ids_", None), getattr(self.model, "position_effects_", None)
        if theirs is None or effects is None:
            return None
        theirs = np.asarray(theirs, dtype=np.int64)
        places = np.union1d(np.asarray(ids, dtype=np.int64), theirs)
        start = np.zeros(places.shape[0])
        start[np.searchsorted(places, theirs)] = effects
        return places, start

    def _positions(self, positions):
        """The training rows' display positions with the init model's effects to start from
        (:meth:`position_start`)."""
        seeded = None if positions is None else self.position_start(positions.ids)
        if seeded is None:
            return positions
        places, start = seeded
        codes = np.searchsorted(places, positions.ids)[positions.codes]
        return replace(positions, ids=places, codes=codes, start=start)

    def eval_start(self, X_val: Any, init: np.ndarray | None, n_threads: int) -> np.ndarray:
        """Where a validation set's scores start: the init model's scores of ``X_val``, plus its ``init``."""
        base = self.scores(X_val, n_threads)
        return base if init is None else init + base

    def _check_features(self, estimator, learner) -> None:
        model = self.model
        d = int(estimator.n_features_in_)
        if int(model.n_features_in_) != d:
            raise ValueError(f"{self.source}: the model was fitted on {int(model.n_features_in_)} features, X has "
                             f"{d}; continue it on rows of the same features")
        names, own = getattr(model, "feature_names_in_", None), getattr(estimator, "feature_names_in_", None)
        if names is not None and own is not None and list(names) != list(own):
            raise ValueError(f"{self.source}: the model was fitted on the features {list(names)}, X has "
                             f"{list(own)}; continue it on the same columns in the same order")
        columns, own_columns = split_columns(model), split_columns(estimator, learner)
        if columns != own_columns:
            raise InitModelColumns(self.source, "split", columns=columns, own_columns=own_columns)
        for j, (theirs, ours) in enumerate(zip(_categories(model, d), _categories(estimator, d))):
            if (theirs is None) != (ours is None) or (theirs is not None and not np.array_equal(theirs, ours)):
                raise InitModelColumns(self.source, "categories", column=j, theirs=_listed(theirs),
                                       ours=_listed(ours))

    def _check_queries(self, within_queries: bool) -> None:
        fitted_within = bool(self.model.ranks_within_queries_)
        if fitted_within and not within_queries:
            raise ValueError(f"{self.source}: the model was fitted within queries (qid), so its scores order the rows "
                             "of each query, from relevance grades; continue it with fit(X, y, qid=...) (or group=)")
        if within_queries and not fitted_within:
            raise ValueError(f"{self.source}: the model was fitted on one list (without qid), so its scores rank "
                             "every row against every other by its classes_; continue it without qid, or fit a "
                             "new model within queries")

    def _check_task(self, task: str, objective: str, labels) -> None:
        """One list: a model of two labels is continued on them (a graded objective's grades being those two
        numbers), a graded one by a graded objective."""
        theirs = getattr(self.model, "task_", task)
        if theirs == task or self.model.ranks_within_queries_:
            return
        if theirs == "bipartite":
            classes = np.asarray(self.model.classes_)
            if labels is None or (classes.dtype.kind in "iuf" and np.isin(labels, classes.astype(float)).all()):
                return          # the same two labels, the greater above: what the model's scores rank
            raise ValueError(f"{self.source}: the model was fitted on two labels (task bipartite), so its scores rank "
                             f"its classes_ {classes.tolist()[1]!r} above {classes.tolist()[0]!r}, and the objective "
                             f"{objective!r} ranks by other grades; continue it on the same two labels, or fit a new "
                             "model on the grades")
        raise ValueError(f"{self.source}: the model was fitted on graded labels (task graded), so its scores order "
                         f"the rows by grade, and the objective {objective!r} ranks two labels (task bipartite, with "
                         "classes_ the model's scores do not know); continue it with a graded objective, or fit a "
                         "new model on the two labels")

    def _check_learner(self, learner, given=None) -> None:
        """The continuation's learner restores every weak ranker of the init model from its saved record.

        ``given``: the continuation's ``learner`` parameter as the user wrote it (whether it named ``growth``).
        """
        growth = self._growth_error(learner, given)
        if growth:          # refused even where the trees restore: learner_spec_ would claim the new growth for all
            raise ValueError(growth)
        theirs, ours = _weak_rankers(self.model.learner_spec_, getattr(self.model, "_learner", None)), \
            _weak_rankers(learner.spec, learner)
        for t, ranker in enumerate(self.model.rankers_):
            try:
                learner.ranker_from_state(ranker.to_state())
            except (TypeError, ValueError, KeyError, NotImplementedError) as exc:
                if theirs[0] != ours[0]:
                    raise ValueError(f"{self.source}: the model's weak rankers are {theirs[1]}, this fit grows "
                                     f"{ours[1]}, and weak rankers of another kind cannot live in one model; "
                                     f"continue it with learner {theirs[2]!r}") from None
                raise ValueError(f"{self.source}: the model's weak rankers (learner {self.model.learner_spec_!r}) "
                                 f"cannot live in one model with those of learner {learner.spec!r} (its weak ranker "
                                 f"{t}: {exc}); continue it with a learner whose weak rankers are of the same kind "
                                 f"(the model's learner: {self.model.learner_spec_!r})") from None

    def _growth_error(self, learner, given) -> str | None:
        """The refusal of trees grown otherwise than the model's, in plain words (None when the growth is the same).

        The per-query default grows oblivious trees (with monotone and interaction constraints too), but depth-wise
        ones for category columns and leaf-wise ones once the learner names a shape: a continuation changes growth
        without asking.  The advice is the learner that grows the model's trees: its growth and shape (naming
        ``growth`` drops the per-query default's ``max_depth``) with its constraints (which ``_check_constraints``
        asks for next).
        """
        model_learner = getattr(self.model, "_learner", None)
        theirs = getattr(model_learner, "growth", None)
        ours = getattr(learner, "growth", None)
        if theirs is None or ours is None or theirs == ours:
            return None
        text = (f"{self.source}: the model's trees are {theirs}, this fit's learner grows {ours} trees, and trees of "
                "another growth cannot live in one model")
        if self.model.ranks_within_queries_ and "growth=" not in str(given or "").replace(" ", ""):
            text += (f"; this fit did not ask for {ours} trees: with qid the default trees are oblivious (monotone "
                     "and interaction constraints included), but depth-wise with category columns, and leaf-wise "
                     "once the learner names max_depth or max_leaves")
        text += f"; continue it with {_growth_advice(model_learner)} in the learner"
        if theirs == "oblivious":
            return text + (" and without category columns (which oblivious trees cannot split), or fit the first "
                           "model with the growth wanted")
        return text

    def _check_constraints(self, learner) -> None:
        """The continuation's monotone and interaction constraints are the model's: its ``learner_spec_`` is the
        whole model's."""
        theirs = getattr(self.model, "_learner", None)
        for name, what in (("monotone", "monotone constraints"), ("interactions", "interaction constraints")):
            before, after = _constraint(theirs, name), _constraint(learner, name)
            if before != after:
                said = f"{name}={before}" if before else f"no {what}"
                raise ValueError(f"{self.source}: the model was fitted with {said}, this fit's learner has "
                                 f"{f'{name}={after}' if after else f'no {what}'}; the result's learner_spec_ (and "
                                 f"its file) would claim this fit's {what} for the model's trees too, so continue "
                                 f"it with {said}")

    def _check_classes(self, classes) -> None:
        if classes is not None:     # y read as the init model's codes: a command-line fit may code its file otherwise
            refuse_labels_coded_otherwise(self.model, classes, source=self.source)
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
        name = type(init_model).__name__
        got = (f"the class {init_model.__name__}" if isinstance(init_model, type)
               else with_article(name))
        raise TypeError(f"{source}: expected a fitted {_FAMILY} (or the path of its saved model file), got {got}")
    if not hasattr(init_model, "rankers_"):
        raise NotFittedError(f"{source}: this {type(init_model).__name__} is not fitted; fit it first (or pass the "
                             "path of a saved model file)")
    # one whole model even if another thread refits it meanwhile (or this fit continues the estimator in place)
    return InitModel(snapshot(init_model), source)


def prepend_init_model(estimator, init: InitModel) -> None:
    """Make the fitted continuation ``estimator`` the whole model: the init model's weak rankers, then its own.

    ``init_iterations_`` records how many come first (0 for an init model without weak rankers, a constant model:
    the fit is then its own); ``n_iter_`` and ``best_iteration_`` count every weak ranker (LightGBM's
    ``current_iteration()`` and ``best_iteration`` after a continuation); the continuation's curves stay its own.
    ``from_init_score_`` is the init model's (the start of both).
    """
    model = init.model
    k = init.n_rankers
    estimator.init_iterations_ = k
    estimator.rankers_ = list(model.rankers_) + list(estimator.rankers_)
    estimator.alphas_ = np.concatenate([np.asarray(model.alphas_, dtype=np.float64), estimator.alphas_])
    estimator.n_iter_ = len(estimator.rankers_)
    if hasattr(estimator, "best_iteration_"):
        estimator.best_iteration_ = k + int(estimator.best_iteration_)
    if not init.from_init_score:
        vars(estimator).pop("from_init_score_", None)
    if getattr(model, "relevant_label_", None) is not None and hasattr(estimator, "classes_"):
        estimator.relevant_label_ = model.relevant_label_      # the same classes_: the same labels mapped to them
        if getattr(model, "other_label_", None) is not None:
            estimator.other_label_ = model.other_label_


def split_columns(estimator, learner=None) -> tuple[int, ...]:
    """The columns a fitted push estimator splits by category groups (a loaded one: from its file's categories
    and its ``categorical_features``), with its learner's own ``categorical`` columns (``learner``: the one the
    estimator is being fitted with, default its fitted one)."""
    learner = getattr(estimator, "_learner", None) if learner is None else learner
    own = {int(j) for j in str(getattr(learner, "categorical", "") or "").split(";") if j.strip()}
    columns = getattr(estimator, "_categorical_columns", None)
    if columns is not None:
        return tuple(sorted(set(columns) | own))
    d = int(estimator.n_features_in_)
    from_frame = [j for j, c in enumerate(getattr(estimator, "categories_", None) or ()) if c is not None]
    given = check_categorical_features(getattr(estimator, "categorical_features", None), d,
                                       getattr(estimator, "feature_names_in_", None))
    return tuple(sorted(set(from_frame) | set(given) | own))


def _weak_rankers(spec: str, learner) -> tuple[str, str, str]:
    """A learner's kind of weak rankers: (its family name, in words, the learner spec asking for them)."""
    name = str(spec).split(":", 1)[0].strip()
    growth = getattr(learner, "growth", None)
    if name == "trees" and growth:
        return name, f"{growth} trees", f"trees:growth={growth}"
    words = {"stumps": "stumps", "thresholds": "threshold stumps", "features": "single features (linear)"}
    return name, words.get(name, f"those of learner {name!r}"), name


def _growth_advice(learner) -> str:
    """The learner parameters that grow a model's trees again: its growth, its shape where it is not the default
    (max_depth; max_leaves but for oblivious trees, whose depth alone sets them) and its constraints."""
    growth = learner.growth
    words = [f"growth={growth}"]
    if getattr(learner, "max_depth", -1) != -1:
        words.append(f"max_depth={learner.max_depth}")
    if growth != "oblivious" and getattr(learner, "max_leaves", 31) != 31:
        words.append(f"max_leaves={learner.max_leaves}")
    words += [f"{name}={_constraint(learner, name)}" for name in ("monotone", "interactions")
              if _constraint(learner, name)]
    return ",".join(words)


def _constraint(learner, name: str) -> str:
    """A learner's ``monotone`` or ``interactions`` as its canonical text; "" for none (monotone signs all 0)."""
    text = str(getattr(learner, name, "") or "")
    if name == "monotone" and set(text.split("/")) <= {"0", ""}:
        return ""
    return text



def _categories(estimator, d: int) -> list:
    """Each column's categories kept at fit (None for a column that has none)."""
    categories = getattr(estimator, "categories_", None)
    return list(categories) if categories is not None else [None] * d


def _listed(categories) -> str:
    if categories is None:
        return "no categories"
    shown = [c.item() if hasattr(c, "item") else c for c in list(categories)[:6]]
    return repr(shown)[:-1] + (", ...]" if len(categories) > 6 else "]")
