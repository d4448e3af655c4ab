"""Built-in losses: ``exp``, ``logistic``, ``hinge``, ``sqhinge`` (docs/theory/push.md#pairwise-sums-without-pairs)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logsumexp

from ._base import Loss

__all__ = ["Exponential", "Logistic", "Hinge", "SquaredHinge"]


def _f64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def _log_weights(w: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(w)


class Exponential(Loss):
    """ℓ(z) = e^{−z}: AdaBoost's and RankBoost's loss; the sums factorize exactly.

    Its pairwise sums are the closed forms L_k = e^{f_k}·Σ_i w_i e^{−f_i}, ...
    in O(I + K), evaluated with log-sum-exp; the push objective goes further and
    keeps the whole objective in log space (``exponential_rate = 1``).
    """

    name = "exp"
    aliases = ("exponential",)
    exponential_rate = 1.0

    def value(self, z):
        with np.errstate(over="ignore"):
            return np.exp(-_f64(z))

    def derivative(self, z):
        with np.errstate(over="ignore"):
            return -np.exp(-_f64(z))

    def second_derivative(self, z):
        with np.errstate(over="ignore"):
            return np.exp(-_f64(z))

    def pairwise_kernel(self):
        from ._pairwise import ExponentialKernel

        return ExponentialKernel(1.0)

    def negative_sums(self, f_pos, w_pos, f_neg, *, n_threads=1):
        f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
        log_s = logsumexp(_log_weights(w_pos) - f_pos) if f_pos.size else -np.inf
        with np.errstate(over="ignore"):
            L = np.exp(f_neg + log_s)
        return L, -L

    def positive_sums(self, f_pos, f_neg, c_neg, *, n_threads=1):
        f_pos, f_neg, c_neg = _f64(f_pos), _f64(f_neg), _f64(c_neg)
        log_t = logsumexp(_log_weights(c_neg) + f_neg) if f_neg.size else -np.inf
        with np.errstate(over="ignore"):
            return -np.exp(log_t - f_pos)

    def directional_sums(self, f_pos, w_pos, h_pos, f_neg, h_neg, *, n_threads=1):
        f_pos, w_pos, h_pos = _f64(f_pos), _f64(w_pos), _f64(h_pos)
        f_neg, h_neg = _f64(f_neg), _f64(h_neg)
        if f_pos.size == 0:
            zero = np.zeros_like(f_neg)
            return zero, zero.copy(), zero.copy()
        a = _log_weights(w_pos) - f_pos
        shift = np.max(a)
        e = np.exp(a - shift)                      # w_i e^{−f_i}, scaled by e^{−shift}
        s0, s1, s2 = e.sum(), (e * h_pos).sum(), (e * h_pos * h_pos).sum()
        with np.errstate(over="ignore"):
            scale = np.exp(f_neg + shift)
        L = scale * s0
        L1 = -scale * (s1 - h_neg * s0)
        L2 = scale * (s2 - 2.0 * h_neg * s1 + h_neg * h_neg * s0)
        return L, L1, L2


_INV_LN2 = 1.0 / np.log(2.0)


class Logistic(Loss):
    """ℓ(z) = log₂(1 + e^{−z}): the logistic loss in bits, so that ℓ(0) = 1 bounds 1[z ≤ 0].

    No factorization exists: the sums visit every pair, O(I·K) time and
    O(I + K) memory, parallel over negatives -- in a kernel that needs one
    exponential per example rather than per pair (``_logistic.pyx``), or the
    generic blocked pairwise kernel when the scores span more than 600.
    """

    name = "logistic"
    aliases = ("log", "logit")

    def value(self, z):
        return _INV_LN2 * np.logaddexp(0.0, -_f64(z))

    def derivative(self, z):
        return -_INV_LN2 * expit(-_f64(z))

    def second_derivative(self, z):
        z = _f64(z)
        return _INV_LN2 * expit(z) * expit(-z)

    def pairwise_kernel(self):
        from ._pairwise import LogisticKernel

        return LogisticKernel(_INV_LN2)

    # The sums: the factorized kernel of _logistic.pyx (one exp per example,
    # not per pair) while the scores span at most 2·_SPAN, else the generic
    # pairwise kernel (one exp per pair).
    _SPAN = 300.0

    def _factors(self, f_pos, f_neg):
        both = [x for x in (f_pos, f_neg) if x.size]
        if not both:
            return None
        lo, hi = min(x.min() for x in both), max(x.max() for x in both)
        if hi - lo > 2 * self._SPAN:
            return None
        s = 0.5 * (lo + hi)
        return np.exp(s - f_pos), np.exp(f_neg - s)      # b_i, a_k with a_k b_i = e^{−(f_i − f_k)}

    def _sums(self, generic, factored, f_pos, f_neg, args, n_threads):
        """``factored(_logistic, b, a, *args, n_threads)`` while the scores' span allows the factors, else
        ``generic``."""
        factors = self._factors(f_pos, f_neg)
        if factors is None:
            return generic(*args, n_threads=n_threads)
        from . import _logistic

        b, a = factors
        return factored(_logistic, b, a, *args, int(n_threads))

    def negative_sums(self, f_pos, w_pos, f_neg, *, n_threads=1):
        f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
        return self._sums(super().negative_sums, _factored_negative_sums, f_pos, f_neg, (f_pos, w_pos, f_neg),
                          n_threads)

    def positive_sums(self, f_pos, f_neg, c_neg, *, n_threads=1):
        f_pos, f_neg, c_neg = _f64(f_pos), _f64(f_neg), _f64(c_neg)
        return self._sums(super().positive_sums, _factored_positive_sums, f_pos, f_neg, (f_pos, f_neg, c_neg),
                          n_threads)

    def directional_sums(self, f_pos, w_pos, h_pos, f_neg, h_neg, *, n_threads=1):
        f_pos, w_pos, h_pos = _f64(f_pos), _f64(w_pos), _f64(h_pos)
        f_neg, h_neg = _f64(f_neg), _f64(h_neg)
        return self._sums(super().directional_sums, _factored_directional_sums, f_pos, f_neg,
                          (f_pos, w_pos, h_pos, f_neg, h_neg), n_threads)

    def curvature_sums(self, f_pos, w_pos, f_neg, c1_neg, c2_neg, *, n_threads=1):
        f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
        c1_neg, c2_neg = _f64(c1_neg), _f64(c2_neg)
        return self._sums(super().curvature_sums, _factored_curvature_sums, f_pos, f_neg,
                          (f_pos, w_pos, f_neg, c1_neg, c2_neg), n_threads)


# The logistic sums by the factors b_i = e^{s − f_i}, a_k = e^{f_k − s} (``Logistic._factors``).
def _factored_negative_sums(kernels, b, a, f_pos, w_pos, f_neg, n_threads):
    L, D = np.empty(f_neg.shape[0]), np.empty(f_neg.shape[0])
    kernels.negative_sums(b, w_pos, a, L, D, bool(np.all(w_pos == 1.0)), n_threads)
    return L, D


def _factored_positive_sums(kernels, b, a, f_pos, f_neg, c_neg, n_threads):
    E = np.empty(f_pos.shape[0])
    kernels.positive_sums(b, a, c_neg, E, n_threads)
    return E


def _factored_directional_sums(kernels, b, a, f_pos, w_pos, h_pos, f_neg, h_neg, n_threads):
    K = f_neg.shape[0]
    L, L1, L2 = np.empty(K), np.empty(K), np.empty(K)
    kernels.directional_sums(b, w_pos, h_pos, a, h_neg, L, L1, L2, bool(np.all(w_pos == 1.0)), n_threads)
    return L, L1, L2


def _factored_curvature_sums(kernels, b, a, f_pos, w_pos, f_neg, c1_neg, c2_neg, n_threads):
    P, N = np.empty(f_pos.shape[0]), np.empty(f_neg.shape[0])
    kernels.curvature_positive_sums(b, w_pos, a, c1_neg, c2_neg, P, n_threads)
    kernels.curvature_negative_sums(b, w_pos, a, N, n_threads)
    return P, N


class _TruncatedPower(Loss):
    """ℓ(z) = (1 − z)^m for z < 1, else 0; sums by sorting and prefix sums."""

    degree: int = 1

    def pairwise_kernel(self):
        from ._pairwise import TruncatedPowerKernel

        return TruncatedPowerKernel(self.degree)

    @staticmethod
    def _center(f_pos, f_neg) -> float:
        # The sums depend on score differences only; the kernels expand them in the scores less this
        # median, which keeps the polynomial expansion of the prefix sums well conditioned where the
        # scores are: one far score moves a median little, where a mid-range centre would sit half way
        # to it and the squared hinge's sums over the other rows would cancel to nothing.  The kernels
        # test the kink on the raw scores, as the per-query push's other routes do.
        both = [a for a in (f_pos, f_neg) if a.size]
        if not both:
            return 0.0
        return float(np.median(np.concatenate(both)))

    def negative_sums(self, f_pos, w_pos, f_neg, *, n_threads=1):
        from . import _sorted_sums

        f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
        center = self._center(f_pos, f_neg)
        order = np.argsort(f_pos)
        L, D = np.empty(f_neg.shape[0]), np.empty(f_neg.shape[0])
        _sorted_sums.negative_sums(self.degree, _f64(f_pos[order]), _f64(w_pos[order]), f_neg, center, L, D,
                                   int(n_threads))
        return L, D

    def positive_sums(self, f_pos, f_neg, c_neg, *, n_threads=1):
        from . import _sorted_sums

        f_pos, f_neg, c_neg = _f64(f_pos), _f64(f_neg), _f64(c_neg)
        center = self._center(f_pos, f_neg)
        order = np.argsort(f_neg)
        E = np.empty(f_pos.shape[0])
        _sorted_sums.positive_sums(self.degree, _f64(f_neg[order]), _f64(c_neg[order]), f_pos, center, E,
                                   int(n_threads))
        return E

    def directional_sums(self, f_pos, w_pos, h_pos, f_neg, h_neg, *, n_threads=1):
        from . import _sorted_sums

        f_pos, w_pos, h_pos = _f64(f_pos), _f64(w_pos), _f64(h_pos)
        f_neg, h_neg = _f64(f_neg), _f64(h_neg)
        center = self._center(f_pos, f_neg)
        order = np.argsort(f_pos)
        K = f_neg.shape[0]
        L, L1, L2 = np.empty(K), np.empty(K), np.empty(K)
        _sorted_sums.directional_sums(self.degree, _f64(f_pos[order]), _f64(w_pos[order]), _f64(h_pos[order]),
                                      f_neg, h_neg, center, L, L1, L2, int(n_threads))
        return L, L1, L2


class Hinge(_TruncatedPower):
    """ℓ(z) = max(0, 1 − z); sums in O((I + K) log(I + K)) by sorting and prefix sums.

    Piecewise linear: its curvature sits in the kink, so the push objective
    declares none (``has_hessian`` False) and is fitted with gradient steps.
    """

    name = "hinge"
    degree = 1
    piecewise_linear = True

    def value(self, z):
        return np.maximum(0.0, 1.0 - _f64(z))

    def derivative(self, z):
        return np.where(_f64(z) < 1.0, -1.0, 0.0)

    def second_derivative(self, z):
        return np.zeros_like(_f64(z))


class SquaredHinge(_TruncatedPower):
    """ℓ(z) = max(0, 1 − z)²; sums in O((I + K) log(I + K)) (prefix sums of 1, f, f²)."""

    name = "sqhinge"
    aliases = ("squared_hinge", "squared-hinge")
    degree = 2

    def value(self, z):
        u = np.maximum(0.0, 1.0 - _f64(z))
        return u * u

    def derivative(self, z):
        return -2.0 * np.maximum(0.0, 1.0 - _f64(z))

    def second_derivative(self, z):
        return np.where(_f64(z) < 1.0, 2.0, 0.0)

    def curvature_sums(self, f_pos, w_pos, f_neg, c1_neg, c2_neg, *, n_threads=1):
        """By prefix sums, O((I + K) log(I + K)): ℓ″ = 2·1[z < 1] = −2 hinge′, ℓ′² = 4ℓ.

        P_i = 4 w_i Σ_k c2_k ℓ(z_ik) + 2 Σ_{k: z_ik < 1} c1_k and N_k = 2 Σ_{i: z_ik < 1} w_i;
        the first sum is the negatives' sum with the roles swapped (scores negated).
        """
        from . import _sorted_sums

        f_pos, w_pos, f_neg = _f64(f_pos), _f64(w_pos), _f64(f_neg)
        c1_neg, c2_neg = _f64(c1_neg), _f64(c2_neg)
        center = self._center(f_pos, f_neg)
        I, K = f_pos.shape[0], f_neg.shape[0]
        t = int(n_threads)
        order_pos = np.argsort(f_pos)
        scratch, hinge_d = np.empty(K), np.empty(K)
        _sorted_sums.negative_sums(1, _f64(f_pos[order_pos]), _f64(w_pos[order_pos]), f_neg, center, scratch,
                                   hinge_d, t)
        order_neg = np.argsort(f_neg)
        hinge_e = np.empty(I)
        _sorted_sums.positive_sums(1, _f64(f_neg[order_neg]), _f64(c1_neg[order_neg]), f_pos, center, hinge_e, t)
        # Σ_k c2_k ℓ(f_i − f_k) = Σ_k c2_k ℓ((−f_k) − (−f_i)): the negatives' sum of the mirrored problem, whose
        # kink test (−f_k) − (−f_i) < 1 rounds as f_i − f_k < 1 does (round to nearest is symmetric).
        mirrored = -f_neg
        order_m = order_neg[::-1]                       # ascending −f: the negatives' order reversed, no new sort
        swapped, scratch_i = np.empty(I), np.empty(I)
        _sorted_sums.negative_sums(2, _f64(mirrored[order_m]), _f64(c2_neg[order_m]), _f64(-f_pos), -center,
                                   swapped, scratch_i, t)
        return 4.0 * w_pos * swapped - 2.0 * hinge_e, -2.0 * hinge_d
