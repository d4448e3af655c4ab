"""Ratios of two benchmark timings taken in one session."""

from __future__ import annotations

import math


def time_ratio(numerator: float | None, denominator: float | None) -> float:
    """``numerator / denominator``, or NaN when either timing is missing (its benchmark did not run)."""
    return numerator / denominator if numerator and denominator else math.nan
