"""AutoRanker's ``to_lightgbm`` and ``to_xgboost_json``: the chosen trees as one LightGBM model or XGBoost JSON dump.

A chosen model is written when its score is a sum of boosted trees: one
refit of a push-family candidate of trees or stumps (its trees as they are),
or that candidate's :class:`~rankcore.auto.FoldBag`, the mean of M models'
standardized scores (f_m − c_m) / s_m = Σ_m a_m f_m + b with
a_m = 1 / (M s_m) and b = −Σ_m c_m / (M s_m) (as ``feature_contributions``
composes it): every model's trees in turn, the refit's first, each tree's
coefficient α times its model's a_m, then one tree of a single leaf b.  The
bag sums each model's score before weighing it, the file sums tree by tree,
so the two agree to rounding (about 1e-12 relative), not bit for bit; a refit
is written bit for bit.  A rank-average blend maps each member's score
through a quantile curve, which no sum of trees gives: refused, as are
models that are not rankcore trees (the ``lightgbm`` and ``xgboost``
candidates are their own library's boosters: those are the model files).
"""

from __future__ import annotations

from dataclasses import dataclass

from sklearn.utils.validation import check_is_fitted

from .._argument_refusal import with_article
from ..base import reads_a_snapshot
from ..learners import (checked_feature_names, lightgbm_model_string, numeric_split_on, xgboost_json_string,
                        xgboost_model_string)
from ..push import TREE_KINDS, warn_init_score, write_exported_text
from ._bag import FoldBag
from ._blend import RankAverage
from ._builtin import _RawScores
from ._candidate import Candidate, candidate_scores
from ._impute import MissingValueImputer

__all__ = ["TreeExport", "TreeSum", "tree_sum"]

#: What is exported, for the refusals' messages.
EXPORTED = "a refit or a fold bag of a push-family candidate of trees or stumps ('trees', 'stumps')"
#: The way to a choice that is exported, for the refusals' messages (the command line shows its own option).
REFIT_WITH_TREES = "refit with candidates=['trees']"
#: The category refusals' other way out.
NUMBERS = ("refit with the column as numbers (X.astype({col: float}) for numeric categories; the trees then split "
           "the values an engine holds)")


@dataclass(frozen=True)
class TreeSum:
    """The chosen model as the trees a file holds: Σ_t alphas[t] · rankers[t] (+ ``offset``, None for a refit).

    ``models``: the rankcore estimators whose trees these are, in order (the
    refit, then a fold bag's fold models).
    """

    rankers: list
    alphas: list
    offset: float | None
    models: list


def tree_sum(auto, method: str) -> TreeSum:
    """The trees of ``auto``'s chosen model, refusing a choice that is not a sum of rankcore trees.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        ``auto`` is not fitted.
    TypeError
        The choice is a blend, is scored by its candidate's own ``scores``,
        or holds models that are not push-family trees or stumps; the
        message names the choice, why, and what to do.
    """
    check_is_fitted(auto)
    best, name = auto.best_estimator_, auto.best_candidate_
    prefix = f"{type(auto).__name__}.{method}: the chosen model {name!r}"
    if isinstance(best, RankAverage):
        # blend=False alone still chooses among every candidate: on small data, among linear, kernel and ExactBoost
        raise TypeError(f"{prefix} is a rank-average blend, the mean of each member's quantile among its "
                        f"out-of-fold scores: that map is not linear, so no sum of trees gives its score; "
                        f"{REFIT_WITH_TREES} to choose one trees candidate (blend=False alone may choose a model "
                        f"without trees, such as the linear, kernel or ExactBoost ranker)")
    if isinstance(best, FoldBag):
        count = len(best.estimators)
        models, scorer = list(best.estimators), best.scorer
        weights = [1.0 / (count * float(scale)) for scale in best.scales]
        offset = -sum(float(c) / float(s) for c, s in zip(best.centers, best.scales)) / count
        if offset == 0.0:
            offset = 0.0            # not −0.0, the negation of centres summing to 0
    else:
        candidate = getattr(auto, "_candidate", None)
        models, scorer, weights, offset = [best], (candidate.scores if candidate is not None else None), [1.0], None
    if scorer is not None and getattr(scorer, "__func__", scorer) not in (Candidate.scores, candidate_scores):
        raise TypeError(f"{prefix} is scored by its candidate's own scores method, a transform of its model not "
                        f"known to be a sum of trees; only {EXPORTED} is exported")
    for i, model in enumerate(models):
        where = f" (model {i} of its fold bag)" if len(models) > 1 else ""
        problem = _refusal(model, isinstance(best, FoldBag), auto)
        if problem is not None:
            raise TypeError(f"{prefix}{where}: {problem}")
    rankers = [ranker for model in models for ranker in model.rankers_]
    alphas = [weight * float(alpha) for model, weight in zip(models, weights) for alpha in model.alphas_]
    return TreeSum(rankers, alphas, offset, models)


