"""Pickles record the rankcore version that wrote them, and warn (PickleVersionWarning) when another one loads them.

Copies in one process (copy, deepcopy, clone, scikit-learn's meta-estimators) and pickles of this rankcore load
without a word; model files (save_model) are not pickles and do not change.
"""

import copy
import io
import json
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rankcore
import rankcore.base
from rankcore._pickled_versions import VERSION_KEY

EVERY_ESTIMATOR = [
    lambda: rankcore.PushBoost(n_iter=3, random_state=0),
    lambda: rankcore.PushBoost(n_iter=3, learner="trees:max_leaves=4", random_state=0),
    lambda: rankcore.PNormPush(n_iter=3),
    lambda: rankcore.RankBoost(n_iter=3),
    lambda: rankcore.ExactBoost(),
    lambda: rankcore.PerceptronAtK(),
    lambda: rankcore.SGDAtK(),
    lambda: rankcore.KernelRanker(),
    lambda: rankcore.AutoRanker(time_budget=5),
]
IDS = ["push", "push-trees", "pnorm", "rankboost", "exactboost", "perceptron", "sgd", "kernel", "auto"]


def _data(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.integers(0, 2, n)


def _pickled_by(version, model, monkeypatch):
    """``model`` pickled by a rankcore that says it is ``version`` (None: one that recorded no version)."""
    with monkeypatch.context() as patched:
        if version is None:
            patched.setattr(rankcore.base, "stamped", lambda state, cls=None: state)
        else:
            patched.setattr(rankcore, "__version__", version)
        return pickle.dumps(model)


@pytest.mark.parametrize("make", EVERY_ESTIMATOR, ids=IDS)
def test_every_estimator_records_the_version_and_its_copies_load_silently(make):
    X, y = _data()
    for model in (make(), make().fit(X, y)):
        assert model.__getstate__()[VERSION_KEY] == rankcore.__version__
        with warnings.catch_warnings():
            warnings.simplefilter("error", rankcore.PickleVersionWarning)
            loaded = pickle.loads(pickle.dumps(model))
            copies = [copy.copy(loaded), copy.deepcopy(loaded), clone(loaded)]
        for other in (loaded, *copies[:2]):
            assert VERSION_KEY not in vars(other)          # taken out of the state, never an attribute
    if hasattr(model, "decision_function"):
        np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_pickle_of_another_version_warns_with_both_versions(monkeypatch):
    X, y = _data()
    model = rankcore.KernelRanker().fit(X, y)
    data = _pickled_by("0.0.9", model, monkeypatch)
    with pytest.warns(rankcore.PickleVersionWarning, match=r"KernelRanker was pickled by rankcore 0\.0\.9 and is "
                      rf"unpickled under rankcore {rankcore.__version__}") as caught:
        loaded = pickle.loads(data)
    warning = caught[0].message
    assert (warning.estimator_name, warning.original_version, warning.current_version) == (
        "KernelRanker", "0.0.9", rankcore.__version__)
    assert issubclass(rankcore.PickleVersionWarning, UserWarning) and caught[0].filename == __file__
    assert VERSION_KEY not in vars(loaded)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_pickle_that_recorded_no_version_warns(monkeypatch):
    model = rankcore.PushBoost(n_iter=2).fit(*_data())
    data = _pickled_by(None, model, monkeypatch)
    assert VERSION_KEY.encode() not in data
    with pytest.warns(rankcore.PickleVersionWarning, match="recorded no version") as caught:
        pickle.loads(data)
    assert caught[0].message.original_version is None


def test_the_warning_can_be_filtered(monkeypatch):
    data = _pickled_by("0.0.9", rankcore.SGDAtK(), monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=rankcore.PickleVersionWarning)
        assert isinstance(pickle.loads(data), rankcore.SGDAtK)


def test_models_inside_scikit_learn_meta_estimators_load_silently():
    X, y = _data()
    pipe = make_pipeline(StandardScaler(), rankcore.PerceptronAtK()).fit(X, y)
    search = GridSearchCV(rankcore.PushBoost(n_iter=2), {"n_iter": [1, 2]}, cv=2, scoring="roc_auc").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankcore.PickleVersionWarning)
        for meta in (pipe, search, clone(pipe), copy.deepcopy(search)):
            loaded = pickle.loads(pickle.dumps(meta))
    np.testing.assert_array_equal(loaded.decision_function(X), search.decision_function(X))


