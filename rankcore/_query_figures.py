"""Figures of rankings within queries: a metric against its cut-off k, and per-query differences of two models.

Both are :class:`rankcore.plotting.FigureData` (drawn as SVG by rankcore,
or by matplotlib), re-exported by :mod:`rankcore.plotting`:

* :func:`metric_at_k_data` -- ``ndcg@k`` (or ``err@k``, ``prec@k``) for
  k = 1..K, each point the mean over queries that
  :func:`rankcore.metrics.per_query` gives, with the metric's own
  conventions (gain, ties, queries without a relevant row);
* :func:`query_differences_data` -- each query's difference between a model
  and a baseline, sorted, with the mean difference and its interval from
  :func:`rankcore.metrics.compare` (the paired bootstrap over queries).

A mean over queries hides how the queries split: the second figure shows
whether a gain comes from many queries or from a few large ones.
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping

import numpy as np

from ._figures import Band, FigureData, Panel, Series, _note_coinciding, _stack_widths, to_matplotlib

__all__ = ["metric_at_k_data", "metric_at_k_figure", "query_differences_data", "query_differences_figure"]

#: The longest panel title that fits a panel's width (5.8 inches at the title's font size).
_TITLE_CHARACTERS = 60


def _metric_with_count_k(metric: Any):
    """The metric resolved; it must take a count cut-off ``k`` (``ndcg@k:10``, ``err@k:5``, ``prec@k:10``)."""
    from .registry import resolve

    resolved = resolve("metric", metric)
    k = resolved.params.get("k")
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise ValueError(f"metric: expected a metric with a count cut-off k, such as 'ndcg@k:10' or 'err@k:10' "
                         f"(the largest k drawn), got {resolved.spec!r}")
    return resolved


def _triples(curves: Mapping[str, Any], what: str) -> list[tuple[str, Any, Any, Any]]:
    """``{model: (y, scores, qid)}`` as a list of (model, y, scores, qid)."""
    if not isinstance(curves, Mapping) or not curves:
        raise ValueError(f"{what}: expected a non-empty mapping of model names to (y, scores, qid) triples")
    out = []
    for label, triple in curves.items():
        if not (isinstance(triple, (tuple, list)) and len(triple) == 3):
            raise ValueError(f"{what}: the value for {label!r} must be a triple (y, scores, qid)")
        out.append((str(label), *triple))
    return out


def _split_rows(curves: Mapping[str, Any], what: str) -> list[tuple[str | None, list]]:
    """One row per split: ``{model: (y, s, qid)}`` is one, ``{split: {model: (y, s, qid)}}`` several."""
    if isinstance(curves, Mapping) and curves and all(isinstance(v, Mapping) for v in curves.values()):
        return [(str(split), _triples(inner, f"{what}[{split!r}]")) for split, inner in curves.items()]
    return [(None, _triples(curves, what))]


def metric_at_k_values(y: Any, scores: Any, qid: Any, metric: Any = "ndcg@k:10") -> tuple[np.ndarray, np.ndarray]:
    """A metric's mean over queries at each cut-off k = 1..K (K: the metric's k, at most the largest query).

    Parameters
    ----------
    y, scores, qid : array-like of shape (n,)
        Grades (0/1 labels for ``prec@k``), scores and one query id per row.
    metric : str or Metric, default "ndcg@k:10"
        A metric with a count cut-off k; its other settings (gain, ties,
        empty) hold at every k.

    Returns
    -------
    k : ndarray of int64, shape (K,)
    values : ndarray of float64, shape (K,)
        ``per_query(y, scores, metric at k, qid=qid).mean`` for each k.
    """
    from .metrics import check_qid, per_query

    resolved = _metric_with_count_k(metric)
    largest = int(check_qid(qid, int(np.asarray(y).reshape(-1).shape[0])).sizes.max())
    top = min(int(resolved.k), largest)
    k = np.arange(1, top + 1, dtype=np.int64)
    # the largest cut-off first: an error of the data names the metric as given (at k = 1 it named 'ndcg@k:1')
    values = [per_query(y, scores, resolved if kk == resolved.k else _at_cutoff(resolved, int(kk)), qid=qid).mean
              for kk in k[::-1]]
    return k, np.array(values[::-1])


def _at_cutoff(metric, k: int):
    """The same metric cut at ``k`` (its other parameters as set; those at their default left to default)."""
    return type(metric)(k=k, **_settings(metric))


def _settings(metric) -> dict:
    """The metric's parameters other than ``k`` that are not at their default."""
    defaults = {p.name: p.default for p in metric.parameters}
    return {name: value for name, value in metric.params.items() if name != "k" and value != defaults[name]}


