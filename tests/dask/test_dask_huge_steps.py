"""Huge learning rates and sample weights on Dask's distributed (separable) path: the named overflow stop of memory.

The shards check the gradient they compute and the step they apply; a FloatingPointError raised there reaches
the client's driver, which stops with ``stop_reason_ = "overflow"`` instead of "converged" (the per-query push's
overflowed gradient left the trees no split) or "scores: must be finite" (an objective without a value).  A tree
search that finds no split gathers the shards' gradient sums of each sign and checks the gain limit on their total
(not "no_split"), and a position-effects step that makes J overflow before the first tree is taken back on the
client and the shards (not "not finite at the initial scores"), as in memory.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost  # noqa: E402
from rankcore.dask._backend import DaskBackend  # noqa: E402
from rankcore.dask._lead import grow_tree  # noqa: E402
from rankcore.dask._shard import EffectsUpdate, Shard, encode_chunk, with_places, with_queries  # noqa: E402
from rankcore.push import _driver, check_sign_sums, sign_sums  # noqa: E402
from rankcore.registry import resolve  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _dask_position_rows import dask_and_memory_fits, position_rows  # noqa: E402
from _query_data import graded_queries  # noqa: E402

CHUNKS = (90, 41, 120, 77)


@pytest.mark.parametrize("objective, rate", [(None, "30"), (None, "1e10"), ("lambdarank", "1e308"),
                                             ("xendcg", "1e308")])
def test_dask_huge_learning_rate_stops_with_overflow_as_in_memory(dask_client, monkeypatch, objective, rate):
    # the overflow stop itself, with the "diverged" stop off (the client's driver): the per-query push's steps at
    # these rates raise J above its start first (tests/dask/test_dask_diverged.py)
    monkeypatch.setattr(_driver, "DIVERGENCE_RTOL", math.inf)
    X, y, qid = graded_queries(0, n_queries=32, rows=(6, 18))
    n = sum(CHUNKS)
    X, y, qid = X[:n], y[:n], qid[:n]
    Xd = da.from_array(X, chunks=(CHUNKS, -1))
    yd, qd = (da.from_array(a, chunks=(CHUNKS,)) for a in (y, qid))
    params = dict(learner=f"trees:learning_rate={rate}", random_state=0, n_iter=30)
    if objective is not None:
        params["objective"] = objective
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DaskPushBoost(placement="distributed", **params).fit(Xd, yd, qid=qd)
        local = rankcore.PushBoost(**params).fit(X, y, qid=qid)
    assert model.fit_info_["path"] == "separable"
    runtime = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(runtime) == 2 and all("stop_reason_ = 'overflow'" in m for m in runtime)
    assert model.stop_reason_ == local.stop_reason_ == "overflow"
    assert model.n_iter_ == local.n_iter_
    assert np.isfinite(model.decision_function(X)).all()


# ----------------------------------------------------------------------------
# Finite but huge gradient weights, and the position effects' first step
# ----------------------------------------------------------------------------
NAMED = "stop_reason_ = 'overflow'"

_both = dask_and_memory_fits          # (Dask model, its warnings), (in-memory model, its)


def _assert_same_stop(dask_fit, local_fit, X, says):
    (model, messages), (local, local_messages) = dask_fit, local_fit
    assert model.fit_info_["path"] == "separable"
    assert model.stop_reason_ == local.stop_reason_ == "overflow"
    assert model.n_iter_ == local.n_iter_
    assert len(messages) == len(local_messages) == 1 and NAMED in messages[0] and says in messages[0]
    scores = model.decision_function(X)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(scores, local.decision_function(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("lead", [True, False], ids=["lead", "client"])
@pytest.mark.parametrize("case", ["lambdarank-weights-1e300", "lambdarank-weights-1e200", "lambdarank-weights-1e153",
                                  "position-1e308"])
def test_dask_gradient_sums_past_the_gain_limit_stop_as_overflow_as_in_memory(dask_client, monkeypatch, case, lead):
    # before: "no_split" on Dask (in memory: "overflow") -- the trees' gains G²/(H + λ) of gradient weights summing
    # past sqrt(DBL_MAX) overflow, so the search counted no split; the lead's search and the client's alike
    monkeypatch.setattr(DaskBackend, "lead_searches", lead)
    X, grades, qid, position, clicks = position_rows()
    if case.startswith("lambdarank"):
        params = dict(objective="lambdarank", learner="trees", random_state=0, n_jobs=1)
        fits = _both(params, X, grades, np.full(300, float(case.rsplit("-", 1)[1])), qid=qid)
    else:
        params = dict(learner="trees:learning_rate=1e308", random_state=0, n_jobs=1)
        fits = _both(params, X, clicks, qid=qid, position=position)
    _assert_same_stop(*fits, X, "split gains")


@pytest.mark.parametrize("lead", [True, False], ids=["lead", "client"])
@pytest.mark.parametrize("rate", ["1e155", "1e300"])
def test_dask_position_effects_first_step_overflowing_j_is_taken_back_as_in_memory(dask_client, monkeypatch, rate,
                                                                                   lead):
    # before: FloatingPointError "not finite at the initial scores" on Dask -- the line search's J is taken at the
    # effects after their first step, which this learning rate overflows before any tree; the step is taken back
    monkeypatch.setattr(DaskBackend, "lead_searches", lead)
    X, _, qid, position, clicks = position_rows()
    params = dict(learner=f"trees:learning_rate={rate},line_search=true", n_iter=30, random_state=0, n_jobs=1)
    fits = _both(params, X, clicks, qid=qid, position=position)
    _assert_same_stop(*fits, X, "iteration 1")
    (model, _), (local, _) = fits
    np.testing.assert_array_equal(model.position_effects_, local.position_effects_)   # the effects before the step


@pytest.fixture
def place_shard():
    """A shard built in process (as the actor would be on a worker): two blocks of whole queries with places."""
    X, grades, qid, position, _ = position_rows()
    layout = resolve("learner", "trees:max_leaves=4").prepare(X, random_state=0)
    blocks = []
    for i, rows in enumerate((slice(0, 130), slice(130, 300))):
        block = encode_chunk(i, X[rows], grades[rows], None, layout, None, "graded", [0, 130])
        blocks.append(with_places(with_queries(block, qid[rows]), position[rows]))
    shard = Shard(blocks, layout, "lambdarank", "graded")
    yield shard, layout
    shard.end()


def test_a_shard_takes_the_effects_step_back_to_the_gradient_before_it_bit_for_bit(place_shard):
    shard, layout = place_shard
    G = []
    for stage in range(shard.problem.n_stages):
        G.append(shard.problem.merge_partials(stage, [shard.partials(None, stage, G)]))
    sums = shard.place_sums(None, G, 1, 10)
    before = [g.copy() for g in shard._grads[1]]
    delta = -0.5 * sums[0] / sums[1]
    shard.apply(EffectsUpdate(delta.copy(), delta))             # the effects' step moves the kept gradient
    assert not all(np.array_equal(g, b) for g, b in zip(shard._grads[1], before))
    shard.apply(EffectsUpdate(np.zeros(10), None))              # ... taken back: the moved gradient is dropped
    with pytest.raises(RuntimeError, match="keeps no gradient"):
        shard.gain_sums(1)
    shard.tree_pass(None, G, 1, layout.begin_search().next_request())    # the search's first pass: at b = 0 again
    for g, b in zip(shard._grads[1], before):
        np.testing.assert_array_equal(g, b)
    assert shard.gain_sums(1) == [sign_sums(b) for b in before]


# ----------------------------------------------------------------------------
# The gain limit is checked on the sums over every shard, not shard by shard
# ----------------------------------------------------------------------------
LIMIT = math.sqrt(np.finfo(np.float64).max)


class _Done:
    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


class _EmptySearch:
    def next_request(self):
        return None

    def result(self):
        return None


class _Layout:
    multi_pass = True
    remote_search = False

    def begin_search(self, **kwargs):
        return _EmptySearch()

    def no_candidate_reason(self):
        return None


class _Sums:
    """A shard (or a lead's peer) whose blocks' gradient sums of each sign are ``pairs``."""

    def __init__(self, pairs):
        self.pairs = pairs
        self.layout = _Layout()

    def gain_sums(self, token):
        return _Done(self.pairs)

    def submit(self, method, *args):
        return getattr(self, method)(*args)


class _LeadSums(_Sums):
    def gain_sums(self, token):
        return self.pairs


@pytest.mark.parametrize("share", [0.6, 0.4])
def test_an_empty_search_checks_the_gain_limit_on_the_sums_over_every_shard(share):
    # each shard's positive weights sum to share·limit, under the limit; two shards together: 1.2 or 0.8 of it
    pairs = [(share * LIMIT, 1.0)]
    backend = DaskBackend([_Sums(pairs), _Sums(pairs)], problem=None, layout=_Layout(), fast=False)
    outcome = grow_tree(_LeadSums(pairs), [_Sums(pairs)], None, [], 1, {}, batched=False, summarize=False, number=1)
    assert outcome.candidate is None and outcome.sign_sums == pairs + pairs
    if 2 * share < 1:
        assert backend.learner_search(None) is None and backend.round_trips == 1
        return
    with pytest.raises(FloatingPointError, match="split gains"):
        backend.learner_search(None)
    with pytest.raises(FloatingPointError, match="split gains"):
        check_sign_sums(outcome.sign_sums)


# ----------------------------------------------------------------------------
# One row holding most of its query's weight: the default per-query push's QueryRMSE term
# ----------------------------------------------------------------------------
def test_one_row_of_a_huge_weight_fits_as_in_memory_without_a_false_overflow(dask_client):
    # before: the QueryRMSE term's centred residual of the heavy row lost every digit (an ulp of its residual,
    # times 7e152), so J jumped to 2.5e119 at the 3rd tree in memory, a leaf of 1e135 followed and the fit stopped
    # with "overflow" after 4 trees; on Dask, whose blocks sum in another order, after 8: neither is an overflow
    X, grades, qid, _, _ = position_rows()
    weight = np.ones(300)
    weight[7] = 7e152                                # the top grade of the first query
    params = dict(learner="trees", n_iter=12, random_state=0, n_jobs=1)
    (model, messages), (local, local_messages) = _both(params, X, grades, weight, qid=qid)
    assert messages == local_messages == []
    assert model.stop_reason_ == local.stop_reason_ == "n_iter" and model.n_iter_ == local.n_iter_ == 12
    assert np.max(local.objective_values_) < 400          # J near its start (357.5), not 2.5e119
    np.testing.assert_allclose(model.objective_values_, local.objective_values_, rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-12)
