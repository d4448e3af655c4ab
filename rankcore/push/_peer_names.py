"""Other libraries' names for rankcore's parameters: the hints of :func:`rankcore.boost`, ``set_params`` and ``fit``.

A module of its own so that the estimators' base (``set_params``), :func:`rankcore.boost`, ``AutoRanker.fit`` and
the Dask estimators' ``fit`` read one table without importing each other; the parameters' table itself
(:data:`PEER_NAMES`) is ``rankcore._peer_names``, which the spec strings' refusals read too.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable, NamedTuple

from .._peer_names import PEER_NAMES

__all__ = ["PEER_NAMES", "PEER_FIT_NAMES", "PeerFitName", "fit_argument_of", "names_peer_fit_arguments",
           "peer_fit_hint"]


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
    """

    argument: str | None
    where: str
    auto: str = ""
    parameter: bool = False


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
    **dict.fromkeys(("eval_group", "eval_qid"),
                    PeerFitName("eval_set", "fit(X, y, eval_set=(X_val, y_val, qid_val)) (the validation rows' "
                                            "query ids are the third member of each set)")),
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


def peer_fit_hint(name: str, constructor: str = "rankcore.boost", *, auto: bool = False) -> str | None:
    """Where another library's ``fit`` argument ``name`` is here, or None when it is not one of them.

    Parameters
    ----------
    name : str
        The argument's name, as the other library's ``fit`` takes it.
    constructor : str
        What makes the estimator whose parameter it may be (``"rankcore.boost"``, ``"AutoRanker"``).
    auto : bool
        The hint of ``AutoRanker.fit`` (whose parameters are not the push's).
    """
    entry = PEER_FIT_NAMES.get(name)
    if entry is None:
        return None
    if auto and entry.auto:
        return entry.auto
    if entry.parameter:
        return f"a parameter of {constructor}(...): {entry.where}"
    return entry.where


def names_peer_fit_arguments(fit: Callable | None = None, *, constructor: str | None = "rankcore.boost",
                             auto: bool = False) -> Callable:
    """Decorate a ``fit``: another library's argument it does not take is a TypeError naming rankcore's.

    Any other unknown argument gets Python's own TypeError; ``fit``'s signature (which scikit-learn's metadata
    routing reads) is the decorated one's.  Used bare (``@names_peer_fit_arguments``) or with ``constructor`` and
    ``auto`` of :func:`peer_fit_hint` (``constructor=None``: the estimator's class, ``DaskPushBoost(...)``).
    """
    if fit is None:
        return functools.partial(names_peer_fit_arguments, constructor=constructor, auto=auto)
    known = set(inspect.signature(fit).parameters)

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        for name in kwargs:
            hint = None if name in known else peer_fit_hint(name, constructor or type(self).__name__, auto=auto)
            if hint is not None:
                raise TypeError(f"{name}: {type(self).__name__}.fit takes no argument {name!r}; other libraries' "
                                f"{name} is here {hint}")
        return fit(self, *args, **kwargs)

    return wrapper
