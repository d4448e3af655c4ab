"""What a new user meets first: which label is ranked first, where a NaN is, tables that fit the terminal.

Each test pins one finding of a fresh-clone walk-through: the
command line ranked text labels without saying which one is on top, Python
errors named a "flat index", ``rankcore plugins`` printed 298-character lines
with Sphinx markup and the demo's table was 160 wide.
"""

import contextlib
import io
import re

import numpy as np
import pytest

import rankcore
from rankcore.cli import main


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def labelled(tmp_path, monkeypatch):
    """A CSV file whose label is text (good/bad), another with 0/1, in a scratch directory."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + rng.normal(size=80) > 0.5
    for name, labels in (("text.csv", np.where(y, "good", "bad")), ("binary.csv", y.astype(int)),
                         ("signs.csv", np.where(y, 1, -1))):
        rows = [",".join(map(repr, row)) + f",{label}" for row, label in zip(X.tolist(), labels.tolist())]
        (tmp_path / name).write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    return tmp_path


ANNOUNCED = ("text.csv: ranking 'good' first (the greater of the labels 'bad' and 'good'); "
             "use --positive LABEL to choose")


def test_cli_announces_which_text_label_is_ranked_first(labelled):
    status, _, err = _cli("fit", "text.csv", "--n-iter", "5", "--out", "m.json", "--progress", "none")
    assert status == 0 and ANNOUNCED in err.splitlines()
    status, _, err = _cli("evaluate", "m.json", "text.csv", "--metrics", "auc")
    assert status == 0 and ANNOUNCED in err.splitlines()
    status, _, err = _cli("compare", "text.csv", "--n-iter", "5", "--no-plots", "--progress", "none")
    assert status == 0 and ANNOUNCED in err.splitlines()


def test_cli_announces_the_greater_of_two_numbers_too(labelled):
    _, _, err = _cli("fit", "signs.csv", "--n-iter", "5", "--out", "m.json", "--progress", "none")
    assert "signs.csv: ranking 1 first (the greater of the labels -1 and 1); use --positive LABEL to choose" in err


@pytest.mark.parametrize("argv", [("binary.csv",), ("text.csv", "--positive", "bad")], ids=["0/1", "--positive"])
def test_cli_says_nothing_when_the_choice_is_plain(labelled, argv):
    status, _, err = _cli("fit", *argv, "--n-iter", "5", "--out", "m.json", "--progress", "none")
    assert status == 0 and "ranking" not in err and "--positive" not in err


def test_nan_in_X_is_reported_by_row_and_column_with_the_way_out():
    X = np.ones((6, 3))
    X[4, 1] = np.nan
    X[5, 0] = np.nan
    with pytest.raises(ValueError) as info:
        rankcore.boost(n_iter=3).fit(X, [0, 1, 0, 1, 0, 1])
    message = str(info.value)
    assert message.startswith("X: expected finite numbers, got NaN at row 4, column 1 (2 in all)")
    assert 'learner="trees"' in message and "impute" in message and "flat index" not in message
    # trees take the NaN; an infinite value is still refused, by row and column, with no NaN hint
    rankcore.boost(n_iter=3, learner="trees", random_state=0).fit(X, [0, 1, 0, 1, 0, 1])
    X[2, 2] = -np.inf
    with pytest.raises(ValueError, match=r"^X: expected numbers or NaN, got infinite values at row 2, column 2 "
                                         r"\(1 in all\)$"):
        rankcore.boost(n_iter=3, learner="trees").fit(X, [0, 1, 0, 1, 0, 1])


def test_nan_in_scores_is_reported_by_position():
    with pytest.raises(ValueError, match=r"^scores: expected finite numbers, got NaN at position 2 \(1 in all\)$"):
        rankcore.evaluate([0, 1, 1], [0.1, 0.4, np.nan], ["auc"])


_MARKUP = re.compile(r":[a-z]+:`|``")


@pytest.mark.parametrize("columns", [60, 80, 100, 140])
def test_plugins_table_fits_the_terminal_and_has_no_markup(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    status, out, _ = _cli("plugins")
    assert status == 0
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= columns
    assert not _MARKUP.search(out), _MARKUP.search(out)
    assert any(line.startswith("price") and "pow:p" in line for line in lines)
    assert "MAX_POWER" in out          # the markup's text stays, its syntax goes


def test_plugins_json_summaries_are_plain_text():
    import json

    _, out, _ = _cli("plugins", "--json")
    summaries = [r["summary"] for r in json.loads(out)["components"]]
    assert not [s for s in summaries if _MARKUP.search(s)]


@pytest.mark.parametrize("columns", [60, 100])
def test_demo_table_fits_the_terminal_and_says_what_its_columns_mean(monkeypatch, columns):
    from rankcore.cli.demo import run_demo

    monkeypatch.setenv("COLUMNS", str(columns))
    out = io.StringIO()
    records = run_demo(out, prices=("identity", "pow:16"), n_iter=10, n_jobs=1)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= columns
    text = " ".join(line.strip() for line in lines)
    for meaning in ("rmax: malignant cases ranked above every benign one",
                    "prec@k:10: share of malignant cases among the 10 top-ranked cases",
                    "McClish-scaled: 1 is perfect, 0.5 random", "fit s: seconds to fit the model"):
        assert meaning in text
    # pAUC is reported so that 1 is a perfect ranking (the raw area would top out at 0.1)
    assert all(0.5 < r[split]["pauc:0.1,mcclish"] <= 1.0 for r in records for split in ("train", "test"))


def test_builtin_summaries_are_plain_text():
    """The first docstring line is what `rankcore plugins` and `format_table()` show: no Sphinx markup there."""
    marked = [(e.family, e.name) for e in rankcore.get_registry().all_entries()
              if e.distribution == "rankcore" and _MARKUP.search(e.summary)]
    assert not marked


def test_result_tables_fit_the_terminal(monkeypatch):
    """`compare` and `evaluate` tables: too many metrics for the width go to further blocks, nothing is lost."""
    from rankcore.cli._common import Table

    metrics = [f"pauc:0.{i},mcclish" for i in range(1, 7)]
    table = Table(["model", "split", *metrics], [["push pow:16", "train", *[0.5] * 6],
                                                 ["push pow:16", "test", *[0.25] * 6]])
    monkeypatch.setenv("COLUMNS", "80")
    text = table.render()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert all(m in text for m in metrics) and text.count("push pow:16  train") == text.count("\n\n") + 1
    monkeypatch.setenv("COLUMNS", "400")
    assert "\n\n" not in table.render()                   # one block when it fits


def test_options_are_named_in_their_own_words(labelled, capsys):
    # a negative seed was blamed on --test-size (or surfaced as scikit-learn's parameter text), an impossible
    # demo split as scikit-learn's text, --out under a file as a missing directory, and auto's --metric as --metrics
    for argv in (["compare", "binary.csv", "--model", "push", "--n-iter", "3", "--no-plots", "--random-state", "-5"],
                 ["demo", "--n-iter", "3", "--no-plots", "--random-state", "-5"]):
        with pytest.raises(SystemExit):
            main(argv)
        assert "argument --random-state: expected an integer in [0, 4294967295], got '-5'" in capsys.readouterr().err
    for size in ("0.999", "0.001"):
        status, _, err = _cli("demo", "--n-iter", "3", "--no-plots", "--test-size", size)
        assert status == 2 and f"--test-size {size}:" in err and "each part needs a row of each class" in err
    status, _, err = _cli("fit", "binary.csv", "--n-iter", "3", "--out", "binary.csv/m.json")
    assert status == 2 and "--out: 'binary.csv' is a file, not a directory" in err
    (labelled / "graded.csv").write_text("a,qid,label\n" + "".join(f"{i % 5},{i // 10},{i % 3}\n" for i in range(60)))
    status, _, err = _cli("auto", "graded.csv", "--qid", "qid", "--metric", "auc", "--out", "m.json")
    assert status == 2 and err.startswith("rankcore: error: --metric: auc judges 0/1 labels")


def test_the_demos_row_count_is_the_datas():
    from sklearn.datasets import load_breast_cancer

    from rankcore.cli.demo import _WDBC_ROWS

    assert load_breast_cancer().data.shape[0] == _WDBC_ROWS


class _DividingMetric(rankcore.Metric):
    """A plugin metric with a bug (1/0), or that refuses its input as plugins are told to (ValueError)."""

    name = "test-dividing"
    refuse = False
    index = False
    memory = False

    def compute(self, y, scores):
        if self.memory:
            raise MemoryError("Unable to allocate 8.00 EiB for an array with shape (1152921504606846976,)")
        if self.refuse:
            raise ValueError("needs at least 3 positives")
        if self.index:
            return float(scores[10**9])
        return 1 / 0


@pytest.mark.parametrize("refuse", [False, True], ids=["bug", "refusal"])
def test_a_plugins_failure_is_said_to_be_the_plugins(labelled, monkeypatch, refuse):
    # both came out as "rankcore: error: division by zero", exit 2: the user's input blamed, the plugin unnamed
    from _plugin_registration import components_registered

    monkeypatch.setattr(_DividingMetric, "refuse", refuse)
    assert _cli("fit", "binary.csv", "--n-iter", "3", "--out", "m.json", "--quiet")[0] == 0
    with components_registered("rankcore_register_metrics", [_DividingMetric], "dividing", "dividing-dist 1.0"):
        status, _, err = _cli("evaluate", "m.json", "binary.csv", "--metrics", "test-dividing")
    if refuse:
        assert status == 2
        assert err.startswith("rankcore: error: metric 'test-dividing' (dividing-dist 1.0): needs at least 3")
    else:
        assert status == 1
        assert err.startswith("rankcore: error in a plugin: metric 'test-dividing' (dividing-dist 1.0) raised "
                              "ZeroDivisionError: division by zero")


@pytest.mark.parametrize("flag, status, start", [
    # an IndexError in a plugin's code was "rankcore: internal error ... please report it"
    ("index", 1, "rankcore: error in a plugin: metric 'test-dividing' (dividing-dist 1.0) raised IndexError"),
    # "rankcore: error: out of memory" alone sent the user to shrink the data when a plugin asked for 8 EiB
    ("memory", 2, "rankcore: error: metric 'test-dividing' (dividing-dist 1.0): out of memory: Unable to allocate "
                  "8.00 EiB"),
])
def test_a_plugins_other_failure_is_named_as_the_plugins(labelled, monkeypatch, flag, status, start):
    from _plugin_registration import components_registered

    monkeypatch.setattr(_DividingMetric, flag, True)
    assert _cli("fit", "binary.csv", "--n-iter", "3", "--out", "m.json", "--quiet")[0] == 0
    with components_registered("rankcore_register_metrics", [_DividingMetric], "dividing", "dividing-dist 1.0"):
        got, _, err = _cli("evaluate", "m.json", "binary.csv", "--metrics", "test-dividing")
    assert got == status
    assert err.startswith(start), err
