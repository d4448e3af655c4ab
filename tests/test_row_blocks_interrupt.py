"""TreeSHAP contributions (path-dependent and interventional) and ``apply`` (the leaves) run in blocks of rows.

Each block is one kernel call, between which Python delivers Ctrl-C; before, one call took every row
(TreeSHAP of a hundred trees on 5,000 rows: the interrupt waited 15 s; with 100 background rows on 3,000 rows:
36 s).  The blocks change no number: each row's values
are its own, the same bits whatever the blocks (checked here by forcing tiny blocks against one block).  No
wall-clock test.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from rankcore.learners.trees import _contributions, _leaves, _predict, _ranker, _treeshap, _treeshap_interventional
from rankcore.push import PushBoost


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, (np.nan_to_num(X[:, 0]) + rng.normal(size=n) > 0).astype(int)


def counting(monkeypatch, module, name):
    calls = []
    kernel = getattr(module, name)

    def spy(*args):
        calls.append(1)
        return kernel(*args)

    monkeypatch.setattr(module, name, spy)
    return calls


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_shap_blocks_give_the_same_bits(monkeypatch, growth):
    X, y = data()
    model = PushBoost(learner=f"trees:growth={growth},max_depth=3", n_iter=5, random_state=0).fit(X, y)
    whole = model.feature_contributions(X)
    monkeypatch.setattr(_contributions, "SHAP_BLOCK_WORK", 1)          # one row per call
    calls = counting(monkeypatch, _treeshap, "tree_shap")
    monkeypatch.setattr(_contributions, "by_cells", lambda rankers, n: False)    # the per-row path for both kinds
    np.testing.assert_array_equal(model.feature_contributions(X), whole)
    assert len(calls) == X.shape[0]            # (before: one call for every row)


def test_interventional_shap_blocks_give_the_same_bits(monkeypatch):
    X, y = data()
    model = PushBoost(learner="trees:max_depth=3", n_iter=5, random_state=0).fit(X, y)
    whole = model.feature_contributions(X, background=X[:20])
    monkeypatch.setattr(_contributions, "SHAP_BLOCK_WORK", 1)          # one row per call
    calls = counting(monkeypatch, _treeshap_interventional, "interventional_shap")
    np.testing.assert_array_equal(model.feature_contributions(X, background=X[:20]), whole)
    assert len(calls) == X.shape[0]


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
@pytest.mark.parametrize("sparse", [False, True])
def test_leaves_blocks_give_the_same_leaves(monkeypatch, growth, sparse):
    X, y = data(n=2500)
    X = np.nan_to_num(X) if sparse else X
    model = PushBoost(learner=f"trees:growth={growth},max_depth=3", n_iter=4, random_state=0).fit(X, y)
    rows = sp.csr_matrix(X) if sparse else X
    whole = model.apply(rows)
    monkeypatch.setattr(_ranker, "PREDICT_BLOCK_VISITS", 1)             # blocks of 1,024 rows: three here
    kernels = {("leafwise", False): (_predict, "leaf_nodes"), ("leafwise", True): (_predict, "leaf_nodes_csr"),
               ("oblivious", False): (_leaves._oblivious_kernels, "oblivious_leaves"),
               ("oblivious", True): (_leaves._oblivious_kernels, "oblivious_leaves_csr")}
    calls = counting(monkeypatch, *kernels[growth, sparse])
    np.testing.assert_array_equal(model.apply(rows), whole)
    assert len(calls) == 3


def test_shap_interaction_blocks_give_the_same_bits(monkeypatch):
    # (before: one tree_interactions call took every row of a batch of trees)
    from rankcore.learners.trees import _interaction_values, _shap_interactions

    X, y = data(120)
    model = PushBoost(learner="trees:max_depth=3", n_iter=5, random_state=0).fit(X, y)
    whole = model.feature_interactions(X)
    monkeypatch.setattr(_contributions, "SHAP_BLOCK_WORK", 1)          # one row per call
    calls = counting(monkeypatch, _shap_interactions, "tree_interactions")
    monkeypatch.setattr(_interaction_values, "by_cells", lambda rankers, n: False)
    np.testing.assert_array_equal(model.feature_interactions(X), whole)
    assert len(calls) == X.shape[0]


def test_interventional_shap_interaction_blocks_give_the_same_bits(monkeypatch):
    from rankcore.learners.trees import _treeshap_interventional_interactions

    X, y = data(120)
    model = PushBoost(learner="trees:max_depth=3", n_iter=5, random_state=0).fit(X, y)
    whole = model.feature_interactions(X, background=X[:15])
    monkeypatch.setattr(_contributions, "SHAP_BLOCK_WORK", 1)          # one row per call
    calls = counting(monkeypatch, _treeshap_interventional_interactions, "interventional_interactions")
    np.testing.assert_array_equal(model.feature_interactions(X, background=X[:15]), whole)
    assert len(calls) == X.shape[0]
