"""LambdaMART's gradients as LightGBM defines them: a loop-by-loop reference, a hand check, LightGBM itself."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _query_objective_reference import lambdarank_reference
from rankcore.metrics._queries import check_qid
from rankcore.objectives._base import clip_hessian
from rankcore.objectives._lambdarank import LambdaRank
from rankcore.registry import resolve
from rankcore.spec import SpecError


def _data(seed, n=60, n_queries=5):
    """Rows not sorted by query, ties in scores and grades, float grades, a query with no relevant row."""
    rng = np.random.default_rng(seed)
    qid = rng.choice([4, 9, 11, 20, 31][:n_queries], n, p=[0.1, 0.15, 0.2, 0.25, 0.3][:n_queries])
    y = rng.choice([0, 0, 1, 2, 3.5], n)
    y[qid == 4] = 0
    f = rng.integers(-5, 6, n) / 2.0
    return y, qid, f


@pytest.mark.parametrize("truncation", [1, 3, 30, None])
@pytest.mark.parametrize("norm", [True, False])
@pytest.mark.parametrize("sigmoid", [1.0, 2.5])
def test_matches_reference(truncation, norm, sigmoid):
    for seed in range(3):
        y, qid, f = _data(seed)
        w = np.random.default_rng(seed).uniform(0.5, 2, y.shape[0])
        grad, hess = LambdaRank(truncation, sigmoid, norm=norm).gradient_hessian(y, f, check_qid(qid, y.shape[0]), w)
        ref_grad, ref_hess = lambdarank_reference(y, qid, f, truncation, sigmoid, norm, w)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(grad[qid == 4], 0.0)                   # no relevant row: no pair weight
        objective = LambdaRank(truncation, sigmoid, norm=norm)
        unweighted, _ = objective.gradient_hessian(y, f, check_qid(qid, y.shape[0]))
        for q in np.unique(qid):                                             # each pair pushes ±λ: Σ λ = 0
            assert abs(unweighted[qid == q].sum()) < 1e-12


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_matches_reference_on_any_queries(data):
    # one-row queries, queries of one grade, all scores tied, every truncation: the compiled pass against the loops
    n = data.draw(st.integers(1, 40))
    qid = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 4.0]), min_size=n, max_size=n)))
    f = np.array(data.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), min_size=n, max_size=n)))
    truncation = data.draw(st.sampled_from([1, 2, 5, None]))
    norm = data.draw(st.booleans())
    grad, hess = LambdaRank(truncation, 1.5, norm=norm).gradient_hessian(y, f, check_qid(qid, n))
    ref_grad, ref_hess = lambdarank_reference(y, qid, f, truncation, 1.5, norm, None)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)


def test_threads_change_nothing_and_memory_stays_linear():
    # queries on threads: each query's pairs on one thread, in place order, so the result is bit for bit the same
    rng = np.random.default_rng(0)
    qid = rng.integers(0, 400, 20_000)
    y = rng.integers(0, 5, qid.shape[0]).astype(float)
    f = rng.normal(size=qid.shape[0])
    queries = check_qid(qid, qid.shape[0])
    one = LambdaRank().gradient_hessian(y, f, queries, n_threads=1)
    two = LambdaRank().gradient_hessian(y, f, queries, n_threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    import tracemalloc

    tracemalloc.start()
    LambdaRank().gradient_hessian(y, f, queries)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200 * qid.shape[0]       # a few arrays of n (the NumPy form held ~2 KB a row)


def _many_queries(seed):
    """300 queries of 1-40 rows and one of 3,000 (rows interleaved), scores and grades with many ties, -0.0 and 0.0."""
    rng = np.random.default_rng(seed)
    qid = np.r_[rng.integers(0, 300, 6_000), np.full(3_000, 300)]
    rng.shuffle(qid)
    y = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0], qid.shape[0])
    f = rng.integers(-4, 5, qid.shape[0]) / 2.0
    f[rng.random(qid.shape[0]) < 0.1] = -0.0
    f[qid == 7] = 1.5                                                     # a query of tied scores
    return y, qid, f


def lambdarank_in_loop_order(y, qid, f, truncation, sigmoid, norm, table=None):
    """LambdaRank's λ and h with the compiled pass's arithmetic, operation for operation, from a global stable sort.

    Each query's rows in the order of ``lexsort`` by (query, −score) (ties in row order, LightGBM's), its ideal DCG
    as NumPy's ``bincount`` sums it, the pairs in place order: the form the pass had before it sorted each query
    in its parallel loop, whose results it must give bit for bit.
    """
    gain = np.exp2(y) - 1.0 if table is None else np.asarray(table, dtype=float)[y.astype(int)]
    lam, curv = np.zeros(y.shape[0]), np.zeros(y.shape[0])
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        rows = rows[np.lexsort((-f[rows],))]
        n = rows.shape[0]
        k = n if truncation is None else min(truncation, n)
        ideal = 0.0
        for place, g in enumerate(np.sort(gain[rows])[::-1][:k]):
            ideal += g / np.log2(place + 2.0)
        if n < 2 or ideal <= 0:
            continue
        s, grade, gn = f[rows], y[rows], gain[rows]
        disc = [1.0 / math.log2(p + 2.0) for p in range(n)]
        ql, qh, total = np.zeros(n), np.zeros(n), 0.0
        for i in range(k):
            for j in range(i + 1, n):
                if grade[i] == grade[j]:
                    continue
                high, low = (i, j) if grade[i] > grade[j] else (j, i)
                ds = s[high] - s[low]
                delta = (gn[high] - gn[low]) * abs(disc[high] - disc[low]) / ideal
                if norm and s[0] != s[n - 1]:
                    delta = delta / (float(np.float32(0.01)) + abs(ds))
                rho = 1.0 / (1.0 + math.exp(sigmoid * ds))
                p_lambda = -sigmoid * delta * rho
                p_hess = sigmoid * sigmoid * delta * rho * (1.0 - rho)
                ql[high] += p_lambda
                ql[low] -= p_lambda
                qh[high] += p_hess
                qh[low] += p_hess
                total = total - 2.0 * p_lambda
        if norm and total > 0.0:
            factor = math.log2(1.0 + total) / total
            ql, qh = ql * factor, qh * factor
        lam[rows], curv[rows] = ql, qh
    return lam, curv


@pytest.mark.parametrize("truncation,norm,table", [(1, True, None), (2, False, None), (5, True, [0, 1, 1, 4]),
                                                   (None, True, None)])
def test_each_query_sorted_alone_gives_the_global_sorts_results_bit_for_bit(truncation, norm, table):
    # each query's rows ordered in the parallel loop by (−score, place in the query): LightGBM's stable order, with
    # ties in scores (and −0.0 against 0.0) in row order, so every sum is the one of the global lexsort's order
    y, qid, f = _many_queries(3)
    qid, y, f = qid[:1_200], y[:1_200], f[:1_200]
    want = lambdarank_in_loop_order(y, qid, f, truncation, 1.5, norm, table)
    got = LambdaRank(truncation, 1.5, norm=norm, gain="exp" if table is None else table).gradient_hessian(
        y, f, check_qid(qid, y.shape[0]))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("spec", ["lambdarank", "lambdarank:1", "lambdarank:truncation=2,norm=false",
                                  "lambdarank:truncation=100000,sigmoid=2.5",
                                  "lambdarank:5,gain=0/1/3/3", "lambdarank:gain=linear,norm=false"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bound_objective_equals_gradient_hessian_bit_for_bit(spec, weighted):
    # the bound form computes the gains, each query's ideal DCG and rows once; every evaluation must be the one
    # LambdaRank.gradient_hessian gives, on one thread or two
    for seed in range(2):
        y, qid, f = _many_queries(seed)
        w = np.random.default_rng(seed).uniform(0, 2, y.shape[0]) if weighted else None
        queries = check_qid(qid, y.shape[0])
        objective = resolve("objective", spec)
        lambdas = LambdaRank(objective.truncation, objective.sigmoid, norm=objective.norm, gain=objective.gain)
        bound = objective.bind(y, w, n_threads=2, queries=queries)
        for step in range(3):
            scores = f + step * np.round(np.random.default_rng(step).normal(size=y.shape[0]), 1)
            _, grad, hess = bound.value_gradient_hessian(scores)
            for threads in (1, 2):
                want_grad, want_hess = lambdas.gradient_hessian(y, scores, queries, w, n_threads=threads)
                np.testing.assert_array_equal(grad, want_grad)
                np.testing.assert_array_equal(hess, clip_hessian(want_hess))
            bound.use_threads(1)


@pytest.mark.parametrize("norm", [True, False])
def test_grades_near_1023_give_the_gradients_of_grades_shifted_down(norm):
    # |ΔNDCG| depends on 2^y only through ratios: grades t, t, t, 0 at t = 1023 and at t = 40 differ only by the
    # gains' −1, below rounding at both. The ideal DCG of three rows of grade 1023 overflowed (every λ 0).
    f = np.array([0.3, -0.2, 0.1, 0.5])
    queries = check_qid([0, 0, 0, 0], 4)
    top = LambdaRank(norm=norm).gradient_hessian(np.array([1023.0, 1023, 1023, 0]), f, queries)
    low = LambdaRank(norm=norm).gradient_hessian(np.array([60.0, 60, 60, 0]), f, queries)
    assert np.all(top[0] != 0)
    np.testing.assert_allclose(top[0], low[0], rtol=1e-12)
    np.testing.assert_allclose(top[1], low[1], rtol=1e-12)


def test_two_rows_by_hand():
    # Tied scores: no distance normalisation; the relevant row sits at rank 1 (ties keep row order).
    grad, hess = LambdaRank().gradient_hessian(np.array([0.0, 1.0]), np.zeros(2), check_qid([1, 1], 2))
    delta = 1.0 - 1.0 / math.log2(3.0)            # gain 1, |D(0) − D(1)|, ideal DCG 1
    factor = math.log2(1.0 + delta) / delta        # S = 2 · delta · 1/2
    np.testing.assert_allclose(grad, [0.5 * delta * factor, -0.5 * delta * factor], rtol=1e-15)
    np.testing.assert_allclose(hess, [0.25 * delta * factor] * 2, rtol=1e-15)


@pytest.mark.parametrize("truncation", [1, 2])
def test_tied_scores_at_truncation_1_and_2_by_hand(truncation):
    # The first tree's scores tie: places follow the rows, and only pairs with a row among the first `truncation`
    # places count. A row graded like every one of those rows gets λ = h = 0 exactly (rows 1 and 3 at
    # truncation 1, row 3 at 2), and the first rows carry most of the curvature: LightGBM's trees, which count a
    # leaf's rows from its curvature, then part the rows differently from ours (docs/query_objectives.md).
    y = np.array([1.0, 1.0, 3.0, 1.0, 0.0])
    gain = 2.0**y - 1.0

    def discount(place):
        return 1.0 / math.log2(place + 2.0)

    ideal = sum(g * discount(r) for r, g in enumerate(sorted(gain, reverse=True)[:truncation]))
    want_grad, want_hess = np.zeros(5), np.zeros(5)
    for i in range(truncation):
        for j in range(i + 1, 5):
            if y[i] == y[j]:
                continue
            high, low = (i, j) if y[i] > y[j] else (j, i)
            delta = (gain[high] - gain[low]) * abs(discount(i) - discount(j)) / ideal   # no |Δs|: scores tie
            want_grad[high] -= delta / 2                    # ρ = 1/2 at Δs = 0, σ = 1
            want_grad[low] += delta / 2
            want_hess[[high, low]] += delta / 4
    total = 2 * want_hess.sum()                             # S = Σ_pairs 2σΔρ = Σ_pairs Δ = 2 Σ_rows h
    want_grad *= math.log2(1.0 + total) / total
    want_hess *= math.log2(1.0 + total) / total
    grad, hess = LambdaRank(truncation).gradient_hessian(y, np.zeros(5), check_qid([7] * 5, 5))
    np.testing.assert_allclose(grad, want_grad, rtol=1e-14, atol=0)
    np.testing.assert_allclose(hess, want_hess, rtol=1e-14, atol=0)
    zero = [1, 3] if truncation == 1 else [3]
    np.testing.assert_array_equal(np.flatnonzero(hess == 0), zero)
    np.testing.assert_array_equal(grad[zero], 0.0)


def test_invariant_to_shuffled_rows_without_score_ties():
    y, qid, _ = _data(4)
    f = np.random.default_rng(4).normal(size=y.shape[0])
    grad, hess = LambdaRank(5).gradient_hessian(y, f, check_qid(qid, y.shape[0]))
    perm = np.random.default_rng(5).permutation(y.shape[0])
    grad2, hess2 = LambdaRank(5).gradient_hessian(y[perm], f[perm], check_qid(qid[perm].astype(str), y.shape[0]))
    np.testing.assert_allclose(grad2, grad[perm], rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(hess2, hess[perm], rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("tied", [False, True], ids=["spread", "tied"])
def test_agrees_with_lightgbm(tied):
    """One LightGBM tree grown from the scores (init_score): each leaf is −Σλ/Σh of its rows (rate 1, no L2).

    Tied (all zero, the first tree's) at truncation 1 and 2 too: our λ and h are LightGBM's there as well.
    """
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    sizes = [7, 12, 5, 20]
    n = sum(sizes)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 4, n).astype(float)
    f = np.zeros(n) if tied else np.round(rng.normal(size=n), 2)
    X = np.arange(n, dtype=float).reshape(-1, 1)
    binning = dict(max_bin=1000, min_data_in_bin=1)
    for truncation in (1, 2, 5, 30):
        params = dict(objective="lambdarank", learning_rate=1.0, num_leaves=n, min_data_in_leaf=1,
                      min_sum_hessian_in_leaf=1e-9, lambda_l2=0.0, verbose=-1, num_threads=1,
                      lambdarank_truncation_level=truncation, **binning)
        booster = lgb.train(params, lgb.Dataset(X, y, group=sizes, init_score=f, params=binning), num_boost_round=1)
        leaf = booster.predict(X, pred_leaf=True).ravel().astype(int)
        value = booster.predict(X, raw_score=True)
        grad, hess = LambdaRank(truncation).gradient_hessian(y, f, check_qid(qid, n))
        # tied: rows alike in λ and h (same grade, both past the top) gain nothing split apart
        assert len(np.unique(leaf)) > (2 * len(sizes) if tied else n // 2)
        for index in np.unique(leaf):
            rows = leaf == index
            # LightGBM reads the sigmoid from a table and keeps λ, h in float32
            assert value[rows][0] == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-3, abs=1e-4)


@pytest.mark.parametrize("table", [[0, 2, 3, 10], [0.0, 0.5, 4.25, 4.5], [1, 1, 5, 5]])
@pytest.mark.parametrize("norm", [True, False])
def test_gain_table_matches_reference(table, norm):
    # LightGBM's label_gain: the table's gain per grade in the pair weights and the ideal DCG (gains that do not
    # decrease with the grade: the pairs follow the grades, as in LightGBM; grades of equal gain weigh 0)
    for seed in range(3):
        y, qid, f = _data(seed)
        y = np.where(y == 3.5, 3.0, y)                                     # whole grades within the table
        w = np.random.default_rng(seed).uniform(0.5, 2, y.shape[0])
        spelled = "/".join(str(v) for v in table)
        for gain in (table, spelled):
            grad, hess = LambdaRank(5, norm=norm, gain=gain).gradient_hessian(y, f, check_qid(qid, y.shape[0]), w)
            ref_grad, ref_hess = lambdarank_reference(y, qid, f, 5, 1.0, norm, w, table=table)
            np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(hess, ref_hess, rtol=1e-12, atol=1e-15)
        # the table of 2^y - 1 is the default
        exp_table = LambdaRank(5, norm=norm, gain="0/1/3/7").gradient_hessian(y, f, check_qid(qid, y.shape[0]))
        default = LambdaRank(5, norm=norm).gradient_hessian(y, f, check_qid(qid, y.shape[0]))
        np.testing.assert_array_equal(exp_table[0], default[0])
        np.testing.assert_array_equal(exp_table[1], default[1])


def test_linear_gain_is_the_table_of_the_grades():
    y, qid, f = _data(1)
    y = np.where(y == 3.5, 3.0, y)
    linear = LambdaRank(gain="linear").gradient_hessian(y, f, check_qid(qid, y.shape[0]))
    table = LambdaRank(gain=[0, 1, 2, 3]).gradient_hessian(y, f, check_qid(qid, y.shape[0]))
    np.testing.assert_array_equal(linear[0], table[0])


@pytest.mark.parametrize("table", [[0, 1, 3, 7], [0, 2, 3, 10]])
def test_agrees_with_lightgbm_label_gain(table):
    """LightGBM's lambdarank with label_gain: one tree from the scores, each leaf −Σλ/Σh of its rows."""
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(1)
    sizes = [7, 12, 5, 20]
    n = sum(sizes)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 4, n).astype(float)
    f = np.round(rng.normal(size=n), 2)
    X = np.arange(n, dtype=float).reshape(-1, 1)
    binning = dict(max_bin=1000, min_data_in_bin=1)
    params = dict(objective="lambdarank", learning_rate=1.0, num_leaves=n, min_data_in_leaf=1,
                  min_sum_hessian_in_leaf=1e-9, lambda_l2=0.0, verbose=-1, num_threads=1,
                  lambdarank_truncation_level=10, label_gain=table, **binning)
    booster = lgb.train(params, lgb.Dataset(X, y, group=sizes, init_score=f, params=binning), num_boost_round=1)
    leaf = booster.predict(X, pred_leaf=True).ravel().astype(int)
    value = booster.predict(X, raw_score=True)
    grad, hess = LambdaRank(10, gain=table).gradient_hessian(y, f, check_qid(qid, n))
    assert len(np.unique(leaf)) > n // 2
    for index in np.unique(leaf):
        rows = leaf == index
        # LightGBM reads the sigmoid from a table and keeps λ, h in float32
        assert value[rows][0] == pytest.approx(-grad[rows].sum() / hess[rows].sum(), rel=1e-3, abs=1e-4)
    if table != [0, 1, 3, 7]:                    # a table LightGBM's default would not give: the gains are used
        default, _ = LambdaRank(10).gradient_hessian(y, f, check_qid(qid, n))
        assert not np.allclose(default, grad, rtol=1e-3)


