"""Other libraries' fit argument names: one table, the push estimators' hints unchanged, and the same hints from
AutoRanker.fit and the Dask estimators' fit (which gave Python's bare "unexpected keyword argument")."""

import numpy as np
import pytest

import rankcore
from rankcore.push._peer_names import PEER_FIT_NAMES

# the hints as they read before the two tables were made one (rankcore.boost's, and PushBoost.fit's)
BOOST_HINTS = {
    'base_margin': ("base_margin: rankcore.boost takes no parameter 'base_margin'; other libraries' "
                     "base_margin is fit's argument init_score here: rankcore.boost(...).fit(X, y, "
                     'init_score=...)'),
    'baseline': ("baseline: rankcore.boost takes no parameter 'baseline'; other libraries' baseline "
                  "is fit's argument init_score here: rankcore.boost(...).fit(X, y, init_score=...)"),
    'eval_group': ("eval_group: rankcore.boost takes no parameter 'eval_group'; other libraries' "
                    "eval_group is fit's argument eval_set here: rankcore.boost(...).fit(X, y, "
                    'eval_set=...)'),
    'eval_qid': ("eval_qid: rankcore.boost takes no parameter 'eval_qid'; other libraries' eval_qid "
                  "is fit's argument eval_set here: rankcore.boost(...).fit(X, y, eval_set=...)"),
    'group_id': ("group_id: rankcore.boost takes no parameter 'group_id'; other libraries' group_id "
                  "is fit's argument qid here: rankcore.boost(...).fit(X, y, qid=...)"),
    # added later: scikit-learn's groups= (Python's bare "unexpected keyword argument" before)
    'groups': ("groups: rankcore.boost takes no parameter 'groups'; other libraries' groups "
               "is fit's argument qid here: rankcore.boost(...).fit(X, y, qid=...)"),
    'group_weight': ("group_weight: rankcore.boost takes no parameter 'group_weight'; other libraries' "
                      "group_weight is fit's argument sample_weight here: rankcore.boost(...).fit(X, y, "
                      'sample_weight=...)'),
    'xgb_model': ("xgb_model: rankcore.boost takes no parameter 'xgb_model'; other libraries' "
                   "xgb_model is fit's argument init_model here: rankcore.boost(...).fit(X, y, "
                   'init_model=...)'),
    'warm_start': ("warm_start: rankcore.boost takes no parameter 'warm_start'; other libraries' "
                   "warm_start is fit's argument init_model here: rankcore.boost(...).fit(X, y, "
                   'init_model=...)'),
}

