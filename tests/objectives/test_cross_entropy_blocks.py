"""Cross-entropy on blocks of rows (its Dask form) against the in-memory binding, on random splits of the rows."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rankcore.objectives import RowBlock
from rankcore.registry import resolve


def _case(seed, n=200):
    rng = np.random.default_rng(seed)
    y = rng.random(n)
    y[:20] = np.round(y[:20])                       # hard labels among the soft ones
    w = rng.integers(0, 4, n).astype(np.float64)     # ties and zero weights
    f = rng.normal(scale=3.0, size=n)
    f[20:30] = 0.0
    f[30] = 40.0                                     # a saturated score
    h = rng.normal(size=n)
    return y, w, f, h


def _blocks(y, w, f, cuts):
    bounds = np.r_[0, np.asarray(cuts, dtype=np.int64), y.shape[0]].astype(np.int64)
    return [RowBlock(y[a:b], w[a:b], f[a:b]) for a, b in zip(bounds[:-1], bounds[1:])], bounds


@pytest.mark.parametrize("seed", range(4))
def test_blocks_give_the_in_memory_value_gradient_curvature_and_line(seed):
    objective = resolve("objective", "cross-entropy")
    y, w, f, h = _case(seed)
    whole = objective.bind(y, w)
    cuts = np.sort(np.random.default_rng(seed + 10).choice(np.arange(1, y.shape[0]), 3, replace=False))
    blocks, bounds = _blocks(y, w, f, cuts)
    form = objective.bind_blocks()
    G = [form.merge_partials(0, [form.block_partials(0, b, []) for b in blocks])]
    value, grad, hess = whole.value_gradient_hessian(f)
    assert form.finish(G).value == pytest.approx(value, rel=1e-12)
    pieces = [form.block_gradient_hessian(b, G) for b in blocks]
    np.testing.assert_allclose(np.concatenate([p[0] for p in pieces]), grad, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(np.concatenate([p[1] for p in pieces]), hess, rtol=1e-12)
    np.testing.assert_allclose(np.concatenate([form.block_gradient(b, G) for b in blocks]), grad, rtol=1e-12,
                               atol=1e-300)
    for alpha in (0.0, 0.3, -1.7):
        parts = [form.block_partials(0, b, [], h[a:c], alpha) for b, a, c in zip(blocks, bounds[:-1], bounds[1:])]
        point = form.finish([form.merge_partials(0, parts)], with_direction=True)
        expected = whole.line(f, h)(alpha)
        assert (point.value, point.d1, point.d2) == pytest.approx((expected.value, expected.d1, expected.d2),
                                                                  rel=1e-11, abs=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_any_split_merges_to_the_same_value(seed, pieces):
    y, w, f, _ = _case(seed, n=60)
    form = resolve("objective", "cross-entropy").bind_blocks()
    cuts = np.sort(np.random.default_rng(seed).choice(np.arange(1, 60), pieces - 1, replace=False))
    one = form.finish([form.block_partials(0, _blocks(y, w, f, [])[0][0], [])]).value
    merged = form.merge_partials(0, [form.block_partials(0, b, []) for b in _blocks(y, w, f, cuts)[0]])
    assert form.finish([merged]).value == pytest.approx(one, rel=1e-12)
    assert form.separable and form.has_hessian


def test_no_weight_gives_a_zero_line_point_not_nan():
    form = resolve("objective", "cross-entropy").bind_blocks()
    point = form.finish([np.zeros(4)], with_direction=True)
    assert (point.value, point.d1, point.d2) == (0.0, 0.0, 0.0)
