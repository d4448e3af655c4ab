"""A shard walks each tree over its rows once: the line summary's h serves the update that follows.

The lead's line summary and the client's update carry separate copies of the
tree (unpickled from different messages); the shard recognises the copy by
content (``same_ranker``) and reuses the h it kept, instead of evaluating the
tree over every row a second time.  No cluster: the shard is built in
process, as the actor would be on a worker.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("distributed")

import rankcore  # noqa: E402
from rankcore.dask._shard import Shard, encode_chunk, same_ranker  # noqa: E402
from rankcore.learners.trees._layout import TreeLayout  # noqa: E402
from rankcore.registry import resolve  # noqa: E402

SPEC = "trees:max_leaves=4"


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[:, 2] = np.round(X[:, 2])                      # ties
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    model = rankcore.PushBoost(learner=SPEC, n_iter=2, random_state=0).fit(X, y)
    return X, y, model


@pytest.fixture
def make_shard():
    """Build shards in process; each is ended afterwards (a shard holds the allocator settings until then)."""
    made = []

    def make(X, y, objective):
        layout = resolve("learner", SPEC).prepare(X, random_state=0)
        half = X.shape[0] // 2
        blocks = [encode_chunk(i, X[s:s + half], y[s:s + half], None, layout, np.array([0, 1]), "bipartite",
                               [0, half]) for i, s in enumerate((0, half))]
        made.append(Shard(blocks, layout, objective, "bipartite"))
        return made[-1]

    yield make
    for shard in made:
        shard.end()


def _counting_evaluate(monkeypatch) -> list:
    calls = []
    evaluate = TreeLayout.evaluate

    def counted(self, *args, **kwargs):
        calls.append(1)
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(TreeLayout, "evaluate", counted)
    return calls


def test_same_ranker_recognises_copies_and_only_copies(fitted):
    _, _, model = fitted
    first, second = model.rankers_[0], model.rankers_[1]
    copy = pickle.loads(pickle.dumps(first))
    assert copy is not first and same_ranker(first, copy) and same_ranker(copy, first)
    assert same_ranker(first, first)
    assert not same_ranker(first, second)
    changed = pickle.loads(pickle.dumps(first))
    value = changed.value.copy()
    value[np.flatnonzero(changed.left < 0)[0]] += 1e-12          # one leaf, one ulp-sized change
    changed.value = value
    assert not same_ranker(first, changed)
    extra = pickle.loads(pickle.dumps(first))
    extra.search_id = -1 if getattr(first, "search_id", None) != -1 else -2
    assert not same_ranker(first, extra)
    assert not same_ranker(first, object())


def test_a_shard_evaluates_a_tree_once_for_its_line_and_its_update(fitted, monkeypatch, make_shard):
    X, y, model = fitted
    shard = make_shard(X, y, model.objective_spec_)
    calls = _counting_evaluate(monkeypatch)
    tree = model.rankers_[0]
    kept = [h.copy() for h in shard._directions(tree)]            # as the line summary asks
    alpha = 0.37
    shard._apply((pickle.loads(pickle.dumps(tree)), alpha))       # the update's own copy
    assert len(calls) == 1
    for block, h in zip(shard.blocks, kept):
        np.testing.assert_array_equal(block.scores, alpha * h)
    # another tree is evaluated afresh
    shard._directions(model.rankers_[1])
    shard._apply((pickle.loads(pickle.dumps(model.rankers_[0])), alpha))
    assert len(calls) == 3
