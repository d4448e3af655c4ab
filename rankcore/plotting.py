"""Pictures of rankings: ROC curves in counts, precision@k against k, the training objective.

Every figure is first described without any drawing library -- a
:class:`FigureData` of panels holding the exact points -- and then drawn:

* as SVG by rankcore itself (:func:`render_svg`, no dependency), which is what
  ``rankcore demo``, ``rankcore compare`` and the HTML reports use by default,
  so a plain ``pip install`` draws every figure;
* as a matplotlib ``Figure`` (:func:`to_matplotlib`, PNG and PDF), which needs
  the optional extra ``pip install "rankcore[plot]"``; without it the
  matplotlib functions raise :class:`PlottingUnavailable` (an ``ImportError``)
  saying so.

* :func:`roc_data` / :func:`roc_figure` -- the full ROC curve and its leftmost
  portion, as counts (true positives against false positives, as in the
  P-Norm Push paper's figures), several models on one axis; one row per split.
* :func:`precision_at_k_data` / :func:`precision_at_k_figure` -- precision@k against k.
* :func:`objective_data` / :func:`objective_figure` -- the training objective
  after each iteration, one small panel per model (objectives of different
  models live on different scales).
* :func:`metric_at_k_data` / :func:`metric_at_k_figure` -- ``ndcg@k`` against
  k, the mean over queries; :func:`query_differences_data` /
  :func:`query_differences_figure` -- each query's difference between two
  models, with the mean and its interval (rankings within queries).
* :func:`save_figure` -- SVG, PNG or PDF with fixed metadata and no
  timestamps: the same figure gives the same bytes.

The plotted points are exactly :func:`rankcore.metrics.roc_curve`'s: one point
per distinct score, so a group of tied scores is one straight (diagonal)
segment -- the expected curve under a random order of the tie.  matplotlib
figures are built on its object API (``Figure`` + the Agg canvas), never
through ``pyplot``, so nothing global changes and no window opens.
"""

from __future__ import annotations

import io
import math
import os
from typing import Any, Mapping

import numpy as np

from ._figures import (
    _BASE_WIDTH,
    _DPI,
    _WIDTH_STEP,
    INSTALL_HINT,
    Band,
    FigureData,
    Panel,
    PlottingUnavailable,
    Series,
    _draw_panel,
    _note_coinciding,
    _stack_widths,
    _style,
    render_svg,
    require_matplotlib,
    to_matplotlib,
)
from ._query_figures import metric_at_k_data, metric_at_k_figure, query_differences_data, query_differences_figure

_FORMATS = ("png", "svg", "pdf")

__all__ = [
    "FigureData",
    "Panel",
    "Series",
    "render_svg",
    "to_matplotlib",
    "roc_data",
    "precision_at_k_data",
    "objective_data",
    "PlottingUnavailable",
    "INSTALL_HINT",
    "require_matplotlib",
    "plot_roc",
    "roc_figure",
    "precision_at_k_curve",
    "plot_precision_at_k",
    "precision_at_k_figure",
    "objective_figure",
    "save_figure",
    "figure_bytes",
    "default_max_fp",
    "Band",
    "add_roc_bands",
    "metric_at_k_data",
    "metric_at_k_figure",
    "query_differences_data",
    "query_differences_figure",
]


