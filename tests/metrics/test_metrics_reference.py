"""Every metric kernel against a plain NumPy/Python reference and against scikit-learn.

The references below follow the definitions of docs/theory/metrics.md literally (pairwise
sums, one threshold at a time, exact fractions) and share no code with the
Cython kernels.  Tests are parametrized over ``[reference, fast]`` where the
case has a value known by hand, and compare fast with reference on random
data with many ties and on the edge cases (all scores tied, one example per
class, k = n, k > n₊, fractional k).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import rankcore
from rankcore import metrics as rm

# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------


def _split(y, scores):
    y = np.asarray(y)
    s = np.asarray(scores, dtype=np.float64)
    return s[y == 1], s[y == 0]


def auc_ref(y, scores):
    pos, neg = _split(y, scores)
    greater = (pos[:, None] > neg[None, :]).sum()
    equal = (pos[:, None] == neg[None, :]).sum()
    return (greater + 0.5 * equal) / (pos.size * neg.size)


def roc_ref(y, scores, max_fp=None):
    """(fp, tp, thresholds), one threshold at a time: counts of scores >= t."""
    pos, neg = _split(y, scores)
    fps, tps, ths = [0], [0], [np.inf]
    for t in np.unique(np.concatenate([pos, neg]))[::-1]:
        fp, tp = int((neg >= t).sum()), int((pos >= t).sum())
        if max_fp is not None and fp > max_fp:
            break
        fps.append(fp)
        tps.append(tp)
        ths.append(t)
    return np.array(fps), np.array(tps), np.array(ths)


def _roc_fractions(y, scores):
    fp, tp, _ = roc_ref(y, scores)
    pos, neg = _split(y, scores)
    return [Fraction(int(a), neg.size) for a in fp], [Fraction(int(b), pos.size) for b in tp]


def _area_above(xs, ys, alpha, beta):
    """Exact ∫_0^alpha max(0, ROC(u) − beta) du for the piecewise-linear curve (xs, ys)."""
    alpha, beta = Fraction(alpha), Fraction(beta)
    total = Fraction(0)
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if x0 >= alpha or x1 == x0:
            continue
        if x1 > alpha:
            y1 = y0 + (y1 - y0) * (alpha - x0) / (x1 - x0)
            x1 = alpha
        if y1 <= beta:
            continue
        if y0 >= beta:
            total += (x1 - x0) * ((y0 - beta) + (y1 - beta)) / 2
        else:
            x_cross = x0 + (x1 - x0) * (beta - y0) / (y1 - y0)
            total += (x1 - x_cross) * (y1 - beta) / 2
    return total


def pauc_ref(y, scores, max_fpr, scale="raw"):
    xs, ys = _roc_fractions(y, scores)
    raw = float(_area_above(xs, ys, Fraction(max_fpr), 0))
    if scale == "mcclish":
        a = max_fpr
        return 0.5 * (1 + (raw - a * a / 2) / (a - a * a / 2))
    return raw


def tpauc_ref(y, scores, min_tpr, max_fpr, scale="raw"):
    xs, ys = _roc_fractions(y, scores)
    raw = float(_area_above(xs, ys, Fraction(max_fpr), Fraction(min_tpr)))
    return raw / ((1 - min_tpr) * max_fpr) if scale == "normalized" else raw


def ks_ref(y, scores):
    pos, neg = _split(y, scores)
    best = 0.0
    for t in np.unique(np.concatenate([pos, neg])):
        best = max(best, (neg <= t).mean() - (pos <= t).mean())
    return best


def prec_at_k_ref(y, scores, k):
    y = np.asarray(y)
    s = np.asarray(scores, dtype=np.float64)
    n = s.size
    k = max(1, math.floor(k * n + 0.5)) if k < 1 else int(k)
    kth = np.sort(s)[::-1][k - 1]
    above = s > kth
    tied = s == kth
    hits = y[above].sum() + (k - above.sum()) * y[tied].sum() / tied.sum()
    return hits / k


def prec_at_k_exhaustive(y, scores, k):
    """Average over every order of the examples consistent with the scores (n <= 8)."""
    y = np.asarray(y)
    s = np.asarray(scores, dtype=np.float64)
    total, count = Fraction(0), 0
    for perm in itertools.permutations(range(s.size)):
        rank = np.empty(s.size, dtype=int)
        rank[list(perm)] = np.arange(s.size)
        order = sorted(range(s.size), key=lambda i: (-s[i], rank[i]))
        total += Fraction(int(y[order[:k]].sum()), k)
        count += 1
    return float(total / count)


def rmax_ref(y, scores):
    pos, neg = _split(y, scores)
    return int((pos > neg.max()).sum()) if neg.size else pos.size


def height_ref(y, scores):
    pos, neg = _split(y, scores)
    return np.array([int((pos <= f).sum()) for f in neg], dtype=np.int64)


def max_height_ref(y, scores):
    return int(height_ref(y, scores).max())


def pnorm_ref(y, scores, p, theta=0.0):
    pos, neg = _split(y, scores)
    h = ((pos[None, :] - neg[:, None]) <= theta).mean(axis=1)
    return float(np.mean(h ** p) ** (1.0 / p))


def misrank_ref(y, scores):
    y = np.asarray(y, dtype=np.float64)
    s = np.asarray(scores, dtype=np.float64)
    pairs = y[:, None] > y[None, :]
    wrong = pairs & (s[:, None] <= s[None, :])
    return wrong.sum() / pairs.sum()


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def random_case(seed, n=None, ties="many"):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120)) if n is None else n
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.int8)
    y[rng.integers(n)] = 1
    zero = rng.integers(n)
    while y[zero] == 1 and y.sum() == n:
        y[zero] = 0
    y[zero] = 0 if y.sum() > 1 else y[zero]
    if y.sum() == n:
        y[0] = 0
    if y.sum() == 0:
        y[0] = 1
    if ties == "many":
        scores = rng.integers(0, max(2, n // 5), size=n).astype(np.float64)
    elif ties == "few":
        scores = rng.integers(0, 4 * n, size=n).astype(np.float64)
    else:
        scores = rng.normal(size=n)
    return y, scores


SEEDS = range(40)
TIES = ["many", "few", "none"]


def edge_cases():
    """(id, y, scores): the cases kernels get wrong first."""
    return [
        ("all-tied", np.array([0, 1, 0, 1, 1, 0, 0]), np.full(7, 3.0)),
        ("one-per-class", np.array([0, 1]), np.array([0.2, 0.7])),
        ("one-per-class-reversed", np.array([1, 0]), np.array([0.2, 0.7])),
        ("one-per-class-tied", np.array([1, 0]), np.array([0.5, 0.5])),
        ("one-positive", np.array([0, 0, 1, 0, 0]), np.array([1.0, 2.0, 2.0, 3.0, 0.0])),
        ("one-negative", np.array([1, 1, 0, 1]), np.array([1.0, 2.0, 2.0, 3.0])),
        ("perfect", np.array([0, 0, 1, 1, 1]), np.array([0.0, 1.0, 2.0, 3.0, 4.0])),
        ("reversed", np.array([1, 1, 0, 0, 0]), np.array([0.0, 1.0, 2.0, 3.0, 4.0])),
        ("negative-scores", np.array([1, 0, 1, 0]), np.array([-5.0, -1e300, 1e300, 0.0])),
    ]


EDGE_IDS = [case[0] for case in edge_cases()]


def all_cases():
    for seed in SEEDS:
        for ties in TIES:
            y, s = random_case(seed, ties=ties)
            yield f"seed{seed}-{ties}", y, s
    yield from edge_cases()


CASES = list(all_cases())
CASE_IDS = [c[0] for c in CASES]


# ---------------------------------------------------------------------------
# Hand-checked values, parametrized over [reference, fast]
# ---------------------------------------------------------------------------

Y6 = np.array([0, 0, 1, 0, 1, 1])
S6 = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
# descending: + + - + - -  ->  ROC points (0,0) (0,1) (0,2) (1,2) (1,3) (2,3) (3,3) in counts

IMPLEMENTATIONS = {
    "auc": (auc_ref, rm.auc),
    "pauc": (pauc_ref, rm.pauc),
    "tpauc": (tpauc_ref, rm.tpauc),
    "ks": (ks_ref, rm.ks),
    "prec_at_k": (prec_at_k_ref, rm.prec_at_k),
    "rmax": (rmax_ref, rm.rmax),
    "max_height": (max_height_ref, rm.max_height),
    "height": (height_ref, rm.height),
    "pnorm": (pnorm_ref, rm.pnorm_risk),
    "misrank": (misrank_ref, rm.misrank),
}

HAND = [
    ("auc", (), 8 / 9),
    ("pauc", (0.5,), 2 / 9 + 1 / 6),
    ("pauc", (1 / 3,), 2 / 9),
    ("pauc", (1.0,), 8 / 9),
    ("tpauc", (0.5, 0.5), 1 / 18 + 1 / 12),
    ("tpauc", (0.0, 0.5), 2 / 9 + 1 / 6),
    ("ks", (), 2 / 3),
    ("prec_at_k", (1,), 1.0),
    ("prec_at_k", (3,), 2 / 3),
    ("prec_at_k", (6,), 0.5),
    ("prec_at_k", (0.5,), 2 / 3),  # k = floor(0.5·6 + 0.5) = 3
    ("rmax", (), 2),
    ("max_height", (), 1),
    ("height", (), np.array([0, 0, 1])),
    ("pnorm", (1,), 1 / 9),
    ("pnorm", (2,), math.sqrt((1 / 9) / 3)),
    ("pnorm", (1, 0.15), (0 + 1 / 3 + 2 / 3) / 3),  # f_i − f_k <= 0.15 counts
    ("misrank", (), 1 / 9),
]


@pytest.mark.parametrize("impl", ["reference", "fast"])
@pytest.mark.parametrize("name, args, expected", HAND, ids=[f"{h[0]}{h[1]}" for h in HAND])
def test_metric_hand_value(impl, name, args, expected):
    func = IMPLEMENTATIONS[name][0 if impl == "reference" else 1]
    value = func(Y6, S6, *args)
    np.testing.assert_allclose(value, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("impl", ["reference", "fast"])
def test_prec_at_k_tie_gets_fractional_credit(impl):
    func = IMPLEMENTATIONS["prec_at_k"][0 if impl == "reference" else 1]
    # top score 3 (negative), then a tie of 2 positives and 2 negatives at 2; k = 2
    y = [0, 1, 1, 0, 0, 0]
    s = [3.0, 2.0, 2.0, 2.0, 2.0, 1.0]
    assert func(y, s, 2) == pytest.approx((0 + 1 * 2 / 4) / 2, abs=1e-15)
    assert func(y, s, 5) == pytest.approx(2 / 5, abs=1e-15)


# ---------------------------------------------------------------------------
# fast == reference on random data and edge cases
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_auc_matches_reference_and_sklearn(case_id, y, s):
    value = rm.auc(y, s)
    assert value == pytest.approx(auc_ref(y, s), abs=1e-12)
    assert value == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)


@pytest.mark.parametrize("max_fpr", [0.05, 0.1, 1 / 3, 0.5, 0.77, 1.0])
@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_pauc_matches_reference_and_sklearn(case_id, y, s, max_fpr):
    assert rm.pauc(y, s, max_fpr) == pytest.approx(pauc_ref(y, s, max_fpr), abs=1e-12)
    mcclish = rm.pauc(y, s, max_fpr, scale="mcclish")
    assert mcclish == pytest.approx(pauc_ref(y, s, max_fpr, "mcclish"), abs=1e-12)
    assert mcclish == pytest.approx(skm.roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-12)


@pytest.mark.parametrize("min_tpr, max_fpr", [(0.0, 0.3), (0.5, 0.5), (0.2, 1.0), (0.9, 0.1), (0.7, 0.35)])
@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_tpauc_matches_reference(case_id, y, s, min_tpr, max_fpr):
    for scale in ("raw", "normalized"):
        fast = rm.tpauc(y, s, min_tpr, max_fpr, scale=scale)
        assert fast == pytest.approx(tpauc_ref(y, s, min_tpr, max_fpr, scale), abs=1e-12)
    if min_tpr == 0:
        assert rm.tpauc(y, s, 0.0, max_fpr) == pytest.approx(rm.pauc(y, s, max_fpr), abs=1e-12)


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_ks_matches_reference_and_scipy(case_id, y, s):
    pos, neg = _split(y, s)
    value = rm.ks(y, s)
    assert value == pytest.approx(ks_ref(y, s), abs=1e-12)
    # scipy's one-sided two-sample statistic: max(F_neg - F_pos)
    assert value == pytest.approx(stats.ks_2samp(neg, pos, alternative="greater").statistic, abs=1e-12)


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_prec_at_k_matches_reference(case_id, y, s):
    n = len(y)
    n_pos = int(np.sum(y))
    ks = sorted({1, 2, n, max(1, n_pos), min(n, n_pos + 1), max(1, n // 2)})
    for k in ks:  # includes k = n and (when possible) k > n₊
        assert rm.prec_at_k(y, s, k) == pytest.approx(prec_at_k_ref(y, s, k), abs=1e-12), k
    for frac in (0.01, 0.1, 0.25, 0.5, 0.999):
        assert rm.prec_at_k(y, s, frac) == pytest.approx(prec_at_k_ref(y, s, frac), abs=1e-12), frac


@pytest.mark.parametrize("seed", range(12))
def test_prec_at_k_is_expectation_over_tie_orders(seed):
    """The tie convention is literally the mean over all orders of the tied examples."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    y = rng.integers(0, 2, size=n)
    s = rng.integers(0, 3, size=n).astype(float)
    for k in range(1, n + 1):
        assert rm.prec_at_k(y, s, k) == pytest.approx(prec_at_k_exhaustive(y, s, k), abs=1e-12)


