"""Size parameters whose arrays would exceed the memory available are refused up front, by name.

(Before: NumPy's bare ``MemoryError`` -- "Unable to allocate 8.00 GiB for an array with shape (1, 2147483647)"
for ``ExactBoost(n_rounds=2**31 - 1)`` -- naming no parameter, or, where the kernel overcommits, a process killed
later without a message.)  The memory available is replaced by a small number, so nothing large is allocated.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankcore._memory as memory
from rankcore.exactboost import ExactBoost
from rankcore.rkhs import KernelRanker


def data(n=40):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 3)), np.tile([0, 1], n // 2)


@pytest.fixture
def little_memory(monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 10_000)


@pytest.mark.parametrize("params, name", [({"n_runs": 2, "n_rounds": 300}, "n_rounds"),
                                          ({"n_runs": 300, "n_rounds": 2}, "n_runs")])
def test_exactboost_refuses_run_tables_beyond_the_memory(little_memory, params, name):
    X, y = data()
    with pytest.raises(ValueError, match=rf"^{name}: the runs' result tables .* more than the 9\.8 KiB of memory "
                                         rf"available; choose a smaller {name}$") as caught:
        ExactBoost(random_state=0, **params).fit(X, y)
    assert caught.value.parameter == name


def test_exactboost_fits_within_the_memory(little_memory):
    X, y = data()
    assert ExactBoost(n_runs=2, n_rounds=3, random_state=0).fit(X, y).stumps_.shape[0] >= 0


def test_kernel_ranker_refuses_a_nystroem_block_beyond_the_memory(little_memory):
    X, y = data()
    with pytest.raises(ValueError, match=r"^n_components: the Nystroem kernel block .*40 rows x 30 landmarks"
                       ) as caught:
        KernelRanker(solver="nystroem", n_components=30).fit(X, y)
    assert caught.value.parameter == "n_components"
    KernelRanker(solver="nystroem", n_components=5).fit(X, y)            # 16 * 40 * 5 bytes fit in 10,000


def test_largest_max_thresholds_is_no_cap():
    """max_thresholds=2**31 - 1 (its declared maximum) overflowed the kernel's C int (before: OverflowError
    "value too large to convert to int"); it is no cap, the stumps of max_thresholds=None."""
    X, y = data()
    capped = ExactBoost(n_runs=2, n_rounds=3, random_state=0, max_thresholds=2**31 - 1).fit(X, y)
    free = ExactBoost(n_runs=2, n_rounds=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(capped.decision_function(X), free.decision_function(X))


def test_kernel_ranker_refuses_an_exact_decomposition_beyond_the_memory(little_memory):
    # 16 * 40**2 = 25,600 bytes > 10,000: before, the m x m arrays were allocated (the second one only after the
    # O(m³) reduction, hours at 30,000 rows) and a MemoryError naming nothing ended the fit
    X, y = data()
    # in a unit that shows them: 25,600 and 10,000 bytes were "0.0 GiB, more than the 0.0 GiB of memory available"
    with pytest.raises(ValueError, match=r"^solver: the exact decomposition's two 40 x 40 arrays would take 25\.0 KiB, "
                                         r"more than the 9\.8 KiB of memory available; "
                                         r"use solver='nystroem' \(n_components landmarks\) or solver='auto'"
                       ) as caught:
        KernelRanker(solver="exact").fit(X, y)
    assert caught.value.parameter == "solver"
    assert KernelRanker(solver="exact").fit(X[:20], y[:20]).solver_ == "exact"      # 6,400 bytes fit


def test_kernel_ranker_auto_plans_within_the_memory_free_now_instead_of_refusing(little_memory):
    # solver='auto' chose the exact route within its budget, half the machine's memory, and the memory free now
    # (10,000 bytes here) then refused it, advising solver='auto' -- the user's own choice
    X, y = data()
    model = KernelRanker(solver="auto", lam=1.0).fit(X, y)
    assert model.solver_ != "exact"
    exact = KernelRanker(solver="exact", lam=1.0).fit(X[:20], y[:20])
    assert KernelRanker(solver="auto", lam=1.0).fit(X[:20], y[:20]).solver_ == exact.solver_ == "exact"
