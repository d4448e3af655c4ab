"""AutoRanker's chosen model inside a model file: nested model records, validated on load.

The shapes of fitted model saved, each as a JSON record:

``{"kind": "model", "model": {...}}``
    a rankcore estimator, as :func:`rankcore.persistence.model_to_dict`
    writes it (with its own checksum and validation on load);
``{"kind": "standardized", "mean": [...], "scale": [...], "model": {...}}``
    a scikit-learn ``Pipeline`` of a fitted ``StandardScaler`` and a
    rankcore estimator (the kernel candidate);
``{"kind": "imputed", "fill": [...], "indicators": [...], "model": record}``
    a :class:`~rankcore.auto.MissingValueImputer` (its fill values and
    indicator columns) in front of a ``model`` or ``standardized`` record,
    which reads the filled columns and then the indicators;
``{"kind": "bag", "name": "...", "members": [records], "centers": [...], "scales": [...]}``
    a :class:`~rankcore.auto.FoldBag` of such records (the refit first);
``{"kind": "blend", "names": [...], "members": [records], "references": [...]}``
    a :class:`~rankcore.auto.RankAverage` of such records (or of bags).

Anything else (a LightGBM model, a plugin's estimator) cannot be saved: the
error names the candidate.  Loading goes through
:func:`rankcore.persistence.model_from_dict` for every nested model, so a
nested file gets exactly the checks of a top-level one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._bag import FoldBag
from ._blend import RankAverage
from ._impute import MissingValueImputer, imputer_and_model

__all__ = ["encode_fitted", "decode_fitted", "accepts_missing", "reads_sparse", "fitted_models", "SCALER_LIMIT",
           "BAG_LIMIT"]

#: A standardized record's means lie in [-1e154, 1e154] and its scales in [1e-154, 1e154]: the variance
#: (scale squared) is then a normal float64 and X / scale stays finite for any |x| <= 1e154.  A fit writes
#: far less (the kernel candidate refuses features whose variance is beyond 1e±100).
SCALER_LIMIT = 1e154
#: A bag's centers lie in [-1e150, 1e150] and its scales in [1e-150, 1e150]: they are the mean and standard
#: deviation of a candidate's held-out scores, which are far inside; a center or scale beyond makes
#: (score - center) / scale tie every row or overflow.
BAG_LIMIT = 1e150


def _scaler_and_model(estimator: Any):
    """``(scaler, model)`` of a Pipeline(StandardScaler, model), else None."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(estimator, Pipeline) and len(estimator.steps) == 2:
        scaler, model = estimator.steps[0][1], estimator.steps[1][1]
        if isinstance(scaler, StandardScaler) and scaler.with_mean and scaler.with_std:
            return scaler, model
    return None


def encode_fitted(estimator: Any, name: str) -> dict:
    """The JSON record of a fitted candidate estimator (``name`` is its candidate, for errors)."""
    from ..persistence import model_to_dict

    if isinstance(estimator, RankAverage):
        return {"kind": "blend", "names": list(estimator.names),
                "members": [encode_fitted(e, n) for e, n in zip(estimator.estimators, estimator.names)],
                "references": [np.ascontiguousarray(r, dtype=np.float64) for r in estimator.references]}
    if isinstance(estimator, FoldBag):
        return {"kind": "bag", "name": estimator.name,
                "members": [encode_fitted(e, name) for e in estimator.estimators],
                "centers": np.ascontiguousarray(estimator.centers, dtype=np.float64),
                "scales": np.ascontiguousarray(estimator.scales, dtype=np.float64)}
    imputed = imputer_and_model(estimator)
    if imputed is not None:
        imputer, model = imputed
        return {"kind": "imputed", "fill": np.ascontiguousarray(imputer.fill_values_, dtype=np.float64),
                "indicators": np.ascontiguousarray(imputer.indicator_features_, dtype=np.int64),
                "model": encode_fitted(model, name)}
    pair = _scaler_and_model(estimator)
    try:
        if pair is not None:
            scaler, model = pair
            return {"kind": "standardized", "mean": np.ascontiguousarray(scaler.mean_, dtype=np.float64),
                    "scale": np.ascontiguousarray(scaler.scale_, dtype=np.float64), "model": model_to_dict(model)}
        return {"kind": "model", "model": model_to_dict(estimator)}
    except TypeError as exc:
        raise TypeError(f"AutoRanker: the chosen candidate {name!r} ({type(estimator).__name__}) cannot be saved "
                        f"without pickle ({exc}); restrict candidates to savable ones to save the model") from None


