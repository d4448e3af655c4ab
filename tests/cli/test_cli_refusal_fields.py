"""The command line says the library's refusals from their fields (``MetricRefusal``, ``InitModelColumns``), never
from their text: each test rewords the refusal where the library makes it and checks the command line's sentence is
unchanged (it would fall back to the library's own words if it read the text)."""

import numpy as np
import pytest

import rankcore.auto._fit_inputs
import rankcore.metrics._query
import rankcore.push._eval_sets
import rankcore.push._init_model
import rankcore.push._scoring
from _cli_run import one_line_error, run_main
from _init_score_data import N_ITER, ranked, write
from rankcore.metrics import MetricRefusal
from rankcore.push import InitModelColumns


def _whole(k: str) -> str:
    """The advice after "choose k <= n" of ndcg@k: the spec that reads each shorter query whole."""
    return (f", or pass 'ndcg@k:{k},convention=lightgbm' to read each shorter query whole as lightgbm does (or "
            "convention=xgboost, sklearn, trec_eval, catboost: the library whose numbers you compare with; it sets its "
            "gains and ties too)")

FIT = ("fit", "--qid", "query", "--label", "grade", "--drop", "prior", "--n-iter", N_ITER, "--progress", "none",
       "--quiet")
AUTO = ("auto", "--qid", "query", "--label", "grade", "--drop", "prior", "--candidates", "stumps:n_iter=3",
        "--progress", "none", "--quiet")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("refusal_fields")
    write(d / "train.csv", *ranked(0))
    write(d / "valid.csv", *ranked(1, n_queries=8))
    query, X, prior, grade = ranked(2, n_queries=1)
    write(d / "one.csv", query, X, prior, grade)
    query, X, prior, grade = ranked(3, n_queries=3)
    write(d / "zero.csv", query, X, prior, np.zeros_like(grade))          # no relevant row in any query
    return d


def _reworded_k_beyond(spec, k, longest, where="every query", advice=""):
    detail = f"{spec} reads {k} places, its longest list {longest}"
    return MetricRefusal(f"{spec} refuses these lists: {detail}", spec=spec, reason="k_beyond", detail=detail, k=k,
                         longest=longest)


def test_a_monitor_k_beyond_the_file_is_said_from_the_fields(files, tmp_path, monkeypatch):
    monkeypatch.setattr(rankcore.metrics._query, "k_beyond", _reworded_k_beyond)
    status, _, err = run_main(*FIT, files / "train.csv", "--validation", files / "one.csv", "-o", tmp_path / "m.json")
    assert status == 2, err
    error = err.strip().splitlines()[-1]                 # after the warning of a file of one query
    assert error == (f"rankcore: error: --validation {files / 'one.csv'}: --monitor ndcg@k:10: k = 10 is larger than "
                     "every query of the file (the largest has 9 rows), so no query is cut at k; choose k <= 9"
                     + _whole("10"))
    assert "refuses these lists" not in err and "reads 10 places" not in err


def test_a_monitor_that_counts_no_query_is_said_from_the_fields(files, tmp_path, monkeypatch):
    named = rankcore.push._scoring.MetricScoring._named

    def reworded(self, exc, name):          # the estimator's words changed: the fields are the same
        said = named(self, exc, name)
        return said.with_context(f"the fit's metric refused the validation labels, {said.detail}",
                                 parameter=said.parameter, eval_set=said.eval_set)

    monkeypatch.setattr(rankcore.push._scoring.MetricScoring, "_named", reworded)
    status, _, err = run_main(*FIT, "--monitor", "ndcg@k:3", files / "train.csv", "--validation",
                              files / "zero.csv", "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--validation {files / 'zero.csv'}: --monitor ndcg@k:3: counts none of the 3 "
                                "queries")
    assert "the fit's metric refused" not in err