def _refusal(model, bagged: bool, auto) -> str | None:
    """Why ``model`` cannot be written as trees (None: it can)."""
    from sklearn.pipeline import Pipeline

    steps = ()
    while isinstance(model, Pipeline):          # (the imputer's Pipeline may hold the candidate's own)
        steps, model = steps + tuple(step for _, step in model.steps[:-1]), model.steps[-1][1]
    if isinstance(model, _RawScores):
        return _booster_advice(model.model, bagged)
    if not (hasattr(model, "rankers_") and hasattr(model, "to_lightgbm")):
        kind = type(model).__name__
        return (f"{with_article(kind)} is not boosted trees or stumps; only "
                f"{EXPORTED} is exported: {REFIT_WITH_TREES}")
    if steps:
        return _steps_refusal(steps, auto)
    kinds = sorted({getattr(r, "kind", type(r).__name__) for r in model.rankers_} - set(TREE_KINDS))
    if kinds:
        return (f"its learner {model.learner_spec_!r} fits weak rankers of kind {', '.join(map(repr, kinds))}, "
                f"which are not trees or stumps; only {EXPORTED} is exported")
    return None


def _steps_refusal(steps: tuple, auto) -> str:
    """The refusal of trees reading X through transforms (the file's trees would read X's own columns), per step."""
    reasons = []
    imputers = [step for step in steps if isinstance(step, MissingValueImputer)]
    if imputers:
        # the imputer is there for missing values, or for category columns (an unlisted category is scored as a
        # missing value); the refit's imputer saw every row, so its indicators say whether the data had NaN
        names = getattr(auto, "feature_names_in_", None)
        coded = [f"{str(names[j])!r}" if names is not None else f"column {j}"
                 for j, c in enumerate(getattr(auto, "categories_", None) or ()) if c is not None]
        why = []
        if any(len(getattr(step, "indicator_features_", ())) for step in imputers) or not coded:
            why.append("the data have missing values")
        if coded:
            many = len(coded) > 1
            why.append(f"the category column{'s' if many else ''} {', '.join(coded)} score{'' if many else 's'} a "
                       f"category the fit did not list as a missing value")
        reasons.append(f"the missing-value imputer, which its candidate is fitted behind (it takes no missing "
                       f"values) because {' and '.join(why)}")
    others = [type(step).__name__ for step in steps if not isinstance(step, MissingValueImputer)]
    if others:
        reasons.append(f"{', '.join(others)}, {'steps' if len(others) > 1 else 'a step'} of its candidate's own "
                       f"estimator")
    return (f"its trees read X through {'; and through '.join(reasons)}: a file of trees holds splits of X's own "
            f"columns, not of transformed ones; {REFIT_WITH_TREES}, whose trees read X as it is (they route missing "
            f"values and split category columns themselves)")


def _booster_advice(model, bagged: bool) -> str:
    """The refusal of a ``lightgbm`` / ``xgboost`` candidate: its own library's booster is the model file."""
    if hasattr(model, "get_booster"):
        library, save = "an XGBoost", "model.get_booster() (save_model(path))"
    else:
        library, save = "a LightGBM", "model.booster_ (save_model(path))"
    if not bagged:
        return f"{library} model: its own booster is the model file, auto.best_estimator_.{save}"
    return (f"{library} model: each model k's own booster is a model file, auto.best_estimator_.estimators[k]."
            f"{save}, but the bag's mean of their standardized scores is no single booster: fit with "
            f"bag_folds=False for one")


