"""``rankcore export MODEL --format lightgbm|xgboost-json -o OUT``: the file, its scores, the warnings, and the
refusals."""

import json

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.cli import main
from rankcore.persistence import save_model


def _model(tmp_path, learner="trees:max_leaves=4", name="m.json"):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(200, 3)), 1)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = rankcore.boost(learner=learner, n_iter=4, random_state=0).fit(X, y)
    save_model(model, tmp_path / name)
    return model, X


def test_export_writes_the_lightgbm_text(tmp_path, capsys):
    model, X = _model(tmp_path)
    out = tmp_path / "m.txt"
    assert main(["export", str(tmp_path / "m.json"), "--format", "lightgbm", "-o", str(out)]) == 0
    assert "wrote 4 trees" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == model.to_lightgbm()
    lightgbm = pytest.importorskip("lightgbm")
    np.testing.assert_array_equal(lightgbm.Booster(model_file=str(out)).predict(X, raw_score=True),
                                  model.decision_function(X))


def test_export_to_standard_output_and_no_overwrite(tmp_path, capsys):
    model, _ = _model(tmp_path)
    assert main(["export", str(tmp_path / "m.json"), "-o", "-"]) == 0
    assert capsys.readouterr().out == model.to_lightgbm()
    out = tmp_path / "m.txt"
    out.write_text("keep")
    assert main(["export", str(tmp_path / "m.json"), "-o", str(out)]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert out.read_text() == "keep"
    assert main(["export", str(tmp_path / "m.json"), "-o", str(out), "--force", "-q"]) == 0
    assert out.read_text(encoding="utf-8") == model.to_lightgbm()
    assert main(["export", str(tmp_path / "m.json"), "-o", str(tmp_path / "m.json"), "--force"]) == 2
    assert "is the input MODEL" in capsys.readouterr().err


def test_export_refuses_models_without_trees(tmp_path, capsys):
    _model(tmp_path, learner="features", name="linear.json")
    assert main(["export", str(tmp_path / "linear.json"), "-o", str(tmp_path / "l.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankcore: error: ") and "linear.json" in err and "'features'" in err
    assert not (tmp_path / "l.txt").exists()
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    save_model(rankcore.ExactBoost(n_runs=2, random_state=0).fit(X, (X[:, 0] > 0).astype(int)), tmp_path / "e.json")
    assert main(["export", str(tmp_path / "e.json"), "-o", str(tmp_path / "e.txt")]) == 2
    assert "a model of ExactBoost cannot be written as a LightGBM model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["export", str(tmp_path / "e.json"), "--format", "onnx", "-o", str(tmp_path / "e.txt")])
    assert stop.value.code == 2
    assert "invalid choice: 'onnx'" in capsys.readouterr().err


def test_export_writes_the_xgboost_json_dump(tmp_path, capsys):
    model, X = _model(tmp_path)
    out = tmp_path / "m.dump.json"
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-json", "-o", str(out)]) == 0
    assert "as an XGBoost JSON dump to" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    assert text == model.to_xgboost_json()
    assert len(json.loads(text)) == 4
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-json", "-o", "-"]) == 0
    assert capsys.readouterr().out == text


def test_export_xgboost_json_refuses_categorical_splits(tmp_path, capsys):
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 6, 300).astype(float), rng.normal(size=300)])
    y = np.isin(X[:, 0], [1, 4]).astype(int)
    model = rankcore.boost(learner="trees:max_leaves=4,categorical=0", n_iter=3, random_state=0).fit(X, y)
    save_model(model, tmp_path / "cat.json")
    assert main(["export", str(tmp_path / "cat.json"), "--format", "xgboost-json", "-o", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankcore: error: ") and "cat.json" in err and "by categories" in err
    # the advice in the command line's words
    assert "refit with the column left out of --categorical (numbers in the data file)" in err
    assert "refit with the column numeric" not in err
    assert not (tmp_path / "c.json").exists()
    assert main(["export", str(tmp_path / "cat.json"), "--format", "lightgbm", "-o", str(tmp_path / "c.txt")]) == 0


def test_export_says_stumps_and_names_the_model_in_value_errors(tmp_path, capsys):
    _model(tmp_path, learner="stumps", name="s.json")
    assert main(["export", str(tmp_path / "s.json"), "-o", str(tmp_path / "s.txt")]) == 0
    assert "wrote 4 stumps of" in capsys.readouterr().err
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a b", "a_b"])
    save_model(rankcore.boost(learner="trees:max_leaves=4", n_iter=2).fit(frame, (frame["a b"] > 0).astype(int)),
               tmp_path / "names.json")
    assert main(["export", str(tmp_path / "names.json"), "-o", str(tmp_path / "n.txt")]) == 2
    err = capsys.readouterr().err
    # the names are the model's own (no --feature-names given): the error names the model, and the option as a way out
    assert err.startswith("rankcore: error: ") and "names.json: PushBoost: feature_names_in_: columns 0" in err
    assert err.rstrip().endswith("rename one, or pass --feature-names")


def test_export_warns_that_a_model_fitted_from_initial_scores_is_the_correction(tmp_path, capsys):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 2))
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3).fit(X, (X[:, 0] > 0).astype(int),
                                                                      init_score=X[:, 1])
    save_model(model, tmp_path / "init.json")
    for fmt in ("lightgbm", "xgboost-json"):
        assert main(["export", str(tmp_path / "init.json"), "--format", fmt, "-o", str(tmp_path / f"{fmt}.out")]) == 0
        err = capsys.readouterr().err
        assert "rankcore: warning: " in err and "init.json: " in err and "(from_init_score_)" in err
        assert "correction alone" in err


