"""``--weight COLUMN``: sample weights on the command line (``fit``, ``compare``, ``auto``), refused where no model
is fitted (``score``, ``evaluate``) and for files without named columns."""

import contextlib
import io

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from _init_score_data import N_ITER, ranked, read, write
from rankcore.cli import build_parser
from rankcore.cli.datasets import DataError, load_data

HEADER = ["query", "a", "b", "w", "c", "grade"]
FIT = ("--qid", "query", "--label", "grade", "--weight", "w", "--n-iter", N_ITER)
ONE_LIST = ("--drop", "query", "--label", "grade", "--positive", "3", "--weight", "w", "--n-iter", N_ITER)


def _write(path, seed, n_queries=24, header=HEADER):
    """Queries graded 0..3 with a column of weights 0, 0.5, ..., 2.5 (floats written exactly); ``path``."""
    query, X, _, grade = ranked(seed, n_queries=n_queries)
    weight = np.random.default_rng(seed + 100).integers(0, 6, size=query.size) / 2
    return write(path, query, X, weight, grade, header=header, aside="w")


def _read(path):
    """(frame of a, b, c; grades; query ids; weights), read with the csv module, not rankcore's reader."""
    return read(path, aside="w")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_weight")
    _write(d / "train.csv", 0)
    _write(d / "valid.csv", 1, n_queries=8)
    _write(d / "valid_no_w.csv", 1, n_queries=8, header=["query", "a", "b", "c", "grade"])
    return d


def _boost(**params):
    return rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0, **params)


def _same_scores(model, expected, *frames):
    for frame in frames:
        np.testing.assert_allclose(model.decision_function(frame), expected.decision_function(frame),
                                   rtol=0, atol=1e-12)


