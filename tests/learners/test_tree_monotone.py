"""Monotone constraints of the ``trees`` learner (``monotone=1/0/-1``: LightGBM's "basic" method).

The property: with sign +1 on column j, raising x_j (the other columns fixed) never lowers the score; −1
never raises it.  Both growth routes (the native grower and the multi-pass ``TreeSearch``) grow the same
trees bit for bit with constraints, as without.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _split
from rankcore.persistence import load_model, save_model
from rankcore.learners.trees._monotone import monotone_signs, unbundled
from rankcore.registry import resolve
from rankcore.spec import SpecError
from _tree_references import route_statistics
from _tree_routes import assert_routes_agree, both_routes, search_state


def _data(seed, n=600, d=5, nan_fraction=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = np.round(X[:, 0], 1)                      # ties
    if nan_fraction:
        X[rng.random((n, d)) < nan_fraction] = np.nan
    z = np.nan_to_num(X)
    # a target that falls with column 0 where it is large and rises with column 1 in places: constraints bind
    y = (np.sin(2 * z[:, 0]) - z[:, 1] ** 2 + z[:, 2] + rng.normal(size=n) > 0).astype(int)
    return X, y


def _worst_step(model, rows, j, sign, grid):
    """The most negative change of sign·score as x_j steps up the grid (the other columns fixed), on ``rows``."""
    scores = []
    for v in grid:
        R = rows.copy()
        R[:, j] = v
        scores.append(model.decision_function(R))
    return float((sign * np.diff(np.array(scores), axis=0)).min())


GRID = np.r_[-4.0, np.linspace(-3, 3, 61), 4.0]


@pytest.mark.parametrize("growth", ["leafwise", "depthwise"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_score_is_monotone_in_each_constrained_column(growth, weighted):
    X, y = _data(1)
    w = np.random.default_rng(2).uniform(0.2, 3.0, X.shape[0]) if weighted else None
    model = rankcore.boost(learner=f"trees:monotone=1/-1/0/0/1,growth={growth},max_leaves=15,subsample=1",
                           n_iter=25, random_state=0).fit(X, y, sample_weight=w)
    rows = X[:80]                                      # NaN in the other columns too
    for j, sign in ((0, 1), (1, -1), (4, 1)):
        assert _worst_step(model, rows, j, sign, GRID) >= 0.0
    # the unconstrained fit is not monotone on this data: the constraints did bind
    free = rankcore.boost(learner=f"trees:growth={growth},max_leaves=15,subsample=1", n_iter=25,
                          random_state=0).fit(X, y, sample_weight=w)
    assert min(_worst_step(free, rows, j, s, GRID) for j, s in ((0, 1), (1, -1))) < 0.0


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["leafwise", "depthwise"]), st.sampled_from([0.0, 2.0]),
       st.sampled_from([1.0, 0.7]))
def test_monotone_on_random_data(seed, growth, l2, subsample):
    X, y = _data(seed, n=300, d=3, nan_fraction=0.2)
    spec = f"trees:monotone=-1/1/0,growth={growth},l2={l2},subsample={subsample},min_samples_leaf=5"
    model = rankcore.boost(learner=spec, n_iter=10, random_state=seed % 1000).fit(X, y)
    rows = X[:30]
    assert _worst_step(model, rows, 0, -1, GRID) >= 0.0
    assert _worst_step(model, rows, 1, 1, GRID) >= 0.0


def test_monotone_within_queries():
    X, y = _data(3, n=800)
    qid = np.repeat(np.arange(40), 20)
    model = rankcore.boost(learner="trees:monotone=1/-1/0/0/0,subsample=1", objective="lambdarank", n_iter=15,
                           random_state=0).fit(X, y, qid=qid)
    rows = X[:60]
    assert _worst_step(model, rows, 0, 1, GRID) >= 0.0
    assert _worst_step(model, rows, 1, -1, GRID) >= 0.0


ROUTE_GRID = [
    "trees:monotone=1/-1/0/1/0,subsample=1",
    "trees:monotone=1/-1/0/1/0",
    "trees:monotone=-1/0/0/0/1,max_leaves=63,min_samples_leaf=1,min_child_weight=0",
    "trees:monotone=1/1/1/1/1,l2=2,colsample=0.6",
    "trees:monotone=1/-1/0/1/0,growth=depthwise,max_leaves=12",
    "trees:monotone=0/-1/1/0/0,growth=depthwise,max_depth=3,subsample=0.6",
    "trees:monotone=1/-1/0/1/0,random_strength=1",
]


@pytest.mark.parametrize("spec", ROUTE_GRID)
@pytest.mark.parametrize("curvature", ["ones", "weights", "hessian"])
def test_native_growth_equals_the_multi_pass_protocol_with_constraints(spec, curvature):
    X, _ = _data(3, n=500)
    pairs = assert_routes_agree(spec, X, *route_statistics(X.shape[0], 4, curvature))
    assert any(a is not None for a, _ in pairs)


@pytest.mark.parametrize("spec", [s for s in ROUTE_GRID if "depthwise" not in s and "random_strength" not in s])
def test_batched_search_equals_the_native_grower_with_constraints(spec):
    X, _ = _data(4, n=500)
    assert_routes_agree(spec, X, *route_statistics(X.shape[0], 3, "hessian"), batched=True)


def test_all_zero_signs_grow_the_unconstrained_trees():
    X, _ = _data(5, n=400)
    gradients, curvatures = route_statistics(X.shape[0], 3, "hessian")
    zero = both_routes("trees:monotone=0/0/0/0/0", X, gradients, curvatures)
    free = both_routes("trees", X, gradients, curvatures)
    assert [search_state(a) for a, _ in zero] == [search_state(a) for a, _ in free]


def _reference_gain(GL, HL, GR, HR, lo, hi, l2, sign):
    """The constrained split's gain from its children's and parent's clamped values (None: not allowed)."""
    def value(G, H):
        return min(max(-G / (H + l2), lo), hi)

    def term(G, H):
        w = value(G, H)
        return -(2 * G * w + (H + l2) * w * w)
    if sign * (value(GR, HR) - value(GL, HL)) < 0:
        return None
    return term(GL, HL) + term(GR, HR) - term(GL + GR, HL + HR)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([-1, 0, 1]), st.floats(-2, 0), st.floats(0, 2),
       st.sampled_from([0.0, 1.0]))