def test_export_replaces_the_file_atomically(tmp_path, capsys, monkeypatch):
    import os

    _model(tmp_path)
    out = tmp_path / "m.txt"
    out.write_text("the old model")
    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    assert main(["export", str(tmp_path / "m.json"), "-o", str(out), "--force"]) == 2
    assert "m.txt" in capsys.readouterr().err
    assert out.read_text() == "the old model"
    assert sorted(os.listdir(tmp_path)) == ["m.json", "m.txt"]


def _auto(tmp_path, X, y, name, **params):
    auto = rankcore.AutoRanker(candidates=["trees:max_leaves=4,n_iter=20"], random_state=0, n_jobs=1, **params)
    auto.fit(X, y)
    save_model(auto, tmp_path / name)
    return auto


def test_export_an_auto_model_whose_choice_is_one_refit_of_trees(tmp_path, capsys):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"shop": pd.Categorical(rng.choice(["a", "b", "c"], 300)), "x": rng.normal(size=300)})
    y = (frame["shop"].isin(["b"]) ^ (frame["x"] > 1)).astype(int)
    auto = _auto(tmp_path, frame, y, "auto.json", bag_folds=False)
    out = tmp_path / "auto.txt"
    assert main(["export", str(tmp_path / "auto.json"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "feature_names=shop x" in text and 'pandas_categorical:[["a", "b", "c"]]' in text
    lightgbm = pytest.importorskip("lightgbm")
    np.testing.assert_array_equal(lightgbm.Booster(model_str=text).predict(frame, raw_score=True),
                                  auto.decision_function(frame))


def test_export_an_auto_fold_bag_as_one_file_of_its_models_weighted_trees(tmp_path, capsys):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 2))
    auto = _auto(tmp_path, X, (X[:, 0] > 0).astype(int), "bag.json")
    bag = auto.best_estimator_
    assert type(bag).__name__ == "FoldBag"
    trees = sum(len(model.rankers_) for model in bag.estimators)
    for fmt, name in (("lightgbm", "bag.txt"), ("xgboost-json", "bag.dump.json")):
        assert main(["export", str(tmp_path / "bag.json"), "--format", fmt, "-o", str(tmp_path / name)]) == 0
        assert (f"wrote {trees + 1} trees (the fold bag of {auto.best_candidate_!r}: its 6 models' {trees} trees, "
                f"weighted, and its constant) of") in capsys.readouterr().err
    text = (tmp_path / "bag.txt").read_text(encoding="utf-8")
    assert text == auto.to_lightgbm()
    assert (tmp_path / "bag.dump.json").read_text(encoding="utf-8") == auto.to_xgboost_json()
    lightgbm = pytest.importorskip("lightgbm")
    expected = auto.decision_function(X)
    np.testing.assert_allclose(lightgbm.Booster(model_str=text).predict(X, raw_score=True), expected,
                               rtol=1e-12, atol=1e-12 * np.max(np.abs(expected)))


def test_export_refuses_an_auto_blend_saying_why(tmp_path, capsys):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    auto = rankcore.AutoRanker(random_state=0, n_jobs=1).fit(X, y)        # small data: the fixed blend
    save_model(auto, tmp_path / "blend.json")
    assert type(auto.best_estimator_).__name__ == "RankAverage"
    assert main(["export", str(tmp_path / "blend.json"), "-o", str(tmp_path / "blend.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankcore: error: ") and "blend.json: AutoRanker.to_lightgbm: the chosen model" in err
    assert "rank-average blend" in err and "--no-blend" in err
    assert not (tmp_path / "blend.txt").exists()


def test_export_writes_an_xgboost_model_with_categorical_splits(tmp_path, capsys):
    rng = np.random.default_rng(2)
    cat = rng.integers(0, 80, 600).astype(float)
    cat[rng.random(600) < 0.1] = np.nan
    X = np.column_stack([cat, np.round(rng.normal(size=600), 1)])
    y = (np.isin(np.nan_to_num(cat) % 5, [1, 2]) ^ (X[:, 1] > 1)).astype(int)
    model = rankcore.boost(learner="trees:categorical=0,max_leaves=6", n_iter=4, random_state=0).fit(X, y)
    assert any(c is not None for r in model.rankers_ for c in r.categories)
    save_model(model, tmp_path / "m.json")
    out = tmp_path / "m.xgb.json"
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-model", "-o", str(out)]) == 0
    assert "as an XGBoost model" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == model.to_xgboost_model()
    xgboost = pytest.importorskip("xgboost")
    X32 = X.astype(np.float32)
    margin = xgboost.Booster(model_file=str(out)).predict(
        xgboost.DMatrix(X32, feature_types=["c", "float"], enable_categorical=True), output_margin=True)
    np.testing.assert_allclose(margin, model.decision_function(X32), rtol=1e-6, atol=1e-6)   # float32 sums