def decode_fitted(record: Any, n_features: int, where: str = "best") -> Any:
    """Rebuild and validate a record of :func:`encode_fitted` for data with ``n_features`` columns."""
    from ..persistence import ModelFormatError, _encode, model_from_dict

    if not isinstance(record, dict) or record.get("kind") not in ("model", "standardized", "imputed", "bag", "blend"):
        raise ModelFormatError(f"AutoRanker state: {where} must be a model record of kind 'model', "
                               f"'standardized', 'imputed', 'bag' or 'blend'")
    kind = record["kind"]
    expected = {"model": {"kind", "model"}, "standardized": {"kind", "mean", "scale", "model"},
                "imputed": {"kind", "fill", "indicators", "model"},
                "bag": {"kind", "name", "members", "centers", "scales"},
                "blend": {"kind", "names", "members", "references"}}[kind]
    if set(record) != expected:
        raise ModelFormatError(f"AutoRanker state: {where} has fields {sorted(record)}, expected {sorted(expected)}")
    if kind == "imputed":
        return _decode_imputed(record, n_features, where)
    if kind == "blend":
        return _decode_blend(record, n_features, where)
    if kind == "bag":
        return _decode_bag(record, n_features, where)
    # The model file's loader has already decoded the nested arrays; encode them back (the exact inverse) so
    # that the nested model is checked like a top-level file, checksum included.
    model = model_from_dict(_encode(record["model"], where), source=f"AutoRanker state: {where}")
    if getattr(model, "n_features_in_", n_features) != n_features:
        raise ModelFormatError(f"AutoRanker state: {where} reads {model.n_features_in_} features, "
                               f"expected {n_features}")
    if kind == "model":
        return model
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    mean, scale = record["mean"], record["scale"]
    for label, arr in (("mean", mean), ("scale", scale)):
        if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == (n_features,)
                and np.isfinite(arr).all()):
            raise ModelFormatError(f"AutoRanker state: {where}.{label} must be {n_features} finite float64 values")
    _check_bounds(mean, -SCALER_LIMIT, SCALER_LIMIT, f"{where}.mean")
    _check_bounds(scale, 1.0 / SCALER_LIMIT, SCALER_LIMIT, f"{where}.scale")
    var = scale**2
    scaler = StandardScaler()
    scaler.mean_, scaler.scale_, scaler.var_ = mean, scale, var
    scaler.n_features_in_, scaler.n_samples_seen_ = n_features, 0
    return Pipeline([("standardscaler", scaler), (type(model).__name__.lower(), model)])


def _check_bounds(values: np.ndarray, low: float, high: float, field: str) -> None:
    """Refuse a model file's values outside [low, high] (NaN included), naming the field and the first one."""
    from ..persistence import ModelFormatError

    outside = ~((values >= low) & (values <= high))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ModelFormatError(f"AutoRanker state: {field} must lie in [{low:g}, {high:g}] (a fit writes no "
                               f"other), got {float(values[i])!r} at position {i}")


def _decode_imputed(record: dict, n_features: int, where: str):
    from sklearn.pipeline import Pipeline

    from ..persistence import ModelFormatError

    fill, indicators, inner = record["fill"], record["indicators"], record["model"]
    if not (isinstance(fill, np.ndarray) and fill.dtype == np.float64 and fill.shape == (n_features,)
            and np.isfinite(fill).all()):
        raise ModelFormatError(f"AutoRanker state: {where}.fill must be {n_features} finite float64 values")
    if not (isinstance(indicators, np.ndarray) and indicators.dtype == np.int64 and indicators.ndim == 1
            and (indicators.size == 0 or (indicators[0] >= 0 and indicators[-1] < n_features
                                          and (np.diff(indicators) > 0).all()))):
        raise ModelFormatError(f"AutoRanker state: {where}.indicators must be ascending int64 column indices "
                               f"in [0, {n_features})")
    if not (isinstance(inner, dict) and inner.get("kind") in ("model", "standardized")):
        raise ModelFormatError(f"AutoRanker state: {where}.model must be a record of kind 'model' or 'standardized'")
    model = decode_fitted(inner, n_features + indicators.size, f"{where}.model")
    imputer = MissingValueImputer()
    imputer.fill_values_, imputer.indicator_features_, imputer.n_features_in_ = fill, indicators, n_features
    return Pipeline([("missingvalueimputer", imputer), ("model", model)])