@pytest.mark.parametrize("y,gain,match", [
    ([0, 1, 4], "0/1/3/7", r"y: the grade 4.0 at row 2 has no gain in the table '0/1/3/7' \(LightGBM's label_gain: "
                           r"whole grades 0..3\)"),
    ([0, 1.5, 2], "0/1/3/7", r"y: the grade 1.5 at row 1 has no gain in the table"),
    ([0, -1, 2], "0/1/3/7", r"y: grades must be >= 0, got -1.0 at row 1"),
    ([0, -1, 2], "linear", r"y: grades must be >= 0, got -1.0 at row 1"),
])
def test_bad_grades_for_a_gain(y, gain, match):
    with pytest.raises(ValueError, match=match):
        LambdaRank(gain=gain).gradient_hessian(np.array(y, dtype=float), np.zeros(3), check_qid([1, 1, 1], 3))


@pytest.mark.parametrize("gain", ["pow", "1", "0/-1/2", "0/inf", [0], None])
def test_bad_gain_spelling_is_refused_as_ndcg_refuses_it(gain):
    with pytest.raises(ValueError, match=r"^gain: "):
        LambdaRank(gain=gain)


@pytest.mark.parametrize("gain,match", [("0/7/3/1", r"grade 2 the gain 3, below grade 1's 7"),
                                        ("7/3/1/0", r"grade 1 the gain 3, below grade 0's 7")])
