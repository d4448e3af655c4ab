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

import importlib
from typing import Any

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rankcore.rkhs' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
