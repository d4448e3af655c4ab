"""Other libraries' names for what rankcore's estimators and their learners' specs call otherwise.

A foundation module: :mod:`rankcore.spec` reads it to name ``trees:max_leaves`` where a learner spec says
``num_leaves``, the push estimators (``rankcore.push._peer_names``) for their parameters and ``fit``, and the command
line for an option spelled as another library's (``--n-estimators``), without loading any estimator.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Callable, Collection, NamedTuple

__all__ = ["VERBOSE_RULE", "PEER_NAMES", "PEER_NAMES_WITHOUT", "PEER_FIT_NAMES", "PEER_PREDICT_NAMES", "PeerFitName",
           "QUERY_ARGUMENTS", "fit_argument_of", "names_in_hint", "names_peer_fit_arguments",
           "names_peer_predict_arguments", "explains_rows_alone", "names_peer_score_arguments",
           "no_sample_weight_refusal", "peer_fit_hint",
           "peer_name_hint", "peer_predict_hint", "query_argument_refusal", "score_takes_no_queries",
           "takes_no_sample_weight", "PEER_METHODS", "peer_method_hint", "PEER_FITTED", "RECORDED_BY",
           "peer_fitted_hint"]

# where scikit-learn's warm_start (a parameter) and other libraries' continued models are here: a fit's argument
_CONTINUE = ("fit(X, y, init_model=...) (the fitted model, or its model file, to continue: the new model holds its "
             "trees, then up to n_iter new ones; a fit without it starts over)")

#: What ``verbose`` accepts, in its refusal: LightGBM's usual silent value, -1, is refused here (a negative count of
#: lines means nothing), so the refusal says which value is silent.
VERBOSE_RULE = "an integer >= 0 (0 is silent here, as LightGBM's verbose=-1)"

#: LightGBM's, XGBoost's, CatBoost's and scikit-learn's names for what ``PushBoost`` and its trees call otherwise.
PEER_NAMES = {
    **dict.fromkeys(("n_estimators", "num_boost_round", "num_iterations", "iterations"), "n_iter=N"),
    **dict.fromkeys(("learning_rate", "eta"), 'learner="trees:learning_rate=R"'),
    **dict.fromkeys(("num_leaves", "max_leaf_nodes"), 'learner="trees:max_leaves=L"'),
    "max_depth": 'learner="trees:max_depth=D"',
    # CatBoost's depth is that of its symmetric trees: a spec naming max_depth alone grows leaf-wise ones
    "depth": 'learner="trees:max_depth=D,growth=oblivious" (symmetric trees as CatBoost\'s; growth=depthwise '
             'with category columns, which symmetric trees do not split)',
    # CatBoost's SymmetricTree, Depthwise and Lossguide
    "grow_policy": 'learner="trees:growth=oblivious" (or depthwise, leafwise)',
    "leaf_estimation_iterations": 'learner="trees:leaf_newton_steps=N"',
    **dict.fromkeys(("min_child_samples", "min_data_in_leaf", "min_samples_leaf"),
                    'learner="trees:min_samples_leaf=M"'),
    **dict.fromkeys(("min_child_weight", "min_sum_hessian_in_leaf"), 'learner="trees:min_child_weight=H"'),
    **dict.fromkeys(("reg_lambda", "lambda_l2", "l2_leaf_reg", "lambda"), 'learner="trees:l2=V"'),
    # XGBoost's: its trees are histogram trees (tree_method="hist"), as rankcore's are
    "tree_method": 'learner="trees:max_bins=B" (histogram trees, as XGBoost\'s tree_method="hist")',
    **dict.fromkeys(("enable_categorical", "feature_types"),
                    "categorical_features=[...] (column indices or names; a DataFrame's pandas 'category' columns "
                    "need none) with learner=\"trees\", which splits by groups of categories"),
    # a constant added to every score moves no ranking; a start per row is init_score
    "base_score": "fit(X, y, init_score=...) for a start per row (a constant start ranks as none does, so rankcore "
                  "has no base_score)",
    "ndcg_exp_gain": 'objective="lambdarank:gain=linear" for ndcg_exp_gain=False (the default gain is 2^grade - 1), '
                     'and scoring="ndcg@k:10,convention=xgboost,gain=linear" for its ndcg@10',
    **dict.fromkeys(("lambdarank_pair_method", "lambdarank_num_pair_per_sample"),
                    'objective="lambdarank:truncation=T" (pairs with a row among the first T places of each query, '
                    'the nearest to lambdarank_pair_method="topk" with lambdarank_num_pair_per_sample=T)'),
    "max_delta_step": 'learner="trees:max_delta_step=D" (|leaf value| <= D before the learning rate)',
    **dict.fromkeys(("subsample", "bagging_fraction"), 'learner="trees:subsample=F"'),
    # LightGBM bags only with subsample_freq > 0; the trees draw their rows anew for every tree whenever subsample < 1
    **dict.fromkeys(("subsample_freq", "bagging_freq"),
                    'learner="trees:subsample=F" (rows drawn anew for every tree, as subsample_freq=1; '
                    'trees:subsample=1 draws none, as subsample_freq=0)'),
    **dict.fromkeys(("colsample_bytree", "feature_fraction", "rsm"), 'learner="trees:colsample=F"'),
    "sampling_unit": 'learner="trees:bagging_unit=query" (with trees:bagging_temperature=T)',
    **dict.fromkeys(("max_bin", "border_count"), 'learner="trees:max_bins=B"'),
    # within queries early_stopping="auto" only watches an eval_set: the patience alone would be ignored there
    **dict.fromkeys(("early_stopping_rounds", "early_stopping_round", "od_wait"),
                    "n_iter_no_change=N with fit(..., eval_set=...) (or early_stopping=True; within queries, "
                    "fit(..., qid=...), also early_stopping=True: without it an eval_set is watched, not stopped on)"),
    "use_best_model": "early_stopping=True with fit(..., eval_set=...): the model keeps its trees up to the best "
                      "iteration, best_iteration_ (a count: CatBoost's get_best_iteration() + 1)",
    "loss_function": 'objective="yetirank" (YetiRank), objective="mp-squared" with fit(..., qid=...) (QueryRMSE), '
                     'objective="lambdarank"; the per-query default is the push with a QueryRMSE term',
    "cat_features": "categorical_features=[...] (column indices or names); a DataFrame's pandas 'category' columns "
                    "need none, and a column of text must be made one (X.astype({'brand': 'category'}))",
    # LightGBM's constructor parameter and its aliases (its fit's categorical_feature is in PEER_FIT_NAMES)
    **dict.fromkeys(("categorical_feature", "cat_feature", "categorical_column", "cat_column"),
                    "categorical_features=[...] (column indices or names; a DataFrame's pandas 'category' columns "
                    "need none)"),
    # LightGBM's and XGBoost's switch to one category against the rest below a count of categories, CatBoost's
    # one-hot columns: the trees' group search has no such switch, but a left group of one category is that split
    **dict.fromkeys(("max_cat_to_onehot", "one_hot_max_size"),
                    'learner="trees:max_cat_threshold=1" (one category against the rest at every categorical split; '
                    "the trees do not switch by the number of categories)"),
    "min_data_per_group": 'learner="trees:min_samples_leaf=M" (the fewest rows on each side of any split, '
                          "categorical ones included)",
    "cat_l2": 'learner="trees:l2=V" (one L2 penalty for every split, categorical ones included; trees:cat_smooth=S '
              "smooths the order of the categories)",
    "pairs": "fit(X, y, qid=...) with grades (no list of pairs: every pair of different grades within a query "
             "is one)",
    # no class weights: a uniform weight per class is a per-row weight, which fit takes
    **dict.fromkeys(("scale_pos_weight", "class_weight", "is_unbalance", "auto_class_weights"),
                    "fit(X, y, sample_weight=np.where(y == 1, W, 1.0)) (per-row weights; rankcore has no class "
                    "weights: a ranking objective compares positives with negatives, so the classes need no "
                    "balancing)"),
    **dict.fromkeys(("metric", "eval_at"), 'scoring="ndcg@k:10" (any registered metric)'),
    "label_gain": 'objective="lambdarank:gain=0/1/3/7" (gains per grade, as ndcg@k\'s gain)',
    "lambdarank_truncation_level": 'objective="lambdarank:truncation=T"',
    "lambdarank_norm": 'objective="lambdarank:norm=false" (for lambdarank_norm=False; true is the default, as '
                       "LightGBM's)",
    "sigmoid": 'objective="lambdarank:sigmoid=S" (the sigmoid of LambdaMART\'s pairs, 1 by default as LightGBM\'s)',
    **dict.fromkeys(("monotone_constraints", "monotone_constraint"),
                    'learner="trees:monotone=1/0/-1" (a sign per column of X)'),
    "interaction_constraints": 'learner="trees:interactions=0+1/2+3+4" (groups of columns of X: \'+\' joins a '
                               'group\'s columns, \'/\' separates the groups; a DataFrame\'s columns also by name)',
    **dict.fromkeys(("num_threads", "nthread", "thread_count"), "n_jobs=N"),
    "warm_start": _CONTINUE,
    # read from a fitted model, not set before the fit: a method, so the parameters and the file stay the fit's
    "importance_type": 'model.feature_importances(kind="split") or kind="gain" (feature_importances_, gain '
                       "normalised to sum 1), read after the fit",
    **dict.fromkeys(("seed", "random_seed", "bagging_seed", "feature_fraction_seed", "data_random_seed"),
                    "random_state=S"),
}


#: LightGBM's (and XGBoost's) parameters that rankcore's trees have no equivalent of: what they lack, then the nearest
#: setting where one is near (each checked against the trees' parameters: rankcore.learners.trees.Trees).
PEER_NAMES_WITHOUT = {
    **dict.fromkeys(("reg_alpha", "lambda_l1", "l1_regularization"),
                    'the trees have no L1 penalty on leaf values; the nearest is the L2 penalty, '
                    'learner="trees:l2=V", or a cap on each leaf value, learner="trees:max_delta_step=D"'),
    **dict.fromkeys(("min_split_gain", "min_gain_to_split", "min_split_loss"),
                    'the trees have no minimum split gain; the nearest is a floor on '
                    'each leaf, learner="trees:min_child_weight=H" or "trees:min_samples_leaf=M", or an L2 '
                    'penalty (learner="trees:l2=V"), which lowers the gain of the splits of few rows'),
    **dict.fromkeys(("boosting_type", "boosting"),
                    "the trees are always plain gradient boosting (LightGBM's 'gbdt', CatBoost's 'Plain'; leave "
                    "it out for those): no 'dart', 'rf', 'goss' or 'Ordered'; the nearest to goss's row sampling is "
                    'learner="trees:subsample=F" (rows drawn uniformly for every tree, not by gradient size)'),
    **dict.fromkeys(("extra_trees", "extra_tree"),
                    "the trees search every histogram threshold (no random thresholds); the nearest randomness "
                    'is noise on each node\'s choice of feature, learner="trees:random_strength=R", or rows and '
                    'columns drawn per tree, learner="trees:subsample=F,colsample=F"'),
    **dict.fromkeys(("linear_tree", "linear_trees"),
                    "each leaf holds a constant (no linear model in the leaves), and no setting is near it"),
    "max_position": 'there is no position NDCG is optimized at; the nearest is objective="lambdarank:truncation=T" '
                    "(pairs with a row among the first T places of each query), watched with "
                    'scoring="ndcg@k:T"',
}


def peer_name_hint(name: str) -> str:
    """``"other libraries' num_leaves is learner=\"trees:max_leaves=L\" here"``, or for a name of
    :data:`PEER_NAMES_WITHOUT` ``"other libraries' reg_alpha has no equivalent here: ..."``; "" for any other name."""
    if name in PEER_NAMES:
        return f"other libraries' {name} is {PEER_NAMES[name]} here"
    if name in PEER_NAMES_WITHOUT:
        return f"other libraries' {name} has no equivalent here: {PEER_NAMES_WITHOUT[name]}"
    return ""


class PeerFitName(NamedTuple):
    """Where another library's ``fit`` argument is in rankcore.

    Attributes
    ----------
    argument : str or None
        rankcore's ``fit`` argument of the same role (what :func:`rankcore.boost` names when given the peer's name),
        or None.
    where : str
        The push estimators' way to say it: a ``fit`` call with a note, or the parameter's setting.
    auto : str
        ``AutoRanker.fit``'s own hint where the push's does not hold for it; empty: ``where`` holds.
    parameter : bool
        ``where`` is a parameter's setting, which the hint prefixes with the estimator to set it on.
    needs : tuple of str
        What else ``where`` relies on that it does not set by name (the query ids inside an ``eval_set``).
    """

    argument: str | None
    where: str
    auto: str = ""
    parameter: bool = False
    needs: tuple[str, ...] = ()


def _parameter(name: str, auto: str = "") -> PeerFitName:
    """An entry whose rankcore counterpart is the estimator's parameter :data:`PEER_NAMES` names."""
    return PeerFitName(None, PEER_NAMES[name], auto, parameter=True)


