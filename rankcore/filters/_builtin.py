"""The built-in spectral filters (docs/theory/kernel_ranking.md#filters).

Every formula is evaluated without cancellation near t = 0: the filters
that are "(1 − something)/t" are written with ``expm1``/``log1p``, which keep
full relative accuracy for every normal argument, and take their finite
limit below :data:`_TINY` (subnormal arguments, where no formula keeps its
digits).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ..spec import Parameter
from ._base import Filter

__all__ = ["Tikhonov", "IteratedTikhonov", "SpectralCutoff", "Landweber", "Showalter", "MAX_ITERATIONS"]

#: Largest ν of the iterated Tikhonov filter.
MAX_ITERATIONS = 10**6

#: Below this argument a filter returns its t → 0 limit (about 1e-290: the
#: smallest normal double is 2.2e-308, and the limits are exact to rounding
#: long before, since every correction term is O(argument)).
_TINY = 1e-290


class Tikhonov(Filter):
    """Tikhonov (Lavrentiev) regularization: g_λ(t) = 1/(t + λ)."""

    name: ClassVar[str] = "tikhonov"
    aliases: ClassVar[tuple[str, ...]] = ("lavrentiev",)
    qualification: ClassVar[float] = 1.0

    def evaluate(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        return 1.0 / (t + lam)

    def _evaluate_path(self, t: np.ndarray, lams: np.ndarray, norm: float) -> np.ndarray:
        return 1.0 / (t[None, :] + lams[:, None])


class IteratedTikhonov(Filter):
    """ν-times iterated Tikhonov: g_λ(t) = (1/t)·(1 − (λ/(t + λ))^ν), g_λ(0) = ν/λ.

    ν = 1 is :class:`Tikhonov`; ν = 2 gives (t + 2λ)/(t + λ)², the form Kriukova,
    Pereverzyev and Tkachenko (2014) print.
    Evaluated as −expm1(−ν·log1p(t/λ))/t, exact to rounding for every t.
    ν ≤ 10**6 (:data:`MAX_ITERATIONS`): beyond, g_λ is the spectral cutoff
    to rounding, and g_λ(0) = ν/λ heads for overflow.
    """

    name: ClassVar[str] = "iterated"
    aliases: ClassVar[tuple[str, ...]] = ("iterated-tikhonov", "iterated-lavrentiev")
    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter("nu", int, default=2, minimum=1, maximum=MAX_ITERATIONS,
                  doc="number of Tikhonov iterations ν, 1 to 10**6"),
    )
    examples: ClassVar[tuple[str, ...]] = ("iterated:1", "iterated", "iterated:5", "iterated:100")

    @property
    def qualification(self) -> float:  # type: ignore[override]
        return float(self.nu)

    def evaluate(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        u = t / lam
        out = np.full(t.shape, self.nu / lam)
        big = u >= _TINY
        out[big] = -np.expm1(-self.nu * np.log1p(u[big])) / t[big]
        return out

    def _evaluate_path(self, t: np.ndarray, lams: np.ndarray, norm: float) -> np.ndarray:
        u = t[None, :] / lams[:, None]
        out = np.broadcast_to((self.nu / lams)[:, None], u.shape).copy()
        big = u >= _TINY
        out[big] = -np.expm1(-self.nu * np.log1p(u[big])) / np.broadcast_to(t, u.shape)[big]
        return out


class SpectralCutoff(Filter):
    """Spectral cut-off (truncated eigen-expansion): g_λ(t) = 1/t for t ≥ λ, else 0."""

    name: ClassVar[str] = "cutoff"
    aliases: ClassVar[tuple[str, ...]] = ("spectral-cutoff", "tsvd")

    def evaluate(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        out = np.zeros(t.shape)
        keep = t >= lam
        out[keep] = 1.0 / t[keep]
        return out

    def _evaluate_path(self, t: np.ndarray, lams: np.ndarray, norm: float) -> np.ndarray:
        with np.errstate(divide="ignore", over="ignore"):  # inf only where t < λ (not kept); else as evaluate
            inv = 1.0 / t
        return np.where(t[None, :] >= lams[:, None], inv[None, :], 0.0)


class Landweber(Filter):
    """Landweber iteration: g_λ(t) = (1/t)·(1 − (1 − μt)^k), k = ⌊1/λ⌋ steps, g_λ(0) = kμ.

    The step is μ = ``step``/‖A‖ with ``step`` in (0, 1] (so μ ≤ 1/‖A‖, the
    convergence condition); ‖A‖ is the ``norm`` argument (the largest
    eigenvalue, which :class:`rankcore.KernelRanker` passes).  λ > 1 means
    zero steps: g ≡ 0.  Evaluated as −expm1(k·log1p(−μt))/t.
    """

    name: ClassVar[str] = "landweber"
    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter("step", float, default=1.0, minimum=0.0, exclusive_minimum=True, maximum=1.0,
                  doc="step μ as a fraction of 1/‖A‖"),
    )
    examples: ClassVar[tuple[str, ...]] = ("landweber", "landweber:0.5")
    uses_norm: ClassVar[bool] = True

    @staticmethod
    def n_steps(lam: float) -> float:
        """k = ⌊1/λ⌋ (with a relative guard of 1e-12 against 1/λ landing just below an integer)."""
        return float(math.floor((1.0 / lam) * (1.0 + 1e-12)))

    def evaluate(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        mu = self.step / norm
        k = self.n_steps(lam)
        if k == 0.0:
            return np.zeros(t.shape)
        v = np.minimum(mu * t, 1.0)
        out = np.full(t.shape, k * mu)
        big = v >= _TINY
        with np.errstate(divide="ignore"):  # log1p(-1) = -inf is meant: (1 - 1)^k = 0
            out[big] = -np.expm1(k * np.log1p(-v[big])) / t[big]
        return out

    def _evaluate_path(self, t: np.ndarray, lams: np.ndarray, norm: float) -> np.ndarray:
        mu = self.step / norm
        k = np.floor((1.0 / lams) * (1.0 + 1e-12))  # n_steps, elementwise
        v = np.minimum(mu * t, 1.0)
        big = v >= _TINY
        with np.errstate(divide="ignore"):
            log_v = np.log1p(-v[big])  # shared by every λ
        out = np.empty((lams.shape[0], t.shape[0]))
        out[:] = (k * mu)[:, None]
        with np.errstate(invalid="ignore"):  # 0 * -inf in the rows with k = 0, overwritten below
            out[:, big] = -np.expm1(k[:, None] * log_v[None, :]) / t[big][None, :]
        out[k == 0.0] = 0.0
        return out


class Showalter(Filter):
    """Showalter's method (asymptotic regularization): g_λ(t) = (1 − e^{−t/λ})/t, g_λ(0) = 1/λ."""

    name: ClassVar[str] = "showalter"
    aliases: ClassVar[tuple[str, ...]] = ("asymptotic",)

    def evaluate(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        u = t / lam
        out = np.full(t.shape, 1.0 / lam)
        big = u >= _TINY
        out[big] = -np.expm1(-u[big]) / t[big]
        return out

    def _evaluate_path(self, t: np.ndarray, lams: np.ndarray, norm: float) -> np.ndarray:
        u = t[None, :] / lams[:, None]
        out = np.broadcast_to((1.0 / lams)[:, None], u.shape).copy()
        big = u >= _TINY
        out[big] = -np.expm1(-u[big]) / np.broadcast_to(t, u.shape)[big]
        return out


BUILTIN_FILTERS = (Tikhonov, IteratedTikhonov, SpectralCutoff, Landweber, Showalter)
