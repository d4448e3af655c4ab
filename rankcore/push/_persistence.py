"""Loading a push model's fitted state: every field checked before the model is used (no pickle)."""

from __future__ import annotations

import numpy as np

from .._state_fields import check_feature_names, checked_categories
from ..learners import FeatureRanker
from ..validation import check_categorical_features
from ._click_model import MIN_PROPENSITY
from ._eval_sets import EvalCurves, check_set_names
from ._params import STOP_REASONS, is_callback_reason

__all__ = ["restore_push_state"]



#: The longest metric spec a model file may name (``validation_metric``, ``eval_metric``'s): a resolved spec spells
#: out every option, and a gain table for 32 grades already takes more than 200 characters.
MAX_SPEC_LENGTH = 4096

def _had_categorical_columns(estimator, categories, n_features: int, names, fail) -> bool:
    """Whether the fit split some column by category groups: a DataFrame's ``category`` column (its categories
    are in the file) or a column of the estimator's ``categorical_features``."""
    if categories is not None and any(c is not None for c in categories):
        return True
    try:
        return bool(check_categorical_features(estimator.categorical_features, n_features, names))
    except (TypeError, ValueError) as exc:
        fail(str(exc))


def _check_categorical_parameter(estimator, n_features: int, names, fail) -> None:
    """Check the file's ``categorical_features`` as ``fit`` does, whatever the state: a file holding ``(1.0,)`` or
    ``(<metric auc>,)`` would load, and a clone of the loaded model could not be fitted."""
    if estimator.categorical_features is None:
        return
    try:
        check_categorical_features(estimator.categorical_features, n_features, names)
    except (TypeError, ValueError) as exc:
        fail(str(exc))


def _check_read_as_values(state: dict, n_features: int, fail) -> tuple[int, ...]:
    """The file's ``category_columns_read_as_values``: distinct column indices, ascending (absent: none)."""
    cols = state.get("category_columns_read_as_values")
    if cols is None:
        return ()
    ok = (isinstance(cols, list) and cols and all(isinstance(j, int) and not isinstance(j, bool) for j in cols)
          and all(0 <= j < n_features for j in cols) and cols == sorted(set(cols)))
    if not ok:
        fail(f"category_columns_read_as_values must be distinct column indices from 0 to {n_features - 1}, "
             f"ascending, got {cols!r}")
    return tuple(cols)


def _check_levels_seen(state: dict, categories: list | None, fail) -> list | None:
    """The file's ``category_levels_seen`` (absent: None): per column None, or for a category column folded at fit
    the number of levels its rows held, more than the categories the file keeps."""
    seen = state.get("category_levels_seen")
    if seen is None:
        return None
    kept = categories or []
    ok = isinstance(seen, list) and len(seen) == len(kept) and any(c is not None for c in seen) and all(
        c is None or (isinstance(c, int) and not isinstance(c, bool) and k is not None and c > len(k))
        for c, k in zip(seen, kept))
    if not ok:
        fail("category_levels_seen must hold one entry per column: null, or for a category column more levels "
             f"than its categories, got {seen!r}")
    return seen


