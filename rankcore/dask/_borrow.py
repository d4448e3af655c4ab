"""The threads a fit on one worker borrows: those of the other workers on its host, held for the fit.

A fit placed on one worker (``placement="one_worker"``, or ``"auto"`` on
few rows) leaves the other workers idle while it runs; on a
``LocalCluster`` of two one-thread workers half the machine waits.  The
fit may use their cores -- but only if Dask will not schedule other work on
them meanwhile.  So the client submits one *hold* task per thread of each
other worker on the fitting worker's host (:func:`hold`); a hold occupies
its worker thread, as any task does, until the fit ends.  The holds that
have started when the fit is about to start are its borrowed threads
(:func:`claim`); the others are cancelled.  The fit then runs on its
worker's threads plus the borrowed ones, and the holds are released when it
ends (:func:`release`), or when their futures are cancelled (a hold checks
every ``POLL_SECONDS`` that it is still wanted, so a client that goes away
cannot pin a worker), or when any other task waits for its thread: two fits
placed at once, each on one worker, each holding the other's threads, would
otherwise wait for each other forever.  A fit whose holds so return runs on
the threads it counted, sharing those cores.

Nothing is borrowed from a worker on another host (its cores are not this
host's), nor from a busy worker (its holds do not start within
``START_SECONDS``).  The model does not depend on the threads: the trees'
kernels give the same sums on any number of them.
"""

from __future__ import annotations

import threading
import time
import uuid

from ._workers import worker_info

__all__ = ["Borrowed", "borrow_threads", "hold", "claim", "release"]

#: How long the client waits for the holds to start (idle workers start them within milliseconds).
START_SECONDS = 0.05

#: How often a hold checks whether it is still wanted (its future cancelled: the client has gone; another task
#: waiting for its thread).
POLL_SECONDS = 0.25

#: The start of a hold task's key (``borrow_threads``): holds waiting for a thread are no work a hold yields to.
_HOLD_KEY = "rankcore-hold-"

# on a worker: token -> _Hold (the holds of one fit on this worker), and the tokens of fits that have ended
# (the last _DONE_KEPT of them: a hold that starts after its fit ended returns at once)
_HOLDS: dict[str, "_Hold"] = {}
_DONE: dict[str, None] = {}
_DONE_KEPT = 1024
_LOCK = threading.Lock()


class _Hold:
    """The holds of one fit on one worker: how many run, and whether the fit has claimed or released them."""

    def __init__(self):
        self.running = 0
        self.closed = False              # claimed: holds that start from now on return at once
        self.released = threading.Event()


def _entry(token: str) -> _Hold:
    with _LOCK:
        return _HOLDS.setdefault(token, _Hold())


def hold(token: str) -> int:
    """On a worker: occupy this task's thread until the fit of ``token`` ends; 1 if it was borrowed, else 0.

    Returns at once (0) when the fit has already claimed its threads.
    """
    from distributed import get_worker

    worker = get_worker()
    key = worker.get_current_task()
    with _LOCK:
        if token in _DONE:
            return 0
        entry = _HOLDS.setdefault(token, _Hold())
        if entry.closed:
            return 0
        entry.running += 1
    try:
        while not entry.released.wait(POLL_SECONDS):
            task = worker.state.tasks.get(key)
            if task is None or task.state not in ("executing", "long-running"):
                break                    # cancelled or forgotten: nobody waits for this fit any more
            if _work_waiting(worker):
                # another fit's task (or any work) waits for this thread: give it back.  Two fits placed on one
                # worker each, each holding the other's worker, would otherwise wait for each other forever.
                break
    finally:
        with _LOCK:
            entry.running -= 1
            if entry.running == 0 and (entry.closed or entry.released.is_set()):
                _HOLDS.pop(token, None)
    return 1


def _work_waiting(worker) -> bool:
    """Whether a task other than a hold waits for a thread of ``worker`` (read from its state: a snapshot that the
    event loop may change meanwhile, so a read that races it counts as nothing waiting, until the next poll)."""
    try:
        waiting = list(worker.state.ready) + list(getattr(worker.state, "constrained", ()))
    except RuntimeError:
        return False
    return any(not str(task.key).startswith(_HOLD_KEY) for task in waiting)


def _running(token: str) -> int:
    """On a worker (``client.run``): the holds of ``token`` running now."""
    with _LOCK:
        entry = _HOLDS.get(token)
        return 0 if entry is None else entry.running


def claim(token: str) -> int:
    """On a worker (``client.run``): the holds of ``token`` running now; holds starting later return at once."""
    entry = _entry(token)
    with _LOCK:
        entry.closed = True
        return entry.running


def release(token: str) -> None:
    """On a worker (``client.run``): let the holds of ``token`` return."""
    with _LOCK:
        entry = _HOLDS.pop(token, None)
        _DONE[token] = None
        while len(_DONE) > _DONE_KEPT:
            del _DONE[next(iter(_DONE))]
    if entry is not None:
        entry.closed = True
        entry.released.set()


class Borrowed:
    """The threads borrowed for one fit: ``threads`` in all, held on ``workers`` until :meth:`give_back`."""

    def __init__(self, client, token: str | None = None, workers: list[str] | None = None,
                 futures: list | None = None, threads: int = 0):
        self.client = client
        self.token = token
        self.workers = list(workers or [])
        self.futures = list(futures or [])
        self.threads = int(threads)

    def give_back(self) -> None:
        """Release the holds (they return now) and cancel the ones that never started."""
        if self.token is None:
            return
        token, self.token = self.token, None
        try:
            if self.workers:
                self.client.run(release, token, workers=self.workers)
        finally:
            if self.futures:
                self.client.cancel(self.futures)
            self.futures = []


def borrow_threads(client, fit_worker: str) -> Borrowed:
    """Hold the threads of the idle workers on ``fit_worker``'s host for a fit there; what was held.

    One hold per thread of each other worker whose ``host`` is the fitting
    worker's; those running after at most :data:`START_SECONDS` are the
    borrowed threads, the others are cancelled.  A few round trips to the
    scheduler and the peers (milliseconds).
    """
    workers = worker_info(client)
    host = workers.get(fit_worker, {}).get("host")
    peers = [address for address, info in workers.items()
             if address != fit_worker and host is not None and info.get("host") == host]
    if not peers:
        return Borrowed(client)
    token = uuid.uuid4().hex
    futures = [client.submit(hold, token, workers=[address], allow_other_workers=False, pure=False,
                             key=f"{_HOLD_KEY}{token}-{q}-{k}")
               for q, address in enumerate(peers)
               for k in range(max(1, int(workers[address].get("nthreads", 1) or 1)))]
    borrowed = Borrowed(client, token, peers, futures)
    try:
        deadline = time.monotonic() + START_SECONDS
        while sum(client.run(_running, token, workers=peers).values()) < len(futures) \
                and time.monotonic() < deadline:
            time.sleep(0.002)
        borrowed.threads = sum(client.run(claim, token, workers=peers).values())
    except BaseException:
        borrowed.give_back()
        raise
    if borrowed.threads == 0:
        borrowed.give_back()
    return borrowed
