"""`rankcore compare` checks what it can before training: test labels, output directories, parameters set twice."""

import contextlib
import io

import numpy as np
import pytest

from rankcore.cli import main


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def _write(path, labels, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(len(labels), 3))
    rows = [",".join(map(repr, row)) + f",{label}" for row, label in zip(X.tolist(), labels)]
    path.write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    y = (np.arange(80) % 3 == 0).astype(int).tolist()
    _write(tmp_path / "train.csv", y)
    _write(tmp_path / "coded.csv", [v + 1 for v in y], seed=1)         # the same classes coded 1, 2
    _write(tmp_path / "third.csv", [v if i % 7 else 5 for i, v in enumerate(y)], seed=2)
    _write(tmp_path / "test.csv", y, seed=3)
    return tmp_path


@pytest.mark.parametrize("test, label", [("coded.csv", "2"), ("third.csv", "5")])
def test_a_test_label_the_training_file_never_has_is_refused(files, test, label):
    # {1, 2} for {0, 1} ranked 1 as relevant: the test AUC came out as 1 - AUC, exit 0
    status, out, err = _cli("compare", "train.csv", "--test", test, "--model", "push", "--n-iter", "3", "--no-plots")
    assert status == 2 and out == ""
    # the option named, as fit's and auto's --validation are (it said the file alone)
    assert f"--test {test}: the label {label} never occurs in the training data train.csv (labels 0, 1)" in err


def test_output_directories_that_cannot_be_made_are_refused_before_training(files):
    for option in ("--out-dir", "--save-models"):
        status, out, err = _cli("compare", "train.csv", "--model", "push", "--n-iter", "3", option, "test.csv/d")
        assert status == 2 and out == ""                       # nothing trained, no table
        assert f"{option}: cannot make 'test.csv/d':" in err and "is not a directory" in err


def test_a_parameter_in_the_spec_and_an_option_is_refused(files):
    # the spec won silently: two identical models under two labels
    status, _, err = _cli("compare", "train.csv", "--model", "exactboost:n_runs=5", "--n-runs", "3,4", "--no-plots")
    assert status == 2 and "--model exactboost: n_runs is set both in the spec and by --n-runs" in err


def test_a_metric_named_twice_is_one_column(files):
    status, out, _ = _cli("compare", "train.csv", "--model", "push", "--n-iter", "3", "--no-plots", "-m",
                          "auc,auc,prec@k:10,prec@k:k=10", "--table-format", "csv")
    assert status == 0
    assert out.splitlines()[0] == "model,split,auc,prec@k:10"


def test_an_existing_file_of_a_figure_not_written_is_no_reason_to_stop(files):
    (files / "plots").mkdir()
    (files / "plots" / "objective.svg").write_text("<svg/>")
    status, _, err = _cli("compare", "train.csv", "--model", "kernel", "--out-dir", "plots")
    assert status == 0, err


def test_the_reports_versions_name_each_plugin_distribution_once_with_its_version():
    # an entry point's provider reads "Name version": looked up whole, every plugin was "not installed"
    import rankcore
    from _plugin_registration import components_registered
    from rankcore.cli._report import environment_versions

    class Cube(rankcore.Price):
        name = "test-versions-cube"

        def value(self, r):
            return np.asarray(r, dtype=np.float64) ** 3

        def derivative(self, r):
            return 3 * np.asarray(r, dtype=np.float64) ** 2

    with components_registered("rankcore_register_prices", [Cube], "versions", "rankcore-versions-demo 2.5"):
        versions = environment_versions()
    assert versions["plugin rankcore-versions-demo"] == "2.5"
    assert not any(key.startswith("plugin ") and value == "not installed" and " " in key[7:]
                   for key, value in versions.items())


def test_a_parameter_by_param_and_by_its_option_is_refused(files):
    # the option won and --param was dropped, silently
    status, _, err = _cli("compare", "train.csv", "--model", "push", "--param", "n_iter=5", "--n-iter", "2",
                          "--no-plots")
    assert status == 2 and "--param n_iter: also set by --n-iter; set it once" in err


