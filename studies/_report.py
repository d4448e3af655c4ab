"""What the studies print: progress notes, mean ± sd tables (data sets by methods), the report or why there is none."""

from __future__ import annotations

import sys

import numpy as np


def note(message):
    """A progress note on stderr, apart from the report on stdout."""
    print(message, file=sys.stderr)


def print_results(results, header, format_results) -> int:
    """Print ``header`` and ``format_results(results)``, or that no data set was available; the exit status (0)."""
    if not results:
        print("no dataset available; set RANKCORE_DATASETS to the datasets folder")
        return 0
    print(header)
    print(format_results(results))
    return 0


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
