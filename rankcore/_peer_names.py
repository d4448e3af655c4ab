"""Other libraries' names for what rankcore's estimators and their learners' specs call otherwise.

A foundation module: :mod:`rankcore.spec` reads it to name ``trees:max_leaves`` where a learner spec says
``num_leaves``, and the push estimators (``rankcore.push._peer_names``) for their parameters and ``fit``.
"""

from __future__ import annotations

__all__ = ["PEER_NAMES"]

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
    **dict.fromkeys(("colsample_bytree", "feature_fraction", "rsm"), 'learner="trees:colsample=F"'),
    "sampling_unit": 'learner="trees:bagging_unit=query" (with trees:bagging_temperature=T)',
    **dict.fromkeys(("max_bin", "border_count"), 'learner="trees:max_bins=B"'),
    # within queries early_stopping="auto" only watches an eval_set: the patience alone would be ignored there
    **dict.fromkeys(("early_stopping_rounds", "od_wait"),
                    "n_iter_no_change=N with fit(..., eval_set=...) (or early_stopping=True; within queries, "
                    "fit(..., qid=...), also early_stopping=True: without it an eval_set is watched, not stopped on)"),
    "use_best_model": "early_stopping=True with fit(..., eval_set=...): the model keeps its trees up to the best "
                      "iteration, best_iteration_ (a count: CatBoost's get_best_iteration() + 1)",
    "loss_function": 'objective="yetirank" (YetiRank), objective="mp-squared" with fit(..., qid=...) (QueryRMSE), '
                     'objective="lambdarank"; the per-query default is the push with a QueryRMSE term',
    "cat_features": "categorical_features=[...] (column indices or names); a DataFrame's pandas 'category' columns "
                    "need none, and a column of text must be made one (X.astype({'brand': 'category'}))",
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
    **dict.fromkeys(("monotone_constraints", "monotone_constraint"),
                    'learner="trees:monotone=1/0/-1" (a sign per column of X)'),
    "interaction_constraints": 'learner="trees:interactions=0+1/2+3+4" (groups of columns of X: \'+\' joins a '
                               'group\'s columns, \'/\' separates the groups; a DataFrame\'s columns also by name)',
    **dict.fromkeys(("num_threads", "nthread", "thread_count"), "n_jobs=N"),
    **dict.fromkeys(("seed", "random_seed"), "random_state=S"),
}