def restore_push_state(estimator, state: dict, setup) -> None:
    """Check a push model file's ``state`` against the parameters' ``setup`` and set the fitted attributes.

    ``setup`` is the estimator's resolved configuration (``_BaseBoost._setup``):
    the file's objective, learner and task must be those of its parameters.
    Raises ``ModelFormatError`` (through ``estimator._state_error``) naming the field.
    """
    fail = estimator._state_error
    n_queries = _check_queries(state, fail)
    positions = _check_position_effects(state, fail)
    if positions is not None and (positions[2] == "position_propensities") != setup.params.position_bias.em:
        fail(f"{positions[2]} does not match the parameters (position_bias={estimator.position_bias!r})")
    if positions is not None and positions[2] == "position_propensities" \
            and state["position_em_rounds"] > setup.params.position_bias.rounds:
        fail(f"position_em_rounds={state['position_em_rounds']} is more than the parameters' rounds "
             f"(position_bias={estimator.position_bias!r})")
    d = state["n_features_in"]
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        fail(f"n_features_in must be a positive integer, got {d!r}")
    names = state.get("feature_names_in")
    check_feature_names(names, d, fail)
    categories = checked_categories(state, d, fail)
    _check_categorical_parameter(estimator, d, names, fail)
    try:        # a learner giving columns by name was fitted with their indices, which the file's learner holds
        setup = estimator._with_column_names(setup, names)
    except ValueError as exc:
        fail(str(exc))
    if n_queries is not None:
        # the per-query default's trees depend on whether the fit had categorical columns
        setup = estimator._query_setup(setup,
                                       categorical=_had_categorical_columns(estimator, categories, d, names, fail))
        # and the default's QueryRMSE weight for the fit's queries with two grades
        setup = estimator._for_ranked_queries(setup, n_queries[0] - n_queries[1])
    objective, learner, cap = _check_components(state, setup, fail)
    alphas = _check_alphas(state, cap, estimator.n_iter, fail, first=_check_init_iterations(state, fail))
    rankers = _check_rankers(state, learner, alphas.shape[0], d, fail)
    _check_score_reach(rankers, alphas, fail)
    # the curves are the fit's own: a continuation of an init model records its new iterations alone
    T = alphas.shape[0] - state.get("init_iterations", 0)
    values = _check_objective_values(state, T, objective.has_value, fail,
                                     monotone=(positions is None or positions[2] != "position_effects")
                                     and _never_rises(learner, objective))
    reason = state["stop_reason"]
    if reason not in STOP_REASONS and not is_callback_reason(reason):
        fail(f"stop_reason must be one of {STOP_REASONS} or a callback's short printable string, got {reason!r}")
    classes = _check_classes(state, setup.task, fail)
    has_val = _check_validation_scores(state, T, fail, first=state.get("init_iterations", 0))
    metric = state.get("validation_metric")
    if metric is not None and not (has_val and isinstance(metric, str) and 0 < len(metric) <= MAX_SPEC_LENGTH):
        fail("validation_metric must be a metric spec or 'objective', and goes with validation_scores")
    if has_val:
        _check_curve(state["validation_scores"], metric, "validation_scores", fail)
    evals = _check_evals_result(state, T, metric, fail)
    start = _check_evals_start(state, evals, metric, fail)
    read_as_values = _check_read_as_values(state, d, fail)
    from_init = state.get("from_init_score")
    if from_init is not None and from_init is not True:
        fail(f"from_init_score must be true when present (a model fitted from initial scores), got {from_init!r}")

    estimator.objective_spec_ = objective.spec
    estimator.learner_spec_ = learner.spec
    estimator.task_ = setup.task
    if classes is not None:
        estimator.classes_ = classes
    estimator.n_features_in_ = d
    if names is not None:
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    estimator.rankers_ = rankers
    estimator.alphas_ = alphas
    estimator.objective_values_ = values
    estimator.n_iter_ = alphas.shape[0]
    estimator.stop_reason_ = state["stop_reason"]
    if has_val:
        estimator.validation_scores_ = state["validation_scores"]
        estimator.best_iteration_ = state["best_iteration"]
    if metric is not None:
        estimator.validation_metric_ = metric
    if evals is not None:
        estimator.evals_result_ = evals
    if start is not None:
        estimator.evals_start_ = start
    if categories is not None:
        estimator.categories_ = categories
    if (seen := _check_levels_seen(state, categories, fail)) is not None:
        estimator.category_levels_seen_ = seen
    if read_as_values:
        estimator.category_columns_read_as_values_ = read_as_values
    if n_queries is not None:
        estimator.n_queries_, estimator.n_queries_without_pairs_ = n_queries
    if positions is not None:
        estimator.position_ids_, values, kind = positions
        setattr(estimator, f"{kind}_", values)
        if kind == "position_propensities":
            estimator.position_em_rounds_ = state["position_em_rounds"]
    if from_init:
        estimator.from_init_score_ = True
    if "init_iterations" in state:
        estimator.init_iterations_ = state["init_iterations"]
    estimator._learner = learner


