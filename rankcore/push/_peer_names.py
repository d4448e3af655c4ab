"""Other libraries' names for rankcore's parameters: the hints of :func:`rankcore.boost` and ``set_params``.

A module of its own so that the estimators' base (``set_params``) and :func:`rankcore.boost` read one table without
importing each other.
"""

from __future__ import annotations

__all__ = ["PEER_NAMES"]

#: LightGBM's, XGBoost's, CatBoost's and scikit-learn's names for what ``PushBoost`` and its trees call otherwise.
PEER_NAMES = {
    **dict.fromkeys(("n_estimators", "num_boost_round", "num_iterations"), "n_iter=N"),
    **dict.fromkeys(("learning_rate", "eta"), 'learner="trees:learning_rate=R"'),
    **dict.fromkeys(("num_leaves", "max_leaf_nodes"), 'learner="trees:max_leaves=L"'),
    "max_depth": 'learner="trees:max_depth=D"',
    **dict.fromkeys(("min_child_samples", "min_data_in_leaf", "min_samples_leaf"),
                    'learner="trees:min_samples_leaf=M"'),
    **dict.fromkeys(("min_child_weight", "min_sum_hessian_in_leaf"), 'learner="trees:min_child_weight=H"'),
    **dict.fromkeys(("reg_lambda", "lambda_l2", "l2_leaf_reg"), 'learner="trees:l2=V"'),
    "max_delta_step": 'learner="trees:max_delta_step=D" (|leaf value| <= D before the learning rate)',
    **dict.fromkeys(("subsample", "bagging_fraction"), 'learner="trees:subsample=F"'),
    **dict.fromkeys(("colsample_bytree", "feature_fraction"), 'learner="trees:colsample=F"'),
    **dict.fromkeys(("max_bin", "border_count"), 'learner="trees:max_bins=B"'),
    "early_stopping_rounds": "n_iter_no_change=N with fit(..., eval_set=...) (or early_stopping=True)",
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
    **dict.fromkeys(("num_threads", "nthread"), "n_jobs=N"),
    **dict.fromkeys(("seed", "random_seed"), "random_state=S"),
}
