"""The built-in kernels: ``rbf``, ``laplacian``, ``poly``, ``linear``, ``tanimoto``.

Length scales follow docs/theory/kernel_ranking.md#kernels: ``gamma`` *divides*.

=========== ============================================ ===============================
kernel      K(x, x')                                     scikit-learn equivalent
=========== ============================================ ===============================
rbf         exp(−‖x − x'‖² / γ)                          ``rbf`` with gamma = 1/γ
laplacian   exp(−‖x − x'‖₁ / γ)                          ``laplacian`` with gamma = 1/γ
poly        (⟨x, x'⟩ / γ + coef0)^degree                 ``poly`` with gamma = 1/γ
linear      ⟨x, x'⟩                                      ``linear``
tanimoto    ⟨x, x'⟩ / (‖x‖² + ‖x'‖² − ⟨x, x'⟩)           none (fingerprints; Jaccard on 0/1)
=========== ============================================ ===============================

``gamma="scale"`` (the default) is fixed from the training rows by
:meth:`Kernel.with_data`: γ = n_features · Var(X) for ``rbf`` and ``poly``
(the typical size of ‖x − x'‖²/2 and of ⟨x, x'⟩; scikit-learn's SVC
``gamma="scale"`` is the reciprocal), γ = n_features · Std(X) for
``laplacian`` (the typical size of ‖x − x'‖₁); 1 when X is constant.  The
spread is computed without overflow or underflow at any scale; data whose γ
would fall outside [1e-100, 1e100] (features near 1e±50 and beyond) are
refused with an error naming ``X``.

Cost of K(X, Y) with n rows, r columns, d features: ``rbf``, ``poly``,
``linear`` and ``tanimoto`` take one BLAS product (2 n r d flops; n² d for K(X, X)) and one
parallel elementwise pass (n r kernel values, half of them for K(X, X));
``laplacian`` is a direct O(n r d) loop, parallel over rows.  Memory: the
output only (built in place; see ``_gram.pyx``).
"""

from __future__ import annotations

import copy
import math
from typing import ClassVar

import numpy as np

from ..spec import Parameter
from . import _gram
from ._base import GAMMA_MAX, GAMMA_MIN, Kernel, scale_or_positive

__all__ = ["RBF", "Laplacian", "Polynomial", "Linear", "Tanimoto", "MAX_DEGREE"]

#: Largest degree of the polynomial kernel.
MAX_DEGREE = 100


def _gamma_param() -> Parameter:
    return Parameter("gamma", scale_or_positive, default="scale",
                     doc="length scale γ (divides); 'scale' = from the training data")


def _with_scale(kernel: Kernel, X: np.ndarray, spread, power: int) -> Kernel:
    """``kernel`` with γ = 'scale' resolved to d · spread(X); any other γ: ``kernel`` itself.

    ``spread`` is ``np.var`` (``power`` 2) or ``np.std`` (``power`` 1); it is
    computed on X divided by a power of two u near max |x| and scaled back
    (spread(X) = u^power · spread(X / u), exact), so neither the squares of
    1e200 overflow nor those of 1e-200 underflow.  Constant data (spread 0)
    give γ = 1.

    Raises
    ------
    ValueError
        When d · spread(X) falls outside the length scales a kernel accepts,
        [1e-100, 1e100] (features near 1e-50 or 1e50 and beyond): the error
        names ``X``, not ``gamma``, which the user did not set.
    """
    if kernel.gamma != "scale":
        return kernel
    X = np.asarray(X, dtype=np.float64)
    peak = float(np.abs(X).max()) if X.size else 0.0
    exponent = math.frexp(peak)[1] if peak > 0 else 0          # 2**exponent >= max |x|
    # np.ldexp, not a division by 2**exponent: that power is not a float64 when max |x| >= 2**1023
    inner = X.shape[1] * float(spread(np.ldexp(X, -exponent))) if X.size else 0.0
    params = kernel.params
    if not inner > 0:
        params["gamma"] = 1.0
        return type(kernel)(**params)
    log10 = (math.log(inner) + power * exponent * math.log(2.0)) / math.log(10.0)
    if not math.log10(GAMMA_MIN) <= log10 <= math.log10(GAMMA_MAX):
        what = "Var(X)" if power == 2 else "Std(X)"
        raise ValueError(
            f"X: gamma='scale' takes the kernel's length scale from the data, but n_features * {what} is about "
            f"1e{log10:.0f}, outside the length scales a kernel accepts [{GAMMA_MIN:g}, {GAMMA_MAX:g}]: the "
            f"features are too {'small' if log10 < 0 else 'large'} for kernel ranking in float64; rescale them "
            "(e.g. sklearn's StandardScaler)")
    params["gamma"] = math.ldexp(inner, power * exponent)       # exact: d * spread(X)
    return type(kernel)(**params)


