"""AutoRanker's fitted state read back from a model file: every field validated before it is set.

The fields are declared in :data:`rankcore.auto._params.AUTO_FITTED` (the
base class checks that a file has exactly those); the chosen model is a
nested model record (:mod:`._saved`), the leaderboard plain data.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._state_fields import check_feature_names, checked_categories
from ._leaderboard import STATUSES, Leaderboard, LeaderboardRow
from ._saved import decode_fitted, fitted_models

__all__ = ["restore_state"]

def _fail(message: str):
    from ..persistence import ModelFormatError

    raise ModelFormatError(f"AutoRanker state: {message}")


def _number(value: Any, where: str, *, allow_nan: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        _fail(f"{where} must be a number, got {type(value).__name__}")
    value = float(value)
    if math.isinf(value) or (math.isnan(value) and not allow_nan):
        _fail(f"{where} must be finite, got {value!r}")
    return value


def _row(record: Any, i: int) -> LeaderboardRow:
    fields = {"name", "status", "mean", "sd", "fold_scores", "fit_time", "score_time", "note"}
    if not isinstance(record, dict) or set(record) != fields:
        _fail(f"leaderboard[{i}] must be a record with fields {sorted(fields)}")
    if not isinstance(record["name"], str) or not isinstance(record["note"], str):
        _fail(f"leaderboard[{i}]: name and note must be strings")
    if record["status"] not in STATUSES:
        _fail(f"leaderboard[{i}]: status must be one of {STATUSES}, got {record['status']!r}")
    scores = record["fold_scores"]
    if not isinstance(scores, list):
        _fail(f"leaderboard[{i}].fold_scores must be a list of numbers")
    return LeaderboardRow(
        name=record["name"], status=record["status"],
        mean=_number(record["mean"], f"leaderboard[{i}].mean"), sd=_number(record["sd"], f"leaderboard[{i}].sd"),
        fold_scores=[_number(v, f"leaderboard[{i}].fold_scores[{j}]") for j, v in enumerate(scores)],
        fit_time=_number(record["fit_time"], f"leaderboard[{i}].fit_time"),
        score_time=_number(record["score_time"], f"leaderboard[{i}].score_time"), note=record["note"])


def _classes(state: dict) -> np.ndarray:
    if "classes" not in state:
        _fail("classes is missing: a model chosen on one list holds its two labels")
    classes = np.asarray(state["classes"])
    if classes.ndim != 1 or classes.shape[0] != 2 or not classes[0] < classes[1]:
        _fail("classes must be two sorted, distinct labels")
    if classes.dtype.kind == "f" and not np.isfinite(classes).all():
        _fail("classes must be finite")
    return classes


def _check_queries(state: dict) -> bool:
    """Whether the file's model was chosen within queries: ``n_queries`` and ``n_queries_without_pairs``, no classes."""
    keys = {"n_queries", "n_queries_without_pairs"} & set(state)
    if not keys:
        return False
    if len(keys) != 2:
        _fail("n_queries and n_queries_without_pairs go together (a model chosen within queries has both)")
    if "classes" in state:
        _fail("a model chosen within queries ranks grades: it has no classes")
    n, single = state["n_queries"], state["n_queries_without_pairs"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        _fail(f"n_queries must be an integer >= 2 (folds of whole queries), got {n!r}")
    if isinstance(single, bool) or not isinstance(single, int) or not 0 <= single <= n:
        _fail(f"n_queries_without_pairs must be an integer from 0 to n_queries ({n}), got {single!r}")
    return True


def _check_models_rank_as_chosen(best, within: bool) -> None:
    """Every model of the choice ranks within queries exactly when the AutoRanker was chosen within queries."""
    for i, model in enumerate(fitted_models(best)):
        ranks = bool(getattr(model, "ranks_within_queries_", False))
        if ranks != within:
            how = "within queries" if ranks else "on one list"
            _fail(f"best: model {i} was fitted {how}, but the AutoRanker was chosen "
                  f"{'within queries' if within else 'on one list'}")


def restore_state(model, state: dict, metric, query_metric) -> None:
    """Validate ``state`` and set the fitted attributes of ``model`` (raises ModelFormatError).

    ``metric`` and ``query_metric`` are the parameter ``metric`` resolved on
    one list and within queries; the file's metric must be the one of the
    way its model was chosen.
    """
    from ..registry import resolve

    d = state["n_features_in"]
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        _fail(f"n_features_in must be a positive integer, got {d!r}")
    within = _check_queries(state)
    expected = query_metric if within else metric
    saved_metric = state["metric"]
    if not isinstance(saved_metric, str):
        _fail("metric must be a spec string")
    try:
        saved_metric = resolve("metric", saved_metric).spec
    except (TypeError, ValueError) as exc:
        _fail(f"metric: {exc}")
    if expected.spec != saved_metric:
        _fail(f"metric {saved_metric!r} differs from the parameter metric={expected.spec!r}")
    classes = None if within else _classes(state)
    names = state.get("feature_names_in")
    check_feature_names(names, d, _fail)
    categories = checked_categories(state, d, _fail)
    for key in ("best_candidate", "cv_description", "selection_reason"):
        if not isinstance(state[key], str):
            _fail(f"{key} must be a string")
    rows = state["leaderboard"]
    if not isinstance(rows, list) or not rows:
        _fail("leaderboard must be a non-empty list of records")
    leaderboard = Leaderboard([_row(r, i) for i, r in enumerate(rows)], saved_metric, state["cv_description"])
    if leaderboard.rows[0].status != "chosen" or leaderboard.rows[0].name != state["best_candidate"]:
        _fail("the leaderboard's first row must be the chosen candidate, best_candidate")
    best = decode_fitted(state["best"], d)
    _check_models_rank_as_chosen(best, within)
    model.metric_ = saved_metric
    model.best_estimator_ = best
    model.best_candidate_ = state["best_candidate"]
    model.best_score_ = _number(state["best_score"], "best_score")
    model.leaderboard_ = leaderboard
    model.cv_results_ = leaderboard.cv_results()
    model.best_index_ = 0
    model.cv_description_ = state["cv_description"]
    model.selection_reason_ = state["selection_reason"]
    # NaN: a model file holds no durations (a file that holds a number loads it)
    model.search_time_ = _number(state["search_time"], "search_time")
    model.refit_time_ = _number(state["refit_time"], "refit_time")
    if within:
        model.n_queries_ = state["n_queries"]
        model.n_queries_without_pairs_ = state["n_queries_without_pairs"]
    else:
        model.classes_ = classes
    model.n_features_in_ = d
    if "from_init_score" in state:
        if state["from_init_score"] is not True:
            _fail(f"from_init_score must be true when present, got {state['from_init_score']!r}")
        model.from_init_score_ = True
    if "evals_result" in state:
        from ._fit_results import checked_evals_result

        model.evals_result_ = checked_evals_result(state["evals_result"], _fail)
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    if categories is not None:
        model.categories_ = categories
