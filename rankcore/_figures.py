"""How a figure is described and drawn: panels of exact points, rendered as SVG or by matplotlib.

:mod:`rankcore.plotting` builds the figures of rankings (ROC, precision@k, the
objective) and :mod:`rankcore._query_figures` those within queries, both on
the classes and drawing helpers here, which know nothing of rankings.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass, field

import numpy as np

INSTALL_HINT = 'pip install "rankcore[plot]"'
_DPI = 100
# Fixed rendering settings: a user's matplotlibrc does not change our pictures,
# and SVG ids come from a fixed salt instead of a random one.
_RC = {
    "svg.hashsalt": "rankcore",
    "svg.fonttype": "path",
    "pdf.compression": 6,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": "small",
    "figure.dpi": _DPI,
    "savefig.dpi": _DPI,
}
#: Width of the last curve of a panel; each earlier one is drawn wider by _WIDTH_STEP, underneath,
#: so that where curves coincide every colour still shows (see :func:`_stack_widths`).
_BASE_WIDTH = 1.3
_WIDTH_STEP = 0.9
#: At most this much wider than the last curve, however many there are.
_MAX_EXTRA_WIDTH = 4.5


class PlottingUnavailable(ImportError):
    """matplotlib is not installed; the message says how to install it."""


def require_matplotlib():
    """Import matplotlib (without pyplot) or raise :class:`PlottingUnavailable`.

    Returns
    -------
    module
        The ``matplotlib`` package.
    """
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError as exc:
        raise PlottingUnavailable(
            f"plotting needs matplotlib, which is not installed ({exc}); install it with: {INSTALL_HINT}"
        ) from None
    return matplotlib


def _new_figure(width: float, height: float):
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with _style():
        fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


@contextlib.contextmanager
def _style():
    """matplotlib's default style plus ours, whatever the user's matplotlibrc says."""
    import matplotlib
    import matplotlib.style

    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        yield


def _freeze_layout(fig):
    """Lay the figure out once, then fix it: every later save sees the same geometry.

    (The constrained layout is recomputed at each draw and is not idempotent,
    so a figure saved as PNG and then as SVG would otherwise differ slightly.)
    """
    with _style():
        fig.canvas.draw()
    fig.set_layout_engine("none")
    return fig


def _line_style(index: int, width: float) -> dict:
    """The colour and dash pattern of the SVG writer, for matplotlib (dash lengths in pixels there too)."""
    from ._svg import DASHES, PALETTE

    dash = DASHES[index % len(DASHES)]
    style = "-" if dash is None else (0, tuple(float(v) / width for v in dash.split()))
    return {"color": PALETTE[index % len(PALETTE)], "linestyle": style}


def _stack_widths(series: list["Series"]) -> list["Series"]:
    """Widest first: curve k of n (not counting reference lines) gets _BASE_WIDTH + (n − 1 − k)·step.

    Drawn in order, a later (narrower, dashed) curve lies on top of an
    earlier one, so two curves that coincide show both colours instead of one.
    The step is _WIDTH_STEP, smaller with many curves so that the widest stays
    within _MAX_EXTRA_WIDTH of the narrowest (a compare of 40 models drew a
    36-pixel band).
    """
    drawn = [s for s in series if not s.reference]
    step = min(_WIDTH_STEP, _MAX_EXTRA_WIDTH / max(1, len(drawn) - 1))
    for k, item in enumerate(drawn):
        item.width = _BASE_WIDTH + (len(drawn) - 1 - k) * step
    return series


def _note_coinciding(series: list["Series"], names: list[str]) -> list["Series"]:
    """Say in the legend when a curve is exactly an earlier one: ``B (= A)``.

    ``names`` are the models' names, in the order of the non-reference series.
    """
    drawn = [s for s in series if not s.reference]
    for k, item in enumerate(drawn):
        same = [names[j] for j in range(k) if np.array_equal(drawn[j].x, item.x) and np.array_equal(drawn[j].y, item.y)]
        if same:
            item.label = f"{item.label} (= {same[0]})"
    return series


# --------------------------------------------------------------------------
# What a figure shows, independent of how it is drawn
# --------------------------------------------------------------------------


@dataclass
class Series:
    """One line of a panel.

    ``gid`` names it for tests and tools (``"roc:<model>"``): matplotlib's
    ``Line2D.get_gid()`` and the SVG polyline's ``data-series`` attribute.
    ``index`` picks the colour and dash; a ``reference`` line (chance, base
    rate) is thin, grey, dotted and not in the legend.
    """

    x: np.ndarray
    y: np.ndarray
    label: str
    gid: str | None = None
    index: int = 0
    width: float = 1.4
    reference: bool = False


@dataclass
class Band:
    """A shaded band between two lines (a bootstrap interval), in its series' colour.

    ``gid`` names it (``"roc-band:<model>"``): the SVG polygon's ``data-band``
    attribute and the matplotlib ``PolyCollection``'s gid.
    """

    x: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    gid: str | None = None
    index: int = 0


@dataclass
class Panel:
    """One plot: its lines, labels, axis limits (None ends follow the data) and legend place."""

    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    xlim: tuple[float | None, float | None] = (None, None)
    ylim: tuple[float | None, float | None] = (None, None)
    integer_ticks: bool = False
    integer_x: bool = False     # whole ticks on the x axis alone (iterations: no "iteration 1.5")
    legend: str | None = None  # "lower right", "upper right", "lower left", "upper left" or None
    bands: list[Band] = field(default_factory=list)


@dataclass
class FigureData:
    """A grid of panels (row by row), its size in inches (at 100 pixels per inch) and a title.

    Drawn by :func:`render_svg` (no dependency) or :func:`to_matplotlib`.
    """

    panels: list[Panel]
    rows: int
    columns: int
    width: float
    height: float
    title: str | None = None


def render_svg(figure: FigureData) -> str:
    """The figure as a standalone SVG document, written by rankcore itself (no matplotlib)."""
    from ._svg import render_svg as _render

    if not isinstance(figure, FigureData):
        raise TypeError(f"figure: expected a rankcore.plotting.FigureData, got {type(figure).__name__}")
    return _render(figure)


#: Each drawn line's name as written: matplotlib's own label of an empty name is "_child1", and its legend search
#: leaves out a name starting with "_" (an earlier plot_roc's "_base" on the same Axes).
_NAMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _draw_panel(ax, panel: Panel, legend: bool = True) -> list:
    """Draw a panel on a matplotlib Axes; returns the (non-reference) lines."""
    lines = []
    for band in panel.bands:
        patch = ax.fill_between(band.x, band.lower, band.upper, color=_line_style(band.index, 1.0)["color"],
                                alpha=0.18, linewidth=0)
        patch.set_gid(band.gid)
    for series in panel.series:
        if series.reference:
            ax.plot(series.x, series.y, color="0.6", linewidth=0.8, linestyle=":", label=f"_{series.label}")
            continue
        dot = {"marker": "o", "markersize": 4} if len(series.x) == 1 else {}     # one point draws no line
        (line,) = ax.plot(series.x, series.y, label=series.label, linewidth=series.width,
                          **_line_style(series.index, series.width), **dot)
        line.set_gid(series.gid)
        _NAMES[line] = series.label
        lines.append(line)
    # names are drawn as written: matplotlib reads "$5 to $10" as mathematics (printing "5to10")
    ax.set_xlabel(panel.xlabel, parse_math=False)
    ax.set_ylabel(panel.ylabel, parse_math=False)
    if panel.title:
        ax.set_title(panel.title, parse_math=False)
    if panel.integer_ticks or panel.integer_x:
        from matplotlib.ticker import MaxNLocator

        # min_n_ticks=1: below two whole numbers in view (one iteration) matplotlib's default falls back to
        # fractional ticks ("-0.06 ... 0.06"); one whole tick is what the SVG draws
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        if panel.integer_ticks:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    if panel.xlim != (None, None):
        ax.set_xlim(*panel.xlim)
    if panel.ylim != (None, None):
        ax.set_ylim(*panel.ylim)
    if legend and panel.legend and lines:
        _legend(ax, lines, panel.legend)
    return lines


def _legend(ax, lines: list, loc: str):
    """The legend of ``lines``, every name as written.

    The lines are given to matplotlib by hand: asked to find them itself, it
    leaves out every line whose name starts with "_" (a model named "_base"
    had no legend entry), and it reads text between two "$" as mathematics.
    """
    ours = {id(line) for line in lines}
    # an Axes of the caller's (plot_roc) keeps the entries of its own lines, before ours; the lines of an earlier
    # call keep theirs too, under their names as written (matplotlib's own search drops a name starting with "_")
    theirs = [(h, n) for h, n in zip(*ax.get_legend_handles_labels()) if h not in _NAMES]
    theirs += [(line, _NAMES[line]) for line in ax.get_lines() if line in _NAMES and id(line) not in ours]
    box = ax.legend([h for h, _ in theirs] + lines, [n for _, n in theirs] + [_NAMES[line] for line in lines],
                    loc=loc)
    for text in box.get_texts():
        text.set_parse_math(False)
    return box


def to_matplotlib(figure: FigureData):
    """The figure as a matplotlib ``Figure`` (needs the ``rankcore[plot]`` extra)."""
    fig = _new_figure(figure.width, figure.height)
    with _style():
        axes = fig.subplots(figure.rows, figure.columns, squeeze=False).ravel()
        for ax, panel in zip(axes, figure.panels):
            _draw_panel(ax, panel)
        for ax in axes[len(figure.panels):]:
            ax.set_visible(False)
        if figure.title:
            fig.suptitle(figure.title, parse_math=False)
    return _freeze_layout(fig)

