"""``rankcore auto --candidates`` says every refusal of a candidate as the option and the candidate
(``--candidates: 'SPEC': ...``), and a trees candidate's ``monotone`` or ``interactions`` value with the feature
columns' advice ``rankcore fit --learner`` gives, the file read for it alone and before any other check.

Before: ``--candidates "trees:monotone=1/2"`` said the learner's refusal alone (no option, no candidate, no
columns), while ``"trees:interactions=0+0"`` said ``candidates: 'trees:interactions=0+0': ...`` without the
columns; a candidate the registry could not configure named neither the option nor the candidate; ``--metric
nope`` did not name ``--metric`` where ``--eval-metric nope`` named its option."""

import numpy as np
import pytest

from _candidate_plugins import registered_candidate
from _cli_run import one_line_error, run_main
from _people_rows import ORDER, write_people
from rankcore.auto import Candidate
from rankcore.validation import ArgumentRefusal


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """120 rows of age, income, city, height, weight and a 0/1 label."""
    return write_people(tmp_path_factory.mktemp("auto_candidate_refusals") / "people.csv", 120, seed=4)


def _auto(data, tmp_path, candidates, *extra):
    return run_main("auto", data, "--candidates", candidates, "--drop", "city", "--out", tmp_path / "m.json",
                    "-q", *extra)


def _fit(data, tmp_path, learner):
    return run_main("fit", data, "--learner", learner, "--drop", "city", "--out", tmp_path / "m.json", "-q")


@pytest.mark.parametrize("value, advice", [
    ("monotone=1/2/0/0", f"the signs follow the feature columns in order: {ORDER}"),
    ("interactions=1+1", "that is column 'income' (index 1) of the feature columns"),
    ("interactions=0++1", f"the indices count the feature columns in order from 0: {ORDER} (a column may also be "
                          "given by its name)"),
])
def test_an_unreadable_constraint_names_the_option_the_candidate_and_the_columns(rows, tmp_path, value, advice):
    spec = f"trees:n_iter=3,{value}"
    status, _, err = _auto(rows, tmp_path, f"linear,{spec}")
    one_line_error(status, err, f"rankcore: error: --candidates: {spec!r}: learner 'trees': ", f"; {advice}")
    assert err.rstrip().endswith(f"; {advice}")
    # the learner's words are fit's for --learner: the same refusal, the same advice
    _, _, fit_err = _fit(rows, tmp_path, f"trees:{value}")
    assert fit_err.split("learner 'trees': ", 1)[1] == err.split("learner 'trees': ", 1)[1]
    assert not (tmp_path / "m.json").exists()


def test_an_unreadable_constraint_is_said_before_the_other_checks(rows, tmp_path):
    """Said first, as --learner's: a --validation file that is not there is not read, nor met."""
    status, _, err = _auto(rows, tmp_path, "trees:monotone=1/2", "--validation", tmp_path / "absent.csv")
    one_line_error(status, err, "--candidates: 'trees:monotone=1/2': learner 'trees': monotone must be ",
                   f"; the signs follow the feature columns in order: {ORDER}")
    assert "absent.csv" not in err


def test_without_a_readable_file_the_refusal_is_said_alone(tmp_path):
    status, _, err = _auto(tmp_path / "absent.csv", tmp_path, "trees:monotone=1/2")
    one_line_error(status, err, "rankcore: error: --candidates: 'trees:monotone=1/2': learner 'trees': monotone "
                                "must be signs per column of X such as 1/0/-1 (each -1, 0 or 1), got '1/2' ('2' is "
                                "not a sign (-1, 0 or 1))")
    assert err.rstrip().endswith("(-1, 0 or 1))")


def test_a_column_name_the_file_does_not_have_names_the_option_and_lists_the_columns(rows, tmp_path):
    status, _, err = _auto(rows, tmp_path, "trees:n_iter=3,interactions=age+zz", "--cv", "2")
    one_line_error(status, err, "rankcore: error: --candidates: 'trees:n_iter=3,interactions=age+zz': interactions: "
                                "'zz' is not a column of X",
                   f"; the indices count the feature columns in order from 0: {ORDER}")


@pytest.mark.parametrize("candidates, says", [
    ("trees:nonsense=3", "--candidates: 'trees:nonsense=3': candidate 'trees': unknown parameter(s) nonsense; "),
    ("linear,nothing-like-this", "--candidates: 'nothing-like-this': unknown candidate 'nothing-like-this'; "
                                 "registered candidates: "),
    ("trees,trees", "--candidates: 'trees' is listed twice"),
])
def test_every_refusal_of_the_list_names_the_option(rows, tmp_path, candidates, says):
    status, _, err = _auto(rows, tmp_path, candidates)
    one_line_error(status, err, f"rankcore: error: {says}")


@pytest.mark.parametrize("option", ["--metric", "--eval-metric"])
def test_a_metric_spec_that_cannot_be_read_names_its_option(rows, tmp_path, option):
    """Before: ``--metric nope`` said the registry's words alone, where ``--eval-metric nope`` named the option."""
    extra = ("--validation", rows) if option == "--eval-metric" else ()
    status, _, err = _auto(rows, tmp_path, "linear", option, "nope", *extra)
    one_line_error(status, err, f"rankcore: error: {option} 'nope': unknown metric 'nope'; registered metrics: ")