# AutoRanker has no early stopping of its own to set: each boosted candidate stops by its own rule
_AUTO_STOPPING = ("not a setting of AutoRanker: the boosted candidates stop early by their own rule "
                  "(early_stopping='auto'), and a candidate's settings are its spec: AutoRanker(candidates=[...])")
# AutoRanker reads a DataFrame's category columns; it takes no list of them
_AUTO_CATEGORIES = ("X as a pandas DataFrame whose category columns are the categorical ones (AutoRanker takes no "
                    "list of them; a column of text must be made one: X.astype({'brand': 'category'}))")

#: Other libraries' arguments of ``fit`` (CatBoost's ``fit(group_id=..., cat_features=...)``, XGBoost's
#: ``base_margin``, ...) and what they are here: a ``fit`` argument, or a parameter of the estimator.  The one table
#: of them: :func:`rankcore.boost`'s refusals read its ``argument``, every ``fit``'s refusal its ``where``.
PEER_FIT_NAMES = {
    "group_id": PeerFitName("qid", "fit(X, y, qid=...) (one query id per row, of any hashable type; the rows need "
                                   "not be sorted)"),
    # scikit-learn's name for one group id per row (GroupKFold's groups=): a query id per row here, or LightGBM's sizes
    "groups": PeerFitName("qid", "fit(X, y, qid=...) (one query id per row, as scikit-learn's groups; or group=... "
                                 "with LightGBM's sizes of consecutive queries)"),
    "group_weight": PeerFitName("sample_weight", "fit(X, y, sample_weight=...) (one weight per row, its query's; "
                                                 "the push weighs a pair by the product of its rows' weights; docs: "
                                                 "ranking within queries, Weights)",
                                auto="fit(X, y, sample_weight=...) (one weight per row, its query's)"),
    **dict.fromkeys(("baseline", "base_margin"), PeerFitName("init_score", "fit(X, y, init_score=...)")),
    # XGBoost's fit: one array per eval_set
    "base_margin_eval_set": PeerFitName("eval_init_score", "fit(X, y, eval_set=..., eval_init_score=[...]) (one array "
                                                           "per eval_set)"),
    **dict.fromkeys(("sample_weight_eval_set", "eval_sample_weight"),
                    PeerFitName(None, "fit(X, y, eval_set=...) alone: rankcore scores an eval_set without weights "
                                      "(XGBoost weighs each query's value by its group weight)")),
    "xgb_model": PeerFitName("init_model", "fit(X, y, init_model=...)"),
    # scikit-learn's warm_start: a refit of the same estimator adds trees; here a fit names the model it continues
    "warm_start": PeerFitName("init_model", _CONTINUE),
    **dict.fromkeys(("eval_group", "eval_qid"),
                    PeerFitName("eval_set", "fit(X, y, eval_set=(X_val, y_val, qid_val)) (the validation rows' "
                                            "query ids are the third member of each set)", needs=("qid",))),
    "pairs": PeerFitName(None, PEER_NAMES["pairs"]),
    # LGBMRanker.fit's: NDCG at several cut-offs on each eval_set, and its names for columns
    "eval_at": PeerFitName(None, 'fit(X, y, eval_set=..., eval_metric=["ndcg@k:1", "ndcg@k:5"]) (more curves per '
                                 'set in evals_result_; the one watched is rankcore.boost(scoring="ndcg@k:5"))',
                           auto='AutoRanker(metric="ndcg@k:5") (the metric the search chooses by)'),
    "categorical_feature": PeerFitName(None, "categorical_features=[...] (column indices or names; a DataFrame's "
                                             "pandas 'category' columns need none)", auto=_AUTO_CATEGORIES,
                                       parameter=True),
    "feature_name": PeerFitName(None, "X as a pandas DataFrame whose columns are the names"),
    "verbose": PeerFitName(None, "verbose=1", parameter=True),
    "cat_features": _parameter("cat_features", auto=_AUTO_CATEGORIES),
    **{name: _parameter(name, auto=_AUTO_STOPPING) for name in ("early_stopping_rounds", "od_wait", "use_best_model")},
}


