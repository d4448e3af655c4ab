"""A shard walks each tree over its rows once, and the update refers to the tree it holds.

The client numbers every weak ranker and sends it with the first message
about it only (the lead's line summary, the first line evaluation); the
shard keeps its h under that number, and the update that follows carries
``(number, None, α)``, not the tree again.  A shard asked to apply a number
it does not hold refuses: it never applies another ranker's h.  The shard
tests build the shard in process, as the actor would be on a worker; the
fit tests record what the client sends on the shared cluster.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._backend import DaskBackend, PairwiseDaskBackend, _RankerNumbers  # noqa: E402
from rankcore.dask._shard import Shard, encode_chunk  # noqa: E402
from rankcore.learners.trees._layout import TreeLayout  # noqa: E402
from rankcore.registry import resolve  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401

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


def _scores(shard) -> list[np.ndarray]:
    return [b.scores.copy() for b in shard.blocks]


def test_shard_applies_the_tree_it_holds_by_number_evaluating_it_once(fitted, monkeypatch, make_shard):
    X, y, model = fitted
    shard = make_shard(X, y, model.objective_spec_)
    calls = _counting_evaluate(monkeypatch)
    tree = pickle.loads(pickle.dumps(model.rankers_[0]))          # as a message delivers it
    kept = [h.copy() for h in shard._directions(1, tree)]         # as the line summary asks
    assert shard._directions(1, None) is shard._h[1]              # a later evaluation: by number only
    alpha = 0.37
    shard._apply((1, None, alpha))                                # the update refers to the tree
    assert len(calls) == 1 and shard._h is None
    for block, h in zip(shard.blocks, kept):
        np.testing.assert_array_equal(block.scores, alpha * h)
    # an update carrying its tree (the fast path, a ranker never sent before) is evaluated afresh
    before = [b.scores_in_chunk_order() for b in shard.blocks]
    shard._apply((2, model.rankers_[1], 0.5))
    assert len(calls) == 2
    for block, f, rows in zip(shard.blocks, before, (slice(0, 300), slice(300, 600))):
        np.testing.assert_array_equal(block.scores_in_chunk_order(), f + 0.5 * model.rankers_[1].predict(X[rows]))


@pytest.mark.parametrize("held", [None, 3], ids=["holds-nothing", "holds-another"])
def test_shard_refuses_an_update_for_a_tree_it_does_not_hold(fitted, make_shard, held):
    X, y, model = fitted
    shard = make_shard(X, y, model.objective_spec_)
    if held is not None:
        shard._directions(held, model.rankers_[1])
    before = _scores(shard)
    with pytest.raises(RuntimeError, match=r"weak ranker number 4 was sent without the ranker.*refused"):
        shard.apply((4, None, 0.5))                               # a retried call, a restarted shard
    with pytest.raises(RuntimeError, match="weak ranker number 4"):
        shard.line_summary(4, None, np.array([0.0, 1.0]), [], 0)
    for block, f in zip(shard.blocks, before):
        np.testing.assert_array_equal(block.scores, f)            # nothing applied
    if held is not None:
        assert shard._h[0] == held                                # the held h is kept for its own update


def test_ranker_numbers_send_each_ranker_once_and_never_reuse_a_number():
    numbers = _RankerNumbers()
    a, b = object(), object()
    first = numbers.message(a)
    assert first == (1, a)
    numbers.hold(a, 1)
    assert numbers.message(a) == (1, None)
    assert numbers.message(b) == (2, b)                           # another object: a new number, sent whole
    assert numbers.update(a, 0.25) == (1, None, 0.25)
    assert numbers.update(a, 0.25) == (3, a, 0.25)                # applied: the shards hold nothing now
    assert numbers.next_number() == 4


def _fit_recording(X, y, *, learner, params=None, monkeypatch, lead=True):
    """The model and every update message the client sent (in order)."""
    monkeypatch.setattr(DaskBackend, "lead_searches", lead)
    sent = []
    for cls in (DaskBackend, PairwiseDaskBackend):
        original = cls._take_update

        def take(self, original=original):
            update = original(self)
            if update is not None:
                sent.append(update)
            return update

        monkeypatch.setattr(cls, "_take_update", take)
    Xd, yd = da.from_array(X, chunks=(250, -1)), da.from_array(y, chunks=(250,))
    model = DaskPushBoost(placement="distributed", learner=learner, n_iter=4, random_state=0,
                          **(params or {})).fit(Xd, yd)
    return model, sent


@pytest.mark.parametrize("learner,params,lead", [
    ("trees:max_leaves=6", {}, True),                             # the lead's line summary
    ("trees:max_leaves=6", {}, False),                            # the per-pass search, the client's summary
    ("features", {"price": "exp:0.3"}, True),                     # line search by evaluations (line_partials)
    ("stumps", {"loss": "hinge", "price": "pow:2"}, True),        # the pairwise fallback
], ids=["lead", "per-pass", "line-partials", "pairwise"])
def test_dask_update_refers_to_the_held_tree_and_the_model_is_unchanged(dask_client, monkeypatch,  # noqa: F811
                                                                       learner, params, lead):
    X, y = _data(1000, seed=3)
    model, sent = _fit_recording(X, y, learner=learner, params=params, monkeypatch=monkeypatch, lead=lead)
    local = rankcore.PushBoost(learner=learner, n_iter=4, random_state=0, **params).fit(X, y)
    np.testing.assert_allclose(model.to_local().decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-12)
    assert len(sent) >= model.n_iter_ - 1 >= 2
    assert all(ranker is None for _, ranker, _ in sent), [type(r).__name__ for _, r, _ in sent]
    assert len({number for number, _, _ in sent}) == len(sent)
    # the bytes an update costs: its number and step, against the tree it used to carry
    sizes = [len(pickle.dumps(update)) for update in sent]
    trees = [len(pickle.dumps((ranker, alpha))) for ranker, alpha in zip(model.rankers_, model.alphas_)]
    assert max(sizes) < 64 < min(trees), (sizes, trees)


def test_dask_fast_path_update_still_carries_its_stump(dask_client, monkeypatch):  # noqa: F811
    X, y = _data(1000, seed=3)
    model, sent = _fit_recording(X, y, learner="stumps", monkeypatch=monkeypatch)
    assert all(ranker is not None for _, ranker, _ in sent)       # no message sent the stump before
    local = rankcore.PushBoost(learner="stumps", n_iter=4, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.to_local().decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-12)


def _forget_held_directions(dask_worker):
    """Drop the h every shard actor of this worker holds (as a restarted shard would have none)."""
    for actor in dask_worker.state.actors.values():
        if hasattr(actor, "_h"):
            actor._h = None


@pytest.mark.parametrize("which", ["lead", "peer"])
def test_dask_shard_that_lost_the_tree_stops_the_fit_with_a_clear_error(dask_client, monkeypatch,  # noqa: F811
                                                                        which):
    X, y = _data(1000, seed=3)
    update = DaskBackend.apply_update

    def update_then_forget(self, ranker, alpha):
        update(self, ranker, alpha)
        address = self.addresses[0 if which == "lead" else 1]
        dask_client.run(_forget_held_directions, workers=[address])

    monkeypatch.setattr(DaskBackend, "apply_update", update_then_forget)
    Xd, yd = da.from_array(X, chunks=(250, -1)), da.from_array(y, chunks=(250,))
    with pytest.raises(RuntimeError, match=r"weak ranker number \d+ was sent without the ranker, but this shard "
                                           r"holds no weak ranker: refused"):
        DaskPushBoost(placement="distributed", learner="trees:max_leaves=6", n_iter=3, random_state=0).fit(Xd, yd)
