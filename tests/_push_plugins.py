"""Test-only plugin components for the push driver: a graded objective, a plain objective, a Python loss."""

from __future__ import annotations

import numpy as np

import rankcore


class PairwiseSquared(rankcore.Objective):
    """Σ_{i pos, k neg} (1 − (f_i − f_k))² (the example of the Objective docs): a plain, non-log objective."""

    name = "test-pairsq"
    supports_sample_weight = False

    def value_and_gradient(self, y, scores, sample_weight=None):
        pos, neg = scores[y == 1], scores[y == 0]
        I, K = pos.size, neg.size
        s_p, s_n = pos.sum(), neg.sum()
        value = K * ((1 - pos) ** 2).sum() + I * (neg**2).sum() + 2 * (I - s_p) * s_n
        grad = np.empty_like(scores)
        grad[y == 1] = -2 * (K * (1 - pos) + s_n)
        grad[y == 0] = 2 * (I * neg + (I - s_p))
        return float(value), grad


class MagnitudeSquared(rankcore.Objective):
    """Σ_{i,j} w_i w_j ((y_i − y_j) − (f_i − f_j))² for graded y, O(n)."""

    name = "test-mpsq"
    task = "graded"

    def value_and_gradient(self, y, scores, sample_weight=None):
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        a = y - scores
        W, S = w.sum(), (w * a).sum()
        value = 2 * W * (w * a * a).sum() - 2 * S * S
        grad = -(4 * W * w * a - 4 * S * w)
        return float(value), grad

    def line_derivatives(self, y, scores, direction, sample_weight=None):
        w = np.ones_like(scores) if sample_weight is None else sample_weight
        value, grad = self.value_and_gradient(y, scores, sample_weight)
        h = direction
        W, H = w.sum(), (w * h).sum()
        return value, float(grad @ h), float(4 * W * (w * h * h).sum() - 4 * H * H)


class PythonHinge(rankcore.Loss):
    """The hinge loss with only vectorized ℓ and ℓ′ (the blocked NumPy fallback)."""

    name = "test-pyhinge"

    def value(self, z):
        return np.maximum(0.0, 1.0 - np.asarray(z, dtype=float))

    def derivative(self, z):
        return np.where(np.asarray(z) < 1.0, -1.0, 0.0)

    def second_derivative(self, z):
        return np.zeros_like(np.asarray(z, dtype=float))


class Plugin:
    @rankcore.hookimpl
    def rankcore_register_objectives(self):
        return [PairwiseSquared, MagnitudeSquared]

    @rankcore.hookimpl
    def rankcore_register_losses(self):
        return [PythonHinge]
