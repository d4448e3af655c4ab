"""rankcore.evaluate, the registered metric classes, the sorted kernels and the contract checks."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import rankcore
from rankcore import metrics as rm
from rankcore.metrics import Metric, _functions, split_sorted
from rankcore.metrics import _evaluate as evaluate_module
from rankcore.testing import _metrics as metric_checks

from _contract_cases import contract_checks_catch
from test_metrics_reference import auc_ref, random_case

ALL_SPECS = ["auc", "pauc:0.1", "pauc:0.3,mcclish", "tpauc:0.5,0.3", "tpauc:0.2,0.6,normalized", "ks",
             "prec@k:5", "prec@k:0.1", "prec_at_k:3", "rmax", "max_height", "pnorm:4", "pnorm_risk:64,0.5",
             "misrank", "height", "roc", "roc:2", "roc_curve"]


# ---------------------------------------------------------------------------
# evaluate
# ---------------------------------------------------------------------------


def _same(a, b):
    if isinstance(a, tuple):
        return all(np.array_equal(x, z) for x, z in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == pytest.approx(b, abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_evaluate_equals_each_metric_alone(seed):
    y, s = random_case(seed, n=300)
    result = rankcore.evaluate(y, s, ALL_SPECS)
    assert list(result) == ALL_SPECS
    for spec in ALL_SPECS:
        alone = rankcore.resolve("metric", spec)(y, s)
        assert _same(result[spec], alone), spec
    assert result["auc"] == pytest.approx(auc_ref(y, s), abs=1e-12)


def test_evaluate_sorts_once(monkeypatch):
    calls = []
    real = evaluate_module.split_sorted

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "split_sorted", counting)
    y, s = random_case(1, n=200)
    rankcore.evaluate(y, s, ["auc", "ks", "pauc:0.2", "prec@k:3", "rmax", "pnorm:8", "roc"])
    assert len(calls) == 1


def test_evaluate_accepts_one_spec_and_metric_objects():
    y, s = random_case(2, n=50)
    auc = rankcore.resolve("metric", "auc")
    assert rankcore.evaluate(y, s, "auc") == {"auc": rm.auc(y, s)}
    assert rankcore.evaluate(y, s, auc) == {"auc": rm.auc(y, s)}
    assert rankcore.evaluate(y, s, (m for m in ["ks", auc])) == {"ks": rm.ks(y, s), "auc": rm.auc(y, s)}
    assert rankcore.evaluate is rm.evaluate


@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1])
def test_evaluate_n_jobs_does_not_change_results(n_jobs, exact_threads):
    exact_threads(2)                # None and -1: 8 threads
    rng = np.random.default_rng(0)
    n = 150_000  # above the parallel-sort threshold
    y = (rng.random(n) < 0.2).astype(np.int8)
    s = rng.integers(0, 500, size=n).astype(float)
    expected = rankcore.evaluate(y, s, ["auc", "ks", "prec@k:0.01"], n_jobs=1)
    assert rankcore.evaluate(y, s, ["auc", "ks", "prec@k:0.01"], n_jobs=n_jobs) == expected


def test_split_sorted_threaded_equals_sequential(exact_threads):
    exact_threads(2)
    rng = np.random.default_rng(1)
    n = 200_000
    y = (rng.random(n) < 0.4).astype(np.int8)
    s = rng.normal(size=n)
    pos1, neg1 = split_sorted(y, s, n_threads=1)
    pos2, neg2 = split_sorted(y, s, n_threads=2)
    np.testing.assert_array_equal(pos1, np.sort(s[y == 1]))
    np.testing.assert_array_equal(neg1, np.sort(s[y == 0]))
    np.testing.assert_array_equal(pos1, pos2)
    np.testing.assert_array_equal(neg1, neg2)


# ---------------------------------------------------------------------------
# input kinds: dtype x read-only x layout
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("label_dtype", [np.int8, np.int64, np.float64, bool], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("score_dtype", [np.float64, np.float32, np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("readonly", [False, True], ids=["writable", "readonly"])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])
def test_input_kinds(label_dtype, score_dtype, readonly, strided):
    y0, s0 = random_case(7, n=80)
    y = np.repeat(y0, 2).astype(label_dtype)
    s = np.repeat(np.round(s0 * 10), 2).astype(score_dtype)
    if strided:
        y, s = y[::2], s[::2]
    if readonly:
        y.setflags(write=False)
        s.setflags(write=False)
    ref_y, ref_s = np.asarray(y, dtype=np.int8), np.asarray(s, dtype=np.float64)
    for spec in ALL_SPECS:
        assert _same(rankcore.resolve("metric", spec)(y, s), rankcore.resolve("metric", spec)(ref_y, ref_s)), spec
    assert rm.auc(list(map(int, ref_y)), list(map(float, ref_s))) == rm.auc(ref_y, ref_s)


# ---------------------------------------------------------------------------
# registered classes
# ---------------------------------------------------------------------------

EXPECTED_FLAGS = {
    # name: (greater_is_better, monotone, task, scalar, bounded, requires_both_classes)
    "auc": (True, True, "bipartite", True, True, True),
    "pauc": (True, True, "bipartite", True, True, True),
    "tpauc": (True, True, "bipartite", True, True, True),
    "ks": (True, True, "bipartite", True, True, True),
    "prec@k": (True, True, "bipartite", True, True, False),
    "rmax": (True, True, "bipartite", True, False, True),
    "max_height": (False, True, "bipartite", True, False, True),
    "height": (None, True, "bipartite", False, False, True),
    "pnorm": (False, True, "bipartite", True, True, True),
    "misrank": (False, False, "graded", True, True, False),
    "roc": (None, True, "bipartite", False, False, True),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FLAGS))
def test_registered_metric_flags(name):
    entry = rankcore.get_registry().entry("metric", name)
    cls = entry.cls
    assert entry.distribution == "rankcore"
    flags = (cls.greater_is_better, cls.monotone, cls.task, cls.scalar, cls.bounded, cls.requires_both_classes)
    assert flags == EXPECTED_FLAGS[name]
    assert cls.examples, f"{name} lists no example specs"
    for spec in cls.examples:
        assert rankcore.resolve("metric", spec).name == name


def test_every_builtin_metric_is_registered_with_aliases():
    reg = rankcore.get_registry()
    assert set(EXPECTED_FLAGS) <= set(reg.names("metric"))
    assert reg.get("metric", "prec_at_k") is reg.get("metric", "prec@k")
    assert reg.get("metric", "pnorm_risk") is reg.get("metric", "pnorm")
    assert reg.get("metric", "roc_curve") is reg.get("metric", "roc")


@pytest.mark.parametrize("spec, canonical", [
    ("prec_at_k:10", "prec@k:10"),
    ("prec@k:0.05", "prec@k:0.05"),
    ("pauc:0.1,raw", "pauc:0.1"),
    ("pauc:max_fpr=0.1,scale=mcclish", "pauc:0.1,mcclish"),
    ("tpauc:min_tpr=0.5,max_fpr=0.1", "tpauc:0.5,0.1"),
    ("pnorm:4,0", "pnorm:4"),
    ("roc:all", "roc"),
    ("roc_curve:3", "roc:3"),
])
def test_spec_canonical_form(spec, canonical):
    metric = rankcore.resolve("metric", spec)
    assert metric.spec == canonical
    assert rankcore.resolve("metric", canonical) == metric


def test_to_loss_forms():
    auc = rankcore.resolve("metric", "auc")
    assert auc.to_loss(0.8) == pytest.approx(0.2)  # AUC loss = 1 - auc
    assert rankcore.resolve("metric", "ks").to_loss(0.3) == pytest.approx(0.7)
    assert rankcore.resolve("metric", "prec@k:5").to_loss(0.6) == pytest.approx(0.4)
    assert rankcore.resolve("metric", "rmax").to_loss(7) == -7.0
    assert rankcore.resolve("metric", "max_height").to_loss(7) == 7.0
    assert rankcore.resolve("metric", "pnorm:2").to_loss(0.25) == 0.25
    with pytest.raises(TypeError, match="not scalar"):
        rankcore.resolve("metric", "roc").to_loss(0.3)


def test_roc_curve_is_a_named_tuple():
    curve = rm.roc_curve([0, 1, 1, 0], [0.1, 0.9, 0.4, 0.4])
    assert isinstance(curve, rm.RocCurve)
    fp, tp, fpr, tpr, thresholds = curve
    assert fp.dtype == np.int64 and tp.dtype == np.int64 and fpr.dtype == np.float64
    assert fp.tolist() == [0, 0, 1, 2] and tp.tolist() == [0, 1, 2, 2]
    assert thresholds.tolist() == [np.inf, 0.9, 0.4, 0.1]


# ---------------------------------------------------------------------------
# sorted kernels (what ExactBoost calls from nogil code)
# ---------------------------------------------------------------------------

SCALAR_BIPARTITE = ["auc", "pauc:0.1", "pauc:0.3,mcclish", "tpauc:0.5,0.3", "tpauc:0.2,0.6,normalized", "ks",
                    "prec@k:5", "prec@k:0.1", "rmax", "max_height", "pnorm:4", "pnorm:64,0.5"]


@pytest.mark.parametrize("spec", SCALAR_BIPARTITE)
def test_sorted_kernel_equals_call(spec):
    metric = rankcore.resolve("metric", spec)
    kernel = metric.sorted_kernel()
    assert kernel is metric.sorted_kernel()  # built once per metric
    for seed in range(10):
        y, s = random_case(seed, n=60)
        pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
        assert kernel.evaluate(pos, neg) == pytest.approx(float(metric(y, s)), abs=1e-15)


# value() with an empty class: the documented finite value, and no out-of-bounds read
# (the empty side is passed as a NULL pointer, so any read would crash the test run).
EMPTY_CLASS_VALUES = [
    # spec, value with no positives, value with no negatives (3 scores on the other side)
    ("auc", 0.5, 0.5),
    ("ks", 0.0, 0.0),
    ("pauc:0.2", 0.02, 0.02),
    ("pauc:0.2,mcclish", 0.5, 0.5),
    ("tpauc:0.25,0.75", 0.125, 0.125),
    ("tpauc:0.75,0.25", 0.0, 0.0),
    ("tpauc:0.25,0.75,normalized", 0.125 / (0.75 * 0.75), 0.125 / (0.75 * 0.75)),
    ("prec@k:2", 0.0, 1.0),
    ("prec@k:0.5", 0.0, 1.0),
    ("prec@k:10", 0.0, 1.0),  # k clamped to n inside the kernel
    ("rmax", 0.0, 3.0),
    ("max_height", 0.0, 0.0),
    ("pnorm:3", 0.0, 0.0),
]


@pytest.mark.parametrize("spec, no_pos, no_neg", EMPTY_CLASS_VALUES)
def test_sorted_kernel_empty_class_value(spec, no_pos, no_neg):
    kernel = rankcore.resolve("metric", spec).sorted_kernel()
    three = np.array([0.1, 0.2, 0.2])
    assert kernel.evaluate([], three, check_classes=False) == pytest.approx(no_pos, abs=1e-15)
    assert kernel.evaluate(three, [], check_classes=False) == pytest.approx(no_neg, abs=1e-15)


def test_prec_at_k_kernel_clamps_and_resolves_fraction_at_call_time():
    from rankcore.metrics.sorted_kernels import SortedPrecAtK

    kernel = SortedPrecAtK(0.5)
    pos, neg = np.array([3.0, 4.0]), np.array([0.0, 1.0, 2.0, 5.0])
    # n = 6 -> k = 3: {5-, 4+, 3+}
    assert kernel.evaluate(pos, neg) == pytest.approx(2 / 3)
    # n = 4 (fewer negatives) -> k = 2: {4+, 3+}
    assert kernel.evaluate(pos, neg[:2]) == 1.0
    big = SortedPrecAtK(100)
    assert big.evaluate(pos, neg) == pytest.approx(2 / 6)  # clamped to k = n
    assert big.k == 100 and kernel.k == 0.5
    with pytest.raises(ValueError):
        SortedPrecAtK(0)
    with pytest.raises(ValueError):
        SortedPrecAtK(2.5)
    with pytest.raises(ValueError):
        SortedPrecAtK(float("inf"))
    with pytest.raises(TypeError):
        SortedPrecAtK("3")


def test_sorted_kernels_reject_bad_parameters():
    from rankcore.metrics.sorted_kernels import SortedPartialAUC, SortedPNormRisk, SortedTwoWayPartialAUC

    with pytest.raises(ValueError, match="max_fpr"):
        SortedPartialAUC(0.0)
    with pytest.raises(ValueError, match="scale"):
        SortedPartialAUC(0.5, "normalized")
    with pytest.raises(ValueError, match="min_tpr"):
        SortedTwoWayPartialAUC(1.0, 0.5)
    with pytest.raises(ValueError, match="p:"):
        SortedPNormRisk(0.9)
    assert "max_fpr=0.5" in repr(SortedPartialAUC(0.5, "mcclish"))


def test_misrank_large_input_is_not_quadratic():
    """n = 300,000 graded labels: O(n log n) finishes at once (O(n^2) would not)."""
    rng = np.random.default_rng(0)
    n = 300_000
    y = rng.integers(0, 5, size=n).astype(float)
    s = y + rng.normal(scale=2.0, size=n)
    value = rm.misrank(y, s)
    assert 0.0 < value < 0.5
    # spot check against the pairwise definition on a subsample
    sub = rng.choice(n, 2000, replace=False)
    from test_metrics_reference import misrank_ref

    assert rm.misrank(y[sub], s[sub]) == pytest.approx(misrank_ref(y[sub], s[sub]), abs=1e-12)


# ---------------------------------------------------------------------------
# the contract checks catch broken metrics (a check that cannot fail is a defect)
# ---------------------------------------------------------------------------


class _Broken(Metric):
    """A deliberately broken metric for the contract-check tests."""

    name = "broken"


class NotMonotone(_Broken):
    """Claims monotone, rewards a lower positive score."""

    def compute(self, y, scores):
        return float(-np.mean(scores[y == 1]) + np.mean(scores[y == 0]))


class WrongDirection(_Broken):
    """Says higher is better, but its loss form grows with the value."""

    bounded = True

    def compute(self, y, scores):
        return rm.auc(y, scores)

    def to_loss(self, value):
        return float(value)


class OrderDependent(_Broken):
    """Breaks ties by array position."""

    def compute(self, y, scores):
        order = np.argsort(-scores, kind="stable")
        return float(y[order[0]])


class ReturnsNaN(_Broken):
    """Returns NaN silently."""

    def compute(self, y, scores):
        return float("nan")


class ScaleDependent(_Broken):
    """Claims shift invariance but depends on the score values, not only their order."""

    monotone = False
    shift_invariant = True

    def compute(self, y, scores):
        return float(np.mean(scores[y == 1]))


class AcceptsOneClass(_Broken):
    """Claims to need both classes but returns a number with one."""

    requires_both_classes = True

    def __call__(self, y, scores):
        return 0.5


class KernelDisagrees(_Broken):
    """Offers a sorted kernel that computes something else."""

    def compute(self, y, scores):
        return rm.auc(y, scores)

    def sorted_kernel(self):
        return rankcore.resolve("metric", "ks").sorted_kernel()


test_contract_check_catches = contract_checks_catch([
    (NotMonotone, metric_checks.check_metric_monotone),
    (WrongDirection, metric_checks.check_metric_loss_direction),
    (OrderDependent, metric_checks.check_metric_permutation_invariance),
    (ReturnsNaN, metric_checks.check_metric_value_type),
    (ScaleDependent, metric_checks.check_metric_shift_invariance),
    (AcceptsOneClass, metric_checks.check_metric_one_class),
    (AcceptsOneClass, metric_checks.check_metric_rejects_bad_input),
    (KernelDisagrees, metric_checks.check_metric_sorted_kernel),
])


@pytest.mark.parametrize("check", metric_checks.CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("spec", ["auc", "prec@k:0.2", "pnorm:64", "misrank", "roc:3", "height"])
def test_contract_checks_pass_on_builtins(check, spec):
    check(rankcore.resolve("metric", spec), np.random.default_rng(1))


@pytest.mark.parametrize("name", _functions.__all__)
def test_function_docstrings_have_their_shared_sections_filled_in(name):
    doc = getattr(_functions, name).__doc__
    assert not any("{" + key + "}" in doc for key in _functions._SHARED_DOC), doc
    assert "Parameters\n    ----------\n    y : array-like of shape (n,)\n" in doc


def test_function_docstring_examples_run():
    failures, tests = doctest.testmod(_functions, optionflags=doctest.ELLIPSIS)[:2]
    assert tests > 10 and failures == 0
    failures, tests = doctest.testmod(evaluate_module)[:2]
    assert tests > 0 and failures == 0