def _decode_bag(record: dict, n_features: int, where: str) -> FoldBag:
    from ..persistence import ModelFormatError

    name, members, centers, scales = record["name"], record["members"], record["centers"], record["scales"]
    if not (isinstance(name, str) and isinstance(members, list) and len(members) >= 2):
        raise ModelFormatError(f"AutoRanker state: {where} must hold a candidate name and at least two model "
                               f"records")
    for label, arr in (("centers", centers), ("scales", scales)):
        if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == (len(members),)):
            raise ModelFormatError(f"AutoRanker state: {where}.{label} must be {len(members)} float64 values")
    _check_bounds(centers, -BAG_LIMIT, BAG_LIMIT, f"{where}.centers")
    _check_bounds(scales, 1.0 / BAG_LIMIT, BAG_LIMIT, f"{where}.scales")
    estimators = []
    for i, member in enumerate(members):
        if isinstance(member, dict) and member.get("kind") in ("bag", "blend"):
            raise ModelFormatError(f"AutoRanker state: {where}.members[{i}] is a {member['kind']}; a bag holds "
                                   f"models only")
        estimators.append(decode_fitted(member, n_features, f"{where}.members[{i}]"))
    try:                                    # the bag's own checks: finite centers, finite positive scales
        return FoldBag(name, estimators, centers, scales)
    except ValueError as exc:
        raise ModelFormatError(f"AutoRanker state: {where}: {exc}") from None


def _decode_blend(record: dict, n_features: int, where: str) -> RankAverage:
    from ..persistence import ModelFormatError

    names, members, references = record["names"], record["members"], record["references"]
    if not (isinstance(names, list) and isinstance(members, list) and isinstance(references, list)
            and len(names) == len(members) == len(references) >= 2 and all(isinstance(n, str) for n in names)):
        raise ModelFormatError(f"AutoRanker state: {where} must hold at least two members, each with a name, "
                               f"a model record and a reference")
    estimators = []
    for i, member in enumerate(members):
        if isinstance(member, dict) and member.get("kind") == "blend":
            raise ModelFormatError(f"AutoRanker state: {where}.members[{i}] is a blend; blends do not nest")
        estimators.append(decode_fitted(member, n_features, f"{where}.members[{i}]"))
    for i, ref in enumerate(references):
        if not (isinstance(ref, np.ndarray) and ref.dtype == np.float64 and ref.ndim == 1 and ref.shape[0] >= 1
                and np.isfinite(ref).all() and (np.diff(ref) >= 0).all()):
            raise ModelFormatError(f"AutoRanker state: {where}.references[{i}] must be sorted finite float64 "
                                   f"values")
    return RankAverage(names, estimators, references)


def fitted_models(estimator: Any) -> list:
    """The rankcore models inside a chosen estimator: a blend's and a bag's members, a pipeline's last step."""
    if isinstance(estimator, (RankAverage, FoldBag)):
        return [m for e in estimator.estimators for m in fitted_models(e)]
    imputed = imputer_and_model(estimator)
    if imputed is not None:
        return fitted_models(imputed[1])
    pair = _scaler_and_model(estimator)
    return [pair[1] if pair is not None else estimator]


def accepts_missing(estimator: Any) -> bool:
    """Whether a fitted candidate estimator scores rows with NaN (every member of a blend; a pipeline's model)."""
    from sklearn.utils import get_tags

    if isinstance(estimator, (RankAverage, FoldBag)):
        return all(accepts_missing(e) for e in estimator.estimators)
    if imputer_and_model(estimator) is not None:
        return True
    pair = _scaler_and_model(estimator)
    model = pair[1] if pair is not None else estimator
    try:
        return bool(get_tags(model).input_tags.allow_nan)
    except Exception:  # noqa: BLE001 - an object without scikit-learn tags: assume not
        return False


def reads_sparse(estimator: Any) -> bool:
    """Whether a fitted candidate estimator scores a scipy.sparse matrix as it is (every member of a blend or bag;
    the model behind the imputer, which keeps sparse input sparse; never behind a standard scaler, which would
    centre it)."""
    from sklearn.utils import get_tags

    if isinstance(estimator, (RankAverage, FoldBag)):
        return all(reads_sparse(e) for e in estimator.estimators)
    imputed = imputer_and_model(estimator)
    if imputed is not None:
        return reads_sparse(imputed[1])
    if _scaler_and_model(estimator) is not None:
        return False
    if not hasattr(estimator, "__sklearn_tags__"):          # (the LightGBM / XGBoost wrapper declares its own)
        return bool(getattr(estimator, "accepts_sparse", False))
    try:
        return bool(get_tags(estimator).input_tags.sparse)
    except Exception:  # noqa: BLE001 - an object without scikit-learn tags: assume not
        return False