def _earlier_defaults(setup) -> list:
    """The per-query default objectives of earlier versions that these parameters gave, for the fit's queries.

    Only for a fit within queries whose parameters left ``objective`` to the
    per-query default.  A model saved before ``query_rmse`` joined that default
    holds the push alone; one saved before the weight fell with many queries
    (:data:`~rankcore.push._query_defaults.QUERY_RMSE_MANY`) holds the blend at
    :data:`~rankcore.push._query_defaults.QUERY_RMSE`.  Each is still the
    objective its model was fitted with.
    """
    objective = setup.objective
    # PNormPush and RankBoost have no objective parameter: theirs is never the per-query default
    if getattr(setup.params, "objective", True) is not None or not getattr(objective, "query_rmse", 0):
        return []
    from ..objectives import PushObjective
    from ._query_defaults import QUERY_RMSE

    weights = [0.0] + ([QUERY_RMSE] if objective.query_rmse != QUERY_RMSE else [])
    return [PushObjective(loss=objective.loss_component, price=objective.price_component,
                          gain_weighted=objective.gain_weighted, discount=objective.discount,
                          truncation=objective.truncation, normalize=objective.normalize, query_rmse=weight)
            for weight in weights]


def _check_components(state: dict, setup, fail):
    """The file's objective, learner and task against the parameters'; returns the objective, the learner and the
    iteration cap.

    With ``early_stopping="auto"`` a large-data fit used the learner's large-data
    settings (and cap): either setup may be the file's.  A model fitted within
    queries under an earlier per-query default (:func:`_earlier_defaults`)
    loads with the objective it was fitted with.
    """
    objective, learner, cap = setup.objective, setup.learner, setup.n_iter
    if state["objective"] != objective.spec:
        earlier = [o for o in _earlier_defaults(setup) if o.spec == state["objective"]]
        if not earlier:
            fail(f"objective {state['objective']!r} does not match the parameters ({objective.spec!r})")
        objective = earlier[0]
    if setup.params.early_stopping == "auto":
        large = setup.for_large_data()
        if state["learner"] == large.learner.spec:
            learner = large.learner
        cap = max(cap, large.n_iter)
    if state["learner"] != learner.spec:
        fail(f"learner {state['learner']!r} does not match the parameters ({learner.spec!r})")
    if state["task"] != setup.task:
        fail(f"task {state['task']!r} does not match the objective's ({setup.task!r})")
    return objective, learner, cap


def _check_init_iterations(state: dict, fail) -> int:
    """The number of leading weak rankers of a continued model that are its init model's (0 without one)."""
    if "init_iterations" not in state:
        return 0
    first = state["init_iterations"]
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        fail(f"init_iterations must be an integer >= 0 (the init model's weak rankers), got {first!r}")
    return first


def _check_alphas(state: dict, cap: int, n_iter, fail, *, first: int = 0) -> np.ndarray:
    """The coefficients: a finite float64 vector of ``first`` (an init model's) and at most ``cap`` more entries."""
    alphas = state["alphas"]
    if not (isinstance(alphas, np.ndarray) and alphas.dtype == np.float64 and alphas.ndim == 1):
        fail("alphas must be a float64 vector")
    if not np.isfinite(alphas).all():
        fail("alphas must be finite")
    if alphas.shape[0] < first:
        fail(f"{alphas.shape[0]} iterations stored, fewer than init_iterations={first}")
    if alphas.shape[0] - first > cap:
        past = " past the init model's" if first else ""
        fail(f"{alphas.shape[0] - first} iterations stored{past}, but at most {cap} for n_iter={n_iter!r}")
    return alphas


def _check_rankers(state: dict, learner, T: int, d: int, fail) -> list:
    """The ``T`` weak rankers, rebuilt by the learner, each reading features below ``d``."""
    raw = state["rankers"]
    if not isinstance(raw, list) or len(raw) != T:
        fail(f"rankers must be a list of {T} records (one per coefficient)")
    rankers = []
    for t, record in enumerate(raw):
        if not isinstance(record, dict):
            fail(f"rankers[{t}] must be a record")
        try:
            ranker = learner.ranker_from_state(record)
        except (TypeError, ValueError, KeyError) as exc:
            fail(f"rankers[{t}]: {exc}")
        if any(not 0 <= j < d for j in ranker.features):
            fail(f"rankers[{t}] reads feature {max(ranker.features)}, but n_features_in={d}")
        rankers.append(ranker)
    return rankers


