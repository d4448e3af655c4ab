"""Command-line loose ends: ``info`` of a folded category column and of integer labels, the "did you mean" hint of
every subcommand, the folding warning of a refused fit, and ``auto --out`` of a choice no model file can hold."""

import json

import numpy as np
import pytest

import rankcore
from rankcore.cli import main
from rankcore.persistence import ModelFormatError, model_from_dict

from _cli_run import run_main
from _model_files import tampered


def _item_csv(path, n=600, levels=300, seed=0, weights=False):
    """A CSV of a text column ``item`` of about ``levels`` levels (more than the trees' 255 bins), a number ``x``
    and an integer label ``y``; ``weights``: a column ``w`` of weight 0 on every relevant row."""
    rng = np.random.default_rng(seed)
    item, x = rng.integers(0, levels, n), rng.normal(size=n)
    y = (x + rng.normal(size=n) > 0).astype(int)
    lines = ["x,item,y" + (",w" if weights else "")]
    lines += [f"{a:.4f},k{b},{c}" + (f",{1 - c}" if weights else "") for a, b, c in zip(x, item, y)]
    path.write_text("\n".join(lines) + "\n")
    return len(set(item.tolist()))


def test_info_says_a_category_column_was_folded_and_how_many_levels_it_kept(tmp_path):
    seen = _item_csv(tmp_path / "d.csv")
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--n-iter", "3", "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.category_levels_seen_ == [None, seen] and len(model.categories_[1]) == 255
    status, out, err = run_main("info", tmp_path / "m.json")
    assert status == 0, err
    assert (f"categories: item (255 most frequent of {seen} categories kept, the other {seen - 255} read as "
            "missing: folded at fit, more than the trees' max_bins)") in out.splitlines(), out
    status, out, err = run_main("info", tmp_path / "m.json", "--json")
    assert status == 0, err
    described = json.loads(out)
    assert described["categorical"] == {"item": 255}
    assert described["folded_categories"] == {"item": {"kept": 255, "seen": seen}}


def test_info_of_a_column_within_the_bins_says_no_folding(tmp_path):
    _item_csv(tmp_path / "d.csv", levels=20)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--n-iter", "3", "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    assert "category_levels_seen" not in json.loads((tmp_path / "m.json").read_text())["state"]
    status, out, err = run_main("info", tmp_path / "m.json", "--json")
    assert status == 0 and "folded_categories" not in json.loads(out), err


def test_a_model_file_s_levels_seen_are_checked(tmp_path):
    _item_csv(tmp_path / "d.csv")
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--n-iter", "2", "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    assert model_from_dict(tampered(model, lambda state: None)).category_levels_seen_ == \
        model.category_levels_seen_                                   # kept as written
    for wrong in ([None, 200], [None, 255], [300], [None, None], [None, True], [400, None], "300"):
        def change(state, wrong=wrong):
            state["category_levels_seen"] = wrong                     # fewer than kept, misplaced, not a count
        with pytest.raises(ModelFormatError, match="category_levels_seen"):
            model_from_dict(tampered(model, change))


def test_info_shows_integer_labels_as_integers(tmp_path):
    _item_csv(tmp_path / "d.csv", levels=5)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--drop", "item", "--n-iter", "2",
                              "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    status, out, err = run_main("info", tmp_path / "m.json")
    assert status == 0, err
    assert "labels: 0, 1; ranked first: 1" in out.splitlines(), out
    status, out, err = run_main("info", tmp_path / "m.json", "--json")
    described = json.loads(out)
    assert described["classes"] == [0, 1] and described["ranked_first"] == 1
    assert all(type(v) is int for v in (*described["classes"], described["ranked_first"]))


def _usage_error(capsys, *argv) -> str:
    """argparse's refusal of ``rankcore ARGV...``: its standard error (exit status 2, nothing on standard output)."""
    with pytest.raises(SystemExit) as exit:
        main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert exit.value.code == 2 and captured.out == ""
    return captured.err


@pytest.mark.parametrize("argv, unknown, meant", [
    (("plugins", "--famil", "price"), "--famil", "--family"),            # its value was read as a subcommand
    (("plugins", "new", "--dri", "x", "price", "quadratic"), "--dri", "--dir"),  # its value as the family
    (("info", "--jsn"), "--jsn", "--json"),                              # MODEL was missing for want of it
])
def test_an_unknown_option_of_any_subcommand_gets_the_hint(capsys, argv, unknown, meant):
    err = _usage_error(capsys, *argv)
    assert f"error: unrecognized arguments: {unknown} (did you mean {meant}?)" in err, err


@pytest.mark.parametrize("argv, said", [
    (("--debug", "--famil", "fit"), "unrecognized arguments: --famil"),
    (("--debug", "--famil", "plugins", "new"), "unrecognized arguments: --famil (did you mean --family?)"),
    (("--debug", "--n-estimators", "5", "fit", "d.csv"),
     "unrecognized arguments: --n-estimators (other libraries' --n-estimators is here --n-iter N)"),
    (("--qiet", "fit"), "unrecognized arguments: --qiet (did you mean --quiet?)"),
    (("--quiet", "fit"), "unrecognized arguments: --quiet (--quiet: an option of fit, given after it)"),
])
def test_an_unknown_option_before_the_subcommand_is_said_before_the_subcommands_complaint(capsys, argv, said):
    # before: `rankcore --debug --famil fit` said only that fit's DATA was missing
    err = _usage_error(capsys, *argv)
    assert f"rankcore: error: {said}\n" in err and "required" not in err, err


