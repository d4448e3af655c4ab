"""The ``kernel`` plugin family."""

from ._base import Kernel

__all__ = ["Kernel"]
