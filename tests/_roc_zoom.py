"""What a ROC panel cut at ``max_fp`` must draw: roc_curve's points up to it, then the border point of a crossing
tie."""

import numpy as np

from rankcore.metrics import roc_curve


def assert_zoomed_roc(x, y_drawn, y, scores, max_fp):
    """The metric's points up to ``max_fp``; a tie group's diagonal crossing it is cut on the border, linearly."""
    x, y_drawn = np.asarray(x, dtype=np.float64), np.asarray(y_drawn, dtype=np.float64)
    curve = roc_curve(y, scores, max_fp=max_fp)
    k = curve.fp.shape[0]
    np.testing.assert_array_equal(x[:k], curve.fp)
    np.testing.assert_array_equal(y_drawn[:k], curve.tp)
    if max_fp is None or x.shape[0] == k:
        return
    assert x.shape[0] == k + 1 and x[-1] == max_fp
    full = roc_curve(y, scores)
    j = int(np.searchsorted(full.fp, max_fp))
    slope = (full.tp[j] - full.tp[j - 1]) / (full.fp[j] - full.fp[j - 1])
    np.testing.assert_allclose(y_drawn[-1], full.tp[j - 1] + (max_fp - full.fp[j - 1]) * slope, rtol=1e-12)