FIT_HINTS = {
    'base_margin_eval_set': ("base_margin_eval_set: PushBoost.fit takes no argument 'base_margin_eval_set'; other "
                             "libraries' base_margin_eval_set is here fit(X, y, eval_set=..., eval_init_score=[...]) "
                             "(one array per eval_set)"),
    **{name: (f"{name}: PushBoost.fit takes no argument '{name}'; other libraries' {name} is here fit(X, y, "
              "eval_set=...) alone: rankcore scores an eval_set without weights (XGBoost weighs each query's value "
              "by its group weight)") for name in ("sample_weight_eval_set", "eval_sample_weight")},
    'base_margin': ("base_margin: PushBoost.fit takes no argument 'base_margin'; other libraries' "
                     'base_margin is here fit(X, y, init_score=...)'),
    'baseline': ("baseline: PushBoost.fit takes no argument 'baseline'; other libraries' baseline is "
                  'here fit(X, y, init_score=...)'),
    'cat_features': ("cat_features: PushBoost.fit takes no argument 'cat_features'; other libraries' "
                      'cat_features is here a parameter of rankcore.boost(...): '
                      "categorical_features=[...] (column indices or names); a DataFrame's pandas "
                      "'category' columns need none, and a column of text must be made one "
                      "(X.astype({'brand': 'category'}))"),
    'categorical_feature': ("categorical_feature: PushBoost.fit takes no argument 'categorical_feature'; other "
                             "libraries' categorical_feature is here a parameter of rankcore.boost(...): "
                             "categorical_features=[...] (column indices or names; a DataFrame's pandas "
                             "'category' columns need none)"),
    'early_stopping_rounds': ("early_stopping_rounds: PushBoost.fit takes no argument 'early_stopping_rounds'; "
                               "other libraries' early_stopping_rounds is here a parameter of rankcore.boost(...): "
                               'n_iter_no_change=N with fit(..., eval_set=...) (or early_stopping=True; within '
                               'queries, fit(..., qid=...), also early_stopping=True: without it an eval_set is '
                               'watched, not stopped on)'),
    'eval_at': ("eval_at: PushBoost.fit takes no argument 'eval_at'; other libraries' eval_at is "
                 'here fit(X, y, eval_set=..., eval_metric=["ndcg@k:1", "ndcg@k:5"]) (more curves '
                 'per set in evals_result_; the one watched is rankcore.boost(scoring="ndcg@k:5"))'),
    'eval_group': ("eval_group: PushBoost.fit takes no argument 'eval_group'; other libraries' "
                    'eval_group is here fit(X, y, eval_set=(X_val, y_val, qid_val)) (the validation '
                    "rows' query ids are the third member of each set)"),
    'eval_qid': ("eval_qid: PushBoost.fit takes no argument 'eval_qid'; other libraries' eval_qid is "
                  "here fit(X, y, eval_set=(X_val, y_val, qid_val)) (the validation rows' query ids "
                  'are the third member of each set)'),
    'feature_name': ("feature_name: PushBoost.fit takes no argument 'feature_name'; other libraries' "
                      'feature_name is here X as a pandas DataFrame whose columns are the names'),
    'group_id': ("group_id: PushBoost.fit takes no argument 'group_id'; other libraries' group_id is "
                  'here fit(X, y, qid=...) (one query id per row, of any hashable type; the rows need '
                  'not be sorted)'),
    'groups': ("groups: PushBoost.fit takes no argument 'groups'; other libraries' groups is here fit(X, y, "
               "qid=...) (one query id per row, as scikit-learn's groups; or group=... with LightGBM's sizes of "
               "consecutive queries)"),
    'group_weight': ("group_weight: PushBoost.fit takes no argument 'group_weight'; other libraries' "
                      'group_weight is here fit(X, y, sample_weight=...) (one weight per row, its '
                      "query's; the push weighs a pair by the product of its rows' weights; docs: ranking "
                      'within queries, Weights)'),
    'od_wait': ("od_wait: PushBoost.fit takes no argument 'od_wait'; other libraries' od_wait is "
                 'here a parameter of rankcore.boost(...): n_iter_no_change=N with fit(..., '
                 'eval_set=...) (or early_stopping=True; within queries, fit(..., qid=...), also '
                 'early_stopping=True: without it an eval_set is watched, not stopped on)'),
    'pairs': ("pairs: PushBoost.fit takes no argument 'pairs'; other libraries' pairs is here "
               'fit(X, y, qid=...) with grades (no list of pairs: every pair of different grades '
               'within a query is one)'),
    'use_best_model': ("use_best_model: PushBoost.fit takes no argument 'use_best_model'; other libraries' "
                        'use_best_model is here a parameter of rankcore.boost(...): early_stopping=True '
                        'with fit(..., eval_set=...): the model keeps its trees up to the best iteration, '
                        "best_iteration_ (a count: CatBoost's get_best_iteration() + 1)"),
    'verbose': ("verbose: PushBoost.fit takes no argument 'verbose'; other libraries' verbose is "
                 'here a parameter of rankcore.boost(...): verbose=1'),
    'xgb_model': ("xgb_model: PushBoost.fit takes no argument 'xgb_model'; other libraries' xgb_model "
                   'is here fit(X, y, init_model=...)'),
}

def _rows():
    rng = np.random.default_rng(0)
    return rng.normal(size=(40, 3)), np.arange(40) % 2


def test_one_table_covers_both_hints():
    """Every name either path knows is in the one table."""
    assert set(BOOST_HINTS) | set(FIT_HINTS) == set(PEER_FIT_NAMES)


