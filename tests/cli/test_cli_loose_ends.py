"""The command line's loose ends: other libraries' option names, ``--format`` aliases, refused grades located by the
refusal's ``row``, the early-stopping rule asked of the library, ``auto``'s stop lines, ``1_000`` in a CSV file,
comma numbers beside a stray word, one rule for comparing labels, and ``evaluate``'s note on one list."""

import itertools
import types
import warnings

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main, usage_error, write_binary_csv
from rankcore.cli.datasets import DataError, TextColumnsError, load_data


@pytest.fixture(scope="module")
def binary_csv(tmp_path_factory):
    return write_binary_csv(tmp_path_factory.mktemp("loose") / "d.csv")


def _usage_error(capsys, *argv) -> str:
    """The stderr of a command argparse refuses (exit status 2)."""
    return usage_error(capsys, *argv)


# 1. other libraries' option names --------------------------------------------------------------------------------

@pytest.mark.parametrize("words, hint", [
    (["--n-estimators", "100"], "other libraries' --n-estimators is here --n-iter N"),
    (["--num_leaves=7"], "other libraries' --num_leaves is here --learner trees:max_leaves=L"),
    (["--seed", "3"], "other libraries' --seed is here --random-state S"),
    (["--group-id", "q"], "other libraries' --group-id is here --qid COLUMN"),
    (["--base-margin", "s"], "other libraries' --base-margin is here --init-score COLUMN"),
    (["--early-stopping-rounds", "5"], "other libraries' --early-stopping-rounds is here --param n_iter_no_change=N"),
])
def test_another_librarys_option_name_is_answered_with_rankcores(binary_csv, tmp_path, capsys, words, hint):
    err = _usage_error(capsys, "fit", binary_csv, *words, "-o", tmp_path / "m.json")
    line = err.strip().splitlines()[-1]
    assert line.startswith(f"rankcore: error: unrecognized arguments: {' '.join(words)}") and hint in line, line


def test_a_command_without_the_option_names_the_python_parameter(binary_csv, capsys):
    err = _usage_error(capsys, "auto", binary_csv, "--n-estimators", "3")
    assert "other libraries' --n-estimators is rankcore's n_iter=N in Python, which this command takes no option " \
           "for" in err


def test_an_unknown_option_of_no_library_gets_argparses_words_alone(binary_csv, tmp_path, capsys):
    err = _usage_error(capsys, "fit", binary_csv, "--no-such-option", "-o", tmp_path / "m.json")
    assert err.strip().splitlines()[-1] == "rankcore: error: unrecognized arguments: --no-such-option"


# 2. --format's other names of LIBSVM ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["svm", "svmlight", "SVMLight", "liblinear", "libsvm"])
def test_format_takes_the_other_names_of_libsvm(tmp_path, name):
    data = tmp_path / "d.txt"        # an extension that says nothing: the format is --format's
    data.write_text("".join(f"{i % 2} 1:{i * 0.1:.1f} 2:{(i * 7) % 5}\n" for i in range(30)))
    status, _, err = run_main("fit", data, "--format", name, "--n-iter", "2", "--quiet", "-o", tmp_path / "m.json")
    assert status == 0, err


def test_an_unknown_format_names_libsvm(binary_csv, capsys):
    err = _usage_error(capsys, "fit", binary_csv, "--format", "tsv")
    assert "invalid choice: 'tsv'" in err and "'libsvm'" in err


# 3. a refused grade's row, a field of the refusal ---------------------------------------------------------------

def test_a_refused_grade_carries_its_row():
    X = np.random.default_rng(0).normal(size=(6, 2))
    y, qid = np.array([0, 1, 2, 1100.0, 1, 0]), np.repeat([0, 1], 3)
    with pytest.raises(rankcore.ArgumentRefusal) as caught:
        rankcore.PushBoost(n_iter=2).fit(X, y, qid=qid)
    assert caught.value.row == 3 and caught.value.parameter == "y" and str(caught.value).endswith("at row 3")
    with pytest.raises(rankcore.MetricRefusal) as caught:
        rankcore.evaluate(y, np.arange(6.0), ["ndcg@k:2"], qid=qid)
    assert caught.value.row == 3 and caught.value.labels == "y"
    assert rankcore.ArgumentRefusal.said("y", "oops").row is None
    with pytest.raises(TypeError, match="row must be an int >= 0"):
        rankcore.ArgumentRefusal("y: x", parameter="y", row=-1)


