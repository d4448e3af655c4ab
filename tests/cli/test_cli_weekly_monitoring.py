"""A deployed one-list model scored week by week: the weeks production data really gives -- no relevant row at all, a
feature column lost by the feed, a category the fit never saw -- are evaluated, or said, never silently misread."""

import json

import numpy as np
import pytest

from _cli_run import run_main

HEADER = "amount,shop,label\n"


def _week(rng, n, *, labels=("ok", "fraud"), shops=("food", "games", "travel"), empty_amount=False):
    rows = []
    for _ in range(n):
        shop = str(rng.choice(shops))
        amount = rng.normal(2.0 if shop == "games" else 0.0)
        fraud = rng.random() < (0.5 if shop == "games" else 0.1)
        rows.append(f"{'' if empty_amount else f'{amount:.3f}'},{shop},{labels[int(fraud)]}\n")
    return HEADER + "".join(rows)


@pytest.fixture
def model(tmp_path):
    rng = np.random.default_rng(0)
    train = tmp_path / "train.csv"
    train.write_text(_week(rng, 300))
    path = tmp_path / "model.json"
    status, _, err = run_main("fit", train, "--positive", "fraud", "--categorical", "shop", "--learner", "trees",
                              "--n-iter", "10", "--out", path, "--progress", "none")
    assert status == 0, err
    return path


def _prec(out):
    return {row["metric"]: row["value"] for row in json.loads(out)}


@pytest.mark.parametrize("labels, other", [(("ok", "fraud"), "'ok'"), (("0", "1"), "0")])
def test_a_week_without_a_relevant_row_gives_prec_at_k_zero(tmp_path, labels, other):
    # a week without fraud is data: prec@k is defined with one class (0 here), not an error asking which label is
    # relevant -- which the model file records -- nor a warning that the "greater label" is ranked first
    rng = np.random.default_rng(1)
    train = tmp_path / "train.csv"
    train.write_text(_week(rng, 300, labels=labels))
    path = tmp_path / "model.json"
    status, _, err = run_main("fit", train, "--positive", labels[1], "--categorical", "shop", "--learner", "trees",
                              "--n-iter", "10", "--out", path, "--progress", "none")
    assert status == 0, err
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "".join(f"{v:.3f},food,{labels[0]}\n" for v in rng.normal(size=20)))
    status, out, err = run_main("evaluate", path, week, "--metrics", "prec@k:5", "--table-format", "json")
    assert status == 0, err
    assert _prec(out) == {"prec@k:5": 0.0}
    assert "warning" not in err
    assert f"every row has the label {other}" in err and "no row is relevant" in err


@pytest.mark.parametrize("command", ["evaluate", "explain"])
def test_a_week_without_a_relevant_row_is_judged_alike_with_positive_naming_the_model_label(tmp_path, model,
                                                                                             command):
    # a weekly script that passes the model's own --positive fraud must not be refused where one without it is
    # judged; a --positive the file and the model both lack (a typing mistake) is still refused
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "".join(f"{v:.3f},food,ok\n" for v in np.random.default_rng(5).normal(size=20)))
    options = ("--metrics", "prec@k:5") if command == "evaluate" else ("--permutation", "--scoring", "prec@k:5")
    status, _, err = run_main(command, model, week, *options, "--positive", "fraud")
    assert status == 0, err
    assert "no row is relevant" in err
    status, _, err = run_main(command, model, week, *options, "--positive", "Fraud")
    assert status == 2 and "'Fraud' does not occur" in err


@pytest.mark.parametrize("command", ["evaluate", "explain"])
def test_a_model_saved_from_python_judges_a_quiet_week_alike_with_positive(tmp_path, command):
    """Before: a model fitted in Python on 0/1 (no recorded label) judged a week of 0s without --positive, but
    refused it with --positive 1, the label it ranks first ("'1' does not occur")."""
    import rankcore

    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 1))
    path = tmp_path / "model.json"
    rankcore.save_model(rankcore.PushBoost(n_iter=3).fit(_frame(X), (X[:, 0] > 0).astype(int)), path)
    week = tmp_path / "quiet-week.csv"
    week.write_text("amount,label\n" + "".join(f"{v:.3f},0\n" for v in rng.normal(size=20)))
    options = ("--metrics", "prec@k:5") if command == "evaluate" else ("--permutation", "--scoring", "prec@k:5")
    for positive in ((), ("--positive", "1")):
        status, _, err = run_main(command, path, week, "--label", "label", *options, *positive)
        assert status == 0, err
    status, _, err = run_main(command, path, week, "--label", "label", *options, "--positive", "2")
    assert status == 2 and "'2' does not occur" in err


