"""ExactBoost's monotonicity probe of plugin metrics: trials the metric refuses, and its cache under threads."""

from __future__ import annotations

import numpy as np
import pytest

import rankcore
from rankcore.exactboost import _metric
from rankcore.spec import Parameter


class PickyReversed(rankcore.Metric):
    """Not monotone (a positive scored lower is better), and refuses lists with fewer than 5 positives."""

    name = "picky-reversed-test"
    greater_is_better = True

    def compute(self, y, scores):
        if int(y.sum()) < 5:
            raise ValueError("picky-reversed-test needs 5 positives")
        return float(scores[y == 0].mean() - scores[y == 1].mean())


class Fine(rankcore.Metric):
    """Monotone: the share of positive-negative pairs in order."""

    name = "fine-probe-test"
    greater_is_better = True

    def compute(self, y, scores):
        return float(np.mean(scores[y == 1][:, None] > scores[y == 0][None, :]))


def test_probe_judges_a_metric_on_the_trials_it_accepts():
    # before: the first trial the metric refused ended the probe with "not judged", so this metric escaped
    problem = _metric.monotonicity_violation(PickyReversed())
    assert problem is not None and "got worse" in problem


def test_probe_does_not_judge_a_metric_that_refuses_every_trial():
    class Never(rankcore.Metric):
        name = "never-probe-test"
        greater_is_better = True

        def compute(self, y, scores):
            raise ValueError("never")

    assert _metric.monotonicity_violation(Never()) is None


class _ClearedByAnotherFit(dict):
    """A cache that another thread's fit clears right after each store."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.clear()


def test_probe_cache_cleared_by_another_fit_meanwhile_still_answers(monkeypatch):
    # another thread's fit may clear the cache between this fit's store and a read back (before: KeyError)
    monkeypatch.setattr(_metric, "_PROBED", _ClearedByAnotherFit())
    assert _metric._probed(Fine()) is None
    assert "got worse" in _metric._probed(PickyReversed())


def test_exactboost_refuses_a_metric_that_refuses_some_probe_trials():
    with pytest.raises(ValueError, match="got worse"):
        _metric.resolve_monotone_metric(PickyReversed())



class SeededReversed(rankcore.Metric):
    """Not monotone, with a whole-number parameter that counts no rows."""

    name = "seeded-reversed-test"
    greater_is_better = True
    parameters = (Parameter("seed", int, default=1000, doc="a seed"),)

    def compute(self, y, scores):
        return float(scores[y == 0].mean() - scores[y == 1].mean())


def test_probe_rows_follow_count_parameters_only():
    # before: the seed 1000 was read as a count of rows beyond the probe's 256, and the probe was skipped
    problem = _metric.monotonicity_violation(SeededReversed())
    assert problem is not None and "got worse" in problem
