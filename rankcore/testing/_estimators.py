"""Contract checks of the estimator family (``rankcore.base.Ranker`` subclasses, built-in or a plugin's).

Each check takes a configured estimator (from its spec, e.g.
``"ExactBoost:n_runs=3,n_rounds=4"``) and a random generator.  They check
what the base class promises: a constructor scikit-learn can clone, declared
parameters with docs and a validation that names them, a fit that publishes
only declared fitted attributes, finite scores, a model file that loads to
the same scores, and -- for an iterative estimator -- a training curve and
callbacks that can stop the fit.
"""

from __future__ import annotations

import inspect

import numpy as np

__all__ = ["CHECKS"]


def _data(estimator, rng: np.random.Generator, n: int = 80):
    X = rng.normal(size=(n, 4))
    signal = X[:, 0] - 0.5 * X[:, 1] + 0.5 * rng.normal(size=n)
    y = (signal > np.quantile(signal, 0.7)).astype(np.int64)
    return X, (signal if estimator._task() == "graded" else y)


def _fitted(estimator, X, y, **fit_params):
    """``estimator.fit(X, y)``, which must return the estimator (scikit-learn's contract)."""
    returned = estimator.fit(X, y, **fit_params)
    assert returned is estimator, (f"{type(estimator).__name__}.fit must return self, returned "
                                   f"{type(returned).__name__}")
    return estimator


def check_estimator_parameters_declared(estimator, rng):
    """Every constructor argument is a declared, documented, keyword-only parameter; clone keeps them."""
    from sklearn.base import clone

    cls = type(estimator)
    signature = inspect.signature(cls.__init__)
    names = [p.name for p in signature.parameters.values() if p.name != "self"]
    assert names == [p.name for p in cls.parameters], f"{cls.__name__}: the signature is not the declaration"
    positional = [p.name for p in signature.parameters.values() if p.name != "self" and p.kind is not p.KEYWORD_ONLY]
    assert not positional, f"{cls.__name__}: parameters not keyword-only: {positional}"
    undocumented = [p.name for p in cls.parameters if not (p.doc or "").strip()]
    assert not undocumented, f"{cls.__name__}: parameters without doc: {undocumented}"
    assert "Parameters\n" in (cls.__doc__ or ""), f"{cls.__name__}: no Parameters section in the docstring"
    copy = clone(estimator)
    assert copy.get_params(deep=False).keys() == estimator.get_params(deep=False).keys(), (
        f"{cls.__name__}: clone changes the parameters' names")
    estimator._check_params()


def check_estimator_refuses_bad_parameters_by_name(estimator, rng):
    """A value of the wrong type for a number parameter is refused at fit, naming the parameter."""
    from sklearn.base import clone

    numeric = [p for p in type(estimator).parameters if p.kind in (int, float)]
    if not numeric:
        return
    param = numeric[0]
    bad = clone(estimator).set_params(**{param.name: "not a number"})
    X, y = _data(estimator, rng)
    try:
        bad.fit(X, y)
    except (TypeError, ValueError) as exc:
        assert str(exc).startswith(f"{param.name}: expected"), f"the error does not name {param.name}: {exc}"
    else:
        raise AssertionError(f"{type(estimator).__name__}({param.name}='not a number') was accepted")


def check_estimator_fits_and_scores(estimator, rng):
    """A fit publishes only declared fitted attributes; the scores are finite, one per row."""
    from sklearn.base import clone

    X, y = _data(estimator, rng)
    model = _fitted(clone(estimator), X, y)
    declared = type(model)._fitted_names
    stray = [k for k in vars(model) if k.endswith("_") and not k.startswith("_") and k not in declared]
    assert not stray, f"{type(model).__name__}: undeclared fitted attributes {stray}"
    scores = np.asarray(model.decision_function(X))
    name = type(model).__name__
    assert scores.shape == (X.shape[0],), (f"{name}: decision_function must give one score per row, shape "
                                           f"({X.shape[0]},), got shape {scores.shape}")
    bad = np.flatnonzero(~np.isfinite(scores))
    assert bad.size == 0, (f"{name}: decision_function gives {float(scores[bad[0]])!r} at row {int(bad[0])} "
                           f"({bad.size} in all)")


def check_estimator_saves_and_loads(estimator, rng):
    """A registered estimator's model file loads to the same parameters and the same scores, bit for bit."""
    from sklearn.base import clone

    from ..persistence import model_from_dict, model_to_dict

    X, y = _data(estimator, rng)
    model = _fitted(clone(estimator), X, y)
    try:
        data = model_to_dict(model)
    except TypeError as exc:           # e.g. a callable kernel: no spec string to save
        if "cannot be saved" in str(exc):
            return
        raise
    loaded = model_from_dict(data)
    assert type(loaded) is type(model), f"{type(model).__name__}: its model file loads as a {type(loaded).__name__}"
    np.testing.assert_array_equal(np.asarray(loaded.decision_function(X)), np.asarray(model.decision_function(X)))


def check_estimator_training_curve_and_callbacks(estimator, rng):
    """An iterative estimator records its curve; callbacks see every iteration and can stop the fit."""
    from sklearn.base import clone

    from ..base import IterationInfo

    if type(estimator).iteration_parameter is None:
        return
    X, y = _data(estimator, rng)
    seen = []
    model = _fitted(clone(estimator), X, y, callbacks=[seen.append])
    name = type(model).__name__
    curve = model.training_curve_
    assert curve.iterations.shape == curve.objective.shape and curve.iterations.ndim == 1, (
        f"{name}: training_curve_ iterations {curve.iterations.shape} and objective {curve.objective.shape} must be "
        "1-D of one length")
    assert np.isfinite(curve.objective).all(), f"{name}: training_curve_.objective is not finite"
    assert seen, f"{name}: fit(callbacks=...) called no callback"
    assert all(isinstance(info, IterationInfo) for info in seen), f"{name}: callbacks got no IterationInfo"
    assert [info.iteration for info in seen] == list(range(1, len(seen) + 1)), (
        f"{name}: callbacks saw iterations {[info.iteration for info in seen]}, expected 1, 2, ...")
    stopped = []

    def stop_at_first(info):
        stopped.append(info.iteration)
        return True

    clone(estimator).fit(X, y, callbacks=stop_at_first)
    assert stopped == [1], f"{type(estimator).__name__}: a truthy callback did not stop the fit ({stopped})"


CHECKS = [
    check_estimator_parameters_declared,
    check_estimator_refuses_bad_parameters_by_name,
    check_estimator_fits_and_scores,
    check_estimator_saves_and_loads,
    check_estimator_training_curve_and_callbacks,
]
