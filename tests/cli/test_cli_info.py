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


def test_info_says_a_push_models_best_score_per_eval_set_not_a_dict(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 1).astype(int)
    model = rankcore.boost(learner="trees", n_iter=6, random_state=0).fit(
        X[:200], y[:200], eval_set=[(X[200:250], y[200:250]), (X[250:], y[250:])], eval_names=["a", "b"])
    save_model(model, tmp_path / "m.json")
    status, out, err = run_main("info", tmp_path / "m.json")
    assert status == 0, err
    a, b = model.best_score_["a"]["auc"], model.best_score_["b"]["auc"]
    assert f"best score a auc {a:.6g}, b auc {b:.6g}; " in out.splitlines()[1], out
    status, out, err = run_main("info", tmp_path / "m.json", "--json")
    assert json.loads(out)["best_score"] == {"a": {"auc": a}, "b": {"auc": b}}


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


def test_info_names_an_exactboost_model_s_metric_by_its_spec(tmp_path):
    # ExactBoost keeps its metric as a Metric object: info printed its repr, "<metric ...>", not its spec
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(120, 3)), rng.integers(0, 2, 120)
    model = rankcore.ExactBoost(metric="pauc:0.2", n_runs=2, n_rounds=2, random_state=0).fit(X, y)
    path = tmp_path / "e.json"
    save_model(model, path)
    status, out, err = run_main("info", path)
    assert status == 0, err
    assert "metric pauc:max_fpr=0.2" in out.splitlines()[1] and "<" not in out, out
    status, out, err = run_main("info", path, "--json")
    assert json.loads(out)["metric"] == "pauc:max_fpr=0.2"


def test_info_reads_a_model_from_a_pipe_once(query_model):
    # info loaded the file, then opened it again for its header: a pipe (the shell's <(cat m.json)) was empty then
    import os
    import threading

    path, _ = query_model
    read_end, write_end = os.pipe()

    def write():
        with os.fdopen(write_end, "wb") as fh:
            fh.write(path.read_bytes())

    writer = threading.Thread(target=write)
    writer.start()
    try:
        status, out, err = run_main("info", f"/dev/fd/{read_end}", "--json")
    finally:
        writer.join()
        os.close(read_end)
    assert status == 0, err
    assert json.loads(out)["estimator"] == "PushBoost"


def test_info_lists_the_first_category_columns_as_it_lists_the_features(tmp_path):
    # every category column was printed on one line: a frame of thousands of them made a line of megabytes
    rng = np.random.default_rng(3)
    X = pd.DataFrame({f"c{j}": pd.Categorical(rng.choice(["a", "b"], 80)) for j in range(25)})
    model = rankcore.boost(learner="trees", n_iter=1, random_state=0).fit(X, rng.integers(0, 2, 80))
    path = tmp_path / "c.json"
    save_model(model, path)
    status, out, err = run_main("info", path)
    assert status == 0, err
    line = next(line for line in out.splitlines() if line.startswith("categories: "))
    assert line.endswith("c19 (2 categories), ... and 5 more"), line
    status, out, err = run_main("info", path, "--json")
    assert len(json.loads(out)["categorical"]) == 25          # --json lists them all


def test_info_of_a_command_line_kernel_model_names_the_label_ranked_first(tmp_path):
    # KernelRanker has no classes_: info said nothing of the labels, though the file records --positive's
    rng = np.random.default_rng(4)
    rows = [f"{a:.3f},{b:.3f},{'yes' if a + rng.normal() > 0 else 'no'}" for a, b in rng.normal(size=(60, 2))]
    (tmp_path / "d.csv").write_text("a,b,label\n" + "\n".join(rows) + "\n")
    status, _, err = run_main("fit", tmp_path / "d.csv", "--model", "kernel", "--positive", "no", "-o",
                              tmp_path / "k.json", "--quiet")
    assert status == 0, err
    status, out, err = run_main("info", tmp_path / "k.json")
    assert status == 0, err
    assert "labels: yes, no; ranked first: no" in out.splitlines(), out


def test_info_of_a_kernel_model_says_its_kernel_lambda_solver_and_the_rows_it_stores(tmp_path):
    # before: only the parameters set (lam='holdout'), not the lambda chosen nor the training rows the file keeps
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    model = rankcore.KernelRanker(kernel="rbf:3", lam=0.05, solver="exact").fit(X, (X[:, 0] > 0.5).astype(int))
    save_model(model, tmp_path / "k.json")
    status, out, err = run_main("info", tmp_path / "k.json")
    assert status == 0, err
    line = "kernel rbf:gamma=3, filter tikhonov, lam 0.05, solver exact; 80 support rows stored"
    assert line in out.splitlines(), out
    status, out, err = run_main("info", tmp_path / "k.json", "--json")
    assert json.loads(out)["kernel_model"] == {"kernel": "rbf:gamma=3", "filter": "tikhonov", "lam": 0.05,
                                               "solver": "exact", "support_rows": 80}


