"""Tree predictions run in blocks of rows, so that Ctrl-C reaches a long prediction between blocks (a kernel
runs without the GIL); every row's score is the same, bit for bit, as the per-tree NumPy sum."""

import signal
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import rankcore
from rankcore.learners.trees import _oblivious_ranker, _predict
from rankcore.learners.trees import _ranker

N_ROWS = 5000


def fitted(growth):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.1] = 0.0
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=600) > 0.8).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner=f"trees:growth={growth},max_leaves=8", n_iter=12, random_state=0).fit(X, y)
    Xt = rng.normal(size=(N_ROWS, 4))
    Xt[rng.random(Xt.shape) < 0.3] = 0.0
    Xt[rng.random(Xt.shape) < 0.02] = np.nan
    return model, Xt


def reference(model, X):
    """Σ_t α_t h_t(x) tree by tree in NumPy, each tree's values read one tree at a time."""
    total = np.zeros(X.shape[0])
    for alpha, ranker in zip(model.alphas_, model.rankers_):
        total = total + alpha * ranker.predict(X)
    return total


KERNELS = {"leafwise": (_predict, "predict_trees", "predict_trees_csr"),
           "oblivious": (_oblivious_ranker._kernels, "predict_oblivious", "predict_oblivious_csr")}


def counting(monkeypatch, module, name, on_first=None):
    calls = []
    real = getattr(module, name)

    def kernel(*args):
        calls.append(1)
        real(*args)
        if on_first is not None and len(calls) == 1:
            on_first()

    monkeypatch.setattr(module, name, kernel)
    return calls


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
@pytest.mark.parametrize("form", ["dense", "float32", "csr"])
def test_blocks_give_the_per_tree_sum_bit_for_bit(monkeypatch, growth, form):
    model, Xt = fitted(growth)
    X = {"dense": Xt, "float32": Xt.astype(np.float32), "csr": sp.csr_matrix(np.nan_to_num(Xt))}[form]
    expected = reference(model, X.toarray() if form == "csr" else X)
    whole = model.decision_function(X)
    monkeypatch.setattr(_ranker, "PREDICT_BLOCK_VISITS", 1)          # blocks of 1024 rows
    module, dense, csr = KERNELS[growth]
    calls = counting(monkeypatch, module, csr if form == "csr" else dense)
    blocked = model.decision_function(X)
    assert len(calls) == -(-N_ROWS // 1024)
    assert np.array_equal(blocked, expected) and np.array_equal(whole, expected)


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_ctrl_c_during_a_block_stops_before_the_next(monkeypatch, growth):
    model, Xt = fitted(growth)
    monkeypatch.setattr(_ranker, "PREDICT_BLOCK_VISITS", 1)
    module, dense, _ = KERNELS[growth]
    # SIGINT arriving while the first block runs: Python raises it once the kernel returns
    calls = counting(monkeypatch, module, dense, on_first=lambda: signal.raise_signal(signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        model.decision_function(Xt)
    assert len(calls) == 1


def test_no_rows_is_one_empty_call():
    assert _ranker.row_blocks(0, 5) == [(0, 0)]
    assert _ranker.row_blocks(3000, 1 << 22) == [(0, 1024), (1024, 2048), (2048, 3000)]