def fit_argument_of(name: str) -> str | None:
    """rankcore's ``fit`` argument for another library's ``fit`` argument ``name``, or None (not one of them)."""
    entry = PEER_FIT_NAMES.get(name)
    return entry.argument if entry is not None else None


def peer_fit_hint(name: str, constructor: str = "rankcore.boost", *, auto: bool = False,
                  takes: Collection[str] | None = None) -> str | None:
    """Where another library's ``fit`` argument ``name`` is here, or None when it is not one of them.

    Parameters
    ----------
    name : str
        The argument's name, as the other library's ``fit`` takes it.
    constructor : str
        What makes the estimator whose parameter it may be (``"rankcore.boost"``, ``"AutoRanker"``).
    auto : bool
        The hint of ``AutoRanker.fit`` (whose parameters are not the push's).
    takes : collection of str, optional
        The ``fit`` arguments and parameters the estimator takes (None: the push's, all of them).  A hint that
        names another (``init_model`` to an estimator that continues no model) says so instead of sending the
        user to a refusal.
    """
    entry = PEER_FIT_NAMES.get(name)
    if entry is None:
        return None
    if auto and entry.auto:
        return entry.auto
    missing = [] if takes is None else [word for word in names_in_hint(entry) if word not in takes]
    if missing:
        return (f"without a counterpart in {constructor} ({missing[0]}, which rankcore's would need, is none of its "
                f"fit arguments or parameters)")
    if entry.parameter:
        return f"a parameter of {constructor}(...): {entry.where}"
    return entry.where


