"""A fit on one worker borrows the threads of the idle workers on its host, and gives them back.

On the shared LocalCluster (2 one-thread workers on this host): the fit runs
on two threads and is the in-memory fit bit for bit; a busy peer lends
nothing (and the fit does not wait for it); after a fit, or when the client
abandons the holds, the peer's thread is free again.  No part of Dask is
mocked.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("distributed")


import rankcore  # noqa: E402
from rankcore.dask import DaskPushBoost, _borrow, _placement  # noqa: E402

from _dask_cluster import SMALL_TREES, dask_client, small_chunked_data  # noqa: E402,F401

PARAMS = SMALL_TREES
_data = small_chunked_data


def _load_aware(on: bool) -> None:
    from rankcore import _cpus

    _cpus.LOAD_AWARE = on


def _busy_host(busy: bool) -> None:
    from rankcore import _cpus

    _cpus._idle_sample[:] = [-float("inf"), None]               # no earlier reading of the load reused
    if busy:
        _cpus.quiet_count = _cpus.other_running_threads
        _cpus.other_running_threads = lambda *args: 64         # every CPU taken by other processes
    else:
        _cpus.other_running_threads = _cpus.__dict__.pop("quiet_count")


@pytest.fixture(autouse=True)
def quiet_host(dask_client):  # noqa: F811
    """The workers do not look at the host's load (the tests share the machine), except where a test says so."""
    dask_client.run(_load_aware, False)
    yield
    dask_client.run(_load_aware, True)


def _holds_running(client) -> int:
    return sum(client.run(lambda: sum(h.running for h in _borrow._HOLDS.values())).values())