def test_a_test_split_of_one_counted_query_keeps_its_table_and_figures(tmp_path, monkeypatch):
    # the intervals over queries need two counted queries: their absence stopped the run after training
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    with open("train.csv", "w") as fh:
        fh.write("qid,label,a,b\n" + "".join(f"{q},{int(rng.integers(0, 3))},{rng.normal()},{rng.normal()}\n"
                                              for q in range(10) for _ in range(6)))
    with open("test.csv", "w") as fh:           # only query 100 has a relevant row
        fh.write("qid,label,a,b\n" + "".join(f"{q},{int(rng.integers(0, 3)) if q == 100 else 0},{rng.normal()},"
                                              f"{rng.normal()}\n" for q in (100, 101, 102) for _ in range(6)))
    argv = ["compare", "train.csv", "--test", "test.csv", "--qid", "qid", "--model", "push", "--model",
            "push:price=pow:4", "--n-iter", "3"]
    status, out, err = _cli(*argv, "--out-dir", "plots")
    assert status == 0, err
    plots = tmp_path / "plots"
    assert (plots / "ndcg_at_k.svg").exists() and not (plots / "query_differences.svg").exists()
    assert "the query_differences figure is left out: " in err          # said, not dropped silently
    status, out, err = _cli(*argv, "--no-plots", "--ci")
    assert status == 0 and "push pow:4" in out
    assert "rankcore: warning: --ci: no intervals: " in err and "needs at least two counted queries" in err


def test_a_test_file_of_one_class_keeps_its_figures_and_report_without_its_roc_row(files):
    # the ROC figure's refusal ("y: this metric needs both classes") ended the run after training: no figure, no
    # report, although precision@k and the table's prec@k are defined on such a file
    _write(files / "negatives.csv", [0] * 30, seed=4)
    status, out, err = _cli("compare", "train.csv", "--test", "negatives.csv", "--model", "push", "--n-iter", "3",
                            "--monitor", "prec@k:5", "--metrics", "prec@k:5", "--out-dir", "figs",
                            "--report", "r.html")
    assert status == 0, err
    assert "the roc figure leaves out the test split: its 30 rows are all negative" in err
    roc = (files / "figs" / "roc.svg").read_text()
    assert "train: ROC curve" in roc and "test:" not in roc
    assert "test: precision@k" in (files / "figs" / "precision_at_k.svg").read_text()
    assert (files / "r.html").stat().st_size > 0


def test_the_roc_caption_says_the_band_is_pointwise(files):
    # the panels read "90% bootstrap band" and nothing said it holds at each count alone, not for the whole curve
    status, _, err = _cli("compare", "train.csv", "--test", "test.csv", "--model", "push", "--n-iter", "3",
                          "--out-dir", "figs", "--ci", "0.9", "--n-boot", "100", "--report", "r.html")
    assert status == 0, err
    sentence = "The shading is each model's pointwise 90% bootstrap band"
    assert sentence in err and sentence.replace("'", "&#x27;") in (files / "r.html").read_text()
    assert "90% bootstrap band" in (files / "figs" / "roc.svg").read_text()


def test_a_test_file_of_one_class_with_ci_keeps_its_table_figures_and_report(files):
    # the bootstrap's refusal ("a confidence interval needs at least two rows of each class") ended the run after
    # training, without the table, figures or report that the same file has without --ci
    _write(files / "negatives.csv", [0] * 30, seed=4)
    status, out, err = _cli("compare", "train.csv", "--test", "negatives.csv", "--model", "push", "--n-iter", "3",
                            "--monitor", "prec@k:5", "--metrics", "prec@k:5", "--out-dir", "figs",
                            "--report", "r.html", "--ci", "0.9", "--n-boot", "100")
    assert status == 0, err
    assert ("--ci: no intervals: the test split has 0 positive and 30 negative rows; an interval needs at least two "
            "rows of each class") in err
    assert "prec@k:5" in out and (files / "r.html").stat().st_size > 0
    assert "train: ROC curve" in (files / "figs" / "roc.svg").read_text()