def _check_score_reach(rankers: list, alphas: np.ndarray, fail) -> None:
    """Refuse weak rankers whose largest values, times their coefficients, add up past float64's largest number.

    Each leaf and coefficient may be finite while the sum overflows: ``decision_function`` would then raise
    ``FloatingPointError`` on a row reaching them, where the file can be refused on load.  Rankers of finitely many
    values (trees, stumps: ``values``) count their largest; a ranker linear in a feature (``features``) counts its
    largest over the feature's training range, 1 (it scales that range to [0, 1]; beyond it, it extrapolates
    without a bound).  A fit keeps its scores finite, far below this bound.
    """
    reach = 0.0
    with np.errstate(over="ignore"):
        for t, (ranker, alpha) in enumerate(zip(rankers, alphas)):
            reach += abs(float(alpha)) * _largest_value(ranker)
            if not np.isfinite(reach):
                fail(f"rankers[{t}]: the weak rankers' largest values times their coefficients add up past the "
                     f"largest float64 by this one: a row reaching them would score inf")


def _largest_value(ranker) -> float:
    """The largest |value| of a weak ranker: of its leaves, or over its feature's training range; 0 if unknown."""
    values = getattr(ranker, "values", None)
    if values:
        return max(abs(float(v)) for v in values)
    if isinstance(ranker, FeatureRanker):
        return 1.0 if ranker.high > ranker.low else 0.0      # a constant feature scales to 0
    return 0.0


