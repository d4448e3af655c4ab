"""``trees:max_delta_step``: a cap on each leaf's value (LightGBM's and XGBoost's ``max_delta_step``).

Checked here: the split scan's capped gains against every candidate weighed in NumPy; each grown tree's leaf
values against the clamp of −G/(H + λ) summed in NumPy over the tree's own leaves; both growth routes (native
grower, multi-pass search, batched or not) growing the same capped trees bit for bit; a cap that binds nowhere
giving the uncapped fit bit for bit (and the default fits unchanged); no leaf beyond the cap for any objective
(hypothesis); one and two threads alike; the parameter's validation, in specs, components, ``set_params`` and
model files.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _split
from rankcore.learners.trees._block import slot_layout
from rankcore.persistence import model_from_dict, model_to_dict
from rankcore.registry import SpecError, resolve
from _model_files import resign
from _tree_references import route_statistics
from _tree_routes import assert_routes_agree


def _data(seed=0, n=600, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = np.round(X[:, 0], 1)                      # ties
    X[rng.random((n, d)) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + 0.5 * rng.normal(size=n) > 0.3).astype(int)
    return X, y


def _clamped_term(G, H, cap, l2):
    """A leaf's gain term at its capped value: G²/(H+λ) inside the cap, −(2·G·w + (H+λ)·w²) at w = ±cap."""
    w = -G / (H + l2)
    if -cap <= w <= cap:
        return G * G / (H + l2)
    w = min(max(w, -cap), cap)
    return -(2 * G * w + (H + l2) * w * w)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.05, 3.0), st.sampled_from([0.0, 1.0]))
def test_the_split_scan_weighs_capped_values_as_the_reference(seed, cap, l2):
    """One feature's best capped split (the kernel) against every candidate weighed in NumPy; children both at
    one bound are no candidate."""
    rng = np.random.default_rng(seed)
    n_edges = 6
    slots = slot_layout(np.array([n_edges]))
    hist = np.zeros((n_edges + 2, 3))
    hist[:, 0] = np.round(rng.normal(scale=3.0, size=n_edges + 2), 1)
    hist[:, 1] = rng.uniform(0.2, 2.0, n_edges + 2)
    hist[:, 2] = rng.integers(1, 4, n_edges + 2)
    hist[rng.random(n_edges + 2) < 0.2] = 0.0            # empty bins, sometimes no NaN
    out = np.empty(10)
    found = _split.best_split(hist, slots, np.ones(1, dtype=np.uint8), 1.0, 0.0, l2, 1e-9, out, cap=cap)
    tg, th, tc = hist.sum(axis=0)
    parent = _clamped_term(tg, th, cap, l2)
    gains = []
    nan, cum = hist[-1], np.cumsum(hist[:-1], axis=0)
    for b in range(n_edges + 1):
        for left in ((cum[b] + nan) if b < n_edges else None, cum[b]):
            if left is None or left[2] < 1 or tc - left[2] < 1 or th - left[1] + l2 <= 0:
                continue
            wl, wr = -left[0] / (left[1] + l2), -(tg - left[0]) / (th - left[1] + l2)
            if (wl >= cap and wr >= cap) or (wl <= -cap and wr <= -cap):
                continue
            gains.append(_clamped_term(left[0], left[1], cap, l2) + _clamped_term(tg - left[0], th - left[1], cap, l2)
                         - parent)
    best = max(gains, default=-math.inf)
    scale = max(best, parent, 0.0)
    if found:
        assert out[0] == pytest.approx(best, rel=1e-9, abs=1e-9 * scale + 1e-12)
    else:
        assert best <= 1e-9 * scale + 1e-12


def test_an_unbinding_cap_scans_the_uncapped_gains_bit_for_bit():
    rng = np.random.default_rng(3)
    slots = slot_layout(np.array([20, 20, 1]))
    hist = np.abs(rng.normal(size=(slots.n_slots, 3)))
    hist[:, 0] = rng.normal(size=slots.n_slots)
    a, b = np.empty(10), np.empty(10)
    mask = np.ones(3, dtype=np.uint8)
    assert _split.best_split(hist, slots, mask, 1.0, 0.0, 0.5, 1e-9, a)
    assert _split.best_split(hist, slots, mask, 1.0, 0.0, 0.5, 1e-9, b, cap=1e300)
    assert a.tobytes() == b.tobytes()
    with pytest.raises(ValueError, match="cap"):
        _split.best_split(hist, slots, mask, 1.0, 0.0, 0.5, 1e-9, b, cap=-1.0)


