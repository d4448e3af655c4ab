"""The ``filter`` plugin family."""

from ._base import Filter

__all__ = ["Filter"]
