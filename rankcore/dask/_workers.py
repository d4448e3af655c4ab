"""The cluster's workers as the scheduler sees them now, asked once per decision."""

from __future__ import annotations

__all__ = ["worker_info"]


def worker_info(client, purpose: str = "fitting") -> dict[str, dict]:
    """``{address: info}`` of every worker, fetched from the scheduler by this call.

    ``client.scheduler_info()`` is not used: it returns the client's cached
    identity, which a periodic refresh overwrites with cluster totals only
    (``"workers": {}`` in recent ``distributed``), so a read racing that
    refresh sees no workers.  The scheduler's ``identity`` call with no
    argument lists every worker in every supported ``distributed`` version.
    One round trip to the scheduler.  ``purpose``: what the refusal of a
    cluster without workers says to wait with (``"evaluating"``).
    """
    identity = client.sync(client.scheduler.identity)
    workers = dict(identity.get("workers") or {})
    if not workers:
        raise RuntimeError(f"the Dask cluster of {client!r} has no workers: start workers (or wait for them, "
                           f"client.wait_for_workers(n)) before {purpose}")
    return workers
