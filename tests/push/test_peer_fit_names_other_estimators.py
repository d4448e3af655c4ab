"""Other libraries' fit arguments given to the estimators outside the push family: a TypeError naming what the
estimator takes, or saying it has no counterpart, never a hint it would refuse.

(Before, ExactBoost, KernelRanker, SGDAtK, PerceptronAtK and DaskExactBoost gave Python's bare "fit() got an
unexpected keyword argument 'cat_features'", AutoRanker's hint for xgb_model named init_model, which it refuses,
and DaskAutoRanker's for eval_group named eval_set, which it refuses.)
"""

import inspect
import re

import numpy as np
import pytest

import rankcore
from rankcore._peer_names import PEER_FIT_NAMES, names_in_hint

X = np.random.default_rng(0).normal(size=(20, 2))
Y = np.arange(20) % 2


def one_list_estimators():
    dask = pytest.importorskip("rankcore.dask")
    return [rankcore.ExactBoost, rankcore.KernelRanker, rankcore.SGDAtK, rankcore.PerceptronAtK, dask.DaskExactBoost]


@pytest.mark.parametrize("name", sorted(PEER_FIT_NAMES))
def test_one_list_estimators_name_no_argument_they_refuse(name):
    for cls in one_list_estimators():
        with pytest.raises(TypeError, match=rf"^{name}: {cls.__name__}\.fit takes no argument '{name}'; other "
                                            rf"libraries' {name} is here ") as caught:
            cls().fit(X, Y, **{name: 1})
        message = str(caught.value)
        # qid/group are refused (one list), and init_score, init_model, eval_metric, categorical_features absent
        for word in ("qid=", "init_model=", "init_score=", "categorical_features=", "n_iter_no_change=",
                     "rankcore.boost(...)"):
            assert word not in message, (cls.__name__, message)


@pytest.mark.parametrize("cls_name", ["ExactBoost", "SGDAtK", "PerceptronAtK", "KernelRanker"])
def test_cat_features_has_no_counterpart_and_fit_keeps_its_signature(cls_name):
    cls = getattr(rankcore, cls_name)
    with pytest.raises(TypeError, match=re.escape(f"cat_features is here without a counterpart in {cls_name} "
                                                  "(categorical_features, which rankcore's would need")):
        cls().fit(X, Y, cat_features=[0])
    assert "qid" in inspect.signature(cls.fit).parameters       # scikit-learn's metadata routing reads it
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):   # not a peer's: Python's own
        cls().fit(X, Y, colour=1)


def test_autoranker_hint_for_xgb_model_names_nothing_it_refuses():
    with pytest.raises(TypeError, match=r"xgb_model is here without a counterpart in AutoRanker") as caught:
        rankcore.AutoRanker().fit(X, Y, xgb_model=1)
    assert "init_model=" not in str(caught.value)
    # what it takes is still named
    with pytest.raises(TypeError, match=re.escape("base_margin is here fit(X, y, init_score=...)")):
        rankcore.AutoRanker().fit(X, Y, base_margin=1)


def test_dask_autoranker_hint_for_eval_group_names_nothing_it_refuses():
    dask = pytest.importorskip("rankcore.dask")
    for name in ("eval_group", "group_id", "base_margin", "xgb_model"):
        with pytest.raises(TypeError, match=rf"{name} is here without a counterpart in DaskAutoRanker"):
            dask.DaskAutoRanker().fit(X, Y, **{name: 1})
    with pytest.raises(TypeError, match=r"verbose is here a parameter of DaskAutoRanker\(\.\.\.\): verbose=1"):
        dask.DaskAutoRanker().fit(X, Y, verbose=1)


def test_push_hints_name_only_what_the_push_takes():
    """Every name a push hint sends the user to is a fit argument or a parameter of PushBoost (so none is
    reported missing for it)."""
    takes = set(inspect.signature(rankcore.PushBoost.fit).parameters) | set(rankcore.PushBoost().get_params())
    for name, entry in PEER_FIT_NAMES.items():
        assert set(names_in_hint(entry)) <= takes | {"learner"}, name


def test_estimators_without_weights_refuse_sample_weight_by_name_and_keep_their_signatures():
    # Python's bare "fit() got an unexpected keyword argument 'sample_weight'" said neither that the estimator takes
    # no weights nor which does; the signature stays without it (AutoRanker and the command line read it)
    from rankcore.cli._weights import takes_sample_weight
    from sklearn.utils.validation import has_fit_parameter

    w = np.ones(Y.shape[0])
    for cls in one_list_estimators():
        where = "DaskPushBoost" if cls.__name__.startswith("Dask") else r"rankcore\.boost"
        with pytest.raises(TypeError, match=rf"^sample_weight: {cls.__name__}\.fit takes no sample weights .*"
                                            rf"{where}\(\.\.\.\)\.fit\(X, y, sample_weight=w\)"):
            cls().fit(X, Y, sample_weight=w)
        assert "sample_weight" not in inspect.signature(cls.fit).parameters
        assert not has_fit_parameter(cls(), "sample_weight") and not takes_sample_weight(cls)
    for cls in (rankcore.SGDAtK, rankcore.PerceptronAtK):
        with pytest.raises(TypeError, match=rf"^sample_weight: {cls.__name__}\.partial_fit takes no sample weights"):
            cls().partial_fit(X, Y, classes=[0, 1], sample_weight=w)
        assert list(inspect.signature(cls.partial_fit).parameters) == ["self", "X", "y", "classes"]
    assert takes_sample_weight(type(rankcore.boost())) and has_fit_parameter(rankcore.boost(), "sample_weight")
