"""The ``objective`` plugin family."""

from ._base import Objective

__all__ = ["Objective"]
