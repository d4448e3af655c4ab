"""The command line chooses how to say the library's refusal of ``position`` and of ``sample_weight``
(``ArgumentRefusal``) by its class and fields, never by its text: each test rewords the library's sentence where it
is made and checks the command line's own words (``--position COLUMN:``, ``--weight COLUMN:`` and its advice) are
unchanged.  Reading the text, the command line would fall back to the library's sentence without them."""

import numpy as np
import pytest

import rankcore.objectives._position_effects
import rankcore.objectives._push
import rankcore.push._boost_base
from _cli_run import one_line_error, run_main, written_or_shown
from _init_score_data import N_ITER, ranked, write
from rankcore.validation import ArgumentRefusal

WEIGHT_HEADER = ["query", "a", "b", "w", "c", "grade"]
ONE_LIST = ("--drop", "query", "--label", "grade", "--positive", "3", "--weight", "w", "--n-iter", N_ITER)


def _reworded(func, old: str, new: str):
    """``func`` whose ArgumentRefusal says ``new`` where it said ``old`` (the same exception: its class and
    fields)."""
    def reworded(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ArgumentRefusal as exc:
            assert old in str(exc), str(exc)
            exc.args = (str(exc).replace(old, new),)
            raise
    return reworded


@pytest.fixture(scope="module")
def clicks(tmp_path_factory):
    """Clicks on 20 queries of 6 rows shown at places 0..5: columns query, place, a, b, click."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("argument_refusals") / "clicks.csv"
    lines = ["query,place,a,b,click"]
    for q in range(20):
        for place in rng.permutation(6).tolist():
            a, b = rng.normal(size=2).round(3).tolist()
            click = int(rng.random() < (0.8 if a > 0 else 0.2) / (place + 1) ** 0.5)
            lines.append(f"q{q},{place},{a!r},{b!r},{click}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    """Graded queries with a column w of weights; and the same rows with weight 0 on every row of grade 3."""
    d = tmp_path_factory.mktemp("argument_refusal_weights")
    query, X, _, grade = ranked(0, n_queries=24)
    weight = np.random.default_rng(100).integers(1, 6, size=query.size) / 2
    write(d / "train.csv", query, X, weight, grade, header=WEIGHT_HEADER, aside="w")
    write(d / "no_top.csv", query, X, np.where(grade == 3, 0.0, weight), grade, header=WEIGHT_HEADER, aside="w")
    return d


def test_a_reworded_refusal_of_position_still_names_the_option(clicks, tmp_path, monkeypatch):
    """Before: ``--position place:`` was said only when the library's message started with ``position:``."""
    module = rankcore.objectives._position_effects
    monkeypatch.setattr(module, "require_curvature", _reworded(module.require_curvature, "position: the objective",
                                                               "display positions refused: the objective"))
    status, _, err = run_main("fit", clicks, "--qid", "query", "--position", "place", "--label", "click",
                              "--n-iter", "4", "--loss", "hinge", "--quiet", "-o", tmp_path / "m.json")
    one_line_error(status, err, "--position place: the objective 'push:hinge", "has no curvature, which the position "
                   "effects' Newton steps need")
    assert "display positions refused" not in err


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_a_reworded_refusal_of_the_weights_still_names_the_option_and_its_advice(weighted, tmp_path, monkeypatch,
                                                                                  command):
    """Before: the advice was given only when the library's message started with ``sample_weight:``."""
    base = rankcore.push._boost_base._BaseBoost
    monkeypatch.setattr(base, "_fit_rows", _reworded(base._fit_rows, "sample_weight: the objective",
                                                     "the weights are refused: the objective"))
    options = written_or_shown(command, tmp_path)
    status, _, err = run_main(command, weighted / "train.csv", *ONE_LIST, "--objective", "prec@k-avg:20", "--quiet",
                              *options)
    assert status == 2, err
    assert "--weight w: the objective 'prec@k-avg:20' does not support sample weights; choose another objective, " \
           "or leave out --weight and pass --drop w" in err, err
    assert "the weights are refused" not in err


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_weights_that_leave_a_class_nothing_in_other_words_still_name_the_option(weighted, tmp_path, monkeypatch,
                                                                                 command):
    """Before: the sentence was chosen by the words "positive total weight" in the library's message."""
    push = rankcore.objectives._push.PushObjective
    monkeypatch.setattr(push, "check_target", _reworded(push.check_target, "needs positive total weight",
                                                        "wants weight"))
    options = written_or_shown(command, tmp_path)
    status, _, err = run_main(command, weighted / "no_top.csv", *ONE_LIST, "--quiet", *options)
    assert status == 2, err
    assert "--weight w: the weights of the training rows leave the fit nothing to learn from (" in err, err
    assert "wants weight in both classes" in err                   # the library's sentence, as it says it now