@pytest.mark.parametrize("name", sorted(BOOST_HINTS))
def test_boost_hint_unchanged(name):
    with pytest.raises(TypeError) as info:
        rankcore.boost(**{name: 1})
    assert str(info.value) == BOOST_HINTS[name]


@pytest.mark.parametrize("name", sorted(FIT_HINTS))
def test_push_fit_hint_unchanged(name):
    X, y = _rows()
    with pytest.raises(TypeError) as info:
        rankcore.boost(n_iter=2).fit(X, y, **{name: 1})
    assert str(info.value) == FIT_HINTS[name]


@pytest.mark.parametrize("name, hint", [
    ("cat_features", "X as a pandas DataFrame whose category columns"),
    ("categorical_feature", "X as a pandas DataFrame whose category columns"),
    ("group_id", "fit(X, y, qid=...)"), ("group_weight", "fit(X, y, sample_weight=...)"),
    ("groups", "fit(X, y, qid=...) (one query id per row, as scikit-learn's groups; or group=..."),
    ("eval_group", "fit(X, y, eval_set=(X_val, y_val, qid_val))"), ("eval_qid", "fit(X, y, eval_set="),
    # AutoRanker refuses init_model: its hint for xgb_model names none (it named init_model)
    ("base_margin", "fit(X, y, init_score=...)"), ("xgb_model", "without a counterpart in AutoRanker"),
    ("use_best_model", "not a setting of AutoRanker"), ("early_stopping_rounds", "not a setting of AutoRanker"),
    ("od_wait", "not a setting of AutoRanker"), ("verbose", "a parameter of AutoRanker(...): verbose=1"),
    ("eval_at", 'AutoRanker(metric="ndcg@k:5")'), ("pairs", "fit(X, y, qid=...) with grades"),
])
def test_auto_ranker_fit_names_rankcores_argument(name, hint):
    """(Before: TypeError "AutoRanker.fit() got an unexpected keyword argument ...", no hint.)"""
    X, y = _rows()
    with pytest.raises(TypeError) as info:
        rankcore.AutoRanker(time_budget=1).fit(X, y, **{name: 1})
    message = str(info.value)
    assert message.startswith(f"{name}: AutoRanker.fit takes no argument {name!r}; other libraries' {name} is here ")
    assert hint in message
    assert "rankcore.boost" not in message


def test_auto_ranker_fit_unknown_argument_is_pythons_error():
    X, y = _rows()
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_thing'"):
        rankcore.AutoRanker().fit(X, y, no_such_thing=1)


@pytest.mark.parametrize("cls_name", ["DaskPushBoost", "DaskRankBoost", "DaskPNormPush"])
@pytest.mark.parametrize("name, hint", [
    ("cat_features", "a parameter of {cls}(...): categorical_features=[...]"),
    ("group_id", "fit(X, y, qid=...)"), ("eval_qid", "fit(X, y, eval_set=(X_val, y_val, qid_val))"),
    ("early_stopping_rounds", "a parameter of {cls}(...): n_iter_no_change=N"),
    ("verbose", "a parameter of {cls}(...): verbose=1"),
])
def test_dask_push_fit_names_rankcores_argument(cls_name, name, hint):
    """The hint comes before any cluster is asked for. (Before: Python's bare TypeError.)"""
    pytest.importorskip("dask.distributed")
    import rankcore.dask

    X, y = _rows()
    estimator = getattr(rankcore.dask, cls_name)(n_iter=2)
    with pytest.raises(TypeError) as info:
        estimator.fit(X, y, **{name: 1})
    assert str(info.value).startswith(f"{name}: {cls_name}.fit takes no argument {name!r}; other libraries' ")
    assert hint.format(cls=cls_name) in str(info.value)


def test_dask_auto_ranker_fit_names_rankcores_argument():
    pytest.importorskip("dask.distributed")
    import rankcore.dask

    X, y = _rows()
    with pytest.raises(TypeError, match=r"^cat_features: DaskAutoRanker.fit takes no argument 'cat_features'; "
                                        r"other libraries' cat_features is here X as a pandas DataFrame"):
        rankcore.dask.DaskAutoRanker().fit(X, y, cat_features=[0])
