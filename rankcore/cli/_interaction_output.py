"""``rankcore explain MODEL DATA --interactions``: which pairs of features act together (SHAP interaction values).

Each row's score splits into a symmetric matrix Φ (``feature_interactions``):
Φ_ii is feature i's main effect, Φ_ij = Φ_ji (i ≠ j) half the interaction of
i and j, so the pair moves the score by 2 Φ_ij beyond their main effects.
The default output ranks the pairs i < j by their mean |Φ_ij| over the rows
listed (every row, or the ``--top`` rows of each query), with the mean Φ_ij
(its sign: the pair's usual direction); the text output shows the pairs
whose mean |Φ_ij| is not 0 (the ``--features`` K strongest if given).
``--per-row`` gives instead one record per row and pair i <= j (the
diagonal: the main effects) whose value is not exactly 0 -- a tidy table of
(row, feature_i, feature_j, value).  The values are computed a block of rows
at a time (:func:`block_rows`), so the memory is that of one block; only the
features the trees split on (:func:`split_features`) are summed and written,
the others' values being exactly 0, and records are written one at a time.
"""

from __future__ import annotations

import csv
import json
from typing import Any, Callable, Iterator, TextIO

import numpy as np

from ._common import json_value

__all__ = ["write_interaction_summary", "write_interactions_per_row", "block_rows", "split_features", "BLOCK_BYTES"]

#: The output of one block of rows, n · (d + 1)² float64: 64 MiB at most (one row if a row is larger).
BLOCK_BYTES = 1 << 26


def block_rows(n_features: int) -> int:
    """Rows whose (rows, d + 1, d + 1) values fit in :data:`BLOCK_BYTES` (at least 1)."""
    return max(1, BLOCK_BYTES // (8 * (n_features + 1) ** 2))


def split_features(model, n_features: int) -> np.ndarray:
    """The columns a push model's trees split on (a tree's other features have exactly 0 values), ascending; every
    column for a model whose trees are not at hand (``rankers_``); an ExactBoost's, the features of its stumps."""
    stumps = getattr(model, "stumps_", None)
    if isinstance(stumps, np.ndarray) and stumps.ndim == 2 and getattr(model, "tail_stumps_", None) is None:
        used = np.unique(stumps[:, 0].astype(np.int64))
        return used[(used >= 0) & (used < n_features)]
    rankers = getattr(model, "rankers_", None)
    if rankers is None or any(not hasattr(r, "feature") for r in rankers):
        return np.arange(n_features)
    used = [np.asarray(r.feature)[np.asarray(r.left) >= 0] if hasattr(r, "left") else np.asarray(r.feature)
            for r in rankers]
    used = np.unique(np.concatenate(used + [np.empty(0, np.int64)]).astype(np.int64))
    return used[(used >= 0) & (used < n_features)]


def _blocks(interactions: Callable[[np.ndarray], np.ndarray], rows: np.ndarray, n_features: int,
            used: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(block of rows, their Φ of the ``used`` features: (rows, U, U))``, in the order of ``rows``."""
    step = block_rows(n_features)
    for start in range(0, rows.shape[0], step):
        block = rows[start:start + step]
        yield block, interactions(block)[np.ix_(np.arange(block.shape[0]), used, used)]


def write_interaction_summary(interactions: Callable[[np.ndarray], np.ndarray], names: list[str], rows: np.ndarray,
                              fmt: str, limit: int | None, handle: TextIO, used: np.ndarray | None = None) -> None:
    """The pairs i < j whose mean |Φ_ij| over ``rows`` is not 0, by it (descending; ties in the features' order),
    with the mean Φ_ij, as ``fmt``; the pairs left out are exactly 0.  ``used``: the features that can have values
    (:func:`split_features`; None: all).  O(U²) memory besides a block; O(P log P) to sort the P pairs written."""
    d = len(names)
    used = np.arange(d) if used is None else np.asarray(used)
    absolute, signed = np.zeros((used.size, used.size)), np.zeros((used.size, used.size))
    for _, phi in _blocks(interactions, rows, d, used):
        absolute += np.abs(phi).sum(axis=0)
        signed += phi.sum(axis=0)
    count = max(rows.shape[0], 1)
    first, second = np.triu_indices(used.size, k=1)
    keep = np.flatnonzero(absolute[first, second])
    first, second = first[keep], second[keep]
    mean_abs, mean = absolute[first, second] / count, signed[first, second] / count
    order = np.argsort(-mean_abs, kind="stable")[:limit if fmt == "text" else None].tolist()
    columns = ["feature_i", "feature_j", "mean_abs_interaction", "mean_interaction"]

    def records():
        for p in order:
            yield [names[used[first[p]]], names[used[second[p]]], float(mean_abs[p]), float(mean[p])]

    if fmt == "csv":
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        for a, b, m, s in records():
            writer.writerow([a, b, repr(m), repr(s)])
        return
    if fmt == "json":
        handle.write("[")
        for k, record in enumerate(records()):
            handle.write(("," if k else "") + "\n " + json.dumps(json_value(dict(zip(columns, record)))))
        handle.write("\n]\n")
        return
    shown = list(records())
    width = max([len("feature_i")] + [len(r[0]) for r in shown])
    width_j = max([len("feature_j")] + [len(r[1]) for r in shown])
    lines = [f"mean SHAP interaction value of each pair of features over {rows.shape[0]} rows, by mean |value| "
             f"({len(shown)} of {d * (d - 1) // 2} pairs shown)",
             f"{'feature_i'.ljust(width)}  {'feature_j'.ljust(width_j)}  mean |interaction|  mean interaction"]
    lines += [f"{a.ljust(width)}  {b.ljust(width_j)}  {m:18.4f}  {s:+16.4f}" for a, b, m, s in shown]
    handle.write("\n".join(lines) + "\n")


def write_interactions_per_row(interactions: Callable[[np.ndarray], np.ndarray], names: list[str], rows: np.ndarray,
                               lead: tuple[list[str], Callable[[int], list[Any]]], fmt: str, handle: TextIO,
                               used: np.ndarray | None = None) -> None:
    """One record per row of ``rows`` and pair i <= j whose Φ_ij is not 0: the row's lead columns (``lead``: their
    names, and a row's values -- its name, query, rank), then feature_i, feature_j and the value (to the last bit:
    ``repr``), as ``fmt``.  ``used``: as :func:`write_interaction_summary` reads it."""
    d = len(names)
    used = np.arange(d) if used is None else np.asarray(used)
    first, second = np.triu_indices(used.size)
    header = list(lead[0]) + ["feature_i", "feature_j", "interaction"]
    writer = csv.writer(handle, lineterminator="\n")
    if fmt == "json":
        handle.write("[")
    elif fmt == "csv":
        writer.writerow(header)
    else:
        handle.write("  ".join(header) + "\n")
    started = False
    for block, phi in _blocks(interactions, rows, d, used):
        values = phi[:, first, second]
        for i, row in enumerate(block.tolist()):
            cells = lead[1](row)
            for p in np.flatnonzero(values[i]).tolist():
                record = cells + [names[used[first[p]]], names[used[second[p]]], float(values[i, p])]
                if fmt == "json":
                    handle.write(("," if started else "") + "\n " + json.dumps(json_value(dict(zip(header, record)))))
                elif fmt == "csv":
                    writer.writerow([repr(v) if isinstance(v, float) else v for v in record])
                else:
                    handle.write("  ".join(str(v) for v in record[:-1]) + f"  {record[-1]:+.4f}\n")
                started = True
    if fmt == "json":
        handle.write("\n]\n")
