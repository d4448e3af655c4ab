"""The :class:`Kernel` base class of the ``kernel`` plugin family.

(Draft interface from the foundation; the issue that implements this family
completes it.)
"""

from __future__ import annotations

from typing import ClassVar

from ..spec import Component

__all__ = ["Kernel"]


class Kernel(Component):
    """Base class of the ``kernel`` plugin family."""

    family: ClassVar[str] = "kernel"