def _frame(X):
    import pandas as pd

    return pd.DataFrame({"amount": X[:, 0]})


def test_a_week_without_a_relevant_row_still_refuses_auc_naming_it(tmp_path, model):
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "0.5,food,ok\n0.1,games,ok\n0.2,food,ok\n")
    status, _, err = run_main("evaluate", model, week, "--metrics", "auc")
    assert status == 2
    assert "auc" in err and "needs both classes" in err


def test_a_week_without_a_relevant_row_names_every_metric_it_leaves_undefined(tmp_path, model):
    # the library's refusal named the first one only, as its argument "y": dropping it was refused for the next
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "0.5,food,ok\n0.1,games,ok\n0.2,food,ok\n")
    scored = tmp_path / "scored-week.csv"          # a file's own scores: no model to say which label is relevant
    scored.write_text("amount,label\n0.5,0\n0.1,0\n0.2,0\n")
    for command in ((model, week), (scored, "--scores", "amount")):
        status, _, err = run_main("evaluate", *command, "--metrics", "auc,prec@k:2,ks,rmax")
        assert status == 2
        assert "no row is relevant, and auc, ks, rmax need both classes" in err and "--metrics prec@k:2" in err
        assert "y:" not in err


@pytest.mark.parametrize("metrics, named, suggested", [
    ("auc,misrank,map,prec@k:2", "auc, misrank, map need both classes", "--metrics prec@k:2"),
    ("auc,prec@k:10", "auc needs both classes", "--metrics prec@k:3"),
])
def test_a_week_without_a_relevant_row_names_graded_metrics_and_suggests_defined_ones(tmp_path, model, metrics,
                                                                                       named, suggested):
    """Before: misrank and map (graded) went unnamed, to be refused one by one as ``y``, and a file of 3 rows was
    told to use prec@k:10, which it refuses (k beyond the rows)."""
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "0.5,food,ok\n0.1,games,ok\n0.2,food,ok\n")
    status, _, err = run_main("evaluate", model, week, "--metrics", metrics)
    assert status == 2
    assert f"no row is relevant, and {named}" in err and f"({suggested})" in err


def test_a_week_without_a_relevant_row_with_ci_says_intervals_need_both_classes(tmp_path, model):
    """Before: ``y: metric 'auc' needs both classes``: one metric, named as the library's argument, though no
    metric has an interval on one class."""
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "0.5,food,ok\n0.1,games,ok\n0.2,food,ok\n")
    status, _, err = run_main("evaluate", model, week, "--metrics", "auc,prec@k:2", "--ci", "0.9")
    assert status == 2
    assert "no row is relevant, and a confidence interval (--ci) needs at least two rows of each class" in err \
        and "y:" not in err


def test_a_feature_column_missing_on_every_row_is_warned_about(tmp_path, model):
    rng = np.random.default_rng(2)
    week = tmp_path / "lost-feed.csv"
    week.write_text(_week(rng, 40, empty_amount=True))
    for command in (("evaluate", model, week, "--metrics", "auc"), ("score", model, week, "--out", "-")):
        status, _, err = run_main(*command)
        assert status == 0, err
        assert "warning: " in err and "'amount' is missing on every row" in err
        assert "40 missing values in 40 of 40 rows" in err          # the count, as fit's status line gives it


def test_a_complete_week_says_nothing_about_missing_values(tmp_path, model):
    week = tmp_path / "week.csv"
    week.write_text(_week(np.random.default_rng(3), 40))
    status, _, err = run_main("evaluate", model, week, "--metrics", "auc")
    assert status == 0, err
    assert "missing" not in err and "never saw" not in err


