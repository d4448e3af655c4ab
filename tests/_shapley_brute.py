"""Exact Shapley values of a model's interventional game by enumerating every subset of its features.

v(S) is the mean over background rows z_k of ``score`` of the row with x's values on S and z_k's elsewhere: the
whole model's score (``decision_function``), so that whatever the estimator adds or routes is in the game.
Independent of ``_interventional_reference`` (which scores each tree's own hybrids).  O(m · 2^d) scores: d <= 8.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["brute_force"]


def _subsets(d: int) -> np.ndarray:
    return np.array(list(itertools.product([False, True], repeat=d)))


def _shapley(v: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(d + 1,): the Shapley values of the game v (one value per row of ``masks``), then v(∅), by definition."""
    d = masks.shape[1]
    index = {tuple(m): i for i, m in enumerate(masks.tolist())}
    phi = np.zeros(d + 1)
    for j in range(d):
        for i, S in enumerate(masks.tolist()):
            if not S[j]:
                size = sum(S)
                weight = math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d)
                phi[j] += weight * (v[index[tuple(S[:j] + [True] + S[j + 1:])]] - v[i])
    phi[d] = v[index[(False,) * d]]
    return phi


def brute_force(score, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """The values of v(S) = mean_k score(x_S, z_k,S̄) for one row x (arrays)."""
    masks = _subsets(x.shape[0])
    hybrids = np.where(masks[None], x[None, None], Z[:, None]).reshape(-1, x.shape[0])
    return _shapley(np.asarray(score(hybrids), dtype=np.float64).reshape(Z.shape[0], -1).mean(axis=0), masks)