class TreeExport:
    """Mixin of :class:`~rankcore.auto.AutoRanker`: :meth:`to_lightgbm` and :meth:`to_xgboost_json`."""

    @reads_a_snapshot
    def to_lightgbm(self, path=None, *, feature_names=None) -> str:
        """The chosen model as a LightGBM text model file, written to ``path`` if given.

        ``lightgbm.Booster(model_str=text).predict(X, raw_score=True)``
        gives :meth:`decision_function`: for one refit of a ``trees`` (or
        ``stumps``) candidate, its trees as its own ``to_lightgbm`` writes
        them, bit for bit; for the candidate's fold bag, the mean of its M
        models' standardized scores (f_m − c_m) / s_m, one file holding
        every model's trees in turn (the refit's first, then fold by fold),
        each tree's leaf values times its model's weight 1 / (M s_m), and a
        last tree of one leaf, the constant −Σ_m c_m / (M s_m).  The bag sums
        each model's score before weighing it and LightGBM sums tree by tree,
        so a bag's scores agree to rounding (about 1e-12 relative), not bit
        for bit.  ``pred_contrib`` then gives :meth:`feature_contributions`
        (the constant is in the expected value).  Feature names are
        ``feature_names`` if given, else the AutoRanker's (a DataFrame's
        columns), and its ``category`` columns are written as
        ``pandas_categorical``, so LightGBM codes a DataFrame as the fit did
        (each category by its position in ``categories_``, as the
        candidates read it).  Splits, missing values, counts and what
        LightGBM reads differently: the push estimators' ``to_lightgbm``
        (``docs/serving.md``).
        The file is written atomically.  A ``DaskAutoRanker`` (its model is
        on the client) exports the same way.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        feature_names : sequence of str, optional
            One unique nonempty name per feature (``n_features_in_``), in
            column order, in place of ``feature_names_in_``.

        Returns
        -------
        str
            The model text.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The AutoRanker is not fitted.
        TypeError
            The choice is not a sum of rankcore trees: a rank-average blend,
            a candidate without trees (linear, kernel, ExactBoost), trees
            reading X through a transform (the missing-value imputer, a
            plugin's own steps) -- fit with ``candidates=['trees']`` -- or a
            ``lightgbm`` / ``xgboost`` candidate, whose own booster is the
            model (``best_estimator_.model.booster_`` or
            ``.model.get_booster()``); the message names the choice and why;
            or ``feature_names`` is not a sequence of strings.
        ValueError
            As the push estimators' ``to_lightgbm``: names that become the
            same, ``feature_names`` not one name per feature, a ``category``
            column whose categories are not strings, numbers or booleans
            (dates, intervals: convert them before fit, ``.astype(str)``).
        """
        trees = tree_sum(self, "to_lightgbm")
        warn_init_score(self, f"{type(self).__name__}.to_lightgbm", "LightGBM's raw score")
        n_features = int(self.n_features_in_)
        names = (getattr(self, "feature_names_in_", None) if feature_names is None
                 else checked_feature_names(feature_names, n_features))
        text = lightgbm_model_string(trees.rankers, trees.alphas, n_features, feature_names=names,
                                     categories=getattr(self, "categories_", None),
                                     owner=f"{type(self).__name__} {self.best_candidate_!r}", offset=trees.offset,
                                     names_given=feature_names is not None)
        write_exported_text(text, path)
        return text

    @reads_a_snapshot
    def to_xgboost_json(self, path=None, *, feature_names=None) -> str:
        """The chosen model as XGBoost's JSON dump (Elasticsearch / OpenSearch LTR, Vespa), written to ``path``.

        The trees of :meth:`to_lightgbm` -- one refit's, or a fold bag's
        models' in turn with leaf values times their weights 1 / (M s_m) and
        a last tree of one leaf, the bag's constant -- in the format of the
        push estimators' ``to_xgboost_json`` (``docs/serving.md``): read as the
        engines read it (float32 features and conditions, x < c), it scores
        float32 rows as :meth:`decision_function` (a fold bag to rounding,
        about 1e-12 relative).  ``split`` names the feature:
        ``feature_names`` if given, else ``feature_names_in_``, else
        ``f0, f1, ...``.  A DataFrame's ``category`` column cannot be
        written: a ``trees`` candidate splits it by groups of categories,
        which the engines read no sets for (:meth:`to_xgboost_model` writes
        them), or -- oblivious trees -- as numbers, the category's position
        in ``categories_`` the candidates read, where an engine holds its
        value; both are refused (``to_lightgbm`` holds them).  The file is
        written atomically.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        feature_names : sequence of str, optional
            One unique nonempty name per feature (``n_features_in_``).

        Returns
        -------
        str
            The JSON text.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The AutoRanker is not fitted.
        TypeError
            As :meth:`to_lightgbm`; or a name is not a string.
        ValueError
            A tree splits a DataFrame's ``category`` column, by groups or as
            numbers (the message names the column, the tree and the node);
            ``feature_names`` is not one unique nonempty name per feature.
        """
        trees = tree_sum(self, "to_xgboost_json")
        warn_init_score(self, f"{type(self).__name__}.to_xgboost_json", "the engine's score")
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        _refuse_category_splits(self, trees)
        categories = getattr(self, "categories_", None)
        text = xgboost_json_string(trees.rankers, trees.alphas, int(self.n_features_in_),
                                   feature_names=feature_names, categories=categories,
                                   owner=f"{type(self).__name__} {self.best_candidate_!r}", offset=trees.offset)
        write_exported_text(text, path)
        return text

    @reads_a_snapshot
    def to_xgboost_model(self, path=None, *, feature_names=None) -> str:
        """The chosen model as an XGBoost model file (``xgboost.Booster`` loads it), written to ``path``.

        The trees of :meth:`to_lightgbm` -- one refit's, or a fold bag's
        models' in turn with leaf values times their weights and a last tree
        of one leaf, the bag's constant -- written as the push estimators'
        ``to_xgboost_model`` writes them (``docs/serving.md``): XGBoost's
        ``output_margin`` scores are :meth:`decision_function` to float32
        rounding; categorical splits are written as category sets, a
        DataFrame's ``category`` columns read by their codes (give the frame
        the fit's ``categories_``).  The file is written atomically.

        Parameters
        ----------
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        feature_names : sequence of str, optional
            One unique nonempty name per feature (``n_features_in_``).

        Returns
        -------
        str
            The JSON text.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The AutoRanker is not fitted.
        TypeError
            As :meth:`to_lightgbm`; or a name is not a string.
        ValueError
            A categorical split holds a category that is not an integer from
            0 to 2^24 − 1; ``feature_names`` is not one unique nonempty name
            per feature, or a name holds ``[``, ``]``, ``<`` or a control
            character (which XGBoost does not take).
        """
        trees = tree_sum(self, "to_xgboost_model")
        warn_init_score(self, f"{type(self).__name__}.to_xgboost_model", "XGBoost's score")
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        text = xgboost_model_string(trees.rankers, trees.alphas, int(self.n_features_in_),
                                    feature_names=feature_names, categories=getattr(self, "categories_", None),
                                    owner=f"{type(self).__name__} {self.best_candidate_!r}", offset=trees.offset)
        write_exported_text(text, path)
        return text