def test_a_category_never_seen_in_training_is_named_with_its_rows(tmp_path, model):
    week = tmp_path / "new-shop.csv"
    week.write_text(_week(np.random.default_rng(4), 40) + "0.3,crypto,fraud\n0.1,crypto,ok\n")
    status, _, err = run_main("evaluate", model, week, "--metrics", "auc")
    assert status == 0, err
    assert "never saw" in err and "column 'shop': 'crypto' (2 rows)" in err


def test_a_file_of_one_row_is_not_said_to_have_lost_a_column(tmp_path, model):
    # one row's missing value is that row's (the status line names it): scoring rows one at a time warned each time
    week = tmp_path / "one-row.csv"
    week.write_text(HEADER + ",food,ok\n")
    status, _, err = run_main("score", model, week, "--out", "-")
    assert status == 0, err
    assert "1 missing value in 1 of 1 rows" in err and "missing on every row" not in err


def test_a_single_unseen_category_row_is_said_as_one_row(tmp_path, model):
    week = tmp_path / "new-shop.csv"
    week.write_text(_week(np.random.default_rng(4), 40) + "0.3,crypto,fraud\n")
    status, _, err = run_main("evaluate", model, week, "--metrics", "auc")
    assert status == 0, err
    assert "column 'shop': 'crypto' (1 row)" in err


def test_unseen_categories_count_rows_per_category_with_missing_codes():
    from rankcore.cli._missing import _unseen_categories

    class Model:
        feature_names_in_, categories_ = ["n", "shop"], [None, np.array(["a", "b"], dtype=object)]

    class Rows:
        feature_names, categories = ["n", "shop"], {"shop": np.array(["a", "c", "d", "e"], dtype=object)}
        X = np.array([[0.0, 1], [0, 1], [0, np.nan], [0, 0], [0, 3]])

    assert _unseen_categories(Model(), Rows()) == [("shop", ["c", "e"], 3)]       # 'd' is in no row


def test_missing_reads_a_sparse_file_as_its_dense_read_in_one_pass(monkeypatch):
    # a LIBSVM file kept sparse is never made dense: its stored NaN are counted; a dense file is masked a block of
    # rows at a time (small blocks here), the columns missing everywhere found in the same pass
    import scipy.sparse as sp

    from rankcore.cli.datasets import _missing as missing_module
    from rankcore.cli.datasets._dataset import Dataset

    monkeypatch.setattr(missing_module, "_MISSING_BLOCK_ROWS", 2)
    dense = np.array([[0.0, 1.0, 0.0], [np.nan, 0.0, np.nan], [np.nan, 2.0, 0.0], [np.nan, 0.0, 3.0],
                      [np.nan, np.nan, 1.0]])
    found = []
    for X in (dense, sp.csr_matrix(dense)):
        data = Dataset(X=X, y=None, feature_names=["a", "b", "c"], label_name=None, source="f", format="libsvm",
                       row_lines=None, named=False)
        found.append(data.missing())
    assert found[0] == found[1]
    assert (found[0].n_values, found[0].n_rows, found[0].columns) == (6, 4, ["a", "b", "c"])
    assert found[0].first == "f, row 1, column 'a'" and found[0].everywhere == []
    dense[0, 0] = np.nan
    data = Dataset(X=sp.csr_matrix(dense), y=None, feature_names=["a", "b", "c"], label_name=None, source="f",
                   format="libsvm", row_lines=None, named=False)
    assert data.missing().everywhere == ["a"] and data.missing().first == "f, row 0, column 'a'"


@pytest.mark.parametrize("command", [("explain", "--permutation", "--scoring", "prec@k:5", "--repeats", "2"),
                                     ("explain", "--summary")])
def test_explain_says_a_feature_column_missing_on_every_row(tmp_path, model, command):
    # a permutation importance of 0 for a column the feed lost is no finding about the feature: said, as score
    # and evaluate say it, once
    week = tmp_path / "lost-feed.csv"
    week.write_text(_week(np.random.default_rng(2), 40, empty_amount=True))
    status, out, err = run_main(command[0], model, week, *command[1:])
    assert status == 0, err
    assert err.count("'amount' is missing on every row") == 1 and "40 missing values in 40 of 40 rows" in err
    assert "missing on every row" not in out