def _leaf_sums(ranker, X, g, h):
    """Σg and Σh over the rows of each leaf of ``ranker`` (indexed as its ``value``), in NumPy."""
    leaf = rankcore.learners.trees.Trees.leaves([ranker], X)[:, 0]
    size = ranker.value.shape[0]
    return np.bincount(leaf, g, minlength=size), np.bincount(leaf, h, minlength=size), np.unique(leaf)


@pytest.mark.parametrize("growth", ["leafwise", "depthwise"])
@pytest.mark.parametrize("curvature", ["ones", "hessian"])
def test_each_leaf_is_the_clamp_of_its_newton_value(growth, curvature):
    """A capped tree's leaves: clamp(−G/(H + λ), ±cap) with G, H summed in NumPy over the tree's own leaves;
    the leaves at the cap are exactly ±cap, and the cap binds on some."""
    X, _ = _data(1)
    gradients, curvatures = route_statistics(X.shape[0], 3, curvature)
    cap, l2 = 0.3, 0.5
    learner = resolve("learner", f"trees:growth={growth},max_depth=4,max_leaves=12,min_samples_leaf=5,subsample=1,"
                                 f"l2={l2},max_delta_step={cap}")
    layout = learner.prepare(X, random_state=0)
    block = layout.encode(X)
    bound = 0
    for g, h in zip(gradients, curvatures):
        g = 4 * g                                         # Newton values well beyond the cap in places
        ranker = layout.search_in_memory([block], [g], [h]).ranker
        G, H, leaves = _leaf_sums(ranker, X, g, h)
        newton = -G[leaves] / (H[leaves] + l2)
        np.testing.assert_allclose(ranker.value[leaves], np.clip(newton, -cap, cap), rtol=1e-10, atol=1e-13)
        at_cap = np.abs(newton) > cap * (1 + 1e-9)
        assert np.all(np.abs(ranker.value[leaves][at_cap]) == cap)
        assert np.all(np.abs(ranker.value) <= cap)
        bound += int(at_cap.sum())
    assert bound > 0


@pytest.mark.parametrize("curvature", ["ones", "hessian"])
def test_each_oblivious_cell_is_the_clamp_of_its_newton_value(curvature):
    """An oblivious tree's cells: clamp(−G/(H + λ), ±cap) with G, H summed in NumPy over each cell's rows (its
    levels are chosen on the capped gains: tests/learners/test_tree_oblivious_capped.py).  One row a leaf at
    least and no curvature floor: a node left unsplit has no row in one of its cells, so every cell's rows are
    its node's."""
    X, _ = _data(1)
    gradients, curvatures = route_statistics(X.shape[0], 3, curvature)
    cap, l2 = 0.3, 0.5
    layout = resolve("learner", f"trees:growth=oblivious,max_depth=4,min_samples_leaf=1,min_child_weight=0,"
                                f"subsample=1,l2={l2},max_delta_step={cap}").prepare(X, random_state=0)
    block = layout.encode(X)
    bound = 0
    for g, h in zip(gradients, curvatures):
        ranker = layout.search_in_memory([block], [4 * g], [h]).ranker
        G, H, cells = _leaf_sums(ranker, X, 4 * g, h)
        newton = -G[cells] / (H[cells] + l2)
        np.testing.assert_allclose(ranker.value[cells], np.clip(newton, -cap, cap), rtol=1e-10, atol=1e-13)
        bound += int(np.sum(np.abs(newton) > cap * (1 + 1e-9)))
    assert bound > 0