class RBF(Kernel):
    """Gaussian kernel exp(−‖x − x'‖²/γ) (scikit-learn's gamma is 1/γ)."""

    name: ClassVar[str] = "rbf"
    aliases: ClassVar[tuple[str, ...]] = ("gaussian",)
    parameters: ClassVar[tuple[Parameter, ...]] = (_gamma_param(),)
    examples: ClassVar[tuple[str, ...]] = ("rbf", "rbf:0.5", "rbf:100")

    def with_data(self, X: np.ndarray) -> Kernel:
        return _with_scale(self, X, np.var, 2)

    def for_rows_of(self, X: np.ndarray) -> Kernel:
        # the centre of the rows' |x|^2 + |y|^2 - 2<x,y> is X's mean: fixed once, the rows of a block get the values
        # of the whole call
        fixed = copy.copy(self)
        fixed._center = X.mean(axis=0) if X.shape[0] else 0.0
        return fixed

    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        # Distances are translation invariant: center on X's mean to keep the
        # |x|^2 + |y|^2 - 2<x,y> cancellation small (Design C of _gram.pyx).
        center = self.__dict__.get("_center")
        if center is None:
            center = X.mean(axis=0) if X.shape[0] else 0.0
        Xc = np.ascontiguousarray(X - center)
        sq_x = np.einsum("ij,ij->i", Xc, Xc)
        if Y is None:
            G = _gram.inner_products(Xc, Xc, True)
            _gram.rbf_inplace(G, sq_x, sq_x, 1.0 / self.gamma, True, n_threads)
            return G
        Yc = np.ascontiguousarray(Y - center)
        sq_y = np.einsum("ij,ij->i", Yc, Yc)
        G = _gram.inner_products(Xc, Yc, False)
        _gram.rbf_inplace(G, sq_x, sq_y, 1.0 / self.gamma, False, n_threads)
        return G

    def diagonal(self, X, *, n_threads=None) -> np.ndarray:
        return np.ones(np.asarray(X).shape[0])


class Laplacian(Kernel):
    """Laplacian kernel exp(−‖x − x'‖₁/γ) (scikit-learn's gamma is 1/γ)."""

    name: ClassVar[str] = "laplacian"
    parameters: ClassVar[tuple[Parameter, ...]] = (_gamma_param(),)
    examples: ClassVar[tuple[str, ...]] = ("laplacian", "laplacian:3")

    def with_data(self, X: np.ndarray) -> Kernel:
        return _with_scale(self, X, np.std, 1)

    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        if Y is None:
            return _gram.laplacian(X, X, 1.0 / self.gamma, True, n_threads)
        return _gram.laplacian(X, Y, 1.0 / self.gamma, False, n_threads)

    def diagonal(self, X, *, n_threads=None) -> np.ndarray:
        return np.ones(np.asarray(X).shape[0])


class Polynomial(Kernel):
    """Polynomial kernel (⟨x, x'⟩/γ + coef0)^degree (scikit-learn's gamma is 1/γ).

    PSD for an integer degree ≥ 1 and coef0 ≥ 0.  Bounds: degree ≤ 100
    (:data:`MAX_DEGREE`), γ in [1e-100, 1e100] as for every length scale.
    """

    name: ClassVar[str] = "poly"
    aliases: ClassVar[tuple[str, ...]] = ("polynomial",)
    parameters: ClassVar[tuple[Parameter, ...]] = (
        # a degree above 100 overflows the Gram matrix for almost any data
        Parameter("degree", int, default=3, minimum=1, maximum=MAX_DEGREE, doc="integer degree, 1 to 100"),
        _gamma_param(),
        Parameter("coef0", float, default=1.0, minimum=0.0, doc="additive constant (>= 0 keeps it PSD)"),
    )
    examples: ClassVar[tuple[str, ...]] = ("poly", "poly:1", "poly:2,gamma=4,coef0=0")

    def with_data(self, X: np.ndarray) -> Kernel:
        return _with_scale(self, X, np.var, 2)

    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        symmetric = Y is None
        G = _gram.inner_products(X, X if symmetric else Y, symmetric)
        _gram.poly_inplace(G, 1.0 / self.gamma, self.coef0, float(self.degree), symmetric, n_threads)
        return G

    def diagonal(self, X, *, n_threads=None) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return (np.einsum("ij,ij->i", X, X) / self.gamma + self.coef0) ** self.degree


