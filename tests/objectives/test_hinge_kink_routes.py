"""The hinge losses' three summing routes cut pairs at the kink alike: f_i − f_k < 1 on the raw scores.

The loss's own sorted sums (``Hinge.negative_sums`` ..., which expand in centred scores), the per-query
push's one-call kernel of small levels (``_query_pair_kernels``, ℓ of z = f_i − f_k pair by pair) and its
level sweep (``_query_sweep_kernels``) must count the same pairs, or the hinge's subgradient at a kink
depends on the route a level takes.  Scores on a 0.1 grid put many pairs within rounding of z = 1; where the
centre c (the mid-range) is not a float the scores share digits with -- small scores, or one score far away --
the centred difference (f_i − c) − (f_k − c) rounds otherwise than f_i − f_k.
"""

import numpy as np
import pytest

from rankcore.losses import Hinge, SquaredHinge
from rankcore.metrics import check_qid
from rankcore.objectives import _query_pair_kernels as pair_kernels
from rankcore.objectives import _query_pairs
from rankcore.objectives._query_push import QueryPush
from rankcore.objectives._query_sweep_kernels import negative_sweep, positive_sweep

LOSSES = {1: Hinge(), 2: SquaredHinge()}
#: (offset of the 0.1 grid, a far negative's distance from it or None)
CASES = [(0.0, None), (0.05, None), (1e6, None), (-1e6 + 0.3, None), (12345.6, None),
         (0.0, 1e6), (1e6, 5e6 + 0.3), (1e6 + 0.1, 5e6 + 0.3), (12345.6, -2e6 - 0.3)]
#: Every case, the far scores too: the expansion is centred on the median, which a far score does not move (on the
#: mid-range the squared hinge's sums over the other rows cancelled to 7e-4 relative, or came out negative).
WELL_CENTRED = CASES


