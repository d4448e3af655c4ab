"""The trees' ``min_child_weight`` floor never falls below rows of unit curvature in the objective's scale.

The floor is min_child_weight · max(H/C, unit): H/C the root's mean
curvature, unit the objective's ``curvature_unit`` (1 per row for
``lambdarank``, ``yetirank`` and ``xendcg``, at the mean sample weight; 0
for every other objective).  Initial scores far apart (a first-stage
ranker's scores as ``init_score``) saturate those objectives' curvatures
towards 0; a floor in units of H/C alone went down with them, and leaves of
tiny ΣH but ordinary ΣG got values of 1e4 to 1e13.  The native growers and
the multi-pass searches must apply the same floor (the same trees, bit for
bit), and the fits of every other objective must not move.
"""

import numpy as np
import pytest

import rankcore
from rankcore.learners._base import multi_pass_search
from rankcore.learners.trees._layout import TreeLayout
from rankcore.learners.trees._search import curvature_floor
from rankcore.metrics import check_queries
from rankcore.objectives import curvature_unit
from rankcore.registry import resolve
from _tree_routes import search_state

VALUELESS = ("xendcg", "lambdarank", "yetirank")
GROWTHS = ("trees:growth=leafwise", "trees:growth=depthwise", "trees:growth=oblivious")


def _reproduction(scale):
    """The saturating case: 40 queries of 10 rows, grades 0-3, initial scores N(0, scale²)."""
    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 5))
    qid = np.repeat(np.arange(40), 10)
    y = rng.integers(0, 4, n)
    return X, y, qid, rng.normal(size=n) * scale


def test_the_floor_rule():
    assert curvature_floor(1e-3, 2.0, 4.0) == 1e-3 * 0.5            # no unit: the mean curvature's rows
    assert curvature_floor(1e-3, 2.0, 4.0, 0.25) == 1e-3 * 0.5      # the mean above the unit
    assert curvature_floor(1e-3, 4e-12, 400.0, 1.0) == 1e-3         # saturated: rows of unit curvature
    assert curvature_floor(1e-3, 4e-12, 400.0, 0.5) == 5e-4
    assert curvature_floor(0.0, 4e-12, 400.0, 1.0) == 0.0
    h, c = 0.1, 3.0                                                   # without a unit, the old floor bit for bit
    assert curvature_floor(1e-3, h, c).hex() == (1e-3 * (h / c)).hex()


def test_the_objectives_declare_their_unit():
    for name in VALUELESS:
        objective = resolve("objective", name)
        assert curvature_unit(objective, 400) == 1.0
        assert curvature_unit(objective, 400, 400.0) == 1.0
        assert curvature_unit(objective, 400, 100.0) == 0.25         # one row at the mean weight
        assert curvature_unit(objective, 0) == 0.0
        assert curvature_unit(objective, 10, 0.0) == 0.0
    for name in ("push:exp,pow:4", "push:exp,identity,query_rmse=2", "push:logistic", "mp-squared"):
        assert curvature_unit(resolve("objective", name), 400) == 0.0


def _saturated_statistics(name, scale):
    """g and h of objective ``name`` at the reproduction's initial scores (as the first tree sees them)."""
    X, y, qid, init = _reproduction(scale)
    objective = resolve("objective", name)
    extra = {"random_state": 0} if objective.randomized else {}
    bound = objective.bind(y, None, queries=check_queries(qid, None, y.shape[0]), **extra)
    _, g, h = bound.value_gradient_hessian(init)
    return X, g, h


@pytest.mark.parametrize("spec", GROWTHS)
@pytest.mark.parametrize("name", VALUELESS)
def test_native_and_multi_pass_apply_the_unit_floor_alike(name, spec):
    X, g, h = _saturated_statistics(name, 100.0)
    assert np.mean(h) < 0.05                     # saturated: the mean curvature is far below a row's unit
    learner = resolve("learner", spec + ",min_samples_leaf=2")
    trees = {}
    for unit in (0.0, 1.0):
        native, protocol = learner.prepare(X, random_state=0), learner.prepare(X, random_state=0)
        native.curvature_unit = protocol.curvature_unit = unit
        block = native.encode(X)
        a = native.search_in_memory([block], [g], [h])
        b = multi_pass_search(protocol, [protocol.encode(X)], [g], [h])
        assert search_state(a) == search_state(b)
        leaf, _ = native.leaf_rows(a.ranker, block)
        trees[unit] = np.bincount(leaf, weights=h)[np.unique(leaf)].min()        # the lightest leaf's ΣH
    # the floor in units of H/C alone (1e-3 · mean h) lets lighter leaves through; the unit floor holds every
    # leaf to min_child_weight · 1 of curvature
    assert trees[0.0] < 1e-3 <= trees[1.0] * (1 + 1e-12)