class Linear(Kernel):
    """Linear kernel ⟨x, x'⟩."""

    name: ClassVar[str] = "linear"

    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        if Y is None:
            G = _gram.inner_products(X, X, True)
            _gram.mirror_lower(G, n_threads)
            return G
        return _gram.inner_products(X, Y, False)

    def diagonal(self, X, *, n_threads=None) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return np.einsum("ij,ij->i", X, X)


#: Rows of the Tanimoto kernel's elementwise pass at a time (a row block's denominators, not a second n x r array).
_TANIMOTO_ROWS = 256


#: Largest |x| (a power of two) taken as it is: ‖x‖² of any row stays finite and normal for features in
#: [2^-300, 2^300]; beyond, both arrays are rescaled first.
_TANIMOTO_RANGE = 300


def _tanimoto_units(X: np.ndarray, Y: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """X and Y divided by one power of two near their largest |value| when that is outside 2^±300.

    The kernel is unchanged by scaling both (x, x') by one factor, but its
    squared norms are not: features of 1e-200 would underflow to 0 (every
    similarity 1, a 0/0) and features of 1e200 overflow to inf (NaN).  A
    power of two scales exactly, so ordinary data are not touched at all
    and the values are those of the data in units where the largest is ~1.
    """
    peak = max((float(np.max(np.abs(A))) for A in (X, Y) if A is not None and A.size), default=0.0)
    exponent = math.frexp(peak)[1]
    if peak == 0.0 or not math.isfinite(peak) or abs(exponent) <= _TANIMOTO_RANGE:
        return X, Y
    factor = math.ldexp(1.0, -exponent)
    return X * factor, None if Y is None else Y * factor


class Tanimoto(Kernel):
    """Tanimoto (Jaccard) kernel ⟨x, x'⟩ / (‖x‖² + ‖x'‖² − ⟨x, x'⟩), for molecular fingerprints.

    On 0/1 fingerprints it is the Tanimoto similarity |a ∩ b| / |a ∪ b| of
    the bits set.  It is positive semi-definite on all real vectors: with
    s = ⟨x, x'⟩ and a + b = ‖x‖² + ‖x'‖² ≥ 2|s|, it is the series
    Σ_k s^k / (a + b)^k of products of PSD kernels.  Two all-zero rows have
    similarity 1 (0/0; an empty fingerprint is like itself only), which keeps
    the Gram matrix PSD.  No parameter: nothing to scale, but dense input only
    (a sparse fingerprint matrix is refused with the size of its dense copy).
    """

    name: ClassVar[str] = "tanimoto"
    aliases: ClassVar[tuple[str, ...]] = ("jaccard",)

    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        symmetric = Y is None
        X, Y = _tanimoto_units(X, Y)
        G = _gram.inner_products(X, X if symmetric else Y, symmetric)
        if symmetric:
            _gram.mirror_lower(G, n_threads)
            sq_x = sq_y = np.diagonal(G).copy()     # the products' own diagonal: K(x, x) = 1 exactly
        else:
            sq_x, sq_y = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", Y, Y)
        for start in range(0, G.shape[0], _TANIMOTO_ROWS):
            block = G[start:start + _TANIMOTO_ROWS]
            # (a + b) - s, the same rounding for (i, j) and (j, i): K(X, X) stays exactly symmetric
            denominator = sq_x[start:start + _TANIMOTO_ROWS, None] + sq_y[None, :]
            denominator -= block
            empty = denominator == 0              # only two all-zero rows: a + b - s >= (a + b) / 2
            np.divide(block, denominator, out=block, where=~empty)
            block[empty] = 1.0
        return G

    def diagonal(self, X, *, n_threads=None) -> np.ndarray:
        return np.ones(np.asarray(X).shape[0])


BUILTIN_KERNELS = (RBF, Laplacian, Polynomial, Linear, Tanimoto)
