"""AutoRanker's parts on their own: folds and units, successive halving under a budget (a fake clock),
the variance-aware and nested choice, the rank-average blend's quantile map."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.auto._blend import fold_blend_scores, quantile_position, quantile_reference
from rankcore.auto._folds import check_metric_on_units, plan_folds, plan_units
from rankcore.auto._search import MIN_SURVIVORS, SuccessiveHalving, default_rungs
from rankcore.auto._selection import choose_single, select
from rankcore.auto._tasks import TaskResult, fold_seed

METRIC = rankcore.resolve("metric", "auc")


def _labels(n=200, positives=50, seed=0):
    y = np.zeros(n, dtype=np.int8)
    y[np.random.default_rng(seed).choice(n, positives, replace=False)] = 1
    return y


# ----------------------------------------------------------------------
# Folds and units
# ----------------------------------------------------------------------
def test_auto_folds_partition_every_repeat_and_are_stratified():
    y = _labels()
    plan = plan_folds(y, "auto", 0)
    assert plan.kind == "kfold" and plan.n_splits == 5 and plan.n_folds == 15
    for r in range(3):
        validated = np.concatenate([plan.folds[5 * r + f][1] for f in range(5)])
        np.testing.assert_array_equal(np.sort(validated), np.arange(200))
    for tr, va in plan.folds:
        assert np.intersect1d(tr, va).size == 0 and tr.size + va.size == 200
        assert y[va].sum() == 10
    np.testing.assert_array_equal(plan_folds(y, "auto", 0).folds[7][1], plan.folds[7][1])
    assert not np.array_equal(plan_folds(y, "auto", 1).folds[0][1], plan.folds[0][1])


@pytest.mark.parametrize("n, kind", [(3001, "kfold"), (10_000, "kfold"), (10_001, "holdout")])
def test_auto_plan_is_five_folds_up_to_ten_thousand_rows(n, kind):
    y = _labels(n=n, positives=n // 10)
    assert plan_folds(y, "auto", 0).kind == kind


def test_auto_large_data_get_one_holdout_cut_into_stratified_units():
    from rankcore.auto import _folds

    y = _labels(n=_folds.CV_MAX_ROWS + 10, positives=300)
    plan = plan_folds(y, "auto", 0)
    assert plan.kind == "holdout" and plan.n_folds == 1
    units = plan_units(plan, y, 0)
    assert len(units) == _folds.HOLDOUT_UNITS and units.variance_inflation == 0.0
    np.testing.assert_array_equal(np.sort(np.concatenate(units.rows)), plan.folds[0][1])
    for rows, within in zip(units.rows, units.within):
        np.testing.assert_array_equal(plan.folds[0][1][within], rows)


def test_auto_few_positives_mean_fewer_folds():
    plan = plan_folds(_labels(n=60, positives=3), "auto", 0)
    assert plan.n_splits == 3


def test_auto_kfold_units_inflate_the_variance_by_the_validation_share():
    y = _labels()
    units = plan_units(plan_folds(y, 4, 0), y, 0)
    assert math.isclose(units.variance_inflation, 50 / 150)
    assert units.group == [0, 0, 0, 0]


def test_auto_metric_check_names_the_metric_and_the_size():
    y = _labels(n=100, positives=20)
    plan = plan_folds(y, "auto", 0)
    with pytest.raises(ValueError, match=r"metric 'prec@k:30' cannot be computed on the validation folds of "
                                         r"5-fold stratified cross-validation, 3 repeats \(20 rows each"):
        check_metric_on_units(rankcore.resolve("metric", "prec@k:30"), y, plan, plan_units(plan, y, 0))
    check_metric_on_units(rankcore.resolve("metric", "prec@k:20"), y, plan, plan_units(plan, y, 0))


def test_auto_fold_seeds_depend_on_the_seed_and_fold_only():
    assert fold_seed(0, 3) == fold_seed(0, 3)
    assert len({fold_seed(0, f) for f in range(-1, 20)}) == 21
    assert fold_seed(1, 3) != fold_seed(0, 3)


# ----------------------------------------------------------------------
# Successive halving, with a fake executor and clock
# ----------------------------------------------------------------------
class _FakeWorld:
    """Candidates with a fixed quality and a fixed fit time; the clock advances by the fit times."""

    def __init__(self, y, plan, quality, seconds):
        self.y, self.plan, self.quality, self.seconds = y, plan, quality, seconds
        self.now = 0.0
        self.ran = []

    def clock(self):
        return self.now

    def run(self, tasks, may_start, on_result):
        for task in tasks:
            if not may_start(task):
                continue
            self.now += self.seconds[task.candidate]
            self.ran.append((task.candidate, task.fold))
            va = self.plan.folds[task.fold][1]
            rng = np.random.default_rng(1000 * task.candidate + task.fold)
            scores = self.quality[task.candidate] * self.y[va] + rng.normal(size=va.shape[0])
            on_result(TaskResult(task.candidate, task.fold, scores, self.seconds[task.candidate], 0.0))


def _search(quality, seconds, budget=None, n=300):
    y = _labels(n=n, positives=n // 4)
    plan = plan_folds(y, "auto", 0)
    world = _FakeWorld(y, plan, quality, seconds)
    specs = [f"c{i}" for i in range(len(quality))]
    search = SuccessiveHalving(specs, [1.0] * len(specs), plan, y, plan_units(plan, y, 0), METRIC, world.run,
                               budget, n, clock=world.clock)
    return search, search.run_search(default_rungs(plan, budget is not None)), world


def test_auto_halving_keeps_the_leaders_and_the_anchor():
    quality = [0.0, 3.0, 2.5, 0.1, 0.2, 2.0, 0.05, 0.15]       # the anchor (0) is the weakest
    search, out, world = _search(quality, [1.0] * 8)
    assert out.n_folds_final == 5
    assert 0 in out.survivors and {1, 2, 5} <= set(out.survivors)
    top = sorted(range(8), key=lambda c: -np.mean([out.scores[c][f] for f in range(2)]))[:max(MIN_SURVIVORS, 4)]
    assert set(out.survivors) == set(top) | {0}
    for c, folds in out.halved_after.items():
        assert folds == 2 and c not in out.survivors
    assert all(len(out.scores[c]) == 5 for c in out.survivors)


def test_auto_budget_is_respected_with_the_refit_reserved():
    quality = [1.0, 1.5, 0.5, 2.0]
    seconds = [1.0, 2.0, 0.5, 1.5]
    search, out, world = _search(quality, seconds, budget=40.0)
    refit = max(search.refit_cost(c) for c in out.survivors)
    assert world.now + refit <= 40.0
    assert out.n_folds_final > 5                     # a budget buys more repeats than the default plan
    counts = {len(out.scores[c]) for c in out.survivors}
    # survivors are compared on the folds they share; the anchor, first in each fold, may hold one more
    assert min(counts) == out.n_folds_final and max(counts) <= out.n_folds_final + 1


def test_auto_budget_ends_a_rung_early_and_compares_on_common_folds():
    search, out, world = _search([1.0, 2.0, 0.5, 1.5], [1.0, 1.0, 1.0, 1.0], budget=12.0)
    assert out.n_folds_final >= 1
    assert all(len(out.scores[c]) >= out.n_folds_final for c in out.survivors)
    assert world.now <= 12.0


@pytest.mark.parametrize("budget", [9.5, 10.5, 11.5, 12.5, 13.5])
def test_auto_budget_ending_after_the_anchors_fold_keeps_every_candidate(budget):
    # the anchor runs first in each fold: a budget that ends just after it left the others one fold short, and
    # they were dropped as halved, however far ahead they were on the folds they shared
    search, out, world = _search([0.2, 3.0, 2.5, 2.0], [1.0, 1.0, 1.0, 1.0], budget=budget)
    assert not out.halved_after and set(out.survivors) == {0, 1, 2, 3}
    assert all(len(out.scores[c]) >= out.n_folds_final for c in out.survivors)


def test_auto_budget_runs_the_anchor_first_even_when_another_candidate_is_cheaper():
    # a budget for about one candidate: the cheaper candidate 1 ran first and used it, the default (the anchor)
    # was never run, and the choice had nothing to be compared with (a worse model than the default, unwarned)
    y = _labels(n=300, positives=75)
    plan = plan_folds(y, "auto", 0)
    world = _FakeWorld(y, plan, [1.0, 0.5], [1.0, 0.5])
    search = SuccessiveHalving(["anchor", "cheap"], [1.0, 0.5], plan, y, plan_units(plan, y, 0), METRIC,
                               world.run, 3.0, 300, clock=world.clock)
    out = search.run_search(default_rungs(plan, True))
    assert world.ran[0] == (0, 0)
    assert 0 in out.scores and 0 in out.survivors and 0 not in out.not_run


def test_auto_a_candidate_two_folds_behind_is_dropped_for_the_budget_not_halved():
    # a costlier candidate's folds wait while cheaper ones run: two behind when the budget ends, it is dropped
    # for the budget, and says so (it was reported as halved by successive halving, however good)
    from rankcore.auto._search import SearchOutcome

    search = SuccessiveHalving.__new__(SuccessiveHalving)
    search.outcome = SearchOutcome()
    search.outcome.scores = {0: dict.fromkeys(range(10), 0.1), 1: dict.fromkeys(range(9), 0.5),
                             2: dict.fromkeys(range(8), 0.9)}
    alive, done = search._cut_short([0, 1, 2])
    assert alive == [0, 1] and done == 9
    assert search.outcome.cut_by_budget == {2: 8} and not search.outcome.halved_after


def test_auto_plan_size_bounds_the_tasks_run():
    search, out, world = _search([0.0, 3.0, 2.5, 0.1, 0.2, 2.0, 0.05, 0.15], [1.0] * 8)
    assert len(world.ran) <= search.planned_tasks


# ----------------------------------------------------------------------
# The choice
# ----------------------------------------------------------------------
def test_auto_single_choice_keeps_the_anchor_within_noise():
    rng = np.random.default_rng(0)
    anchor = rng.normal(0.5, 0.05, size=5)
    scores = {0: anchor, 1: anchor + rng.normal(0.005, 0.05, size=5), 2: anchor - 0.02}
    chosen, adv = choose_single(scores, 0, 0.25)
    assert chosen == 0 and set(adv) == {1, 2}


def test_auto_single_choice_takes_a_clear_winner():
    rng = np.random.default_rng(0)
    anchor = rng.normal(0.5, 0.05, size=5)
    scores = {0: anchor, 1: anchor + 0.05 + rng.normal(0, 0.002, size=5), 2: anchor + 0.01}
    assert choose_single(scores, 0, 0.25)[0] == 1


def test_auto_single_choice_without_the_anchor_takes_the_best_mean():
    assert choose_single({1: np.array([0.2, 0.3]), 2: np.array([0.4, 0.4])}, 0, 0.25)[0] == 2


def test_auto_selection_without_the_anchor_says_the_default_was_not_evaluated():
    """A budget that ran out before the default trees: the reason must not claim a bar was cleared."""
    y = _labels(n=200, positives=50)
    plan = plan_folds(y, 5, 0)
    units = plan_units(plan, y, 0)
    rng = np.random.default_rng(1)
    preds = {c: [rng.normal(size=r.size) + y[r] for r in units.rows] for c in (1, 2)}
    labels = [y[r] for r in units.rows]
    scores = {c: np.array([METRIC(lab, p) for lab, p in zip(labels, preds[c])]) for c in preds}
    selection = select(scores, preds, labels, units, 0, 1.0, METRIC, blend=False)
    assert selection.chosen[0] in (1, 2)
    assert "the default was not" in selection.reason and "beats the default" not in selection.reason


def test_auto_blend_of_complementary_candidates_wins_nested():
    """Two candidates that each see half of the signal: their blend beats both, nested."""
    rng = np.random.default_rng(0)
    y = _labels(n=400, positives=100)
    plan = plan_folds(y, 5, 0)
    units = plan_units(plan, y, 0)
    a = y * rng.normal(1.0, 0.3, size=400) + rng.normal(size=400)
    b = y * rng.normal(1.0, 0.3, size=400) + rng.normal(size=400)
    noise = rng.normal(size=400)
    preds = {c: [s[r] for r in units.rows] for c, s in enumerate([a, b, noise])}
    labels = [y[r] for r in units.rows]
    scores = {c: np.array([METRIC(l, p) for l, p in zip(labels, preds[c])]) for c in preds}
    selection = select(scores, preds, labels, units, 0, 1.0, METRIC)
    assert selection.is_blend and selection.chosen == (0, 1)
    assert selection.blend_nested.mean() > max(scores[0].mean(), scores[1].mean())
    no_blend = select(scores, preds, labels, units, 0, 1.0, METRIC, blend=False)
    assert not no_blend.is_blend
    # a metric where lower is better: the scores are kept oriented (sign × value), as their users read them
    # (they came out in the metric's units, so best_score_ and the leaderboard flipped the blend's sign)
    misrank = rankcore.resolve("metric", "misrank")
    scores = {c: np.array([misrank(l, p) for l, p in zip(labels, preds[c])]) for c in preds}
    lower = select(scores, preds, labels, units, 0, -1.0, misrank)
    assert lower.is_blend and lower.chosen == (0, 1)
    np.testing.assert_allclose(-lower.blend_nested, [misrank(l, fold_blend_scores([preds[0][u], preds[1][u]]))
                                                     for u, l in enumerate(labels)], rtol=1e-12)
    assert lower.blend_nested.mean() > -min(scores[0].mean(), scores[1].mean())


# ----------------------------------------------------------------------
# The blend's quantile map
# ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(ref=st.lists(st.floats(-5, 5), min_size=2, max_size=40), points=st.lists(st.floats(-20, 20), min_size=1,
                                                                                 max_size=30))
def test_auto_quantile_position_is_monotone_bounded_and_exact_at_the_reference(ref, points):
    reference = quantile_reference(np.array(ref))
    x = np.sort(np.array(points))
    q = quantile_position(reference, x)
    assert np.all((q >= 0) & (q <= 1))
    assert np.all(np.diff(q) >= 0)
    unique = np.unique(reference)
    if unique.shape[0] >= 2:
        L = reference.shape[0]
        expected = [(np.sum(reference < v) + np.sum(reference <= v)) / (2 * L) for v in unique]
        np.testing.assert_allclose(quantile_position(reference, unique), expected, atol=1e-12)


def test_auto_quantile_position_orders_rows_beyond_the_reference():
    q = quantile_position(np.array([0.0, 1.0, 2.0]), np.array([3.0, 4.0, 10.0, -1.0, -2.0]))
    assert q[0] < q[1] < q[2] < 1 and 0 < q[4] < q[3]


def test_auto_quantile_reference_is_capped():
    from rankcore.auto._blend import MAX_REFERENCE

    ref = quantile_reference(np.random.default_rng(0).normal(size=3 * MAX_REFERENCE))
    assert ref.shape == (MAX_REFERENCE,) and np.all(np.diff(ref) >= 0)


def test_auto_fold_blend_is_the_mean_midrank_quantile():
    a, b = np.array([0.1, 0.5, 0.3, 0.3]), np.array([10.0, 30.0, 20.0, 40.0])
    expected = ((np.array([1, 4, 2.5, 2.5]) - 0.5) / 4 + (np.array([1, 3, 2, 4]) - 0.5) / 4) / 2
    np.testing.assert_allclose(fold_blend_scores([a, b]), expected)
