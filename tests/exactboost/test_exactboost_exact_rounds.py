"""ExactBoost's rounds against brute force, and its refusal of metrics that are not monotone.

A round with ``subsample=1.0``, ``feature_subsample=1.0`` and ``max_boxes=None``
must pick a stump whose margin-adjusted loss is the minimum over every feature,
every midpoint threshold and every (a, b) of the grid (written out here in
NumPy, through the metric's public API), for built-in and plugin metrics.  The
branch and bound is exact only for monotone metrics, so a metric that breaks
monotonicity must be refused, even when its class does not say (the
``rankcore.Metric`` default is ``monotone = True``).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.spec import Parameter, count_or_fraction
from rankcore.validation import check_k


class TopRecall(rankcore.Metric):
    """Recall among the k top scores, ties by expected value: a plugin metric without a kernel."""

    name = "test-top-recall"
    greater_is_better = True
    bounded = True
    shift_invariant = True

    parameters = (Parameter("k", count_or_fraction, default=0.25, doc="a count or a fraction of n"),)

    def compute(self, y, scores):
        k = check_k(self.k, y.shape[0])
        kth = np.sort(scores)[-k]
        above, tied = scores > kth, scores == kth
        return float((y[above].sum() + y[tied].sum() * (k - above.sum()) / tied.sum()) / y.sum())


class BalancedTop(rankcore.Metric):
    """1 - |share of positives in the top half - 1/2|: not monotone, and its class does not say so."""

    name = "test-balanced-top"
    greater_is_better = True
    bounded = True

    def compute(self, y, scores):
        k = max(1, y.shape[0] // 2)
        kth = np.sort(scores)[-k]
        above, tied = scores > kth, scores == kth
        found = y[above].sum() + y[tied].sum() * (k - above.sum()) / tied.sum()
        return float(1.0 - abs(found / k - 0.5))


def _loss(metric, y, scores):
    return float(metric.to_loss(metric(y, scores)))


def _grid(depth):
    g = 2**depth
    return [(2 * i - g) / g for i in range(g + 1)]


def _brute_round(metric, X, y, S, theta, depth):
    """The least margin-adjusted loss over every stump, every stump reaching it, and the loss of adding nothing."""
    best, arg = np.inf, []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for xi in (values[:-1] + values[1:]) / 2:
            left = X[:, j] <= xi
            for a, b in itertools.product(_grid(depth), _grid(depth)):
                value = _loss(metric, y, S + np.where(left, a, b) - theta * y)
                if value < best - 1e-12:
                    best, arg = value, []
                if value <= best + 1e-12:
                    arg.append((j, xi, a, b))
    return best, arg, _loss(metric, y, S - theta * y)


def _check_rounds(metric, X, y, theta, n_rounds=2, depth=2):
    """Replay one run round by round against the brute force; returns the number of stumps checked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # a run that accepts nothing warns that the model is constant
        model = rankcore.ExactBoost(metric=metric, n_runs=1, n_rounds=n_rounds, subsample=1.0,
                                    feature_subsample=1.0, max_boxes=None, tie_break=None, head=None, margin=theta,
                                    depth=depth, random_state=0).fit(X, y)
    stumps = model.run_stumps(0)
    S = np.zeros(y.shape[0])
    for r in range(n_rounds):
        best, optima, nothing = _brute_round(metric, X, y, S, theta, depth)
        if r < stumps.shape[0]:
            j, xi, a, b = stumps[r]
            step = np.where(X[:, int(j)] <= xi, a, b)
            assert _loss(metric, y, S + step - theta * y) == pytest.approx(best, abs=1e-12), (r, stumps[r], best)
            assert _loss(metric, y, S + step) <= _loss(metric, y, S) + 1e-12
            S = S + step
            continue
        # nothing accepted: no stump beat adding nothing, or one of the optima fails the acceptance test
        rejected = [o for o in optima
                    if _loss(metric, y, S + np.where(X[:, o[0]] <= o[1], o[2], o[3])) > _loss(metric, y, S)]
        assert best >= nothing - 1e-12 or rejected, (r, best, nothing, optima[:3])
        break
    return min(stumps.shape[0], n_rounds)


def _small_problems(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, d = int(rng.integers(6, 13)), int(rng.integers(1, 3))
        X = rng.integers(0, 4, (n, d)).astype(float)    # ties in the features, hence in the scores
        y = rng.integers(0, 2, n)
        y[0], y[1] = 0, 1
        yield X, y


@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:3", "prec@k:0.25", "pauc:0.3"])
def test_exactboost_round_is_the_brute_force_optimum(spec):
    metric = rankcore.resolve("metric", spec)
    checked = sum(_check_rounds(metric, X, y, theta=(0.0, 0.05, 0.3)[i % 3])
                  for i, (X, y) in enumerate(_small_problems(1, 6)))
    assert checked > 0


def test_exactboost_round_is_the_brute_force_optimum_for_a_plugin_metric():
    checked = sum(_check_rounds(TopRecall(k=0.25), X, y, theta=(0.0, 0.05)[i % 2])
                  for i, (X, y) in enumerate(_small_problems(2, 6)))
    assert checked > 0


def test_exactboost_refuses_a_metric_that_is_not_monotone_though_its_class_does_not_say():
    X, y = next(_small_problems(3, 1))
    assert BalancedTop.monotone     # the base class's default
    with pytest.raises(ValueError, match="ExactBoost needs a monotone metric.*test-balanced-top.*got worse"):
        rankcore.ExactBoost(metric=BalancedTop(), n_runs=1, n_rounds=2).fit(X, y)
    with pytest.raises(ValueError, match="tie_break: ExactBoost needs a monotone metric"):
        rankcore.ExactBoost(metric="ks", tie_break=BalancedTop(), n_runs=1, n_rounds=2).fit(X, y)


def test_exactboost_monotonicity_probe_passes_every_monotone_builtin_and_plugin():
    from rankcore.exactboost import monotonicity_violation
    from rankcore.registry import registry

    reg = registry()
    for name in reg.names("metric"):
        cls = reg.get("metric", name)
        if cls.monotone and cls.scalar and cls.task == "bipartite" and cls.greater_is_better is not None:
            for spec in cls.example_specs():
                assert monotonicity_violation(rankcore.resolve("metric", spec)) is None, spec
    assert monotonicity_violation(TopRecall(k=3)) is None
    assert "got worse" in monotonicity_violation(BalancedTop())


def test_exactboost_candidate_of_autoranker_falls_back_to_auc_for_a_metric_that_is_not_monotone():
    from rankcore.auto._builtin import ExactBoostCandidate
    from rankcore.registry import register_plugin, unregister_plugin

    class Plugin:
        @rankcore.hookimpl
        def rankcore_register_metrics(self):
            return [BalancedTop, TopRecall]

    register_plugin(Plugin(), name="test-exact-rounds")
    try:
        candidate = ExactBoostCandidate()

        class Context:
            metric = "test-balanced-top"

        assert candidate.fit_metric(Context()) == "auc"
        Context.metric = "test-top-recall"
        assert candidate.fit_metric(Context()) == "test-top-recall"
    finally:
        unregister_plugin("test-exact-rounds")


def test_exactboost_plugin_metric_with_k_of_the_whole_training_set_fits_on_subsamples():
    """k = n (a count, no fraction in (0, 1)) is the whole subsample, not a k the plugin refuses there."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # recall at every row is 1 whatever the order: a constant model
        model = rankcore.ExactBoost(metric=TopRecall(k=40), n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    assert model.score(X, y) == 1.0