@pytest.mark.parametrize("spec", [
    "trees:max_leaves=10,min_samples_leaf=5,max_delta_step=0.2",
    "trees:max_leaves=10,min_samples_leaf=5,growth=depthwise,max_delta_step=0.2",
    "trees:max_depth=3,growth=oblivious,min_samples_leaf=5,max_delta_step=0.2",
    "trees:max_depth=3,growth=oblivious,min_samples_leaf=5,max_delta_step=0.2,monotone=1/-1/0/0/1",
    "trees:max_leaves=10,min_samples_leaf=5,max_delta_step=0.2,monotone=1/-1/0/0/1",
    "trees:max_leaves=10,min_samples_leaf=5,max_delta_step=0.2,subsample=0.7,random_strength=1",
])
@pytest.mark.parametrize("batched", [False, True])
def test_both_routes_grow_the_same_capped_trees(spec, batched):
    X, _ = _data(2)
    gradients, curvatures = route_statistics(X.shape[0], 4, "hessian")
    pairs = assert_routes_agree(spec, X, [3 * g for g in gradients], curvatures, batched=batched)
    assert any(a is not None and np.abs(a.ranker.value).max() == 0.2 for a, _ in pairs)


@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
@pytest.mark.parametrize("line_search", ["true", "false"])
def test_a_cap_that_binds_nowhere_is_the_uncapped_fit_bit_for_bit(growth, line_search):
    X, y = _data(3)
    spec = f"trees:growth={growth},max_depth=4,line_search={line_search}"
    a = rankcore.boost(learner=spec, n_iter=8, random_state=0).fit(X, y)
    b = rankcore.boost(learner=spec + ",max_delta_step=1e300", n_iter=8, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    for ra, rb in zip(a.rankers_, b.rankers_):
        assert ra.value.tobytes() == rb.value.tobytes() and ra.gain.tobytes() == rb.gain.tobytes()


def _pin_data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(400, 5))
    X[:, 2] = np.round(X[:, 2], 1)
    grades = np.clip(np.round(X[:, 0] + 0.7 * rng.normal(size=400)) + 1, 0, 4)
    return X, grades, np.repeat(np.arange(40), 10)


#: sha256 (first 16 hex digits) of the training scores of fits without a cap, taken with the library before
#: the option: the default steps (one list, within queries from 0 and from far initial scores) and the monotone
#: bounds, whose scan the cap shares, stay bit for bit what they were.
_PINNED = {
    "one-list-trees": (dict(learner="trees"), "y", {}, "0e0308180b1f21d1"),
    "one-list-monotone": (dict(learner="trees:growth=depthwise,monotone=1/0/-1/0/0"), "y", {}, "fa987f9681d13041"),
    "per-query-default": (dict(learner="trees"), "grades", {}, "b5c202ff02e7f008"),
    "per-query-xendcg-far": (dict(learner="trees", objective="xendcg"), "grades", {"far": True}, "26f93b25656b2cb6"),
    "per-query-logistic-far": (dict(learner="trees", objective="push:logistic"), "grades", {"far": True},
                               "75e286bb3f30feae"),
    "per-query-leafwise-monotone": (dict(learner="trees:max_leaves=8,monotone=1/0/0/0/0"), "grades", {},
                                    "6bc5213803472177"),
}


@pytest.mark.parametrize("name", sorted(_PINNED))
def test_fits_without_a_cap_are_the_fits_before_it(name):
    import hashlib

    kwargs, target, how, digest = _PINNED[name]
    X, grades, qid = _pin_data()
    y = grades if target == "grades" else (grades > 2).astype(int)
    fit_kwargs = {} if target == "y" else {"qid": qid}
    if how.get("far"):
        fit_kwargs["init_score"] = 5 * X[:, 1]
    model = rankcore.boost(n_iter=8, random_state=0, n_jobs=1, **kwargs).fit(X, y, **fit_kwargs)
    scores = np.ascontiguousarray(model.decision_function(X))
    assert hashlib.sha256(scores.tobytes()).hexdigest()[:16] == digest
    assert resolve("learner", model.learner_spec_).max_delta_step == 0.0
    assert resolve("learner", "trees:max_delta_step=0") == resolve("learner", "trees")


