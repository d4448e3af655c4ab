"""``rankcore export MODEL --format lightgbm|xgboost-json -o OUT``: the file, its scores, and the refusals."""

import json

import numpy as np
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
    assert not (tmp_path / "c.json").exists()
    assert main(["export", str(tmp_path / "cat.json"), "--format", "lightgbm", "-o", str(tmp_path / "c.txt")]) == 0
