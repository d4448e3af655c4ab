"""KS intervals, which pROC does not compute, against plain NumPy on the tied and untied cases of the pROC table.

The statistic is checked exactly; the bootstrap interval is checked to be the percentile interval of its own
replicates (the convention of the AUC intervals checked against pROC), and its replicates against an
independent stratified bootstrap written here, within Monte-Carlo error, as the pROC test checks pROC's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankcore.metrics import confidence_interval
from _proc_reference import cases

CASES = cases()


def _ks(y: np.ndarray, s: np.ndarray) -> float:
    """max over cuts t of F_0(t) - F_1(t): the share of irrelevant rows at or below t less that of relevant ones."""
    cuts = np.unique(s)
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
    below_neg = np.searchsorted(neg, cuts, side="right") / neg.size
    below_pos = np.searchsorted(pos, cuts, side="right") / pos.size
    return float(max(0.0, np.max(below_neg - below_pos)))


def _stratified_replicates(y: np.ndarray, s: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    out = np.empty(n_boot)
    for b in range(n_boot):
        rows = np.r_[rng.choice(pos, pos.size), rng.choice(neg, neg.size)]
        out[b] = _ks(y[rows], s[rows])
    return out


def _within_mc_error(replicates: np.ndarray, theirs: float, p: float) -> bool:
    """``theirs`` lies inside the band of ranks b·p ± 4·√2·√(b·p(1 − p)) of the sorted ``replicates``."""
    values = np.sort(replicates)
    b = values.shape[0]
    spread = 4 * math.sqrt(2) * math.sqrt(b * p * (1 - p))
    low = values[max(0, int(math.floor(b * p - spread)))]
    high = values[min(b - 1, int(math.ceil(b * p + spread)))]
    return low <= theirs <= high


@pytest.mark.parametrize("name", sorted(CASES))
def test_ks_interval_agrees_with_plain_numpy_on_ties(name):
    y, s1, _ = CASES[name]
    ci = confidence_interval(y, s1, "ks", n_boot=2000, random_state=0, return_replicates=True)
    assert ci.method == "bootstrap" and ci.n_dropped == 0
    assert ci.estimate == pytest.approx(_ks(y, s1), abs=1e-12)
    replicates = ci.replicates
    assert replicates.shape == (2000,) and np.all((replicates >= 0) & (replicates <= 1))
    assert (ci.lower, ci.upper) == pytest.approx(tuple(np.quantile(replicates, [0.025, 0.975])), abs=1e-12)
    ours = _stratified_replicates(y, s1, 2000, seed=1)
    assert _within_mc_error(replicates, float(np.quantile(ours, 0.025)), 0.025)
    assert _within_mc_error(replicates, float(np.quantile(ours, 0.975)), 0.975)
