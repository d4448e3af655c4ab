"""The command line's model factory, spec lists, tables and inputs, run in-process through `rankcore.cli.main`."""

import argparse
import contextlib
import io
import json

import numpy as np
import pytest

import rankcore
from rankcore.cli import CommandError, main
from rankcore.cli._common import Table, split_specs
from rankcore.cli._models import KINDS, add_model_options, build_configs, stop_summary


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def parse_model_args(*argv, multiple=True):
    parser = argparse.ArgumentParser()
    add_model_options(parser, multiple=multiple)
    return parser.parse_args(list(argv))


@pytest.fixture(scope="module")
def small_data(tmp_path_factory):
    """250 rows of the breast-cancer data, standardized (the linear and kernel models need it), in every format."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = np.sort(rng.choice(X.shape[0], 250, replace=False))
    X = X[rows][:, :8]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = (y[rows] == 0).astype(int)
    d = tmp_path_factory.mktemp("small")
    with open(d / "data.csv", "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(X.shape[1])) + ",label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    with open(d / "data.svm", "w") as fh:
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(f"{2 * label - 1} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n")
    np.savez(d / "data.npz", X=X, y=y)
    np.save(d / "data.npy", np.column_stack([X, y]))
    return d, X, y


# --------------------------------------------------------------------------
# Spec lists and tables
# --------------------------------------------------------------------------


def test_split_specs_keeps_arguments_with_their_spec():
    names = rankcore.get_registry().names("metric")
    assert split_specs("auc,pauc:0.1,mcclish,tpauc:0.5,0.1,prec@k:10,rmax", names, what="x") == [
        "auc", "pauc:0.1,mcclish", "tpauc:0.5,0.1", "prec@k:10", "rmax"]
    assert split_specs("auc,nosuch", names, what="x") == ["auc", "nosuch"]  # then reported as unknown
    with pytest.raises(CommandError, match="empty item"):
        split_specs("auc,,rmax", names, what="--metrics")


def test_split_specs_starts_a_spec_at_the_at_k_shorthand():
    # a shorthand after a spec with arguments starts a spec of its own, not one more argument of the one before
    names = rankcore.get_registry().names("metric")
    assert split_specs("map@k:5,convention=lightgbm,map@10,ndcg@k:3,ndcg@5,pauc:0.1,prec@10", names, what="x") == [
        "map@k:5,convention=lightgbm", "map@10", "ndcg@k:3", "ndcg@5", "pauc:0.1", "prec@10"]
    assert split_specs("ndcg@k:3,gain=0/1/3@7", names, what="x") == ["ndcg@k:3,gain=0/1/3@7"]   # no such base@k
    # a named argument after a shorthand without arguments is its first
    assert split_specs("ndcg@5,convention=lightgbm,ties=average,map@10,auc", names, what="x") == [
        "ndcg@5:convention=lightgbm,ties=average", "map@10", "auc"]
    assert split_specs("auc,nosuch=1", names, what="x") == ["auc:nosuch=1"]           # then reported by auc


@pytest.mark.parametrize("fmt", ["text", "csv", "json", "markdown"])
def test_table_formats(fmt):
    table = Table(["model", "auc", "rmax"], [["a", 0.5, 3], ["bb", 0.123456, 10]])
    text = table.render(fmt)
    if fmt == "json":
        assert json.loads(text) == [{"model": "a", "auc": 0.5, "rmax": 3}, {"model": "bb", "auc": 0.123456, "rmax": 10}]
    elif fmt == "csv":
        assert text.splitlines() == ["model,auc,rmax", "a,0.5,3", "bb,0.123456,10"]
    elif fmt == "markdown":
        assert text.splitlines()[1] == "|---|---:|---:|"
    else:
        assert text.splitlines() == ["model     auc  rmax", "a      0.5000     3", "bb     0.1235    10"]


# --------------------------------------------------------------------------
# The model factory
# --------------------------------------------------------------------------


def test_compare_combines_list_values_per_model():
    args = parse_model_args("--model", "push,exactboost", "--price", "identity,pow:8", "--learner", "stumps",
                            "--metric", "auc,pauc:0.1,mcclish", "--n-iter", "7")
    configs = build_configs(args, multiple=True)
    assert [c.label for c in configs] == ["push identity", "push pow:8", "exactboost metric=auc",
                                          "exactboost metric=pauc:0.1,mcclish"]
    assert configs[1].params == {"random_state": 0, "price": "pow:8", "learner": "stumps", "n_iter": 7}
    assert configs[3].params["n_rounds"] == 7 and configs[3].params["metric"] == "pauc:0.1,mcclish"


def test_model_spec_and_param():
    args = parse_model_args("--model", "exactboost:metric=pauc:0.1,mcclish,n_runs=3", "--param", "margin=0.1",
                            multiple=False)
    (config,) = build_configs(args, multiple=False)
    assert config.params == {"random_state": 0, "margin": 0.1, "metric": "pauc:0.1,mcclish", "n_runs": 3}
    estimator = config.build()
    assert isinstance(estimator, rankcore.ExactBoost) and estimator.n_runs == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model", "push", "--metric", "auc"], "--metric applies to --model exactboost / kernel, not push"),
        (["--model", "nosuch"], "unknown model 'nosuch'"),
        (["--model", "AutoRanker"], "--model: AutoRanker is not fitted by `rankcore fit`: use `rankcore auto`"),
        (["--model", "auto"], "--model: AutoRanker is not fitted by `rankcore fit`: use `rankcore auto`"),
        (["--model", "pnormpush"], "--model: PNormPush is not fitted by `rankcore fit`: use --model push --price"),
        (["--model", "push:nosuch=1"], "no parameter 'nosuch'"),
        (["--model", "push:pow"], "expected parameters as key=value"),
        (["--price", "pow:0.5"], "--price 'pow:0.5'"),
        (["--learner", "nosuch"], "unknown learner 'nosuch'"),
        (["--param", "nosuch=1"], "--param nosuch"),
        (["--param", "oops"], "expected KEY=VALUE"),
    ],
)
def test_model_option_errors(argv, message):
    with pytest.raises((CommandError, ValueError)) as info:
        build_configs(parse_model_args(*argv, multiple=False), multiple=False)
    assert message in str(info.value)


def test_fit_takes_one_model():
    with pytest.raises(CommandError, match="fit trains one model"):
        build_configs(parse_model_args("--model", "push,exactboost", multiple=False), multiple=False)


def test_a_repeated_model_option_is_one_more_value_to_compare_and_refused_by_fit():
    args = parse_model_args("--learner", "trees:monotone=1/0,max_leaves=8", "--learner", "stumps", "--n-iter", "5")
    assert [c.params["learner"] for c in build_configs(args, multiple=True)] == ["trees:monotone=1/0,max_leaves=8",
                                                                                "stumps"]
    with pytest.raises(CommandError, match="--learner: given 2 times; fit trains one model"):
        build_configs(parse_model_args("--learner", "trees", "--learner", "stumps", multiple=False), multiple=False)


# --------------------------------------------------------------------------
# Every model kind through fit -> evaluate, every input format
# --------------------------------------------------------------------------

KIND_OPTIONS = {
    "push": ["--price", "pow:4", "--n-iter", "15"],
    "rankboost": ["--learner", "thresholds:q=4", "--n-iter", "15"],
    "exactboost": ["--metric", "prec@k:10", "--n-runs", "4", "--n-iter", "10"],
    "perceptron@k": ["--k", "0.1", "--variant", "max", "--n-iter", "5"],
    "sgd@k": ["--k", "0.1", "--surrogate", "avg", "--eta0", "0.1", "--n-iter", "5"],
    "kernel": ["--kernel", "rbf", "--lam", "0.01"],
}


def test_every_kind_has_options_here():
    builtin = {name for name, kind in KINDS.items() if kind.cls.__module__.startswith("rankcore.")}
    assert set(KIND_OPTIONS) == builtin      # installed plugins' estimators are kinds too


@pytest.mark.parametrize("kind", sorted(KIND_OPTIONS))
def test_fit_every_kind_then_evaluate(kind, small_data, tmp_path):
    d, X, y = small_data
    model_path = tmp_path / "m.json"
    status, out, err = run_main("fit", d / "data.csv", "--model", kind, *KIND_OPTIONS[kind], "--out", model_path,
                                "--progress", "lines")
    assert status == 0, err
    assert f"[{kind}]" in err and "done in" in err
    model = rankcore.load_model(model_path)
    assert type(model).__name__ == KINDS[kind].estimator.split(":")[1]
    status, out, err = run_main("evaluate", model_path, d / "data.csv", "--metrics", "auc,rmax", "--table-format",
                                "json")
    assert status == 0, err
    values = {r["metric"]: r["value"] for r in json.loads(out)}
    assert values == pytest.approx(rankcore.evaluate(y, model.decision_function(X), ["auc", "rmax"]))
    assert values["auc"] > 0.8


@pytest.mark.parametrize("name", ["data.svm", "data.npz", "data.npy"])
def test_other_formats_give_the_same_model(name, small_data, tmp_path):
    d, X, y = small_data
    assert run_main("fit", d / "data.csv", "--n-iter", "10", "--out", tmp_path / "a.json", "-q")[0] == 0
    status, _, err = run_main("fit", d / name, "--n-iter", "10", "--out", tmp_path / "b.json", "-q")
    assert status == 0, err
    a, b = rankcore.load_model(tmp_path / "a.json"), rankcore.load_model(tmp_path / "b.json")
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    status, out, _ = run_main("score", tmp_path / "b.json", d / name)
    assert status == 0
    np.testing.assert_array_equal(np.array(out.split()[1:], dtype=float), b.decision_function(X))


def test_fit_with_validation_file_and_objective_plot(small_data, tmp_path):
    d, X, y = small_data
    status, _, err = run_main("fit", d / "data.csv", "--validation", d / "data.npz", "--monitor", "rmax",
                              "--n-iter", "12", "--out", tmp_path / "m.json", "--plot-objective",
                              tmp_path / "objective.svg", "--progress", "lines")
    assert status == 0, err
    assert "validation rmax" in err
    assert (tmp_path / "objective.svg").read_text().lstrip().startswith("<?xml")
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.validation_scores_.shape == (12,)  # the push estimator kept the monitored metric


@pytest.mark.parametrize("progress", ["none", "lines"])
def test_fit_says_once_that_it_stopped_early(tmp_path, progress):
    # the progress' last line says why the fit stopped; with --progress none the saved line says it instead
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(400, 3)), rng.integers(0, 2, 400)      # labels of noise: the hold-out stops it early
    path = tmp_path / "noise.csv"
    path.write_text("a,b,c,label\n" + "".join(f"{a!r},{b!r},{c!r},{t}\n" for (a, b, c), t in zip(X.tolist(), y)))
    status, _, err = run_main("fit", path, "--n-iter", "300", "--param", "early_stopping=true",
                              "--param", "n_iter_no_change=3", "--out", tmp_path / "m.json", "--progress", progress)
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.stop_reason_ == "early_stopping" and model.n_iter_ < 300
    # n_iter_ is the iterations kept (the best on the hold-out), fewer than those run and shown by the progress
    said = stop_summary(model)
    assert said.startswith("stopped: early_stopping, ")
    assert err.count(said) == 1, err
    saved = next(line for line in err.splitlines() if line.startswith("saved "))
    assert (said in saved) == (progress == "none")


@pytest.mark.parametrize("kept, said", [(0, "no iteration scored better than the start on the hold-out: kept none"),
                                        (1, "kept the best 1 iteration"), (31, "kept the best 31 iterations")])
def test_the_early_stop_line_counts_the_iterations_kept(kept, said):
    # an early stop at the start kept no iteration: "kept the best 0 iterations" read as a count of the best ones
    from types import SimpleNamespace

    line = stop_summary(SimpleNamespace(stop_reason_="early_stopping", n_iter_=kept))
    assert line == f"stopped: early_stopping, {said}"


def test_compare_svg_figures_and_csv_table(small_data, tmp_path):
    d, X, y = small_data
    status, out, err = run_main("compare", d / "data.csv", "--model", "push,rankboost", "--n-iter", "8",
                                "--image-format", "svg", "--out-dir", tmp_path / "figs", "--table-format", "csv",
                                "--metrics", "auc,ks", "--max-fp", "3", "-q")
    assert status == 0, err
    assert err == ""
    assert out.splitlines()[0] == "model,split,auc,ks"
    assert len(out.splitlines()) == 5
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["objective.svg", "precision_at_k.svg", "roc.svg"]


def test_positive_label_option(small_data, tmp_path):
    d, X, y = small_data
    status, out, _ = run_main("fit", d / "data.csv", "--positive", "0", "--n-iter", "5", "-q",
                              "--out", tmp_path / "m.json")
    assert status == 0
    status, out, _ = run_main("evaluate", tmp_path / "m.json", d / "data.csv", "--positive", "0", "--metrics",
                              "auc", "--table-format", "json")
    assert json.loads(out)[0]["value"] > 0.8  # ranks the benign cases on top


def test_output_checked_before_training(small_data, tmp_path):
    d, X, y = small_data
    status, _, err = run_main("fit", d / "data.csv", "--out", tmp_path / "no" / "such" / "dir" / "m.json")
    assert status == 2 and "--out: the directory" in err and "[push]" not in err


def test_compare_figures_plot_the_models_scores(small_data):
    from rankcore._progress import Progress
    from _roc_zoom import assert_zoomed_roc
    from rankcore.cli.compare import run_comparison, write_figures

    d, X, y = small_data
    configs = build_configs(parse_model_args("--price", "identity,pow:16", "--n-iter", "6"), multiple=True)
    splits = {"train": (X[:180], y[:180]), "test": (X[180:], y[180:])}
    comparison = run_comparison(configs, splits, ["auc"], progress=Progress("none"), monitor="auc")
    write_figures(comparison, str(d / "figs"), "svg", 4, "t")
    panels = comparison.figures["roc"].panels
    for row, split in enumerate(("train", "test")):
        X_s, y_s = splits[split]
        for fitted in comparison.models:
            scores = fitted.estimator.decision_function(X_s)
            for panel, max_fp in ((panels[2 * row], None), (panels[2 * row + 1], 4)):
                (line,) = [s for s in panel.series if s.gid == f"roc:{fitted.config.label}"]
                assert_zoomed_roc(line.x, line.y, y_s, scores, max_fp)


def test_early_stopping_in_compare_never_looks_at_the_test_split(small_data, tmp_path):
    from sklearn.model_selection import train_test_split

    d, X, y = small_data
    status, _, err = run_main("compare", d / "data.csv", "--n-iter", "60", "--param", "early_stopping=true",
                              "--param", "n_iter_no_change=3", "--no-plots", "-q", "--save-models", tmp_path)
    assert status == 0, err
    saved = rankcore.load_model(tmp_path / "push.json")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    expected = rankcore.PushBoost(n_iter=60, early_stopping=True, n_iter_no_change=3, random_state=0).fit(X_tr, y_tr)
    assert saved.n_iter_ == expected.n_iter_
    np.testing.assert_array_equal(saved.decision_function(X_te), expected.decision_function(X_te))


def test_a_patience_in_compare_never_stops_on_the_test_split(small_data, tmp_path):
    # n_iter_no_change with the default "auto" stops on an eval_set; compare's test split must not be one
    from sklearn.model_selection import train_test_split

    d, X, y = small_data
    status, _, err = run_main("compare", d / "data.csv", "--n-iter", "60", "--param", "n_iter_no_change=3",
                              "--no-plots", "-q", "--save-models", tmp_path)
    assert status == 0, err
    saved = rankcore.load_model(tmp_path / "push.json")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    expected = rankcore.PushBoost(n_iter=60, n_iter_no_change=3, random_state=0).fit(X_tr, y_tr)
    assert saved.n_iter_ == expected.n_iter_ == 60
    np.testing.assert_array_equal(saved.decision_function(X_te), expected.decision_function(X_te))


@pytest.fixture
def example_plugin_components(monkeypatch):
    """The example plugin's `cubic` price and `binary_ndcg@k` metric, registered at runtime if not installed."""
    import sys
    from pathlib import Path

    from rankcore import registry

    if "cubic" in rankcore.get_registry().names("price"):
        yield
        return
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "plugins" / "rankcore-example-plugin"))
    import rankcore_example_plugin.plugin as plugin

    registry.register_plugin(plugin, name="example-for-cli-test", distribution="rankcore-example-plugin")
    try:
        yield
    finally:
        registry.unregister_plugin("example-for-cli-test")
        sys.modules.pop("rankcore_example_plugin.plugin", None)