# a name set in a hint: "fit(X, y, init_model=...)", "categorical_features=[...]" (not one inside a spec string,
# 'learner="trees:max_bins=B"', whose name follows a colon)
_SET_NAME = re.compile(r"(?:^|[\s(,])(\w+)=")


def names_in_hint(entry: PeerFitName) -> list[str]:
    """The ``fit`` arguments and parameters a push estimator's hint (``entry.where``) sends the user to."""
    names = [entry.argument] if entry.argument else []
    names += [word for word in _SET_NAME.findall(entry.where) if word not in names]
    return names + [word for word in entry.needs if word not in names]


def names_peer_fit_arguments(fit: Callable | None = None, *, constructor: str | None = "rankcore.boost",
                             auto: bool = False, refuses: tuple[str, ...] = ()) -> Callable:
    """Decorate a ``fit``: another library's argument it does not take is a TypeError naming rankcore's.

    Any other unknown argument gets Python's own TypeError; ``fit``'s signature (which scikit-learn's metadata
    routing reads) is the decorated one's.  Used bare (``@names_peer_fit_arguments``) or with ``constructor`` and
    ``auto`` of :func:`peer_fit_hint` (``constructor=None``: the estimator's class, ``DaskPushBoost(...)``).
    With ``constructor=None`` a hint names only what the estimator takes: its ``fit`` arguments but ``refuses``
    (those its signature keeps for scikit-learn's sake and refuses, as AutoRanker's ``init_model``) and its
    parameters; a peer's argument with no counterpart there is said to have none.
    """
    if fit is None:
        return functools.partial(names_peer_fit_arguments, constructor=constructor, auto=auto, refuses=refuses)
    known = set(inspect.signature(fit).parameters)

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        if "sample_weight" in kwargs and "sample_weight" not in known:
            raise no_sample_weight_refusal(self, fit.__name__)
        for name in kwargs:
            hint = None if name in known else _hint(self, name, constructor, auto, known.difference(refuses))
            if hint is not None:
                raise TypeError(f"{name}: {type(self).__name__}.fit takes no argument {name!r}; other libraries' "
                                f"{name} is here {hint}")
        return fit(self, *args, **kwargs)

    return wrapper