def test_a_grade_without_a_gain_is_named_by_its_line(tmp_path):
    """lambdarank's "the grade 5.0 at row 3 has no gain" did not fit the pattern the row was read with: the message
    kept the library's row; the field gives the line whatever the wording."""
    from rankcore.cli._queries import grade_row_error
    from rankcore.objectives._lambdarank import LambdaRank

    data = tmp_path / "g.csv"
    data.write_text("a,grade,query\n" + "".join(f"{i},{[0, 1, 2, 5][i % 4]},{i // 4}\n" for i in range(8)))
    read = load_data(data, label="grade", qid="query")
    with pytest.raises(ValueError) as caught:
        LambdaRank(gain="0/1/3").gains(read.y)
    error = grade_row_error(caught.value, read)
    assert error is not None, caught.value
    assert str(error).startswith("g.csv, line 5: the grade 5.0 has no gain in the table") or \
        str(error).startswith(f"{data}, line 5: the grade 5.0 has no gain in the table"), str(error)


# 4. early stopping: the CLI asks the library's rule -------------------------------------------------------------

def test_the_cli_and_the_fit_agree_on_stopping_on_an_eval_set(monkeypatch):
    """Every setting of early_stopping x patience, data either side of the large-data size, with and without
    queries: the CLI's answer is what the fit did.  The size is lowered (the fit's module constant) so that the
    large side stays small; a CLI with a rule of its own does not follow it."""
    import rankcore.push._validation as rule
    from rankcore.cli._models import _early_stopping_on, _stops_on_eval_set_by_patience

    monkeypatch.setattr(rule, "AUTO_MIN_ROWS", 50)
    rng = np.random.default_rng(0)
    Xv = rng.normal(size=(40, 3))
    yv, qv = (Xv[:, 0] < 0).astype(float), np.repeat(np.arange(4), 10)    # inverted: each iteration scores worse
    for setting, patience, n, queries in itertools.product([True, False, "auto"], [None, 2], [40, 80], [False, True]):
        X = rng.normal(size=(n, 3))
        y = (X[:, 0] + rng.normal(size=n) > 0).astype(float)
        qid = np.repeat(np.arange(n // 10), 10) if queries else None
        model = rankcore.PushBoost(n_iter=30, early_stopping=setting, n_iter_no_change=patience)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y, qid=qid, eval_set=(Xv, yv, qv) if queries else (Xv, yv))
        stopped = model.stop_reason_ == "early_stopping"
        said = _early_stopping_on(model, y, qid) or _stops_on_eval_set_by_patience(model, y, qid)
        assert said == stopped, (setting, patience, n, queries, model.stop_reason_)


# 5. auto's stop lines -------------------------------------------------------------------------------------------

def test_auto_says_what_stopped_the_search_and_a_refit():
    from rankcore.auto import FoldBag, RankAverage
    from rankcore.cli.auto import stop_lines

    stopped = rankcore.PushBoost()
    stopped.stop_reason_, stopped.n_iter_ = "early_stopping", 31
    ran = rankcore.PushBoost()
    ran.stop_reason_, ran.n_iter_ = "n_iter", 100
    bag = FoldBag("trees", [stopped, ran], [0.0, 0.0], [1.0, 1.0])
    blend = RankAverage(["trees", "linear"], [bag, ran], [np.zeros(2), np.zeros(2)])
    auto = types.SimpleNamespace(search_stop_reason_="time_budget", best_estimator_=blend,
                                 best_candidate_="blend(trees+linear)", get_params=lambda deep: {"time_budget": 60.0})
    last = types.SimpleNamespace(done=40, planned=69)
    assert stop_lines(auto, last) == [
        "search stopped: time_budget (--time 60 s ran out after 40 of at most 69 tasks; the leaderboard says which "
        "candidates got fewer folds or none)",
        "refit of trees: stopped: early_stopping, kept the best 31 iterations"]
    auto.search_stop_reason_ = "completed"
    auto.best_estimator_, auto.best_candidate_ = ran, "linear"
    assert stop_lines(auto) == []


def test_auto_records_a_search_that_ran_its_plan(binary_csv):
    read = load_data(binary_csv)
    auto = rankcore.AutoRanker(candidates=["linear"], cv=2, random_state=0).fit(read.X, read.y)
    assert auto.search_stop_reason_ == "completed"


# 6. 1_000 is text -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows", [4, 3000])          # the checking parser, and pandas' route
def test_a_number_with_an_underscore_is_text(tmp_path, rows):
    path = tmp_path / "u.csv"
    path.write_text("a,b,label\n1_000,0.5,1\n" + "".join(f"{i},0.{i % 10},{i % 2}\n" for i in range(2, rows + 1)))
    with pytest.raises(TextColumnsError, match=r"line 2, column 'a': expected a number, got '1_000'"):
        load_data(path)
    read = load_data(path, categorical="auto")
    assert read.categories["a"][int(read.X[0, 0])] == "1_000"       # a category of its own, not the number 1000


def test_other_scripts_digits_are_text_too(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,label\n\u0663,1\n2,0\n", encoding="utf-8")
    with pytest.raises(TextColumnsError, match="column 'a'"):
        load_data(path)


# 7. comma numbers beside a stray word ---------------------------------------------------------------------------

def test_comma_numbers_with_a_stray_word_are_refused_under_auto(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text('x,v,label\n1,"0,5",1\n2,"1,5",0\n3,oops,1\n4,"2,5",0\n5,"3,5",1\n')
    with pytest.raises(DataError, match=r"line 2, column 'v': '0,5' is a number written with a comma.*"
                                        r"its other values are numbers but 'oops' at line 4 "
                                        r"\(a missing value or a typo\?\)"):
        load_data(path, categorical="auto")
    assert sorted(load_data(path, categorical=["v"]).categories) == ["v"]     # named: split as asked


def test_a_column_of_words_with_a_comma_number_stays_text(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text('x,v,label\n1,red,1\n2,"1,5",0\n3,blue,1\n4,green,0\n')
    assert list(load_data(path, categorical="auto").categories) == ["v"]


# 8. one rule for labels -----------------------------------------------------------------------------------------

def test_validation_labels_read_as_text_are_the_training_numbers(binary_csv, tmp_path):
    """A .npz of labels '0'/'1' (text) beside a CSV of 0/1: evaluate's rule took them as the same labels,
    check_label_coding's refused '0' as a label the training data never has."""
    from rankcore.cli._validation_checks import check_label_coding

    read = load_data(binary_csv)
    other = tmp_path / "v.npz"
    np.savez(other, X=read.X, y=np.where(read.y > 0, "1", "0"), feature_names=np.array(read.feature_names))
    check_label_coding(read, load_data(other))
    status, _, err = run_main("fit", binary_csv, "--validation", other, "--n-iter", "2", "--quiet",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    odd = tmp_path / "odd.npz"
    np.savez(odd, X=read.X, y=np.where(read.y > 0, "1", "x"), feature_names=np.array(read.feature_names))
    status, _, err = run_main("fit", binary_csv, "--validation", odd, "--quiet", "-o", tmp_path / "m2.json")
    one_line_error(status, err, "the label 'x' never occurs in the training data")


# 9. evaluate without query ids ----------------------------------------------------------------------------------

def test_evaluate_says_a_query_metric_judged_one_list(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("a,grade\n" + "".join(f"{i % 7},{i % 4}\n" for i in range(40)))
    status, _, err = run_main("fit", path, "--label", "grade", "--positive", "3", "--n-iter", "2", "--quiet",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    status, out, err = run_main("evaluate", tmp_path / "m.json", path, "--label", "grade", "--positive", "3",
                                "--metrics", "ndcg@k:10,auc,map")
    assert status == 0 and "ndcg@k:10" in out, err
    assert ("ndcg@k:10, map judged all 40 rows as one list (no query ids: --qid COLUMN judges each query's rows); "
            "its 4 labels read as relevant (1: 3) or not (0), not as grades") in err
    status, _, err = run_main("evaluate", tmp_path / "m.json", path, "--label", "grade", "--positive", "3",
                              "--metrics", "auc")
    assert status == 0 and "one list" not in err
