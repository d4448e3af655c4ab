"""Contract checks for AutoRanker's candidates (the ``candidate`` family).

Each check takes a configured :class:`rankcore.auto.Candidate` and a NumPy
generator, uses only the public interface (the declarations, ``skip_reason``,
``build``, ``scores``) on small data, and raises ``AssertionError`` naming the
candidate.  A candidate that does not apply to the check data (its
``skip_reason`` says why, e.g. an optional package that is not installed) is
checked for its declarations only.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["CHECKS"]


def _data(rng: np.random.Generator, n: int = 80, d: int = 4, nan: bool = False):
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.4).astype(np.int8)
    y[:3], y[3:6] = 1, 0                        # both classes, whatever the draw
    if nan:
        X[rng.random(size=X.shape) < 0.1] = np.nan
    return X, y


def _context(candidate, X, y, seed=0):
    from ..auto import make_context

    return make_context("pauc:0.1", X, y, seed, 1)


def _fit_scores(candidate, X, y, seed=0):
    """Fit as AutoRanker does (behind the imputer when X has NaN the candidate refuses) and score X."""
    from ..auto import build_estimator

    estimator = build_estimator(candidate, _context(candidate, X, y, seed), bool(np.isnan(X).any()))
    estimator.fit(X, y)
    return estimator, np.asarray(candidate.scores(estimator, X), dtype=np.float64)


def check_candidate_declarations(candidate, rng):
    """The declarations AutoRanker reads have the documented types, and the default specs resolve."""
    from ..registry import resolve

    name = candidate.spec
    assert isinstance(candidate.accepts_missing, bool), f"candidate {name!r}: accepts_missing must be a bool"
    assert isinstance(candidate.impute_missing, bool), f"candidate {name!r}: impute_missing must be a bool"
    assert isinstance(candidate.savable, bool), f"candidate {name!r}: savable must be a bool"
    for attribute in ("max_rows", "max_features"):
        value = getattr(candidate, attribute)
        assert value is None or (isinstance(value, numbers.Integral) and value >= 1), \
            f"candidate {name!r}: {attribute} must be None or a positive integer, got {value!r}"
    cost = candidate.relative_cost
    assert isinstance(cost, numbers.Real) and math.isfinite(cost) and cost > 0, \
        f"candidate {name!r}: relative_cost must be a positive number, got {cost!r}"
    assert isinstance(candidate.priority, numbers.Integral), f"candidate {name!r}: priority must be an integer"
    for spec in type(candidate).default_search_specs():
        resolved = resolve("candidate", spec)
        assert type(resolved) is type(candidate), f"candidate {name!r}: default spec {spec!r} is another class"
    small = type(candidate).small_data_specs
    assert isinstance(small, tuple), f"candidate {name!r}: small_data_specs must be a tuple of spec strings"
    for spec in small:
        assert type(resolve("candidate", spec)) is type(candidate), \
            f"candidate {name!r}: small-data spec {spec!r} is another class"
    assert resolve("candidate", candidate.spec) == candidate, f"candidate {name!r}: its spec does not round-trip"


def check_candidate_fits_and_scores(candidate, rng):
    """``build`` gives an estimator that fits (X, y in {0, 1}) and scores every row with a finite number."""
    X, y = _data(rng)
    if candidate.skip_reason(_context(candidate, X, y)) is not None:
        return
    _, scores = _fit_scores(candidate, X, y)
    assert scores.shape == (X.shape[0],), f"candidate {candidate.spec!r}: scores of shape {scores.shape}"
    assert np.isfinite(scores).all(), f"candidate {candidate.spec!r}: non-finite scores"


def check_candidate_deterministic(candidate, rng):
    """The same data and seed give the same scores (AutoRanker's search is repeatable)."""
    X, y = _data(rng)
    if candidate.skip_reason(_context(candidate, X, y)) is not None:
        return
    first = _fit_scores(candidate, X, y, seed=7)[1]
    second = _fit_scores(candidate, X, y, seed=7)[1]
    np.testing.assert_allclose(first, second, rtol=1e-9, atol=0,
                               err_msg=f"candidate {candidate.spec!r}: two fits with one seed differ")


def check_candidate_missing_values(candidate, rng):
    """On data with NaN a candidate fits and scores rows with NaN: itself when it declares
    ``accepts_missing``, else behind AutoRanker's imputer; one that sets ``impute_missing = False`` is
    skipped.  Its saved model (imputer included) scores the same."""
    from dataclasses import replace

    X, y = _data(rng, nan=True)
    context = _context(candidate, X, y)
    reason = candidate.skip_reason(context)
    if not (candidate.accepts_missing or candidate.impute_missing):
        assert reason is not None, f"candidate {candidate.spec!r}: refuses NaN but is not skipped on data with NaN"
        return
    if reason is not None or candidate.skip_reason(replace(context, has_missing=False)) is not None:
        return
    estimator, scores = _fit_scores(candidate, X, y)
    assert np.isfinite(scores).all(), f"candidate {candidate.spec!r}: non-finite scores on rows with NaN"
    if candidate.savable:
        _check_restored(candidate, estimator, X, scores)


def _check_restored(candidate, estimator, X, scores):
    from ..auto import decode_fitted, encode_fitted
    from ..persistence import _decode, _encode

    record = _decode(_encode(encode_fitted(estimator, candidate.spec), "best"), "best")
    restored = decode_fitted(record, X.shape[1])
    np.testing.assert_allclose(np.asarray(candidate.scores(restored, X)), scores, rtol=1e-12,
                               err_msg=f"candidate {candidate.spec!r}: the saved model scores differently")


def check_candidate_savable(candidate, rng):
    """A candidate declaring ``savable`` fits an estimator that AutoRanker's model file saves and restores."""
    X, y = _data(rng)
    if not candidate.savable or candidate.skip_reason(_context(candidate, X, y)) is not None:
        return
    estimator, scores = _fit_scores(candidate, X, y)
    _check_restored(candidate, estimator, X, scores)


def check_candidate_sample_weight(candidate, rng):
    """On a weighted fit a candidate is skipped for taking no weights (``takes_sample_weight`` is False), or its
    estimator fits with the rows' weights as AutoRanker passes them: weights of ones score as no weights."""
    from dataclasses import replace

    from ..auto import NO_SAMPLE_WEIGHT, build_estimator, fit_estimator

    X, y = _data(rng)
    context = _context(candidate, X, y)
    if candidate.skip_reason(context) is not None:
        return
    weighted = replace(context, weighted=True)
    takes = candidate.takes_sample_weight(weighted)
    assert isinstance(takes, (bool, np.bool_)), f"candidate {candidate.spec!r}: takes_sample_weight must be a bool"
    reason = candidate.skip_reason(weighted)
    if not takes:
        assert reason == NO_SAMPLE_WEIGHT, f"candidate {candidate.spec!r}: takes no weights but is not skipped"
        return
    assert reason is None, f"candidate {candidate.spec!r}: takes weights but is skipped on a weighted fit ({reason})"
    estimator = build_estimator(candidate, weighted, False)
    fit_estimator(estimator, X, y, sample_weight=np.ones(X.shape[0]))
    _, unweighted = _fit_scores(candidate, X, y)
    np.testing.assert_allclose(np.asarray(candidate.scores(estimator, X), dtype=np.float64), unweighted, rtol=1e-9,
                               err_msg=f"candidate {candidate.spec!r}: weights of ones score unlike no weights")


CHECKS = [
    check_candidate_declarations,
    check_candidate_fits_and_scores,
    check_candidate_deterministic,
    check_candidate_missing_values,
    check_candidate_savable,
    check_candidate_sample_weight,
]
