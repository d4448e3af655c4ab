"""Loading a Perceptron@k / SGD@k model's fitted state: every field checked before the model is used."""

from __future__ import annotations

import numpy as np

from ._params import FEATURE_ARRAYS, STATE_ARRAYS

__all__ = ["restore_linear_state", "MAX_COUNT"]

#: Largest step or batch counter a model file may hold (the kernels count in C long long).
MAX_COUNT = 2**63 - 1


def restore_linear_state(estimator, state: dict) -> None:
    """Check a linear model file's ``state`` and set the fitted attributes (``ModelFormatError`` naming the field)."""
    fail = estimator._state_error
    new_fields = {"n_averaged_", *FEATURE_ARRAYS}   # absent from models saved before they existed
    if (new_fields & set(state)) and not new_fields <= set(state):
        fail(f"fields missing {sorted(new_fields - set(state))}")
    coef = state["coef_"]
    if not (isinstance(coef, np.ndarray) and coef.dtype == np.float64 and coef.ndim == 1 and coef.size >= 1):
        fail("coef_ must be a non-empty 1-D float64 array")
    if not np.isfinite(coef).all():
        fail("coef_ has non-finite values")
    for key in ("n_features_in_", "t_", "n_iter_", "n_skipped_batches_", "n_averaged_"):
        value = state.get(key, 0)
        # the step counters continue in the Cython state as C long long (partial_fit)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            fail(f"{key} must be an integer in [0, {MAX_COUNT}], got {value!r}")
    if state["n_features_in_"] != coef.shape[0]:
        fail(f"n_features_in_ = {state['n_features_in_']} but coef_ has {coef.shape[0]} entries")
    if state.get("n_averaged_", 0) > state["t_"]:
        fail(f"n_averaged_ = {state['n_averaged_']} exceeds the batches used, t_ = {state['t_']}")
    classes = state["classes_"]
    if not (isinstance(classes, list) and len(classes) == 2 and classes[0] != classes[1]):
        fail(f"classes_ must be a list of two distinct labels, got {classes!r}")
    classes_arr = np.asarray(classes)
    if classes_arr.dtype == object or not np.array_equal(np.sort(classes_arr), classes_arr):
        fail(f"classes_ must be two sorted labels of one type, got {classes!r}")
    for key in STATE_ARRAYS:
        arr = state[key]
        if not (isinstance(arr, np.ndarray) and arr.ndim == 1 and arr.shape[0] == state["n_iter_"]):
            fail(f"{key} must be a 1-D array with n_iter_ = {state['n_iter_']} entries")
        # a pass whose batches all lacked a class (every one skipped) records NaN as its loss and surrogate
        missing_ok = key != "mistakes_per_epoch_"
        if arr.dtype.kind not in "iuf" or not (np.isfinite(arr) | (missing_ok & np.isnan(arr))).all():
            fail(f"{key} must hold finite numbers" + (" (NaN for a pass of skipped batches)" if missing_ok else ""))
    d = coef.shape[0]
    defaults = {"iterate_": coef, "average_": coef, "feature_mean_": np.zeros(d), "feature_scale_": np.ones(d)}
    features = {}
    for key in FEATURE_ARRAYS:
        arr = state.get(key, defaults[key])
        if not (isinstance(arr, np.ndarray) and arr.shape == (d,) and np.isfinite(arr).all()):
            fail(f"{key} must be a finite 1-D array of {d} entries (one per feature)")
        features[key] = arr.astype(np.float64)
    if not (features["feature_scale_"] > 0).all():
        fail("feature_scale_ must be positive")
    if not np.allclose(features["average_"] / features["feature_scale_"], coef, rtol=1e-12, atol=0.0):
        fail("coef_ must equal average_ / feature_scale_")
    unscaled = _unscaled_features(state, features["feature_scale_"], fail)
    _check_score_reach(coef, features["feature_mean_"], features["feature_scale_"], fail)
    validation = state.get("validation_scores_")
    if validation is not None and not (isinstance(validation, np.ndarray) and validation.dtype == np.float64
                                       and validation.shape == (state["n_iter_"],)):
        fail(f"validation_scores_ must be a float64 vector with n_iter_ = {state['n_iter_']} entries")
    if validation is not None:
        estimator.validation_scores_ = validation
    names = state.get("feature_names_in_")
    if names is not None:
        if not (isinstance(names, list) and len(names) == coef.shape[0] and all(isinstance(f, str) for f in names)):
            fail(f"feature_names_in_ must list {coef.shape[0]} strings")
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    estimator.coef_ = coef
    estimator.classes_ = classes_arr
    estimator.n_features_in_ = state["n_features_in_"]
    estimator.t_ = state["t_"]
    estimator.n_iter_ = state["n_iter_"]
    estimator.n_skipped_batches_ = state["n_skipped_batches_"]
    estimator.n_averaged_ = state.get("n_averaged_", 0)
    for key, arr in features.items():
        setattr(estimator, key, arr)
    if unscaled is None and getattr(estimator, "standardize", False):
        unscaled = _unscaled_in_an_older_file(features)
    if unscaled is not None:
        estimator.unscaled_features_ = unscaled
    for key in STATE_ARRAYS:
        setattr(estimator, key, state[key].astype(np.float64))



