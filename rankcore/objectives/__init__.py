"""The ``objective`` plugin family: functions of the scores that the boosting driver minimizes."""

from ._base import BoundObjective, LinePoint, Objective, RowBlock
from ._base import HESSIAN_FLOOR, LineSearchResult, clip_hessian
from ._separable import BoundSeparable, CheckedLine
from ._cross_entropy import CrossEntropy, sigmoid
from ._position_effects import PositionEffects, check_positions, effects_step, place_sums, require_curvature
from ._push import PushObjective
from ._query_blocks import BoundQueryBlocks
from ._query_rmse import QueryRMSETerm
from ._valueless import curvature_unit

__all__ = ["Objective", "BoundObjective", "BoundSeparable", "LinePoint", "RowBlock", "PushObjective",
           "LineSearchResult", "CheckedLine", "clip_hessian", "HESSIAN_FLOOR", "BoundQueryBlocks", "QueryRMSETerm",
           "PositionEffects", "check_positions", "effects_step", "place_sums", "require_curvature",
           "curvature_unit", "CrossEntropy", "sigmoid"]