def _as_pairs(curves: Mapping[str, Any], what: str, *,
              both_classes: bool = True) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Validate ``{label: (y, scores)}`` into a list of (label, y01, scores).

    ``both_classes``: an ROC curve needs a positive and a negative; precision@k
    does not (labels of one class read 1 or 0 at every k).
    """
    from .validation import check_labels_and_scores

    if not isinstance(curves, Mapping) or not curves:
        raise ValueError(f"{what}: expected a non-empty mapping of model names to (y, scores) pairs")
    out = []
    for label, pair in curves.items():
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"{what}: the value for {label!r} must be a pair (y, scores)")
        y, scores = check_labels_and_scores(pair[0], pair[1], both_classes=both_classes,
                                            what="an ROC curve" if both_classes else "precision@k")
        out.append((str(label), y, scores))
    return out


def _rows(curves: Mapping[str, Any], what: str, *, both_classes: bool = True) -> list[tuple[str | None, list]]:
    """One row per split: ``{model: (y, s)}`` is one row, ``{split: {model: (y, s)}}`` several."""
    if isinstance(curves, Mapping) and curves and all(isinstance(v, Mapping) for v in curves.values()):
        return [(str(split), _as_pairs(inner, f"{what}[{split!r}]", both_classes=both_classes))
                for split, inner in curves.items()]
    return [(None, _as_pairs(curves, what, both_classes=both_classes))]


def _whole(value: Any, name: str, low: int) -> int:
    """``value`` as a whole number >= ``low`` (an integral float too); else a ValueError naming ``name``: a count of
    false positives or places is whole, and 2.5 or True would be read as some other count."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))
            or not math.isfinite(value) or int(value) != value or value < low):
        raise ValueError(f"{name}: expected a whole number >= {low}, got {value!r}")
    return int(value)


def default_max_fp(n_negatives: int) -> int:
    """The extent of the "leftmost portion": a tenth of the negatives (at least 1)."""
    return max(1, int(math.ceil(0.1 * n_negatives)))


# --------------------------------------------------------------------------
# ROC
# --------------------------------------------------------------------------


