"""The batched leaf-wise search (several leaves partitioned per pass) grows the unbatched search's tree.

Same splits, node numbering, thresholds, leaf values (bit for bit: the same
histograms and subtractions), in fewer passes; the blocks' row ranges,
keyed by the batched search's node keys, give ``evaluate`` the tree's values.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankcore.learners.trees._search import BatchedTreeSearch, TreeSearch
from rankcore.registry import resolve


def _blocks(layout, X, g, h, cuts):
    edges = [0, *cuts, X.shape[0]]
    return [(layout.encode(X[a:b], offset=a), g[a:b], h[a:b]) for a, b in zip(edges[:-1], edges[1:])]


def _run(search, layout, blocks):
    """The multi-pass loop over in-memory blocks; returns (candidate, passes)."""
    passes = 0
    while (request := search.next_request()) is not None:
        passes += 1
        total = None
        for enc, g, h in blocks:
            part = layout.block_pass(enc, g, h, request)
            if part is not None:
                total = part if total is None else total + part
        search.receive(total)
    return search.result(), passes


def _data(seed, n=1500, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 2] = np.round(X[:, 2], 1)                             # ties
    X[rng.random((n, d)) < 0.05] = np.nan
    g = np.where((X[:, 0] > 0.2) ^ (X[:, 1] > -0.3), -1.0, 0.4) * rng.random(n)
    h = 0.5 + rng.random(n)
    return X, g, h


@pytest.mark.parametrize("spec", [
    "trees:max_leaves=31,min_samples_leaf=5,subsample=1",
    "trees:max_leaves=31",
    "trees:max_leaves=12,max_depth=4,min_samples_leaf=3,subsample=0.7,colsample=0.7,l2=1",
    "trees:max_leaves=20,min_samples_leaf=2,random_strength=1,subsample=1",
    "trees:max_leaves=200,min_samples_leaf=40,subsample=1",                # stops on min_samples_leaf, not the budget
])
@pytest.mark.parametrize("seed", [0, 1])
def test_batched_search_grows_the_same_tree_in_fewer_passes(spec, seed):
    X, g, h = _data(seed)
    learner = resolve("learner", spec)
    plain_layout = learner.prepare(X, random_state=seed)
    batched_layout = learner.prepare(X, random_state=seed)
    plain_blocks = _blocks(plain_layout, X, g, h, [400, 401, 1100])
    batched_blocks = _blocks(batched_layout, X, g, h, [400, 401, 1100])
    for _ in range(3):                                          # successive trees draw the same seeds
        plain_search = plain_layout.begin_search()
        batched_search = batched_layout.begin_search(batched=True)
        assert type(plain_search) is TreeSearch and type(batched_search) is BatchedTreeSearch
        plain, plain_passes = _run(plain_search, plain_layout, plain_blocks)
        batched, batched_passes = _run(batched_search, batched_layout, batched_blocks)
        a, b = plain.ranker, batched.ranker
        for field in ("feature", "threshold", "nan_left", "left", "right", "value", "gain"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
        assert plain.derivative == batched.derivative
        assert batched_passes <= plain_passes
        if a.n_leaves >= 12 and "random_strength" not in spec:      # (with noise: only the live leaves ahead)
            assert batched_passes <= plain_passes / 2
        # h from the blocks' row ranges (keyed by the batched search's keys) is the tree's prediction
        for enc, _, _ in batched_blocks:
            got = batched_layout.evaluate(b, enc)
            walked = batched_layout.evaluate(_detached(b), enc)
            np.testing.assert_array_equal(got, walked)
        np.testing.assert_array_equal(np.concatenate([batched_layout.evaluate(b, e) for e, _, _ in batched_blocks]),
                                      a.predict(X))


def _detached(ranker):
    """The same tree without the search's identity: ``evaluate`` walks the codes."""
    from rankcore.learners.trees._ranker import TreeRanker

    return TreeRanker(ranker.feature, ranker.threshold, ranker.nan_left, ranker.left, ranker.right, ranker.value,
                      ranker.gain)


def test_batched_depthwise_is_the_level_search():
    learner = resolve("learner", "trees:growth=depthwise,max_leaves=8")
    layout = learner.prepare(np.zeros((4, 2)))
    assert type(layout.begin_search(batched=True)) is TreeSearch


def test_pooled_stacks_and_subtractions_serve_later_trees_unchanged_and_stay_bounded():
    """The lead's loop: each pass's (k, S, 3) stack handed back once the tree is done, then reused.

    A later tree grown on the pooled buffers equals the same tree on a fresh
    layout (a buffer reused while the search still read it would change it),
    and the pools hold at most 2·(max_leaves + 1) histograms each.
    """
    X, g, h = _data(0)
    learner = resolve("learner", "trees:max_leaves=31,min_samples_leaf=5,subsample=1")
    pooled = learner.prepare(X, random_state=0)
    block = pooled.encode(X)
    plan = {"seed": 11, "feature_mask": np.ones(X.shape[1], dtype=np.uint8)}
    cap = 2 * (31 + 1)
    for tree in range(4):
        g_tree = g * (1.0 + 0.5 * tree) + 0.1 * tree                 # another tree's gradient
        search = pooled.begin_search(batched=True, plan=plan)
        totals = []
        while (request := search.next_request()) is not None:
            total = pooled.block_pass(block, g_tree, h, request)
            search.receive(total)
            totals.append(total)
        got = search.result().ranker
        pooled.release_histograms(totals)
        fresh_layout = learner.prepare(X, random_state=0)
        fresh, _ = _run(fresh_layout.begin_search(batched=True, plan=plan), fresh_layout,
                        [(fresh_layout.encode(X), g_tree, h)])
        assert got.to_state() == fresh.ranker.to_state()
        assert len(pooled._hist_pool) <= cap and pooled._stacked_held <= cap
        assert pooled._stacked_held == sum(s.shape[0] for stacks in pooled._stack_pool.values() for s in stacks)
    assert pooled._stacked_held > 0                                   # stacks were kept and reused
    view = np.empty((2, pooled.n_slots, 3))[0]
    pooled._hist_pool.clear()
    pooled.release_histograms([view])
    assert pooled._hist_pool == []                                    # a view of a stack is never pooled


@pytest.mark.parametrize("batched", [True, False])
def test_with_row_subsampling_evaluate_walks_only_the_rows_the_search_left_out(batched, monkeypatch):
    X, g, h = _data(3, n=2000)
    layout = resolve("learner", "trees:max_leaves=15,subsample=0.6").prepare(X, random_state=3)
    blocks = _blocks(layout, X, g, h, [700, 701])
    candidate, _ = _run(layout.begin_search(batched=batched), layout, blocks)
    tree = candidate.ranker
    walked_rows = []
    walk = type(layout)._walk

    def counted(self, ranker, codes, out):
        walked_rows.append(codes.shape[0])
        return walk(self, ranker, codes, out)

    monkeypatch.setattr(type(layout), "_walk", counted)
    values = [layout.evaluate(tree, enc) for enc, _, _ in blocks]
    sampled = sum(enc.ranges[0][1] for enc, _, _ in blocks)
    assert 0 < sampled < X.shape[0]
    assert sum(walked_rows) == X.shape[0] - sampled          # the sampled rows' leaves came from the ranges
    for got, (enc, _, _) in zip(values, blocks):
        np.testing.assert_array_equal(got, layout.evaluate(_detached(tree), enc))
    np.testing.assert_array_equal(np.concatenate(values), tree.predict(X))