def test_an_invalid_command_keeps_argparse_s_message(capsys):
    err = _usage_error(capsys, "fti", "--labe", "y")
    assert "invalid choice: 'fti'" in err and "did you mean" not in err


def test_a_refused_fit_does_not_warn_of_a_fold_it_never_made(tmp_path):
    _item_csv(tmp_path / "d.csv", weights=True)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--weight", "w", "--n-iter", "2", "-o", tmp_path / "m.json", "-q")
    assert status == 2 and "nothing to learn from" in err
    assert "most frequent" not in err and "warning" not in err, err
    # the same fit accepted (no weights): the warning is said, before the saved line
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--drop", "w", "--n-iter", "2", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "the fit keeps the 255 most frequent" in err
    assert err.index("the fit keeps the 255 most frequent") < err.index("saved push")


def test_auto_out_of_a_lightgbm_choice_says_why_and_what_to_do(tmp_path):
    pytest.importorskip("lightgbm")
    _item_csv(tmp_path / "d.csv", n=200, levels=5)
    status, out, err = run_main("auto", tmp_path / "d.csv", "--label", "y", "--drop", "item", "--candidates",
                                "lightgbm", "--cv", "2", "-o", tmp_path / "a.json", "-q")
    assert status == 2 and "lightgbm" in out                # the leaderboard is printed
    assert "the chosen candidate 'lightgbm' holds a lightgbm model, which a rankcore model file cannot hold" in err
    assert "nothing was written" in err and "--candidates" in err and "_RawScores" not in err, err
    assert not (tmp_path / "a.json").exists()


def test_a_refused_continuation_does_not_warn_of_categories_it_never_read(tmp_path):
    _item_csv(tmp_path / "a.csv", levels=20)
    _item_csv(tmp_path / "b.csv", levels=30, seed=1, weights=True)        # levels 20 to 29: not in the model
    status, _, err = run_main("fit", tmp_path / "a.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--n-iter", "2", "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    continued = ("fit", tmp_path / "b.csv", "--label", "y", "--categorical", "item", "--learner", "trees",
                 "--n-iter", "2", "--init-model", tmp_path / "m.json", "-o", tmp_path / "c.json", "-q")
    status, _, err = run_main(*continued, "--weight", "w")
    assert status == 2 and "nothing to learn from" in err and "warning" not in err, err
    status, _, err = run_main(*continued, "--drop", "w")
    assert status == 0 and "the model " in err and "does not list" in err, err


def test_a_continuation_of_a_folded_model_still_says_the_fold(tmp_path):
    # the continuation keeps the init model's 255 categories: the levels folded then are still read as missing
    seen = _item_csv(tmp_path / "d.csv")
    _item_csv(tmp_path / "e.csv", seed=1)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--n-iter", "2", "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "e.csv", "--label", "y", "--categorical", "item", "--learner",
                              "trees", "--n-iter", "2", "--init-model", tmp_path / "m.json", "-o", tmp_path / "c.json",
                              "-q")
    assert status == 0, err
    assert rankcore.load_model(tmp_path / "c.json").category_levels_seen_ == [None, seen]
    status, out, err = run_main("info", tmp_path / "c.json", "--json")
    assert status == 0, err
    assert json.loads(out)["folded_categories"] == {"item": {"kept": 255, "seen": seen}}


def test_a_reader_gone_early_still_gets_the_fold_warning_on_stderr(tmp_path):
    # `rankcore compare ... | head`: the table's reader went away, but the fits were accepted and folded a column
    import os
    import subprocess
    import sys

    _item_csv(tmp_path / "d.csv", n=1000, levels=800)
    read, write = os.pipe()
    os.close(read)                          # the first write to standard output fails with a broken pipe
    try:
        done = subprocess.run([sys.executable, "-c", "import sys; from rankcore.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "compare", str(tmp_path / "d.csv"), "--label", "y",
                               "--categorical", "item", "--learner", "trees", "--n-iter", "2", "--no-plots", "-q"],
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert "rankcore: warning: X: column 'item' holds" in done.stderr and "most frequent" in done.stderr, done.stderr


def test_a_command_in_another_thread_does_not_clear_this_commands_held_warnings(tmp_path, capsys):
    # before: the held warnings were one list of the process, which every main() cleared as it started
    import threading

    from rankcore import cli
    from rankcore._categories import CategoryFoldWarning

    token = cli._HELD.set([])           # as main() does for the command of this thread
    try:
        cli._show_warning("column c folded", CategoryFoldWarning, "f.py", 1)
        other = threading.Thread(target=main, args=(["info", str(tmp_path / "missing.json")],))
        other.start()
        other.join()
        capsys.readouterr()
        cli.release_held_warnings()
        assert capsys.readouterr().err == "rankcore: warning: column c folded\n"
    finally:
        cli._HELD.reset(token)
    # outside a command nothing is held: said at once
    cli._show_warning("column d folded", CategoryFoldWarning, "f.py", 1)
    assert capsys.readouterr().err == "rankcore: warning: column d folded\n"
