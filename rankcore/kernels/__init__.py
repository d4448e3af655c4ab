"""Kernel functions K(x, x') for kernel ranking (the ``kernel`` plugin family).

Built-ins: ``rbf[:γ]``, ``laplacian[:γ]``, ``poly[:degree,γ,coef0]``,
``linear``, ``tanimoto`` (fingerprints);
γ divides (docs/theory/kernel_ranking.md#kernels).  See :class:`Kernel` for writing a new one.
"""

from ._base import CallableKernel, Kernel
from ._builtin import RBF, Laplacian, Linear, Polynomial, Tanimoto
from ._gram import inner_products

__all__ = ["Kernel", "CallableKernel", "RBF", "Laplacian", "Polynomial", "Linear", "Tanimoto", "inner_products"]