def _metric_name(metric) -> str:
    """The metric's name with its settings other than k: ``ndcg@k (gain=linear)`` is not the default's ndcg@k."""
    settings = ", ".join(f"{name}={value}" for name, value in _settings(metric).items())
    return f"{metric.name} ({settings})" if settings else metric.name


def _at_k_panel(triples: list, metric, title: str) -> Panel:
    series = []
    top = 1
    for index, (label, y, scores, qid) in enumerate(triples):
        k, values = metric_at_k_values(y, scores, qid, metric)
        series.append(Series(k, values, label, gid=f"at-k:{label}", index=index))
        top = max(top, int(k[-1]))
    _note_coinciding(_stack_widths(series), [t[0] for t in triples])
    return Panel(title, "k (places read in each query)", f"{_metric_name(metric)}, mean over queries", series,
                 xlim=(1, max(top, 2)), ylim=(0, 1.06), legend="lower right")


def metric_at_k_data(curves: Mapping[str, Any], *, metric: Any = "ndcg@k:10", title: str | None = None) -> FigureData:
    """``ndcg@k`` (or another metric with a cut-off k) against k, several models per panel; one panel per split.

    Parameters
    ----------
    curves : mapping
        ``{model: (y, scores, qid)}`` or ``{split: {model: (y, scores, qid)}}``.
    metric : str or Metric, default "ndcg@k:10"
        The metric and the largest k drawn (capped at each split's largest
        query); its conventions (``gain``, ``ties``, ``empty``) hold at
        every k, so the point at k is ``per_query(y, scores, metric at k,
        qid=qid).mean``.
    title : str, optional

    Returns
    -------
    FigureData
        Lines with gid ``"at-k:<model>"``.
    """
    resolved = _metric_with_count_k(metric)
    rows = _split_rows(curves, "curves")
    head = _metric_name(resolved)
    panels = [_at_k_panel(triples, resolved, f"{split}: {head} against k" if split else f"{head} against k")
              for split, triples in rows]
    return FigureData(panels, 1, len(rows), 5.8 * len(rows), 4.2, title)


def metric_at_k_figure(curves: Mapping[str, Any], *, metric: Any = "ndcg@k:10", title: str | None = None):
    """:func:`metric_at_k_data` drawn by matplotlib."""
    return to_matplotlib(metric_at_k_data(curves, metric=metric, title=title))


def _differences_panel(y, model: tuple[str, Any], baseline: tuple[str, Any], qid, metric, *, level: float,
                       n_boot: int, random_state: Any) -> Panel:
    from .metrics import per_query

    (name, scores), (base_name, base_scores) = model, baseline
    first = per_query(y, scores, metric, qid=qid).values
    second = per_query(y, base_scores, metric, qid=qid).values
    both = ~np.isnan(first) & ~np.isnan(second)
    delta = np.sort(first[both] - second[both])
    mean, bands = _mean_difference(y, (scores, base_scores), qid, metric, delta, name, level=level, n_boot=n_boot,
                                   random_state=random_state)
    better = int(np.count_nonzero(delta > 0) if metric.greater_is_better else np.count_nonzero(delta < 0))
    worse = int(np.count_nonzero(delta != 0)) - better
    x = np.arange(1, delta.shape[0] + 1, dtype=np.float64)
    ends = np.array([1.0, max(float(delta.shape[0]), 2.0)])
    series = [
        Series(ends, np.zeros(2), "no difference", reference=True),
        Series(x, delta, f"each query: {better} better, {worse} worse, {delta.shape[0] - better - worse} equal",
               gid=f"query-delta:{name}", index=0, width=1.4),
        Series(ends, np.full(2, mean[0]), mean[1], gid=f"mean-delta:{name}", index=1, width=1.8),
    ]
    bands = [Band(ends, np.full(2, low), np.full(2, high), gid=f"delta-band:{name}", index=1) for low, high in bands]
    title = f"{metric.spec}: {name} − {base_name}"
    return Panel(title if len(title) <= _TITLE_CHARACTERS else name, "queries, sorted by the difference",
                 f"Δ {metric.spec}", series, xlim=(1, float(ends[1])), legend="upper left", bands=bands)


