"""The :class:`Price` base class of the ``price`` plugin family.

(Draft interface from the foundation; the issue that implements this family
completes it.)
"""

from __future__ import annotations

from typing import ClassVar

from ..spec import Component

__all__ = ["Price"]


class Price(Component):
    """Base class of the ``price`` plugin family."""

    family: ClassVar[str] = "price"
