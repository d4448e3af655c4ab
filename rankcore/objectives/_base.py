"""The :class:`Objective` base class of the ``objective`` plugin family.

(Draft interface from the foundation; the issue that implements this family
completes it.)
"""

from __future__ import annotations

from typing import ClassVar

from ..spec import Component

__all__ = ["Objective"]


class Objective(Component):
    """Base class of the ``objective`` plugin family."""

    family: ClassVar[str] = "objective"
