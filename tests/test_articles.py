"""The indefinite article of a component's name in messages: said as the name is read ("an AUC", "a map")."""

import warnings

import numpy as np
import pytest

import rankcore
from rankcore._argument_refusal import with_article
from rankcore.persistence import model_text
from rankcore.registry import registry

#: Every built-in registered name, spec and class, with the article it is read with (a new name must be added here).
_SAID = {
    "exp": "an", "hinge": "a", "logistic": "a", "sqhinge": "a", "cubic": "a", "identity": "an", "pow": "a",
    "auc": "an", "binary_ndcg@k": "a", "err@k": "an", "height": "a", "hit@k": "a", "ks": "a", "map": "a",
    "map@k": "a", "max_height": "a", "misrank": "a", "mrr": "an", "ndcg@k": "an", "pauc": "a", "pnorm": "a",
    "prec@k": "a", "recall@k": "a", "rmax": "an", "roc": "a", "tpauc": "a", "features": "a", "stumps": "a",
    "thresholds": "a", "trees": "a", "laplacian": "a", "linear": "a", "poly": "a", "rbf": "an", "tanimoto": "a",
    "exactboost": "an", "kernel": "a", "lightgbm": "a", "xgboost": "an",
    "Exponential": "an", "Hinge": "a", "Logistic": "a", "SquaredHinge": "a", "CubicPrice": "a", "Identity": "an",
    "Power": "a", "AUC": "an", "NDCGAtK": "an", "ERR": "an", "Height": "a", "HitAtK": "a", "KS": "a",
    "MeanAveragePrecision": "a", "MeanAveragePrecisionAtK": "a", "MaxHeight": "a", "Misrank": "a",
    "MeanReciprocalRank": "a", "NDCG": "an", "PartialAUC": "a", "PNormRisk": "a", "PrecisionAtK": "a",
    "RecallAtK": "a", "RMax": "an", "ROC": "an", "TwoWayPartialAUC": "a", "Features": "a", "Stumps": "a",
    "Thresholds": "a", "Trees": "a", "Laplacian": "a", "Linear": "a", "Polynomial": "a", "RBF": "an",
    "Tanimoto": "a", "ExactBoostCandidate": "an", "KernelCandidate": "a", "LightGBMCandidate": "a",
    "LinearCandidate": "a", "StumpsCandidate": "a", "TreesCandidate": "a", "XGBoostCandidate": "an",
}


def _registered_names():
    """The built-in registered names, spec and class (a test run's own plugins are left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        reg = registry()
    for family in ("loss", "price", "metric", "learner", "kernel", "candidate"):
        for name in reg.names(family):
            component = reg.get(family, name)
            cls = component if isinstance(component, type) else type(component)
            if cls.__module__.startswith("rankcore."):
                yield name
                yield cls.__name__


def test_every_built_in_registered_name_is_listed():
    names = set(_registered_names())
    assert len(names) > 60 and names <= set(_SAID), names - set(_SAID)


@pytest.mark.parametrize("name", sorted(_SAID))
def test_every_registered_name_gets_the_article_it_is_read_with(name):
    assert with_article(name) == f"{_SAID[name]} {name}"


@pytest.mark.parametrize(("name", "said"), [
    ("XGBRanker", "an XGBRanker"), ("LGBMRanker", "an LGBMRanker"), ("AutoRanker", "an AutoRanker"),
    ("PushBoost", "a PushBoost"), ("rmse", "an rmse"), ("ndcg", "an ndcg"), ("f1", "an f1"), ("k", "a k"),
    ("_Private", "a _Private"), ("", "a "), ("@k", "a @k"),
])
def test_names_outside_the_registry(name, said):
    assert with_article(name) == said


def test_the_refusal_to_save_a_lookalike_of_auc_says_an_auc():
    from rankcore.metrics import AUC

    lookalike = type("AUCLookalike", (AUC,), {})()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    model = rankcore.boost(n_iter=2, scoring=lookalike).fit(X, y)
    with pytest.raises(ValueError, match=r"its spec rebuilds an AUC, another component"):
        model_text(model)
