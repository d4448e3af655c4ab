"""The precision@k surrogates of Kar, Narasimhan and Jain (docs/theory/precision_at_k.md), as functions of scores.

For 0/1 labels ``y`` with n₊ positives, scores ``s`` and 1 <= k <= n₊, each
surrogate is a maximum over labellings ŷ with |ŷ| = k; with Δ the number of
negatives in ŷ it reduces to a maximum over Δ = 0..min(k, n₋) of a closed form
in sorted prefix sums (the Δ-decomposition), evaluated in O(n log n):

========  =========================================================  =========
name      per-Δ term (P_m / N_m: sum of the m top positive / negative)  convex
========  =========================================================  =========
struct    Δ + N_Δ + P_{k−Δ} − P_{n₊}   (Joachims; not an upper bound) yes
ramp      Δ + N_Δ − (P_k − P_{k−Δ})                                  no
max       Δ + N_Δ − (P_{n₊} − P_{n₊−Δ})                              yes
avg       Δ + N_Δ − Δ·(P_{n₊} − P_{k−Δ}) / (n₊ − k + Δ)              yes
========  =========================================================  =========

prec@k loss <= ramp <= avg <= max for every score vector; avg = struct when
k = n₊.  Values are normalized by k (so the prec@k loss, 1 − prec@k, is the
fraction of the k top places held by negatives) unless ``normalize=False``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_flag, check_k, check_labels_and_scores

__all__ = ["SURROGATES", "CONVEX_SURROGATES", "surrogate", "surrogate_and_grad", "resolve_k"]

#: Surrogate names (struct first; of the others, prec@k loss <= ramp <= avg <= max for every score vector).
SURROGATES = ("struct", "ramp", "max", "avg")
#: The surrogates that are convex in the scores (so in w for a linear model).
CONVEX_SURROGATES = ("struct", "max", "avg")


def _kernels():
    from . import _surrogates

    return _surrogates


def check_surrogate_name(name: Any, *, argument: str = "surrogate", allowed: tuple = SURROGATES) -> str:
    """Validate a surrogate name; return it."""
    if not isinstance(name, str) or name not in allowed:
        raise ValueError(f"{argument}: expected one of {', '.join(map(repr, allowed))}, got {name!r}")
    return name


def resolve_k(k: Any, n: int, n_pos: int, *, name: str = "k") -> int:
    """k as a count for ``n`` examples with ``n_pos`` positives (surrogates need 1 <= k <= n₊).

    ``k`` is a count or a fraction κ of ``n`` (resolved by
    :func:`rankcore.validation.check_k`: ``max(1, round-half-up(κ·n))``).

    Raises
    ------
    ValueError
        k outside [1, n], or larger than the number of positives.
    """
    count = check_k(k, n, name=name)
    if count > n_pos:
        raise ValueError(
            f"{name}: the precision@k surrogates need k <= the number of positives ({n_pos}), got k = {count}"
            + (f" (from the fraction {k!r} of {n})" if float(k) < 1 else "")
            + f"; use k = {n_pos} (at k >= n₊ the best ranking puts every positive on top)"
        )
    return count


def _surrogate_batch(y: Any, scores: Any, k: Any, kind: str, *, with_grad: bool):
    """The validated inputs through the kernel: (value, grad or None, k used), unnormalized."""
    check_surrogate_name(kind, argument="kind")
    y_arr, s_arr = check_labels_and_scores(y, scores, what=f"surrogate {kind!r}")
    n_pos = int(np.count_nonzero(y_arr))
    count = resolve_k(k, y_arr.shape[0], n_pos)
    kernels = _kernels()
    value, grad, k_used, _, _ = kernels.surrogate_batch(s_arr, y_arr, count, kernels.KINDS[kind], with_grad)
    return value, grad, k_used


def surrogate_and_grad(y: Any, scores: Any, k: Any, kind: str = "avg", *, normalize: bool = True
                       ) -> tuple[float, np.ndarray]:
    """Value and a subgradient of a precision@k surrogate with respect to the scores.

    Parameters
    ----------
    y : array-like of shape (n,)
        0/1 labels (1 = relevant); both classes needed.
    scores : array-like of shape (n,)
        Finite scores.
    k : int or float
        A count in [1, n₊] or a fraction in (0, 1) of n (``check_k``).
    kind : {"struct", "ramp", "max", "avg"}
    normalize : bool, default True
        Divide value and gradient by k.

    Returns
    -------
    value : float
    grad : ndarray of shape (n,)
        A subgradient (``ramp`` is not convex: there it is the gradient of
        the active piece).  Ties are not broken by position: coefficients are
        averaged over groups of equal scores, so permuting the input permutes
        the gradient.

    Notes
    -----
    Time O(n log n) (one sort), memory O(n).  For a linear model s = Xw the
    gradient in w is ``X.T @ grad``.
    """
    # a flag, not any truthy value: normalize="no" would divide by k
    normalize = check_flag(normalize, name="normalize")
    value, grad, k_used = _surrogate_batch(y, scores, k, kind, with_grad=True)
    if normalize:
        value /= k_used
        grad /= k_used
    return float(value), grad


def surrogate(y: Any, scores: Any, k: Any, kind: str = "avg", *, normalize: bool = True) -> float:
    """Value of a precision@k surrogate (see :func:`surrogate_and_grad`)."""
    normalize = check_flag(normalize, name="normalize")
    value, _, k_used = _surrogate_batch(y, scores, k, kind, with_grad=False)
    return float(value / k_used) if normalize else float(value)
