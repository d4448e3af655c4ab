"""AutoRanker model files: finite values no fit writes are refused at load, naming the field.

Loaded, a bag center of 1e308 would tie every row, and a standardization
scale of 5e-324 would overflow the scores and blame the user's X at predict.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
from _model_files import resign

from rankcore.auto import AutoRanker
from rankcore.auto._saved import BAG_LIMIT, SCALER_LIMIT
from rankcore.persistence import ModelFormatError, _decode, _encode, model_from_dict, model_to_dict


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def bagged():
    X, y = _data()
    model = AutoRanker(candidates=["linear:n_epochs=2"], blend=False, random_state=0, n_jobs=1).fit(X, y)
    data = model_to_dict(model)
    assert data["state"]["best"]["kind"] == "bag"
    return model, data


@pytest.fixture(scope="module")
def standardized():
    X, y = _data()
    model = AutoRanker(candidates=["kernel"], blend=False, bag_folds=False, random_state=0, n_jobs=1).fit(X, y)
    data = model_to_dict(model)
    assert data["state"]["best"]["kind"] == "standardized"
    return model, data


def _edited(data: dict, field: str, position: int, value: float) -> dict:
    data = copy.deepcopy(data)
    record = data["state"]["best"]
    values = _decode(record[field], field).copy()
    values[position] = value
    record[field] = _encode(values, field)
    return resign(data)


@pytest.mark.parametrize(("field", "value"), [
    ("centers", 1e308), ("centers", -1e308), ("centers", 2 * BAG_LIMIT),
    ("scales", 5e-324), ("scales", 1e-200), ("scales", 1e308), ("scales", 0.5 / BAG_LIMIT),
])
def test_a_bag_center_or_scale_no_fit_writes_is_refused_naming_the_field(bagged, field, value):
    _, data = bagged
    with pytest.raises(ModelFormatError, match=rf"AutoRanker state: best\.{field} must lie in \[.*\] \(a fit "
                                               rf"writes no other\), got {re.escape(repr(value))} at position 1"):
        model_from_dict(_edited(data, field, 1, value))


@pytest.mark.parametrize(("field", "value"), [
    ("scale", 5e-324), ("scale", 1e-160), ("scale", 1e300), ("mean", 1e308), ("mean", -2 * SCALER_LIMIT),
])
def test_a_standardization_no_fit_writes_is_refused_naming_the_field(standardized, field, value):
    _, data = standardized
    expected = rf"AutoRanker state: best\.{field} must lie in .* got {re.escape(repr(value))} at position 0"
    with pytest.raises(ModelFormatError, match=expected):
        model_from_dict(_edited(data, field, 0, value))


def test_values_inside_the_bounds_still_load_and_score(bagged, standardized):
    X, _ = _data()
    for (model, data), field, value in ((bagged, "centers", 0.5), (standardized, "scale", 2.0)):
        loaded = model_from_dict(_edited(data, field, 0, value))
        assert np.isfinite(loaded.decision_function(X)).all()
        np.testing.assert_array_equal(model_from_dict(data).decision_function(X), model.decision_function(X))
