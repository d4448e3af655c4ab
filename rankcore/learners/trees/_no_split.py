"""Why a tree could not be grown: the trees learner's account of an empty search.

A search that returns no tree either has nothing left to fit -- no split of
the root gains even without the leaf constraints (the driver reports
``"converged"``) -- or a constraint blocked every split: too few rows for two
leaves of ``min_samples_leaf``, an empty row sample, no bin edge, leaves too
light for ``min_child_weight``, a cap (``max_delta_step``) that holds both
sides of every gaining split at one bound (the tree would be constant), or an
``l2`` (a cap) that shrinks every leaf value below the smallest normal
number.  :func:`unsplit_reason` names the one that applies, in the words of
the parameters to change (the driver then stops with ``stop_reason_ =
"no_split"`` and a ``UserWarning``).  A tree that is grown but whose step no
longer moves the scores -- its derivative within ``tol``, or no step along it
lowering the objective -- ends the fit as converged, unless the cap clamped
its leaf values: :func:`capped_stall_reason` then names the cap, and the
driver stops the same way.

Cost: :func:`free_split_gain` is O(S) on the root's histogram of S slots, once per
search that finds no split.
"""

from __future__ import annotations

import numpy as np

__all__ = ["free_split_gain", "root_gains", "unsplit_reason", "underflow_reason", "capped_stall_reason",
           "uncapped_derivative"]

#: Smallest normal float64: a tree whose leaf values are all below it (in magnitude) is no direction.
TINY = float(np.finfo(np.float64).tiny)


def free_split_gain(hist, feature_mask: np.ndarray, l2: float, tie_tolerance: float, cap: float = 0.0) -> bool:
    """Whether some split of a node gains without ``min_samples_leaf`` and ``min_child_weight``.

    ``hist`` holds one (B_j, 3) histogram per feature (Σg, Σh, count per
    code; the last code is NaN, sent right here): a (d, 256, 3) array, or
    the per-feature slot blocks of a trees layout.  A gain counts when it
    exceeds ``tie_tolerance`` times the largest term, as the split search's
    ties do.  ``cap`` > 0 (``max_delta_step``): the gains of the values
    clamped to [−cap, cap], and a split whose two sides both sit at one
    bound is none (as ``_split.best_split`` weighs them without monotone
    constraints).
    """
    for j in np.flatnonzero(np.asarray(feature_mask, dtype=bool)):
        if _feature_gains(np.asarray(hist[j], dtype=np.float64), l2, tie_tolerance, cap):
            return True
    return False


def root_gains(hist, feature_mask: np.ndarray, l2: float, tie_tolerance: float, cap: float = 0.0) -> bool | str:
    """What :func:`unsplit_reason` takes as ``root_gains`` for a root no split was found for: whether some split
    gains (:func:`free_split_gain`), or ``"cap"`` when splits gain but none under the cap ``max_delta_step``
    (every gaining split has both sides beyond one bound), which ``min_samples_leaf`` does not explain."""
    gains = free_split_gain(hist, feature_mask, l2, tie_tolerance)
    if gains and cap > 0 and not free_split_gain(hist, feature_mask, l2, tie_tolerance, cap):
        return "cap"
    return gains


def _capped_terms(G: np.ndarray, H: np.ndarray, cap: float) -> np.ndarray:
    """Each leaf's gain term at its value clamped to ±cap: G²/H inside, −(2·G·w + H·w²) at w = ±cap (H
    includes l2)."""
    w = np.clip(-G / H, -cap, cap)
    return np.where(np.abs(G / H) <= cap, G * G / H, -(2 * G * w + H * w * w))


