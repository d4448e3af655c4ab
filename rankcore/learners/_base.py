"""The :class:`Learner` base class of the ``learner`` plugin family.

(Draft interface from the foundation; the issue that implements this family
completes it.)
"""

from __future__ import annotations

from typing import ClassVar

from ..spec import Component

__all__ = ["Learner"]


class Learner(Component):
    """Base class of the ``learner`` plugin family."""

    family: ClassVar[str] = "learner"