@pytest.mark.parametrize("value, advice", [
    ("monotone=1/0", f"the signs follow the feature columns in order: {ORDER}"),
    ("interactions=0+7", f"the indices count the feature columns in order from 0: {ORDER} (a column may also be "
                         "given by its name)"),
])
@pytest.mark.parametrize("others", ["", "linear,"])
def test_a_constraint_that_does_not_fit_the_columns_names_the_option_and_the_columns(rows, tmp_path, value, advice,
                                                                                     others):
    """Before: ``AutoRanker: no candidate could be evaluated (trees:...: fold 1: ValueError: monotone: ...)``, no
    columns (beside linear: linear chosen, the constraint dropped as a failed candidate)."""
    spec = f"trees:n_iter=3,{value}"
    status, _, err = _auto(rows, tmp_path, f"{others}{spec}", "--cv", "3")
    one_line_error(status, err, f"rankcore: error: --candidates: {spec!r}: {value.split('=')[0]}: ", f"; {advice}")
    # the learner's words and advice are fit's for --learner
    _, _, fit_err = _fit(rows, tmp_path, f"trees:{value}")
    assert fit_err.split("rankcore: error: ", 1)[1] == err.split(f"--candidates: {spec!r}: ", 1)[1]
    assert not (tmp_path / "m.json").exists()


def test_weights_refused_in_every_fold_name_weight_as_fit_does(tmp_path):
    """The relevant rows all of weight 0: every fold's objective refuses the weights.  Before: ``AutoRanker: no
    candidate could be evaluated (trees:n_iter=3: fold 1: ValueError: objective ...)``; the refusal raised as
    itself (sample_weight, zero_total) would be said as ``--candidates``: it is ``--weight``'s, as for fit."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] > 0).astype(int)
    path = tmp_path / "weighted.csv"
    path.write_text("a,b,c,w,label\n" + "".join(f"{a!r},{b!r},{c!r},{1.0 - t},{t}\n"
                                                for (a, b, c), t in zip(X.tolist(), y.tolist())))
    status, _, err = run_main("auto", path, "--label", "label", "--weight", "w", "--candidates", "trees:n_iter=3",
                              "--out", tmp_path / "m.json", "-q")
    one_line_error(status, err, "rankcore: error: --weight w: the weights of the training rows leave the fit nothing "
                                "to learn from (candidates: 'trees:n_iter=3': objective 'push:exp,pow:2': needs "
                                "positive total weight in both classes")
    _, _, fit_err = run_main("fit", path, "--label", "label", "--weight", "w", "--learner", "trees", "--out",
                             tmp_path / "m.json", "-q")
    assert fit_err.startswith("rankcore: error: --weight w: the weights of the training rows leave the fit nothing ")


class _Refuses:
    """Refuses ``parameter`` in every fit (reason ``reason``): a refusal every fold of every candidate shares."""

    def __init__(self, parameter, reason):
        self.parameter, self.reason = parameter, reason

    def fit(self, X, y, sample_weight=None):
        raise ArgumentRefusal.said(self.parameter, "refused by this test's candidate", reason=self.reason)

    def decision_function(self, X):
        return X[:, 0]


@pytest.mark.parametrize("parameter, reason, weighted, said", [
    ("X", "value", False, "candidates: 'refuses-for-cli-tests': X: "),
    ("y", "value", True, "candidates: 'refuses-for-cli-tests': y: "),
    ("qid", "zero_total", True, "candidates: 'refuses-for-cli-tests': qid: "),
    ("sample_weight", "value", True, "--weight w: refused by this test's candidate; choose another objective"),
    ("sample_weight", "zero_total", True, "--weight w: the weights of the training rows leave the fit nothing "),
])
def test_a_refusal_every_candidate_shares_is_said_of_its_own_input_never_of_candidates(rows, tmp_path, parameter,
                                                                                       reason, weighted, said):
    """Before: every such refusal was said as ``--candidates: 'SPEC': X: ...`` (the option blamed for the data), and
    a refusal of the weights other than a zero total as ``--candidates`` too, where ``--weight`` is the input."""
    candidate = type("_RefusesForCli", (Candidate,), {"name": "refuses-for-cli-tests", "accepts_missing": True,
                                                       "relative_cost": 0.01,
                                                       "build": lambda self, context: _Refuses(parameter, reason)})
    path = tmp_path / "weighted.csv"         # the people with a weight column of ones
    lines = rows.read_text().splitlines()
    path.write_text("\n".join([f"{lines[0]},w"] + [f"{line},1.0" for line in lines[1:]]) + "\n")
    with registered_candidate(candidate, "auto-cli-refuses-for-tests"):
        status, _, err = _auto(path, tmp_path, "refuses-for-cli-tests", *(("--weight", "w") if weighted else
                                                                          ("--drop", "w")))
    one_line_error(status, err)
    assert err.startswith(f"rankcore: error: {said}"), err
    assert not (tmp_path / "m.json").exists()
