"""The command line chooses how to say a learner's refusal of its constraints (``ConstraintRefusal``), compare's
refusal of ``--monitor`` and AutoRanker's refusal of the validation file's parts (``MetricRefusal``) by their
class and fields, never by their text: each test rewords the library's sentence where it is made and checks the
command line's own words are unchanged (reading the text, it would drop them or fall back to the library's)."""

import re

import numpy as np
import pytest

import rankcore.auto._fit_inputs
import rankcore.learners.trees._interactions
import rankcore.learners.trees._learner
import rankcore.metrics._query
from _cli_run import one_line_error, run_main, written_or_shown
from _init_score_data import ranked, write

COLUMNS = "x0, x1, x2, x3, x4, x5, x6"


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """200 rows of 8 features x0..x7 and a 0/1 label."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    d = tmp_path_factory.mktemp("constraints")
    with open(d / "data.csv", "w") as fh:
        fh.write(",".join(f"x{j}" for j in range(8)) + ",label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    return d / "data.csv"


def _reworded(func, old: str, new: str):
    """``func`` whose ValueError says ``new`` where it said ``old`` (the same exception: its class and fields)."""
    def reworded(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ValueError as exc:
            assert old in str(exc)
            exc.args = (str(exc).replace(old, new),)
            raise
    return reworded


def _reword(monkeypatch, name: str, old: str, new: str) -> None:
    """Reword the refusals of the trees learner's ``name`` (where the learner and its helpers call it)."""
    for module in (rankcore.learners.trees._learner, rankcore.learners.trees._interactions):
        if hasattr(module, name):
            monkeypatch.setattr(module, name, _reworded(getattr(module, name), old, new))


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_monotone_signs_refused_in_other_words_still_list_the_columns(rows, tmp_path, monkeypatch, command):
    """Before: the columns were listed only when the text held the word "monotone"."""
    _reword(monkeypatch, "column_signs", "monotone: expected 7 signs, one per feature of X in column order",
            "the learner wants 7 signs, one per column")
    options = written_or_shown(command, tmp_path)
    status, _, err = run_main(command, rows, "--learner", "trees:monotone=1/0/-1", "--drop", "x7", *options, "-q")
    label = "" if command == "fit" else "push: "
    one_line_error(status, err, f"rankcore: error: {label}the learner wants 7 signs, one per column, got 3 "
                                f"('1/0/-1'); the signs follow the feature columns in order: {COLUMNS}")


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_interaction_groups_refused_in_other_words_still_list_the_columns(rows, tmp_path, monkeypatch, command):
    """Before: the columns were listed only when the text started with "interactions:"."""
    _reword(monkeypatch, "column_groups", "interactions: column 9 is out of range", "the groups name column 9")
    options = written_or_shown(command, tmp_path)
    status, _, err = run_main(command, rows, "--learner", "trees:interactions=0+9", "--drop", "x7", *options, "-q")
    label = "" if command == "fit" else "push: "
    one_line_error(status, err, f"rankcore: error: {label}the groups name column 9: expected column indices of X in "
                                f"0..6 ('0+9'); the indices count the feature columns in order from 0: {COLUMNS} (a "
                                "column may also be given by its name)")


def test_the_word_monotone_in_another_refusal_lists_no_columns(rows, tmp_path):
    """Before: ExactBoost's refusal of a metric that is not monotone got "the signs follow the feature columns"."""
    status, _, err = run_main("fit", rows, "--model", "exactboost", "--metric", "ndcg@k:5", "-o", tmp_path / "m.json",
                              "-q")
    one_line_error(status, err, "ExactBoost needs a monotone metric", "'ndcg@k:5' is not monotone")
    assert "the signs follow" not in err


@pytest.fixture(scope="module")
def queries(tmp_path_factory):
    d = tmp_path_factory.mktemp("compare_monitor")
    write(d / "train.csv", *ranked(0))
    query, X, prior, grade = ranked(1, n_queries=8)
    write(d / "test.csv", query, X, prior, grade)
    return d, int(np.bincount(query).max())


def _reworded_k_beyond(spec, k, longest, where="every query", advice=""):
    detail = f"{spec} reads {k} places, its longest list {longest}"
    return rankcore.metrics.MetricRefusal(f"{spec} refuses these lists: {detail}", spec=spec, reason="k_beyond",
                                          detail=detail, k=k, longest=longest)


