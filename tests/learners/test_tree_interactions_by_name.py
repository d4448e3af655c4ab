"""Interaction constraints by column name (``trees:interactions=age+income/3``): resolved against a DataFrame's
columns at fit, the fitted model and its file holding the indices; clear refusals otherwise."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.learners.trees import Trees
from rankcore.learners.trees._interactions import column_groups, interaction_groups, named_groups
from rankcore.persistence import load_model, save_model
from rankcore.registry import resolve
from rankcore.spec import SpecError

pd = pytest.importorskip("pandas")

pytestmark = pytest.mark.filterwarnings("ignore:interactions=.*in no group:UserWarning")

NAMES = ["age", "income", "height", "weight", "score"]


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, len(NAMES)))
    y = ((X[:, 0] > 0) ^ (X[:, 2] * X[:, 3] > 0.2)).astype(int)
    return pd.DataFrame(X, columns=NAMES), y


def test_names_are_kept_by_the_parameter_in_a_canonical_order():
    assert interaction_groups("income+age/3+height") == "3+height/age+income"     # indices, then names
    assert interaction_groups([["income", 0], ("age",)]) == "0+income/age"
    assert interaction_groups("age/age+income") == "age+income"                   # a contained group goes
    assert resolve("learner", "trees:interactions=income+age").interactions == "age+income"
    assert Trees(interactions=[["age", "income"], [2]]).spec.endswith("interactions=2/age+income")


@pytest.mark.parametrize("bad, said", [
    ("age+-1", "'-1' is not a column index"), ("age+1.5", "'1.5' is not a column index"),
    ("age++income", "a group is empty"), ("age+age", "column 'age' is twice"),
])
def test_malformed_names_are_refused_by_the_spec(bad, said):
    with pytest.raises(SpecError, match="interactions") as caught:
        resolve("learner", f"trees:interactions={bad}")
    assert said in str(caught.value)


def test_a_name_holding_a_separator_is_refused_in_the_python_form():
    with pytest.raises(SpecError, match=r"the column name 'a\+b' holds one of \+ / ,.*give that column's index"):
        Trees(interactions=[["a+b", "c"]])


def test_a_dataframe_fit_by_names_is_the_fit_by_indices():
    frame, y = _frame()
    for by_name in ("trees:interactions=age+income/height+weight", "trees:interactions=income+age/2+weight",
                    Trees(interactions=[["age", "income"], ["height", 3]])):
        model = rankcore.boost(learner=by_name, n_iter=6, random_state=0).fit(frame, y)
        by_index = rankcore.boost(learner="trees:interactions=0+1/2+3", n_iter=6, random_state=0).fit(frame, y)
        assert model.learner_spec_ == by_index.learner_spec_ and model.learner_spec_.endswith("interactions=0+1/2+3")
        np.testing.assert_array_equal(model.decision_function(frame), by_index.decision_function(frame))
        assert all(set(np.asarray(r.feature)[np.asarray(r.left) >= 0].tolist()) <= {0, 1, 2, 3}
                   for r in model.rankers_)


def test_the_model_file_round_trips_with_the_names_given_and_the_indices_fitted(tmp_path):
    frame, y = _frame()
    model = rankcore.boost(learner="trees:interactions=age+income/height", n_iter=6, random_state=0).fit(frame, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.get_params()["learner"] == "trees:interactions=age+income/height"     # as given
    assert loaded.learner_spec_ == model.learner_spec_ and loaded.learner_spec_.endswith("interactions=0+1/2")
    np.testing.assert_array_equal(loaded.decision_function(frame), model.decision_function(frame))
    refit = rankcore.boost(**loaded.get_params()).fit(frame, y)
    np.testing.assert_array_equal(refit.decision_function(frame), model.decision_function(frame))


def test_the_unused_columns_warning_names_them_after_resolution():
    frame, y = _frame()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rankcore.boost(learner="trees:interactions=age+income", n_iter=2, random_state=0).fit(frame, y)
    said = [str(w.message) for w in caught if "in no group" in str(w.message)]
    assert len(said) == 1 and "height (column 2), weight (column 3), score (column 4)" in said[0]


def test_an_unknown_name_lists_the_closest_columns():
    frame, y = _frame()
    with pytest.raises(ValueError, match=r"^interactions: 'incme' is not a column of X \(the closest: 'income'\)"):
        rankcore.boost(learner="trees:interactions=age+incme", n_iter=2).fit(frame, y)
    with pytest.raises(ValueError, match=r"'zzz' is not a column of X \(its columns: 'age', 'income', 'height'"):
        rankcore.boost(learner="trees:interactions=zzz", n_iter=2).fit(frame, y)


def test_names_without_column_names_are_refused():
    frame, y = _frame()
    for X in (frame.to_numpy(), pd.DataFrame(frame.to_numpy())):          # an array; a frame of integer labels
        with pytest.raises(ValueError, match=r"interactions: the columns 'age', 'income' are given by name, but X "
                                             r"has no column names.*give column indices"):
            rankcore.boost(learner="trees:interactions=age+income/2", n_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="given by name, but X has no column names"):
        column_groups("age+1", 5)                 # the learner given an unresolved spec: never read as indices


def test_a_digit_name_of_another_column_is_ambiguous_beside_names():
    frame, y = _frame()
    digits = frame.set_axis(["age", "3", "height", "weight", "score"], axis=1)
    with pytest.raises(ValueError, match=r"interactions: 3 is read as the column index 3, but X also has a column "
                                         r"named '3' \(column 1\).*give every column by its index instead"):
        rankcore.boost(learner="trees:interactions=age+3", n_iter=2).fit(digits, y)
    # by index alone: digits are indices, as before
    model = rankcore.boost(learner="trees:interactions=0+1/3", n_iter=2, random_state=0).fit(digits, y)
    assert model.learner_spec_.endswith("interactions=0+1/3")
    # a digit name at its own index is that index
    in_place = frame.set_axis(["age", "1", "height", "weight", "score"], axis=1)
    assert named_groups("age+1", list(in_place.columns)) == "0+1"


def test_a_column_given_twice_by_name_and_index_is_refused():
    frame, y = _frame()
    with pytest.raises(ValueError, match=r"interactions: column 0 is twice in the group 0\+age \(as 0 and 'age'\)"):
        rankcore.boost(learner="trees:interactions=age+0", n_iter=2).fit(frame, y)


def test_a_continuation_of_a_model_fitted_by_names_takes_the_same_groups_by_index():
    frame, y = _frame()
    first = rankcore.boost(learner="trees:interactions=age+income/height", n_iter=3, random_state=0).fit(frame, y)
    more = rankcore.boost(learner="trees:interactions=0+1/2", n_iter=5, random_state=0)
    more.fit(frame, y, init_model=first)
    assert more.init_iterations_ == 3 and more.learner_spec_ == first.learner_spec_


def test_within_queries_names_resolve_too():
    frame, y = _frame()
    qid = np.repeat(np.arange(30), 10)
    model = rankcore.boost(learner="trees:interactions=age+income/height", n_iter=3,
                           random_state=0).fit(frame, y, qid=qid)
    assert "interactions=0+1/2" in model.learner_spec_


def test_the_learner_parameter_resolved_for_a_fit_without_names():
    from rankcore.push import learner_with_column_names

    names = list(NAMES)
    assert learner_with_column_names("trees:max_leaves=7,interactions=age+income", names) == \
        "trees:max_leaves=7,interactions=0+1"                      # the other arguments as written
    assert learner_with_column_names("trees:interactions=0+1", names) == "trees:interactions=0+1"
    assert learner_with_column_names("stumps", None) == "stumps"
    resolved = learner_with_column_names(Trees(interactions=[["age"], ["score", 2]]), names)
    assert resolved.interactions == "0/2+4"


def test_a_zero_padded_digit_string_is_refused_rather_than_read_as_another_column():
    frame, y = _frame()
    padded = frame.set_axis(["03", "age", "income", "height", "weight"], axis=1)
    # '03' would be the index 3 (height), not the column named '03'
    with pytest.raises(SpecError, match=r"interactions.*'03' has a leading zero: a string of digits is a column "
                                        r"index, written without one \(3\); a column named '03' is given by its index"):
        rankcore.boost(learner="trees:interactions=03+age", n_iter=2).fit(padded, y)
    with pytest.raises(SpecError, match="'00' has a leading zero"):
        Trees(interactions=[["00", "age"]])
    model = rankcore.boost(learner="trees:interactions=0+age", n_iter=2, random_state=0).fit(padded, y)
    assert model.learner_spec_.endswith("interactions=0+1")


@pytest.mark.parametrize("name", ["²", "①", "x²"])
def test_a_name_of_unicode_digits_is_a_name(name):
    frame, y = _frame()
    named = frame.set_axis([name, "b", "c", "d", "e"], axis=1)
    for learner in (Trees(interactions=[[name, "b"]]), f"trees:interactions={name}+b"):
        model = rankcore.boost(learner=learner, n_iter=2, random_state=0).fit(named, y)
        assert model.learner_spec_.endswith("interactions=0+1")


@pytest.mark.parametrize("name", ["none", "None", "NONE"])
def test_a_column_named_none_is_refused_as_it_reads_back_as_no_constraints(name):
    with pytest.raises(SpecError, match=rf"interactions.*the column name '{name}' reads as 'no constraints'.*"
                                        r"give that column's index instead"):
        Trees(interactions=[[name]])
    with pytest.raises(SpecError, match=rf"the column name '{name}' reads as 'no constraints'"):
        resolve("learner", f"trees:interactions=a+{name}")
    assert resolve("learner", "trees:interactions=none").interactions == ""            # the spec's own word


@pytest.mark.parametrize("name", [" a", "a ", "\ta"])
def test_a_python_form_name_with_surrounding_space_is_refused_not_stripped(name):
    with pytest.raises(SpecError, match=r"interactions.*begins or ends with white space, which the text form of "
                                        r"interactions drops: give that column's index instead"):
        Trees(interactions=[[name, "b"]])
    # the text form strips its items as any spec argument
    assert resolve("learner", "trees:interactions= a + b ").interactions == "a+b"


def test_nested_params_of_a_learner_object_reach_grid_search():
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    frame, y = _frame()
    model = rankcore.PushBoost(learner=Trees(max_leaves=7), n_iter=3, random_state=0)
    assert model.get_params()["learner__max_leaves"] == 7 and "learner__max_leaves" not in model.get_params(False)
    model.set_params(learner__interactions="age+income", learner__max_leaves=5)
    assert model.learner == Trees(max_leaves=5, interactions="age+income")
    assert clone(model).learner == model.learner
    search = GridSearchCV(model, {"learner__interactions": ["age+income", "0+1/2"], "learner__max_leaves": [4, 8]},
                          cv=2).fit(frame, y)
    assert search.best_estimator_.learner.max_leaves in (4, 8)
    with pytest.raises(ValueError, match=r"^learner__nope: the learner 'trees' has no parameter 'nope' \(its "
                                         r"parameters: max_leaves, "):
        model.set_params(learner__nope=1)
    with pytest.raises(ValueError, match=r"^learner__max_leaves: learner is the spec string 'trees', which has no "
                                         r"parameters to set one by one: set learner whole"):
        rankcore.PushBoost(learner="trees").set_params(learner__max_leaves=3)
    # the component given in the same call is the one rebuilt
    model.set_params(learner=Trees(max_leaves=9), learner__l2=2.0)
    assert model.learner == Trees(max_leaves=9, l2=2.0)
