"""The ``"diverged"`` stop on Dask's distributed path: the same tree, reason, scores and effects as in memory.

A step that leaves J above its start is taken back on the client and the shards (the position effects' step with
it), and the fit stops with ``stop_reason_ = "diverged"`` and the in-memory warning.  Before, a position-effects
fit at a huge learning rate ran on to "overflow" -- on Dask one tree before memory (learning rates 30 to 1e8: the
roundings of the shards' sums, amplified by the climbing steps, reached the overflow a tree apart).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")

from sklearn.exceptions import ConvergenceWarning  # noqa: E402

import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost, DaskRankBoost  # noqa: E402
from rankcore.dask._backend import DaskBackend  # noqa: E402
from rankcore.push import _driver  # noqa: E402

from _dask_cluster import dask_client  # noqa: E402,F401
from _dask_position_rows import chunked, dask_and_memory_fits, position_rows  # noqa: E402


def _both(params, X, y, **rows):
    """(Dask model, in-memory model), each fit's ConvergenceWarnings' messages."""
    return dask_and_memory_fits(params, X, y, only=ConvergenceWarning, **rows)


CASES = {
    "single-1e3": (dict(learner="trees:learning_rate=1e3"), "single", 0),
    "single-2.05": (dict(learner="trees:learning_rate=2.05"), "single", None),
    "query-1e3": (dict(learner="trees:learning_rate=1e3"), "query", 0),
    "position-1e3": (dict(learner="trees:learning_rate=1e3"), "position", 0),
    "position-1e8-searched": (dict(learner="trees:learning_rate=1e8,line_search=true"), "position", 0),
    "position-3-searched": (dict(learner="trees:learning_rate=3,line_search=true"), "position", 1),
}


@pytest.mark.parametrize("lead", [True, False], ids=["lead", "client"])
@pytest.mark.parametrize("case", list(CASES))
def test_dask_stops_diverged_at_the_tree_memory_stops_at(dask_client, monkeypatch, case, lead):
    monkeypatch.setattr(DaskBackend, "lead_searches", lead)
    params, kind, trees = CASES[case]
    params = dict(params, n_iter=30, random_state=0, n_jobs=1)
    X, grades, qid, position, clicks = position_rows()
    if kind == "single":
        fits = _both(params, X, (grades >= 2).astype(int))
    elif kind == "query":
        fits = _both(params, X, grades, qid=qid)
    else:
        fits = _both(params, X, clicks, qid=qid, position=position)
    (model, messages), (local, local_messages) = fits
    assert model.fit_info_["path"] == "separable"
    assert model.stop_reason_ == local.stop_reason_ == "diverged"
    assert model.n_iter_ == local.n_iter_ and (trees is None or local.n_iter_ == trees)
    assert len(messages) == len(local_messages) == 1 and "stop_reason_ = 'diverged'" in messages[0]
    np.testing.assert_allclose(model.objective_values_, local.objective_values_, rtol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), rtol=1e-9, atol=1e-12)
    if kind == "position":
        np.testing.assert_allclose(model.position_effects_, local.position_effects_, rtol=1e-9, atol=1e-12)
    if "searched" not in case:       # (with position effects, a line search records J at the effects' next step)
        assert np.all(model.objective_values_[1:] <= model.objective_values_[0])


@pytest.mark.parametrize("learner", ["trees:learning_rate=3,line_search=true", "trees:learning_rate=1e3"])
def test_the_step_not_taken_is_taken_back_on_the_shards_as_in_memory(dask_client, monkeypatch, learner):
    # the shards' scores after the stop are the kept model's (to rounding: f + αh − αh), and their effects those
    # before the step (the ones the refused tree was grown with), on the client and in memory alike
    real, after = _driver._take_back, {}

    def spy(backend, ranker, alpha):
        real(backend, ranker, alpha)
        on_dask = isinstance(backend, DaskBackend)
        after["scores"] = (np.concatenate([s for _, s in backend.training_scores()]) if on_dask
                           else backend.scores.copy())
        after["effects"] = (backend.effects.effects if on_dask else backend.problem.effects).copy()

    monkeypatch.setattr(_driver, "_take_back", spy)
    X, _, qid, position, clicks = position_rows()
    params = dict(learner=learner, n_iter=30, random_state=0, n_jobs=1)
    seen = []
    for on_dask in (True, False):
        with pytest.warns(ConvergenceWarning):
            if on_dask:
                model = DaskPushBoost(placement="distributed", **params).fit(chunked(X), chunked(clicks),
                                                                             qid=chunked(qid),
                                                                             position=chunked(position))
            else:
                model = rankcore.PushBoost(**params).fit(X, clicks, qid=qid, position=position)
        assert model.stop_reason_ == "diverged"
        np.testing.assert_allclose(after["scores"], model.decision_function(X), rtol=0, atol=1e-12)
        seen.append(after["effects"])
    np.testing.assert_allclose(seen[0], seen[1], rtol=1e-12, atol=1e-12)


def test_the_dask_click_model_says_a_rounds_warning_once_as_in_memory(dask_client):
    # each EM round's fit diverges alike: one ConvergenceWarning for the rounds, not one a round
    X, _, qid, position, clicks = position_rows()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DaskPushBoost(placement="distributed", learner="trees:learning_rate=1e3", position_bias="em:rounds=3",
                              n_iter=10, random_state=0).fit(chunked(X), chunked(clicks), qid=chunked(qid),
                                                             position=chunked(position))
    said = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert model.stop_reason_ == "diverged" and model.position_em_rounds_ == 3
    assert len(said) == 1 and "'diverged'" in said[0] and "3 EM rounds" in said[0]


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("cls,params", [
    (DaskPushBoost, dict(learner="stumps")),                                 # fast
    (DaskPushBoost, dict(learner="thresholds")),                             # fast
    (DaskPushBoost, dict(learner="trees")),                                  # separable, trees
    (DaskPushBoost, dict(objective="push:logistic", learner="stumps")),      # pairwise
    (DaskPushBoost, dict(objective="push:exp,pow:4", learner="features")),
    (DaskRankBoost, dict()),
])
def test_a_step_refused_at_any_iteration_leaves_every_backend_kind_at_the_kept_model(dask_client, monkeypatch, cls,
                                                                                     params, k):
    # the rule forced at the k-th comparison (no learner here climbs at a sane rate): the fast (threshold
    # histograms), separable (trees) and pairwise (push:logistic) paths each hold the kept model's scores after the
    # take-back -- a step still pending dropped, one applied subtracted -- and match a fit of k - 1 iterations
    real, calls, after = _driver._above_start, [0], {}

    def above(value, start, log_value):
        calls[0] += 1
        return calls[0] >= k or real(value, start, log_value)

    real_take = _driver._take_back

    def spy(backend, ranker, alpha):
        real_take(backend, ranker, alpha)
        after["scores"] = np.concatenate([s for _, s in backend.training_scores()])

    monkeypatch.setattr(_driver, "_above_start", above)
    monkeypatch.setattr(_driver, "_take_back", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 1).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(placement="distributed", n_iter=10, random_state=0, **params).fit(chunked(X), chunked(y))
    assert model.stop_reason_ == "diverged" and model.n_iter_ == k - 1
    np.testing.assert_allclose(after["scores"], model.decision_function(X), rtol=0, atol=1e-12)
    monkeypatch.undo()
    if cls is DaskPushBoost and k > 1:             # (RankBoost's in-memory twin is the same fit: tested elsewhere)
        memory = rankcore.PushBoost(n_iter=k - 1, random_state=0, **params).fit(X, y)
        np.testing.assert_allclose(model.decision_function(X), memory.decision_function(X), rtol=1e-9, atol=1e-9)
