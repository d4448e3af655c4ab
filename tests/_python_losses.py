"""Losses written in NumPy only (no compiled pairwise evaluator): they exercise the blocked fallbacks."""

import numpy as np

from rankcore.losses._base import Loss


class PythonHinge(Loss):
    """A loss with only vectorized ℓ and ℓ′: exercises the blocked NumPy fallback."""

    name = "py-hinge"

    def value(self, z):
        return np.maximum(0.0, 1.0 - np.asarray(z, dtype=float))

    def derivative(self, z):
        return np.where(np.asarray(z) < 1.0, -1.0, 0.0)


class PythonLogistic(Loss):
    """ℓ, ℓ′ and ℓ″ in NumPy only (no Cython kernel)."""

    name = "py-logistic"

    def value(self, z):
        return np.logaddexp(0.0, -np.asarray(z, dtype=float)) / np.log(2)

    def derivative(self, z):
        return -1.0 / (1.0 + np.exp(np.asarray(z, dtype=float))) / np.log(2)

    def second_derivative(self, z):
        e = np.exp(-np.abs(np.asarray(z, dtype=float)))
        return e / (1 + e) ** 2 / np.log(2)