def _feature_gains(h: np.ndarray, l2: float, tie_tolerance: float, cap: float = 0.0) -> bool:
    """:func:`free_split_gain` for one feature's (B, 3) histogram."""
    if h.shape[0] < 3:
        return False
    # (a gradient that overflowed -- scores pushed apart without bound on separable rows -- makes
    # inf − inf here: those gains are not finite and count as none, without a warning)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = h.sum(axis=0)                                     # (3,)
        left = np.cumsum(h[:-1, :], axis=0)[:-1, :]               # codes <= b on the left, b = 0..B-3
        right = total[None, :] - left
        both = (left[:, 2] > 0) & (right[:, 2] > 0)
        terms_l = left[:, 0] ** 2 / (left[:, 1] + l2)
        terms_r = right[:, 0] ** 2 / (right[:, 1] + l2)
        parent = total[0] ** 2 / (total[1] + l2)
        if cap > 0:
            w_l, w_r = -left[:, 0] / (left[:, 1] + l2), -right[:, 0] / (right[:, 1] + l2)
            both &= ~(((w_l >= cap) & (w_r >= cap)) | ((w_l <= -cap) & (w_r <= -cap)))
            terms_l = _capped_terms(left[:, 0], left[:, 1] + l2, cap)
            terms_r = _capped_terms(right[:, 0], right[:, 1] + l2, cap)
            parent = _capped_terms(total[:1], total[1:2] + l2, cap)[0]
        gain = terms_l + terms_r - parent
        scale = np.maximum(np.maximum(terms_l, terms_r), parent)
    ok = both & np.isfinite(gain) & (gain > tie_tolerance * scale) & (gain > 0)
    return bool(ok.any())


def unsplit_reason(layout, rows: int, feature_mask: np.ndarray, root_gains: bool | None) -> str | None:
    """Why a tree's root was not split, or None when nothing is left to fit (no split gains at all).

    Parameters
    ----------
    layout : TreeLayout
        Its parameters (``subsample``, ``min_samples_leaf``, ...) and bin edges.
    rows : int
        The rows of this tree (after the row subsample).
    feature_mask : uint8 array
        The features the root may split on: drawn for this tree, within the interaction groups.
    root_gains : bool, "cap" or None
        :func:`free_split_gain` of the root when its split search found
        nothing; None when the search never ran (too few rows); ``"cap"``
        when splits gain but none under ``max_delta_step`` (every gaining
        split has both sides beyond one bound: the tree would be constant).
    """
    sampled = f" (subsample={layout.subsample:g})" if layout.subsample < 1.0 else ""
    if rows <= 0:
        return f"no row was drawn for this tree{sampled}: raise subsample"
    if not np.any(feature_mask):            # (colsample draws one at least: the interaction groups hold none)
        return ("no feature may split: the columns of the interaction groups (interactions) are not stored, each "
                "being constant or nonzero on too few rows; name other columns in the groups")
    if not np.any(layout.n_edges[np.asarray(feature_mask, dtype=bool)]):
        if getattr(layout, "interactions", None) is not None:        # the mask is the groups' columns
            return ("no feature may split: the columns of the interaction groups (interactions) that this tree may "
                    "split on are constant on the rows that placed the bins; name other columns in the groups (or "
                    "raise bin_subsample, if they vary on rows it did not sample)")
        # (colsample draws among the features that can split: it helps only where one splits by NaN alone)
        also = " or colsample" if layout.colsample < 1.0 else ""
        return ("no feature has a bin edge: every feature drawn for this tree is constant on the rows that placed "
                f"the bins (raise bin_subsample{also})")
    if rows < 2 * layout.min_samples_leaf:
        more = " or raise subsample" if sampled else ""
        return (f"this tree's {rows} rows{sampled} cannot make two leaves of min_samples_leaf="
                f"{layout.min_samples_leaf} rows: lower min_samples_leaf (to at most {max(1, rows // 2)}){more}")
    if not root_gains:
        return None
    if root_gains == "cap":
        cap = layout.max_delta_step
        return (f"every split of this tree's {rows} rows that gains has both sides' leaf values -G/(H + l2) beyond "
                f"one bound of the cap max_delta_step={cap!r} (the tree would add the same {cap!r} to every row): "
                "the scores are far from where the objective's curvature lies (init_score, a far init_model?); "
                "raise max_delta_step, or set it to 0 (no cap), or start from nearer scores")
    return (f"every split of this tree's {rows} rows that gains leaves fewer than min_samples_leaf="
            f"{layout.min_samples_leaf} rows or less than min_child_weight={layout.min_child_weight:g} of "
            f"curvature on a side: lower them")


