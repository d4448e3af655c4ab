"""The command line names the columns a refusal of ``monotone`` or ``interactions`` is about by the file's names
(``ConstraintRefusal.columns``, counted after ``--drop`` and the label), lists the feature columns in order when it
is about none, and says a value that cannot be read (``ConstraintSpecError``, a SpecError) with that order too, once
the file's columns are read and before any fit."""

import pytest

import rankcore.learners.trees._interactions
from _cli_run import one_line_error, run_main, written_or_shown
from _people_rows import ORDER, write_people


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """200 rows of age, income, city, height, weight and a 0/1 label."""
    return write_people(tmp_path_factory.mktemp("constraint_columns") / "people.csv", 200, seed=3)


def _run(command, rows, tmp_path, learner):
    options = written_or_shown(command, tmp_path)
    return run_main(command, rows, "--learner", learner, "--drop", "city", *options, "-q")


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_a_constrained_categorical_column_is_named_by_the_files_name(rows, tmp_path, command):
    """Before: ``...; the signs follow the feature columns in order: age, income, height, weight``: index 1 left to
    be counted (after --drop city)."""
    status, _, err = _run(command, rows, tmp_path, "trees:monotone=0/1/0/0,categorical=1")
    label = "" if command == "fit" else "push: "
    one_line_error(status, err, f"rankcore: error: {label}learner 'trees': monotone constrains the categorical "
                                "columns [1]; their categories have no order to be monotone in (set their sign to 0, "
                                "or pass the columns as numbers); that is column 'income' (index 1) of the feature "
                                "columns")
    assert "in order" not in err


def test_a_column_given_twice_by_name_and_index_is_named(rows, tmp_path):
    """Before: the whole order was listed after ``column 2 is twice in the group 2+height``."""
    status, _, err = _run("fit", rows, tmp_path, "trees:interactions=height+2")
    one_line_error(status, err, "rankcore: error: interactions: column 2 is twice in the group 2+height (as 2 and "
                                "'height'); that is column 'height' (index 2) of the feature columns")


def test_several_columns_are_named_each(rows, tmp_path):
    """A refusal about two columns (a digit name that is another column's index) names both."""
    renamed = tmp_path / "digits.csv"
    text = rows.read_text().splitlines()
    renamed.write_text("\n".join(["age,2,city,height,weight,label"] + text[1:]) + "\n")
    status, _, err = _run("fit", renamed, tmp_path, "trees:interactions=2+age")
    one_line_error(status, err, "rankcore: error: interactions: 2 is read as the column index 2, but X also has a "
                                "column named '2' (column 1)", "; those are columns '2' (index 1) and 'height' "
                                "(index 2) of the feature columns")


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_a_count_of_signs_still_lists_the_columns_in_order(rows, tmp_path, command):
    """A refusal about no column keeps the order list (4 signs for 5 columns before --drop: 3 given here)."""
    status, _, err = _run(command, rows, tmp_path, "trees:monotone=1/0/-1")
    one_line_error(status, err, "got 3 ('1/0/-1'); the signs follow the feature columns in order: " + ORDER)


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_a_monotone_value_that_holds_no_sign_gets_the_columns_order(rows, tmp_path, command):
    """Before: ``--learner 'trees:monotone=1/2/0/0': learner 'trees': monotone must be ... ('2' is not a sign (-1,
    0 or 1))``, said before the file was read, with no word of the columns the signs follow."""
    status, _, err = _run(command, rows, tmp_path, "trees:monotone=1/2/0/0")
    one_line_error(status, err, "rankcore: error: --learner 'trees:monotone=1/2/0/0': learner 'trees': monotone must "
                                "be signs per column of X such as 1/0/-1 (each -1, 0 or 1), got '1/2/0/0' ('2' is not "
                                f"a sign (-1, 0 or 1)); the signs follow the feature columns in order: {ORDER}")


def test_an_interaction_value_that_cannot_be_read_gets_the_columns(rows, tmp_path):
    status, _, err = _run("fit", rows, tmp_path, "trees:interactions=0++1")
    one_line_error(status, err, "got '0++1' (a group is empty (two separators in a row, or one at an end)); the "
                                f"indices count the feature columns in order from 0: {ORDER} (a column may also be "
                                "given by its name)")
    status, _, err = _run("fit", rows, tmp_path, "trees:interactions=3+1+3")
    one_line_error(status, err, "(column 3 is twice in the group 3+1+3); that is column 'weight' (index 3) of the "
                                "feature columns")


