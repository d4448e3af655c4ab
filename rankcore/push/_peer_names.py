"""Other libraries' names for rankcore's parameters: the hints of :func:`rankcore.boost`, ``set_params`` and ``fit``.

A module of its own so that the estimators' base (``set_params``) and :func:`rankcore.boost` read one table without
importing each other; the parameters' table itself (:data:`PEER_NAMES`) is ``rankcore._peer_names``, which the spec
strings' refusals read too.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from .._peer_names import PEER_NAMES

__all__ = ["PEER_NAMES", "PEER_FIT_NAMES", "names_peer_fit_arguments"]


#: Other libraries' arguments of ``fit`` (CatBoost's ``fit(group_id=..., cat_features=...)``, XGBoost's
#: ``base_margin``, ...) and what they are here: a ``fit`` argument, or a parameter of the estimator.
PEER_FIT_NAMES = {
    "group_id": "fit(X, y, qid=...) (one query id per row, of any hashable type; the rows need not be sorted)",
    "group_weight": "fit(X, y, sample_weight=...) (one weight per row, its query's; the push weighs a pair by the "
                    "product of its rows' weights; docs: ranking within queries, Weights)",
    **dict.fromkeys(("baseline", "base_margin"), "fit(X, y, init_score=...)"),
    # XGBoost's fit: one array per eval_set
    "base_margin_eval_set": "fit(X, y, eval_set=..., eval_init_score=[...]) (one array per eval_set)",
    **dict.fromkeys(("sample_weight_eval_set", "eval_sample_weight"),
                    "none: the eval_set is scored without weights (rankcore's metrics are unweighted; XGBoost weighs "
                    "each query's value by its group weight)"),
    "xgb_model": "fit(X, y, init_model=...)",
    **dict.fromkeys(("eval_group", "eval_qid"), "fit(X, y, eval_set=(X_val, y_val, qid_val)) (the validation rows' "
                                                "query ids are the third member of each set)"),
    "pairs": PEER_NAMES["pairs"],
    # LGBMRanker.fit's: NDCG at several cut-offs on each eval_set, and its names for columns
    "eval_at": 'fit(X, y, eval_set=..., eval_metric=["ndcg@k:1", "ndcg@k:5"]) (more curves per set in evals_result_; '
               'the one watched is rankcore.boost(scoring="ndcg@k:5"))',
    "categorical_feature": "a parameter of rankcore.boost(...): categorical_features=[...] (column indices or names; "
                           "a DataFrame's pandas 'category' columns need none)",
    "feature_name": "X as a pandas DataFrame whose columns are the names",
    "verbose": "a parameter of rankcore.boost(...): verbose=1",
    **{name: f"a parameter of rankcore.boost(...): {PEER_NAMES[name]}"
       for name in ("cat_features", "early_stopping_rounds", "od_wait", "use_best_model")},
}


def names_peer_fit_arguments(fit: Callable) -> Callable:
    """Decorate a ``fit``: another library's argument it does not take is a TypeError naming rankcore's.

    Any other unknown argument gets Python's own TypeError; ``fit``'s signature (which scikit-learn's metadata
    routing reads) is the decorated one's.
    """
    known = set(inspect.signature(fit).parameters)

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        for name in kwargs:
            if name not in known and name in PEER_FIT_NAMES:
                raise TypeError(f"{name}: {type(self).__name__}.fit takes no argument {name!r}; other libraries' "
                                f"{name} is here {PEER_FIT_NAMES[name]}")
        return fit(self, *args, **kwargs)

    return wrapper
