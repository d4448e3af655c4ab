"""``rankcore explain MODEL DATA --permutation``: the library's permutation importances of the file's rows."""

import csv
import io

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore.base import Ranker
from _cli_run import one_line_error, run_main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A CSV file of queries (grades driven by ``a``, ``level`` constant within each query), a model of trees
    fitted within them by the command line, and a model of stumps on one list."""
    d = tmp_path_factory.mktemp("permutation")
    rng = np.random.default_rng(0)
    sizes = rng.integers(8, 16, 30)
    qid = np.repeat(np.arange(30), sizes)
    n = qid.size
    X = np.round(rng.normal(size=(n, 3)), 3)
    level = np.round(rng.normal(size=30), 3)[qid]
    grade = np.clip(np.round(X[:, 0] + 0.3 * level + rng.normal(scale=0.5, size=n) + 1), 0, 4).astype(int)
    pd.DataFrame({"query": qid, "a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "level": level, "grade": grade}) \
        .to_csv(d / "q.csv", index=False)
    status, _, err = run_main("fit", d / "q.csv", "--qid", "query", "--label", "grade", "--learner", "trees",
                              "--n-iter", "15", "--quiet", "--out", d / "trees.json")
    assert status == 0, err
    status, _, err = run_main("fit", d / "q.csv", "--drop", "query", "--positive", "2", "--label", "grade",
                              "--n-iter", "10", "--quiet", "--out", d / "stumps.json")
    assert status == 0, err
    return d


def _table(text):
    return {row["feature"]: row for row in csv.DictReader(io.StringIO(text))}


def _library(files, model_file, **kwargs):
    frame = pd.read_csv(files / "q.csv")
    model = rankcore.load_model(files / model_file)
    return model, frame, rankcore.permutation_importance(model, frame[["a", "b", "c", "level"]], **kwargs)


@pytest.mark.parametrize("extra,within", [((), "rows"), (("--within-queries",), "queries")])
def test_the_csv_holds_the_library_importances(files, extra, within):
    status, out, err = run_main("explain", files / "trees.json", files / "q.csv", "--qid", "query", "--label",
                                "grade", "--permutation", "--scoring", "ndcg@k:5", "--repeats", "3",
                                "--random-state", "2", "--table-format", "csv", *extra)
    assert status == 0, err
    frame = pd.read_csv(files / "q.csv")
    _, _, result = _library(files, "trees.json", y=frame["grade"].to_numpy(), qid=frame["query"].to_numpy(),
                            scoring="ndcg@k:5", n_repeats=3, random_state=2, within=within)
    table = _table(out)
    assert list(table) == [result.feature_names[j] for j in np.argsort(-result.importances_mean, kind="stable")]
    for j, name in enumerate(result.feature_names):
        assert float(table[name]["importance"]) == result.importances_mean[j]
        assert float(table[name]["std"]) == result.importances_std[j]
        assert float(table[name]["baseline"]) == result.baseline
    assert list(table)[0] == "a"
    if within == "queries":
        assert float(table["level"]["importance"]) == 0.0


def test_the_text_output_and_the_default_scoring_are_the_model_score(files):
    status, out, err = run_main("explain", files / "trees.json", files / "q.csv", "--qid", "query", "--label",
                                "grade", "--permutation")
    assert status == 0, err
    model, frame, _ = _library(files, "trees.json", y=frame_grades(files), qid=frame_queries(files), n_repeats=1)
    baseline = model.score(frame[["a", "b", "c", "level"]], frame["grade"], qid=frame["query"])
    first, header = out.splitlines()[:2]
    assert first.startswith(f"ndcg@k:10 (the model's score) {baseline:.4f}; importance = its drop")
    assert "5 shuffles" in first and header.split() == ["feature", "importance", "std"]


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_the_csv_and_json_output_name_the_metric_default_or_given(files, fmt):
    import json

    argv = ("explain", files / "trees.json", files / "q.csv", "--qid", "query", "--label", "grade", "--permutation",
            "--repeats", "1", "--table-format", fmt)
    for extra, metric in (((), "ndcg@k:10"), (("--scoring", "map"), "map")):
        status, out, err = run_main(*argv, *extra)
        assert status == 0, err
        if fmt == "csv":
            lines = out.splitlines()
            assert lines[0] == "feature,importance,std,baseline,metric"
            assert all(line.endswith(f",{metric}") for line in lines[1:])
        else:
            assert {row["metric"] for row in json.loads(out)} == {metric}


def test_the_default_metric_of_every_kind_of_model():
    from rankcore.cli._permutation import own_score_metric

    X = np.random.default_rng(0).normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    assert own_score_metric(rankcore.boost(n_iter=2).fit(X, y)) == "auc"
    assert own_score_metric(rankcore.boost(n_iter=2, scoring="pauc:0.1").fit(X, y)) == "pauc:0.1"
    assert own_score_metric(rankcore.ExactBoost(n_runs=1, n_rounds=2).fit(X, y)) == "auc"
    assert own_score_metric(rankcore.SGDAtK().fit(X, y)).startswith("prec@k:")


def frame_grades(files):
    return pd.read_csv(files / "q.csv")["grade"].to_numpy()


def frame_queries(files):
    return pd.read_csv(files / "q.csv")["query"].to_numpy()


def test_any_model_one_list_and_out_file(files, tmp_path):
    # stumps have no contributions, but their permutation importances are there
    status, _, err = run_main("explain", files / "stumps.json", files / "q.csv", "--drop", "query", "--label",
                              "grade", "--positive", "2", "--permutation", "--scoring", "pauc:0.1",
                              "--out", tmp_path / "imp.csv")
    assert status == 0, err
    frame = pd.read_csv(files / "q.csv")
    _, _, result = _library(files, "stumps.json", y=(frame["grade"] == 2).astype(int).to_numpy(), scoring="pauc:0.1",
                            random_state=0)
    table = _table((tmp_path / "imp.csv").read_text())
    assert {name: float(row["importance"]) for name, row in table.items()} == \
        dict(zip(result.feature_names, result.importances_mean.tolist()))


@pytest.mark.parametrize("argv,fragments", [
    (("--permutation", "--top", "3"), ["--top: not with --permutation"]),
    (("--permutation", "--summary"), ["--summary: not with --permutation"]),
    (("--repeats", "3"), ["--repeats: only with --permutation"]),
    (("--scoring", "auc"), ["--scoring: only with --permutation"]),
    (("--permutation", "--scoring", "roc"), ["--scoring: 'roc' is not a scalar metric"]),
    (("--permutation", "--scoring", "auc"), ["--scoring: auc judges 0/1 labels"]),
])
def test_options_of_the_other_mode_and_bad_specs_are_refused(files, argv, fragments):
    status, _, err = run_main("explain", files / "trees.json", files / "q.csv", "--qid", "query", "--label",
                              "grade", *argv)
    one_line_error(status, err, *fragments)


def test_within_queries_needs_queries(files):
    status, _, err = run_main("explain", files / "stumps.json", files / "q.csv", "--drop", "query", "--label",
                              "grade", "--positive", "2", "--permutation", "--within-queries")
    one_line_error(status, err, "--within-queries: needs the rows' queries")
    with pytest.raises(SystemExit) as stop:          # argparse's own check of the type
        run_main("explain", files / "stumps.json", files / "q.csv", "--repeats", "0", "--permutation")
    assert stop.value.code == 2


def test_a_one_list_model_on_grades_in_queries_asks_for_scoring_or_positive(files):
    status, _, err = run_main("explain", files / "stumps.json", files / "q.csv", "--qid", "query", "--label",
                              "grade", "--permutation")
    one_line_error(status, err, "--scoring: the model ranks one list", "--scoring ndcg@k:10", "--positive GRADE")
    status, _, err = run_main("explain", files / "stumps.json", files / "q.csv", "--qid", "query", "--label",
                              "grade", "--permutation", "--scoring", "ndcg@k:5")
    assert status == 0, err


def test_the_label_ranked_first_is_announced_and_one_shuffle_is_singular(files, tmp_path):
    frame = pd.read_csv(files / "q.csv").drop(columns="query")
    frame["grade"] = np.where(frame["grade"] >= 2, "yes", "no")
    frame.to_csv(tmp_path / "yes.csv", index=False)
    status, out, err = run_main("explain", files / "stumps.json", tmp_path / "yes.csv", "--label", "grade",
                                "--permutation", "--scoring", "auc", "--repeats", "1")
    assert status == 0, err
    assert "ranking 'yes' first (the greater of the labels 'no' and 'yes')" in err
    assert "(mean and std of 1 shuffle)" in out.splitlines()[0]


@pytest.mark.parametrize("spec,fragment", [("nope", "--scoring 'nope': unknown metric 'nope'"),
                                           ("pnorm", "--scoring 'pnorm': ")])
def test_every_scoring_error_names_the_option(files, spec, fragment):
    status, _, err = run_main("explain", files / "trees.json", files / "q.csv", "--qid", "query", "--label",
                              "grade", "--permutation", "--scoring", spec)
    one_line_error(status, err, fragment)


@pytest.mark.parametrize("kind, explain_argv", [
    ("kernel", ("--drop", "query", "--positive", "2")),
    ("push", ("--drop", "query", "--positive", "2")),
    ("push", ("--qid", "query", "--positive", "2")),           # misrank averaged over the queries
], ids=["kernel", "push-scoring-misrank", "push-in-queries"])
def test_a_lower_is_better_default_metric_is_reported_by_its_own_value(files, tmp_path, kind, explain_argv):
    from rankcore.persistence import save_model

    frame = pd.read_csv(files / "q.csv")
    X, relevant = frame[["a", "b", "c", "level"]], (frame["grade"] == 2).astype(int).to_numpy()
    model_file = tmp_path / "m.json"
    if kind == "kernel":                                     # its own metric: misrank, its score 1 - misrank
        status, _, err = run_main("fit", files / "q.csv", "--label", "grade", "--drop", "query", "--positive", "2",
                                  "--model", "kernel", "--quiet", "--out", model_file)
        assert status == 0, err
    else:                                                    # its score: -misrank
        save_model(rankcore.PushBoost(scoring="misrank", n_iter=5, random_state=0).fit(X, relevant), model_file)
    argv = ("explain", model_file, files / "q.csv", "--label", "grade", *explain_argv, "--permutation",
            "--repeats", "2")
    tables = []
    for extra in ((), ("--scoring", "misrank")):
        status, out, err = run_main(*argv, "--table-format", "csv", *extra)
        assert status == 0, err
        tables.append(_table(out))
    assert tables[0] == tables[1]               # the default is misrank by its own value, as --scoring gives it
    model = rankcore.load_model(model_file)
    qid = frame["query"].to_numpy() if "--qid" in explain_argv else None
    misrank = rankcore.evaluate(relevant, model.decision_function(X), ["misrank"], qid=qid)["misrank"]
    # the importances are those of the model's own score (greater-is-better): the rise of misrank
    labels = model.classes_[relevant] if hasattr(model, "classes_") else relevant
    # the labels given here are the model's codes, which a file's grades 0/1 could be: said as the refusal advises
    vars(model).pop("relevant_label_", None), vars(model).pop("other_label_", None)
    own = rankcore.permutation_importance(model, X, labels, qid=qid, n_repeats=2, random_state=0)
    for j, name in enumerate(own.feature_names):
        assert tables[0][name]["metric"] == "misrank"
        assert float(tables[0][name]["baseline"]) == pytest.approx(misrank, abs=1e-12)
        assert float(tables[0][name]["importance"]) == pytest.approx(own.importances_mean[j], abs=1e-12)
    status, out, err = run_main(*argv)
    assert status == 0, err
    assert out.splitlines()[0].startswith(f"misrank (the model's metric) {misrank:.4f}; importance = its rise when "
                                          "the feature is shuffled")
    status, out, err = run_main(*argv, "--scoring", "misrank")
    assert out.splitlines()[0].startswith(f"misrank {misrank:.4f}; importance = its rise")


class _Scoreless(Ranker):
    """A plugin's kind of estimator: a Ranker with a decision_function and no score."""

    def fit(self, X, y):
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = X.shape[1]
        self.coef_ = np.asarray(X)[np.asarray(y) == 1].mean(axis=0)
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float) @ self.coef_


def test_a_model_without_score_asks_for_scoring(files, monkeypatch):
    frame = pd.read_csv(files / "q.csv")
    X, y = frame[["a", "b", "c", "level"]], (frame["grade"] >= 2).astype(int)
    model = _Scoreless().fit(X, y)
    with pytest.raises(TypeError, match=r"^scoring: _Scoreless has no score method, so no metric of its own; name "
                                        r"one, e\.g\. scoring="):
        rankcore.permutation_importance(model, X, y)
    assert rankcore.permutation_importance(model, X, y, scoring="auc", n_repeats=1).importances.shape == (4, 1)
    monkeypatch.setattr("rankcore.persistence.load_model", lambda path: model)
    argv = ("explain", files / "m.json", files / "q.csv", "--drop", "query", "--label", "grade", "--positive", "2",
            "--permutation", "--repeats", "1")
    one_line_error(*run_main(*argv)[::2], "--scoring: ", "is a _Scoreless, which has no score method",
                   "name one with --scoring")
    status, _, err = run_main(*argv, "--scoring", "auc")
    assert status == 0, err