def _hint(estimator, name: str, constructor: str | None, auto: bool, arguments: set) -> str | None:
    """:func:`peer_fit_hint` of ``name`` for ``estimator``: with ``constructor=None``, of what it takes."""
    if constructor is not None:
        return peer_fit_hint(name, constructor, auto=auto)
    takes = arguments.union(estimator.get_params(deep=False))
    return peer_fit_hint(name, type(estimator).__name__, auto=auto, takes=takes)


# the scores after the first n iterations, LightGBM's predict(X, num_iteration=n)
_FIRST_ITERATIONS = ("the n-th array of staged_decision_function(X): next(itertools.islice("
                     "model.staged_decision_function(X), n - 1, None)); a model fitted with early_stopping=True holds "
                     "its best_iteration_ iterations only, so its decision_function(X) is already "
                     "predict(X, num_iteration=best_iteration_); without early stopping LightGBM's best_iteration_ "
                     "is 0 and its predict then uses every tree, which is decision_function(X) here too (the "
                     "best_iteration_ here is then the best watched iteration, which the model goes past)")

#: LightGBM's and XGBoost's arguments of ``predict`` and what a push estimator's ``decision_function`` does instead.
PEER_PREDICT_NAMES = {
    **dict.fromkeys(("num_iteration", "iteration_range", "ntree_limit", "start_iteration"), _FIRST_ITERATIONS),
    **dict.fromkeys(("raw_score", "output_margin"), "decision_function(X) alone: its scores are the raw scores"),
    **dict.fromkeys(("pred_contrib", "pred_contribs"),
                    "feature_contributions(X) (one column per feature, then the expected value, as pred_contrib)"),
    "pred_leaf": "apply(X) (each row's leaf per tree, numbered by node id: docs, tree explanations)",
    "pred_interactions": "feature_interactions(X)",
}

