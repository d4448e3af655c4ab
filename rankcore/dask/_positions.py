"""Display positions of a Dask fit within queries: checked chunk by chunk, coded against the fit's distinct places.

A fit given ``position`` (the place each row was shown at) learns one effect
per distinct place (:mod:`rankcore.objectives._position_effects`).  The
shards add their rows' gradient and curvature per place, so every row needs
its place as an index into places known to every shard.  One pass finds them
(:func:`survey_positions`): a task per chunk checks its positions as the
in-memory fit checks them (``check_positions``; errors name the chunk) and
returns its distinct places, O(places) each; the client merges them, sorted
(the in-memory ``position_ids_``).  Each row's index into them is then
computed where its chunk is (a lazy vector with the rows' chunks), and moves
with its row when the queries are placed (``rankcore.dask._queries``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..objectives import check_positions
from ..validation import said_again
from ._inputs import RowChunks, _as_dask_vector, gather_in_chunk_order

__all__ = ["DaskPositions", "PlaceEffects", "position_vector", "survey_positions"]


@dataclass(frozen=True)
class DaskPositions:
    """The distinct places of a fit (sorted, int64) and each row's index into them (a Dask vector of int64)."""

    ids: np.ndarray
    codes: Any

    def among(self, places: np.ndarray) -> "DaskPositions":
        """The same rows' positions coded against ``places`` (sorted, holding every one of ``ids``): a
        continuation's places, its rows' with its init model's.  Lazily, chunk by chunk, as the codes are."""
        moved = np.searchsorted(places, self.ids)
        return DaskPositions(np.asarray(places, dtype=np.int64),
                             self.codes.map_blocks(_recoded, moved, dtype=np.int64, meta=np.empty(0, dtype=np.int64)))


def position_vector(position: Any, data: RowChunks):
    """``position`` as a Dask vector with the chunks of ``data`` (an in-memory array is checked whole first)."""
    from ._inputs import is_dask_collection

    if not is_dask_collection(position):
        check_positions(position, data.n_rows)         # the in-memory fit's errors, rows numbered as given
        if hasattr(position, "to_numpy"):
            position = position.to_numpy()
    return _as_dask_vector(position, data.chunk_rows, name="position")


def _chunk_places(i: int, offset: int, position) -> np.ndarray:
    """The distinct places of chunk ``i`` (whose first row is row ``offset``), its positions checked."""
    position = np.asarray(position)
    try:
        ids, _ = check_positions(position, position.shape[0])
    except (TypeError, ValueError) as exc:
        raise said_again(exc, f"{exc} (chunk {i}, whose first row is row {offset} of X)") from None
    return ids


def _chunk_codes(position, ids: np.ndarray) -> np.ndarray:
    """Each row's index into ``ids`` (its place among the fit's distinct places)."""
    position = np.asarray(position)
    local, codes = check_positions(position, position.shape[0])
    return np.searchsorted(ids, local)[codes].astype(np.int64)


def _recoded(codes, moved: np.ndarray) -> np.ndarray:
    """Each row's index into a superset of the places its ``codes`` index (``moved``: where each of them lies)."""
    return moved[np.asarray(codes)]


def survey_positions(client, data: RowChunks, position) -> DaskPositions:
    """One pass over the positions (module docs): the fit's distinct places and the rows' codes, lazily."""
    import dask

    vector = position_vector(position, data)
    offsets = np.r_[0, np.cumsum(data.chunk_rows)].astype(np.int64)
    call = dask.delayed(_chunk_places, pure=False)
    parts = gather_in_chunk_order(client, [call(i, int(offsets[i]), p)
                                           for i, p in enumerate(vector.to_delayed().ravel())])
    ids = np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
    codes = vector.map_blocks(_chunk_codes, ids, dtype=np.int64, meta=np.empty(0, dtype=np.int64))
    return DaskPositions(ids, codes)


class PlaceEffects:
    """The client's position effects b of a distributed fit, stepped from the shards' merged place sums.

    The step is the in-memory one (:func:`~rankcore.objectives.effects_step`,
    as :meth:`~rankcore.objectives.PositionEffects.advance` takes it); the
    effects after each step are kept (``history``), as in memory.

    Parameters
    ----------
    n_places : int
    l2 : float
        λ, ``position_l2``.
    rate : float
        η, the trees' learning rate (the layout's ``shrinkage``).
    start : ndarray of float64, shape (n_places,), optional
        The effects to start from (a continuation: its init model's); default 0, as in memory.
    """

    def __init__(self, n_places: int, *, l2: float, rate: float, start: np.ndarray | None = None):
        self.effects = np.zeros(int(n_places), dtype=np.float64)
        if start is not None:
            self.effects[:] = start
        self.start = self.effects.copy()
        self.l2 = float(l2)
        self.rate = float(rate)
        self.history: list[np.ndarray] = []

    @property
    def n_places(self) -> int:
        return int(self.effects.shape[0])

    def step(self, sums: np.ndarray) -> np.ndarray | None:
        """Take the effects' step from the merged (2, n_places) sums Σg, Σh; returns Δb (None: not finite, not
        taken)."""
        from ..objectives import effects_step

        delta = effects_step(self.effects, sums[0], sums[1], l2=self.l2, rate=self.rate)
        if delta is not None:
            self.effects += delta
        self.history.append(self.effects.copy())
        return delta

    def undo_step(self) -> None:
        """Take back the last :meth:`step` (the effects and ``history`` as before it), as
        :meth:`~rankcore.objectives.PositionEffects.undo_advance` in memory."""
        self.history.pop()
        self.effects[:] = self.history[-1] if self.history else self.start

    def effects_after(self, n_trees: int) -> np.ndarray:
        """The effects the ``n_trees``-th tree was grown with (``start`` for none), as in memory."""
        return self.history[n_trees - 1].copy() if n_trees >= 1 else self.start.copy()
