"""Model files saved before the ASCII rule for spec numbers still load.

An estimator keeps a spec string as it was given (``get_params``), and the model file holds it: a file saved
while ``float()`` read the numbers may hold ``"pow:1_6"``, ``"trees:max_depth=٢"``, ``"ndcg@k:٥"`` or an ``l2`` of
``1e-400`` (read as 0).  Such a file loaded then and must load now, with the values read then; new input (a fit,
a resolve) keeps the strict rule.
"""

import json

import numpy as np
import pytest

from rankcore.persistence import load_model, model_to_dict, save_model
from rankcore.push import PushBoost
from rankcore.registry import resolve
from rankcore.spec import SpecError, legacy_numbers, read_float, read_int
from _model_files import resign

#: (the spec as fitted, the same spec as a file saved before might hold it)
_LEGACY = {
    "trees:learning_rate=0.5,max_depth=2,l2=0,categorical=1": "trees:learning_rate=5_0e-2 , max_depth=٢,l2=1e-400,"
                                                              "categorical=0_1",
    "pow:16": "pow:1_6",
    "ndcg@k:5": "ndcg@k:٥",
}


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    X[:, 1] = rng.integers(0, 3, size=60)
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    return X, y


def _relabelled(value, table):
    if isinstance(value, str):
        return table.get(value, value)
    if isinstance(value, dict):
        return {k: _relabelled(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [_relabelled(v, table) for v in value]
    return value


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    learner, price, scoring = _LEGACY
    model = PushBoost(learner=learner, price=price, scoring=scoring, n_iter=3, random_state=0).fit(X, y)
    return model, X, y


def test_a_file_with_numbers_float_read_still_loads_to_the_same_model(fitted, tmp_path):
    model, X, y = fitted
    data = model_to_dict(model)
    old = resign({**data, "params": _relabelled(data["params"], _LEGACY),
                  "state": _relabelled(data["state"], _LEGACY)})
    assert old["params"]["price"] == "pow:1_6" and old != data          # the file does hold the old spellings
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    loaded = load_model(path)
    assert loaded.get_params()["learner"] == _LEGACY[next(iter(_LEGACY))]   # kept as written, as a fit keeps it
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.score(X, y) == model.score(X, y)
    save_model(loaded, tmp_path / "again.json")                        # saved again as it stands, and loads
    np.testing.assert_array_equal(load_model(tmp_path / "again.json").decision_function(X),
                                  model.decision_function(X))
    with pytest.raises(SpecError, match="'_' does not separate digits"):   # new input: the strict rule
        loaded.fit(X, y)


@pytest.mark.parametrize("family, legacy, spec", [
    ("learner", "trees:learning_rate=5_0e-2,max_depth=٢,l2=1e-400,categorical=0_1",
     "trees:learning_rate=0.5,max_depth=2,l2=0,categorical=1"),
    ("price", "pow:1_6", "pow:16"),
    ("metric", "ndcg@k:٥", "ndcg@5"),
    ("metric", "prec@k:١٠", "prec@k:10"),
])
def test_legacy_numbers_reads_as_float_did_and_only_inside(family, legacy, spec):
    with pytest.raises(SpecError):
        resolve(family, legacy)
    with legacy_numbers():
        assert resolve(family, legacy) == resolve(family, spec)
    with pytest.raises(SpecError):                                      # and strict again after
        resolve(family, legacy)


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "1e400", "0x10", "1 0", "", "1__0"])
def test_legacy_numbers_still_refuses_what_float_refused_or_never_finite(text):
    with legacy_numbers():
        with pytest.raises(ValueError):
            read_float(text)
        with pytest.raises(ValueError):
            read_int(text)


def test_legacy_numbers_reads_integers_exactly():
    with legacy_numbers():
        assert read_int("12_345_678_901_234_567_891") == 12345678901234567891     # int(), not float()
        assert read_float("1e-400") == 0.0 and read_int("٢") == 2