def test_plugin_components_work_on_the_command_line(example_plugin_components, small_data, tmp_path):
    d, X, y = small_data
    status, out, err = run_main("compare", d / "data.csv", "--price", "pow:4,cubic", "--n-iter", "8",
                                "--metrics", "auc,binary_ndcg@k:10", "--no-plots", "-q", "--table-format", "json",
                                "--save-models", tmp_path)
    assert status == 0, err
    rows = json.loads(out)
    assert {r["model"] for r in rows} == {"push pow:4", "push cubic"}
    cubic = rankcore.load_model(tmp_path / "push_cubic.json")
    assert cubic.price == "cubic"
    status, out, _ = run_main("plugins", "--family", "price")
    assert "cubic" in out and "rankcore-example-plugin" in out


# --------------------------------------------------------------------------
# Missing values
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nan_data(small_data, tmp_path_factory):
    """The small data with a tenth of the feature values missing, written with every kind of NA token."""
    _, X, y = small_data
    rng = np.random.default_rng(1)
    X = X.copy()
    X[rng.random(X.shape) < 0.1] = np.nan
    tokens = ["", "NA", "nan", "?", "N/A", "null"]
    d = tmp_path_factory.mktemp("nan")
    with open(d / "nan.csv", "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(X.shape[1])) + ",label\n")
        for i, (row, label) in enumerate(zip(X.tolist(), y.tolist())):
            cells = [tokens[(i + j) % len(tokens)] if np.isnan(v) else repr(v) for j, v in enumerate(row)]
            fh.write(",".join(cells) + f",{label}\n")
    with open(d / "clean.csv", "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(X.shape[1])) + ",label\n")
        for row, label in zip(small_data[1].tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    np.savez(d / "nan.npz", X=X, y=y)
    return d, X, y


def test_fit_score_evaluate_with_missing_values_through_trees(nan_data, tmp_path):
    d, X, y = nan_data
    model_path = tmp_path / "m.json"
    status, _, err = run_main("fit", d / "nan.csv", "--learner", "trees", "--n-iter", "15", "--out", model_path)
    assert status == 0, err
    n_missing, n_rows = int(np.isnan(X).sum()), int(np.isnan(X).any(axis=1).sum())
    assert f"{n_missing} missing values in {n_rows} rows" in err
    model = rankcore.load_model(model_path)
    # the CLI passed the NaN cells through: the same model as the Python API on the same array
    reference = rankcore.push.PushBoost(learner="trees", n_iter=15, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), reference.decision_function(X))
    status, out, err = run_main("score", model_path, d / "nan.csv")
    assert status == 0, err
    scores = np.array(out.split()[1:], dtype=float)
    np.testing.assert_array_equal(scores, reference.decision_function(X))
    assert np.isfinite(scores).all()
    status, out, err = run_main("evaluate", model_path, d / "nan.npz", "--metrics", "auc", "--table-format", "json")
    assert status == 0, err
    assert json.loads(out)[0]["value"] == pytest.approx(rankcore.evaluate(y, scores, ["auc"])["auc"])


@pytest.mark.parametrize("kind", sorted(KIND_OPTIONS))
def test_fit_refuses_missing_values_for_models_without_nan_support(kind, nan_data, tmp_path, capsys):
    d, X, _ = nan_data
    status, _, err = run_main("fit", d / "nan.csv", "--model", kind, *KIND_OPTIONS[kind], "--out",
                              tmp_path / "m.json", "--progress", "lines")
    assert status == 2
    line = err.strip()
    assert "\n" not in line and line.startswith("rankcore: error: ")
    n_missing, n_rows = int(np.isnan(X).sum()), int(np.isnan(X).any(axis=1).sum())
    assert f"nan.csv has {n_missing} missing values in {n_rows} of {X.shape[0]} rows and 8 of 8 columns" in line
    first_row = int(np.flatnonzero(np.isnan(X).any(axis=1))[0])
    first_column = int(np.flatnonzero(np.isnan(X[first_row]))[0])
    assert f"the first at {d / 'nan.csv'}, line {first_row + 2}, column 'x{first_column}'" in line
    assert f"{kind}" in line and "cannot use missing values" in line
    assert "--learner trees, with --model push or rankboost" in line and "impute" in line
    assert f"[{kind}]" not in err  # refused before any training
    assert not (tmp_path / "m.json").exists()


def test_fit_names_the_default_learner_and_the_validation_file(nan_data, tmp_path):
    d, _, _ = nan_data
    status, _, err = run_main("fit", d / "clean.csv", "--validation", d / "nan.npz", "--n-iter", "5",
                              "--out", tmp_path / "m.json")
    assert status == 2
    assert "nan.npz has " in err and "push (learner stumps) cannot use missing values" in err
    assert "clean.csv has" not in err
    status, _, err = run_main("fit", d / "clean.csv", "--validation", d / "nan.npz", "--n-iter", "5",
                              "--learner", "trees", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err


def test_compare_with_missing_values(nan_data, tmp_path):
    d, X, y = nan_data
    status, out, err = run_main("compare", d / "nan.csv", "--model", "push,rankboost", "--learner", "trees",
                                "--n-iter", "8", "--no-plots", "--table-format", "csv", "--metrics", "auc",
                                "--report", tmp_path / "r.html")
    assert status == 0, err
    rows = out.splitlines()
    assert rows[0] == "model,split,auc" and len(rows) == 5
    assert all(np.isfinite(float(r.split(",")[2])) for r in rows[1:])
    assert "missing values" in (tmp_path / "r.html").read_text()


def test_compare_refuses_up_front_the_models_that_cannot_use_missing_values(nan_data, tmp_path):
    d, _, _ = nan_data
    status, out, err = run_main("compare", d / "nan.csv", "--model", "push,exactboost", "--learner", "stumps,trees",
                                "--n-iter", "5", "--n-runs", "2", "--out-dir", tmp_path / "figs",
                                "--progress", "lines")
    assert status == 2 and out == ""
    line = err.strip()
    assert "\n" not in line
    assert "2 of the 3 models cannot use missing values: push learner=stumps, exactboost" in line
    assert "leave them out of the comparison" in line and "--learner trees" in line and "impute" in line
    assert "[push" not in err and not (tmp_path / "figs").exists()  # nothing was trained or drawn
    # a separate test file with missing values counts too, even when the training file is complete
    status, _, err = run_main("compare", d / "clean.csv", "--test", d / "nan.csv", "--n-iter", "5", "--no-plots")
    assert status == 2
    assert "nan.csv has " in err and "push (learner stumps) cannot use missing values" in err


def test_score_and_evaluate_refuse_missing_values_for_a_model_without_nan_support(nan_data, tmp_path):
    d, _, _ = nan_data
    model_path = tmp_path / "stumps.json"
    assert run_main("fit", d / "clean.csv", "--n-iter", "5", "--out", model_path, "-q")[0] == 0
    for command in ("score", "evaluate"):
        status, out, err = run_main(command, model_path, d / "nan.csv")
        assert status == 2 and out == ""
        assert f"the model {model_path}, PushBoost (learner stumps), cannot score missing values" in err
        assert "--learner trees" in err and "impute" in err
    status, out, err = run_main("score", model_path, d / "clean.csv")
    assert status == 0, err


@pytest.mark.parametrize(
    "text, message",
    [
        ("x0,label\n1,0\n2,NA\n", "line 3: missing label in column 'label'"),
        ("x0,label\n1,0\n2,\n", "line 3: missing label in column 'label'"),
        ("x0,label\n1,0\n2,inf\n", "line 3: non-finite label in column 'label', got 'inf'"),
        ("x0,label\n1,0\ninf,1\n", "line 3, column 'x0': expected a finite number, got 'inf'"),
        ("x0,label\n1,0\n-1e999,1\n", "line 3, column 'x0': expected a finite number, got '-1e999'"),
    ],
    ids=["NA-label", "empty-label", "inf-label", "inf-feature", "overflow-feature"],
)
def test_missing_labels_and_infinite_values_stay_refused_with_trees(text, message, tmp_path):
    (tmp_path / "d.csv").write_text(text)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--learner", "trees", "--out", tmp_path / "m.json")
    assert status == 2
    assert f"d.csv, {message}" in err and "\n" not in err.strip()


REFUSED = ("missing values are refused by the learners features, stumps, thresholds "
           "and by --model exactboost, perceptron@k, sgd@k, kernel")


def test_missing_value_errors_say_which_learners_and_models_refuse_them(nan_data, tmp_path):
    """fit, compare, score and evaluate: the one-line error lists every refuser, read from the declarations."""
    d, _, _ = nan_data
    status, _, err = run_main("fit", d / "nan.csv", "--n-iter", "5", "--out", tmp_path / "m.json")
    assert status == 2 and REFUSED in err and "(--learner trees, with --model push or rankboost)" in err
    status, _, err = run_main("compare", d / "nan.csv", "--model", "push,kernel", "--no-plots")
    assert status == 2 and REFUSED in err and "2 of the 2 models cannot use missing values" in err
    model_path = tmp_path / "stumps.json"
    assert run_main("fit", d / "clean.csv", "--n-iter", "5", "--out", model_path, "-q")[0] == 0
    for command in ("score", "evaluate"):
        status, _, err = run_main(command, model_path, d / "nan.csv")
        assert status == 2 and REFUSED in err and err.count("\n") == 1


def test_missing_values_follow_a_plugin_learners_allow_nan(nan_data, tmp_path):
    """A plugin learner declaring allow_nan is offered and fits the missing values; one without it is listed."""
    from rankcore.learners import Stumps
    from rankcore.learners.trees._learner import Trees
    from rankcore.registry import register_plugin, unregister_plugin

    class NanTrees(Trees):
        name = "nan-trees"
        aliases = ()

    class PlainStumps(Stumps):
        name = "plain-stumps"
        aliases = ()

    plugin = type("NanLearners", (), {"rankcore_register_learners": rankcore.hookimpl(lambda self: [NanTrees,
                                                                                                   PlainStumps])})
    d, _, _ = nan_data
    register_plugin(plugin(), name="nan-learners")
    try:
        status, _, err = run_main("fit", d / "nan.csv", "--n-iter", "5", "--out", tmp_path / "m.json")
        assert status == 2
        assert "--learner nan-trees or --learner trees" in err
        assert "the learners features, plain-stumps, stumps, thresholds and by --model" in err
        status, _, err = run_main("fit", d / "nan.csv", "--learner", "nan-trees", "--n-iter", "5",
                                  "--out", tmp_path / "m.json", "-q")
        assert status == 0, err
    finally:
        unregister_plugin("nan-learners")


def test_a_wrong_count_of_monotone_signs_lists_the_feature_columns(small_data, tmp_path):
    d = small_data[0]
    status, _, err = run_main("fit", d / "data.csv", "--learner", "trees:monotone=1/0/-1", "--drop", "x7",
                              "--out", tmp_path / "m.json", "-q")
    assert status == 2
    assert "monotone: expected 7 signs" in err and "the signs follow the feature columns in order: x0, x1, x2, x3, " \
        "x4, x5, x6" in err
    status, _, err = run_main("fit", d / "data.csv", "--learner", "trees:monotone=1/0/0/0/0/0/0/-1",
                              "--n-iter", "5", "--out", tmp_path / "m.json", "-q")
    assert status == 0, err


def test_an_interaction_group_beyond_the_features_lists_the_feature_columns(small_data, tmp_path):
    d = small_data[0]
    status, _, err = run_main("fit", d / "data.csv", "--learner", "trees:interactions=0+1/7", "--drop", "x7",
                              "--out", tmp_path / "m.json", "-q")
    assert status == 2
    assert "interactions: column 7 is out of range" in err and "the indices count the feature columns in order " \
        "from 0: x0, x1, x2, x3, x4, x5, x6" in err
    status, _, err = run_main("compare", d / "data.csv", "--learner", "trees:interactions=0+9", "--no-plots", "-q")
    assert status == 2 and "interactions: column 9 is out of range" in err and "x7" in err
    status, _, err = run_main("fit", d / "data.csv", "--learner", "trees:interactions=0+1/2+7", "--n-iter", "5",
                              "--out", tmp_path / "m.json", "-q")
    assert status == 0, err


def test_compare_lists_the_feature_columns_on_a_wrong_count_of_monotone_signs(small_data):
    d = small_data[0]
    status, _, err = run_main("compare", d / "data.csv", "--learner", "trees:monotone=1/0", "--no-plots", "-q")
    assert status == 2 and "monotone: expected 8 signs" in err
    assert "the signs follow the feature columns in order: x0, x1, x2, x3, x4, x5, x6, x7" in err
