"""The push family: the generic boosting driver and its estimators.

``rankcore.boost(loss=..., price=..., learner=...)``, :class:`PushBoost`,
:class:`PNormPush` and :class:`RankBoost` minimize the push objective
R_{g,ℓ}(f) = Σ_k g(Σ_i ℓ(f_i − f_k)) -- or any registered objective -- over
linear combinations of weak rankers.  See ``docs/push.md`` and the theory in
``docs/theory/push.md``.

For estimators that run the same driver on another backend (``rankcore.dask``):
:class:`ObjectiveState` (what a backend's ``objective_state()`` returns),
:func:`add_step` and :func:`check_finite_gradient` (a step and a gradient that would overflow stop the fit),
:func:`sign_sums` and :func:`check_sign_sums` (after an empty tree search: gradient sums past the gain limit),
:func:`check_callbacks` (the ``fit(callbacks=...)`` rule),
:func:`say` (a ``verbose`` line, dropped when stdout is a closed pipe),
:func:`check_tie_break_scale` (an objective's declared tie-break width) and
:func:`int_seed` (the seed every random draw of a fit derives from),
:func:`check_some_query_ranks` (queries that all have one grade are refused),
:func:`row_weights` (``fit``'s check of ``sample_weight``, one weight per row, on one list or within queries),
:func:`refuse_positions_without_queries` and :func:`warn_sparse_places` (``fit``'s checks of ``position``),
``ATTRIBUTES_DOC`` (the fitted attributes' documentation),
``AUTO_MIN_ROWS`` (``early_stopping="auto"`` is on for more training rows
than this), ``LARGE_DATA_METRIC`` (what its hold-out is scored by when
``scoring`` is None), and the rule of early stopping (:func:`resolve_early_stopping`,
its :class:`EarlyStopping`, the hold-out of :func:`plan_validation`, the
stop reason ``NO_VALIDATION``), ``fit``'s validation sets (:func:`read_eval_sets`
reads ``eval_set``, ``eval_names`` and ``eval_metric``; a :class:`Validation` holds the sets a run
scores), ``fit``'s checks of ``init_score`` and ``eval_init_score`` (:func:`check_init_score`,
:func:`check_eval_init_scores`), ``fit``'s ``init_model`` (:func:`read_init_model` reads it into an
:class:`InitModel`, which checks a continuation and scores its rows; :func:`prepend_init_model` makes the fitted
continuation the whole model), the exports' ``TREE_KINDS`` (the weak rankers LightGBM's and XGBoost's formats hold)
and :func:`write_exported_text` (an exported model written atomically, or not at all without a path); their declared
parameters are the classes' ``parameters``.  The click model's steps (``position_bias="em"``), for a Dask fit of
its rounds: :func:`check_clicks`, :func:`e_step`, the per-place sums of the M-step and of the first θ that add over
chunks (:func:`place_sums`, :func:`propensities_from_sums`, :func:`click_rate_sums`,
:func:`propensities_from_click_rates`, :func:`posterior_change_sums` and :func:`mean_change` for ``posterior_tol``),
:func:`init_model_of_rounds` (the rounds' ``init_model``, read once), :func:`constant_relevance`,
:func:`round_seeds`, :func:`refuse_click_model`, :func:`round_stops_rounds`, :func:`adopt_last_round`,
:func:`rounds_warn_once` (the rounds' warnings, each kind said once) and ``GAMMA_EDGE``.
:func:`searches_from_start`: whether a fit within queries searches its trees' steps from its initial scores (the
per-query default's rule the Dask fits share).
"""

from ._backend import ObjectiveState, add_step, check_finite_gradient, check_sign_sums, sign_sums
from ._click_model import (GAMMA_EDGE, adopt_last_round, check_both_kinds, check_clicks, click_rate_sums,
                           constant_relevance, e_step, init_model_of_rounds, mean_change, place_sums,
                           posterior_change_sums, propensities_from_click_rates, propensities_from_sums,
                           refuse_click_model, round_seeds, round_stops_rounds, rounds_warn_once)
from ._estimators import PNormPush, PushBoost, RankBoost, boost
from ._estimator_docs import ATTRIBUTES_DOC
from ._eval_sets import EvalCurves, EvalSets, Validation, eval_metric_refusal, eval_set_stopping, read_eval_sets
from ._column_refusal import InitModelColumns
from ._init_model import InitModel, prepend_init_model, read_init_model
from ._lightgbm_export import TREE_KINDS, warn_init_score, write_exported_text
from ..validation import int_seed
from ._progress import IterationInfo, check_callbacks, say
from ._row_inputs import check_eval_init_scores, check_init_score
from ._queries import (check_grades, check_some_query_ranks, refuse_positions_without_queries, row_weights,
                       single_grade_queries, warn_sparse_places)
from ._line_search import convex_piecewise_linear_search, piecewise_linear_search
from ._query_defaults import QUERY_METRIC, searches_from_start
from ._scoring import LARGE_DATA_METRIC, within_largest_query
from ._tie_break import check_tie_break_scale, tie_break_offsets
from ._column_names import columns_named, learner_with_column_names
from ._peer_names import names_peer_fit_arguments
from ._validation import (AUTO_MIN_ROWS, NO_VALIDATION, EarlyStopping, large_data_learner, plan_query_validation,
                          plan_validation, resolve_early_stopping)

__all__ = ["boost", "PushBoost", "PNormPush", "RankBoost", "IterationInfo",
           "ObjectiveState", "add_step", "check_finite_gradient", "sign_sums", "check_sign_sums", "check_callbacks",
           "say", "check_tie_break_scale",
           "int_seed", "ATTRIBUTES_DOC",
           "AUTO_MIN_ROWS", "LARGE_DATA_METRIC", "NO_VALIDATION", "EarlyStopping", "plan_validation",
           "resolve_early_stopping", "large_data_learner", "tie_break_offsets", "piecewise_linear_search",
           "convex_piecewise_linear_search", "plan_query_validation", "check_grades", "check_some_query_ranks",
           "single_grade_queries", "QUERY_METRIC", "within_largest_query", "EvalSets", "Validation", "read_eval_sets",
           "eval_metric_refusal", "eval_set_stopping",
           "EvalCurves",
           "refuse_positions_without_queries", "warn_sparse_places", "check_init_score", "check_eval_init_scores",
           "row_weights", "InitModel", "InitModelColumns", "read_init_model", "prepend_init_model", "TREE_KINDS",
           "write_exported_text",
           "warn_init_score", "learner_with_column_names", "columns_named", "GAMMA_EDGE", "adopt_last_round",
           "check_both_kinds", "check_clicks", "click_rate_sums", "constant_relevance", "e_step", "place_sums",
           "propensities_from_click_rates", "propensities_from_sums", "refuse_click_model", "round_seeds",
           "round_stops_rounds", "rounds_warn_once", "init_model_of_rounds", "mean_change", "posterior_change_sums",
           "searches_from_start", "names_peer_fit_arguments"]
