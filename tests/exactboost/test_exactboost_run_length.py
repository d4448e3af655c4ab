"""ExactBoost's run-length box evaluation and tie-break.

The fast paths against their references: loss on runs against the loss on
the expanded arrays (every built-in monotone metric, ties, empty classes);
whole fits with ``run_length=True`` against ``run_length=False`` (same stumps,
bit for bit, any n_jobs); the composite search loss against its definition;
the tie-break's guarantees (the target never gets worse on the training set,
many distinct scores on a planted problem, clear errors).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore import ExactBoost
from rankcore.exactboost import RunSettings, fit_runs, prepare_data, run_seeds
from rankcore.exactboost._bnb import _FeatureProblem
from rankcore.exactboost._evaluators import CompositeLoss, PythonLoss
from rankcore.exactboost._metric import make_evaluator

RUN_KERNEL_SPECS = ["auc", "ks", "prec@k:1", "prec@k:3", "prec@k:0.3", "prec@k:0.05",
                    "pauc:0.1", "pauc:0.25", "pauc:1", "pauc:0.1,mcclish"]
FALLBACK_SPECS = ["rmax", "max_height", "pnorm:4", "tpauc:0.5,0.3"]


def as_runs(values):
    """Strictly ascending distinct values and their counts (the reference encoder)."""
    v, c = np.unique(np.asarray(values, dtype=np.float64), return_counts=True)
    return np.ascontiguousarray(v), np.ascontiguousarray(c, dtype=np.int32)


scores_with_ties = st.lists(st.integers(-4, 4).map(lambda i: i / 4.0), min_size=1, max_size=40)


@pytest.mark.parametrize("spec", RUN_KERNEL_SPECS + FALLBACK_SPECS)
@settings(max_examples=60, deadline=None)
@given(pos=scores_with_ties, neg=scores_with_ties)
def test_loss_runs_equals_loss_on_expanded_arrays(spec, pos, neg):
    metric = rankcore.resolve("metric", spec)
    ev = make_evaluator(metric)
    p = np.sort(np.asarray(pos, dtype=np.float64))
    n = np.sort(np.asarray(neg, dtype=np.float64))
    if spec.startswith("prec@k:") and float(spec.split(":")[1]) >= 1 and int(spec.split(":")[1]) > p.size + n.size:
        return
    expected = ev.evaluate(p, n)
    got = ev.evaluate_runs(*as_runs(p), *as_runs(n))
    assert got == expected  # the same integer counts and the same final division: bit for bit


@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:0.2", "pauc:0.1", "pauc:0.1,mcclish"])
def test_loss_runs_with_one_class_empty(spec):
    ev = make_evaluator(rankcore.resolve("metric", spec))
    p, c = as_runs([0.5, 0.5, 1.0])
    empty_v, empty_c = np.empty(0), np.empty(0, dtype=np.int32)
    assert ev.evaluate_runs(p, c, empty_v, empty_c) == ev.evaluate(np.array([0.5, 0.5, 1.0]), np.empty(0))
    assert ev.evaluate_runs(empty_v, empty_c, p, c) == ev.evaluate(np.empty(0), np.array([0.5, 0.5, 1.0]))


def test_python_metric_runs_fall_back_to_expansion():
    metric = rankcore.resolve("metric", "auc")
    ev = PythonLoss(metric)
    p, n = np.array([0.0, 0.0, 1.0, 2.0]), np.array([-1.0, 0.0, 1.0, 1.0])
    assert ev.evaluate_runs(*as_runs(p), *as_runs(n)) == pytest.approx(ev.evaluate(p, n), abs=0)


def test_evaluate_runs_rejects_unsorted_runs():
    ev = make_evaluator(rankcore.resolve("metric", "auc"))
    with pytest.raises(ValueError, match="strictly ascending"):
        ev.evaluate_runs(np.array([1.0, 0.0]), np.array([1, 1], dtype=np.int32),
                         np.array([0.0]), np.array([1], dtype=np.int32))


@settings(max_examples=40, deadline=None)
@given(pos=scores_with_ties, neg=scores_with_ties, weight=st.sampled_from([0.0, 0.25, 1.0, 3.0]))
def test_composite_loss_is_target_plus_weighted_tie_break(pos, neg, weight):
    target = make_evaluator(rankcore.resolve("metric", "prec@k:0.2"))
    tie = make_evaluator(rankcore.resolve("metric", "auc"))
    both = CompositeLoss(target, tie, weight)
    p, n = np.sort(pos), np.sort(neg)
    expected = target.evaluate(p, n) + weight * tie.evaluate(p, n)
    assert both.evaluate(p, n) == pytest.approx(expected, rel=1e-15, abs=1e-15)
    assert both.evaluate_runs(*as_runs(p), *as_runs(n)) == pytest.approx(expected, rel=1e-15, abs=1e-15)


def test_composite_loss_rejects_a_negative_weight():
    ev = make_evaluator(rankcore.resolve("metric", "auc"))
    with pytest.raises(ValueError, match="weight"):
        CompositeLoss(ev, ev, -1.0)


# --------------------------------------------------------------------------
# Whole searches and fits: run-length path == expanded reference path
# --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:0.2", "pauc:0.3"])
@pytest.mark.parametrize("shift_invariant", [True, False], ids=["shift-invariant", "general"])
def test_feature_search_same_with_and_without_runs(spec, shift_invariant):
    rng = np.random.default_rng(5)
    ev = make_evaluator(rankcore.resolve("metric", spec))
    for _ in range(10):
        mp, mn, nd = int(rng.integers(2, 30)), int(rng.integers(2, 30)), int(rng.integers(2, 8))
        sp = np.sort(rng.integers(-3, 4, mp) / 8.0)
        sn = np.sort(rng.integers(-3, 4, mn) / 8.0)
        lrp = rng.integers(0, nd, mp).astype(np.int32)
        lrn = rng.integers(0, nd, mn).astype(np.int32)
        out = [
            _FeatureProblem(sp, lrp, sn, lrn, nd, ev, depth=3, theta=0.05, max_boxes=0,
                            shift_invariant=shift_invariant, run_length=run_length).search()
            for run_length in (False, True)
        ]
        assert out[0] == out[1]


def planted(n=600, d=6, seed=0, binary=False):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.3).astype(float) if binary else np.round(rng.standard_normal((n, d)), 1)
    logit = X @ np.linspace(1.5, -1.0, d)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * (logit - np.quantile(logit, 0.7))))).astype(np.int8)
    return X, y


@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:0.05", "prec@k:10", "pauc:0.2", "pauc:0.05,mcclish"])
@pytest.mark.parametrize("binary", [False, True], ids=["rounded", "binary"])
@pytest.mark.parametrize("tie_break", [None, "auc"])
def test_fit_runs_same_stumps_with_and_without_runs(spec, binary, tie_break):
    X, y = planted(binary=binary)
    data = prepare_data(X, y)
    settings_ = RunSettings(metric=spec, n_rounds=12, tie_break=tie_break, max_thresholds=None)
    seeds = run_seeds(3, 3)
    old = fit_runs(data, seeds, settings_, run_length=False)
    new = fit_runs(data, seeds, settings_, n_threads=2, run_length=True)
    for field in old.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(old, field), getattr(new, field), err_msg=field)


# --------------------------------------------------------------------------
# The tie-break (item 3)
# --------------------------------------------------------------------------


def test_tie_break_ranks_the_whole_list_on_a_planted_problem():
    X, y = planted(n=1000, d=4, seed=1)
    # one ensemble each (head=None): the tie-break alone
    plain = ExactBoost(metric="prec@k:0.05", tie_break=None, head=None, n_runs=20, random_state=0).fit(X, y)
    tied = ExactBoost(metric="prec@k:0.05", head=None, n_runs=20, random_state=0).fit(X, y)
    assert tied.tie_break_.spec == "auc" and plain.tie_break_ is None
    n_plain = np.unique(plain.decision_function(X)).size
    n_tied = np.unique(tied.decision_function(X)).size
    assert n_tied > 1.5 * n_plain and n_tied > 0.5 * y.size  # measured: 782 against 405 of 1,000
    auc = rankcore.resolve("metric", "auc")
    assert auc(y, tied.decision_function(X)) > auc(y, plain.decision_function(X)) + 0.02  # 0.962 against 0.909
    # the target never gets worse on the training set, run by run
    assert np.all(np.diff(tied.train_loss_, axis=1) <= 0)
    assert tied.train_loss_[:, -1].mean() <= plain.train_loss_[:, -1].mean()


def test_tie_break_independent_of_n_jobs(exact_threads):
    exact_threads(2)
    X, y = planted(seed=2)
    one = ExactBoost(metric="ks", n_runs=6, n_rounds=10, random_state=4, n_jobs=1).fit(X, y)
    two = ExactBoost(metric="ks", n_runs=6, n_rounds=10, random_state=4, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.stumps_, two.stumps_)
    np.testing.assert_array_equal(one.train_loss_, two.train_loss_)


@pytest.mark.parametrize("metric, tie_break, expected", [
    ("auc", "auto", None), ("pauc:0.1", "auto", None), ("prec@k:0.1", "auto", "auc"), ("ks", "auto", "auc"),
    ("rmax", "auto", "auc"), ("prec@k:0.1", None, None), ("prec@k:0.1", "pauc:0.2", "pauc:0.2"),
    ("auc", "auc", None),
])
def test_tie_break_resolution(metric, tie_break, expected):
    X, y = planted(n=200, seed=3)
    model = ExactBoost(metric=metric, tie_break=tie_break, n_runs=1, n_rounds=2, random_state=0).fit(X, y)
    assert (None if model.tie_break_ is None else model.tie_break_.spec) == expected


@pytest.mark.parametrize("params, error, match", [
    ({"tie_break_weight": -0.5}, ValueError, "tie_break_weight: expected a finite number >= 0, got -0.5"),
    ({"tie_break_weight": float("nan")}, ValueError, "tie_break_weight"),
    ({"tie_break_weight": True}, ValueError, "tie_break_weight"),
    ({"tie_break": "misrank"}, ValueError, "tie_break: ExactBoost needs a monotone metric"),
    ({"tie_break": "no-such-metric"}, ValueError, "no-such-metric"),
    ({"tie_break": 3}, TypeError, "tie_break: expected 'auto', None, a metric spec string or a metric, got int"),
])
def test_tie_break_bad_parameters(params, error, match):
    X, y = planted(n=100)
    with pytest.raises(error, match=match):
        ExactBoost(metric="prec@k:0.1", n_runs=1, n_rounds=1, **params).fit(X, y)


def test_tie_break_survives_save_and_load(tmp_path):
    X, y = planted(n=300)
    model = ExactBoost(metric="prec@k:0.1", n_runs=3, n_rounds=5, random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    again = rankcore.load_model(path)
    assert again.tie_break_.spec == "auc"
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


# --------------------------------------------------------------------------
# AUC by pair counts (box_bound_pairs), pAUC from the top (box_bound_pauc), two-valued features
# --------------------------------------------------------------------------


def numpy_auc_loss(pos, neg):
    """1 - AUC from all pairs (the reference: no sorting, no groups)."""
    diff = np.asarray(pos)[:, None] - np.asarray(neg)[None, :]
    return 1.0 - ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size


def lopsided_problem(rng):
    """Many examples, few ranks with skewed frequencies: groups of very different sizes
    (both the two-pointer walk and the binary searches of ``cross_counts`` run), ties."""
    mp, mn = int(rng.integers(1, 300)), int(rng.integers(1, 300))
    nd = int(rng.integers(2, 6))
    weights = rng.dirichlet(np.full(nd, 0.3))
    weights = (weights + 1e-3) / (weights + 1e-3).sum()
    lattice = int(rng.choice([4, 64, 1024]))
    sp = np.sort(rng.integers(-lattice, lattice + 1, mp) / lattice)
    sn = np.sort(rng.integers(-lattice, lattice + 1, mn) / lattice)
    lrp = rng.choice(nd, mp, p=weights).astype(np.int32)
    lrn = rng.choice(nd, mn, p=weights).astype(np.int32)
    ranks = np.r_[lrp, lrn]
    _, ranks = np.unique(ranks, return_inverse=True)  # every rank used
    ranks = ranks.astype(np.int32)
    if ranks.max() < 1:
        ranks[-1] = 1
    return sp, ranks[:mp].copy(), sn, ranks[mp:].copy(), int(ranks.max()) + 1


def test_pair_count_form_only_for_auc():
    assert make_evaluator(rankcore.resolve("metric", "auc"))._pair_count_form() == (-1.0, 1.0)
    for spec in ["ks", "prec@k:0.2", "pauc:0.1"]:
        ev = make_evaluator(rankcore.resolve("metric", spec))
        assert getattr(ev, "_pair_count_form", lambda: None)() is None


def boxes_with_scores(rng, ev, shift_invariant, theta, c0, c1, depth=3, n_problems=25, n_boxes=12):
    """Random lopsided problems and boxes: yields each box's bound on the run-length path and the box's
    positive and negative scores (the reference's input), once the bound is checked equal, bit for bit,
    to the expanded-array path's."""
    grid = 2 ** depth
    for _ in range(n_problems):
        sp, lrp, sn, lrn, nd = lopsided_problem(rng)
        fast, slow = (_FeatureProblem(sp, lrp, sn, lrn, nd, ev, depth=depth, theta=theta, c0=c0, c1=c1,
                                      shift_invariant=shift_invariant, run_length=run_length)
                      for run_length in (True, False))
        a_root, b_root = fast.root[:2], fast.root[2:]
        for _ in range(n_boxes):
            t_lo, t_hi = np.sort(rng.integers(0, nd - 1, 2))
            ai = np.sort(rng.integers(a_root[0], a_root[1] + 1, 2))
            bi = np.sort(rng.integers(b_root[0], b_root[1] + 1, 2))
            box = (int(t_lo), int(t_hi), int(ai[0]), int(ai[1]), int(bi[0]), int(bi[1]))
            got = fast.bound(*box)
            assert got == slow.bound(*box)
            a_lo, a_hi, b_lo, b_hi = ((2 * i - grid) / grid for i in (*ai, *bi))
            margin = theta * (c0 + c1 * max(0.0, b_lo - a_hi, a_lo - b_hi) / 2)
            pos = (sp + np.where(lrp <= t_lo, a_hi, np.where(lrp > t_hi, b_hi, max(a_hi, b_hi)))) - margin
            neg = sn + np.where(lrn <= t_lo, a_lo, np.where(lrn > t_hi, b_lo, min(a_lo, b_lo)))
            yield got, pos, neg


@pytest.mark.parametrize("shift_invariant", [True, False], ids=["shift-invariant", "general"])
@pytest.mark.parametrize("theta, c0, c1", [(0.0, 1.0, 0.0), (0.05, 1.0, 0.0), (0.3, 1.5, 1.0)])
def test_auc_box_bound_by_pair_counts_matches_references(shift_invariant, theta, c0, c1):
    """Every box: pair-count bound == expanded-array bound (bit for bit) == all-pairs NumPy loss."""
    ev = make_evaluator(rankcore.resolve("metric", "auc"))
    for got, pos, neg in boxes_with_scores(np.random.default_rng(11), ev, shift_invariant, theta, c0, c1):
        assert got == pytest.approx(numpy_auc_loss(pos, neg), abs=1e-12)


@pytest.mark.parametrize("spec", ["auc", "pauc:0.1", "pauc:0.3,mcclish"])
@pytest.mark.parametrize("shift_invariant", [True, False], ids=["shift-invariant", "general"])
def test_search_by_pair_counts_or_from_the_top_same_as_expanded(spec, shift_invariant):
    """Whole searches, with and without a budget (AUC: the cross cache at work; pAUC: boxes read from the
    top): same optimum, same evaluation count."""
    rng = np.random.default_rng(12)
    ev = make_evaluator(rankcore.resolve("metric", spec))
    for _ in range(15):
        sp, lrp, sn, lrn, nd = lopsided_problem(rng)
        budgets = [0, int(rng.integers(1, 40))]
        out = [_FeatureProblem(sp, lrp, sn, lrn, nd, ev, depth=3, theta=0.05, max_boxes=budget,
                               shift_invariant=shift_invariant, run_length=run_length).search()
               for run_length in (False, True) for budget in budgets]
        assert out[0] == out[2] and out[1] == out[3]


def test_pauc_form_only_for_pauc():
    assert make_evaluator(rankcore.resolve("metric", "pauc:0.1"))._pauc_form() == (0.1, False, -1.0, 1.0)
    alpha, mcclish, _, _ = make_evaluator(rankcore.resolve("metric", "pauc:0.3,mcclish"))._pauc_form()
    assert (alpha, mcclish) == (0.3, True)
    for spec in ["auc", "ks", "prec@k:0.2", "tpauc:0.5,0.3"]:
        assert make_evaluator(rankcore.resolve("metric", spec))._pauc_form() is None


@pytest.mark.parametrize("spec", ["pauc:0.1", "pauc:0.02", "pauc:0.5,mcclish", "pauc:1"])
@pytest.mark.parametrize("shift_invariant", [True, False], ids=["shift-invariant", "general"])
@pytest.mark.parametrize("theta, c0, c1", [(0.0, 1.0, 0.0), (0.3, 1.5, 1.0)])
def test_pauc_box_bound_from_the_top_matches_references(spec, shift_invariant, theta, c0, c1):
    """Every box: the top-down pAUC bound == expanded-array bound (bit for bit) == scikit-learn's pAUC."""
    from sklearn.metrics import roc_auc_score

    ev = make_evaluator(rankcore.resolve("metric", spec))
    alpha, mcclish, sign, offset = ev._pauc_form()
    boxes, checked = boxes_with_scores(np.random.default_rng(13), ev, shift_invariant, theta, c0, c1), 0
    # the boxes of one problem have the same numbers of positives and negatives: scikit-learn scores them in one
    # call, as the columns of a multilabel problem (each column its own binary pAUC)
    for _, group in itertools.groupby(boxes, key=lambda box: (box[1].size, box[2].size)):
        got, pos, neg = zip(*group)
        y = np.r_[np.ones(pos[0].size), np.zeros(neg[0].size)]
        scores = np.r_[np.column_stack(pos), np.column_stack(neg)]
        # scikit-learn's max_fpr is McClish's standardization; raw = its inverse; alpha = 1 is plain AUC
        mc = roc_auc_score(np.repeat(y[:, None], len(got), axis=1), scores, max_fpr=alpha if alpha < 1 else None,
                           average=None)
        raw = alpha * alpha / 2 + (2 * mc - 1) * (alpha - alpha * alpha / 2)
        assert len(got) > 1 and mc.shape == (len(got),)
        assert np.array(got) == pytest.approx(sign * (mc if mcclish else raw) + offset, abs=1e-12)
        checked += len(got)
    assert checked == 25 * 12                                   # every box of boxes_with_scores


@pytest.mark.parametrize("spec", ["auc", "ks", "prec@k:0.1", "pauc:0.1"])
def test_two_valued_features_same_stumps_with_and_without_runs(spec):
    """Binary, constant and rare-valued features, binned ones (max_bins=2), small subsamples
    (a feature often takes one value in a round): the one-pass groups == the general path."""
    rng = np.random.default_rng(4)
    n = 400
    X = np.column_stack([
        (rng.random(n) < 0.5), (rng.random(n) < 0.02), np.zeros(n), np.full(n, 3.0),
        (rng.random(n) < 0.3) * 2.5 - 1.0, np.round(rng.standard_normal(n), 1),
    ]).astype(float)
    y = (rng.random(n) < 1 / (1 + np.exp(-(2 * X[:, 0] - X[:, 4] + X[:, 5])))).astype(np.int8)
    for max_bins in (None, 2):
        data = prepare_data(X, y, max_bins)
        settings_ = RunSettings(metric=spec, n_rounds=15, subsample=0.05, feature_subsample=0.5)
        seeds = run_seeds(7, 4)
        old = fit_runs(data, seeds, settings_, run_length=False)
        new = fit_runs(data, seeds, settings_, n_threads=2, run_length=True)
        for field in old.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(old, field), getattr(new, field), err_msg=field)
        assert (new.feature >= 0).any()
