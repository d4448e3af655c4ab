"""The ``price`` plugin family."""

from ._base import Price

__all__ = ["Price"]
