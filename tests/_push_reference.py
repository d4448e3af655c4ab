"""Naive reference of the P-Norm Push boosting algorithm (Rudin 2006, Figure 1), for tests only.

Builds the paper's structure M_ikj = h_j(x_i) − h_j(x̃_k) explicitly -- an
I × K × n array over every (positive, negative) pair and every candidate weak
ranker -- and evaluates the objective, its derivative along each candidate
and the line-search function pair by pair, with its own formulas for every
built-in loss and price (nothing shared with rankcore but the generic line
search routine, which is tested on its own).  Memory O(I·K·n): small data only.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, logsumexp

from rankcore.objectives._base import LinePoint
from rankcore.push._line_search import line_search

LN2 = math.log(2.0)

# ----------------------------------------------------------------------------
# Losses: (ℓ, ℓ′, ℓ″) written out independently of rankcore.losses
# ----------------------------------------------------------------------------


def _exp(z):
    e = np.exp(-z)
    return e, -e, e


def _logistic(z):
    return np.logaddexp(0.0, -z) / LN2, -expit(-z) / LN2, expit(z) * expit(-z) / LN2


def _hinge(z):
    active = z < 1.0
    return np.where(active, 1.0 - z, 0.0), np.where(active, -1.0, 0.0), np.zeros_like(z)


def _sqhinge(z):
    active = z < 1.0
    u = np.where(active, 1.0 - z, 0.0)
    return u * u, -2.0 * u, np.where(active, 2.0, 0.0)


LOSSES = {"exp": _exp, "logistic": _logistic, "hinge": _hinge, "sqhinge": _sqhinge}

# ----------------------------------------------------------------------------
# Prices: log g, log g′, log g″ as functions of L > 0 (−inf allowed)
# ----------------------------------------------------------------------------


def price_logs(spec: str):
    name, _, arg = spec.partition(":")
    if name == "identity":
        return (lambda L: np.log(L), lambda L: np.zeros_like(L), lambda L: np.full_like(L, -np.inf))
    if name == "pow":
        p = float(arg)

        def log_d2(L):
            if p == 1.0:
                return np.full_like(L, -np.inf)
            return math.log(p * (p - 1.0)) + (p - 2.0) * np.log(L)

        return (lambda L: p * np.log(L),
                lambda L: math.log(p) + (p - 1.0) * np.log(L) if p != 1.0 else np.zeros_like(L),
                log_d2)
    if name == "exp":
        beta = float(arg) if arg else 1.0
        return (lambda L: beta * L, lambda L: math.log(beta) + beta * L, lambda L: 2 * math.log(beta) + beta * L)
    raise ValueError(spec)


# ----------------------------------------------------------------------------
# Candidate weak rankers from raw X
# ----------------------------------------------------------------------------


def candidates(learner: str, X: np.ndarray, thresholds=None):
    """(H, keys): H[n, j] = h_j(x_n) for every candidate, keys identify them as rankcore does."""
    cols, keys = [], []
    if learner == "features":
        for j in range(X.shape[1]):
            lo, hi = X[:, j].min(), X[:, j].max()
            if hi > lo:
                cols.append((X[:, j] - lo) / (hi - lo))
                keys.append(("feature", j))
    elif learner in ("stumps", "thresholds"):
        for j in range(X.shape[1]):
            if thresholds is not None:
                ts = np.unique(np.asarray(thresholds[j], dtype=float))
            else:
                u = np.unique(X[:, j])
                ts = u[:-1] + 0.5 * (u[1:] - u[:-1])
            for t in ts:
                cols.append((X[:, j] > t).astype(float))
                keys.append(("threshold", j, float(t)))
    else:
        raise ValueError(learner)
    return np.column_stack(cols), keys


def ranker_key(ranker):
    if ranker.kind == "feature":
        return ("feature", ranker.feature)
    return ("threshold", ranker.feature, ranker.threshold)


# ----------------------------------------------------------------------------
# The algorithm on the M array
# ----------------------------------------------------------------------------


class NaivePush:
    """Coordinate descent on R(λ) = Σ_k v_k g(Σ_i w_i ℓ((Mλ)_ik)), J = log R, pair by pair.

    Per negative k it keeps log L_k and the ratios L′_k/L_k, L″_k/L_k (α-derivatives
    along a candidate), so that the exponential loss never underflows.
    """

    def __init__(self, loss: str, price: str, H: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
        pos, neg = y == 1, y == 0
        self.M = H[pos][:, None, :] - H[neg][None, :, :]          # (I, K, n): the paper's M
        w = np.ones(y.shape[0]) if w is None else w
        self.log_w = np.log(w[pos])[:, None]                        # (I, 1)
        self.w = w[pos][:, None]
        self.log_v = np.log(w[neg])                                 # (K,)
        self.exp_loss = loss == "exp"
        self.loss = LOSSES[loss]
        self.log_g, self.log_dg, self.log_d2g = price_logs(price)
        self.lam = np.zeros(H.shape[1])

    def _pairs(self, lam):
        return np.tensordot(self.M, lam, axes=([2], [0]))           # (Mλ)_ik

    def _sums(self, z, Mj):
        """log L_k, L′_k / L_k, L″_k / L_k with L_k(α) = Σ_i w_i ℓ(z_ik + α M_ikj) at α = 0."""
        if self.exp_loss:
            a = self.log_w - z                                       # log(w_i e^{−z_ik})
            log_l = logsumexp(a, axis=0)
            pi = np.exp(a - log_l)                                   # softmax over positives
            return log_l, -(pi * Mj).sum(axis=0), (pi * Mj * Mj).sum(axis=0)
        v, d1, d2 = self.loss(z)
        L = (self.w * v).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_l = np.log(L)
            r1 = np.where(L > 0, (self.w * d1 * Mj).sum(axis=0) / L, 0.0)
            r2 = np.where(L > 0, (self.w * d2 * Mj * Mj).sum(axis=0) / L, 0.0)
        return log_l, r1, r2

    def value(self, lam) -> float:
        log_l, _, _ = self._sums(self._pairs(lam), np.zeros(self.M.shape[:2]))
        return float(logsumexp(self.log_v + self._log_g(log_l)))

    def _log_g(self, log_l, which=0):
        f = (self.log_g, self.log_dg, self.log_d2g)[which]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return f(np.exp(log_l))

    def _point(self, z, Mj, alpha):
        log_l, r1, r2 = self._sums(z, Mj)
        J = float(logsumexp(self.log_v + self._log_g(log_l)))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            a = np.exp(self.log_v + self._log_g(log_l, 1) + log_l - J)           # v g′(L) L / R
            b = np.where(r1 != 0, np.exp(self.log_v + self._log_g(log_l, 2) + 2 * log_l - J), 0.0)
        a = np.where(np.isfinite(log_l), a, 0.0)
        dJ = float(a @ r1)
        curvature = float(b @ (r1 * r1) + a @ r2)                                # R″ / R
        return LinePoint(alpha, J, dJ, curvature - dJ * dJ)

    def derivatives(self, lam) -> np.ndarray:
        """dJ/dλ_j for every candidate j."""
        z = self._pairs(lam)
        return np.array([self._point(z, self.M[:, :, j], 0.0).d1 for j in range(self.M.shape[2])])

    def line(self, lam, j):
        Mj = self.M[:, :, j]
        z0 = self._pairs(lam)
        return lambda alpha: self._point(z0 + alpha * Mj, Mj, alpha)

    def step(self):
        """One iteration: (j, α, J after) -- the paper's steps 3(a)-(c)."""
        deriv = self.derivatives(self.lam)
        j = int(np.argmax(np.abs(deriv)))
        result = line_search(self.line(self.lam, j), log_value=True)
        self.lam[j] += result.alpha
        return j, result.alpha, self.value(self.lam)