def test_fit_within_queries_is_the_estimators_fit_with_sample_weight(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, qid, w = _read(files / "train.csv")
    zeros = int((w == 0).sum())
    assert f"weights 0 to 2.5 (w), {zeros} rows of weight 0 (label: grade)" in err
    model = rankcore.load_model(tmp_path / "m.json")
    assert list(model.feature_names_in_) == ["a", "b", "c"]      # the weights are neither a feature nor the label
    expected = _boost().fit(X, y, qid=qid, sample_weight=w)
    _same_scores(model, expected, X, _read(files / "valid.csv")[0])
    # the training metric reported counts every row once
    score = rankcore.evaluate(y, expected.decision_function(X), ["ndcg@k:10"], qid=qid)["ndcg@k:10"]
    assert f"train ndcg@k:10 {score:.4f}]" in err
    # the weights change the model
    assert not np.allclose(_boost().fit(X, y, qid=qid).decision_function(X), expected.decision_function(X))


def test_one_list_takes_weights_too(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *ONE_LIST, "--quiet", "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    X, y, _, w = _read(files / "train.csv")
    expected = rankcore.boost(n_iter=int(N_ITER), random_state=0).fit(X, (y == 3).astype(int), sample_weight=w)
    _same_scores(rankcore.load_model(tmp_path / "m.json"), expected, X)


@pytest.mark.parametrize("valid", ["valid.csv", "valid_no_w.csv"])
def test_a_validation_file_needs_no_weights_and_its_column_is_left_out(files, tmp_path, valid):
    status, _, err = run_main("fit", files / "train.csv", *FIT, "--validation", files / valid,
                              "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    X, y, qid, w = _read(files / "train.csv")
    X_val, y_val, qid_val, _ = _read(files / "valid.csv")
    expected = _boost(scoring="ndcg@k:10").fit(X, y, qid=qid, sample_weight=w, eval_set=(X_val, y_val, qid_val))
    model = rankcore.load_model(tmp_path / "m.json")
    _same_scores(model, expected, X, X_val)
    np.testing.assert_allclose(model.validation_scores_, expected.validation_scores_, rtol=0, atol=1e-12)
    final = rankcore.evaluate(y_val, expected.decision_function(X_val), ["ndcg@k:10"], qid=qid_val)
    assert f"validation ndcg@k:10 {final['ndcg@k:10']:.4f}]" in err


def _with_cell(files, tmp_path, value, column="w"):
    """train.csv with the ``column`` field of its third data row (line 4) replaced by ``value``."""
    lines = (files / "train.csv").read_text().splitlines()
    cells = lines[3].split(",")
    cells[HEADER.index(column)] = value
    lines[3] = ",".join(cells)
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("value, message", [
    ("", "missing weight (every row needs its weight; 0 leaves a row out)"),
    ("NA", "missing weight"),
    ("nan", "missing weight"),
    ("inf", "expected the row's weight, a finite number >= 0, got 'inf'"),
    ("1e400", "expected the row's weight, a finite number >= 0, got '1e400'"),
    ("-1", "expected the row's weight, a finite number >= 0, got '-1'"),
    (" -2.5e-3 ", "expected the row's weight, a finite number >= 0, got '-2.5e-3'"),
    ("heavy", "expected the row's weight, a finite number >= 0, got 'heavy'"),
    ("1_0", "expected the row's weight, a finite number >= 0, got '1_0'"),
])
def test_bad_weights_name_the_line_the_column_and_the_option(files, tmp_path, value, message):
    status, _, err = run_main("fit", _with_cell(files, tmp_path, value), *FIT, "-o", tmp_path / "m.json")
    one_line_error(status, err, "bad.csv, line 4, column 'w' (--weight): " + message)
    assert not (tmp_path / "m.json").exists()


def test_the_first_bad_row_is_named_whatever_its_problem(files, tmp_path):
    path = _with_cell(files, tmp_path, "-3")
    lines = path.read_text().splitlines()
    cells = lines[6].split(",")
    cells[HEADER.index("w")] = "inf"
    lines[6] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"bad\.csv, line 4, column 'w' \(--weight\): .* got '-3'"):
        load_data(path, label="grade", qid="query", weight="w")


def test_weights_all_zero_are_refused(files, tmp_path):
    lines = (files / "train.csv").read_text().splitlines()
    for i in range(1, len(lines)):
        cells = lines[i].split(",")
        cells[HEADER.index("w")] = "-0" if i % 2 else "0.0"
        lines[i] = ",".join(cells)
    path = tmp_path / "zeros.csv"
    path.write_text("\n".join(lines) + "\n")
    status, _, err = run_main("fit", path, *FIT, "-o", tmp_path / "m.json")
    one_line_error(status, err, "zeros.csv, column 'w' (--weight): every weight is 0; the fit needs rows of "
                                "positive weight")


def _reweighted(files, tmp_path, name, weight_of):
    """train.csv with the column w set to ``weight_of(query, grade)`` for every row."""
    lines = (files / "train.csv").read_text().splitlines()
    for i in range(1, len(lines)):
        cells = lines[i].split(",")
        cells[HEADER.index("w")] = repr(weight_of(cells[HEADER.index("query")], float(cells[HEADER.index("grade")])))
        lines[i] = ",".join(cells)
    (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path / name


def test_weights_that_leave_a_class_nothing_name_the_option(files, tmp_path):
    path = _reweighted(files, tmp_path, "no_top.csv", lambda query, grade: 0.0 if grade == 3 else 1.0)
    for command, extra in (("fit", ("-o", tmp_path / "m.json")), ("compare", ("--no-plots",))):
        status, _, err = run_main(command, path, *ONE_LIST, "--quiet", *extra)
        assert status == 2 and "--weight w: the weights of the training rows leave the fit nothing to learn from" \
            in err and "positive total weight" in err, err


def test_weights_that_leave_every_query_no_pair_name_the_option(files, tmp_path):
    # within queries the push's refusal was "y, qid: ... N with a single grade", a refusal of the labels, so the
    # command line could not say that the weights were why
    path = _reweighted(files, tmp_path, "no_relevant.csv", lambda query, grade: 0.0 if grade > 0 else 1.0)
    status, _, err = run_main("fit", path, *FIT, "--quiet", "-o", tmp_path / "m.json")
    assert status == 2 and "--weight w: the weights of the training rows leave the fit nothing to learn from" in err \
        and "needs a query with two grades of positive weight" in err and "y, qid:" not in err, err


def test_compare_names_a_split_that_holds_out_every_weighted_row(files, tmp_path):
    _, _, qid, _ = _read(files / "train.csv")
    path = _reweighted(files, tmp_path, "one_query.csv", lambda query, grade: 1.0 if query == qid[0] else 0.0)
    seen = set()
    for seed in range(12):              # some seed draws the one weighted query into the test queries
        status, _, err = run_main("compare", path, *FIT, "--random-state", str(seed), "--no-plots", "--quiet")
        seen.add(status)
        if status == 2:
            one_line_error(status, err, "--weight w: every training row (after the split into training and test rows) "
                                        "has weight 0")
            break
    assert 2 in seen


def test_weights_are_read_as_floats_exactly(files, tmp_path):
    data = load_data(_with_cell(files, tmp_path, " 2.5e-3 "), label="grade", qid="query", weight="w")
    assert data.weight.dtype == np.float64 and data.weight[2] == 2.5e-3
    np.testing.assert_array_equal(np.delete(data.weight, 2), np.delete(_read(files / "train.csv")[3], 2))
    assert data.weight_name == "w" and "w" not in data.feature_names and not data.kept


@pytest.mark.parametrize("options, message", [
    (["--weight", "ww"], "no weight column 'ww' (--weight) in the header (columns: query, a, b, w, c, grade); did "
                         "you mean 'w'?"),
    (["--weight", "query"], "the column 'query' cannot be both the query ids (--qid) and the weights (--weight)"),
    (["--weight", "grade"], "the weight column 'grade' (--weight) is the label or dropped"),
    (["--weight", "w", "--drop", "w"], "the weight column 'w' (--weight) is the label or dropped"),
])
def test_the_column_is_checked_as_the_other_columns_aside_are(files, tmp_path, options, message):
    status, _, err = run_main("fit", files / "train.csv", "--qid", "query", "--label", "grade", *options,
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, message)


def test_files_without_named_columns_have_no_weights(tmp_path):
    svm = tmp_path / "rows.svm"
    svm.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    status, _, err = run_main("fit", svm, "--weight", "w", "-o", tmp_path / "m.json")
    one_line_error(status, err, "rows.svm: only CSV files name a column of sample weights (--weight); this is a "
                                "libsvm file")
    np.savez(tmp_path / "rows.npz", X=np.eye(2), y=np.array([0, 1]))
    status, _, err = run_main("fit", tmp_path / "rows.npz", "--weight", "w", "-o", tmp_path / "m.json")
    one_line_error(status, err, "only CSV files name a column of sample weights (--weight); this is a npz file")


@pytest.mark.parametrize("model", ["exactboost", "sgd@k", "perceptron@k", "kernel"])
def test_a_model_that_takes_no_weights_is_refused_before_the_data_are_read(tmp_path, model):
    status, _, err = run_main("fit", tmp_path / "absent.csv", "--weight", "w", "--model", model,
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--weight w: {model} (", "cannot weigh rows (its fit takes no sample_weight); use "
                   "--model push or rankboost, or leave out --weight and pass --drop w")


def test_an_objective_without_weights_is_named_with_the_option(files, tmp_path):
    status, _, err = run_main("fit", files / "train.csv", *ONE_LIST, "--objective", "prec@k-avg:20",
                              "-o", tmp_path / "m.json")
    assert status == 2 and "rankcore: error: --weight w: the objective 'prec@k-avg:20' does not support sample " \
                           "weights; choose another objective, or leave out --weight and pass --drop w" in err


@pytest.mark.parametrize("command, why", [("score", "the scores take no weights"),
                                          ("evaluate", "its metrics count every row once")])
def test_score_and_evaluate_refuse_weights_saying_they_are_for_fitting(files, tmp_path, command, why):
    model_path = tmp_path / "m.json"
    assert run_main("fit", files / "train.csv", *FIT, "--quiet", "-o", model_path)[0] == 0
    status, _, err = run_main(command, model_path, files / "valid.csv", "--qid", "query", "--label", "grade",
                              "--weight", "w")
    one_line_error(status, err, f"--weight: `rankcore {command}` takes no sample weights ({why}); --weight is for "
                                "fitting (`rankcore fit`, `compare`, `auto`): pass --drop w")
    status, _, err = run_main(command, model_path, files / "valid.csv", "--qid", "query", "--label", "grade",
                              "--drop", "w")
    assert status == 0, err


def test_compare_fits_every_model_with_the_training_rows_weights(files, tmp_path):
    from sklearn.model_selection import train_test_split

    status, _, err = run_main("compare", files / "train.csv", *ONE_LIST, "--model", "push,rankboost", "--no-plots",
                              "--quiet", "--save-models", tmp_path / "models")
    assert status == 0, err
    X, y, _, w = _read(files / "train.csv")
    y01 = (y == 3).astype(int)
    train, _ = train_test_split(np.arange(y.size), test_size=0.3, stratify=y01, random_state=0)
    for name, cls in (("push", rankcore.PushBoost), ("rankboost", rankcore.RankBoost)):
        expected = cls(n_iter=int(N_ITER), random_state=0).fit(X.iloc[train], y01[train], sample_weight=w[train])
        _same_scores(rankcore.load_model(tmp_path / "models" / f"{name}.json"), expected, X)


def test_compare_within_queries_with_a_test_file_that_has_no_weights(files, tmp_path):
    status, _, err = run_main("compare", files / "train.csv", *FIT, "--test", files / "valid_no_w.csv",
                              "--no-plots", "--progress", "none", "--save-models", tmp_path / "models")
    assert status == 0, err
    assert "training weights 0 to 2.5 (w)" in err
    X, y, qid, w = _read(files / "train.csv")
    _same_scores(rankcore.load_model(tmp_path / "models" / "push.json"), _boost().fit(X, y, qid=qid, sample_weight=w),
                 X)


def test_compare_refuses_up_front_the_models_that_take_no_weights(files, tmp_path):
    status, _, err = run_main("compare", files / "absent.csv", "--weight", "w", "--model", "push,exactboost,kernel",
                              "--model", "exactboost:metric=auc", "--no-plots")
    one_line_error(status, err, "--weight w: exactboost (ExactBoost) and kernel (KernelRanker) cannot weigh rows "
                                "(their fits take no sample_weight), and `rankcore compare` fits every model with "
                                "the same weights; leave them out (--model push or rankboost take weights), or "
                                "leave out --weight and pass --drop w")


@pytest.mark.parametrize("queries", [False, True])
def test_auto_is_the_auto_rankers_fit_with_sample_weight(files, tmp_path, queries):
    from rankcore.auto import AutoRanker

    options = FIT[:-2] if queries else ONE_LIST[:-2]
    status, out, err = run_main("auto", files / "train.csv", *options, "--candidates", "trees:n_iter=8,linear",
                                "--cv", "3", "--progress", "none", "-o", tmp_path / "a.json")
    assert status == 0, err
    X, y, qid, w = _read(files / "train.csv")
    expected = AutoRanker(candidates=["trees:n_iter=8", "linear"], cv=3, random_state=0)
    if queries:
        expected.fit(X, y, qid=qid, sample_weight=w)
    else:
        expected.fit(X, (y == 3).astype(int), sample_weight=w)
    _same_scores(rankcore.load_model(tmp_path / "a.json"), expected, X)
    skipped = [line.split() for line in out.splitlines() if line.startswith("linear")]
    # the leaderboard lists a skip for the weights as it lists the others (within queries: ranks one list, first)
    reason = "ranks one list: it cannot fit within queries" if queries else "takes no sample_weight"
    assert skipped and skipped[0][1] == "skipped" and out.rstrip().endswith(reason)
    assert "weights 0 to 2.5 (w)" in err


def test_auto_with_no_candidate_that_takes_weights_says_what_to_do(files, tmp_path):
    status, _, err = run_main("auto", files / "train.csv", *ONE_LIST[:-2], "--candidates", "linear", "--quiet",
                              "-o", tmp_path / "a.json")
    one_line_error(status, err, "--weight w: candidates: none applies to these data (linear: takes no sample_weight)",
                   "or leave out --weight and pass --drop w")


@pytest.mark.parametrize("command", ["fit", "score", "evaluate", "compare", "auto"])
def test_help_lists_the_option(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = " ".join(out.getvalue().split())
    assert "--weight COLUMN" in text
    if command in ("score", "evaluate"):
        assert "not here: sample weights are for fitting (`rankcore fit`, `compare`, `auto`)" in text
    else:
        assert "how many times the row counts in the fit (sample_weight)" in text
        assert "count every row once" in text or "counts every row once" in text
    if command == "auto":
        assert "takes no sample_weight are skipped" in text


def test_a_lightgbm_weight_file_beside_a_libsvm_file_is_said_to_be_unread(tmp_path):
    rng = np.random.default_rng(0)
    data = tmp_path / "t.svm"
    data.write_text("".join(f"{i % 3} qid:{i // 10} 1:{rng.normal():.3f} 2:{rng.normal():.3f}\n" for i in range(60)))
    status, _, err = run_main("fit", data, "--n-iter", "2", "--quiet", "-o", tmp_path / "plain.json")
    assert (status, err) == (0, "")
    (tmp_path / "t.svm.weight").write_text("2\n" * 60)
    status, _, err = run_main("fit", data, "--n-iter", "2", "--quiet", "-o", tmp_path / "m.json")
    assert status == 0 and "t.svm.weight beside it is not read (LightGBM's file of sample weights): the fit is " \
        "unweighted" in err, err


def test_evaluate_says_a_lightgbm_weight_file_beside_its_data_is_unread(tmp_path):
    # LightGBM weighs its metrics by DATA.weight; evaluate's metrics were unweighted without a word
    rng = np.random.default_rng(0)
    data = tmp_path / "t.svm"
    data.write_text("".join(f"{i % 2} 1:{rng.normal():.3f} 2:{rng.normal():.3f}\n" for i in range(60)))
    status, _, err = run_main("fit", data, "--n-iter", "2", "--quiet", "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    (tmp_path / "t.svm.weight").write_text("2\n" * 60)
    status, out, err = run_main("evaluate", tmp_path / "m.json", data, "--metrics", "auc")
    assert status == 0 and "auc" in out
    assert "t.svm.weight beside it is not read (LightGBM's file of sample weights): the metrics count every " \
        "row once" in err, err