def _kink_scores(rng, case, I, K):
    """Scores offset + j/10 (z = 1 up to rounding for many pairs), some a few ulps either side of f_k + 1,
    and optionally one negative far off, which moves the centre."""
    offset, far = case
    grid = offset + np.arange(-15, 16) / 10.0
    f_pos, f_neg = rng.choice(grid, I), rng.choice(grid, K)
    for j in range(min(I, K) // 3):
        f_pos[j] = f_neg[j] + 1.0
        for _ in range(j % 4):
            f_pos[j] = np.nextafter(f_pos[j], np.inf if j % 2 else -np.inf)
    if far is not None:
        f_neg[-1] = offset + far
    return f_pos, f_neg


def _three_routes(degree, f_pos, w, f_neg, c1, c2):
    """L, D, E (and the squared hinge's N, P) of one query of two grades (negatives below positives) by each route.

    E and P are the loss's per-positive sums times w_i, as the bound objective gathers them.  The hinge has no
    curvature (the push fits it with gradient steps), so its N and P are left out.
    """
    loss = LOSSES[degree]
    I, K = f_pos.shape[0], f_neg.shape[0]
    n = I + K
    out = {}
    P, N = loss.curvature_sums(f_pos, w, f_neg, c1, c2) if degree == 2 else (np.zeros(I), np.zeros(K))
    L, D = loss.negative_sums(f_pos, w, f_neg)
    out["loss sums"] = {"L": L, "D": D, "E": w * loss.positive_sums(f_pos, f_neg, c1), "N": N, "P": w * P}
    f = np.ascontiguousarray(np.r_[f_neg, f_pos])
    rw, rc1, rc2 = np.r_[np.zeros(K), w], np.r_[c1, np.zeros(I)], np.r_[c2, np.zeros(I)]
    grades = np.r_[np.zeros(K), np.ones(I)]
    starts, ends, stops = (np.array([v], dtype=np.int64) for v in (0, K, n))
    groups = np.array([0, 1], dtype=np.int64)
    L, D, E, P, N = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    pair_kernels.negative_sums(loss.pairwise_kernel(), f, rw, grades, False, starts, ends, stops, groups, L, D)
    pair_kernels.positive_sums(loss.pairwise_kernel(), f, rw, grades, False, starts, ends, stops, groups,
                               rc1, rc2, 2, E, P, N)
    out["pair kernel"] = {"L": L[:K], "D": D[:K], "E": E[K:], "N": N[:K], "P": P[K:]}
    edges, bounds = np.array([0, K, n], dtype=np.int64), np.array([0, 2], dtype=np.int64)
    L, D, E, P, N = (np.zeros(n) for _ in range(5))
    negative_sweep(degree, 2, False, f, rw, grades, edges, bounds, L, D, N)
    positive_sweep(degree, 2, False, f, rw, grades, edges, bounds, rc1, rc2, E, P)
    out["sweep"] = {"L": L[:K], "D": D[:K], "E": w * E[K:], "N": N[:K], "P": w * P[K:]}
    names = "LDE" if degree == 1 else "LDENP"
    return {route: {name: sums[name] for name in names} for route, sums in out.items()}


def _reference(degree, f_pos, w, f_neg, c1, c2):
    """The same sums pair by pair, with the pairwise definition's test f_i − f_k < 1."""
    z = f_pos[None, :] - f_neg[:, None]                       # (K, I)
    live = z < 1.0
    base = np.where(live, 1.0 - z, 0.0)
    d1 = -degree * base ** (degree - 1) * live
    d2 = 2.0 * live if degree == 2 else np.zeros_like(z)
    return {"L": (w * base ** degree).sum(axis=1), "D": (w * d1).sum(axis=1), "E": w * (c1[:, None] * d1).sum(axis=0),
            "N": (w * d2).sum(axis=1), "P": w * (w * c2[:, None] * d1 * d1 + c1[:, None] * d2).sum(axis=0)}


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("degree", [1, 2], ids=["hinge", "sqhinge"])
def test_the_routes_count_the_same_pairs_exactly(degree, case):
    """Distinct powers of two as weights: D, E (hinge), N, P (squared hinge) name the counted pairs, bit for bit."""
    rng = np.random.default_rng(degree)
    I, K = 40, 45
    f_pos, f_neg = _kink_scores(rng, case, I, K)
    w, c1 = np.exp2(rng.permutation(I)), np.exp2(rng.permutation(K))
    live = (f_pos[None, :] - f_neg[:, None]) < 1.0
    counted = {"D": -(w * live).sum(axis=1), "E": -w * (c1[:, None] * live).sum(axis=0)} if degree == 1 else \
              {"N": 2.0 * (w * live).sum(axis=1), "P": 2.0 * w * (c1[:, None] * live).sum(axis=0)}
    for route, sums in _three_routes(degree, f_pos, w, f_neg, c1, np.zeros(K)).items():
        for name, expected in counted.items():
            np.testing.assert_array_equal(sums[name], expected, err_msg=f"{route} {name}")   # exact (±0 alike)


@pytest.mark.parametrize("case", [(0.05, None), (1e6 + 0.1, 5e6 + 0.3), (12345.6, -2e6 - 0.3)], ids=str)
def test_centring_would_move_pairs_across_the_kink_on_this_data(case):
    """The data above is sensitive: a kink test on centred scores counts other pairs (so the sums must not use it)."""
    for degree in (1, 2):
        f_pos, f_neg = _kink_scores(np.random.default_rng(degree), case, 40, 45)
        c = 0.5 * (min(f_pos.min(), f_neg.min()) + max(f_pos.max(), f_neg.max()))
        raw = (f_pos[None, :] - f_neg[:, None]) < 1.0
        centred = ((f_pos - c)[None, :] - (f_neg - c)[:, None]) < 1.0
        assert (raw != centred).any()


@pytest.mark.parametrize("case", WELL_CENTRED, ids=str)
@pytest.mark.parametrize("degree", [1, 2], ids=["hinge", "sqhinge"])
def test_the_routes_give_the_same_sums(degree, case):
    """General weights: every route against the pairs to 1e-12 of the sums' scale."""
    rng = np.random.default_rng(7 + degree)
    I, K = 60, 70
    f_pos, f_neg = _kink_scores(rng, case, I, K)
    w, c1, c2 = rng.uniform(0.5, 2.0, I), rng.uniform(0.0, 1.0, K), rng.uniform(0.0, 1.0, K)
    ref = _reference(degree, f_pos, w, f_neg, c1, c2)
    for route, sums in _three_routes(degree, f_pos, w, f_neg, c1, c2).items():
        for name, value in sums.items():
            scale = max(np.abs(ref[name]).max(), 1.0)
            np.testing.assert_allclose(value, ref[name], rtol=0, atol=1e-12 * scale, err_msg=f"{route} {name}")


def test_the_single_list_sums_match_the_generic_pairwise_kernel():
    """The single-list push's sums (the loss's sorted sums) and the compiled pair-by-pair kernel: same D, E bits."""
    from rankcore.losses import _pairwise

    rng = np.random.default_rng(5)
    f_pos, f_neg = _kink_scores(rng, (12345.6, -2e6 - 0.3), 50, 48)
    w, c = np.exp2(rng.permutation(50)), np.exp2(rng.permutation(48))
    loss = Hinge()
    L, D, E = np.empty(48), np.empty(48), np.empty(50)
    _pairwise.negative_sums(loss.pairwise_kernel(), f_pos, w, f_neg, L, D, 1)
    _pairwise.positive_sums(loss.pairwise_kernel(), f_pos, f_neg, c, E, 1)
    np.testing.assert_array_equal(loss.negative_sums(f_pos, w, f_neg)[1], D)
    np.testing.assert_array_equal(loss.positive_sums(f_pos, f_neg, c), E)


# ----------------------------------------------------------------------------------------------------
# The bound per-query objective: the same value and gradient whichever route takes the levels
# ----------------------------------------------------------------------------------------------------
ROUTES = {  # SMALL_LEVEL_PAIRS, SWEEP_MIN_ROWS, SWEEP_MAX_LEVEL_ROWS
    "loss sums": (-1, 10**9, 256),
    "pair kernel": (10**12, 10**9, 256),
    "sweep": (512, 2, 10**9),
}


def _evaluate(monkeypatch, bound, f, route):
    small, sweep_from, level_rows = ROUTES[route]
    monkeypatch.setattr(_query_pairs, "SMALL_LEVEL_PAIRS", small)
    monkeypatch.setattr(_query_pairs, "SWEEP_MIN_ROWS", sweep_from)
    monkeypatch.setattr(_query_pairs, "SWEEP_MAX_LEVEL_ROWS", level_rows)
    out = [*bound.value_and_gradient(f)] + ([bound.value_gradient_hessian(f)[2]] if bound.has_hessian else [])
    routes = bound._routes
    taken = {"loss sums": len(routes.large) > 0 and routes.n_small == 0 and routes.swept.size == 0,
             "pair kernel": routes.n_small > 0 and not routes.large and routes.swept.size == 0,
             "sweep": routes.swept.size == 3 and routes.n_small == 0 and not routes.large}
    assert taken[route], route
    return out


@pytest.mark.parametrize("offset", [0.1, 1e6 + 0.1])
@pytest.mark.parametrize("gain_weighted", [False, True], ids=["flat", "gain"])
@pytest.mark.parametrize("price", ["identity", "pow:4"])
@pytest.mark.parametrize("loss", ["hinge", "sqhinge"])
def test_the_bound_objective_is_the_same_on_every_route(monkeypatch, loss, price, gain_weighted, offset):
    """Scores on a 0.1 grid (stumps and binned trees give such ties): thousands of pairs within rounding of z = 1."""
    qid = np.repeat(np.arange(3), [40, 50, 30])
    n = qid.shape[0]
    bound = None
    for seed in range(4):
        rng = np.random.default_rng(seed)
        y = np.round(rng.uniform(0, 3, n), 1)
        f = np.round(rng.normal(size=n) * 2, 1) + offset
        bound = QueryPush(loss, price, gain_weighted=gain_weighted).bind(y, check_qid(qid, n), np.ones(n))
        f = np.ascontiguousarray(f)
        out = {route: _evaluate(monkeypatch, bound, f, route) for route in ROUTES}
        ref = out["loss sums"]
        for route in ("pair kernel", "sweep"):
            assert out[route][0] == pytest.approx(ref[0], rel=1e-12, abs=1e-300), route
            for got, want in zip(out[route][1:], ref[1:]):
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max(), err_msg=route)
