"""``rankcore._vector.dot``: the fits' dot products without BLAS, against plain Python references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankcore._vector import dot


def dot_in_documented_order(a, b) -> float:
    """The four running sums over i mod 4, then (s0 + s1) + (s2 + s3), in plain Python floats."""
    sums = [0.0, 0.0, 0.0, 0.0]
    for i, (x, y) in enumerate(zip(a, b)):
        sums[i % 4] = sums[i % 4] + float(x) * float(y)
    return (sums[0] + sums[1]) + (sums[2] + sums[3])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1000, 20_001])
def test_dot_is_the_documented_sum_bit_for_bit(n):
    rng = np.random.default_rng(n)
    # ties and repeated values, signs, zeros
    a = rng.choice([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0], size=n) * rng.random(n).round(1)
    b = rng.standard_normal(n)
    assert dot(a, b) == dot_in_documented_order(a, b)
    assert dot(a, b) == pytest.approx(math.fsum(a * b), abs=1e-12 * max(1.0, float(np.abs(a * b).sum())))


def test_dot_returns_a_float_and_zero_for_empty_vectors():
    assert dot([], []) == 0.0
    assert isinstance(dot(np.arange(3.0), np.arange(3.0)), float)
    assert dot([1, 2, 3], [4, 5, 6]) == 32.0       # integers are converted


def test_dot_reads_strided_and_other_dtype_input():
    a = np.arange(20.0)[::2]
    b = np.arange(10, dtype=np.float32)
    assert dot(a, b) == dot_in_documented_order(a, b)


def test_dot_propagates_nan_and_inf():
    assert math.isnan(dot([1.0, np.nan, 2.0], [1.0, 1.0, 1.0]))
    assert dot([1.0, np.inf], [1.0, 2.0]) == math.inf
    assert math.isnan(dot([np.inf, -np.inf], [1.0, 1.0]))


@pytest.mark.parametrize("a, b", [(np.ones(3), np.ones(4)), (np.ones((2, 2)), np.ones((2, 2))), (1.0, 1.0)])
def test_dot_refuses_vectors_of_other_shapes(a, b):
    with pytest.raises(ValueError, match="dot: expected two 1-D vectors of the same length"):
        dot(a, b)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 40), elements=st.floats(-1e6, 1e6, allow_nan=False)))
def test_dot_of_a_vector_with_itself_is_its_squared_norm(x):
    # an invariant: within rounding, Σ x_i² = ‖x‖², never negative
    value = dot(x, x)
    assert value >= 0.0
    assert value == pytest.approx(math.fsum(x * x), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("fit_kwargs", [
    {"learner": "trees", "qid": True},                                    # the per-query default's set-up
    {"learner": "trees:line_search=true", "qid": True},                   # the per-query push's line
    {"learner": "stumps", "qid": False, "loss": "logistic", "price": "pow:4"},   # the pairwise push's line
    {"learner": "trees:line_search=true", "qid": False, "objective": "mp-squared"},  # mp-squared's sums
])
def test_fits_reach_no_blas_dot(monkeypatch, fit_kwargs):
    # NumPy's dot hands long vectors to a threaded BLAS whose threads then spin on the other cores: the
    # objectives' row sums go through rankcore._vector.dot instead.  Any np.dot left in a fit's path fails here.
    import rankcore

    def refuse(*args, **kwargs):
        raise AssertionError("np.dot was called during a fit")

    for name in ("dot", "vdot", "inner"):
        monkeypatch.setattr(np, name, refuse)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 4))
    qid = np.repeat(np.arange(20), 20)
    kwargs = dict(fit_kwargs)
    with_qid = kwargs.pop("qid")
    y = rng.integers(0, 3, 400) if with_qid else (X[:, 0] + rng.standard_normal(400) > 0).astype(int)
    model = rankcore.boost(n_iter=5, n_jobs=1, random_state=0, **kwargs)
    model.fit(X, y, **({"qid": qid} if with_qid else {}))
    assert np.isfinite(model.decision_function(X)).all()