OBJECTIVES = ["push:exp,identity,gain_weighted=true,query_rmse=2", "push:logistic", "xendcg", "yetirank",
              "lambdarank", "mp-squared"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(OBJECTIVES), st.sampled_from(["leafwise", "depthwise", "oblivious"]),
       st.floats(1e-3, 2.0), st.sampled_from([0.0, 5.0, 30.0]), st.integers(0, 2**16))
def test_no_leaf_exceeds_the_cap_for_any_objective(objective, growth, cap, scale, seed):
    """Every leaf of every tree within ±cap; with ``line_search=false`` every tree's step η·α·v within η·cap."""
    rng = np.random.default_rng(seed)
    n = 200
    X = rng.normal(size=(n, 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=n)) + 1, 0, 3)
    qid = np.repeat(np.arange(20), 10)
    learner = f"trees:growth={growth},max_depth=3,min_samples_leaf=3,line_search=false,max_delta_step={cap!r}"
    model = rankcore.boost(learner=learner, objective=objective, n_iter=4, random_state=seed).fit(
        X, y, qid=qid, init_score=scale * X[:, 1])
    rate = resolve("learner", model.learner_spec_).learning_rate
    for ranker, alpha in zip(model.rankers_, model.alphas_):
        assert np.all(np.abs(ranker.value) <= cap)
        assert np.all(np.abs(alpha * ranker.value) <= rate * cap * (1 + 1e-12))


@pytest.mark.parametrize("spec", ["trees:max_delta_step=0.3", "trees:growth=oblivious,max_delta_step=0.3"])
def test_two_threads_fit_the_one_thread_trees(spec, exact_threads):
    exact_threads(2)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, 12))
    y = (X[:, 0] + X[:, 3] * X[:, 4] + rng.normal(size=4000) > 0.5).astype(int)
    scores = [rankcore.boost(learner=spec, n_iter=10, random_state=0, n_jobs=t).fit(X, y).decision_function(X)
              for t in (1, 2)]
    np.testing.assert_array_equal(scores[0], scores[1])


@pytest.mark.parametrize("value, match", [
    ("-1", "max_delta_step"), ("nan", "max_delta_step"), ("inf", "max_delta_step"), ("abc", "max_delta_step"),
    ("-inf", "max_delta_step"),
])
def test_bad_caps_are_refused_by_name(value, match):
    with pytest.raises((SpecError, ValueError), match=match):
        resolve("learner", f"trees:max_delta_step={value}")


@pytest.mark.parametrize("value", [-0.5, math.nan, math.inf, "x", None, [1.0]])
def test_bad_caps_are_refused_in_components(value):
    from rankcore.learners.trees import Trees

    with pytest.raises((SpecError, ValueError, TypeError), match="max_delta_step"):
        Trees(max_delta_step=value)


def test_a_cap_with_leaf_newton_steps_is_refused_by_name():
    with pytest.raises((SpecError, ValueError), match="max_delta_step.*leaf_newton_steps"):
        resolve("learner", "trees:max_delta_step=1,leaf_newton_steps=2")


def test_the_cap_is_a_nested_parameter_and_a_peer_name_hint():
    from rankcore.learners.trees import Trees
    from rankcore.push import PushBoost

    model = PushBoost(learner=Trees(max_delta_step=0.7))
    assert model.get_params()["learner__max_delta_step"] == 0.7
    model.set_params(learner__max_delta_step=0.25)
    assert model.learner.max_delta_step == 0.25
    with pytest.raises(TypeError, match=r'learner="trees:max_delta_step='):
        rankcore.boost(max_delta_step=0.7)


def test_save_and_load_keep_the_cap_and_refuse_a_bad_one():
    X, y = _data(6, n=300)
    model = rankcore.boost(learner="trees:max_leaves=6,max_delta_step=0.05,line_search=false", n_iter=4,
                           random_state=0).fit(X, y)
    data = model_to_dict(model)
    loaded = model_from_dict(json.loads(json.dumps(data)))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert resolve("learner", loaded.learner_spec_).max_delta_step == 0.05
    for bad in ("-0.05", "nan", "inf"):
        edited = json.loads(json.dumps(data).replace("max_delta_step=0.05", f"max_delta_step={bad}"))
        with pytest.raises((SpecError, ValueError), match="max_delta_step"):
            model_from_dict(resign(edited))

