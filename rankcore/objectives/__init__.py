"""The ``objective`` plugin family: functions of the scores that the boosting driver minimizes."""

from ._base import BoundObjective, BoundSeparable, LinePoint, Objective, RowBlock
from ._push import PushObjective

__all__ = ["Objective", "BoundObjective", "BoundSeparable", "LinePoint", "RowBlock", "PushObjective"]