@pytest.mark.parametrize("name, old, limit", [
    ("random_state", 2**40, r"2\*\*32"),   # the push estimators took such seeds before the limit to 2**32 - 1
    ("n_iter", 10**10, r"2147483647"),       # early stopping ends such a fit long before n_iter
])
def test_a_file_saved_with_a_constructor_value_beyond_a_later_limit_still_loads(fitted, tmp_path, name, old, limit):
    model, X, y = fitted
    data = model_to_dict(model)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(resign({**data, "params": {**data["params"], name: old}})))
    loaded = load_model(path)
    assert getattr(loaded, name) == old
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match=rf"{name}: .*{limit}"):     # new input: the limit
        loaded.fit(X, y)
    with pytest.raises(ValueError, match=rf"{name}: .*{limit}"):
        PushBoost(**{name: old}).fit(X, y)


#: (parameter, its value fitted now, the value a file saved before its limit may hold): limits added since a fit
#: could finish with the larger value (a truncation level beyond every query, more Newton steps on tiny data, a
#: weight or grade out of proportion, a k beyond the rows), so such a file loads still.
_BEYOND_LIMITS = [
    ("learner", "trees:max_leaves=4,leaf_newton_steps=2", "trees:max_leaves=4,leaf_newton_steps=200"),
    ("learner", "trees:max_leaves=4,max_cat_threshold=37,categorical=1",
     f"trees:max_leaves=4,max_cat_threshold={2**40},categorical=1"),
    ("objective", "push:query_rmse=10", "push:query_rmse=1e7"),
    ("objective", "push:discount=sum,truncation=5", f"push:discount=sum,truncation={10**12}"),
    ("objective", "lambdarank:truncation=5", f"lambdarank:truncation={10**12}"),
    ("objective", "prec@k-avg:5,tie_break=1", "prec@k-avg:5,tie_break=1000"),
    ("scoring", "err@k:5,max_grade=4", "err@k:5,max_grade=5000"),
    ("scoring", "prec@k:5", "prec@k:1e20"),
    ("scoring", "ndcg@k:5", f"ndcg@k:{10**20}"),
]
_FAMILIES = {"learner": "learner", "objective": "objective", "scoring": "metric"}


def _respelled(value, fragments):
    """``value`` with every spec string of it in which a fragment occurs rewritten (the full form of a spec)."""
    if isinstance(value, str):
        for now, before in fragments.items():
            value = value.replace(now, before) if value.endswith(now) or now.startswith(",") else value
        return value
    if isinstance(value, dict):
        return {k: _respelled(v, fragments) for k, v in value.items()}
    if isinstance(value, list):
        return [_respelled(v, fragments) for v in value]
    return value


@pytest.mark.parametrize("name, value, old", _BEYOND_LIMITS, ids=[c[2][:48] for c in _BEYOND_LIMITS])
def test_a_file_saved_with_a_value_beyond_a_later_limit_still_loads(name, value, old, tmp_path):
    X, y = _data()
    qid = None if value.startswith("prec@k-") else np.repeat(np.arange(6), 10)
    settings = {"learner": "trees:max_leaves=4", "n_iter": 3, "random_state": 0}
    model = PushBoost(**{**settings, name: value}).fit(X, y, qid=qid)
    # the file as the previous version saved it: the spec as given, and in the full form the state holds
    fragments = {value: old, "leaf_newton_steps=2": "leaf_newton_steps=200", ",10,37,": f",10,{2**40},"}
    with legacy_numbers():
        fragments[resolve(_FAMILIES[name], value).spec] = resolve(_FAMILIES[name], old).spec
    data = model_to_dict(model)
    edited = resign({**data, "params": _relabelled(data["params"], {value: old}),
                     "state": _respelled(data["state"], fragments)})
    assert edited["params"][name] == old
    path = tmp_path / "old.json"
    path.write_text(json.dumps(edited))
    loaded = load_model(path)
    assert loaded.get_params()[name] == old
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match="must be"):                   # new input: the limit
        loaded.fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="must be"):
        resolve(_FAMILIES[name], old)