def _refuse_category_splits(auto, trees: TreeSum) -> None:
    """Refuse a split of a category column -- by groups or as numbers -- before anything is written, naming the
    column and the AutoRanker's ways out."""
    names = getattr(auto, "feature_names_in_", None)
    coded = [j for j, c in enumerate(getattr(auto, "categories_", None) or ()) if c is not None]
    start = f"{type(auto).__name__}.to_xgboost_json: the chosen model {auto.best_candidate_!r} splits"
    for m, model in enumerate(trees.models):
        model_of = f"model {m} of the fold bag, " if len(trees.models) > 1 else ""
        for t, ranker in enumerate(model.rankers_):
            for node, categories in enumerate(getattr(ranker, "categories", ()) or ()):
                if categories is not None:
                    j = int(ranker.feature[node])
                    raise ValueError(f"{start} {_column(names, j)} by categories ({model_of}tree {t}, node {node}); "
                                     f"the engines reading XGBoost's JSON dump test numbers only: export with "
                                     f"to_xgboost_model or to_lightgbm, or {NUMBERS}")
            found = numeric_split_on(ranker, coded)
            if found is not None:
                node, j = found
                where = f"level {node}" if getattr(ranker, "kind", None) == "oblivious_tree" else f"node {node}"
                raise ValueError(f"{start} {_column(names, j)}, a pandas 'category' column at fit, as numbers "
                                 f"({model_of}tree {t}, {where}; trees split a category column by groups only "
                                 f"when not oblivious and within max_bins categories): the candidates read it as "
                                 f"the category's position in auto.categories_[{j}] (0, 1, ...), so the dump's "
                                 f"conditions are on positions, and an engine would have to be fed that position, "
                                 f"not the value it holds; export with to_lightgbm (LightGBM codes a DataFrame's "
                                 f"category column by the categories its file lists), or {NUMBERS}")


def _column(names, j: int) -> str:
    return f"{str(names[j])!r} (column {j})" if names is not None else f"column {j}"