def underflow_reason(values: np.ndarray, l2: float, cap: float = 0.0) -> str | None:
    """The reason to refuse a tree whose leaf values all underflow (``l2`` = 1e308, or a ``max_delta_step``
    below the smallest normal number: ``cap``), else None."""
    if np.any(np.abs(values) >= TINY):
        return None
    if 0 < cap < TINY:
        return (f"every leaf value is clamped to the cap max_delta_step={cap!r}, below the smallest normal number "
                f"{TINY!r}, so no tree moves a score: raise max_delta_step (0: no cap)")
    return (f"every leaf value -G/(H + l2) of this tree underflows to 0 or a subnormal number (l2={l2:g}): "
            "lower l2")


def uncapped_derivative(G: np.ndarray, H: np.ndarray, l2: float) -> float:
    """Σ G·v over a tree's leaves at their values without the cap, v = −G/(H + l2): −Σ G²/(H + l2).

    ``G``, ``H``: each distinct leaf's sums of the gradient and the curvature.  Its magnitude is the tree's
    Newton decrement: within ``tol``, the gradient itself is that small against the curvature, and the tree
    without the cap would end the fit as converged too, so :func:`capped_stall_reason` leaves it converged.  A
    leaf without curvature (H + l2 = 0) gives an infinite magnitude (the cap is then named).  O(leaves).
    """
    G = np.asarray(G, dtype=np.float64)
    H = np.asarray(H, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = np.where(G == 0.0, 0.0, G * G / (H + l2))
    return -float(np.sum(terms))


def capped_stall_reason(leaf_values: np.ndarray, cap: float, derivative: float | None = None,
                        tol: float | None = None, uncapped: float | None = None,
                        uncapped_exact: bool = True) -> str | None:
    """The reason a fit ends on a tree whose step no longer moves the scores when the cap ``max_delta_step`` made
    that step too small.  Else None.

    ``derivative`` and ``tol``: the tree's derivative Σ G·v, within ``tol`` (the fit's stopping rule); None:
    no step along the tree lowers the objective (its line search).  A clamped leaf is one whose value
    −G/(H + l2) lies beyond the cap: its value is the bound itself, exactly.

    * Every leaf value the tree moves a score by (every nonzero one) clamped: the tree is the cap times a sign per
      leaf, and its derivative scales with the cap: the cap, not a vanishing gradient, ended the fit -- unless the
      tree's ``uncapped`` derivative (:func:`uncapped_derivative`, when known) is within ``tol`` too: without the
      cap the fit would stop there all the same (a large ``tol``, a gradient that small), so it converged.
    * Some clamped, some free: the free leaves' part of the derivative is their own Newton decrement, so the cap
      is named only when the ``uncapped`` derivative is known and beyond ``tol`` (the tree without the cap would
      have gone on); unknown, not ``uncapped_exact`` (leaf-wise and depth-wise trees under monotone constraints:
      theirs ignores the constraints' bounds, so it overstates the tree without the cap), or on the line search's
      rule, a gradient that small is a converged fit.

    The cap is printed as given (``repr``), every digit.  O(leaves).
    """
    values = np.abs(np.asarray(leaf_values, dtype=np.float64))
    moving = values[values != 0.0]
    clamped = int(np.count_nonzero(moving == cap)) if cap > 0 else 0
    if clamped == 0:
        return None
    uncapped_within = uncapped is not None and tol is not None and abs(uncapped) <= tol
    if clamped < moving.shape[0]:
        if derivative is None or tol is None or uncapped is None or uncapped_within or not uncapped_exact:
            return None
        which = f"{clamped} of the {moving.shape[0]} nonzero leaf values"
        how = f"its derivative {derivative:.3g} is within tol = {tol:g}, without the cap it would be {uncapped:.3g}"
    else:
        if derivative is not None and uncapped_within:
            return None
        which = "every leaf value" if moving.shape[0] == values.shape[0] else "every nonzero leaf value"
        how = (f"its derivative {derivative:.3g} is within tol = {tol:g}" if derivative is not None
               else "no step along it lowers the objective")
    return (f"the cap max_delta_step={cap!r} clamped {which} of this tree to +-{cap!r}, too small a step to go "
            f"on ({how}): raise max_delta_step, or set it to 0 (no cap)")
