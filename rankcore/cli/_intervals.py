"""Confidence intervals on the command line: ``--ci``/``--n-boot`` and the tables they add.

``rankcore evaluate --ci 0.95`` adds lower/upper columns; ``rankcore compare
--ci 0.95`` adds, for the held-out split, every model's intervals and a "Δ
against the best" table: each model's difference from the best model on each
metric, its interval and the paired test's p-value (DeLong for the AUC, the
paired bootstrap otherwise; :func:`rankcore.metrics.compare`); with query
ids, every interval and test resamples whole queries.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from ..spec import read_float, read_int
from ._common import Table, _checked_number, seed, stacked_csv

__all__ = ["add_interval_options", "interval_table", "comparison_tables", "render_tables", "OneClassSplit"]


class OneClassSplit(ValueError):
    """The held-out split has fewer than two rows of a class: no interval of ``compare --ci`` can be had there
    (each class is a stratum of the bootstrap), while its table and figures stand."""


def level(text: str) -> float:
    """argparse type: a confidence level in (0, 1)."""
    return _checked_number(text, read_float, lambda v: 0 < v < 1, "a confidence level in (0, 1) such as 0.95")


def n_boot(text: str) -> int:
    """argparse type: from 100 to 1,000,000 replicates (the library's bounds)."""
    from ..metrics import MAX_BOOT, MIN_BOOT

    return _checked_number(text, read_int, lambda v: MIN_BOOT <= v <= MAX_BOOT,
                           f"an integer number of bootstrap replicates >= {MIN_BOOT} and <= {MAX_BOOT:,}")


def add_interval_options(parser, *, random_state: bool) -> None:
    group = parser.add_argument_group("confidence intervals")
    group.add_argument("--ci", type=level, nargs="?", const=0.95, metavar="LEVEL",
                       help="also give confidence intervals at LEVEL (0.95 when no level follows): DeLong for "
                            "auc, a stratified bootstrap for every other metric; with --qid, a bootstrap "
                            "over whole queries")
    group.add_argument("--n-boot", type=n_boot, default=2000, metavar="N",
                       help="bootstrap replicates of the intervals (default 2000, from 100 to 1,000,000)")
    if random_state:
        group.add_argument("--random-state", type=seed, default=0, metavar="SEED",
                           help="seed of the bootstrap replicates (default 0)")


def interval_table(y: Any, scores: Any, specs: list[str], args, qid: Any = None) -> Table:
    """``metric, value, lower, upper, method`` for one scoring (``evaluate --ci``); ``qid``: over queries."""
    from ..metrics import evaluate

    results = evaluate(y, scores, specs, ci=args.ci, n_boot=args.n_boot, random_state=args.random_state, qid=qid)
    rows = [[spec, r.estimate, r.lower, r.upper, r.method] for spec, r in results.items()]
    return Table(["metric", "value", "lower", "upper", "method"], rows)


def comparison_tables(comparison, args) -> tuple[str, list[tuple[str, Table]]]:
    """The intervals of every model and the Δ-against-the-best table on the held-out split."""
    from ..metrics import TooFewPairedQueries, compare, evaluate
    from ..registry import resolve

    split = next((s for s in comparison.splits if s != "train"), "train")
    y = comparison.splits[split][1]
    qid = comparison.qid.get(split)
    _refuse_one_class(split, y, qid)
    level_pct = f"{100 * args.ci:g}%" if f"{100 * args.ci:g}" != "100" else f"{100 * args.ci:.12g}%"   # not "100%"
    rows = []
    for fitted in comparison.models:
        found = evaluate(y, fitted.scores[split], comparison.metrics, ci=args.ci, n_boot=args.n_boot,
                         random_state=args.random_state, qid=qid)
        rows += [[fitted.config.label, spec, r.estimate, r.lower, r.upper, r.method] for spec, r in found.items()]
    intervals = Table(["model", "metric", "value", "lower", "upper", "method"], rows)
    deltas, refused = [], None
    if len(comparison.models) > 1:
        for spec in comparison.metrics:
            metric = resolve("metric", spec)
            values = {f.config.label: f.metrics[split][spec] for f in comparison.models}
            pick = max if metric.greater_is_better else min
            best = pick(comparison.models, key=lambda f: values[f.config.label])
            for fitted in comparison.models:
                if fitted is best:
                    continue
                labels = [spec, fitted.config.label, best.config.label]
                try:
                    d = compare(y, fitted.scores[split], best.scores[split], spec, level=args.ci,
                                n_boot=args.n_boot, random_state=args.random_state, qid=qid)
                except TooFewPairedQueries as exc:        # each model's intervals stand; only the test is refused
                    deltas.append(labels + untested_difference(y, fitted.scores[split], best.scores[split], spec,
                                                               qid)[:4])
                    refused = refused or exc
                    continue
                deltas.append(labels + [d.difference, d.lower, d.upper, d.p_value])
    if refused is not None:
        warnings.warn(f"--ci: the differences have no interval or p-value: {refused}", UserWarning, stacklevel=2)
    differences = Table(["metric", "model", "best", "delta", "lower", "upper", "p"], deltas)
    return split, [(f"{split} split: {level_pct} intervals", intervals),
                   (f"{split} split: Δ against the best, {level_pct} interval, paired p-value", differences)]


def _refuse_one_class(split: str, y: Any, qid: Any) -> None:
    """Raise :class:`OneClassSplit` for binary labels without queries with fewer than two rows of a class.

    Checked before any interval: the bootstrap's refusal, raised after the models were trained, ended the run
    without its figures and report (a ``--test`` file of negatives alone has its prec@k and figures).
    """
    import numpy as np

    if qid is not None:
        return
    positives = int(np.count_nonzero(np.asarray(y)))
    negatives = int(np.asarray(y).shape[0]) - positives
    if min(positives, negatives) < 2:
        raise OneClassSplit(f"the {split} split has {positives} positive and {negatives} negative rows; an "
                            "interval needs at least two rows of each class")


def render_tables(main: Table, extra: list[tuple[str, Table]], fmt: str) -> str:
    """The main table, then each titled table (JSON: one object with every table; without any, the table alone)."""
    if not extra:
        return main.render(fmt)
    if fmt == "json":
        keys = ["metrics", "intervals", "differences"]
        parts = {keys[0]: json.loads(main.render("json"))}
        parts.update({key: json.loads(table.render("json")) for key, (_, table) in zip(keys[1:], extra)})
        return json.dumps(parts, indent=1)
    if fmt == "csv":            # one parseable CSV: each row's table named in its first column
        keys = ["metrics", "intervals", "differences"]
        return stacked_csv([(keys[0], main), *((key, table) for key, (_, table) in zip(keys[1:], extra))])
    blocks = [main.render(fmt)]
    for title, table in extra:
        if table.rows:
            blocks.append(f"{title}\n" + table.render(fmt))
    return "\n\n".join(blocks)


def untested_difference(y, scores, against, spec: str, qid) -> list:
    """The row of a comparison refused for too few queries: the difference of the two means over the queries both
    count, no interval and no p-value (empty cells, null in JSON)."""
    import numpy as np

    from ..metrics import per_query

    v1, v2 = (per_query(y, s, spec, qid=qid).values for s in (scores, against))
    both = ~np.isnan(v1) & ~np.isnan(v2)
    delta = float(np.mean(v1[both]) - np.mean(v2[both])) if both.any() else None
    return [delta, None, None, None, "none (too few queries)"]