def test_prec_at_k_constant_scorer_gets_base_rate():
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0, 0])
    for k in range(1, 11):
        assert rm.prec_at_k(y, np.zeros(10), k) == pytest.approx(0.3, abs=1e-15)


def test_prec_at_k_larger_than_positives_keeps_k():
    y = np.array([1, 1, 0, 0, 0, 0])
    s = np.array([9.0, 8.0, 1.0, 2.0, 3.0, 4.0])
    assert rm.prec_at_k(y, s, 4) == 0.5  # 2 positives / k=4, not / min(k, I)=2
    assert rm.prec_at_k(y, s, 6) == pytest.approx(2 / 6)


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_rmax_height_max_height_match_reference(case_id, y, s):
    assert rm.rmax(y, s) == rmax_ref(y, s)
    assert rm.max_height(y, s) == max_height_ref(y, s)
    np.testing.assert_array_equal(rm.height(y, s), height_ref(y, s))
    assert rm.max_height(y, s) == int(np.sum(y)) - rm.rmax(y, s)
    assert isinstance(rm.rmax(y, s), int) and isinstance(rm.max_height(y, s), int)


@pytest.mark.parametrize("p, theta", [(1, 0.0), (2, 0.0), (4, 0.5), (16, -1.0), (64, 0.0), (1.5, 2.0)])
@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_pnorm_matches_reference(case_id, y, s, p, theta):
    assert rm.pnorm_risk(y, s, p, theta) == pytest.approx(pnorm_ref(y, s, p, theta), rel=1e-12, abs=1e-300)


