"""A fit run inside another fit's callback, on the same thread, hands the outer fit's holding back when it ends."""

import os
import threading

import numpy as np
import pytest

import rankcore
from rankcore import _cpus

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity mask on this platform")


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    return X, (X[:, 0] + rng.normal(size=300) > 0.5).astype(int)


def test_an_inner_fit_gives_the_outer_fit_its_holding_back(quiet_two_cpus):
    # the inner fit's end dropped the thread's holding: until its next iteration the outer fit, still running on
    # both CPUs, held none, and a fit on another thread took both as well
    X, y = _data()
    me = threading.get_ident()
    during, after = [], []

    def inner_fit(info):
        if info.iteration == 1:
            during.append(_cpus._held.get(me))
            model = rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=1, n_jobs=1).fit(X, y)
            after.append((_cpus._held.get(me), model.n_iter_))

    rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0, n_jobs=2).fit(X, y, callbacks=[inner_fit])
    assert during == [2]
    assert after == [(2, 2)]                      # the outer fit's two threads, held again at once
    assert _cpus._held == {}                      # and given back when the outer fit ended


def test_an_outermost_fit_drops_a_holding_no_fit_of_its_thread_made(quiet_two_cpus):
    # a holding left on the thread outside any fit is not handed back as if an outer fit had made it
    _cpus.hold_threads(2)
    X, y = _data()
    rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0, n_jobs=2).fit(X, y)
    assert _cpus._held == {}
