"""``KernelRanker.decision_function`` scores in blocks of rows: one kernel call each, between which Ctrl-C is
delivered.

Before, one call computed the whole cross-Gram matrix of the rows scored and the support rows (no interrupt until
it ended, and n x m values of memory).  The blocks change no number: the ``rbf`` kernel's centre (X's mean) is
fixed from all the rows first (``Kernel.for_rows_of``), so every block gets the whole call's values, bit for bit
(checked by forcing one row per call against one call).  No wall-clock test.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankcore.rkhs import KernelRanker, _estimator

RNG = np.random.default_rng(0)
X = RNG.normal(size=(120, 4)) + 3.0              # off-centre: the rbf's centring matters
Y = (X[:, 0] + RNG.normal(size=120) > 3.0).astype(int)
X_NEW = RNG.normal(size=(97, 4)) * 2.0 + 3.5


def _calls(monkeypatch, model):
    calls = []
    kernel = type(model.kernel_).compute

    def spy(self, A, B, n_threads):
        calls.append(A.shape[0])
        return kernel(self, A, B, n_threads)

    monkeypatch.setattr(type(model.kernel_), "compute", spy)
    return calls


@pytest.mark.parametrize("params", [dict(kernel="rbf"), dict(kernel="laplacian"), dict(kernel="linear"),
                                    dict(kernel="poly:degree=3"), dict(kernel="rbf", lam=[0.1, 0.01]),
                                    dict(solver="nystroem", n_components=20, random_state=0)],
                         ids=["rbf", "laplacian", "linear", "poly", "path", "nystroem"])
def test_one_row_per_call_gives_the_same_bits(monkeypatch, params):
    model = KernelRanker(n_jobs=1, **params).fit(X, Y)
    whole = model.decision_function(X_NEW)
    assert len(_estimator.score_row_blocks(X_NEW.shape[0], model.support_.shape[0])) == 1
    monkeypatch.setattr(_estimator, "SCORE_BLOCK_ENTRIES", 1)               # one row per kernel call
    calls = _calls(monkeypatch, model)
    np.testing.assert_array_equal(model.decision_function(X_NEW), whole)
    assert calls == [1] * X_NEW.shape[0]                                     # (before: one call of 97 rows)


def test_blocks_of_several_rows_cover_every_row_once(monkeypatch):
    model = KernelRanker(n_jobs=1).fit(X, Y)
    whole = model.decision_function(X_NEW)
    monkeypatch.setattr(_estimator, "SCORE_BLOCK_ENTRIES", 7 * model.support_.shape[0])
    calls = _calls(monkeypatch, model)
    np.testing.assert_array_equal(model.decision_function(X_NEW), whole)
    assert calls == [7] * 13 + [6]
    assert _estimator.score_row_blocks(0, 5) == [(0, 0)]
