"""Non-pickle model files (rankcore.persistence), on a toy estimator."""

import json

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import rankcore
from rankcore import persistence
from rankcore.persistence import ModelFormatError, load_model, model_from_dict, model_to_dict, save_model


class ToyRanker(BaseEstimator):
    def __init__(self, *, alpha=1.0, metric="auc"):
        self.alpha = alpha
        self.metric = metric

    def fit(self, X, y):
        self.coef_ = np.asarray(X, dtype=np.float64).mean(axis=0) * self.alpha
        self.n_features_in_ = self.coef_.shape[0]
        self.history_ = [1.0, 0.5, float("inf")]
        return self

    def decision_function(self, X):
        return np.asarray(X) @ self.coef_

    def _get_fitted_state(self):
        return {"coef": self.coef_, "history": self.history_, "nested": {"ids": np.arange(3, dtype=np.int32)}}

    def _set_fitted_state(self, state):
        coef = state["coef"]
        if not (isinstance(coef, np.ndarray) and coef.ndim == 1 and np.isfinite(coef).all()):
            raise ModelFormatError("coef: expected a finite 1-D array")
        self.coef_ = coef
        self.n_features_in_ = coef.shape[0]
        self.history_ = state["history"]
        self.nested_ = state["nested"]


@pytest.fixture(autouse=True)
def toy_allowed(monkeypatch):
    monkeypatch.setitem(persistence.ESTIMATORS, "ToyRanker", f"{__name__}:ToyRanker")


def _fitted():
    rng = np.random.default_rng(0)
    return ToyRanker(alpha=0.3, metric="prec@k:5").fit(rng.normal(size=(20, 4)), rng.integers(0, 2, 20))


def test_round_trip_is_exact(tmp_path):
    model = _fitted()
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert isinstance(loaded, ToyRanker)
    assert loaded.get_params() == model.get_params()
    assert loaded.coef_.tobytes() == model.coef_.tobytes()
    assert loaded.history_ == [1.0, 0.5, float("inf")]
    assert loaded.nested_["ids"].dtype == np.int32
    X = np.random.default_rng(1).normal(size=(5, 4))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    # The file is plain JSON, no pickle.
    text = path.read_text()
    assert json.loads(text)["format"] == "rankcore-model"


def test_unfitted_and_unknown_estimators_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        model_to_dict(ToyRanker())

    class Stranger(ToyRanker):
        pass

    with pytest.raises(TypeError, match="Stranger cannot be saved"):
        model_to_dict(Stranger().fit(np.ones((2, 2)), [0, 1]))


def _tamper(data, mutate, *, rehash=False):
    data = json.loads(json.dumps(data))
    mutate(data)
    if rehash:
        payload = {k: v for k, v in data.items() if k != "sha256"}
        data["sha256"] = persistence._checksum(payload)
    return data


@pytest.mark.parametrize(
    "mutate, rehash, match",
    [
        (lambda d: d["params"].__setitem__("alpha", 0.31), False, "checksum mismatch"),
        (lambda d: d.__setitem__("format", "other"), False, "not a rankcore model"),
        (lambda d: d.__setitem__("format_version", 99), False, "version 99 is not supported: the file was written by"),
        (lambda d: d.pop("state"), False, "unexpected or missing fields"),
        (lambda d: d.__setitem__("estimator", "os.system"), True, "unknown estimator 'os.system'"),
        (lambda d: d["params"].__setitem__("bogus", 1), True, "has no parameter .bogus."),
        (lambda d: d["state"]["coef"].__setitem__("dtype", "|O"), True, "dtype '|O' is not allowed"),
        (lambda d: d["state"]["coef"].__setitem__("shape", [5]), True, "array data has 32 bytes, expected 40"),
        (lambda d: d["state"]["coef"].__setitem__("__ndarray__", "!!!"), True, "not valid base64"),
        (lambda d: d["state"].pop("coef"), True, "invalid fitted state: KeyError"),
    ],
    ids=["edited", "format", "version", "missing", "estimator", "params", "dtype", "shape", "base64", "state"],
)
def test_tampered_models_are_refused(mutate, rehash, match):
    data = _tamper(model_to_dict(_fitted()), mutate, rehash=rehash)
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(data)


