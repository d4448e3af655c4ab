"""The ``learner`` plugin family."""

from ._base import Learner

__all__ = ["Learner"]