#: The method a hint of :data:`PEER_PREDICT_NAMES` sends the user to: an estimator without it (KernelRanker has no
#: iterations, ExactBoost no trees to apply) is told there is no counterpart, not sent to a missing method.
_PREDICT_NEEDS = {
    **dict.fromkeys(("num_iteration", "iteration_range", "ntree_limit", "start_iteration"),
                    "staged_decision_function"),
    **dict.fromkeys(("pred_contrib", "pred_contribs"), "feature_contributions"),
    "pred_leaf": "apply",
    "pred_interactions": "feature_interactions",
}


def peer_predict_hint(estimator, name: str) -> str:
    """Where LightGBM's or XGBoost's ``predict(X, name=...)`` is in ``estimator`` (``name`` in
    :data:`PEER_PREDICT_NAMES`): the hint, or "without a counterpart" when it lacks the method the hint names."""
    needed = _PREDICT_NEEDS.get(name)
    if needed is None or callable(getattr(type(estimator), needed, None)):
        return PEER_PREDICT_NAMES[name]
    return f"without a counterpart in {type(estimator).__name__} (it has no {needed})"


#: The arguments of a fit that say each row's query, which no scoring method takes.
QUERY_ARGUMENTS = ("qid", "group")

# why a scoring method takes no query ids, and how to rank the rows of each query with its scores (no helper of the
# Python API does: an argsort per query is one line of NumPy)
_SCORES_ROWS_ALONE = ("a row's score does not depend on its query (the model scores each row alone, as a tree model "
                      "does), so score every row and sort within each query: order = np.lexsort((-scores, qid)) lists "
                      "the rows query by query, best first; on the command line, rankcore score MODEL DATA --qid "
                      "COLUMN --top K")
# LightGBM's group sizes as the query ids the sort above reads
_GROUP_AS_QID = " (LightGBM's group sizes as ids: qid = np.repeat(np.arange(len(group)), group))"


def query_argument_refusal(estimator, method: str, name: str) -> TypeError:
    """The TypeError of ``estimator.method(X, qid=...)`` (or ``group=``): what Python's "unexpected keyword
    argument" leaves unsaid -- that the scores need no query, and how to rank each query's rows with them."""
    return TypeError(f"{name}: {type(estimator).__name__}.{method} takes no {name}: {_SCORES_ROWS_ALONE}"
                     + (_GROUP_AS_QID if name == "group" else ""))


def _refusing_arguments(method: Callable, refusal: Callable) -> Callable:
    """``method`` whose keyword arguments are first shown to ``refusal(self, method name, argument)``: the
    TypeError it returns is raised (None: the argument goes on to ``method``), the signature kept (scikit-learn's
    metadata routing reads it)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        for name in kwargs:
            error = refusal(self, method.__name__, name)
            if error is not None:
                raise error
        return method(self, *args, **kwargs)

    return wrapper


#: What each explaining method gives per row, for its refusal of query ids.
_EXPLAINED = {"apply": "leaves", "feature_contributions": "contributions", "feature_interactions": "interactions"}


def _explanation_refusal(estimator, method: str, name: str) -> TypeError | None:
    """The TypeError of ``apply``/``feature_contributions``/``feature_interactions`` given ``qid`` or ``group``:
    each row is explained alone, so the query ids have nothing to change; a query's rows are chosen from X."""
    if name not in QUERY_ARGUMENTS:
        return None
    what = _EXPLAINED.get(method, "results")
    return TypeError(f"{name}: {type(estimator).__name__}.{method} takes no {name}: a row's {what} do not depend on "
                     f"its query (the model scores each row alone, as a tree model does), so pass X alone; for the "
                     f"rows of some queries, pass those rows: X[np.isin(qid, wanted)]"
                     + (_GROUP_AS_QID if name == "group" else ""))


def explains_rows_alone(method: Callable) -> Callable:
    """Decorate ``apply``, ``feature_contributions`` or ``feature_interactions``: ``qid``/``group`` a TypeError
    naming the argument and what to pass instead (Python's own names only the argument), the signature kept."""
    return _refusing_arguments(method, _explanation_refusal)


def _one_list_score_refusal(estimator, method: str, name: str) -> TypeError | None:
    if name not in QUERY_ARGUMENTS:
        return None
    owner = type(estimator).__name__
    return TypeError(f"{name}: {owner}.{method} takes no {name}: {owner} ranks one list (its fit refuses query ids "
                     f"too), and score rates that one list; a metric within queries of its scores is "
                     f"rankcore.evaluate(y, model.decision_function(X), ['ndcg@k:10'], qid=qid), and "
                     f"rankcore.boost(...).fit(X, y, qid=qid) fits within queries")


