"""Test-only: background rows every interventional explanation refuses, with the error each must raise.

Shared by the interventional values' and interaction values' tests of models of five columns.
"""

import numpy as np

__all__ = ["BAD_BACKGROUNDS"]

#: (background, error, message) for a model fitted on five columns.
BAD_BACKGROUNDS = [
    (np.empty((0, 5)), ValueError, "background: expected at least 1 row"),
    ([], ValueError, "background: expected at least 1 row"),
    (np.ones((3, 4)), ValueError, "background has 4 features"),
    (np.ones(5), ValueError, "background: expected a 2-D array"),
    (np.full((2, 5), np.inf), ValueError, "background: expected numbers or NaN, got infinite"),
]
