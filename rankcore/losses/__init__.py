"""The ``loss`` plugin family: the ℓ of the push objective R = Σ_k g(Σ_i ℓ(f_i − f_k))."""

from ._base import Loss
from ._builtin import Exponential, Hinge, Logistic, SquaredHinge

__all__ = ["Loss", "Exponential", "Logistic", "Hinge", "SquaredHinge"]
