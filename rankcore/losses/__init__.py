"""The ``loss`` plugin family."""

from ._base import Loss

__all__ = ["Loss"]
