"""Contract checks of the ``loss`` family (see :class:`rankcore.Loss`)."""

from __future__ import annotations

import numpy as np

from ._common import assert_finite, spec_round_trip_check

__all__ = ["CHECKS", "pairwise_reference"]


def _call(func, x):
    x = np.array(x, dtype=np.float64)
    x.setflags(write=False)
    out = np.asarray(func(x), dtype=np.float64)
    assert out.shape == x.shape, f"{func.__qualname__}: output shape {out.shape} != input shape {x.shape}"
    return out


def check_loss_shapes_and_types(loss, rng):
    """Vectorized over any shape, float64 output, input untouched."""
    for shape in [(0,), (5,), (2, 3)]:
        z = rng.normal(size=shape)
        _call(loss.value, z)
        _call(loss.derivative, z)
        if loss.has_second_derivative:
            _call(loss.second_derivative, z)


def check_loss_shape(loss, rng):
    """ℓ ≥ 0, ℓ ≥ 1 on z ≤ 0 (an upper bound of 1[z ≤ 0]), non-increasing, convex."""
    z = np.linspace(-20.0, 20.0, 401)
    v = _call(loss.value, z)
    assert_finite(v, owner=f"loss {loss.spec!r}", what="ℓ", at=z, at_name="z")
    assert_finite(_call(loss.derivative, z), owner=f"loss {loss.spec!r}", what="ℓ'", at=z, at_name="z")
    assert np.all(v >= 0), f"loss {loss.spec!r}: negative values"
    assert np.all(v[z <= 0] >= 1.0 - 1e-12), (
        f"loss {loss.spec!r}: ℓ(z) < 1 for some z <= 0 (not an upper bound of 1[z <= 0])")
    assert np.all(np.diff(v) <= 1e-12 * np.maximum(1, np.abs(v[1:]))), f"loss {loss.spec!r}: ℓ increases"
    assert np.all(_call(loss.derivative, z) <= 0), f"loss {loss.spec!r}: ℓ' > 0 somewhere"
    mid = 0.5 * (v[:-2] + v[2:])
    assert np.all(v[1:-1] <= mid + 1e-9 * np.maximum(1, np.abs(mid))), f"loss {loss.spec!r}: not convex"


def check_loss_derivatives(loss, rng):
    """ℓ′ (and ℓ″ if given) agree with central finite differences at random points."""
    # near 0, where the pairs are decided, and far out on both sides (a loss wrong only beyond |z| = 5 is wrong)
    z = np.r_[rng.uniform(-4, 4, 40), -np.geomspace(5.0, 30.0, 8), np.geomspace(5.0, 30.0, 8)]
    z = z[np.abs(z - 1.0) > 1e-3]           # keep away from the hinge kink
    h = 1e-6 * np.maximum(1.0, np.abs(z))
    for name in ("value", "derivative") + (("second_derivative",) if loss.has_second_derivative else ()):
        assert_finite(_call(getattr(loss, name), z), owner=f"loss {loss.spec!r}", what=name, at=z, at_name="z")
    fd = (_call(loss.value, z + h) - _call(loss.value, z - h)) / (2 * h)
    np.testing.assert_allclose(_call(loss.derivative, z), fd, rtol=1e-5, atol=1e-7,
                               err_msg=f"loss {loss.spec!r}: ℓ' vs finite differences")
    if loss.has_second_derivative:
        fd2 = (_call(loss.derivative, z + h) - _call(loss.derivative, z - h)) / (2 * h)
        np.testing.assert_allclose(_call(loss.second_derivative, z), fd2, rtol=1e-4, atol=1e-6,
                                   err_msg=f"loss {loss.spec!r}: ℓ'' vs finite differences")


def check_loss_exponential_rate(loss, rng):
    """If ``exponential_rate`` is r, then ℓ(z) = exp(−r z)."""
    rate = loss.exponential_rate
    if rate is None:
        return
    z = rng.uniform(-5, 5, 50)
    np.testing.assert_allclose(_call(loss.value, z), np.exp(-rate * z), rtol=1e-12,
                               err_msg=f"loss {loss.spec!r}: exponential_rate={rate} is wrong")


def pairwise_reference(loss, f_pos, w_pos, f_neg, c_neg, h_pos, h_neg):
    """The three pairwise sums by forming every pair (test reference only: O(I·K) memory)."""
    z = f_pos[None, :] - f_neg[:, None]                     # (K, I)
    delta = h_pos[None, :] - h_neg[:, None]
    v, d1 = loss.value(z), loss.derivative(z)
    L = (w_pos * v).sum(axis=1)
    D = (w_pos * d1).sum(axis=1)
    E = (c_neg[:, None] * d1).sum(axis=0)
    L1 = (w_pos * d1 * delta).sum(axis=1)
    L2 = (w_pos * loss.second_derivative(z) * delta ** 2).sum(axis=1) if loss.has_second_derivative else None
    return L, D, E, L1, L2


