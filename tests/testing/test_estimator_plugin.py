"""A separately installed estimator plugin (entry point only) is saved, loaded and fitted by `rankcore fit --model`.

plugins/rankcore-toy-estimator registers ``CentroidRanker`` through the hook
``rankcore_register_estimators``; nothing in rankcore names it.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rankcore
from _plugin_install import installed_plugin

PLUGIN_DIR = Path(__file__).resolve().parents[2] / "plugins" / "rankcore-toy-estimator"
DIST = "rankcore-toy-estimator"


@pytest.fixture(scope="module")
def toy_installed():
    """Install the plugin into the test environment (offline: no deps, no build isolation)."""
    yield from installed_plugin(PLUGIN_DIR, DIST)


@pytest.fixture(scope="module")
def data_csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] - X[:, 2] + 0.3 * rng.normal(size=120) > 0).astype(int)
    path = tmp_path_factory.mktemp("toy") / "data.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,label", comments="", fmt="%.17g")
    return path, X, y


def _cli(*argv):
    done = subprocess.run([sys.executable, "-m", "rankcore", *map(str, argv)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def test_toy_estimator_is_registered_by_its_entry_point(toy_installed):
    reg = rankcore.get_registry()
    entry = reg.entry("estimator", "CentroidRanker")
    assert entry.distribution == f"{DIST} 0.1.0"
    assert reg.entry("estimator", "centroid").cls is entry.cls
    from rankcore.persistence import ESTIMATORS

    assert "CentroidRanker" in ESTIMATORS and "PushBoost" in ESTIMATORS


def test_cli_fits_scores_and_saves_the_toy_estimator(toy_installed, data_csv, tmp_path):
    path, X, y = data_csv
    model_path = tmp_path / "m.json"
    status, _, err = _cli("fit", path, "--model", "centroid", "--n-iter", "4", "--out", model_path, "-q")
    assert status == 0, err
    saved = json.loads(model_path.read_text())
    assert saved["estimator"] == "CentroidRanker" and saved["params"]["n_iter"] == 4
    model = rankcore.load_model(model_path)
    assert type(model).__name__ == "CentroidRanker" and model.n_iter_ == 4
    assert rankcore.evaluate(y, model.decision_function(X), ["auc"])["auc"] > 0.8
    status, out, err = _cli("score", model_path, path)
    assert status == 0, err
    scores = np.array([float(line) for line in out.split()[1:]])
    np.testing.assert_allclose(scores, model.decision_function(X), rtol=1e-12)


def test_toy_estimator_round_trips_in_python(toy_installed, data_csv, tmp_path):
    path, X, y = data_csv
    cls = rankcore.get_registry().get("estimator", "CentroidRanker")
    model = cls(n_iter=3, step=0.25).fit(X, y)
    rankcore.save_model(model, tmp_path / "c.json")
    loaded = rankcore.load_model(tmp_path / "c.json")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.training_curve_.objective.shape == (4,)
    with pytest.raises(ValueError, match=r"^n_iter: expected an integer >= 1, got 0"):
        cls(n_iter=0).fit(X, y)


def test_toy_estimator_passes_the_estimator_contract_checks(toy_installed):
    from rankcore.testing import component_checks

    for check in component_checks("estimator", "CentroidRanker:n_iter=5"):
        check()


def test_a_plugin_fitted_on_a_float32_file_gets_the_float64_values(toy_installed, tmp_path):
    # rankcore's reader keeps a float32 .npy as float32; a plugin's own arithmetic (the toy's X.std) would then run
    # in float32 and overflow on values near 1e38, where float64 does not
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2)).astype(np.float32)
    X[:, 1] *= np.float32(1e38)
    y = (X[:, 0] > 0).astype(np.float32)
    coefs = []
    for dtype in (np.float32, np.float64):
        data, model_path = tmp_path / f"{np.dtype(dtype).name}.npy", tmp_path / f"{np.dtype(dtype).name}.json"
        np.save(data, np.column_stack([X, y]).astype(dtype))
        status, _, err = _cli("fit", data, "--model", "centroid", "--out", model_path, "-q")
        assert status == 0, err
        coefs.append(rankcore.load_model(model_path).coef_)
    assert coefs[0].tobytes() == coefs[1].tobytes()
