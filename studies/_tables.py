"""Markdown tables shared by the studies: one table per figure, data sets by methods, mean ± sd over splits."""

from __future__ import annotations

import numpy as np


def mean_sd_tables(results, figures) -> str:
    """One Markdown table per figure: a row per data set, a column per method, and a mean-over-datasets row.

    Parameters
    ----------
    results : dict
        ``(dataset, method) -> list of rows``, one row per split, a row holding one value per figure.
    figures : sequence of (str, str)
        ``(title, format)`` of each figure, in the order of a row's values (format: ``"{:.4f}"``).
    """
    datasets = list(dict.fromkeys(d for d, _ in results))
    methods = list(dict.fromkeys(m for _, m in results))
    blocks = []
    for j, (title, fmt) in enumerate(figures):
        lines = [title, "", "| dataset | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
        means = {m: [] for m in methods}
        for d in datasets:
            cells = []
            for m in methods:
                v = np.asarray(results[(d, m)], dtype=float)[:, j]
                means[m].append(v.mean())
                cells.append(f"{fmt.format(v.mean())} ± {fmt.format(v.std())}")
            lines.append(f"| {d} | " + " | ".join(cells) + " |")
        lines.append("| **mean over datasets** | " + " | ".join(f"**{fmt.format(np.mean(means[m]))}**" for m in methods)
                     + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