def _multi_pass_everywhere(monkeypatch):
    monkeypatch.setattr(TreeLayout, "search_in_memory",
                        lambda self, *a, **k: multi_pass_search(self, *a, **k))


@pytest.mark.filterwarnings("ignore:boosting stopped")
@pytest.mark.parametrize("scale", [10.0, 1e3, 1e8])
@pytest.mark.parametrize("name", VALUELESS)
def test_saturating_initial_scores_give_bounded_models(monkeypatch, name, scale):
    X, y, qid, init = _reproduction(scale)
    params = dict(objective=name, learner="trees", n_iter=20, random_state=0)
    native = rankcore.boost(**params).fit(X, y, qid=qid, init_score=init)
    scores = native.decision_function(X)
    # |v| <= |G| / 1e-3 per leaf: a few thousand here (before the unit floor: 1e5 to 1e13)
    assert np.isfinite(scores).all() and np.abs(scores).max() < 1e5
    _multi_pass_everywhere(monkeypatch)
    protocol = rankcore.boost(**params).fit(X, y, qid=qid, init_score=init)
    np.testing.assert_array_equal(protocol.decision_function(X), scores)


def test_the_driver_gives_the_trees_the_objectives_unit(monkeypatch):
    X, y, qid, init = _reproduction(1.0)
    w = np.random.default_rng(1).uniform(0.5, 1.5, y.shape[0])
    seen = []
    search = TreeLayout.search_in_memory
    monkeypatch.setattr(TreeLayout, "search_in_memory",
                        lambda self, *a, **k: seen.append(self.curvature_unit) or search(self, *a, **k))
    rankcore.boost(objective="lambdarank", learner="trees", n_iter=1).fit(X, y, qid=qid, sample_weight=w)
    rankcore.boost(objective="xendcg", learner="trees", n_iter=1, random_state=0).fit(X, y, qid=qid)
    rankcore.boost(learner="trees", n_iter=1).fit(X, y, qid=qid)                    # push + QueryRMSE: none
    assert seen == [pytest.approx(w.mean(), rel=1e-15), 1.0, 0.0]


#: (Σ|score|, first score, last score) of each fit on the untouched code before the unit floor (recorded then):
#: objectives without a unit -- the per-query default, one-list fits -- fit the same models bit for bit.
BEFORE = {
    "default-queries": (750.9581575513265, -0.6512779821652366, -1.287009379527885),
    "default-queries-weighted-leafwise": (252.55211900136405, -0.43539960338313854, 0.7200639576643486),
    "one-list-trees": (301.1065792087844, -0.6800018968441119, 1.8607348656081466),
    "one-list-oblivious": (48.97834327968766, -0.1690072225334472, 0.3886267779209574),
}


def test_objectives_without_a_unit_fit_as_before():
    rng = np.random.default_rng(7)
    n = 300
    X, qid = rng.normal(size=(n, 4)), np.repeat(np.arange(30), 10)
    y = rng.integers(0, 4, n)
    yb = (X[:, 0] + rng.normal(size=n) > 0.8).astype(int)
    w, init = rng.uniform(0.5, 2, n), 10 * rng.normal(size=n)
    fits = {
        "default-queries": rankcore.boost(n_iter=6, random_state=0).fit(X, y, qid=qid, init_score=init),
        "default-queries-weighted-leafwise": rankcore.boost(learner="trees:max_leaves=8", n_iter=6, random_state=0)
        .fit(X, y, qid=qid, sample_weight=w, init_score=init),
        "one-list-trees": rankcore.boost(learner="trees:max_leaves=8", n_iter=6, random_state=0)
        .fit(X, yb, init_score=init),
        "one-list-oblivious": rankcore.boost(learner="trees:growth=oblivious,max_depth=3", n_iter=6, random_state=0)
        .fit(X, yb, sample_weight=w),
    }
    for key, model in fits.items():
        s = model.decision_function(X)
        assert (float(np.abs(s).sum()), float(s[0]), float(s[-1])) == pytest.approx(BEFORE[key], rel=1e-12), key