def _check_queries(state: dict, fail) -> tuple[int, int] | None:
    """(n_queries, n_queries_without_pairs) of a model fitted within queries; None for one list."""
    if ("n_queries" in state) != ("n_queries_without_pairs" in state):
        fail("n_queries and n_queries_without_pairs go together (a model fitted within queries)")
    if "n_queries" not in state:
        return None
    n, single = state["n_queries"], state["n_queries_without_pairs"]
    for name, value in (("n_queries", n), ("n_queries_without_pairs", single)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            fail(f"{name} must be a non-negative integer, got {value!r}")
    # all of them when the weights left no pair (an objective that takes such weights fits its model all the same)
    if n < 1 or single > n:
        fail(f"n_queries must be positive and n_queries_without_pairs at most n_queries, got {n!r} and {single!r}")
    return n, single


def _check_position_effects(state: dict, fail) -> tuple[np.ndarray, np.ndarray, str] | None:
    """(position_ids, their values, the field's name) of a model fitted with display positions; None without.

    The values are ``position_effects`` (additive effects) or ``position_propensities`` (the click model's θ, in
    [MIN_PROPENSITY, 1] as the fit clips them, with ``position_em_rounds``), never both.
    """
    kinds = [name for name in ("position_effects", "position_propensities") if name in state]
    if ("position_ids" in state) != bool(kinds):
        fail("position_ids and position_effects go together (a model fitted with position; position_propensities "
             "instead with position_bias='em')")
    if len(kinds) > 1:
        fail("position_effects and position_propensities: a model holds one of them, never both")
    if ("position_propensities" in state) != ("position_em_rounds" in state):
        fail("position_propensities and position_em_rounds go together (a model fitted with position_bias='em')")
    if "position_ids" not in state:
        return None
    if "n_queries" not in state:
        fail(f"{kinds[0]} belong to a model fitted within queries (n_queries)")
    ids, values = state["position_ids"], state[kinds[0]]
    if not (isinstance(ids, np.ndarray) and ids.dtype == np.int64 and ids.ndim == 1 and ids.shape[0] >= 1
            and (ids >= 0).all() and (np.diff(ids) > 0).all()):
        fail("position_ids must be a non-empty increasing vector of integers >= 0")
    if not (isinstance(values, np.ndarray) and values.dtype == np.float64 and values.shape == ids.shape
            and np.isfinite(values).all()):
        fail(f"{kinds[0]} must be a finite float64 vector of length {ids.shape[0]} (one per position id)")
    if kinds[0] == "position_propensities":
        if not ((values >= MIN_PROPENSITY).all() and (values <= 1).all()):
            fail(f"position_propensities must lie in [{MIN_PROPENSITY:g}, 1] (probabilities of examination, "
                 "clipped below as the fit clips them)")
        rounds = state["position_em_rounds"]
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            fail(f"position_em_rounds must be an integer >= 1, got {rounds!r}")
    return ids.astype(np.int64), values, kinds[0]


def _never_rises(learner, objective) -> bool:
    """Whether the fit's objective never rose: a line search on a fixed objective, each step shrunk by at most 1.

    The search finds the minimum along the line, and a convex objective lies below φ(0) anywhere short of it;
    a learning rate above 1 steps past it (the trees take any rate > 0).
    """
    return (bool(getattr(learner, "line_search", True)) and objective.fixed_value
            and float(getattr(learner, "learning_rate", 1.0)) <= 1.0)


def _check_objective_values(state: dict, T: int, has_value: bool, fail, *, monotone: bool = True) -> np.ndarray:
    """The objective before and after each of the ``T`` iterations: never NaN or +inf; never increasing if ``monotone``.

    An objective without a value (``has_value`` False) records NaN throughout.
    A line search on a fixed objective never increases it (``monotone``, see
    :func:`_never_rises`).  A learner without one (``trees:line_search=false``,
    the per-query default) takes each tree's Newton step, which can, and so
    can an objective whose weights move with the scores (``Objective.fixed_value``
    False) or a learning rate above 1: then only finiteness is checked.
    """
    values = state["objective_values"]
    if not (isinstance(values, np.ndarray) and values.dtype == np.float64 and values.shape == (T + 1,)):
        fail(f"objective_values must be a float64 vector of length {T + 1}")
    if not has_value:
        if not np.isnan(values).all():
            fail("objective_values must be NaN throughout: the objective has no value")
        return values
    if np.isnan(values).any() or (values == np.inf).any():
        fail("objective_values must not contain NaN or +inf")
    if monotone and np.any(np.diff(values) > 1e-9 * np.maximum(1.0, np.abs(values[1:]))):
        fail("objective_values must not increase (the line search never increases the objective)")
    return values


def _check_classes(state: dict, task: str, fail):
    """The two sorted labels of a binary model (None for a graded one)."""
    classes = state.get("classes")
    if task == "graded":
        if classes is not None:
            fail("a graded model has no classes")
        return None
    if classes is None:
        fail("classes are missing")
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.shape[0] != 2:
        fail("classes must hold exactly two labels")
    if classes.dtype.kind == "f" and not np.isfinite(classes).all():
        fail("classes must be finite")
    if not classes[0] < classes[1]:
        fail("classes must be two sorted, distinct labels")
    return classes


def _check_validation_scores(state: dict, T: int, fail, *, first: int = 0) -> bool:
    """The early-stopping record (``validation_scores`` with ``best_iteration``); returns whether there is one.

    A continued model (``first`` weak rankers of an init model) counts ``best_iteration`` from the init model's
    first, between ``first`` and ``first + T``.
    """
    has_val = "validation_scores" in state
    if has_val != ("best_iteration" in state):
        fail("validation_scores and best_iteration go together")
    if has_val:
        scores = state["validation_scores"]
        if not (isinstance(scores, np.ndarray) and scores.dtype == np.float64 and scores.shape == (T,)):
            fail(f"validation_scores must be a float64 vector of length {T}")
        best = state["best_iteration"]
        if isinstance(best, bool) or not isinstance(best, int) or best < 0:
            fail(f"best_iteration must be a non-negative integer, got {best!r}")
        if first and not first <= best <= first + T:
            fail(f"best_iteration must count from the init model's {first} iterations, between {first} and "
                 f"{first + T}, got {best}")
    return has_val


def _check_curve(values: np.ndarray, metric, what: str, fail) -> None:
    """A validation curve holds no NaN, and a metric's (not the objective's, which may reach ±inf) is finite."""
    if np.isnan(values).any():
        fail(f"{what} must hold no NaN")
    if metric not in (None, "objective") and not np.isfinite(values).all():
        fail(f"{what} must be finite values of {metric!r}")


def _check_evals_result(state: dict, T: int, metric, fail) -> dict | None:
    """``evals_result_`` of a fit given ``eval_set`` (None without): every set's curves over the ``T`` iterations.

    The file holds the sets' names (distinct, as ``eval_names`` takes them) and a float64 matrix of one row per
    set; the watched set's row is ``validation_scores`` itself, and every curve is of ``validation_metric``.  A fit
    given ``eval_metric`` adds those metrics' curves (:func:`_check_metric_curves`).
    """
    record = state.get("evals_result")
    if record is None:
        return None
    if metric is None:
        fail("evals_result goes with validation_scores and validation_metric")
    if not (isinstance(record, dict) and set(record) in ({"names", "scores"},
                                                         {"names", "scores", "metrics", "metric_scores"})):
        fail("evals_result must be a record of the sets' names and scores (and of the eval_metric curves)")
    names = record["names"]
    if not isinstance(names, list) or not names:
        fail("evals_result names must be a non-empty list")
    try:
        names = check_set_names(names, len(names), name="evals_result names")
    except (TypeError, ValueError) as exc:
        fail(str(exc))
    scores = record["scores"]
    if not (isinstance(scores, np.ndarray) and scores.dtype == np.float64 and scores.shape == (len(names), T)):
        fail(f"evals_result scores must be a float64 matrix of {len(names)} rows (one per set) of length {T}")
    _check_curve(scores, metric, "evals_result scores", fail)
    if not any(np.array_equal(row, state["validation_scores"], equal_nan=True) for row in scores):
        fail("evals_result must hold validation_scores as the watched set's row")
    curves = {name: {metric: scores[i].copy()} for i, name in enumerate(names)}
    if "metrics" in record:
        for spec, values in _check_metric_curves(record, len(names), T, metric, fail):
            for i, name in enumerate(names):
                curves[name][spec] = values[i].copy()
    return EvalCurves.of(curves)


def _check_evals_start(state: dict, evals: dict | None, metric, fail) -> dict | None:
    """``evals_start_``: every set's scores before the fit's first iteration (None in a file without them, as
    every file of an earlier rankcore), of the sets and metrics of ``evals_result_``."""
    record = state.get("evals_start")
    if record is None:
        return None
    if evals is None:
        fail("evals_start goes with evals_result")
    names, metrics = list(evals), list(next(iter(evals.values())))
    if not (isinstance(record, dict) and set(record) == {"names", "metrics", "scores"}
            and record["names"] == names and record["metrics"] == metrics):
        fail(f"evals_start must be a record of the sets {names!r}, the metrics {metrics!r} and their scores")
    scores = record["scores"]
    if not (isinstance(scores, np.ndarray) and scores.dtype == np.float64
            and scores.shape == (len(names), len(metrics))):
        fail(f"evals_start scores must be a float64 matrix of {len(names)} rows (one per set) of {len(metrics)}")
    # each column as evals_result checks its curve: the watched metric's may be the objective's (±inf allowed),
    # an eval_metric's must be finite
    for j, spec in enumerate(metrics):
        _check_curve(scores[:, j], metric if j == 0 else spec, f"evals_start scores of {spec!r}", fail)
    return {name: {m: float(scores[i, j]) for j, m in enumerate(metrics)} for i, name in enumerate(names)}


def _check_metric_curves(record: dict, n_sets: int, T: int, watched: str, fail) -> list:
    """(spec, (sets × T) curves) of each ``eval_metric`` metric of a file's ``evals_result``.

    The specs are distinct printable strings, none ``validation_metric``; they are checked as that one is, not
    resolved, so a file whose curves came from a plugin's metric loads without the plugin (the model does not use
    them).  Their curves, like every metric's, are finite.
    """
    specs = record["metrics"]
    if not (isinstance(specs, list) and specs
            and all(isinstance(s, str) and 0 < len(s) <= MAX_SPEC_LENGTH and s.isprintable() for s in specs)):
        fail("evals_result metrics must be a non-empty list of metric specs")
    if len(set(specs)) != len(specs) or watched in specs:
        fail(f"evals_result metrics must be distinct metric specs, other than {watched!r}, got {specs!r}")
    values = record["metric_scores"]
    if not (isinstance(values, np.ndarray) and values.dtype == np.float64 and values.shape == (len(specs), n_sets, T)):
        fail(f"evals_result metric_scores must be a float64 array of shape ({len(specs)}, {n_sets}, {T}) (metrics, "
             "sets, iterations)")
    for spec, curves in zip(specs, values):
        _check_curve(curves, spec, f"evals_result metric_scores of {spec!r}", fail)
    return list(zip(specs, values))
