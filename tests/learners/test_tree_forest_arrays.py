"""A forest's joined node arrays are built once per list of trees, kept while its trees live, and never stale."""
import gc
import weakref

import numpy as np
import pytest

import rankcore
from rankcore.learners.trees import _forest_arrays
from rankcore.learners.trees._oblivious_ranker import level_arrays
from rankcore.learners.trees._ranker import _joined_walk_arrays, predict_forest, walk_arrays


def _fitted(growth="depthwise", n_iter=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 5))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=400) > 0.8).astype(int)
    learner = "trees" if growth == "depthwise" else f"trees:growth={growth}"
    return rankcore.boost(learner=learner, n_iter=n_iter, random_state=seed).fit(X, y), X


def _reference_scores(rankers, alphas, X):
    """Σ_t α_t h_t(x) tree by tree: no joined arrays at all."""
    return sum(a * tree.predict(X) for tree, a in zip(rankers, alphas))


def test_the_second_call_reuses_the_first_calls_arrays_read_only():
    model, _ = _fitted()
    first = walk_arrays(model.rankers_)
    again = walk_arrays(list(model.rankers_))          # another list object holding the same trees
    assert again is first          # before, every prediction concatenated every tree's nodes again
    nodes, roots, categorical = first
    assert not any(a.flags.writeable for a in [*nodes.values(), roots, *categorical])
    fresh = _joined_walk_arrays(model.rankers_)
    for field, array in nodes.items():
        np.testing.assert_array_equal(array, fresh[0][field])
    np.testing.assert_array_equal(roots, fresh[1])


@pytest.mark.parametrize("growth", ["depthwise", "oblivious"])
def test_prefixes_and_continuations_get_their_own_arrays(growth):
    model, X = _fitted(growth)
    trees, alphas = list(model.rankers_), np.asarray(model.alphas_)
    whole = model.decision_function(X)
    for t in (2, 5, len(trees) - 1, len(trees)):       # every prefix: a model cut at its best iteration
        got = model._learner.predict_sum(trees[:t], alphas[:t], X, 1)
        np.testing.assert_allclose(got, _reference_scores(trees[:t], alphas[:t], X), rtol=0, atol=1e-12)
    longer = trees + trees[:3]                          # the same first trees and more (a continuation)
    np.testing.assert_allclose(model._learner.predict_sum(longer, np.r_[alphas, alphas[:3]], X, 1),
                               _reference_scores(longer, np.r_[alphas, alphas[:3]], X), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.decision_function(X), whole)


def test_a_forest_is_dropped_with_its_trees():
    model, X = _fitted(seed=3)
    model.decision_function(X[:1])
    kept = _forest_arrays._KEPT["walk"]
    last = model.rankers_[-1]
    assert last in kept
    freed = weakref.ref(last)
    before = len(kept)
    del model, last
    gc.collect()
    # the store held the tree weakly: it is freed, and its entry with it (other tests' forests may go too)
    assert freed() is None and len(kept) <= before - 1


def test_one_tree_is_not_kept():
    model, X = _fitted(seed=4)
    tree = model.rankers_[0]
    predict_forest([tree], np.ones(1), X[:3])
    walk_arrays([tree])
    level_kept = _forest_arrays._KEPT.get("walk", {})
    assert tree not in level_kept


def test_the_store_is_bounded(monkeypatch):
    models = [_fitted(seed=s)[0] for s in (5, 6, 7)]
    nodes = [sum(r.n_nodes for r in m.rankers_) for m in models]
    monkeypatch.setattr(_forest_arrays, "KEPT_NODES", max(nodes) + 1)
    _forest_arrays._KEPT.clear()
    for m in models:
        walk_arrays(m.rankers_)
        total = sum(e[3] for kept in _forest_arrays._KEPT.values() for e in kept.values())
        assert total <= max(nodes) + 1
    assert models[-1].rankers_[-1] in _forest_arrays._KEPT["walk"]


def test_a_forest_beyond_the_cap_is_built_every_time(monkeypatch):
    model, _ = _fitted(seed=8)
    monkeypatch.setattr(_forest_arrays, "CACHED_NODES", 3)
    _forest_arrays._KEPT.clear()
    assert walk_arrays(model.rankers_) is not walk_arrays(model.rankers_)
    assert model.rankers_[-1] not in _forest_arrays._KEPT.get("walk", {})


def test_oblivious_levels_are_reused():
    model, _ = _fitted("oblivious", seed=9)
    assert level_arrays(model.rankers_) is level_arrays(list(model.rankers_))


def test_a_list_repeating_its_last_tree_does_not_keep_it_alive():
    # the entry holds the trees before the last strongly: were the last among them, it would hold its own weak key
    # and the model's trees would stay in the store after the model is gone
    import weakref

    model, X = _fitted(seed=10)
    trees, alphas = list(model.rankers_), np.asarray(model.alphas_)
    repeated = trees + trees[:3]
    got = model._learner.predict_sum(repeated, np.r_[alphas, alphas[:3]], X, 1)
    np.testing.assert_allclose(got, _reference_scores(repeated, np.r_[alphas, alphas[:3]], X), rtol=0, atol=1e-12)
    last = weakref.ref(repeated[-1])
    del model, trees, repeated
    gc.collect()
    assert last() is None


def test_a_continued_list_drops_the_kept_lists_that_begin_it():
    model, X = _fitted(seed=10, n_iter=12)
    trees, alphas = list(model.rankers_), np.asarray(model.alphas_)
    _forest_arrays._KEPT.clear()
    for t in range(3, len(trees) + 1, 3):        # a chain of continuations: each link's trees begin the next's
        model._learner.predict_sum(trees[:t], alphas[:t], X[:2], 1)
    kept = _forest_arrays._KEPT["walk"]
    # before, every link's joined arrays stayed while the last model lived: 3 + 6 + 9 + 12 trees' nodes
    assert list(kept.keys()) == [trees[-1]]
    np.testing.assert_allclose(model._learner.predict_sum(trees[:6], alphas[:6], X, 1),
                               _reference_scores(trees[:6], alphas[:6], X), rtol=0, atol=1e-12)