def test_a_gain_table_that_decreases_is_refused(gain, match):
    # pairs are ordered by grade: a lower gain at a higher grade would weigh a pair negatively, the curvature would
    # turn negative and the scores run away
    with pytest.raises(ValueError, match=r"^gain: lambdarank orders each pair by grade, so its gains must not "
                                         r"decrease with the grade; the table gives " + match):
        LambdaRank(gain=gain)
    with pytest.raises(SpecError, match=r"objective 'lambdarank': gain: .*" + match):
        resolve("objective", f"lambdarank:gain={gain}")
    assert resolve("objective", "lambdarank:gain=0/1/1/3").gain == "0/1/1/3"       # level stretches are fine


@pytest.mark.parametrize("kwargs,match", [
    ({"truncation": 0}, r"truncation: must be an integer >= 1 \(or None for every position\), got 0"),
    ({"truncation": 2.5}, r"truncation: .* got 2.5"),
    ({"sigmoid": 0}, r"sigmoid: must be a finite number > 0, got 0"),
    ({"sigmoid": "1"}, r"sigmoid: must be a finite number > 0, got '1'"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LambdaRank(**kwargs)


@pytest.mark.parametrize("norm", ["yes", 1, None])
def test_norm_must_be_true_or_false(norm):
    with pytest.raises(TypeError, match=r"norm: expected True or False, got "):
        LambdaRank(norm=norm)
    assert LambdaRank(norm=np.bool_(False)).norm is False


@pytest.mark.parametrize("y,f,match", [
    ([0, -1, 2], [0, 0, 0], r"y: grades must be in \[0, 1023\] .* got -1.0 at row 1"),
    ([0, 1, 2000], [0, 0, 0], r"y: grades must be in \[0, 1023\] .* got 2000.0 at row 2"),
    ([0, 1, 2], [0, np.nan, 0], r"scores: must be finite, got nan at row 1"),
    ([0, 1], [0, 0, 0], r"y: expected one value per row \(3\)"),
])
def test_bad_input(y, f, match):
    with pytest.raises(ValueError, match=match):
        LambdaRank().gradient_hessian(np.array(y, dtype=float), np.array(f, dtype=float), check_qid([1, 1, 1], 3))


@pytest.mark.parametrize("level", ["2147483648", "9223372036854775808", "1e308"])
def test_a_truncation_beyond_any_place_is_refused_by_name(level):
    # 1e308 reached NumPy as an OverflowError (Python int too large to convert to C long)
    import rankcore

    y, qid, f = _data(0)
    X = np.column_stack([f, np.arange(f.size) % 7])
    with pytest.raises(SpecError, match=r"truncation must be an integer >= 1 and <= 2147483647"):
        rankcore.boost(objective=f"lambdarank:truncation={level}", learner="trees", n_iter=2).fit(X, y, qid=qid)
    wide, whole = (rankcore.boost(objective=f"lambdarank:truncation={t}", learner="trees:min_samples_leaf=2",
                                  n_iter=3, random_state=0).fit(X, y, qid=qid).decision_function(X)
                   for t in (2**31 - 1, f.size))
    np.testing.assert_array_equal(wide, whole)             # a level beyond every query truncates nothing