def _reworded_eval_metric(exc, spec, labels, eval_set):
    detail = exc.detail if isinstance(exc, MetricRefusal) else str(exc)
    return MetricRefusal(f"{labels} refuses {spec} -- {detail}", spec=spec, reason=getattr(exc, "reason", "other"),
                         detail=detail, parameter="eval_metric", eval_set=eval_set)


@pytest.mark.parametrize("command", ["fit", "auto"])
def test_an_eval_metric_the_file_cannot_score_is_said_from_the_fields(files, tmp_path, monkeypatch, command):
    monkeypatch.setattr(rankcore.push._eval_sets, "eval_metric_refusal", _reworded_eval_metric)
    monkeypatch.setattr(rankcore.auto._fit_inputs, "eval_metric_refusal", _reworded_eval_metric)
    monkeypatch.setattr(rankcore.metrics._query, "k_beyond", _reworded_k_beyond)
    options = FIT if command == "fit" else AUTO
    status, _, err = run_main(*options, files / "train.csv", "--validation", files / "valid.csv", "--eval-metric",
                              "ndcg@k:40", "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--eval-metric ndcg@k:40: cannot score --validation {files / 'valid.csv'}: "
                                "ndcg@k:40 reads 40 places, its longest list 10")
    assert "refuses" not in err


def test_init_model_columns_are_named_from_the_fields(tmp_path, monkeypatch):
    """The refusal of columns split otherwise: the column names come from the indices the refusal carries."""
    said = InitModelColumns.said

    def reworded(self, name=str):           # the library's words changed: "cols" for "columns", no brackets
        return said(self, name).replace("the columns [", "the cols <").replace("] by category", "> by category")

    monkeypatch.setattr(rankcore.push._init_model.InitModelColumns, "said", reworded)
    rng = np.random.default_rng(0)
    n = 120
    query = np.repeat(np.arange(12), 10)
    store = rng.integers(1, 4, size=n)
    X = rng.normal(size=(n, 3))
    grade = np.clip(np.round(X[:, 0] + (store == 2) + rng.normal(scale=0.5, size=n)), 0, 3).astype(int)
    lines = ["qid,a,b,c,store,grade"] + [f"{q},{float(x[0])!r},{float(x[1])!r},{float(x[2])!r},{s},{g}"
                                         for q, x, s, g in zip(query, X, store, grade)]
    (tmp_path / "day1.csv").write_text("\n".join(lines) + "\n")
    options = ("--qid", "qid", "--label", "grade", "--learner", "trees", "--n-iter", "2", "--quiet")
    status, _, err = run_main("fit", tmp_path / "day1.csv", *options, "--categorical", "store",
                              "-o", tmp_path / "a.json")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "day1.csv", *options, "--categorical", "store,a",
                              "--init-model", tmp_path / "a.json", "-o", tmp_path / "b.json")
    one_line_error(status, err, "--init-model: the model splits the cols <'store'> by category groups, this fit "
                                "['a', 'store']; give the model's --categorical columns")


def test_init_model_columns_pickle_and_say_any_name():
    import pickle

    exc = InitModelColumns("init_model", "split", columns=(3,), own_columns=(0, 3))
    assert str(exc) == ("init_model: the model splits the columns [3] by category groups, this fit [0, 3]; give the "
                        "same categorical_features, category columns or learner categorical columns")
    assert exc.said(lambda j: "abcd"[j]).startswith("init_model: the model splits the columns [d] by category "
                                                    "groups, this fit [a, d]")
    exc.add_note("fitting with init_model")          # a note and a caller's attribute cross a pickle, as a
    exc.fold = 2                                    # ValueError's do (they were dropped by the fields' reduce)
    back = pickle.loads(pickle.dumps(exc))
    assert str(back) == str(exc) and (back.columns, back.own_columns) == ((3,), (0, 3))
    assert back.__notes__ == ["fitting with init_model"] and back.fold == 2
    one = InitModelColumns("init_model", "categories", column=1, theirs="[1, 2]", ours="[1, 4]")
    assert str(one).startswith("init_model: column 1's categories differ from the model's ([1, 2] against X's "
                               "[1, 4])")
    with pytest.raises(TypeError, match="kind must be"):
        InitModelColumns("init_model", "other")


