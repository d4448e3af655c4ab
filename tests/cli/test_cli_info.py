"""``rankcore info MODEL``: what a saved model file holds, checked, without data."""

import json

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.persistence import save_model

from _cli_run import one_line_error, run_main


@pytest.fixture(scope="module")
def query_model(tmp_path_factory):
    """A per-query tree model of named columns, one of them a category column of three categories."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(240, 3)), columns=["price", "age", "clicks"])
    X["brand"] = pd.Categorical(rng.choice(["x", "y", "z"], 240))
    y = rng.integers(0, 3, 240)
    qid = np.repeat(np.arange(24), 10)
    model = rankcore.boost(learner="trees", n_iter=7, random_state=0).fit(X, y, qid=qid)
    path = tmp_path_factory.mktemp("info") / "q.json"
    save_model(model, path)
    return path, model


def test_info_says_what_a_per_query_model_file_holds(query_model):
    path, model = query_model
    status, out, err = run_main("info", path)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == (f"{path}: PushBoost (rankcore-model 1, written by rankcore {rankcore.__version__}); "
                        "checksum and structure verified")
    # the components by their parameters' names, not the canonical positions
    assert "objective push:gain_weighted=true" in lines[1] and "7 iterations" in lines[1], lines[1]
    assert "learner trees:" in lines[1] and "growth=depthwise" in lines[1], lines[1]
    assert "features: 4, by name: price, age, clicks, brand" in lines
    assert "categories: brand (3 categories)" in lines
    assert "ranks within queries (fitted on 24 queries): score with the rows' query ids" in lines
    assert lines[-1] == "parameters set: learner='trees', n_iter=7, random_state=0"


def test_info_json_is_the_model_s_own_record(query_model):
    path, model = query_model
    status, out, err = run_main("info", path, "--json")
    assert status == 0, err
    d = json.loads(out)
    assert d["estimator"] == "PushBoost" and d["n_features"] == model.n_features_in_ == 4
    assert d["feature_names"] == list(model.feature_names_in_)
    assert d["categorical"] == {"brand": 3} and d["within_queries"] is True and d["n_queries"] == 24
    assert d["n_iter"] == model.n_iter_ and d["stop_reason"] == model.stop_reason_
    assert d["params"] == {"learner": "trees", "n_iter": 7, "random_state": 0}
    assert "classes" not in d


def test_info_of_a_command_line_model_names_the_file_s_labels(tmp_path):
    rng = np.random.default_rng(1)
    rows = [f"{a:.3f},{b:.3f},{'yes' if a + rng.normal() > 0 else 'no'}" for a, b in rng.normal(size=(80, 2))]
    (tmp_path / "d.csv").write_text("a,b,label\n" + "\n".join(rows) + "\n")
    status, _, err = run_main("fit", tmp_path / "d.csv", "--positive", "yes", "--n-iter", "3", "-o",
                              tmp_path / "m.json", "--quiet")
    assert status == 0, err
    status, out, err = run_main("info", tmp_path / "m.json")
    assert status == 0, err
    assert "labels: no, yes; ranked first: yes" in out.splitlines()
    assert "3 iterations" in out and "stopped" not in out     # it ran every iteration: no stop reason is said


def test_info_of_an_array_fit_and_of_an_auto_ranker(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    auto = rankcore.AutoRanker(candidates=["trees:n_iter=5", "linear"], cv=0.3, random_state=0).fit(X, y)
    save_model(auto, tmp_path / "a.json")
    status, out, err = run_main("info", tmp_path / "a.json")
    assert status == 0, err
    assert f"chosen {auto.best_candidate_}; metric {auto.metric_}; best score {auto.best_score_:.6g}" in out
    assert "features: 3, by position (fitted on an array)" in out and "labels: 0, 1; ranked first: 1" in out


def test_info_refuses_a_damaged_file_as_every_command_does(query_model, tmp_path):
    path, _ = query_model
    damaged = tmp_path / "damaged.json"
    record = json.loads(path.read_text())
    record["params"]["n_iter"] = 8                      # the checksum no longer agrees
    damaged.write_text(json.dumps(record))
    status, out, err = run_main("info", damaged)
    one_line_error(status, err, str(damaged))
    assert out == ""
    status, out, err = run_main("info", tmp_path / "missing.json")
    one_line_error(status, err, "missing.json")