def _wait_until(predicate, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _peer_runs_a_task_now(client, peer) -> bool:
    future = client.submit(lambda: 1, workers=[peer], allow_other_workers=False, pure=False)
    try:
        return future.result(timeout=5) == 1
    finally:
        future.cancel()


def test_the_fit_takes_the_idle_peer_thread_and_is_the_in_memory_fit(dask_client):  # noqa: F811
    X, y, Xd, yd = _data()
    model = DaskPushBoost(placement="one_worker", **PARAMS).fit(Xd, yd)
    assert model.fit_info_["threads"] == 2              # its own thread and the other worker's
    local = rankcore.PushBoost(n_jobs=1, **PARAMS).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
    np.testing.assert_array_equal(model.alphas_, local.alphas_)
    # given back: no hold runs, and the other worker takes a task at once
    assert _wait_until(lambda: _holds_running(dask_client) == 0)
    peer = [a for a in dask_client.scheduler_info()["workers"] if a != model.fit_info_["worker"]][0]
    assert _peer_runs_a_task_now(dask_client, peer)


def test_without_borrowing_the_fit_has_its_worker_thread(dask_client, monkeypatch):  # noqa: F811
    _, _, Xd, yd = _data(seed=1)
    monkeypatch.setattr(_placement, "BORROW_THREADS", False)
    assert DaskPushBoost(placement="one_worker", **PARAMS).fit(Xd, yd).fit_info_["threads"] == 1


def test_a_busy_peer_lends_nothing_and_the_fit_does_not_wait_for_it(dask_client):  # noqa: F811
    _, _, Xd, yd = _data(seed=2)
    workers = sorted(dask_client.scheduler_info()["workers"])
    fitting, busy = workers
    Xd, yd = dask_client.persist([Xd, yd], workers=[fitting])     # the rows gather on ``fitting``
    blocker = dask_client.submit(time.sleep, 4.0, workers=[busy], allow_other_workers=False, pure=False)
    try:
        assert _wait_until(lambda: bool(dask_client.processing().get(busy)), 5)
        model = DaskPushBoost(placement="one_worker", **PARAMS).fit(Xd, yd)
        still_busy = not blocker.done()
    finally:
        blocker.result()                               # the busy worker free again for the other tests
    assert model.fit_info_["worker"] == fitting
    assert model.fit_info_["threads"] == 1
    assert still_busy                                  # it did not wait for the busy worker's task
    assert _wait_until(lambda: _holds_running(dask_client) == 0)


def test_abandoned_holds_return_when_their_futures_are_cancelled(dask_client):  # noqa: F811
    workers = sorted(dask_client.scheduler_info()["workers"])
    borrowed = _borrow.borrow_threads(dask_client, workers[0])
    assert borrowed.threads == 1 and _holds_running(dask_client) == 1
    dask_client.cancel(borrowed.futures)               # the client goes away without releasing them
    assert _wait_until(lambda: _holds_running(dask_client) == 0, 5 * _borrow.POLL_SECONDS + 5)
    assert _peer_runs_a_task_now(dask_client, workers[1])
    borrowed.give_back()                               # releasing afterwards is harmless


def test_a_hold_that_starts_after_its_fit_returns_at_once(dask_client):  # noqa: F811
    workers = sorted(dask_client.scheduler_info()["workers"])
    dask_client.run(_borrow.release, "ended-fit", workers=[workers[1]])
    future = dask_client.submit(_borrow.hold, "ended-fit", workers=[workers[1]], allow_other_workers=False,
                                pure=False)
    assert future.result(timeout=5) == 0
    assert dask_client.run(_borrow.claim, "claimed-fit", workers=[workers[1]]) == {workers[1]: 0}
    future = dask_client.submit(_borrow.hold, "claimed-fit", workers=[workers[1]], allow_other_workers=False,
                                pure=False)
    assert future.result(timeout=5) == 0
    dask_client.run(_borrow.release, "claimed-fit", workers=[workers[1]])


def test_no_peer_on_another_host_is_borrowed(dask_client, monkeypatch):  # noqa: F811
    workers = sorted(dask_client.scheduler_info()["workers"])
    info = _borrow.worker_info(dask_client)
    moved = {a: dict(v, host=("elsewhere" if a == workers[1] else v.get("host"))) for a, v in info.items()}
    monkeypatch.setattr(_borrow, "worker_info", lambda client: moved)
    borrowed = _borrow.borrow_threads(dask_client, workers[0])
    assert borrowed.threads == 0 and borrowed.futures == []



def test_a_busy_host_keeps_the_borrowed_threads_unused(dask_client):  # noqa: F811
    # the peer lends its thread, but the host's CPUs are taken by other processes: the fit runs on its own thread
    X, y, Xd, yd = _data(seed=3)
    dask_client.run(_load_aware, True)
    dask_client.run(_busy_host, True)
    try:
        model = DaskPushBoost(placement="one_worker", **PARAMS).fit(Xd, yd)
    finally:
        dask_client.run(_busy_host, False)
    assert model.fit_info_["threads"] == 1
    local = rankcore.PushBoost(n_jobs=1, **PARAMS).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
    assert _wait_until(lambda: _holds_running(dask_client) == 0)


def test_two_one_worker_fits_at_once_do_not_wait_for_each_other(dask_client):  # noqa: F811
    # each fit's holds took the other worker's thread, which the other fit waited for: both waited forever.  A
    # hold now gives its thread back when another task waits for it; the models are the in-memory fits.
    import threading

    X, y, Xd, yd = _data(seed=3)
    fitted, errors = {}, []

    def fit(state):
        try:
            fitted[state] = DaskPushBoost(placement="one_worker", **{**PARAMS, "random_state": state}).fit(Xd, yd)
        except BaseException as exc:            # said by the assertion below
            errors.append(exc)

    for _ in range(3):                          # the holds race the fits' tasks: a few rounds
        fitted.clear()
        threads = [threading.Thread(target=fit, args=(state,), daemon=True) for state in (4, 5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not errors and sorted(fitted) == [4, 5], (errors, sorted(fitted))
    for state, model in fitted.items():
        local = rankcore.PushBoost(n_jobs=1, **{**PARAMS, "random_state": state}).fit(X, y)
        np.testing.assert_array_equal(model.decision_function(X), local.decision_function(X))
    assert _wait_until(lambda: _holds_running(dask_client) == 0)