def test_pnorm_large_p_does_not_underflow():
    # one positive below the top negative out of 200,000: h = 5e-6, h^64 underflows to 0
    n_pos, n_neg = 200_000, 50
    y = np.r_[np.ones(n_pos, np.int8), np.zeros(n_neg, np.int8)]
    s = np.r_[np.full(n_pos, 100.0), np.arange(n_neg, dtype=float)]
    s[0] = -1.0  # below every negative
    value = rm.pnorm_risk(y, s, 64)
    # every h_k = 1/n_pos, so R = 1/n_pos exactly
    assert value == pytest.approx(1 / n_pos, rel=1e-12)
    naive = np.mean((np.full(n_neg, 1 / n_pos)) ** 64) ** (1 / 64)
    assert naive == 0.0  # what the textbook formula gives in float64
    # and with uneven heights, against a log-space reference
    s[1:4] = [5.5, 20.0, 30.0]
    heights = height_ref(y, s) / n_pos
    log_mean = np.logaddexp.reduce(64 * np.log(heights[heights > 0])) - np.log(n_neg)
    assert rm.pnorm_risk(y, s, 64) == pytest.approx(math.exp(log_mean / 64), rel=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_misrank_matches_reference_graded(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 150))
    y = rng.integers(0, rng.integers(2, 6), size=n).astype(float)
    if np.all(y == y[0]):
        y[0] += 1
    s = rng.integers(0, max(2, n // 3), size=n).astype(float)
    assert rm.misrank(y, s) == pytest.approx(misrank_ref(y, s), abs=1e-12)
    s2 = rng.normal(size=n)
    assert rm.misrank(y, s2) == pytest.approx(misrank_ref(y, s2), abs=1e-12)


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_misrank_binary_is_one_minus_auc_minus_half_ties(case_id, y, s):
    pos, neg = _split(y, s)
    tied = (pos[:, None] == neg[None, :]).mean()
    assert rm.misrank(y, s) == pytest.approx(1 - rm.auc(y, s) + 0.5 * tied, abs=1e-12)
    assert rm.misrank(y, s) == pytest.approx(misrank_ref(y, s), abs=1e-12)


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_roc_curve_matches_reference_and_sklearn(case_id, y, s):
    curve = rm.roc_curve(y, s)
    fp, tp, th = roc_ref(y, s)
    np.testing.assert_array_equal(curve.fp, fp)
    np.testing.assert_array_equal(curve.tp, tp)
    np.testing.assert_array_equal(curve.thresholds, th)
    sk_fpr, sk_tpr, sk_th = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(curve.fpr, sk_fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(curve.tpr, sk_tpr, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(curve.thresholds[1:], sk_th[1:])
    assert curve.thresholds[0] == np.inf
    # the trapezoid area of the curve is the auc (ties as diagonal segments)
    assert np.trapezoid(curve.tpr, curve.fpr) == pytest.approx(rm.auc(y, s), abs=1e-12)


@pytest.mark.parametrize("case_id, y, s", CASES, ids=CASE_IDS)
def test_roc_curve_leftmost_portion(case_id, y, s):
    full = rm.roc_curve(y, s)
    for max_fp in (0, 1, 3, int(np.sum(np.asarray(y) == 0))):
        part = rm.roc_curve(y, s, max_fp=max_fp)
        fp, tp, th = roc_ref(y, s, max_fp=max_fp)
        np.testing.assert_array_equal(part.fp, fp)
        np.testing.assert_array_equal(part.tp, tp)
        np.testing.assert_array_equal(part.thresholds, th)
        m = part.fp.size
        np.testing.assert_array_equal(part.fpr, full.fpr[:m])
        assert part.fp.max() <= max_fp
    assert rm.roc_curve(y, s, max_fp=0).tp[-1] == rm.rmax(y, s)


# ---------------------------------------------------------------------------
# Edge cases by hand
# ---------------------------------------------------------------------------


def test_all_scores_tied_values():
    y = np.array([0, 1, 0, 1, 1, 0, 0])
    s = np.full(7, 3.0)
    assert rm.auc(y, s) == 0.5
    assert rm.ks(y, s) == 0.0
    assert rm.rmax(y, s) == 0
    assert rm.max_height(y, s) == 3
    assert rm.pauc(y, s, 0.2) == pytest.approx(0.02)
    assert rm.pauc(y, s, 0.2, scale="mcclish") == pytest.approx(0.5)
    assert rm.tpauc(y, s, 0.5, 0.8) == pytest.approx(0.3 ** 2 / 2)
    assert rm.tpauc(y, s, 0.8, 0.5) == 0.0
    assert rm.prec_at_k(y, s, 2) == pytest.approx(3 / 7)
    assert rm.pnorm_risk(y, s, 8) == 1.0
    assert rm.misrank(y, s) == 1.0
    curve = rm.roc_curve(y, s)
    assert curve.fp.tolist() == [0, 4] and curve.tp.tolist() == [0, 3]


def test_one_example_per_class():
    assert rm.auc([0, 1], [0.0, 1.0]) == 1.0
    assert rm.auc([1, 0], [0.0, 1.0]) == 0.0
    assert rm.auc([1, 0], [0.5, 0.5]) == 0.5
    assert rm.ks([0, 1], [0.0, 1.0]) == 1.0
    assert rm.ks([1, 0], [0.0, 1.0]) == 0.0
    assert rm.pauc([0, 1], [0.0, 1.0], 0.1) == pytest.approx(0.1)
    assert rm.pauc([1, 0], [0.5, 0.5], 0.1) == pytest.approx(0.005)
    assert rm.prec_at_k([1, 0], [0.5, 0.5], 1) == 0.5
    assert rm.rmax([0, 1], [0.0, 1.0]) == 1 and rm.rmax([0, 1], [1.0, 1.0]) == 0
    assert rm.pnorm_risk([0, 1], [0.0, 1.0], 3) == 0.0
    assert rm.pnorm_risk([0, 1], [1.0, 0.0], 3) == 1.0


def test_prec_at_k_one_class_allowed():
    assert rm.prec_at_k([0, 0, 0], [1.0, 2.0, 3.0], 2) == 0.0
    assert rm.prec_at_k([1, 1, 1], [1.0, 2.0, 3.0], 2) == 1.0
    assert rankcore.evaluate([1, 1], [0.0, 1.0], ["prec@k:1"]) == {"prec@k:1": 1.0}


def test_prec_at_k_fraction_resolution():
    y = np.r_[np.ones(3, np.int8), np.zeros(7, np.int8)]
    s = np.arange(10, dtype=float)[::-1]  # positives on top
    # κ = 0.25, n = 10: k = floor(2.5 + 0.5) = 3 -> 3/3 ; κ = 0.04: k = max(1, floor(0.9)) = 1
    assert rm.prec_at_k(y, s, 0.25) == 1.0
    assert rm.prec_at_k(y, s, 0.04) == 1.0
    assert rm.prec_at_k(y, s, 0.45) == pytest.approx(3 / 5)  # k = floor(5.0) = 5


def test_sklearn_pauc_full_range_equals_auc():
    y, s = random_case(3)
    assert rm.pauc(y, s, 1.0) == pytest.approx(rm.auc(y, s), abs=1e-15)
    assert rm.pauc(y, s, 1.0, scale="mcclish") == pytest.approx(rm.auc(y, s), abs=1e-15)


def test_large_input_exact_auc():
    """n = 200,000 with heavy ties: the integer pair counts stay exact."""
    rng = np.random.default_rng(0)
    n = 200_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = np.round(rng.normal(size=n) + 0.3 * y, 1)
    assert rm.auc(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert rm.pauc(y, s, 0.1, scale="mcclish") == pytest.approx(skm.roc_auc_score(y, s, max_fpr=0.1), abs=1e-12)
