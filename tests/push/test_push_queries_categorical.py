"""The per-query default with categorical columns: depth-wise trees of the default's depth, not a refusal."""

import numpy as np
import pandas as pd
import pytest

import rankcore
from _query_data import graded_queries
from rankcore.persistence import ModelFormatError, _checksum, model_from_dict, model_to_dict
from rankcore.push._query_defaults import QUERY_CATEGORICAL_PARAMS, QUERY_LEARNER_PARAMS


def _frame(seed=0):
    X, y, qid = graded_queries(seed)
    rng = np.random.default_rng(seed)
    # a category that moves the grades: the trees must read it by its values, not its codes
    colour = rng.choice(["red", "green", "blue"], X.shape[0])
    y = np.where(colour == "green", np.minimum(y + 1, 3), y)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["colour"] = pd.Categorical(colour)
    return frame, y, qid


def _growth(spec: str) -> str:
    return next(p for p in spec.split(",") if p in ("oblivious", "depthwise", "leafwise"))


def test_a_frame_with_a_category_column_fits_depthwise_trees_of_the_default_depth():
    frame, y, qid = _frame()
    model = rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(frame, y, qid=qid)
    assert _growth(model.learner_spec_) == QUERY_CATEGORICAL_PARAMS["trees"]["growth"] == "depthwise"
    depth = QUERY_LEARNER_PARAMS["trees"]["max_depth"]
    assert f",{depth},depthwise," in model.learner_spec_
    assert ",random_strength=1,line_search=false" in model.learner_spec_      # the other per-query settings stay
    assert np.isfinite(model.decision_function(frame)).all()
    # the same rows without the category column keep the oblivious default
    numeric = rankcore.boost(learner="trees", n_iter=8, random_state=0).fit(frame.drop(columns="colour"), y, qid=qid)
    assert _growth(numeric.learner_spec_) == "oblivious"


def test_categorical_features_of_an_array_switch_the_shape_too():
    frame, y, qid = _frame()
    X = frame.assign(colour=frame["colour"].cat.codes).to_numpy(dtype=float)
    model = rankcore.boost(learner="trees", n_iter=4, random_state=0, categorical_features=[X.shape[1] - 1])
    model.fit(X, y, qid=qid)
    assert _growth(model.learner_spec_) == "depthwise"


def test_a_shape_in_the_users_spec_is_the_one_fitted():
    frame, y, qid = _frame()
    model = rankcore.boost(learner="trees:max_leaves=7", n_iter=4, random_state=0).fit(frame, y, qid=qid)
    assert _growth(model.learner_spec_) == "leafwise"
    # and an explicit oblivious shape still says why it cannot split the column
    with pytest.raises(ValueError, match="growth='oblivious' does not split categorical columns"):
        rankcore.boost(learner="trees:growth=oblivious", n_iter=4).fit(frame, y, qid=qid)


@pytest.mark.parametrize("how", ["frame", "categorical_features"])
def test_the_model_saves_and_loads_with_its_depthwise_trees(tmp_path, how):
    frame, y, qid = _frame(1)
    if how == "frame":
        X, kwargs = frame, {}
    else:
        X = frame.assign(colour=frame["colour"].cat.codes).to_numpy(dtype=float)
        kwargs = {"categorical_features": [X.shape[1] - 1]}
    model = rankcore.boost(learner="trees", n_iter=6, random_state=0, **kwargs).fit(X, y, qid=qid)
    rankcore.save_model(model, tmp_path / "model.json")
    loaded = rankcore.load_model(tmp_path / "model.json")
    assert loaded.learner_spec_ == model.learner_spec_
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_file_claiming_oblivious_trees_for_categorical_columns_is_refused():
    frame, y, qid = _frame()
    model = rankcore.boost(learner="trees", n_iter=3, random_state=0).fit(frame, y, qid=qid)
    document = model_to_dict(model)
    document["state"]["learner"] = document["state"]["learner"].replace("depthwise", "oblivious")
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="does not match the parameters"):
        model_from_dict(document)


def test_a_file_whose_categorical_features_name_no_column_is_refused():
    frame, y, qid = _frame()
    X = frame.assign(colour=frame["colour"].cat.codes).to_numpy(dtype=float)
    model = rankcore.boost(learner="trees", n_iter=3, random_state=0, categorical_features=[X.shape[1] - 1])
    document = model_to_dict(model.fit(X, y, qid=qid))
    document["params"]["categorical_features"] = [99]
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="categorical_features"):
        model_from_dict(document)