def _unscaled_features(state: dict, scale: np.ndarray, fail) -> np.ndarray | None:
    """The checked ``unscaled_features_``: increasing column indices, each of scale 1 (None when not saved)."""
    columns = state.get("unscaled_features_")
    if columns is None:
        return None
    d = scale.shape[0]
    if not (isinstance(columns, np.ndarray) and columns.ndim == 1 and columns.dtype.kind in "iu"):
        fail("unscaled_features_ must be a 1-D array of column indices")
    columns = columns.astype(np.int64)
    if columns.size and not (columns[0] >= 0 and columns[-1] < d and (np.diff(columns) > 0).all()):
        fail(f"unscaled_features_ must hold increasing column indices in [0, {d})")
    if not (scale[columns] == 1.0).all():
        fail("unscaled_features_ must name columns of feature_scale_ 1 (not scaled yet)")
    return columns


def _check_score_reach(coef: np.ndarray, mean: np.ndarray, scale: np.ndarray, fail) -> None:
    """Refuse coefficients whose products with the training rows' magnitude add up past float64's largest number.

    Each coefficient may be finite while ⟨w, x⟩ overflows on rows like the training ones: ``decision_function``
    would then raise ``FloatingPointError`` on them, where the file can be refused on load -- as the push
    models' weak rankers are.  A feature's training magnitude is |feature_mean_| + feature_scale_ (the rows
    within one scale of the mean; 1 for a model fitted without standardizing), so the bound is
    Σ |coef_j| (|mean_j| + scale_j).  A fit keeps its training scores finite, far below it.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.cumsum(np.abs(coef) * (np.abs(mean) + scale))
    past = np.flatnonzero(~np.isfinite(reach))
    if past.size:
        fail(f"coef_: the coefficients times the features' training magnitude (|feature_mean_| + feature_scale_) "
             f"add up past the largest float64 by coef_[{int(past[0])}]: a row like the training ones would "
             f"score inf")


def _unscaled_in_an_older_file(features: dict) -> np.ndarray:
    """The columns a file written before ``unscaled_features_`` existed left unscaled: scale 1 and weight 0.

    A column constant in the first call gets scale exactly 1 and, standardized to 0 there, a weight of exactly 0
    until it varies.  Taking a column by mistake does no harm: scaling it later multiplies a weight of 0.
    Without this, such a file's stream would never scale a column constant in its first call (a scale of 1 for a
    column of 1e6: steps a million times too large).
    """
    candidates = ((features["feature_scale_"] == 1.0) & (features["iterate_"] == 0.0)
                  & (features["average_"] == 0.0))
    return np.flatnonzero(candidates).astype(np.int64)