def test_compare_says_a_test_file_column_missing_on_every_row(tmp_path):
    rng = np.random.default_rng(6)
    train, test = tmp_path / "train.csv", tmp_path / "lost-feed.csv"
    train.write_text(_week(rng, 120))
    test.write_text(_week(rng, 40, empty_amount=True))
    status, out, err = run_main("compare", train, "--test", test, "--positive", "fraud", "--categorical", "shop",
                                "--model", "push", "--learner", "trees", "--param", "n_iter=5",
                                "--no-plots", "--progress", "none", "--out-dir", tmp_path / "figs")
    assert status == 0, err
    assert err.count("'amount' is missing on every row") == 1


@pytest.mark.parametrize("metrics", ["prec@k:5", "auc"])
def test_an_interval_of_a_week_without_a_relevant_row_is_refused_in_the_commands_words(tmp_path, model, metrics):
    # the library's refusal began "y:" (its argument) and named no file: the command says the file and what to do
    week = tmp_path / "quiet-week.csv"
    week.write_text(HEADER + "".join(f"{v:.3f},food,ok\n" for v in np.random.default_rng(7).normal(size=20)))
    status, out, err = run_main("evaluate", model, week, "--metrics", metrics, "--ci", "0.9")
    assert status == 2 and out == ""
    assert "quiet-week.csv: no row is relevant, and a confidence interval (--ci) needs at least two rows" in err
    assert "without --ci" in err and "y:" not in err


def test_a_per_query_week_without_a_relevant_row_is_refused_naming_every_metric(tmp_path):
    # ndcg's refusal in the library's words ("y: metric 'ndcg@k:10' counts none..."), then map's once dropped
    rng = np.random.default_rng(8)
    scored = tmp_path / "quiet-queries.csv"
    scored.write_text("s,query,grade\n" + "".join(f"{v:.3f},{i % 4},0\n" for i, v in enumerate(rng.normal(size=40))))
    for extra in ((), ("--ci", "0.9")):
        status, out, err = run_main("evaluate", scored, "--scores", "s", "--qid", "query", "--label", "grade", *extra)
        assert status == 2 and out == ""
        assert "quiet-queries.csv: no query has a relevant row" in err and "ndcg@k:10, map, mrr leave out" in err
        assert "--metrics ndcg@k:10,empty=0,map:empty=0,mrr:empty=0" in err and "y:" not in err
    status, out, err = run_main("evaluate", scored, "--scores", "s", "--qid", "query", "--label", "grade",
                                "--metrics", "ndcg@k:10,empty=0,map:empty=0,mrr:empty=0", "--table-format", "json")
    assert status == 0, err                                      # the advice, taken, judges the file
    assert set(_prec(out).values()) == {0.0}


def test_compare_on_a_test_file_of_a_new_category_warns_once(tmp_path):
    """Before: ``compare --test`` scored a category the fit never saw as missing values without a word, while
    ``score``/``evaluate``/``explain`` warned of it.  One warning for the file, however many models."""
    rng = np.random.default_rng(5)
    train, week = tmp_path / "train.csv", tmp_path / "new-shop.csv"
    train.write_text(_week(rng, 200))
    week.write_text(_week(rng, 40) + "0.3,crypto,fraud\n0.1,crypto,ok\n")
    status, _, err = run_main("compare", train, "--test", week, "--positive", "fraud", "--categorical", "shop",
                              "--learner", "trees", "--model", "push,rankboost", "--n-iter", "5", "--no-plots",
                              "--out-dir", tmp_path / "out", "--progress", "none")
    assert status == 0, err
    assert err.count("never saw") == 1, err
    assert "new-shop.csv: categories the models never saw in training" in err and "'crypto' (2 rows)" in err


def test_compare_on_a_test_file_of_known_categories_says_nothing_of_them(tmp_path):
    rng = np.random.default_rng(6)
    train, week = tmp_path / "train.csv", tmp_path / "week.csv"
    train.write_text(_week(rng, 200))
    week.write_text(_week(rng, 40))
    status, _, err = run_main("compare", train, "--test", week, "--positive", "fraud", "--categorical", "shop",
                              "--learner", "trees", "--n-iter", "5", "--no-plots", "--out-dir", tmp_path / "out",
                              "--progress", "none")
    assert status == 0, err
    assert "never saw" not in err
