"""The :class:`Filter` base class of the ``filter`` plugin family.

(Draft interface from the foundation; the issue that implements this family
completes it.)
"""

from __future__ import annotations

from typing import ClassVar

from ..spec import Component

__all__ = ["Filter"]


class Filter(Component):
    """Base class of the ``filter`` plugin family."""

    family: ClassVar[str] = "filter"
