"""ExactBoost's branch-and-bound kernel against plain NumPy references.

Covers the issue's correctness items (a) the interval bound is valid and
(b) the branch and bound is at least as good as exhaustive search on the same
grid, for every built-in monotone metric, in both search modes (general
(ξ, a, b) boxes and the shift-invariant (ξ, b - a) reduction), with margins.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankcore
from rankcore.exactboost._bnb import _FeatureProblem
from rankcore.exactboost._evaluators import PythonLoss
from rankcore.exactboost._metric import is_shift_invariant, make_evaluator

# --------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------


def monotone_metric_specs():
    from rankcore.registry import registry

    reg = registry()
    specs = []
    for name in reg.names("metric"):
        cls = reg.get("metric", name)
        if cls.monotone and cls.scalar and cls.task == "bipartite" and cls.greater_is_better is not None:
            specs.extend(cls.example_specs())
    return specs


MONOTONE = monotone_metric_specs()


def grid_value(i, grid):
    return (2 * i - grid) / grid


def reference_loss(metric, pos, neg):
    """The metric's loss form, through its public Python API (sorts itself)."""
    y = np.r_[np.ones(len(pos), np.int8), np.zeros(len(neg), np.int8)]
    return float(metric.to_loss(metric(y, np.r_[pos, neg])))


def reference_point_loss(metric, problem, t, a, b, theta, c0, c1):
    """Exact margin-adjusted loss of the stump (t, a, b) (a, b as values)."""
    sp, lrp, sn, lrn = problem
    margin = theta * (c0 + c1 * abs(b - a) / 2)
    pos = (sp + np.where(lrp <= t, a, b)) - margin
    neg = sn + np.where(lrn <= t, a, b)
    return reference_loss(metric, pos, neg)


def reference_box_bound(metric, problem, box, grid, theta, c0, c1):
    """Interval arithmetic written out: positives at their highest, negatives at their lowest."""
    sp, lrp, sn, lrn = problem
    t_lo, t_hi, ai_lo, ai_hi, bi_lo, bi_hi = box
    a_lo, a_hi = grid_value(ai_lo, grid), grid_value(ai_hi, grid)
    b_lo, b_hi = grid_value(bi_lo, grid), grid_value(bi_hi, grid)
    gap = max(0.0, b_lo - a_hi, a_lo - b_hi) / 2
    margin = theta * (c0 + c1 * gap)
    pos = sp + np.where(lrp <= t_lo, a_hi, np.where(lrp > t_hi, b_hi, max(a_hi, b_hi)))
    neg = sn + np.where(lrn <= t_lo, a_lo, np.where(lrn > t_hi, b_lo, min(a_lo, b_lo)))
    return reference_loss(metric, pos - margin, neg)


def min_examples(metric):
    """Enough examples for a count parameter (prec@k:10 needs n >= 10)."""
    counts = [v for v in metric.params.values() if isinstance(v, int) and not isinstance(v, bool)]
    return max([2, *counts])


