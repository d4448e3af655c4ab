"""The fitted attributes of the push estimators (``PushBoost``, ``PNormPush``, ``RankBoost``), documented once.

Appended to each estimator's docstring after its parameters.
"""

__all__ = ["ATTRIBUTES_DOC"]

ATTRIBUTES_DOC = """
    Attributes
    ----------
    rankers_ : list of WeakRanker
        The weak ranker chosen at each iteration (may repeat).
    alphas_ : ndarray of shape (n_iter_,)
        Their coefficients; ``decision_function(X) = Σ_t alphas_[t] · rankers_[t].predict(X)``.
    objective_values_ : ndarray of shape (n_iter_ + 1,)
        The working objective J (log R for the push objective) before the
        first iteration and after each one.  A step that would leave J of
        the model above its value before any step stops the fit as
        ``"diverged"``, so the values never rise above the first -- except
        where J moves with the scores (place discounts: not compared) and,
        with position effects and a line search, where they are J at the
        effects' next step (the model's own J is compared).  A line search
        at a learning rate ≤ 1 never increases them.  Fitted with
        ``init_model``: of the new iterations alone, from J at the init
        model's scores (shape ``(n_iter_ − init_iterations_ + 1,)``).  For a
        non-smooth objective it is J of the training scores, which carry the
        tie-break offset ε: within G·s/2 of J of ``decision_function(X)``
        (s the objective's ``tie_break_scale``, G a bound on ‖∇J‖₁; for the
        precision@k surrogates G = 2, so within s).
    n_iter_ : int
        The weak rankers of the model: with ``init_model``, the init model's
        and the new ones (LightGBM's ``current_iteration()``).
    init_iterations_ : int
        Set only when fitted with ``init_model``: how many of the first
        weak rankers are the init model's (0 for an init model without
        any).  ``validation_scores_``, ``evals_result_`` and
        ``objective_values_`` cover the iterations after them, as
        LightGBM's ``evals_result_`` does; ``callbacks`` see the iterations
        counted from the init model's first, as LightGBM's do.
    stop_reason_ : str
        ``"n_iter"``, ``"converged"``, ``"early_stopping"``, ``"diverged"``
        (a step raised the objective above its value at the start -- a
        learning rate too large -- and was not taken: the model keeps the
        iterations before it, with a ``ConvergenceWarning`` naming the
        learning rate; a rise that stays below the start, a Newton step's
        ordinary one, does not stop the fit), ``"overflow"``
        (a non-finite step: the model keeps the last finite iteration, with
        a ``RuntimeWarning``), ``"no_split"`` (the learner could form no weak
        ranker on these rows -- every feature constant, too few rows for a
        tree's leaves, or only trees the cap ``max_delta_step`` leaves too
        small a step -- with a ``UserWarning`` naming the constraint),
        ``"no_validation_split"`` (``early_stopping="auto"`` had too few rows
        of a class for a hold-out and ran ``n_iter`` iterations), or a
        callback's string.  ``early_stopping=True`` without ``eval_set``
        (a hold-out or cross-validation, then a refit on every row) says
        ``"early_stopping"`` when it chose fewer than ``n_iter``
        iterations, else what ended the refit.
    validation_scores_ : ndarray
        The validation score after each iteration (with early stopping or
        ``eval_set``): the ``scoring`` metric, or J for ``"objective"``.
        With several ``eval_set`` sets, the watched one's (the last one that
        is not the training data itself).
    evals_result_ : dict
        Fitted with ``eval_set``: every set's curve, as LightGBM's and
        XGBoost's, ``{set name: {validation_metric_: ndarray}}`` in the sets'
        order (names ``"validation_0"``, ``"validation_1"``, ...,
        ``"training"`` for the training data itself, or ``eval_names``); each curve has one score per iteration kept
        (``n_iter_``, as ``validation_scores_``: the iterations past the
        best, which early stopping drops, are not in it).  With
        ``fit(..., eval_metric=[...])`` each set also holds those metrics'
        curves, ``{validation_metric_: ..., "ndcg@k:1": ..., ...}``.
    best_score_ : dict
        Fitted with ``eval_set``: ``{set name: {metric: value}}``, every
        curve of ``evals_result_`` at ``best_iteration_`` (LightGBM's
        ``best_score_``).  When no iteration of the fit bettered its start
        (``best_iteration_`` 0, or a continuation's init model's last): the
        scores of that start, ``evals_start_``.  An AttributeError without
        ``eval_set`` (``hasattr(model, "best_score_")`` is then False).
    evals_start_ : dict
        Fitted with ``eval_set``: every set's scores before the fit's first
        iteration (of zero scores, ``eval_init_score`` or the init model's),
        ``{set name: {metric: value}}`` as ``best_score_``.
    validation_metric_ : str
        What ``validation_scores_`` holds: a metric spec (``"auc"``;
        ``"pauc:0.1"`` by default when ``early_stopping="auto"`` switched on)
        or ``"objective"``.
    best_iteration_ : int
        Iteration with the best validation score (0 = no iteration).  With
        ``init_model`` it counts the init model's iterations too, as
        LightGBM's ``best_iteration`` does: ``init_iterations_`` means no
        new iteration improved on the init model.  Unlike LightGBM's, it is
        set without early stopping too: the best watched iteration, which
        the model goes past (it keeps all ``n_iter_`` iterations).
        LightGBM's ``best_iteration_`` is then 0 and its
        ``predict(X, num_iteration=best_iteration_)`` uses every tree: port
        that as ``decision_function(X)``, not as the scores after
        ``best_iteration_`` iterations, which would drop trees LightGBM
        keeps.  With early stopping the two agree: the model ends there.
    categories_ : list of (ndarray or None)
        Fitted on a pandas DataFrame by a learner that splits categories:
        per column, the categories of a ``category`` column (None for the
        other columns).  A DataFrame scored later is encoded by its values
        against them; a category they do not list scores as a missing value.
    category_levels_seen_ : list of (int or None)
        Set only where the fit folded a ``category`` column (more levels in
        the training rows than the trees' ``max_bins``; ``categories_``
        keeps the most frequent): per column, how many levels its rows held
        (None for the other columns).  A continuation (``init_model``) keeps
        its init model's, as it keeps its categories.  ``rankcore info``
        says it.
    training_curve_ : TrainingCurve
        ``objective_values_`` and ``validation_scores_`` per iteration
        (:class:`rankcore.base.TrainingCurve`).
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the relevant class ranked on top
        (not set for graded labels, nor within queries).
    relevant_label_ : str, int, float or bool
        Set only by the command line on one list (``rankcore fit``,
        ``compare --save-models``, ``auto``, for every model kind), which
        fits on its data file's labels mapped to 1 (the relevant one,
        ``--positive``) and 0 (``classes_`` [0, 1]): that file's relevant
        label, which ``rankcore evaluate`` and ``explain --permutation`` read
        the labels with and ``rankcore fit --init-model`` checks.  A
        continuation (``init_model``) keeps its init model's.  Where that
        file's labels are the codes the other way round (``--positive 0`` on
        {0, 1}), ``score`` and ``fit(init_model=...)`` in Python refuse
        ``y``, which they would otherwise read upside down.
    other_label_ : str, int, float or bool
        Set with ``relevant_label_`` where that file held two labels: the
        one fitted as 0.  ``rankcore evaluate`` refuses a file holding the
        relevant label beside one the fit never had (classes coded
        otherwise), unless ``--positive`` names the relevant one.
    n_queries_ : int
        Fitted within queries (``qid``/``group``): the queries given to fit.
    n_queries_without_pairs_ : int
        Of them, the queries whose rows share one grade: no pair to order,
        so the push takes nothing from them (a QueryRMSE term, as in the
        per-query default, still pulls their scores together).  With
        ``sample_weight`` only the rows of positive weight count: a query
        whose rows all weigh 0 (a dropped query) is one of them.
    ranks_within_queries_ : bool
        Whether the model was fitted within queries.
    task_ : str
        ``"bipartite"`` (two labels, the greater relevant) or ``"graded"``
        (relevance grades): the labels the objective took, as
        ``KernelRanker``'s ``target_type_``.
    position_ids_ : ndarray of int64
        Fitted with ``position``: the distinct display places given, sorted.
    position_effects_ : ndarray of float64
        The effect b_p of each place in ``position_ids_`` as the last kept
        tree was grown with (on the scores' scale; the model does not use
        them).
    position_propensities_ : ndarray of float64
        Fitted with ``position_bias="em"`` (instead of the effects): the
        click model's θ_p in (0, 1] of each place in ``position_ids_``, the
        probability that a row shown there is examined.
    position_em_rounds_ : int
        Fitted with ``position_bias="em"``: the EM rounds run (fewer than
        its ``rounds`` when ``tol`` or ``posterior_tol`` stopped them).
    category_columns_read_as_values_ : tuple of int
        Set only when fitted on a DataFrame whose pandas ``category``
        columns the learner read by their values (learners that do not split
        by category groups, such as ``'stumps'``): those columns' positions.
        :meth:`to_lightgbm` warns about them (LightGBM reads a DataFrame's
        category column by its codes).
    from_init_score_ : bool
        Set (True) only when fitted with ``init_score``: the model is the
        correction alone; add the rows' initial scores to its scores
        (``score(..., init_score=)`` does).
    objective_spec_, learner_spec_ : str
        The resolved components.
    n_features_in_, feature_names_in_
"""
