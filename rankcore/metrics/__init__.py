"""Ranking metrics (the ``metric`` plugin family)."""

from ._base import Metric

__all__ = ["Metric"]
