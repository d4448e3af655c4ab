"""Regularized ranking in a reproducing kernel Hilbert space.

The risk, the filters and the parameter choice: ``docs/theory/kernel_ranking.md``.

:class:`KernelRanker` fits magnitude-preserving least-squares ranking
functions under any registered spectral filter and kernel; one decomposition
of the centered kernel operator serves every λ and every filter
(:mod:`rankcore.rkhs._spectral`).  The same loss over scores is the boosting
objective ``"mp-squared"`` (:mod:`rankcore.rkhs._objective`).

Names are imported on first access, so that the plugin module
(:mod:`rankcore.rkhs._plugin`) stays light.
"""

from __future__ import annotations

from .._lazy import lazy_attributes

_LAZY = {
    "KernelRanker": "_estimator",
    "EXACT_AUTO_LIMIT": "_estimator",
    "default_grid": "_selection",
    "Spectrum": "_spectral",
    "ExactSpectrum": "_spectral",
    "NystroemSpectrum": "_spectral",
    "KrylovSpectrum": "_krylov",
    "KrylovConvergenceWarning": "_krylov",
    "GridEdgeWarning": "_selection",
    "plan_solver": "_plan",
    "MagnitudePreservingSquared": "_objective",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
