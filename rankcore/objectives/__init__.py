"""The ``objective`` plugin family: functions of the scores that the boosting driver minimizes."""

from ._base import BoundObjective, LinePoint, Objective, RowBlock, SeparableObjective
from ._push import PushObjective

__all__ = ["Objective", "BoundObjective", "SeparableObjective", "LinePoint", "RowBlock", "PushObjective"]
