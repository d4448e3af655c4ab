"""Contract checks for spectral filters (the ``filter`` family).

Each check takes a configured :class:`rankcore.Filter` and a NumPy generator,
uses only the public interface (``__call__``, ``at_zero``, ``path``, ``spec``)
and raises ``AssertionError`` with a message naming the filter.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CHECKS"]

_LAMS = (1.0, 0.3, 1e-2, 1e-4, 1e-8)
_NORM = 1.0


def _spectrum(rng: np.random.Generator) -> np.ndarray:
    """Eigenvalues as kernel matrices have them: exact zeros, tiny values, a spread up to the norm.

    (No subnormals: kernel ranking flushes eigenvalues below 1e-290 to 0
    before filtering, so a filter need not handle them.)
    """
    tiny = np.array([0.0, 1e-300, 1e-200, 1e-30, 1e-17, 1e-12])
    spread = np.sort(10.0 ** rng.uniform(-16, 0, size=60))
    return np.concatenate([tiny, spread, [_NORM]])


def check_filter_finite_nonnegative(flt, rng):
    """g_λ(t) is finite and ≥ 0 for every t in [0, ‖A‖], zeros and subnormals included."""
    t = _spectrum(rng)
    for lam in _LAMS:
        g = flt(t, lam, norm=_NORM)
        assert g.shape == t.shape, f"filter {flt.spec!r}: shape {g.shape} for {t.shape} eigenvalues"
        assert np.isfinite(g).all(), (
            f"filter {flt.spec!r}: non-finite values at lam={lam} for t={t[~np.isfinite(g)][:3]}")
        assert (g >= 0).all(), f"filter {flt.spec!r}: negative values at lam={lam}"


def check_filter_limit_at_zero(flt, rng):
    """g_λ(0) is the finite limit: tiny t give (to rounding) the same value."""
    for lam in _LAMS:
        g0 = flt.at_zero(lam, norm=_NORM)
        assert np.isfinite(g0), f"filter {flt.spec!r}: g(0) is not finite at lam={lam}"
        t = np.array([1e-300, 1e-200, 1e-100, 1e-13 * lam])
        g = flt(t, lam, norm=_NORM)
        scale = max(abs(g0), 1.0 / lam)
        assert np.all(np.abs(g - g0) <= 1e-9 * scale), (
            f"filter {flt.spec!r}: g(t) does not tend to g(0) = {g0!r} at lam={lam}: "
            f"got {g.tolist()} for t={t.tolist()}"
        )


def check_filter_residual_bounded(flt, rng):
    """0 ≤ t·g_λ(t) ≤ 1: the residual 1 − t g_λ(t) lies in [0, 1] (docs/theory/kernel_ranking.md#filters)."""
    t = _spectrum(rng)
    for lam in _LAMS:
        tg = t * flt(t, lam, norm=_NORM)
        assert (tg >= -1e-12).all() and (tg <= 1 + 1e-9).all(), (
            f"filter {flt.spec!r}: t*g(t) outside [0, 1] at lam={lam}: range [{tg.min()!r}, {tg.max()!r}]"
        )


def check_filter_converges_to_inverse(flt, rng):
    """A regularization: for fixed t > 0, t·g_λ(t) → 1 as λ → 0."""
    t = np.array([1e-3, 0.05, 0.5, 1.0]) * _NORM
    tg = t * flt(t, 1e-9, norm=_NORM)
    assert np.all(np.abs(1.0 - tg) < 1e-3), (
        f"filter {flt.spec!r}: t*g(t) should tend to 1 as lam -> 0; at lam=1e-9 got {tg.tolist()} for t={t.tolist()}"
    )


def check_filter_regularizes(flt, rng):
    """g_λ depends on λ: the eigenvalues below a large λ are damped more than below a small one.

    A filter that ignores λ (g(t) = 1/t, the plain inverse) passes the other checks and regularizes nothing.
    """
    t = _spectrum(rng)
    t = t[t > 0]
    strong, weak = flt(t, _LAMS[0], norm=_NORM), flt(t, _LAMS[-1], norm=_NORM)
    assert np.any(t * strong < t * weak - 1e-12), (
        f"filter {flt.spec!r}: t*g(t) is the same at lam = {_LAMS[0]!r} as at lam = {_LAMS[-1]!r}; a "
        "regularization damps the eigenvalues below lam more as lam grows (does g depend on lam?)")


def check_filter_elementwise(flt, rng):
    """Evaluating an array equals evaluating each element; ``path`` equals stacked calls; the input is untouched."""
    t = _spectrum(rng)
    lams = np.array(_LAMS)
    frozen = t.copy()
    frozen.flags.writeable = False  # read-only input must be accepted
    whole = flt(frozen, 0.01, norm=_NORM)
    single = np.array([flt(np.array([v]), 0.01, norm=_NORM)[0] for v in t])
    assert np.array_equal(whole, single), f"filter {flt.spec!r}: array and element-wise evaluation differ"
    path = flt.path(frozen, lams, norm=_NORM)
    assert path.shape == (lams.size, t.size), f"filter {flt.spec!r}: path shape {path.shape}"
    for i, lam in enumerate(lams):
        assert np.array_equal(path[i], flt(t, lam, norm=_NORM)), (
            f"filter {flt.spec!r}: path row {i} differs from a call")
    assert np.array_equal(frozen, t), f"filter {flt.spec!r}: the eigenvalues were modified"


def check_filter_rejects_bad_input(flt, rng):
    """λ ≤ 0, NaN λ, negative or NaN eigenvalues, 2-D t: ValueError naming the problem."""
    t = np.array([0.0, 0.5])
    for bad_lam in (0.0, -1.0, float("nan"), float("inf")):
        try:
            flt(t, bad_lam)
        except ValueError as exc:
            assert "lam" in str(exc), f"filter {flt.spec!r}: the error for lam={bad_lam} does not name lam: {exc}"
        else:
            raise AssertionError(f"filter {flt.spec!r}: lam={bad_lam} was accepted")
    for bad_t in (np.array([-0.1, 0.5]), np.array([np.nan]), np.zeros((2, 2))):
        try:
            flt(bad_t, 0.1)
        except ValueError:
            pass
        else:
            raise AssertionError(f"filter {flt.spec!r}: eigenvalues {bad_t.tolist()} were accepted")


def check_filter_spec_roundtrip(flt, rng):
    """The canonical spec resolves to an equal filter."""
    from ..registry import resolve

    again = resolve("filter", flt.spec)
    assert again == flt, (f"filter {flt.spec!r}: resolving its spec gives parameters {again.params!r}, "
                        f"not {flt.params!r}")


def check_filter_dense_application(flt, rng):
    """Applied through an eigendecomposition, the filter regularizes: c = U g(Σ) Uᵀ b is finite and
    ‖A c − b‖ shrinks as λ decreases towards the smallest nonzero eigenvalue (for b in the range of A)."""
    n = 12
    B = rng.normal(size=(n, n))
    A = B @ B.T / n
    t, U = np.linalg.eigh(A)
    t = np.maximum(t, 0.0)
    b = A @ rng.normal(size=n)
    norm = float(t.max())
    residuals = []
    for lam in (1.0, 1e-1, 1e-2, 1e-4, 1e-6):
        c = U @ (flt(t, lam * norm, norm=norm) * (U.T @ b))
        assert np.isfinite(c).all(), f"filter {flt.spec!r}: non-finite coefficients at lam={lam * norm}"
        residuals.append(np.linalg.norm(A @ c - b))
    assert residuals[-1] <= 1e-2 * np.linalg.norm(b) + 1e-12, (
        f"filter {flt.spec!r}: the residual does not vanish as lam -> 0: {residuals}"
    )


CHECKS = [
    check_filter_finite_nonnegative,
    check_filter_limit_at_zero,
    check_filter_residual_bounded,
    check_filter_converges_to_inverse,
    check_filter_regularizes,
    check_filter_elementwise,
    check_filter_rejects_bad_input,
    check_filter_spec_roundtrip,
    check_filter_dense_application,
]