def random_problem(rng, *, max_m=14, n_distinct=None, lattice=8, min_total=2):
    """Scores on a dyadic lattice (many ties, as in ExactBoost) and local ranks."""
    mp, mn = int(rng.integers(1, max_m)), int(rng.integers(1, max_m))
    if mp + mn < min_total:
        mn += min_total - mp - mn
    nd = int(n_distinct or rng.integers(2, 7))
    sp = np.sort(rng.integers(-3 * lattice // 8, 3 * lattice // 8 + 1, mp) / lattice)
    sn = np.sort(rng.integers(-3 * lattice // 8, 3 * lattice // 8 + 1, mn) / lattice)
    lrp = rng.integers(0, nd, mp).astype(np.int32)
    lrn = rng.integers(0, nd, mn).astype(np.int32)
    # every local rank is used (as after compression)
    ranks = np.r_[lrp, lrn]
    missing = np.setdiff1d(np.arange(nd), ranks)
    for k, r in enumerate(missing):
        ranks[k % ranks.size] = r
    lrp, lrn = ranks[:mp].astype(np.int32), ranks[mp:].astype(np.int32)
    nd = int(np.unique(ranks).size)
    remap = {r: i for i, r in enumerate(np.unique(ranks))}
    lrp = np.array([remap[r] for r in lrp], np.int32)
    lrn = np.array([remap[r] for r in lrn], np.int32)
    return (sp, lrp, sn, lrn), nd


def random_box(rng, nd, root):
    """A random box inside the root (grid coordinates) and a random grid point in it."""
    a_root, b_root = root[:2], root[2:]
    t = np.sort(rng.integers(0, nd - 1, 2))
    a = np.sort(rng.integers(a_root[0], a_root[1] + 1, 2))
    b = np.sort(rng.integers(b_root[0], b_root[1] + 1, 2))
    box = (int(t[0]), int(t[1]), int(a[0]), int(a[1]), int(b[0]), int(b[1]))
    point = (int(rng.integers(t[0], t[1] + 1)), int(rng.integers(a[0], a[1] + 1)), int(rng.integers(b[0], b[1] + 1)))
    return box, point


MARGINS = [(0.0, 1.0, 0.0), (0.05, 1.0, 0.0), (0.05, 1.0, 1.0), (0.3, 2.5, 1.0)]


# --------------------------------------------------------------------------
# (a) the interval bound is valid
# --------------------------------------------------------------------------


@pytest.mark.parametrize("shift_invariant", [False, True], ids=["general", "shift-invariant"])
@pytest.mark.parametrize("spec", MONOTONE)
def test_exactboost_bound_is_valid_for_every_monotone_metric(spec, shift_invariant):
    metric = rankcore.resolve("metric", spec)
    ev = make_evaluator(metric)
    rng = np.random.default_rng(abs(hash(spec)) % 2**32)
    for trial in range(40):
        problem, nd = random_problem(rng, min_total=min_examples(metric))
        theta, c0, c1 = MARGINS[trial % len(MARGINS)]
        fp = _FeatureProblem(*problem, nd, ev, depth=3, theta=theta, c0=c0, c1=c1, shift_invariant=shift_invariant)
        for _ in range(5):
            box, (t, ai, bi) = random_box(rng, nd, fp.root)
            bound = fp.bound(*box)
            a, b = grid_value(ai, fp.grid), grid_value(bi, fp.grid)
            exact = reference_point_loss(metric, problem, t, a, b, theta, c0, c1)
            assert bound <= exact + 1e-12, (spec, problem, box, (t, ai, bi), bound, exact)
            # the kernel's bound is the interval arithmetic written out in NumPy
            expected = reference_box_bound(metric, problem, box, fp.grid, theta, c0, c1)
            assert bound == pytest.approx(expected, abs=1e-12), (spec, box)


@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:0.3", "pauc:0.5", "rmax", "pnorm:4"])
def test_exactboost_point_loss_matches_reference(spec):
    metric = rankcore.resolve("metric", spec)
    ev = make_evaluator(metric)
    rng = np.random.default_rng(7)
    for trial in range(30):
        problem, nd = random_problem(rng)
        theta, c0, c1 = MARGINS[trial % len(MARGINS)]
        for shift_invariant in (False, True):
            fp = _FeatureProblem(*problem, nd, ev, depth=2, theta=theta, c0=c0, c1=c1, shift_invariant=shift_invariant)
            a_lo, a_hi, b_lo, b_hi = fp.root
            for t, ai, bi in itertools.product(range(nd - 1), range(a_lo, a_hi + 1), range(b_lo, b_hi + 1)):
                a, b = grid_value(ai, fp.grid), grid_value(bi, fp.grid)
                assert fp.loss(t, ai, bi) == pytest.approx(
                    reference_point_loss(metric, problem, t, a, b, theta, c0, c1), abs=1e-12
                )


@given(seed=st.integers(0, 2**32 - 1), shift_invariant=st.booleans(),
       spec=st.sampled_from(["auc", "ks", "prec@k:0.25", "tpauc:0.2,0.5", "max_height"]))
def test_exactboost_bound_tightens_on_sub_boxes(seed, shift_invariant, spec):
    """A sub-box's bound is never below its parent's (intervals only shrink)."""
    metric = rankcore.resolve("metric", spec)
    rng = np.random.default_rng(seed)
    problem, nd = random_problem(rng)
    fp = _FeatureProblem(*problem, nd, make_evaluator(metric), depth=3, theta=0.05, c0=1.0, c1=1.0,
                         shift_invariant=shift_invariant)
    box, _ = random_box(rng, nd, fp.root)
    sub, _ = random_box(rng, box[1] - box[0] + 2, (0, box[3] - box[2], 0, box[5] - box[4]))
    child = (box[0] + sub[0], box[0] + sub[1], box[2] + sub[2], box[2] + sub[3], box[4] + sub[4], box[4] + sub[5])
    child = (child[0], min(child[1], box[1]), *child[2:])
    assert fp.bound(*child) >= fp.bound(*box) - 1e-12


def test_exactboost_bound_of_a_point_is_its_exact_loss():
    metric = rankcore.resolve("metric", "auc")
    rng = np.random.default_rng(3)
    problem, nd = random_problem(rng)
    fp = _FeatureProblem(*problem, nd, make_evaluator(metric), depth=2, theta=0.05, c0=1.0, c1=1.0)
    for t, ai, bi in itertools.product(range(nd - 1), range(5), range(5)):
        assert fp.bound(t, t, ai, ai, bi, bi) == fp.loss(t, ai, bi)


# --------------------------------------------------------------------------
# (b) branch and bound versus exhaustive search on the same grid
# --------------------------------------------------------------------------


def exhaustive_grid_minimum(metric, problem, nd, depth, theta, c0, c1):
    """min over every (t, a, b) of the grid a, b = -1 + 2i/2**depth."""
    grid = 2**depth
    best = np.inf
    for t, ai, bi in itertools.product(range(nd - 1), range(grid + 1), range(grid + 1)):
        value = reference_point_loss(metric, problem, t, grid_value(ai, grid), grid_value(bi, grid), theta, c0, c1)
        best = min(best, value)
    return best


@pytest.mark.parametrize("shift_invariant", [False, True], ids=["general", "shift-invariant"])
@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:0.3", "pauc:0.5", "tpauc:0.2,0.6", "rmax", "max_height",
                                  "pnorm:8"])
def test_exactboost_branch_and_bound_matches_exhaustive_search(spec, shift_invariant):
    metric = rankcore.resolve("metric", spec)
    if shift_invariant and not is_shift_invariant(metric):
        pytest.skip("not shift-invariant")
    ev = make_evaluator(metric)
    rng = np.random.default_rng(11)
    for trial in range(12):
        problem, nd = random_problem(rng, max_m=10)
        depth = 2 + trial % 2
        theta, c0, c1 = MARGINS[trial % len(MARGINS)]
        fp = _FeatureProblem(*problem, nd, ev, depth=depth, theta=theta, c0=c0, c1=c1,
                             max_boxes=0, shift_invariant=shift_invariant)
        loss, t, ai, bi, evals, exhausted = fp.search()
        best = exhaustive_grid_minimum(metric, problem, nd, depth, theta, c0, c1)
        assert not exhausted
        assert loss <= best + 1e-12, (spec, trial, loss, best)
        assert loss == pytest.approx(best, abs=1e-12)  # and it is a grid point's loss
        a, b = grid_value(ai, fp.grid), grid_value(bi, fp.grid)
        assert reference_point_loss(metric, problem, t, a, b, theta, c0, c1) == pytest.approx(loss, abs=1e-12)


def test_exactboost_search_respects_the_incumbent_and_the_budget():
    metric = rankcore.resolve("metric", "auc")
    rng = np.random.default_rng(5)
    problem, nd = random_problem(rng, max_m=40, n_distinct=12)
    ev = make_evaluator(metric)
    exact = _FeatureProblem(*problem, nd, ev, depth=5, theta=0.05, max_boxes=0, shift_invariant=True).search()
    # nothing strictly better than the optimum exists
    again = _FeatureProblem(*problem, nd, ev, depth=5, theta=0.05, max_boxes=0, shift_invariant=True).search(exact[0])
    assert again[1:4] == (-1, -1, -1) and again[0] == exact[0]
    # a small budget stops early, still returning a real grid point (the first dive's leaf at least)
    budget = _FeatureProblem(*problem, nd, ev, depth=5, theta=0.05, max_boxes=4, shift_invariant=True).search()
    assert budget[1] >= 0 and budget[0] >= exact[0]
    fp = _FeatureProblem(*problem, nd, ev, depth=5, theta=0.05, shift_invariant=True)
    assert fp.loss(budget[1], budget[2], budget[3]) == budget[0]


# --------------------------------------------------------------------------
# Evaluators: the nogil kernel path and the Python fallback agree
# --------------------------------------------------------------------------


class PythonOnlyKS(rankcore.Metric):
    """KS computed in plain NumPy, no sorted kernel (a stand-in third-party metric)."""

    name = "test-python-ks"
    bounded = True

    def compute(self, y, scores):
        thresholds = np.unique(scores)
        pos, neg = scores[y == 1], scores[y == 0]
        f_pos = np.searchsorted(np.sort(pos), thresholds, side="right") / pos.size
        f_neg = np.searchsorted(np.sort(neg), thresholds, side="right") / neg.size
        return float(max(0.0, np.max(f_neg - f_pos)))


@pytest.mark.parametrize("kind", ["sorted-kernel", "python"])
def test_exactboost_search_same_result_through_either_evaluator(kind):
    rng = np.random.default_rng(9)
    builtin = rankcore.resolve("metric", "ks")
    ev = make_evaluator(builtin) if kind == "sorted-kernel" else PythonLoss(PythonOnlyKS())
    for _ in range(5):
        problem, nd = random_problem(rng, max_m=12)
        expected = _FeatureProblem(*problem, nd, make_evaluator(builtin), depth=3, theta=0.05, max_boxes=0,
                                   shift_invariant=True).search()
        got = _FeatureProblem(*problem, nd, ev, depth=3, theta=0.05, max_boxes=0, shift_invariant=True).search()
        assert got[:4] == expected[:4]


def test_exactboost_python_metric_error_is_raised_not_swallowed():
    class Broken(rankcore.Metric):
        name = "test-broken"
        bounded = True

        def compute(self, y, scores):
            raise RuntimeError("boom from the metric")

    rng = np.random.default_rng(0)
    problem, nd = random_problem(rng)
    fp = _FeatureProblem(*problem, nd, PythonLoss(Broken()), depth=2)
    with pytest.raises(RuntimeError, match="boom from the metric"):
        fp.search()


def test_exactboost_feature_problem_rejects_bad_input():
    ev = make_evaluator(rankcore.resolve("metric", "auc"))
    ok = (np.array([0.0, 1.0]), np.array([0, 1], np.int32), np.array([0.5]), np.array([0], np.int32))
    with pytest.raises(ValueError, match="sorted"):
        _FeatureProblem(np.array([1.0, 0.0]), ok[1], ok[2], ok[3], 2, ev)
    with pytest.raises(ValueError, match="ranks"):
        _FeatureProblem(ok[0], np.array([0, 5], np.int32), ok[2], ok[3], 2, ev)
    with pytest.raises(ValueError, match="n_distinct"):
        _FeatureProblem(*ok, 1, ev)
    fp = _FeatureProblem(*ok, 2, ev, depth=2)
    with pytest.raises(ValueError, match="out of range"):
        fp.bound(0, 1, 0, 4, 0, 4)