def _cut_at(fp: np.ndarray, tp: np.ndarray, max_fp: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The curve's points up to ``max_fp`` false positives, ending on the border: a tie group's diagonal that
    crosses it is cut there (a metric reads only the points up to it; a drawing that stopped at the last of them
    left the tie's segment out of the panel, and a constant model's whole diagonal)."""
    if max_fp is None:
        return fp, tp
    inside = int(np.searchsorted(fp, max_fp, side="right"))
    if inside == fp.shape[0] or fp[inside - 1] == max_fp:
        return fp[:inside], tp[:inside]
    a, b = inside - 1, inside
    at = tp[a] + (max_fp - fp[a]) * (tp[b] - tp[a]) / (fp[b] - fp[a])
    return np.append(fp[:inside], float(max_fp)), np.append(tp[:inside].astype(np.float64), at)


def _roc_panel(pairs: list, max_fp: int | None, title: str = "") -> Panel:
    from .metrics import rmax, roc_curve

    series = []
    top = 0
    lowest_rmax = None
    for index, (label, y, scores) in enumerate(pairs):
        curve = roc_curve(y, scores)
        fp, tp = _cut_at(curve.fp, curve.tp, max_fp)
        r = int(rmax(y, scores))
        lowest_rmax = r if lowest_rmax is None else min(lowest_rmax, r)
        name = f"{label} (rmax {r})" if max_fp is not None else label
        series.append(Series(fp, tp, name, gid=f"roc:{label}", index=index))
        top = max(top, int(math.ceil(tp[-1])))
        if max_fp is None and index == 0:
            n_pos, n_neg = int(y.sum()), int(y.shape[0] - y.sum())
            series.insert(0, Series(np.array([0, n_neg]), np.array([0, n_pos]), "chance", reference=True))
    _note_coinciding(_stack_widths(series), [label for label, _, _ in pairs])
    panel = Panel(title, "false positives (count)", "true positives (count)", series, xlim=(0, None),
                  ylim=(0, None), integer_ticks=True, legend="lower right")
    if max_fp is not None:
        # zoom on where the curves differ: from a little below the lowest R_max
        # (every curve climbs straight up to its R_max at 0 false positives)
        top = max(top, 1)
        bottom = max(0, int(math.floor(lowest_rmax - 0.15 * (top - lowest_rmax))) - 1)
        panel.xlim = (0, max(max_fp, 1))
        panel.ylim = (bottom, top + max(1.0, 0.05 * (top - bottom)))
    return panel


def plot_roc(ax, curves: Mapping[str, Any], *, max_fp: int | None = None, legend: bool = True) -> list:
    """Draw ROC curves in counts on a matplotlib Axes.

    Parameters
    ----------
    ax : matplotlib Axes
    curves : mapping of str to (y, scores)
        Model name -> labels in {0, 1} and scores.
    max_fp : int, optional
        Draw only the leftmost portion: the points with at most ``max_fp``
        false positives (:func:`rankcore.metrics.roc_curve`'s ``max_fp``).
        None draws the whole curve.
    legend : bool, default True

    Returns
    -------
    list of Line2D
        One per model, in order; ``line.get_gid()`` is ``"roc:<name>"`` and
        its data are the curve's ``fp`` and ``tp`` counts.
    """
    return _draw_panel(ax, _roc_panel(_as_pairs(curves, "curves"), max_fp), legend=legend)


def roc_data(curves: Mapping[str, Any], *, max_fp: int | None = None, title: str | None = None) -> FigureData:
    """The full ROC curve and its leftmost portion, in counts, several models per panel.

    Parameters
    ----------
    curves : mapping
        ``{model: (y, scores)}`` for one row of two panels, or
        ``{split: {model: (y, scores)}}`` (e.g. ``{"train": ..., "test": ...}``)
        for one row per split.
    max_fp : int, optional
        Width of the leftmost portion in false positives; default a tenth of
        each row's negatives (:func:`default_max_fp`).
    title : str, optional

    Returns
    -------
    FigureData
        Panels alternate full curve, leftmost portion, row by row.
    """
    rows = _rows(curves, "curves")
    panels = []
    for split, pairs in rows:
        n_neg = min(int(y.shape[0] - y.sum()) for _, y, _ in pairs)
        # the zoom never reaches past the negatives: a larger count squeezed the curve against the left border
        width = default_max_fp(n_neg) if max_fp is None else min(_whole(max_fp, "max_fp", 0), max(n_neg, 1))
        prefix = f"{split}: " if split else ""
        panels.append(_roc_panel(pairs, None, f"{prefix}ROC curve (counts)"))
        panels.append(_roc_panel(pairs, width, f"{prefix}leftmost portion (at most {width} false positives)"))
    return FigureData(panels, len(rows), 2, 11.0, 4.4 * len(rows), title)


def roc_figure(curves: Mapping[str, Any], *, max_fp: int | None = None, title: str | None = None):
    """:func:`roc_data` drawn by matplotlib: ``fig.axes`` alternate full curve, leftmost portion."""
    return to_matplotlib(roc_data(curves, max_fp=max_fp, title=title))


def add_roc_bands(figure: FigureData, curves: Mapping[str, Any], *, level: float = 0.95, n_boot: int = 500,
                  random_state: Any = 0) -> FigureData:
    """Shade a bootstrap band (``rankcore.metrics.roc_band``) under each curve of :func:`roc_data`'s leftmost panels.

    ``curves`` is what the figure was made from; the figure is changed in
    place and returned.  Bands carry gid ``"roc-band:<model>"``.
    """
    from .metrics import roc_band

    if not isinstance(figure, FigureData):
        raise TypeError(f"figure: expected roc_data's FigureData, got {type(figure).__name__}")
    rows = _rows(curves, "curves")
    if 2 * len(rows) != len(figure.panels):
        raise ValueError(f"curves: {len(rows)} row(s) of curves, but the figure has {len(figure.panels) // 2}: pass "
                         "the curves roc_data drew it from")
    for row, (_, pairs) in enumerate(rows):
        panel = figure.panels[2 * row + 1]
        width = int(panel.xlim[1])
        panel.bands = [b for b in panel.bands if not (b.gid or "").startswith("roc-band:")]     # called again: anew
        for index, (label, y, scores) in enumerate(pairs):
            x, lower, upper = roc_band(y, scores, max_fp=width, level=level, n_boot=n_boot,
                                       random_state=random_state)
            panel.bands.append(Band(x, lower, upper, gid=f"roc-band:{label}", index=index))
        if panel.title.endswith("% bootstrap band"):
            panel.title = panel.title.rpartition(", ")[0]
        panel.title += f", {100 * level:g}% bootstrap band"
    return figure


# --------------------------------------------------------------------------
# precision@k
# --------------------------------------------------------------------------


def precision_at_k_curve(y: Any, scores: Any, max_k: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """prec@k for k = 1..max_k in O(n log n) for all of them.

    Ties at the k-th score get fractional credit, exactly as
    :func:`rankcore.metrics.prec_at_k` (the expected value under a random
    order of the tie): within a tie group the count of positives grows
    linearly, which is linear interpolation between the ROC curve's points
    along n = fp + tp.

    Returns
    -------
    k : ndarray of int64, shape (max_k,)
    precision : ndarray of float64, shape (max_k,)
    """
    from .metrics import roc_curve
    from .validation import check_binary_labels, check_same_length, check_scores

    y01 = check_binary_labels(y)
    s = check_scores(scores)
    check_same_length(y=y01, scores=s)
    n = y01.shape[0]
    max_k = n if max_k is None else _whole(max_k, "max_k", 1)
    if not 1 <= max_k <= n:
        raise ValueError(f"max_k: expected an integer in [1, {n}], got {max_k!r}")
    if y01.all() or not y01.any():  # one class: the ROC curve is undefined, prec@k is not
        k = np.arange(1, max_k + 1, dtype=np.int64)
        return k, np.full(max_k, float(y01[0]))
    curve = roc_curve(y01, s)
    taken = (curve.fp + curve.tp).astype(np.float64)  # examples at or above each threshold
    k = np.arange(1, max_k + 1, dtype=np.int64)
    positives = np.interp(k.astype(np.float64), taken, curve.tp.astype(np.float64))
    return k, positives / k


def _precision_panel(pairs: list, max_k: int | None, title: str = "") -> Panel:
    limit = _whole(max_k, "max_k", 1) if max_k is not None else min(y.shape[0] for _, y, _ in pairs)
    series = []
    for index, (label, y, scores) in enumerate(pairs):
        k, precision = precision_at_k_curve(y, scores, min(int(limit), y.shape[0]))
        series.append(Series(k, precision, label, gid=f"prec@k:{label}", index=index))
        if index == 0:
            base = float(y.mean())
            series.insert(0, Series(np.array([1.0, max(int(limit), 2)]), np.array([base, base]), "base rate",
                                    reference=True))
    _note_coinciding(_stack_widths(series), [label for label, _, _ in pairs])
    # headroom above 1: curves at precision 1 are drawn whole, not cut by the frame
    return Panel(title, "k (top of the list)", "precision@k", series, xlim=(1, max(int(limit), 2)),
                 ylim=(0, 1.06), legend="lower left")


def plot_precision_at_k(ax, curves: Mapping[str, Any], *, max_k: int | None = None, legend: bool = True) -> list:
    """Draw prec@k against k on an Axes; lines carry gid ``"prec@k:<name>"``."""
    return _draw_panel(ax, _precision_panel(_as_pairs(curves, "curves", both_classes=False), max_k), legend=legend)


def precision_at_k_data(curves: Mapping[str, Any], *, max_k: int | None = None,
                        title: str | None = None) -> FigureData:
    """precision@k against k, several models per panel; one panel per split.

    Parameters
    ----------
    curves : mapping
        ``{model: (y, scores)}`` or ``{split: {model: (y, scores)}}``.
    max_k : int, optional
        Largest k drawn; default: each split's number of positives times 2
        (capped at n), the region where precision@k says something.
    title : str, optional
        The figure's title.

    Returns
    -------
    FigureData
    """
    rows = _rows(curves, "curves", both_classes=False)
    panels = []
    for split, pairs in rows:
        n = min(y.shape[0] for _, y, _ in pairs)
        relevant = int(max(y.sum() for _, y, _ in pairs))
        limit = _whole(max_k, "max_k", 1) if max_k is not None else min(n, max(2, 2 * relevant))
        panels.append(_precision_panel(pairs, min(int(limit), n),
                                       f"{split}: precision@k" if split else "precision@k"))
    return FigureData(panels, 1, len(rows), 5.8 * len(rows), 4.2, title)


def precision_at_k_figure(curves: Mapping[str, Any], *, max_k: int | None = None, title: str | None = None):
    """:func:`precision_at_k_data` drawn by matplotlib."""
    return to_matplotlib(precision_at_k_data(curves, max_k=max_k, title=title))


# --------------------------------------------------------------------------
# objective per iteration
# --------------------------------------------------------------------------


def _history_items(histories: Mapping[str, Any], what: str) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Validate ``{label: values or (iterations, values)}`` into (label, x, values) triples."""
    if not isinstance(histories, Mapping) or not histories:
        raise ValueError(f"{what}: expected a non-empty mapping of model names to objective values")
    items = []
    for label, values in histories.items():
        # A pair of arrays is (iterations, values); a pair of numbers is a history of two values.
        if isinstance(values, tuple) and len(values) == 2 and all(np.ndim(v) >= 1 for v in values):
            x = np.asarray(values[0], dtype=np.float64).reshape(-1)
            arr = np.asarray(values[1], dtype=np.float64).reshape(-1)
            if x.shape != arr.shape:
                raise ValueError(f"{what}[{label!r}]: iterations and values differ in length "
                                 f"({x.shape[0]} and {arr.shape[0]})")
        else:
            arr = np.asarray(values, dtype=np.float64).reshape(-1)
            x = np.arange(arr.size, dtype=np.float64)
        if arr.size == 0:
            raise ValueError(f"{what}[{label!r}]: expected at least one value")
        items.append((str(label), x, arr))
    return items


def _line_panel(title: str, xlabel: str, ylabel: str, x: np.ndarray, values: np.ndarray, gid: str,
                index: int) -> Panel:
    finite = np.isfinite(values)
    series = [Series(x[finite], values[finite], title, gid=gid, index=index, width=_BASE_WIDTH + _WIDTH_STEP)]
    whole = bool(np.all(np.isfinite(x) & (x == np.round(x))))        # iterations, epochs, rounds
    return Panel(title, xlabel, ylabel, series, integer_x=whole)


def objective_data(histories: Mapping[str, Any], *, ylabel: str | Mapping[str, str] = "training objective",
                   xlabel: str | Mapping[str, str] = "iteration", title: str | None = None,
                   columns: int | None = None, held_out: Mapping[str, Any] | None = None,
                   held_out_label: str | Mapping[str, str] = "held-out metric") -> FigureData:
    """The training objective after each iteration, one panel per model; beside it the held-out metric.

    Parameters
    ----------
    histories : mapping of str to array-like or to (iterations, values)
        Model name -> objective values, entry t after t iterations (entry 0
        before the first), e.g. PushBoost's ``objective_values_``; or a tuple
        of two arrays when the iterations are numbered otherwise (epochs
        1..T).  A tuple of two numbers is a history of two values.
    ylabel, xlabel : str or mapping of str to str
        The axis labels, or one per model.
    title : str, optional
        The figure's title.
    columns : int, optional
        Panels per row without ``held_out`` (default: one or two).
    held_out : mapping of str to (iterations, values), optional
        Model name -> a metric on held-out data after each iteration (e.g.
        PushBoost's ``validation_scores_`` with ``eval_set``).  Then each
        model is one row: its training objective on the left, the held-out
        metric on the right -- the one that says whether more iterations
        help (a training objective keeps falling long after).
    held_out_label : str or mapping of str to str
        The held-out metric's name (``"test auc"``), or one per model.

    Returns
    -------
    FigureData
        The objective lines have gid ``"objective:<name>"``, the held-out
        ones ``"held-out:<name>"``.
    """
    items = _history_items(histories, "histories")
    extra = {label: (x, v) for label, x, v in _history_items(held_out, "held_out")} if held_out else {}
    panels = []
    for index, (label, x, arr) in enumerate(items):
        unit = xlabel.get(label, "iteration") if isinstance(xlabel, Mapping) else xlabel
        panels.append(_line_panel(
            label, unit, ylabel.get(label, "training objective") if isinstance(ylabel, Mapping) else ylabel,
            x, arr, f"objective:{label}", index))
        if extra:
            hx, hv = extra.get(label, (np.empty(0), np.empty(0)))
            what = held_out_label.get(label, "held-out metric") if isinstance(held_out_label, Mapping) \
                else held_out_label
            panels.append(_line_panel(f"{label}: {what}" if label in extra else f"{label}: no "
                                      "held-out record per iteration", unit, what, hx, hv,
                                      f"held-out:{label}", index))
    if extra:
        cols = 2
    else:
        cols = max(1, min(int(columns) if columns is not None else 2, len(items)))
    rows = int(math.ceil(len(panels) / cols))
    # 5.5 in (550 px) a panel: readable at full size in a report
    return FigureData(panels, rows, cols, 5.5 * cols, 3.3 * rows, title)


def objective_figure(histories: Mapping[str, Any], *, ylabel: str | Mapping[str, str] = "training objective",
                     xlabel: str | Mapping[str, str] = "iteration", title: str | None = None,
                     columns: int | None = None, held_out: Mapping[str, Any] | None = None,
                     held_out_label: str | Mapping[str, str] = "held-out metric"):
    """:func:`objective_data` drawn by matplotlib (unused panels hidden)."""
    return to_matplotlib(objective_data(histories, ylabel=ylabel, xlabel=xlabel, title=title, columns=columns,
                                        held_out=held_out, held_out_label=held_out_label))


# --------------------------------------------------------------------------
# saving
# --------------------------------------------------------------------------


def _format_of(path: str, fmt: str | None) -> str:
    if fmt is None:
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext not in _FORMATS:
            raise ValueError(f"path {path!r}: expected a .png, .svg or .pdf file name (or format=)")
        fmt = ext
    if isinstance(fmt, str):
        fmt = fmt.lower()                          # as the extension's case: "SVG" is svg
    if fmt not in _FORMATS:
        raise ValueError(f"format: expected one of {', '.join(_FORMATS)}, got {fmt!r}")
    return fmt


def _metadata(fmt: str) -> dict:
    from . import __version__

    creator = f"rankcore {__version__}"
    if fmt == "png":
        return {"Software": creator}
    if fmt == "svg":
        return {"Creator": creator, "Date": None}
    return {"Creator": creator, "Producer": creator, "CreationDate": None, "ModDate": None}


def figure_bytes(fig, fmt: str = "png") -> bytes:
    """The figure encoded as PNG, SVG or PDF, deterministically (see :func:`save_figure`).

    ``fig`` is a :class:`FigureData` (SVG by rankcore's own writer, PNG and
    PDF through matplotlib) or a matplotlib ``Figure``.
    """
    fmt = _format_of("", fmt)
    if not isinstance(fig, FigureData) and not hasattr(fig, "savefig"):
        raise TypeError(f"fig: expected a rankcore.plotting.FigureData or a matplotlib Figure, got "
                        f"{type(fig).__name__}")
    if isinstance(fig, FigureData):
        if fmt == "svg":
            return render_svg(fig).encode("utf-8")
        fig = to_matplotlib(fig)
    buffer = io.BytesIO()
    with _style():
        fig.savefig(buffer, format=fmt, metadata=_metadata(fmt), dpi=_DPI)
    return buffer.getvalue()


def save_figure(fig, path: str | os.PathLike, *, format: str | None = None) -> str:
    """Save a figure as PNG, SVG or PDF with fixed metadata (no dates, fixed SVG ids).

    Saving the same figure twice, or rebuilding it from the same data,
    gives the same bytes.

    Parameters
    ----------
    fig : FigureData or matplotlib Figure
        A :class:`FigureData` as SVG needs nothing but rankcore; PNG, PDF and
        matplotlib figures need matplotlib.
    path : str or path-like
        The format comes from the extension unless ``format`` is given.
    format : {"png", "svg", "pdf"}, optional

    Returns
    -------
    str
        The path written.
    """
    target = os.fsdecode(os.fspath(path))           # a bytes path too
    data = figure_bytes(fig, _format_of(target, format))
    from .persistence import atomic_output

    # a file is replaced whole (a failed write leaves the earlier figure); a stream (/dev/stdout under `>>`) is
    # appended to
    with atomic_output(target, binary=True) as fh:
        fh.write(data)
    return target