def test_the_split_scan_weighs_clamped_values_as_the_reference(seed, sign, lo, hi, l2):
    """One feature's best constrained split (the kernel) against every candidate weighed in NumPy."""
    from rankcore.learners.trees._block import slot_layout

    rng = np.random.default_rng(seed)
    n_edges = 6
    slots = slot_layout(np.array([n_edges]))
    hist = np.zeros((n_edges + 2, 3))
    hist[:, 0] = np.round(rng.normal(size=n_edges + 2), 1)
    hist[:, 1] = rng.uniform(0.5, 2.0, n_edges + 2)
    hist[:, 2] = rng.integers(1, 4, n_edges + 2)
    hist[rng.random(n_edges + 2) < 0.2] = 0.0            # empty bins, sometimes no NaN
    out = np.empty(10)
    found = _split.best_split(hist, slots, np.ones(1, dtype=np.uint8), 1.0, 0.0, l2, 1e-9, out,
                              monotone=np.array([sign], dtype=np.int8), lo=lo, hi=hi)
    tg, th, _ = hist.sum(axis=0)
    gains = []
    nan = hist[-1]
    cum = np.cumsum(hist[:-1], axis=0)
    for b in range(n_edges + 1):
        for left in ((cum[b] + nan) if b < n_edges else None, cum[b]):
            if left is None or left[2] < 1 or hist[:, 2].sum() - left[2] < 1 or th - left[1] + l2 <= 0:
                continue
            gain = _reference_gain(left[0], left[1], tg - left[0], th - left[1], lo, hi, l2, sign)
            if gain is not None:
                gains.append(gain)
    best = max(gains, default=-math.inf)
    w = min(max(-tg / (th + l2), lo), hi)
    scale = max(best, -(2 * tg * w + (th + l2) * w * w), 0.0)      # the tie tolerance's scale
    if found:                        # the first candidate within the tolerance of the best
        assert out[0] == pytest.approx(best, rel=1e-9, abs=1e-9 * scale + 1e-12)
        wl = min(max(-out[4] / (out[5] + l2), lo), hi)
        wr = min(max(-out[7] / (out[8] + l2), lo), hi)
        assert sign * (wr - wl) >= 0
    else:
        assert best <= 1e-9 * scale + 1e-12


