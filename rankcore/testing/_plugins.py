"""Checks of a plugin's component beyond its family's contract: found by name, used by a model.

:func:`rankcore.testing.plugin_checks` adds them to the contract checks of
every example spec, so that a plugin package's whole test is one
parametrized test (``rankcore plugins new`` writes exactly that).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PLUGIN_CHECKS", "check_plugin_found_by_name", "check_plugin_used_by_name"]

def _estimator(rankcore, spec):
    from ..registry import resolve

    return resolve("estimator", spec)


#: How a model uses each family's component by name (a spec string).
_MODELS = {
    "loss": lambda rankcore, spec: rankcore.boost(loss=spec, n_iter=30, random_state=0),
    "price": lambda rankcore, spec: rankcore.boost(price=spec, n_iter=30, random_state=0),
    "learner": lambda rankcore, spec: rankcore.boost(learner=spec, n_iter=30, random_state=0),
    "objective": lambda rankcore, spec: rankcore.boost(objective=spec, learner="stumps", n_iter=30, random_state=0),
    "metric": lambda rankcore, spec: rankcore.ExactBoost(metric=spec, n_runs=5, n_rounds=10, random_state=0),
    "filter": lambda rankcore, spec: rankcore.KernelRanker(filter=spec, lam=1e-2),
    "kernel": lambda rankcore, spec: rankcore.KernelRanker(kernel=spec, lam=1e-2),
    "estimator": _estimator,     # an estimator is the model
    # a candidate alone, on data above AutoRanker's small-data rule (120 rows), with a single split
    "candidate": lambda rankcore, spec: rankcore.AutoRanker(candidates=[spec], cv=0.3, random_state=0),
}


def check_plugin_found_by_name(component, rng):
    """The registry maps the component's name to its class, provided by the distribution of its package."""
    from importlib import metadata

    from ..registry import registry

    cls = type(component)
    entry = registry().entry(component.family, cls.name)
    assert entry.cls is cls, f"{component.family} {cls.name!r}: the registry has {entry.cls!r}, not {cls!r}"
    package = cls.__module__.split(".")[0]
    dists = metadata.packages_distributions().get(package, [])
    assert entry.distribution.split(" ")[0] in dists or not dists, (
        f"{component.family} {cls.name!r}: provided by {entry.distribution!r}, expected one of {dists} "
        f"(the distribution of {package!r}); is another plugin registering the same name?")


def check_plugin_used_by_name(component, rng):
    """A model built with the component's spec fits a small problem and scores it with finite numbers.

    A metric is used by ExactBoost when it is monotone and by ``rankcore.evaluate``
    either way; the other families drive a boosted or kernel model, which must
    also rank the training rows better than chance (AUC > 0.6).
    """
    import rankcore
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=300, n_features=6, weights=[0.8], random_state=0)
    owner = f"{component.family} {component.spec!r}"
    if component.family == "metric":
        value = rankcore.evaluate(y, X[:, 0], [component.spec])[component.spec]
        assert value is not None, f"{owner}: rankcore.evaluate gave None"
        if not (getattr(component, "monotone", False) and getattr(component, "scalar", True)):
            return
    model = _MODELS[component.family](rankcore, component.spec).fit(X, y)
    scores = model.decision_function(X)
    assert np.isfinite(scores).all(), f"{owner}: the model's scores are not finite"
    if component.family != "metric":
        auc = rankcore.evaluate(y, scores, ["auc"])["auc"]
        assert auc > 0.6, f"{owner}: the model ranks its training rows no better than chance (AUC {auc:.3f})"


PLUGIN_CHECKS = [check_plugin_found_by_name, check_plugin_used_by_name]
