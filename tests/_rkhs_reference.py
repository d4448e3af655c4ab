"""Plain NumPy references for kernel ranking (docs/theory/kernel_ranking.md), used only by the tests."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np

# Formulas exactly as printed in docs/theory/kernel_ranking.md#filters, with no care for
# cancellation: valid where t is not tiny compared with lam.
FORMULAS = {
    "tikhonov": lambda t, lam, norm: 1.0 / (t + lam),
    "iterated:1": lambda t, lam, norm: (1.0 / t) * (1.0 - (lam / (t + lam)) ** 1),
    "iterated": lambda t, lam, norm: (t + 2 * lam) / (t + lam) ** 2,  # the paper's printed form
    "iterated:3": lambda t, lam, norm: (1.0 / t) * (1.0 - (lam / (t + lam)) ** 3),
    "cutoff": lambda t, lam, norm: np.where(t >= lam, 1.0 / t, 0.0),
    "landweber": lambda t, lam, norm: (1.0 / t) * (1.0 - (1.0 - t / norm) ** math.floor(1.0 / lam)),
    "showalter": lambda t, lam, norm: (1.0 - np.exp(-t / lam)) / t,
}


def high_precision_filter(spec: str, t: float, lam: float, norm: float = 1.0, digits: int = 80) -> float:
    """The filter at one point in decimal arithmetic with enough digits to survive
    the cancellation in (1 - r)/t: ``digits`` plus the decimal exponent of lam/t."""
    extra = max(0, int(math.ceil(math.log10(max(lam, 1.0 / norm) / t)))) if t > 0 else 0
    getcontext().prec = digits + extra
    T, L, N = Decimal(t), Decimal(lam), Decimal(norm)
    if t == 0:
        limits = {"tikhonov": 1 / L, "iterated:1": 1 / L, "iterated": 2 / L, "iterated:3": 3 / L,
                  "cutoff": Decimal(0), "landweber": Decimal(math.floor(1 / lam)) / N, "showalter": 1 / L}
        return float(limits[spec])
    if spec == "tikhonov":
        return float(1 / (T + L))
    if spec.startswith("iterated"):
        nu = 2 if spec == "iterated" else int(spec.split(":")[1])
        return float((1 - (L / (T + L)) ** nu) / T)
    if spec == "cutoff":
        return float(1 / T) if t >= lam else 0.0
    if spec == "landweber":
        k = math.floor(1 / lam)
        return float((1 - (1 - T / N) ** k) / T)
    if spec == "showalter":
        return float((1 - (-T / L).exp()) / T)
    raise KeyError(spec)


def centered_operator(K: np.ndarray) -> np.ndarray:
    m = K.shape[0]
    P = np.eye(m) - np.ones((m, m)) / m
    return P @ K @ P / m


_EIGH_CACHE: dict = {}


def dense_coefficients(K: np.ndarray, y: np.ndarray, g) -> np.ndarray:
    """c = U g(Σ) Uᵀ (P y / m) from a full ``numpy.linalg.eigh`` of P K P / m; ``g(t, norm)``."""
    m = K.shape[0]
    key = (K.tobytes(), m)
    if key not in _EIGH_CACHE:
        _EIGH_CACHE.clear()
        t, U = np.linalg.eigh(centered_operator(K))
        _EIGH_CACHE[key] = (np.maximum(t, 0.0), U)
    t, U = _EIGH_CACHE[key]
    b = (y - y.mean()) / m
    return U @ (g(t, float(t.max())) * (U.T @ b))


def direct_tikhonov(K: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """The solution of (D K / m² + λ I) c = D y / m², D = m I − 11ᵀ (docs/theory/kernel_ranking.md#computation)."""
    m = K.shape[0]
    D = m * np.eye(m) - np.ones((m, m))
    return np.linalg.solve(D @ K / m**2 + lam * np.eye(m), D @ y / m**2)


def mp_risk(K: np.ndarray, y: np.ndarray, c: np.ndarray, lam: float) -> float:
    """Regularized empirical MP risk (1/m²) Σ_{i,j} (y_i − y_j − (f_i − f_j))² + 2λ‖f‖²_K, with pairs."""
    f = K @ c
    m = y.shape[0]
    diff = (y[:, None] - y[None, :]) - (f[:, None] - f[None, :])
    return float((diff**2).sum() / m**2 + 2 * lam * c @ K @ c)


def misrank_reference(y: np.ndarray, scores: np.ndarray) -> float:
    """Σ_{y_i > y_j} 1[f_i ≤ f_j] / #{y_i > y_j}, by brute force over pairs."""
    bad = total = 0
    for i in range(y.shape[0]):
        for j in range(y.shape[0]):
            if y[i] > y[j]:
                total += 1
                bad += scores[i] <= scores[j]
    return bad / total