def test_child_bounds_split_at_the_midpoint():
    # sign +1: left values up to the midpoint, right ones from it; 0: the node's bounds passed on
    lo, hi = -1.0, 2.0
    wl, wr = -0.5, 1.5                                   # G = -w·H with H = 1, l2 = 0
    assert _split.child_bounds(lo, hi, 1, 0.5, 1.0, -1.5, 1.0, 0.0) == (-1.0, 0.5, 0.5, 2.0)
    assert _split.child_bounds(lo, hi, -1, 0.5, 1.0, -1.5, 1.0, 0.0) == (0.5, 2.0, -1.0, 0.5)
    assert _split.child_bounds(lo, hi, 0, 0.5, 1.0, -1.5, 1.0, 0.0) == (lo, hi, lo, hi)
    assert (wl + wr) / 2 == 0.5
    # clamped values: the right child's 3 is clamped to 2, the midpoint is (−0.5 + 2)/2
    assert _split.child_bounds(lo, hi, 1, 0.5, 1.0, -3.0, 1.0, 0.0) == (-1.0, 0.75, 0.75, 2.0)


def test_the_parameter_parses_and_round_trips():
    assert monotone_signs("1/0/-1") == "1/0/-1"
    assert monotone_signs("") == ""
    assert monotone_signs([1, 0, -1]) == "1/0/-1"
    learner = resolve("learner", "trees:monotone=1/0/-1")
    assert learner.monotone == "1/0/-1"
    assert resolve("learner", learner.spec).monotone == "1/0/-1"
    for bad in ("1/2", "1/x", "0.5", "1//0"):
        with pytest.raises(SpecError, match="monotone"):
            resolve("learner", f"trees:monotone={bad}")


