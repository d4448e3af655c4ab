"""The ``price`` plugin family: the g of the push objective R = Σ_k g(L_k)."""

from ._base import Price
from ._builtin import Exponential, Identity, Power

__all__ = ["Price", "Identity", "Power", "Exponential"]
