"""The trees' curvature floor: the least curvature a leaf may hold (``min_child_weight``, docs/trees.md)."""

from __future__ import annotations

__all__ = ["curvature_floor"]


def curvature_floor(min_child_weight: float, H: float, C: float, unit: float = 0.0) -> float:
    """The least curvature a child of this tree may have: ``min_child_weight`` · max(H/C, ``unit``).

    H/C is the root's mean curvature per row (objectives normalize their
    curvature differently); ``unit`` is the curvature of one row of unit
    curvature in the objective's scale (``layout.curvature_unit``, 0: none).
    Without it, curvatures that all saturate towards 0 (init scores far
    apart) would take the floor down with them, and a leaf of tiny ΣH but
    ordinary ΣG would get a huge −G/H.  The native growers compute the same
    double (``_grow.pyx``, ``_grow_oblivious.pyx``); the further leaf Newton
    steps (``leaf_newton_steps``) hold each leaf to the floor its tree was
    grown with.
    """
    return min_child_weight * max(H / C, unit)