def test_a_meta_estimator_of_another_version_names_the_rankcore_model(monkeypatch):
    pipe = make_pipeline(StandardScaler(), rankcore.ExactBoost()).fit(*_data())
    data = _pickled_by("0.0.9", pipe, monkeypatch)
    with pytest.warns(rankcore.PickleVersionWarning, match="^ExactBoost was pickled by rankcore 0.0.9"):
        pickle.loads(data)


def test_model_files_do_not_carry_the_pickle_stamp():
    model = rankcore.PushBoost(n_iter=2).fit(*_data())
    fh = io.StringIO()
    rankcore.save_model(model, fh)
    assert VERSION_KEY not in fh.getvalue() and json.loads(fh.getvalue())["rankcore_version"] == rankcore.__version__
    fh.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankcore.PickleVersionWarning)
        assert VERSION_KEY not in vars(rankcore.load_model(fh))


class _HugeInt:
    """A recorded "version" whose str() and repr() raise (as a huge int's do past Python's digit limit)."""

    def __str__(self):
        raise ValueError("no digits")

    __repr__ = __format__ = __str__


class _EqualToAll(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


@pytest.mark.parametrize("recorded, shown", [
    (7, "<int, not a version>"),
    (_HugeInt(), "<_HugeInt, not a version>"),
    (np.array(["0.1.0", "0.2.0"]), "<ndarray, not a version>"),
    ("9" * 1_000_000, repr("9" * 40) + "..."),
    ("9.9.9\nDone: the model loads as it did", repr("9.9.9\nDone: the model loads as it did")),
    (_EqualToAll("9.9.9"), "9.9.9"),
], ids=["int", "unprintable", "array", "huge", "newline", "str-subclass"])
def test_any_recorded_value_warns_with_a_short_message(recorded, shown):
    # a hand-made pickle may hold anything under the key: the warning names it briefly and never fails
    model = rankcore.SGDAtK()
    state = {**model.__getstate__(), VERSION_KEY: recorded}
    with pytest.warns(rankcore.PickleVersionWarning) as caught:
        object.__new__(rankcore.SGDAtK).__setstate__(state)
    assert caught[0].message.original_version == shown
    assert len(str(caught[0].message)) < 500 and shown in str(caught[0].message)


def test_a_state_that_is_not_a_dict_is_refused_by_its_type():
    for state in ((dict(vars(rankcore.SGDAtK())), {}), [("alpha", 1.0)]):
        with pytest.raises(TypeError, match=r"SGDAtK.__setstate__: expected the dict of a pickled estimator's "
                                            rf"attributes, got {type(state).__name__}"):
            object.__new__(rankcore.SGDAtK).__setstate__(state)


class _OwnGetstate(rankcore.PushBoost):
    def __getstate__(self):
        return dict(self.__dict__)


class _OwnReduce(rankcore.PushBoost):
    def __reduce__(self):
        return type(self), (), dict(self.__dict__)


class _OwnSetstate(rankcore.PushBoost):
    def __setstate__(self, state):
        self.__dict__.update(state)


@pytest.mark.parametrize("cls", [_OwnGetstate, _OwnReduce, _OwnSetstate])
def test_subclasses_with_their_own_pickling_copy_silently_and_keep_no_version(cls):
    # their pickles of this very rankcore may leave the version out: its absence says nothing about them
    model = cls(n_iter=2).fit(*_data())
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankcore.PickleVersionWarning)
        copies = [copy.deepcopy(model), pickle.loads(pickle.dumps(model))]
    for other in copies:
        assert VERSION_KEY not in vars(other)
        np.testing.assert_array_equal(other.decision_function(_data()[0]), model.decision_function(_data()[0]))


class _SuperGetstate(rankcore.PushBoost):
    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_scratch", None)
        return state


def test_a_subclass_that_extends_rankcores_getstate_still_warns_of_another_version(monkeypatch):
    data = _pickled_by("0.0.9", _SuperGetstate(n_iter=2), monkeypatch)
    with pytest.warns(rankcore.PickleVersionWarning, match="^_SuperGetstate was pickled by rankcore 0.0.9"):
        pickle.loads(data)
