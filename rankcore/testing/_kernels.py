"""Contract checks for kernels (the ``kernel`` family).

Each check takes a configured :class:`rankcore.Kernel` and a NumPy generator,
uses only the public interface (``with_data``, ``__call__``, ``diagonal``,
``spec``, ``needs_data``) and raises ``AssertionError`` naming the kernel.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CHECKS"]


def _data(rng: np.random.Generator, n: int = 40, d: int = 3) -> np.ndarray:
    X = rng.normal(size=(n, d))
    X[5] = X[4]  # a duplicate row
    X[6] = X[4] + 1e-9  # a near duplicate
    return X


def _fitted(kernel, X):
    fitted = kernel.with_data(X)
    assert not fitted.needs_data, f"kernel {kernel.spec!r}: with_data(X) still needs data ({fitted.spec!r})"
    return fitted


def check_kernel_with_data_resolves(kernel, rng):
    """``with_data`` fixes every data-dependent parameter and its spec resolves to an equal kernel."""
    from ..registry import resolve

    fitted = _fitted(kernel, _data(rng))
    again = resolve("kernel", fitted.spec)
    assert again == fitted, (f"kernel {kernel.spec!r}: the fitted spec {fitted.spec!r} resolves to parameters "
                             f"{again.params!r}, not {fitted.params!r}")


def check_kernel_symmetric_psd(kernel, rng):
    """K(X, X) is exactly symmetric, finite and (if claimed) positive semi-definite."""
    X = _data(rng)
    K = _fitted(kernel, X)(X)
    assert K.shape == (X.shape[0], X.shape[0]), f"kernel {kernel.spec!r}: K(X) has shape {K.shape}"
    assert np.isfinite(K).all(), f"kernel {kernel.spec!r}: K(X) is not finite"
    assert np.array_equal(K, K.T), f"kernel {kernel.spec!r}: K(X, X) is not exactly symmetric"
    if kernel.positive_semidefinite:
        eig = np.linalg.eigvalsh(K)
        tol = 1e-10 * max(1.0, float(np.abs(eig).max()))
        assert eig.min() >= -tol, f"kernel {kernel.spec!r}: K(X) has eigenvalue {eig.min()!r} < 0"


def check_kernel_blocks_consistent(kernel, rng):
    """K(X, Y) equals the matching block of K([X; Y]) and K(Y, X)ᵀ; the diagonal matches."""
    Z = _data(rng, n=30)
    fitted = _fitted(kernel, Z)
    X, Y = Z[:18], Z[18:]
    full = fitted(Z)
    XY = fitted(X, Y)
    YX = fitted(Y, X)
    scale = max(1.0, float(np.abs(full).max()))
    assert XY.shape == (18, 12), f"kernel {kernel.spec!r}: K(X, Y) has shape {XY.shape}"
    assert np.allclose(XY, full[:18, 18:], rtol=1e-10, atol=1e-12 * scale), (
        f"kernel {kernel.spec!r}: K(X, Y) != block of K(Z)")
    assert np.allclose(XY, YX.T, rtol=1e-10, atol=1e-12 * scale), f"kernel {kernel.spec!r}: K(X, Y) != K(Y, X).T"
    diag = fitted.diagonal(Z)
    assert np.allclose(diag, np.diag(full), rtol=1e-10, atol=1e-12 * scale), (
        f"kernel {kernel.spec!r}: diagonal() != diag(K)")


def check_kernel_threads_and_dtypes(kernel, rng):
    """The result does not depend on ``n_threads``, float32/int input or read-only arrays; input is untouched."""
    X = _data(rng)
    fitted = _fitted(kernel, X)
    ref = fitted(X, n_threads=1)
    frozen = X.copy()
    frozen.flags.writeable = False
    assert np.array_equal(fitted(frozen, n_threads=2), ref), f"kernel {kernel.spec!r}: depends on n_threads"
    assert np.array_equal(frozen, X), f"kernel {kernel.spec!r}: modified its input"
    Xi = np.round(X * 3).astype(np.int64)
    assert np.allclose(fitted(Xi), fitted(Xi.astype(np.float64)), rtol=1e-12, atol=0), (
        f"kernel {kernel.spec!r}: int input differs")
    X32 = X.astype(np.float32)
    assert np.isfinite(fitted(X32)).all(), f"kernel {kernel.spec!r}: float32 input fails"


def check_kernel_rejects_bad_input(kernel, rng):
    """NaN rows, 1-D input and a feature-count mismatch raise ValueError."""
    X = _data(rng)
    fitted = _fitted(kernel, X)
    bad = X.copy()
    bad[0, 0] = np.nan
    for args in ((bad,), (X[:, 0],), (X, X[:, :2])):
        try:
            fitted(*args)
        except ValueError:
            continue
        raise AssertionError(f"kernel {kernel.spec!r}: accepted bad input of shapes {[a.shape for a in args]}")


def check_kernel_scale_needs_data(kernel, rng):
    """A kernel that still needs data refuses to compute (rather than guessing which rows set the scale)."""
    if not kernel.needs_data:
        return
    try:
        kernel(_data(rng))
    except ValueError:
        return
    raise AssertionError(f"kernel {kernel.spec!r}: computed a Gram matrix with an unresolved data-dependent parameter")


CHECKS = [
    check_kernel_with_data_resolves,
    check_kernel_symmetric_psd,
    check_kernel_blocks_consistent,
    check_kernel_threads_and_dtypes,
    check_kernel_rejects_bad_input,
    check_kernel_scale_needs_data,
]
