"""Exact Shapley values of a model's interventional game whose players are groups of columns, by enumerating every
set of players.

For a row x, background rows z_k and labels ``groups`` (column j belongs to player groups[j]), v(S) is the mean over
the background of ``score`` of the row with x's values on the columns of the players in S and z_k's on the others.
Its Shapley values over the G players are computed by their definition (``_shapley_brute._shapley``, weights by
factorials), then v(∅).  Independent of the kernel: the whole model's score of each hybrid row.  O(m · 2^G) scores.
"""

from __future__ import annotations

import itertools

import numpy as np

from _shapley_brute import _shapley

__all__ = ["grouped_brute_force"]


def grouped_brute_force(score, x: np.ndarray, Z: np.ndarray, groups) -> np.ndarray:
    """(G + 1,): the values of v(S) = mean_k score(x_{cols(S)}, z_k,rest) for one row x, then v(∅)."""
    groups = np.asarray(groups, dtype=np.intp)
    G = int(groups.max()) + 1
    players = np.array(list(itertools.product([False, True], repeat=G)))
    columns = players[:, groups]                           # each coalition of players as a mask of columns
    hybrids = np.where(columns[None], x[None, None], Z[:, None]).reshape(-1, x.shape[0])
    v = np.asarray(score(hybrids), dtype=np.float64).reshape(Z.shape[0], -1).mean(axis=0)
    return _shapley(v, players)