def test_state_validation_runs_on_load():
    def poison(d):
        coef = np.frombuffer(__import__("base64").b64decode(d["state"]["coef"]["__ndarray__"]), dtype="<f8").copy()
        coef[0] = np.nan
        d["state"]["coef"]["__ndarray__"] = __import__("base64").b64encode(coef.tobytes()).decode()

    with pytest.raises(ModelFormatError, match="coef: expected a finite 1-D array"):
        model_from_dict(_tamper(model_to_dict(_fitted()), poison, rehash=True))


def test_corrupted_files(tmp_path):
    path = tmp_path / "m.json"
    save_model(_fitted(), path)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ModelFormatError, match="not a valid JSON model file"):
        load_model(path)
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ModelFormatError, match="not a valid JSON"):
        load_model(path)
    path.write_text("[1, 2]")
    with pytest.raises(ModelFormatError, match="expected a JSON object"):
        load_model(path)
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "absent.json")


# --------------------------------------------------------------------------
# Saving is atomic and never follows a planted link
# --------------------------------------------------------------------------


def test_save_does_not_follow_a_link_at_the_old_fixed_temp_name(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    path = tmp_path / "model.json"
    (tmp_path / "model.json.tmp").symlink_to(victim)
    save_model(_fitted(), path)
    assert victim.read_text() == "precious"
    assert not path.is_symlink()
    np.testing.assert_array_equal(load_model(path).coef_, _fitted().coef_)


def test_save_does_not_follow_a_link_at_its_temporary_names(tmp_path, monkeypatch):
    """Plant links at the next names the temporary-file generator will pick."""
    import tempfile

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    planted = ["aaaaaaaa", "bbbbbbbb"]
    for name in planted:
        for pattern in (".model.json.{}.tmp", "model.json.{}", "{}"):
            (tmp_path / pattern.format(name)).symlink_to(victim)
    names = iter([*planted, "cccccccc", "dddddddd"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    save_model(_fitted(), tmp_path / "model.json")
    assert victim.read_text() == "precious"
    assert load_model(tmp_path / "model.json").n_features_in_ == 4
    leftovers = [p.name for p in tmp_path.iterdir() if not p.is_symlink() and p.name.endswith(".tmp")]
    assert leftovers == []


def test_save_keeps_a_link_at_the_target_and_replaces_the_file_it_leads_to(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    current = models / "v3.json"
    current.write_text("the old model")
    path = tmp_path / "model.json"
    path.symlink_to(current)
    save_model(_fitted(), path)
    assert path.is_symlink() and path.resolve() == current.resolve()
    np.testing.assert_array_equal(load_model(current).coef_, _fitted().coef_)
    assert sorted(p.name for p in models.iterdir()) == ["v3.json"]      # the temporary file was beside v3.json


def test_two_threads_saving_to_one_path_never_fail(tmp_path):
    import threading

    path = tmp_path / "model.json"
    models = [_fitted(), ToyRanker(alpha=2.0).fit(np.ones((3, 4)), [0, 1, 0])]
    errors = []

    def save_many(model):
        for _ in range(40):
            try:
                save_model(model, path)
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

    threads = [threading.Thread(target=save_many, args=(m,)) for m in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    coef = load_model(path).coef_  # one of the two complete models, never a mix
    assert any(np.array_equal(coef, m.coef_) for m in models)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]


def test_save_failure_leaves_no_temporary_file(tmp_path, monkeypatch):
    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(persistence.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        save_model(_fitted(), tmp_path / "model.json")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------
# Size and nesting limits
# --------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [100_000, persistence.MAX_NESTING + 1], ids=["depth=100000", "depth=limit+1"])
def test_deeply_nested_file_is_a_format_error(tmp_path, depth):
    path = tmp_path / "deep.json"
    path.write_text('{"format": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(ModelFormatError, match="nested deeper than the limit of 64 levels"):
        load_model(path)


def test_nesting_limit_applies_to_model_from_dict():
    data = model_to_dict(_fitted())
    deep = []
    for _ in range(persistence.MAX_NESTING + 5):
        deep = [deep]
    data["params"]["metric"] = deep
    with pytest.raises(ModelFormatError, match="nested deeper"):
        model_from_dict(data)


def test_size_limit_reads_at_most_limit_plus_one_bytes(tmp_path, monkeypatch):
    import builtins

    path = tmp_path / "m.json"
    save_model(_fitted(), path)
    size = path.stat().st_size
    requested = []
    real_open = builtins.open

    def spying_open(*args, **kwargs):
        handle = real_open(*args, **kwargs)
        real_read = handle.read
        handle.read = lambda n=-1: requested.append(n) or real_read(n)
        return handle

    monkeypatch.setattr(persistence, "open", spying_open, raising=False)
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", size - 1)
    with pytest.raises(ModelFormatError, match=f"size limit of {size - 1} bytes"):
        load_model(path)
    assert requested == []           # a regular file over the limit is refused by its size, before any read
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", size)
    assert load_model(path).n_features_in_ == 4


def test_save_refuses_a_file_load_would_refuse_for_its_size(tmp_path, monkeypatch):
    # whatever save_model writes, load_model must read: a file over the size limit is refused before writing
    path = tmp_path / "m.json"
    save_model(_fitted(), path)
    size = path.stat().st_size
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", size - 1)
    with pytest.raises(ValueError, match=rf"^estimator: the model file would hold {size} bytes, more than load_model "
                                         rf"reads \(rankcore.persistence.MAX_MODEL_BYTES = {size - 1}\)"):
        save_model(_fitted(), tmp_path / "big.json")
    assert not (tmp_path / "big.json").exists() and [p.name for p in tmp_path.iterdir()] == ["m.json"]
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", size)
    save_model(_fitted(), tmp_path / "big.json")
    assert (tmp_path / "big.json").read_bytes() == path.read_bytes()


def test_dev_zero_is_refused_by_the_size_limit(monkeypatch):
    import os

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", 1 << 20)
    with pytest.raises(ModelFormatError, match="size limit"):
        load_model("/dev/zero")



_SMALL = np.random.default_rng(0).normal(size=(120, 4))
_SMALL_Y = (_SMALL[:, 0] > 0.3).astype(int)


@pytest.mark.parametrize("estimator, change", [
    (rankcore.PushBoost(n_iter=15, random_state=0), {"n_iter": 5}),
    (rankcore.PushBoost(n_iter=15, random_state=0), {"price": "pow:16"}),
    (rankcore.PNormPush(n_iter=15), {"p": 16.0}),
    (rankcore.ExactBoost(n_runs=4, n_rounds=5, random_state=0), {"n_runs": 2}),
], ids=["n_iter", "price", "p", "n_runs"])
def test_a_model_whose_parameters_changed_after_the_fit_is_not_saved(tmp_path, estimator, change):
    # the file would hold the new parameters beside the old state, and load_model refuse it: the model lost
    fitted_with = {name: getattr(estimator, name) for name in change}
    model = estimator.fit(_SMALL, _SMALL_Y).set_params(**change)
    with pytest.raises(ValueError, match="cannot be saved as it stands.*set_params after the fit"):
        save_model(model, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
    save_model(model.set_params(**fitted_with), tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").decision_function(_SMALL),
                                  model.decision_function(_SMALL))


def test_a_pnorm_file_whose_objective_contradicts_p_names_both():
    data = model_to_dict(rankcore.PNormPush(n_iter=5, p=8.0).fit(_SMALL, _SMALL_Y))
    data["params"]["p"] = 16.0
    data["sha256"] = persistence._checksum({k: v for k, v in data.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match=r"objective 'push:exp,pow:8' does not match the parameters"):
        model_from_dict(data)


def test_a_tuple_parameter_loads_as_a_tuple(tmp_path):
    model = rankcore.KernelRanker(lam="apriori", apriori_sizes=(20, 30, 40, 50), random_state=0)
    save_model(model.fit(_SMALL, _SMALL_Y), tmp_path / "k.json")
    assert load_model(tmp_path / "k.json").get_params() == model.get_params()
