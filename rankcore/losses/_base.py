"""The :class:`Loss` base class of the ``loss`` plugin family.

(Draft interface from the foundation; the issue that implements this family
completes it.)
"""

from __future__ import annotations

from typing import ClassVar

from ..spec import Component

__all__ = ["Loss"]


class Loss(Component):
    """Base class of the ``loss`` plugin family."""

    family: ClassVar[str] = "loss"
