"""The ``objective`` plugin family: functions of the scores that the boosting driver minimizes."""

from ._base import BoundObjective, BoundSeparable, LinePoint, Objective, RowBlock, SeparableObjective
from ._base import HESSIAN_FLOOR, LineSearchResult, clip_hessian
from ._push import PushObjective

# SeparableObjective: the earlier name of BoundSeparable (objectives bound to data are named Bound...).
__all__ = ["Objective", "BoundObjective", "BoundSeparable", "SeparableObjective", "LinePoint", "RowBlock",
           "PushObjective",
           "LineSearchResult", "clip_hessian", "HESSIAN_FLOOR"]