def test_an_unreadable_value_is_chosen_by_its_class_not_its_words(rows, tmp_path, monkeypatch):
    """The parse error reworded where it is made: the command line still adds the columns' order."""
    groups = rankcore.learners.trees._interactions._column_item

    def reworded(p):
        try:
            return groups(p)
        except ValueError as exc:
            exc.args = (str(exc).replace("a group is empty", "nothing between the separators"),)
            raise

    monkeypatch.setattr(rankcore.learners.trees._interactions, "_column_item", reworded)
    status, _, err = _run("fit", rows, tmp_path, "trees:interactions=0++1")
    one_line_error(status, err, "(nothing between the separators (two separators in a row, or one at an end)); the "
                                f"indices count the feature columns in order from 0: {ORDER}")


def test_an_unreadable_value_is_said_before_any_fit_and_before_other_checks_of_the_models(rows, tmp_path):
    """Said once the columns are known: with another unreadable option (an unknown objective) that one is said
    first, before the file is read, as before."""
    status, _, err = run_main("fit", rows, "--learner", "trees:monotone=1/2", "--objective", "nosuch", "--drop",
                              "city", "-o", tmp_path / "m.json", "-q")
    one_line_error(status, err, "--objective 'nosuch'")
    assert not (tmp_path / "m.json").exists()


#: The refusal of ``trees:monotone=1/2`` as ``--learner`` says it, with or without the columns' order after it.
UNREAD = ("rankcore: error: --learner 'trees:monotone=1/2': learner 'trees': monotone must be signs per column of X "
          "such as 1/0/-1 (each -1, 0 or 1), got '1/2' ('2' is not a sign (-1, 0 or 1))")


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_an_unreadable_value_still_wins_over_a_training_file_that_cannot_be_read(tmp_path, command):
    """Before: ``rankcore: error: .../missing.csv: no such file``: deferring the refusal until the columns were
    read let the reader's error win, where the value's own refusal was said first (and is said alone here)."""
    status, _, err = _run(command, tmp_path / "missing.csv", tmp_path, "trees:monotone=1/2")
    one_line_error(status, err, UNREAD)
    assert "no such file" not in err and "in order" not in err


@pytest.mark.parametrize("command, options", [("fit", ("--eval-metric", "auc")),
                                              ("fit", ("--init-model", "no_model.json")),
                                              ("compare", ("--model", "push,kernel", "--weight", "age"))])
def test_an_unreadable_value_wins_over_the_checks_made_before_reading_as_before(rows, tmp_path, command, options):
    """Before: ``--eval-metric: needs --validation DATA ...``, ``--init-model: cannot read the model file ...``,
    ``--weight age: kernel (KernelRanker) cannot weigh rows ...``: the checks of the other options ran first once
    the refusal waited for the columns."""
    options = [str(tmp_path / o) if o.endswith(".json") else o for o in options]
    output = ("-o", tmp_path / "m.json") if command == "fit" else ("--no-plots",)
    status, _, err = run_main(command, rows, "--learner", "trees:monotone=1/2", "--drop", "city", *options, *output,
                              "-q")
    one_line_error(status, err, UNREAD)


def test_an_unreadable_value_is_said_with_no_warning_before_it(rows, tmp_path):
    """Before: ``rankcore: warning: --validation ... is the training file ... itself`` was printed first."""
    status, _, err = run_main("fit", rows, "--learner", "trees:monotone=1/2", "--drop", "city", "--validation", rows,
                              "-o", tmp_path / "m.json", "-q")
    one_line_error(status, err, UNREAD + f"; the signs follow the feature columns in order: {ORDER}")


@pytest.mark.parametrize("command, options", [("fit", ("--n-iter", "0")),
                                              ("compare", ("--model", "push", "--model", "push:objective=nosuch"))])
def test_an_unreadable_value_wins_over_the_options_checked_after_it_as_before(rows, tmp_path, command, options):
    """The options of a model are checked in order, and the models in order: before, ``--n-iter: ...`` (an option
    after --learner) or ``--objective 'nosuch': ...`` (a later model's) was said instead, once the refusal waited."""
    output = ("-o", tmp_path / "m.json") if command == "fit" else ("--no-plots",)
    status, _, err = run_main(command, rows, "--learner", "trees:monotone=1/2", "--drop", "city", *options, *output,
                              "-q")
    one_line_error(status, err, UNREAD + f"; the signs follow the feature columns in order: {ORDER}")
