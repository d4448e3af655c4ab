"""The background rows of interventional SHAP values (``feature_contributions(X, background=...)``), checked as X.

The background is read by the same checks as the rows explained (the
features of fit, a DataFrame's columns by name, NaN where the model routes
it), so a background the model could not score is refused; the checks'
messages name ``background`` instead of X.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

__all__ = ["BACKGROUND_ADVICE", "check_background"]

#: Said where ``background`` is documented: the cost grows with its rows.
BACKGROUND_ADVICE = "a few hundred rows, at most about 1,000: the time grows with their number, the memory does not"


def check_background(check: Callable[[Any], np.ndarray], background) -> np.ndarray:
    """``check(background)`` (the estimator's check of X), its ``ValueError`` and ``TypeError`` naming
    ``background``; a ``ValueError`` for a background without rows, before the check."""
    if background is None:
        raise ValueError("background: expected at least 1 row, got None")
    shape = getattr(background, "shape", None)
    if (shape is not None and len(shape) == 2 and shape[0] == 0) or (isinstance(background, (list, tuple))
                                                                    and len(background) == 0):
        raise ValueError(f"background: expected at least 1 row (the reference rows the features' values are taken "
                         f"from), got {tuple(shape) if shape is not None else 'an empty list'}")
    try:
        return check(background)
    except (ValueError, TypeError) as exc:
        message = str(exc).strip()
        named = re.sub(r"^X\b", "background", message)
        raise type(exc)(named if named != message else f"background: {message}") from None
