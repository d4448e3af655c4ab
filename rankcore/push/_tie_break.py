"""Where the training scores start for a non-smooth objective: the tie-break offset.

A piecewise-linear ranking objective (the precision@k surrogates) has a kink
wherever two scores tie.  At the all-zero start every score ties, and a weak
ranker moves all the rows of a leaf together, so ties never go away on their
own.  At a kink the driver's subgradient need not descend along the weak
ranker it selects, and coordinate descent stops at once.

An objective that declares ``tie_break_scale = s > 0`` (see
:mod:`rankcore.objectives._base`) therefore starts the *training* scores at
ε = a random permutation of n evenly spaced values spanning [−s/2, s/2]:

* no two rows tie, now or later within a leaf (their difference is a fixed
  ε_i − ε_j, at least s/(n − 1)), so the objective is differentiable at
  almost every iterate and a negative ⟨∇J, h⟩ means J decreases along h;
* the offset is bounded: for a shift-invariant J with ‖∇J‖₁ ≤ G,
  |J(F + ε) − J(F)| ≤ G·s/2 (ε's range is s; Σ ∂J/∂f_n = 0);
* it is never part of the fitted model: ``decision_function`` is Σ α_t h_t,
  and only the training scores the driver sees carry ε.

The permutation comes from ``random_state`` (its own stream, so the
validation split and the binning sample are not correlated with it): the fit
is deterministic for a given seed.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["tie_break_offsets", "check_tie_break_scale"]

#: Spawn key of the tie-break stream of a seed (distinct from the other draws of a fit).
_TIE_BREAK_STREAM = 0x7B


def check_tie_break_scale(objective: Any) -> float:
    """The objective's ``tie_break_scale`` as a float >= 0 (0 when it does not declare one).

    Raises
    ------
    ValueError
        The attribute is not a finite number >= 0.
    """
    scale = getattr(objective, "tie_break_scale", 0.0)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not math.isfinite(float(scale)) or scale < 0:
        spec = getattr(objective, "spec", type(objective).__name__)
        raise ValueError(f"objective {spec!r}: tie_break_scale must be a finite number >= 0, got {scale!r}")
    return float(scale)


def _rng(random_state: Any) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        return np.random.default_rng()
    return np.random.default_rng(np.random.SeedSequence(int(random_state), spawn_key=(_TIE_BREAK_STREAM,)))


def tie_break_offsets(n_rows: int, scale: float, random_state: Any = None) -> np.ndarray | None:
    """The training start scores ε of a non-smooth objective, or None when ``scale`` is 0.

    Parameters
    ----------
    n_rows : int
        Training rows.
    scale : float
        Width s of the offsets' range (>= 0).
    random_state : None, int or numpy Generator
        Seeds the permutation (an int gets its own stream of that seed).

    Returns
    -------
    ndarray of float64, shape (n_rows,), or None
        A random permutation of s·(j/(n − 1) − ½), j = 0..n−1: n distinct values,
        evenly spaced, from −s/2 to s/2 (a single row gets 0).  None for s = 0.

    Notes
    -----
    Evenly spaced rather than drawn from a density: the range is exactly s
    (the bound on how much the offset moves J) and the smallest gap is exactly
    s/(n − 1) (no near-ties that rounding could merge).  O(n) time and memory.
    """
    # named checks: scale="0.1" would be a raw comparison error and n_rows=2.5 cut to 2 rows without a word
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale: the tie-break scale must be a finite number >= 0, got {type(scale).__name__}")
    if scale < 0 or not math.isfinite(scale):
        raise ValueError(f"scale: the tie-break scale must be a finite number >= 0, got {scale!r}")
    if isinstance(n_rows, (bool, np.bool_)) or not isinstance(n_rows, numbers.Integral):
        raise TypeError(f"n_rows: expected an integer number of training rows, got {type(n_rows).__name__}")
    if scale == 0.0:
        return None
    n = int(n_rows)
    if n < 1:
        raise ValueError(f"n_rows: expected at least one row, got {n_rows!r}")
    if n == 1:
        return np.zeros(1)
    grid = scale * (np.arange(n, dtype=np.float64) / (n - 1) - 0.5)
    return grid[_rng(random_state).permutation(n)]