@pytest.mark.parametrize("params, said, shape", [
    ({"lam": [0.1, 0.01]}, "filters tikhonov, λ 0.1, 0.01; decision_function returns a score per λ, "
                           "shape (n_samples, 2)", [2]),
    ({"filter": ["tikhonov", "landweber"], "lam": [0.1, 0.01]},
     "filters tikhonov, landweber, λ 0.1, 0.01; decision_function returns a score per filter and λ, "
     "shape (n_samples, 2, 2)", [2, 2]),
])
def test_info_of_a_kernel_path_model_says_it_is_a_path_with_its_filters_and_lambdas(tmp_path, params, said, shape):
    # before: the first filter alone (or no filter) and no λ, as if the file held one model
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 3))
    model = rankcore.KernelRanker(kernel="rbf:3", solver="exact", **params).fit(X, (X[:, 0] > 0).astype(int))
    assert model.decision_function(X).shape == (60, *shape)
    save_model(model, tmp_path / "k.json")
    status, out, err = run_main("info", tmp_path / "k.json")
    assert status == 0, err
    line = next(line for line in out.splitlines() if line.startswith("kernel "))
    assert line.startswith("kernel rbf:gamma=3, solver exact; a path: ") and said in line, line
    assert line.endswith(": score one column; 60 support rows stored"), line
    status, out, err = run_main("info", tmp_path / "k.json", "--json")
    kernel = json.loads(out)["kernel_model"]
    assert kernel["lams"] == [0.1, 0.01] and kernel["path_shape"] == shape and "filter" not in kernel
    assert kernel["filters"] == params.get("filter", ["tikhonov"])


@pytest.mark.parametrize("max_boxes, said", [
    (1, r"4 runs, (\d+) stumps kept; (\d+) feature searches stopped by max_boxes before proving optimality"),
    (None, r"4 runs, (\d+) stumps kept; every feature search proved its stump optimal"),
])
def test_info_says_how_an_exactboost_fit_ended(tmp_path, max_boxes, said):
    # info said nothing of ExactBoost's searches: whether its stumps are the exact optima, or some search was cut
    # short by max_boxes, is what a reviewer of the model asks first
    import re

    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0.5).astype(int)
    model = rankcore.ExactBoost(metric="ks", n_runs=4, n_rounds=3, max_boxes=max_boxes, random_state=0).fit(X, y)
    save_model(model, tmp_path / "e.json")
    status, out, err = run_main("info", tmp_path / "e.json")
    assert status == 0, err
    found = re.search(said, out)
    assert found, out
    assert int(found.group(1)) == int(model.run_lengths_.sum())
    if max_boxes == 1:
        assert int(found.group(2)) == model.n_budget_exhausted_ > 0
    status, out, err = run_main("info", tmp_path / "e.json", "--json")
    assert json.loads(out)["searches"] == {"runs": 4, "stumps": int(model.run_lengths_.sum()),
                                           "budget_exhausted": model.n_budget_exhausted_}


def test_info_says_a_tuple_or_component_parameter_plainly(tmp_path):
    from rankcore.registry import resolve

    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(120, 3)), rng.integers(0, 2, 120)
    model = rankcore.boost(learner=resolve("learner", "trees:max_depth=2"), categorical_features=(2,),
                           n_iter=2, random_state=0).fit(np.c_[X[:, :2], rng.integers(0, 3, 120)], y)
    save_model(model, tmp_path / "m.json")
    status, out, err = run_main("info", tmp_path / "m.json")
    assert status == 0, err
    assert "categorical_features=[2], learner='trees:31,0.1,2'" in out and "__" not in out, out


def test_info_says_a_python_fit_with_random_state_none_keeps_no_seed(tmp_path, capsys):
    # before: "parameters set" left the default None out, and nothing said that the file cannot repeat the fit
    import json

    import numpy as np

    import rankcore
    from rankcore.cli import main

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    for seed, name in ((None, "none.json"), (0, "zero.json")):
        rankcore.save_model(rankcore.boost(learner="trees", n_iter=2, random_state=seed).fit(X, y), tmp_path / name)
    assert main(["info", str(tmp_path / "none.json")]) == 0
    assert "random_state=None: the fit's random draws came from NumPy's global RandomState" in capsys.readouterr().out
    assert main(["info", "--json", str(tmp_path / "none.json")]) == 0
    assert json.loads(capsys.readouterr().out)["random_state_drawn"] is True
    assert main(["info", str(tmp_path / "zero.json")]) == 0
    assert "random_state=None" not in capsys.readouterr().out
