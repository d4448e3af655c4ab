"""Spectral regularization filters g_λ(t) (the ``filter`` plugin family).

Built-ins: ``tikhonov``, ``iterated:ν``, ``cutoff``, ``landweber[:step]``,
``showalter``.  See :class:`Filter` for writing a new one.
"""

from ._base import Filter
from ._builtin import IteratedTikhonov, Landweber, Showalter, SpectralCutoff, Tikhonov

__all__ = ["Filter", "Tikhonov", "IteratedTikhonov", "SpectralCutoff", "Landweber", "Showalter"]
