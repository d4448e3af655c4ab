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
at a time (:func:`block_rows`), so the memory is that of one block.
"""

from __future__ import annotations

import csv
import json
from typing import Any, Callable, Iterator, TextIO

import numpy as np

__all__ = ["write_interaction_summary", "write_interactions_per_row", "block_rows", "BLOCK_BYTES"]

#: The output of one block of rows, n · (d + 1)² float64: 64 MiB at most (one row if a row is larger).
BLOCK_BYTES = 1 << 26


def block_rows(n_features: int) -> int:
    """Rows whose (rows, d + 1, d + 1) values fit in :data:`BLOCK_BYTES` (at least 1)."""
    return max(1, BLOCK_BYTES // (8 * (n_features + 1) ** 2))


def _blocks(interactions: Callable[[np.ndarray], np.ndarray], rows: np.ndarray,
            n_features: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(block of rows, their Φ without the bias row and column)``, in the order of ``rows``."""
    step = block_rows(n_features)
    for start in range(0, rows.shape[0], step):
        block = rows[start:start + step]
        yield block, interactions(block)[:, :n_features, :n_features]


def write_interaction_summary(interactions: Callable[[np.ndarray], np.ndarray], names: list[str], rows: np.ndarray,
                              fmt: str, limit: int | None, handle: TextIO) -> None:
    """The pairs i < j by mean |Φ_ij| over ``rows`` (descending; ties in the features' order), with the mean
    Φ_ij, as ``fmt``.  O(blocks · d²) memory; O(d² log d) to sort the pairs."""
    d = len(names)
    absolute, signed = np.zeros((d, d)), np.zeros((d, d))
    for _, phi in _blocks(interactions, rows, d):
        absolute += np.abs(phi).sum(axis=0)
        signed += phi.sum(axis=0)
    count = max(rows.shape[0], 1)
    first, second = np.triu_indices(d, k=1)
    mean_abs, mean = absolute[first, second] / count, signed[first, second] / count
    order = np.argsort(-mean_abs, kind="stable")
    columns = ["feature_i", "feature_j", "mean_abs_interaction", "mean_interaction"]
    records = [[names[first[p]], names[second[p]], float(mean_abs[p]), float(mean[p])] for p in order.tolist()]
    if fmt == "csv":
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[a, b, repr(m), repr(s)] for a, b, m, s in records])
        return
    if fmt == "json":
        handle.write(json.dumps([dict(zip(columns, record)) for record in records], indent=1) + "\n")
        return
    shown = [r for r in records if r[2] != 0][:limit]
    width = max([len("feature_i")] + [len(r[0]) for r in shown])
    width_j = max([len("feature_j")] + [len(r[1]) for r in shown])
    lines = [f"mean SHAP interaction value of each pair of features over {rows.shape[0]} rows, by mean |value| "
             f"({len(shown)} of {len(records)} pairs shown)",
             f"{'feature_i'.ljust(width)}  {'feature_j'.ljust(width_j)}  mean |interaction|  mean interaction"]
    lines += [f"{a.ljust(width)}  {b.ljust(width_j)}  {m:18.4f}  {s:+16.4f}" for a, b, m, s in shown]
    handle.write("\n".join(lines) + "\n")


def write_interactions_per_row(interactions: Callable[[np.ndarray], np.ndarray], names: list[str], rows: np.ndarray,
                               lead: tuple[list[str], Callable[[int], list[Any]]], fmt: str, handle: TextIO) -> None:
    """One record per row of ``rows`` and pair i <= j whose Φ_ij is not 0: the row's lead columns (``lead``: their
    names, and a row's values -- its name, query, rank), then feature_i, feature_j and the value (to the last bit:
    ``repr``), as ``fmt``."""
    d = len(names)
    first, second = np.triu_indices(d)
    header = list(lead[0]) + ["feature_i", "feature_j", "interaction"]
    writer = csv.writer(handle, lineterminator="\n")
    if fmt == "json":
        handle.write("[")
    elif fmt == "csv":
        writer.writerow(header)
    else:
        handle.write("  ".join(header) + "\n")
    started = False
    for block, phi in _blocks(interactions, rows, d):
        values = phi[:, first, second]
        for i, row in enumerate(block.tolist()):
            cells = lead[1](row)
            for p in np.flatnonzero(values[i]).tolist():
                record = cells + [names[first[p]], names[second[p]], float(values[i, p])]
                if fmt == "json":
                    handle.write(("," if started else "") + "\n " + json.dumps(dict(zip(header, record))))
                elif fmt == "csv":
                    writer.writerow([repr(v) if isinstance(v, float) else v for v in record])
                else:
                    handle.write("  ".join(str(v) for v in record[:-1]) + f"  {record[-1]:+.4f}\n")
                started = True
    if fmt == "json":
        handle.write("\n]\n")