@pytest.mark.parametrize("reworded", [False, True])
@pytest.mark.parametrize("test_file", [True, False])
def test_compare_says_a_monitor_k_beyond_the_test_rows_as_the_options_given(queries, monkeypatch, reworded, test_file):
    """Before: ``push: scoring='ndcg@k:40' on eval_set: k = 40 ...``, the library's names, which ``compare`` never
    gave (``fit`` said it of ``--validation FILE`` and ``--monitor``)."""
    d, longest = queries
    if reworded:
        monkeypatch.setattr(rankcore.metrics._query, "k_beyond", _reworded_k_beyond)
    test = ("--test", d / "test.csv") if test_file else ()
    status, _, err = run_main("compare", d / "train.csv", *test, "--qid", "query", "--label", "grade", "--drop",
                              "prior", "--model", "push", "--n-iter", "3", "--monitor", "ndcg@k:40", "--no-plots",
                              "-q")
    assert status == 2, err
    rows, of = (f"--test {d / 'test.csv'}", "the file") if test_file else ("--test-size 0.3", "the test split")
    largest = str(longest) if test_file else r"\d+"      # the split's queries: their longest, whatever it is
    error = err.strip().splitlines()[-1]
    assert re.fullmatch(re.escape(f"rankcore: error: push: {rows}: --monitor ndcg@k:40: k = 40 is larger than every "
                                  f"query of {of} (the largest has ") + f"({largest}) rows\\), so no query is cut at "
                        r"k; choose k <= \1, or pass 'ndcg@k:40,convention=lightgbm' .*", error), error
    assert "scoring=" not in err and "reads 40 places" not in err


def test_auto_says_the_metric_on_the_files_parts_from_the_fields(queries, tmp_path, monkeypatch):
    """AutoRanker's refusal of its metric on the parts of the eval_set is said of ``--validation FILE`` when it
    carries ``parameter="metric"`` and ``eval_set="eval_set"``; before, only when its text held "the eval_set"."""
    d, _ = queries
    monkeypatch.setattr(rankcore.auto._fit_inputs, "check_metric_on_units",
                        _reworded(rankcore.auto._fit_inputs.check_metric_on_units, "cannot be computed on the "
                                  "eval_set 'validation'", "cannot score the validation rows"))
    status, _, err = run_main("auto", d / "train.csv", "--label", "grade", "--positive", "3", "--drop",
                              "query,prior", "--validation", d / "test.csv", "--metric", "prec@k:50", "--candidates",
                              "stumps:n_iter=3", "-q", "-o", tmp_path / "m.json")
    one_line_error(status, err, f"rankcore: error: --validation {d / 'test.csv'}: metric 'prec@k:50' cannot score "
                                "the validation rows (61 rows) (scored in 2 part(s)",
                   "or larger validation parts (a larger file)")


def test_auto_says_its_own_advice_for_the_file_from_the_remedy(queries, tmp_path, monkeypatch):
    """The library's advice reworded (its ``advice`` field follows): the command line still says its own advice
    for the file, chosen by ``remedy``; before, it replaced the words 'a larger eval_set' in the text, and a
    reworded advice kept the library's words (the eval_set, which the command line never names)."""
    import rankcore.auto._folds

    d, _ = queries
    monkeypatch.setattr(rankcore.auto._folds, "part_advice", lambda remedy, larger, both=None: "Ask for more rows")
    status, _, err = run_main("auto", d / "train.csv", "--label", "grade", "--positive", "3", "--drop",
                              "query,prior", "--validation", d / "test.csv", "--metric", "prec@k:50", "--candidates",
                              "stumps:n_iter=3", "-q", "-o", tmp_path / "m.json")
    one_line_error(status, err, f"rankcore: error: --validation {d / 'test.csv'}: metric 'prec@k:50' cannot be "
                                "computed on", "(the number of examples), got 50. Use a metric that fits them (for "
                                "precision at the top, a fraction such as 'prec@k:0.05') or larger validation parts (a "
                                "larger file)")
    assert "Ask for more rows" not in err and "a larger eval_set" not in err


def test_the_metrics_refusal_on_the_parts_carries_its_advice_and_remedy():
    import pickle

    import rankcore
    from rankcore.metrics import MetricRefusal

    rng = np.random.default_rng(0)
    X, X_val = rng.normal(size=(300, 3)), rng.normal(size=(60, 3))
    y, y_val = (X[:, 0] + rng.normal(size=300) > 0).astype(int), (X_val[:, 0] > 0).astype(int)
    with pytest.raises(MetricRefusal) as caught:
        rankcore.AutoRanker(candidates=["stumps:n_iter=3"], metric="prec@k:50", random_state=0).fit(
            X, y, eval_set=(X_val, y_val))
    exc = caught.value
    assert exc.remedy == "metric_or_larger" and (exc.parameter, exc.eval_set) == ("metric", "eval_set")
    assert exc.advice == rankcore.auto.part_advice("metric_or_larger", "a larger eval_set")
    assert str(exc).endswith(". " + exc.advice) and exc.detail.endswith(exc.advice)
    back = pickle.loads(pickle.dumps(exc))
    assert (str(back), back.advice, back.remedy, back.eval_set) == (str(exc), exc.advice, exc.remedy, "eval_set")
    # words said after the advice: it is no longer the message's end, so the fields drop it (a caller cuts nothing)
    after = exc.with_context(f"{exc}; see the docs", detail=f"{exc.detail}; see the docs")
    assert (after.advice, after.remedy) == (None, None)
    with pytest.raises(TypeError, match="advice and remedy"):
        MetricRefusal("m: x. Do y", spec="m", detail="x. Do y", advice="Do y")
    with pytest.raises(TypeError, match="advice and remedy"):
        MetricRefusal("m: x. Do y", spec="m", detail="x. Do y", advice="Do y", remedy="louder")