def _random_scores(rng):
    I, K = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    f_pos = rng.normal(0, 1.5, I)
    f_neg = rng.normal(0, 1.5, K)
    # ties inside and across classes, and pairs exactly at the hinge kink z = 1
    f_pos[: I // 3] = np.round(f_pos[: I // 3], 1)
    f_neg[: K // 3] = np.round(f_neg[: K // 3], 1)
    if I > 1 and K > 1:
        f_pos[-1] = f_neg[-1] + 1.0
        f_neg[0] = f_pos[0]
    return f_pos, f_neg


def check_loss_pairwise_sums(loss, rng):
    """negative_sums, positive_sums, directional_sums agree with explicit pairs (1 and 2 threads)."""
    for trial in range(4):
        f_pos, f_neg = _random_scores(rng)
        I, K = f_pos.size, f_neg.size
        w_pos = rng.uniform(0.2, 2.0, I)
        c_neg = rng.uniform(0.0, 2.0, K)
        h_pos, h_neg = rng.uniform(0, 1, I), rng.uniform(0, 1, K)
        L, D, E, L1, L2 = pairwise_reference(loss, f_pos, w_pos, f_neg, c_neg, h_pos, h_neg)
        for n_threads in (1, 2):
            got_L, got_D = loss.negative_sums(f_pos, w_pos, f_neg, n_threads=n_threads)
            got_E = loss.positive_sums(f_pos, f_neg, c_neg, n_threads=n_threads)
            got = loss.directional_sums(f_pos, w_pos, h_pos, f_neg, h_neg, n_threads=n_threads)
            for name, a, b in [("L", got_L, L), ("D", got_D, D), ("E", got_E, E), ("directional L", got[0], L),
                               ("directional L1", got[1], L1)]:
                scale = np.maximum(1.0, np.abs(b))
                assert np.asarray(a).shape == b.shape, f"loss {loss.spec!r}: {name} has shape {np.shape(a)}"
                assert np.all(np.abs(a - b) <= 1e-9 * scale), (
                    f"loss {loss.spec!r}: pairwise sum {name} differs from the explicit pairs "
                    f"(max abs error {np.max(np.abs(a - b)):.3g}, n_threads={n_threads})")
            if L2 is not None:
                assert np.all(np.abs(got[2] - L2) <= 1e-9 * np.maximum(1.0, np.abs(L2))), (
                    f"loss {loss.spec!r}: directional L2 differs from the explicit pairs")
            else:
                assert np.isnan(got[2]).all(), f"loss {loss.spec!r}: L2 must be NaN without a second derivative"


def check_loss_curvature_sums(loss, rng):
    """curvature_sums agrees with explicit pairs (1 and 2 threads), for losses with a second derivative."""
    if not loss.has_second_derivative:
        return
    for trial in range(4):
        f_pos, f_neg = _random_scores(rng)
        I, K = f_pos.size, f_neg.size
        w_pos = rng.uniform(0.2, 2.0, I)
        c1, c2 = rng.uniform(0.0, 2.0, K), rng.uniform(0.0, 2.0, K)
        z = f_pos[None, :] - f_neg[:, None]                     # (K, I)
        d1, d2 = loss.derivative(z), loss.second_derivative(z)
        P = (w_pos[None, :] * c2[:, None] * d1 * d1 + c1[:, None] * d2).sum(axis=0)
        N = (w_pos[None, :] * d2).sum(axis=1)
        for n_threads in (1, 2):
            got_P, got_N = loss.curvature_sums(f_pos, w_pos, f_neg, c1, c2, n_threads=n_threads)
            for name, a, b in (("P", got_P, P), ("N", got_N, N)):
                assert np.asarray(a).shape == b.shape, (
                    f"loss {loss.spec!r}: curvature sum {name} has shape {np.shape(a)}")
                assert np.all(np.abs(a - b) <= 1e-9 * np.maximum(1.0, np.abs(b))), (
                    f"loss {loss.spec!r}: curvature sum {name} differs from the explicit pairs "
                    f"(max abs error {np.max(np.abs(a - b)):.3g}, n_threads={n_threads})")


def check_loss_inputs_untouched(loss, rng):
    """The pairwise sums do not modify their inputs (read-only arrays accepted)."""
    f_pos, f_neg = rng.normal(size=5), rng.normal(size=7)
    w, c, hp, hn = np.ones(5), np.ones(7), rng.uniform(size=5), rng.uniform(size=7)
    for a in (f_pos, f_neg, w, c, hp, hn):
        a.setflags(write=False)
    loss.negative_sums(f_pos, w, f_neg)
    loss.positive_sums(f_pos, f_neg, c)
    loss.directional_sums(f_pos, w, hp, f_neg, hn)


check_loss_spec_round_trip = spec_round_trip_check("loss")


CHECKS = [
    check_loss_shapes_and_types,
    check_loss_shape,
    check_loss_derivatives,
    check_loss_exponential_rate,
    check_loss_pairwise_sums,
    check_loss_curvature_sums,
    check_loss_inputs_untouched,
    check_loss_spec_round_trip,
]