def score_takes_no_queries(score: Callable) -> Callable:
    """Decorate the ``score`` of an estimator that ranks one list: ``qid``/``group`` a TypeError saying where a
    metric within queries is, the signature kept."""
    return _refusing_arguments(score, _one_list_score_refusal)


def _predict_refusal(estimator, method: str, name: str) -> TypeError | None:
    if name in QUERY_ARGUMENTS:
        return query_argument_refusal(estimator, method, name)
    if name in PEER_PREDICT_NAMES:
        return TypeError(f"{name}: {type(estimator).__name__}.{method} takes no argument {name!r}; other libraries' "
                         f"predict(X, {name}=...) is here {peer_predict_hint(estimator, name)}")
    return None


def names_peer_predict_arguments(method: Callable) -> Callable:
    """Decorate a scoring method (``decision_function``): LightGBM's or XGBoost's ``predict`` argument is a TypeError
    naming what rankcore does instead (Python's own names neither), and so are ``qid``/``group``
    (:func:`query_argument_refusal`), the signature kept."""
    return _refusing_arguments(method, _predict_refusal)


#: Other libraries' names of the query ids that ``score(X, y, qid=...)`` takes: scikit-learn's ``groups`` (a group
#: id per row, as GroupKFold's) and CatBoost's ``group_id``.
_PEER_SCORE_NAMES = {
    "groups": "score(X, y, qid=...) (one query id per row, as scikit-learn's groups; or group=... with LightGBM's "
              "sizes of consecutive queries)",
    "group_id": "score(X, y, qid=...) (one query id per row)",
}


def _peer_score_refusal(estimator, method: str, name: str) -> TypeError | None:
    if name not in _PEER_SCORE_NAMES:
        return None
    return TypeError(f"{name}: {type(estimator).__name__}.{method} takes no argument {name!r}; other libraries' "
                     f"{name} is here {_PEER_SCORE_NAMES[name]}")


def names_peer_score_arguments(method: Callable) -> Callable:
    """Decorate a ``score`` that takes ``qid``: another library's name of the query ids is a TypeError naming
    ``qid`` (Python's own names neither), the signature kept."""
    return _refusing_arguments(method, _peer_score_refusal)


def no_sample_weight_refusal(estimator, method: str = "fit") -> TypeError:
    """The TypeError of ``estimator.method(..., sample_weight=...)`` for an estimator whose fit takes no weights.

    Python's own "unexpected keyword argument" names neither what the estimator lacks nor where weights are taken.
    Its ``fit`` keeps no ``sample_weight`` in its signature: AutoRanker, the command line and scikit-learn's
    ``has_fit_parameter`` read the signature to tell the estimators that take weights.
    """
    owner = type(estimator).__name__
    where = "DaskPushBoost(...)" if owner.startswith("Dask") else "rankcore.boost(...)"
    return TypeError(f"sample_weight: {owner}.{method} takes no sample weights (its objective counts every row "
                     f"once); {where}.fit(X, y, sample_weight=w) fits weighted rows")