def _mean_difference(y, scorings: tuple, qid, metric, delta: np.ndarray, name: str, *, level: float, n_boot: int,
                     random_state: Any) -> tuple[tuple[float, str], list]:
    """The mean difference and its legend, and the interval's band (none when too few queries for a paired test:
    the queries' own differences are drawn all the same)."""
    from .metrics import TooFewPairedQueries, compare

    try:
        paired = compare(y, *scorings, metric, qid=qid, level=level, n_boot=n_boot, random_state=random_state)
    except TooFewPairedQueries:
        return (float(np.mean(delta)), f"mean {np.mean(delta):+.4f}; no interval over {delta.shape[0]} queries"), []
    return ((paired.difference, f"mean {paired.difference:+.4f}, {100 * level:g}% interval [{paired.lower:+.4f}, "
                                f"{paired.upper:+.4f}], p = {paired.p_value:.3g}"), [(paired.lower, paired.upper)])


def query_differences_data(y: Any, scores: Mapping[str, Any], *, qid: Any, metric: Any = "ndcg@k:10",
                           baseline: str | None = None, level: float = 0.95, n_boot: int = 2000,
                           random_state: Any = 0, title: str | None = None) -> FigureData:
    """Per-query differences between models and a baseline, sorted, with the mean and its interval.

    Parameters
    ----------
    y : array-like of shape (n,)
        Grades (0/1 labels for the bipartite metrics).
    scores : mapping of str to array-like of shape (n,)
        Two or more models' scores of the same rows.
    qid : array-like of shape (n,)
        One query id per row.
    metric : str or Metric, default "ndcg@k:10"
        Any registered scalar metric.
    baseline : str, optional
        The model the others are compared to; default the best by the
        metric's mean over queries.
    level, n_boot, random_state
        The interval of the mean difference: :func:`rankcore.metrics.compare`
        with ``qid`` (the paired bootstrap over queries, seeded).
    title : str, optional

    Returns
    -------
    FigureData
        One panel per model other than the baseline, titled
        ``"<metric>: <model> − <baseline>"`` (the model alone when that is
        longer than a panel's width, and then the figure's title names the
        metric and the baseline): the model's value minus
        the baseline's on each query both count, sorted (gid
        ``"query-delta:<model>"``; its mean is ``compare``'s difference),
        the mean difference (``"mean-delta:<model>"``) and its interval
        (band ``"delta-band:<model>"``).
    """
    from .metrics import per_query
    from .registry import resolve

    resolved = resolve("metric", metric)
    if not isinstance(scores, Mapping) or len(scores) < 2:
        raise ValueError("scores: expected a mapping of two or more model names to their scores")
    named = [(str(label), s) for label, s in scores.items()]
    if baseline is None:
        means = [per_query(y, s, resolved, qid=qid).mean for _, s in named]
        pick = max if resolved.greater_is_better else min
        base = named[means.index(pick(means))]
    else:
        found = [item for item in named if item[0] == str(baseline)]
        if not found:
            raise ValueError(f"baseline: expected one of the models {', '.join(n for n, _ in named)}, "
                             f"got {baseline!r}")
        base = found[0]
    panels = [_differences_panel(y, item, base, qid, resolved, level=level, n_boot=n_boot,
                                 random_state=random_state) for item in named if item is not base]
    columns = min(2, len(panels))
    rows = -(-len(panels) // columns)
    return FigureData(panels, rows, columns, 5.8 * columns, 4.2 * rows,
                      _differences_title(title, panels, resolved.spec, base[0]))


def _differences_title(title: str | None, panels: list[Panel], spec: str, base_name: str) -> str | None:
    """The figure's title; it names the metric and the baseline when a panel's title is only its model.

    A panel whose ``"<metric>: <model> − <baseline>"`` is too long for it is
    titled by the model alone, and the figure must still say what every
    difference is taken against.
    """
    if all(panel.title.startswith(f"{spec}: ") for panel in panels):
        return title
    against = f"{spec}: each model − {base_name}"
    return f"{title}; {against}" if title else against


def query_differences_figure(y: Any, scores: Mapping[str, Any], *, qid: Any, metric: Any = "ndcg@k:10",
                             baseline: str | None = None, level: float = 0.95, n_boot: int = 2000,
                             random_state: Any = 0, title: str | None = None):
    """:func:`query_differences_data` drawn by matplotlib."""
    return to_matplotlib(query_differences_data(y, scores, qid=qid, metric=metric, baseline=baseline, level=level,
                                                n_boot=n_boot, random_state=random_state, title=title))