def test_save_and_load_keep_the_constraints(tmp_path):
    X, y = _data(6, n=400)
    model = rankcore.boost(learner="trees:monotone=1/-1/0/0/0", n_iter=8, random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert "monotone=1/-1/0/0/0" in loaded.get_params()["learner"]
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_refusals():
    X, y = _data(7, n=300)
    with pytest.raises(ValueError, match=r"monotone.*expected 5 signs"):
        rankcore.boost(learner="trees:monotone=1/0/-1", n_iter=2).fit(X, y)
    assert resolve("learner", "trees:monotone=1/0,growth=oblivious").monotone == "1/0"     # taken (projected leaves)
    with pytest.raises(ValueError, match=r"monotone.*leaf_newton_steps"):
        resolve("learner", "trees:monotone=1/0,leaf_newton_steps=2")
    Xc = X.copy()
    Xc[:, 2] = np.random.default_rng(0).integers(0, 4, X.shape[0])
    with pytest.raises(ValueError, match=r"monotone.*categorical"):
        rankcore.boost(learner="trees:monotone=0/0/1/0/0,categorical=2", n_iter=2).fit(Xc, y)
    # a categorical column left free is fine
    rankcore.boost(learner="trees:monotone=1/0/0/0/0,categorical=2", n_iter=2).fit(Xc, y)


def test_constrained_columns_are_not_bundled():
    rng = np.random.default_rng(0)
    n = 2000
    X = np.zeros((n, 6))
    for j in range(6):                                  # one-hot: mutually exclusive sparse columns
        X[np.arange(n) % 6 == j, j] = 1.0
    learner = resolve("learner", "trees:monotone=0/1/0/-1/0/0")
    layout = learner.prepare(X)
    bundled = {j for b in layout.bundles for j in b}
    assert bundled and not bundled & {1, 3}
    assert resolve("learner", "trees").prepare(X).bundles      # the same columns bundle without constraints
    y = (X[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    model = rankcore.boost(learner="trees:monotone=0/1/0/-1/0/0", n_iter=5, random_state=0).fit(X, y)
    base = np.zeros((1, 6))
    up = base.copy()
    up[0, 1] = 1.0
    assert model.decision_function(up)[0] >= model.decision_function(base)[0]
    assert unbundled([[0, 1], [2, 3]], 1, np.array([0, 1, 0, 0], dtype=np.int8)) == ([[0], [2, 3]], 1)
    assert unbundled([[1], [2, 3]], 1, np.array([0, 1, 0, 0], dtype=np.int8)) == ([[2, 3]], 0)


def test_a_monotone_tree_without_descent_is_left_out_and_the_fit_goes_on(monkeypatch):
    """A constrained tree whose line search finds no descent (α <= 0: grown on a row sample) is left out, not added
    reversed; the next iteration grows another tree, and the kept trees are numbered without gaps."""
    from rankcore.objectives import LineSearchResult
    from rankcore.push import _driver

    real = _driver._minimize_line
    calls = []

    def backwards_twice(phi, log_value, max_step):
        found = real(phi, log_value, max_step)
        calls.append(found.alpha)
        if len(calls) in (2, 3):
            return LineSearchResult(-abs(found.alpha), found.value, found.n_evaluations, found.reason)
        return found

    X, y = _data(8, n=300)
    monkeypatch.setattr(_driver, "_minimize_line", backwards_twice)
    records = []
    model = rankcore.boost(learner="trees:monotone=1/0/0/0/0", n_iter=8, random_state=0,
                           early_stopping=False).fit(X, y, callbacks=lambda info: records.append(info.iteration))
    assert len(model.rankers_) == 6 and (model.alphas_ > 0).all()
    assert records == list(range(1, 7))
    assert _worst_step(model, X[:40], 0, 1, GRID) >= 0.0


def test_row_sampled_monotone_fits_run_on_past_a_tree_that_does_not_descend():
    # with subsample < 1 a tree can fail to descend on every row; the fit leaves it out and goes on
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1500, 4))
    X[:, 0] = np.round(X[:, 0], 1)
    y = (np.sin(3 * X[:, 0]) - X[:, 1] ** 2 + X[:, 2] + rng.normal(size=1500) > 0).astype(int)
    model = rankcore.boost(learner="trees:monotone=1/-1/1/1", n_iter=300, random_state=0,
                           early_stopping=False).fit(X, y)
    assert len(model.rankers_) > 100 and (model.alphas_ > 0).all()     # 77 trees when the first stopped it


def test_a_monotone_tree_is_never_subtracted(monkeypatch):
    """A line search that steps against every constrained tree (α < 0) ends the fit after a run of them: no tree is
    added reversed."""
    from rankcore.objectives import LineSearchResult
    from rankcore.push import _driver

    real = _driver._minimize_line

    def backwards(phi, log_value, max_step):
        found = real(phi, log_value, max_step)
        return LineSearchResult(-abs(found.alpha), found.value, found.n_evaluations, found.reason)

    X, y = _data(8, n=300)
    monkeypatch.setattr(_driver, "_minimize_line", backwards)
    constrained = rankcore.boost(learner="trees:monotone=1/0/0/0/0", n_iter=5, random_state=0)
    with pytest.warns(UserWarning):          # no tree: the constant model's warning
        constrained.fit(X, y)
    assert len(constrained.rankers_) == 0
    # unconstrained: added (these steps climb J by construction: the "diverged" stop off)
    monkeypatch.setattr(_driver, "DIVERGENCE_RTOL", float("inf"))
    free = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X, y)
    assert len(free.rankers_) == 5 and (free.alphas_ < 0).all()


def test_an_auto_ranker_of_monotone_trees_is_monotone():
    # the trees candidate passes its signs to the learner; a fold bag averages monotone models with positive scales
    X, y = _data(4, n=400, nan_fraction=0.0)
    auto = rankcore.AutoRanker(candidates=["trees:monotone=1/-1/0/0/0,n_iter=20"], random_state=0).fit(X, y)
    assert auto.leaderboard_["trees:n_iter=20,monotone=1/-1/0/0/0"].status == "chosen"
    assert _worst_step(auto, X[:30], 0, 1, GRID) >= -1e-12
    assert _worst_step(auto, X[:30], 1, -1, GRID) >= -1e-12


def test_a_constrained_columns_contribution_is_monotone_in_its_value():
    X, y = _data(6, n=500, nan_fraction=0.0)
    model = rankcore.boost(learner="trees:monotone=1/-1/0/0/0,max_leaves=15", n_iter=30, random_state=0).fit(X, y)
    rows = X[:25]
    for j, sign in ((0, 1), (1, -1)):
        phis = []
        for v in GRID:
            R = rows.copy()
            R[:, j] = v
            phis.append(model.feature_contributions(R)[:, j])
        assert (sign * np.diff(np.array(phis), axis=0)).min() >= -1e-12
