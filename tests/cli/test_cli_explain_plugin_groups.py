"""A learner plugin whose ``contributions`` (or ``interaction_values``) takes no ``groups``: a clear TypeError
naming the learner, read from the method's signature; a TypeError of the plugin's own code passes as it is."""

import numpy as np
import pandas as pd
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from _old_trees import OldTrees
from _plugin_registration import components_registered
from rankcore.learners.trees._learner import Trees


class FailingTrees(Trees):
    """A plugin's trees that take groups but whose own code raises a TypeError."""

    name = "failing-trees"
    aliases = ()

    @staticmethod
    def contributions(rankers, alphas, X, n_threads=1, background=None, **options):
        raise TypeError("the plugin's own bug")


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] + X[:, 1] + rng.normal(size=80) > 0).astype(int)
    return X, y


@pytest.fixture
def plugins():
    with components_registered("rankcore_register_learners", [OldTrees, FailingTrees], "groups-test-learners"):
        yield


def test_a_learner_without_groups_gets_a_clear_type_error(plugins):
    X, y = _data()
    model = rankcore.PushBoost(learner="old-trees:max_leaves=4", n_iter=4, random_state=0).fit(X, y)
    # without groups the plugin serves as before: the same values as the built-in trees
    reference = rankcore.PushBoost(learner="trees:max_leaves=4", n_iter=4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.feature_contributions(X[:5], background=X[:20]),
                                  reference.feature_contributions(X[:5], background=X[:20]))
    for method, name in ((model.feature_contributions, "contributions"),
                         (model.feature_interactions, "interaction_values")):
        with pytest.raises(TypeError) as info:
            method(X[:5], background=X[:20], groups=[0, 0, 1, 2])
        text = str(info.value)
        assert text.startswith(f"feature_{'contributions' if name == 'contributions' else 'interactions'}: groups: "
                               "the learner 'old-trees")
        assert f"OldTrees, from a plugin) has a method {name} that takes no groups" in text
        assert "leave out groups" in text
    # the grouped values of the built-in trees need the groups parameter the plugin lacks
    assert reference.feature_contributions(X[:5], background=X[:20], groups=[0, 0, 1, 2]).shape == (5, 4)


def test_a_type_error_inside_the_plugin_is_not_swallowed(plugins):
    X, y = _data(1)
    model = rankcore.PushBoost(learner="failing-trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="^the plugin's own bug$"):
        model.feature_contributions(X[:5], background=X[:20], groups=[0, 0, 1, 2])


def test_explain_groups_names_the_plugin_in_one_line(plugins, tmp_path):
    X, y = _data(2)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=y)
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run_main("fit", tmp_path / "d.csv", "--learner", "old-trees:max_leaves=4", "--n-iter", "4",
                              "--quiet", "--out", tmp_path / "m.json")
    assert status == 0, err
    args = ("explain", tmp_path / "m.json", tmp_path / "d.csv", "--background", tmp_path / "d.csv")
    status, out, err = run_main(*args)
    assert status == 0, err
    for extra in ((), ("--interactions",)):
        status, _, err = run_main(*args, "--groups", "a+b", *extra)
        one_line_error(status, err, f"--groups: the model {tmp_path / 'm.json'}", "the learner 'old-trees",
                       "takes no groups", "without --groups it explains each column alone")


def _refusal(method, caller="feature_interactions"):
    from rankcore._background import check_takes_groups

    with pytest.raises(TypeError) as info:
        check_takes_groups(method, OldTrees(), "old-trees", caller)
    return str(info.value)


def test_the_refusal_names_the_method_the_caller_reads_whatever_the_callable():
    """A functools.partial, a callable object or an alias has no (or another) __name__: the message names the
    learner's method the caller reads, and shows a ``*args`` as such."""
    import functools

    def values(rankers, alphas, X, n_threads=1, max_bytes=None, background=None):
        return None

    class Callable:
        def __call__(self, rankers, alphas, X, n_threads=1, background=None):
            return None

    def anything(*args):
        return None

    for method in (functools.partial(values, None), Callable(), values):
        text = _refusal(method)
        assert "has a method interaction_values that takes no groups (its parameters: " in text, text
        assert "give the plugin's interaction_values a groups parameter" in text
    assert "has a method contributions" in _refusal(Callable(), "feature_contributions")
    assert "(its parameters: *args)" in _refusal(anything)


def test_a_positional_only_groups_is_refused_saying_so():
    def values(rankers, alphas, X, n_threads=1, max_bytes=None, background=None, groups=None, /):
        return None

    text = _refusal(values)
    assert "takes no groups by name (its groups is positional-only) (its parameters: rankers, alphas, X, n_threads, " \
           "max_bytes, background, groups)" in text


@pytest.mark.parametrize("method", ["keywords", "groups", "partial", "unreadable"])
def test_methods_that_take_groups_by_name_or_cannot_be_read_are_called(method):
    import functools

    from rankcore._background import check_takes_groups

    def keywords(rankers, alphas, X, n_threads=1, **options):
        return None

    def groups(rankers, alphas, X, n_threads=1, background=None, *, groups=None):
        return None

    given = {"keywords": keywords, "groups": groups, "partial": functools.partial(groups, None, None),
             "unreadable": min}[method]         # min: a C function whose signature inspect cannot read
    check_takes_groups(given, OldTrees(), "old-trees", "feature_contributions")