#: (objective, init scale, leaf_newton_steps): before the further steps kept the floor, 2e12, 1e13 and 1.6e9
FURTHER_STEPS = [("xendcg", 10.0, 2), ("xendcg", 10.0, 4), ("yetirank", 100.0, 2), ("yetirank", 100.0, 4),
                 ("lambdarank", 100.0, 4)]


def _further_steps_case(scale):
    """The further steps' reproduction: graded labels that follow the features, initial scores N(0, scale²)."""
    rng = np.random.default_rng(0)
    n = 400
    X, qid = rng.normal(size=(n, 5)), np.repeat(np.arange(40), 10)
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + rng.normal(size=n) * 0.7 + 1.5), 0, 3).astype(int)
    return X, y, qid, rng.normal(size=n) * scale


@pytest.mark.filterwarnings("ignore:boosting stopped")
@pytest.mark.parametrize("name,scale,steps", FURTHER_STEPS)
def test_further_leaf_newton_steps_keep_the_floor(name, scale, steps):
    X, y, qid, init = _further_steps_case(scale)
    fit = {}
    for k in (1, steps):
        model = rankcore.boost(objective=name, learner=f"trees:leaf_newton_steps={k}", n_iter=20, random_state=0)
        fit[k] = np.abs(model.fit(X, y, qid=qid, init_score=init).decision_function(X)).max()
    # a leaf whose curvature falls below its tree's floor takes no further step: the further steps stay within a
    # few times the single step's scores (before, their −G/H at saturated curvatures reached 1e9 to 1e13)
    assert np.isfinite(fit[steps]) and fit[steps] < 5 * fit[1] + 10


def test_a_leaf_below_the_floor_keeps_its_value():
    """One leaf saturated by its first step: it keeps that value; the other leaf takes its further steps."""
    from rankcore.push._backend import InMemoryBackend

    X, y, qid, init = _further_steps_case(10.0)
    objective = resolve("objective", "xendcg")
    bound = objective.bind(y, None, queries=check_queries(qid, None, y.shape[0]), random_state=0)
    layout = resolve("learner", "trees:max_leaves=2,subsample=1,min_samples_leaf=2").prepare(X, random_state=0)
    layout.curvature_unit = curvature_unit(objective, y.shape[0])
    backend = InMemoryBackend(bound, layout, X, y, initial_scores=init)
    state = backend.objective_state()
    tree = backend.learner_search(state).ranker
    leaf, _ = layout.leaf_rows(tree, backend.encoded[0])
    first = np.asarray(tree.values, dtype=np.float64)
    refined = np.asarray(backend.leaf_newton_steps(state, tree, 3).values, dtype=np.float64)
    _, _, h = bound.value_gradient_hessian(init + first[leaf])
    light = np.bincount(leaf, weights=h, minlength=2) < layout.min_child_weight * 1.0
    assert light.any() and not light.all()
    np.testing.assert_array_equal(refined[light], first[light])
    assert np.all(refined[~light] != first[~light])


@pytest.mark.parametrize("steps", [2, 3])
def test_further_steps_of_objectives_without_a_unit_fit_as_before(monkeypatch, steps):
    """Where no leaf falls below the floor, the further steps are the unfloored ones, bit for bit."""
    from rankcore.push._backend import InMemoryBackend

    rng = np.random.default_rng(7)
    n = 300
    X, qid = rng.normal(size=(n, 4)), np.repeat(np.arange(30), 10)
    y, w = rng.integers(0, 4, n), rng.uniform(0.5, 2, n)
    yb = (X[:, 0] + rng.normal(size=n) > 0.8).astype(int)
    learner = f"trees:leaf_newton_steps={steps},max_leaves=8"

    def fits():
        return [rankcore.boost(learner=learner, n_iter=6, random_state=0).fit(X, y, qid=qid).decision_function(X),
                rankcore.boost(learner=learner, n_iter=6, random_state=0)
                .fit(X, y, qid=qid, sample_weight=w, init_score=10 * X[:, 1]).decision_function(X),
                rankcore.boost(learner=learner, n_iter=6, random_state=0).fit(X, yb).decision_function(X),
                rankcore.boost(objective="push:logistic", learner=learner + ",growth=oblivious", n_iter=6,
                               random_state=0).fit(X, yb, sample_weight=w).decision_function(X)]

    floored = fits()
    monkeypatch.setattr(InMemoryBackend, "_tree_curvature_floor", lambda self, *a: 0.0)
    for a, b in zip(floored, fits()):
        np.testing.assert_array_equal(a, b)
