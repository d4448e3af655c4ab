"""``rankcore export`` of ``auto`` model files: the refusals' advice in the command line's options, advice that leads
to a model that is exported, ``--feature-names``, and the status line of a fold bag whose models grew nothing."""

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.cli import main
from rankcore.cli.export import CLI_ADVICE, cli_advice
from rankcore.persistence import save_model

#: Python API phrases a command-line message must not hold.
PYTHON_ADVICE = ("with to_lightgbm", "blend=False", "candidates=[", "X.astype(", "pass feature_names", "learner='")


def _saved_auto(tmp_path, X, y, name, **params):
    auto = rankcore.AutoRanker(random_state=0, n_jobs=1, **params).fit(X, y)
    save_model(auto, tmp_path / name)
    return auto


def _export_error(tmp_path, capsys, name, fmt="lightgbm"):
    assert main(["export", str(tmp_path / name), "--format", fmt, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankcore: error: ") and name in err and not (tmp_path / "out").exists()
    for phrase in PYTHON_ADVICE:
        assert phrase not in err, (phrase, err)
    return err


def test_the_category_refusals_name_the_command_lines_ways_out(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"a": rng.normal(size=n), "color": pd.Categorical(rng.choice(["red", "green", "blue"], n))})
    y = ((frame["a"] + (frame["color"] == "red")) > 0.8).astype(int)
    for name, spec, advice in (("groups.json", "trees:n_iter=4,max_leaves=4",
                                "export with --format xgboost-model or --format lightgbm"),
                               ("positions.json", "trees:n_iter=4,max_leaves=4,growth=oblivious",
                                "export with --format lightgbm")):
        _saved_auto(tmp_path, frame, y, name, candidates=[spec])
        err = _export_error(tmp_path, capsys, name, "xgboost-json")
        assert "'color' (column 1)" in err and advice in err
        assert "refit with the column as numbers (left out of --categorical, numbers in the data file;" in err
        assert main(["export", str(tmp_path / name), "--format", "lightgbm", "-o", str(tmp_path / f"{name}.txt")]) == 0
        capsys.readouterr()
    assert "as numbers (model 0 of the fold bag, tree 0, level" in err


def test_the_blend_and_non_tree_refusals_say_rankcore_auto_candidates_trees(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] + rng.normal(size=100) > 0.3).astype(int)
    _saved_auto(tmp_path, X, y, "small.json")                        # small data: the fixed blend
    err = _export_error(tmp_path, capsys, "small.json")
    assert "refit with `rankcore auto --candidates trees` to choose one trees candidate (--no-blend alone may" in err
    _saved_auto(tmp_path, X, y, "linear.json", candidates=["linear:n_epochs=2"])
    err = _export_error(tmp_path, capsys, "linear.json")
    assert err.rstrip().endswith("is exported: refit with `rankcore auto --candidates trees`")
    # a push model of another learner: the fit's option
    rankcore_fit = rankcore.boost(learner="features", n_iter=2).fit(X, y)
    save_model(rankcore_fit, tmp_path / "features.json")
    err = _export_error(tmp_path, capsys, "features.json")
    assert "export models of `rankcore fit --learner trees` or `--learner stumps`" in err
    # the advice leads to a model that is exported
    _saved_auto(tmp_path, X, y, "trees.json", candidates=["trees"])
    assert main(["export", str(tmp_path / "trees.json"), "-o", str(tmp_path / "trees.txt")]) == 0


def test_feature_names_of_an_auto_model(tmp_path, capsys):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    auto = _saved_auto(tmp_path, X, (X[:, 0] + X[:, 1] > 0.5).astype(int), "auto.json",
                       candidates=["trees:n_iter=3,max_leaves=4"])
    for fmt, method in (("lightgbm", "to_lightgbm"), ("xgboost-json", "to_xgboost_json")):
        out = tmp_path / f"named.{fmt}"
        assert main(["export", str(tmp_path / "auto.json"), "--format", fmt, "-o", str(out),
                     "--feature-names", "price,bm25,age", "-q"]) == 0
        assert out.read_text(encoding="utf-8") == getattr(auto, method)(feature_names=["price", "bm25", "age"])
    assert main(["export", str(tmp_path / "auto.json"), "-o", str(tmp_path / "bad.txt"), "--feature-names", "a,b"]) == 2
    assert "--feature-names: expected 3 names (one per feature), got 2" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:boosting stopped at iteration 1")
def test_a_fold_bag_whose_models_grew_nothing_is_one_tree(tmp_path, capsys):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 2))
    auto = _saved_auto(tmp_path, X, (X[:, 0] > 0.3).astype(int), "empty.json",
                       candidates=["trees:n_iter=3,min_samples_leaf=5000"])
    assert not any(m.rankers_ for m in auto.best_estimator_.estimators), "the models grew trees: pointless"
    assert main(["export", str(tmp_path / "empty.json"), "-o", str(tmp_path / "empty.txt")]) == 0
    err = capsys.readouterr().err
    assert "wrote 1 tree (the fold bag of 'trees:n_iter=3,min_samples_leaf=5000': its 6 models grew none; its " \
           "constant)" in err and "1 trees" not in err


def test_every_python_phrase_has_its_command_line_form():
    message = " ".join(python for python, _ in CLI_ADVICE)
    translated = cli_advice(message)
    for phrase in PYTHON_ADVICE:
        assert phrase not in translated