def test_a_column_whose_categories_differ_is_named_by_the_file_and_a_name_is_not_translated():
    """The column comes from the refusal's index; a feature name that reads like a library word stays as it is
    (the command line's words replace the library's, not a column's name)."""
    from types import SimpleNamespace

    from rankcore.cli._init_models import init_model_error

    data = SimpleNamespace(named=True, feature_names=["a", "init_score", "store"], source="day2.csv")
    exc = InitModelColumns("init_model", "categories", column=1, theirs="[1, 2]", ours="[1, 4]")
    error = str(init_model_error(exc, data))
    assert error.startswith("--init-model: column 'init_score''s categories differ from the model's ([1, 2] against "
                            "day2.csv's [1, 4])"), error
    split = InitModelColumns("init_model", "split", columns=(2,), own_columns=(1, 2, 7))
    assert str(init_model_error(split, data)).startswith("--init-model: the model splits the columns ['store'] by "
                                                         "category groups, this fit ['init_score', 'store', 7]")
    assert str(init_model_error(split, None)).startswith("--init-model: the model splits the columns [2] by ")


@pytest.fixture(scope="module")
def binary_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("refusal_fields_binary")
    query, X, prior, grade = ranked(7)
    write(d / "train.csv", query, X, prior, (grade > 1).astype(int))
    query, X, prior, grade = ranked(8, n_queries=3)
    write(d / "zero.csv", query, X, prior, np.zeros_like(grade))            # one class: no relevant row
    return d


FIT_ROWS = ("fit", "--label", "grade", "--drop", "query,prior", "--n-iter", N_ITER, "--progress", "none", "--quiet")


@pytest.mark.parametrize("monitor, detail", [
    ("auc", "needs both classes, got only negatives (0) in {n} labels"),
    ("pauc:0.1", "needs both classes, got only negatives (0) in {n} labels"),
    ("prec@k:100", "k: expected a count in [1, {n}] (the number of examples), got 100"),
])
def test_a_monitor_refused_without_queries_is_said_of_the_file(binary_files, tmp_path, monitor, detail):
    """Before: ``eval_set y: metric 'auc' ...`` and ``metric 'prec@k:100': k: ...``: the library's names, which
    the command line never gave (the refusal carried neither ``parameter`` nor ``eval_set`` without queries)."""
    n = len((binary_files / "zero.csv").read_text().splitlines()) - 1
    status, _, err = run_main(*FIT_ROWS, binary_files / "train.csv", "--validation", binary_files / "zero.csv",
                              "--monitor", monitor, "-o", tmp_path / "m.json")
    one_line_error(status, err, f"rankcore: error: --validation {binary_files / 'zero.csv'}: --monitor {monitor}: "
                                f"{detail.format(n=n)}")


@pytest.mark.parametrize("option", ["--eval-metric", "--metric"])
def test_auto_says_a_k_beyond_the_file_of_every_query_of_the_file(files, tmp_path, option):
    """Before: ``k = 40 is larger than the input``, the library's words for a set of one query, and for
    ``--metric`` the library's ``metric 'ndcg@k:40':``."""
    status, _, err = run_main(*AUTO, files / "train.csv", "--validation", files / "one.csv", option, "ndcg@k:40",
                              "-o", tmp_path / "m.json")
    error = err.strip().splitlines()[-1]                 # after the warning of a file of one query
    assert status == 2, err
    said = "k = 40 is larger than every query of the file (the largest has 9 rows), so no query is cut at k"
    if option == "--eval-metric":
        assert error == f"rankcore: error: --eval-metric ndcg@k:40: cannot score --validation {files / 'one.csv'}: " \
                        f"{said}; choose k <= 9{_whole('40')}"
    else:
        assert error == (f"rankcore: error: --validation {files / 'one.csv'}: --metric ndcg@k:40: {said}; "
                         f"choose k <= 9{_whole('40')}")