def takes_no_sample_weight(method: Callable) -> Callable:
    """Decorate a method without ``sample_weight`` (``partial_fit``): the keyword refused by
    :func:`no_sample_weight_refusal`, the signature kept."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if "sample_weight" in kwargs:
            raise no_sample_weight_refusal(self, method.__name__)
        return method(self, *args, **kwargs)

    return wrapper


# LightGBM's booster_ and XGBoost's get_booster(): the library's own model object, which the estimator is here
_BOOSTER = ("the estimator itself: rankcore.save_model(model, path) saves it (JSON, no pickle), "
            "model.to_lightgbm(path) writes a LightGBM model file (where the push estimator's learner has one)")

#: LightGBM's, XGBoost's and CatBoost's methods and attributes of a fitted model and what a rankcore estimator has
#: instead (``rankcore.base.Ranker.__getattr__``'s hints).
PEER_METHODS = {
    "booster_": _BOOSTER,
    "get_booster": _BOOSTER,
    # XGBoost's best_iteration is an index from 0; best_iteration_ counts iterations, as LightGBM's
    "best_iteration": "best_iteration_ (a count of iterations, as LightGBM's best_iteration_: XGBoost's "
                      "best_iteration + 1)",
    "feature_name_": "feature_names_in_ (fitted on a pandas DataFrame: its column names)",
    "n_features_": "n_features_in_",
    "objective_": "get_params()['objective'] (None: the estimator's default objective)",
    "evals_result": "evals_result_ (an attribute)",
    "get_best_iteration": "best_iteration_ (a count of iterations: CatBoost's get_best_iteration() + 1)",
    "get_evals_result": "evals_result_",
    "get_feature_importance": "feature_importances_ (gain), feature_importances(kind='split') (split counts), "
                              "feature_contributions(X) (SHAP values) or "
                              "rankcore.permutation_importance(model, X, y, qid=...) (the metric's drop)",
    "save_model": "rankcore.save_model(model, path) (JSON, no pickle)",
    "staged_predict": "staged_decision_function(X)",
    "eval_metrics": "rankcore.evaluate(y, model.decision_function(X), specs, qid=...)",
}

#: The attribute, parameter or method a hint of :data:`PEER_METHODS` sends the user to, where not every estimator
#: has it: one without it (KernelRanker has no iterations, no objective) hears there is no counterpart instead.
_PEER_NEEDS = {
    "best_iteration": "best_iteration_", "get_best_iteration": "best_iteration_",
    "evals_result": "evals_result_", "get_evals_result": "evals_result_",
    "objective_": "objective", "staged_predict": "staged_decision_function",
}


def peer_method_hint(estimator, name: str) -> str:
    """``__getattr__``'s words for another library's ``name`` (a key of :data:`PEER_METHODS`) on ``estimator``."""
    cls = type(estimator)
    needed = _PEER_NEEDS.get(name)
    if needed is None or needed in cls._fitted_names or hasattr(cls, needed) or \
            any(p.name == needed for p in cls.parameters):
        return f"other libraries' {name} is {PEER_METHODS[name]} here"
    return f"other libraries' {name} has no counterpart in {cls.__name__} (which has no {needed})"


#: LightGBM's and XGBoost's fitted attributes that a rankcore estimator may lack: :func:`peer_fitted_hint` says when
#: one is recorded, or what the estimator has instead.
PEER_FITTED = ("evals_result_", "best_iteration_", "best_score_", "feature_importances_", "n_features_in_")

#: When each is recorded, on an estimator that declares it (the push estimators' ``best_score_`` says it too).
RECORDED_BY = {
    "evals_result_": "recorded by a fit given eval_set=(X_val, y_val) (or a list of sets), as LightGBM's",
    "best_iteration_": "recorded by a fit with validation data (eval_set=..., or early_stopping=True's held-out "
                       "rows), as LightGBM's",
    "best_score_": "recorded by a fit given eval_set=(X_val, y_val), as LightGBM's",
}


def peer_fitted_hint(estimator, name: str) -> str | None:
    """``__getattr__``'s words for a missing fitted attribute of LightGBM's or XGBoost's (``name`` in
    :data:`PEER_FITTED`) on ``estimator``: not fitted, recorded only by some fits, or what there is instead; None
    for another name."""
    if name not in PEER_FITTED:
        return None
    cls = type(estimator)
    declared = name in getattr(cls, "_fitted_names", ())
    unfitted = f"{cls.__name__} is not fitted yet: call fit(X, y) first"
    if declared and "n_features_in_" not in vars(estimator):
        return unfitted
    if declared:
        return f"it is {RECORDED_BY.get(name, 'recorded by some fits only')}"
    lacking = _never_recorded(cls, name)
    # unfitted, every estimator says so first (as for a declared name); what a fit will not give follows
    return lacking if "n_features_in_" in vars(estimator) else f"{unfitted} (and then: {lacking})"


def _never_recorded(cls, name: str) -> str:
    """What ``cls`` has instead of LightGBM's fitted attribute ``name``, which no fit of it records."""
    if name == "feature_importances_":
        explained = "feature_contributions(X) (SHAP values) or " if hasattr(cls, "feature_contributions") else ""
        return (f"{cls.__name__} records no split gains; {explained}rankcore.permutation_importance(model, X, y) "
                f"(the metric's drop) says what each feature does")
    if "best_estimator_" in getattr(cls, "_fitted_names", ()):
        return f"other libraries' {name} is best_estimator_.{name} here (the chosen candidate's, where it has one)"
    if "validation_scores_" in getattr(cls, "_fitted_names", ()):
        return (f"{cls.__name__} records one validation curve, validation_scores_ (fit(X, y, eval_set=(X_val, "
                f"y_val)): the metric after each iteration), and no {name}")
    return f"other libraries' {name} has no counterpart in {cls.__name__} (it records no validation curve)"
