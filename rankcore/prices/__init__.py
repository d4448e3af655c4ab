"""The ``price`` plugin family: the g of the push objective R = Σ_k g(L_k)."""

from ._base import Price
from ._builtin import MAX_POWER, MAX_RATE, Exponential, Identity, Power

__all__ = ["Price", "Identity", "Power", "Exponential", "MAX_POWER", "MAX_RATE"]
