"""A small SVG writer for rankcore's line figures: no dependency, the same bytes every time.

It draws a :class:`rankcore.plotting.FigureData` -- a grid of panels, each with
lines, axis labels, limits and an optional legend -- as one standalone SVG
document.  This is what makes the figures of ``rankcore demo`` and ``rankcore
compare`` (and the HTML report's inline figures) work on a plain ``pip install``
without matplotlib; matplotlib is only needed for PNG and PDF.

Design
------
A. Only what our figures use: straight polylines, linear axes with "nice"
   ticks (steps 1, 2, 2.5, 5 x 10^k; integers only when the panel says so),
   a grid, titles, axis labels and a legend box.  No text measurement: widths
   are estimated from the character count (``_CHAR_EM`` em per character),
   which is enough to place tick labels, the y label and the legend box.
B. Lines are clipped to the plot box (``clipPath``) so zoomed panels (the
   leftmost portion of an ROC curve) simply cut the curve at the border.
C. Pixel coordinates are written with one decimal and consecutive duplicates
   are dropped: a monotone curve of a million points becomes at most a few
   thousand SVG points, the picture does not change.
D. Deterministic: no dates, no random ids (clip ids are numbered by panel).

Time O(total points); memory O(total points) for the output text.
"""

from __future__ import annotations

import math
from typing import Sequence
import re
import sys
from xml.sax.saxutils import escape as _xml_escape
from xml.sax.saxutils import quoteattr as _xml_quoteattr

import numpy as np

__all__ = ["render_svg", "nice_ticks", "tick_labels", "PALETTE", "DASHES"]

PX_PER_INCH = 100
FONT_FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"
# matplotlib's default ("tab10") colours and its four line styles, so PNG and SVG look alike
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
# one dash pattern per series (with the colour), so that curves that coincide stay
# visible: the first is drawn widest and solid, each later one narrower and dashed on top
DASHES = (None, "8 3", "2 2.5", "8 3 2 3", "14 4", "4 2 1 2")
_CHAR_EM = 0.6          # average advance of a sans-serif character, in ems
_TICK_FONT = 11
_LABEL_FONT = 12
_TITLE_FONT = 13
_SUPTITLE_FONT = 15
_LEGEND_FONT = 11


def _text_width(text: str, size: float) -> float:
    return len(text) * size * _CHAR_EM


def nice_ticks(lo: float, hi: float, count: int, *, integer: bool = False) -> tuple[list[float], float]:
    """About ``count`` round tick positions covering [lo, hi], and their step.

    Steps are 1, 2, 2.5 or 5 times a power of ten (2.5 and fractions excluded
    when ``integer``), the ticks are the step's multiples inside [lo, hi].
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        raise ValueError(f"nice_ticks: expected finite lo < hi, got {lo!r} and {hi!r}")
    raw = _span(lo, hi) / max(int(count), 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    multiples = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * magnitude for m in multiples if m * magnitude >= raw * (1 - 1e-9))
    if integer:
        step = max(1.0, float(round(step)))
    # The multiples' range from quotients: hi + step·1e-9 rounds to inf next to the largest double.
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [0.0 if k == 0 else k * step for k in range(first, last + 1)], step


def _span(lo: float, hi: float) -> float:
    """hi − lo, or the largest double where that overflows (an axis from −1e308 to 1e308 spans 2e308).

    The cap halves the span the ticks are counted over, so such an axis gets up to twice its ticks.
    """
    span = float(hi) - float(lo)          # Python floats: an overflow is inf, without a warning
    return span if math.isfinite(span) else sys.float_info.max


def _scale(v, lo: float, hi: float) -> np.ndarray:
    """(v − lo) / (hi − lo) in [0, 1] for v in [lo, hi], in halves so that no difference overflows."""
    return (np.asarray(v, dtype=float) / 2.0 - lo / 2.0) / (hi / 2.0 - lo / 2.0)


def tick_labels(ticks: Sequence[float], step: float) -> list[str]:
    """Labels with just enough digits to tell the ticks apart (exponent form for huge or tiny values)."""
    if not ticks:
        return []
    mantissa = step / 10.0 ** math.floor(math.log10(step))
    extra = 1 if abs(mantissa - 2.5) < 1e-6 else 0
    biggest = max(abs(t) for t in ticks)
    if biggest >= 1e6 or biggest < 1e-3:
        significant = max(1, math.floor(math.log10(biggest or step)) - math.floor(math.log10(step)) + 1 + extra)
        return [f"{t:.{significant}g}" for t in ticks]
    decimals = max(0, -math.floor(math.log10(step)) + extra)
    return [f"{t:.{decimals}f}" for t in ticks]


def _limits(fixed: tuple, arrays: list[np.ndarray]) -> tuple[float, float]:
    """The axis range: the fixed ends, the others from the data plus a 4% margin."""
    values = [a[np.isfinite(a)] for a in arrays]
    values = [v for v in values if v.size]
    data_lo = min(float(v.min()) for v in values) if values else 0.0
    data_hi = max(float(v.max()) for v in values) if values else 1.0
    lo, hi = fixed
    span = _span(data_lo, data_hi) if data_hi > data_lo else 0.0
    if not span > 1e-300:      # a constant, or a span of subnormals (no tick can step it: log10 of 0)
        span = max(abs(data_hi), 1.0) * 0.1
    # The margins stop at the largest double: values near ±1e308 still get an axis with finite ends.
    largest = sys.float_info.max
    lo = max(data_lo - 0.04 * span, -largest) if lo is None else float(lo)
    hi = min(data_hi + 0.04 * span, largest) if hi is None else float(hi)
    if hi <= lo:
        hi = min(lo + max(abs(lo), 1.0) * 0.1, largest)
    return lo, hi


#: Characters XML 1.0 cannot hold, even escaped (controls, lone surrogates, U+FFFE/U+FFFF): a model or file
#: name holding one would make an SVG no parser reads, or fail to encode after every model is trained.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    """``text`` for an XML text node: markup escaped, characters XML cannot hold as U+FFFD."""
    return _xml_escape(_NOT_XML.sub("\ufffd", text))


def quoteattr(text: str) -> str:
    """``text`` as a quoted XML attribute value, characters XML cannot hold as U+FFFD."""
    return _xml_quoteattr(_NOT_XML.sub("\ufffd", text))


def _attr(value: float) -> str:
    return f"{value:.1f}"


def _text(x: float, y: float, text: str, size: float, *, anchor: str = "middle", extra: str = "") -> str:
    return (f'<text x="{_attr(x)}" y="{_attr(y)}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{escape(text)}</text>")


_GRID = 'stroke="#e6e6e6" stroke-width="0.8"'    # grid lines
_TICK = 'stroke="#333333" stroke-width="0.8"'    # tick marks (and the frame's colour)


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str) -> str:
    """A ``<line>`` from (x1, y1) to (x2, y2) with the given stroke attributes."""
    return f'<line x1="{_attr(x1)}" y1="{_attr(y1)}" x2="{_attr(x2)}" y2="{_attr(y2)}" {stroke}/>'


def _stroke(series) -> str:
    if series.reference:
        return 'stroke="#999999" stroke-width="0.8" stroke-dasharray="1.5 2.5"'
    colour = PALETTE[series.index % len(PALETTE)]
    dash = DASHES[series.index % len(DASHES)]
    out = f'stroke="{colour}" stroke-width="{series.width:g}"'
    return out + (f' stroke-dasharray="{dash}"' if dash else "")


def _points(xs: np.ndarray, ys: np.ndarray) -> str:
    keep = np.isfinite(xs) & np.isfinite(ys)
    pairs = [f"{x:.1f},{y:.1f}" for x, y in zip(xs[keep], ys[keep])]
    out = [p for i, p in enumerate(pairs) if i == 0 or p != pairs[i - 1]]  # Design C
    return " ".join(out)


def _panel(panel, number: int, x0: float, y0: float, width: float, height: float) -> list[str]:
    drawn = panel.series
    xlo, xhi = _limits(panel.xlim, [np.asarray(s.x, dtype=float) for s in drawn])
    ylo, yhi = _limits(panel.ylim, [np.asarray(s.y, dtype=float) for s in drawn])
    top = y0 + (30 if panel.title else 12)
    bottom = y0 + height - 46
    yticks, ystep = nice_ticks(ylo, yhi, max(2, int((bottom - top) / 45)), integer=panel.integer_ticks)
    ylabels = tick_labels(yticks, ystep)
    label_width = max((_text_width(t, _TICK_FONT) for t in ylabels), default=0.0)
    left = x0 + 22 + label_width + 10
    right = x0 + width - 16
    xticks, xstep = nice_ticks(xlo, xhi, max(2, int((right - left) / 80)),
                               integer=panel.integer_ticks or getattr(panel, "integer_x", False))
    xlabels = tick_labels(xticks, xstep)

    def sx(v):
        return left + _scale(v, xlo, xhi) * (right - left)

    def sy(v):
        return bottom - _scale(v, ylo, yhi) * (bottom - top)

    out = [f'<g class="panel" data-panel="{number}">']
    clip = f"rc-clip-{number}"
    out.append(f'<clipPath id="{clip}"><rect x="{_attr(left)}" y="{_attr(top)}" '
               f'width="{_attr(right - left)}" height="{_attr(bottom - top)}"/></clipPath>')
    # grid and ticks
    for tick, label in zip(xticks, xlabels):
        x = float(sx(tick))
        out.append(_line(x, top, x, bottom, _GRID))
        out.append(_line(x, bottom, x, bottom + 4, _TICK))
        out.append(_text(x, bottom + 17, label, _TICK_FONT, extra=' class="xtick"'))
    for tick, label in zip(yticks, ylabels):
        y = float(sy(tick))
        out.append(_line(left, y, right, y, _GRID))
        out.append(_line(left - 4, y, left, y, _TICK))
        out.append(_text(left - 7, y + 4, label, _TICK_FONT, anchor="end", extra=' class="ytick"'))
    # the lines, reference lines first (underneath)
    for band in panel.bands:  # shaded intervals under the lines
        outline = np.r_[sx(band.x), sx(band.x)[::-1]], np.r_[sy(band.upper), sy(band.lower)[::-1]]
        gid = f" data-band={quoteattr(band.gid)}" if band.gid else ""
        out.append(f'<polygon{gid} clip-path="url(#{clip})" fill="{PALETTE[band.index % len(PALETTE)]}" '
                   f'fill-opacity="0.18" stroke="none" points="{_points(*outline)}"/>')
    out.append(f'<g clip-path="url(#{clip})" fill="none" stroke-linejoin="round">')
    for series in sorted(drawn, key=lambda s: not s.reference):
        gid = f" data-series={quoteattr(series.gid)}" if series.gid else ""
        out.append(f'<polyline{gid} {_stroke(series)} points="{_points(sx(series.x), sy(series.y))}"/>')
        if len(series.x) == 1 and not series.reference:   # one point draws no line: a dot, or the panel looks empty
            colour = PALETTE[series.index % len(PALETTE)]
            out.append(f'<circle cx="{_attr(sx(series.x)[0])}" cy="{_attr(sy(series.y)[0])}" r="3" '
                       f'fill="{colour}" stroke="none"/>')
    out.append("</g>")
    out.append(f'<rect class="frame" x="{_attr(left)}" y="{_attr(top)}" width="{_attr(right - left)}" '
               f'height="{_attr(bottom - top)}" fill="none" stroke="#333333" stroke-width="0.8"/>')
    # titles and labels
    if panel.title:
        out.append(_text((left + right) / 2, y0 + 20, panel.title, _TITLE_FONT, extra=' class="title"'))
    out.append(_text((left + right) / 2, bottom + 36, panel.xlabel, _LABEL_FONT, extra=' class="xlabel"'))
    ly = (top + bottom) / 2
    out.append(_text(x0 + 16, ly, panel.ylabel, _LABEL_FONT,
                     extra=f' class="ylabel" transform="rotate(-90 {_attr(x0 + 16)} {_attr(ly)})"'))
    out.extend(_legend(panel, left, top, right, bottom))
    out.append("</g>")
    return out


def _legend(panel, left: float, top: float, right: float, bottom: float) -> list[str]:
    entries = [s for s in panel.series if not s.reference]
    if not panel.legend or not entries:
        return []
    line_height = _LEGEND_FONT + 5
    width = 8 + 24 + 6 + max(_text_width(s.label, _LEGEND_FONT) for s in entries) + 8
    height = 6 + line_height * len(entries)
    x = left + 8 if panel.legend.endswith("left") else right - width - 8
    y = bottom - height - 8 if panel.legend.startswith("lower") else top + 8
    out = [f'<g class="legend"><rect x="{_attr(x)}" y="{_attr(y)}" width="{_attr(width)}" '
           f'height="{_attr(height)}" rx="3" fill="white" fill-opacity="0.85" stroke="#cccccc"/>']
    for i, series in enumerate(entries):
        yy = y + 3 + line_height * (i + 0.5)
        out.append(_line(x + 8, yy, x + 32, yy, _stroke(series)))
        out.append(_text(x + 38, yy + 4, series.label, _LEGEND_FONT, anchor="start"))
    out.append("</g>")
    return out


def render_svg(figure) -> str:
    """A :class:`rankcore.plotting.FigureData` as a standalone SVG document (a str).

    Time and memory O(total number of points).
    """
    width = round(figure.width * PX_PER_INCH)
    height = round(figure.height * PX_PER_INCH)
    head = 36 if figure.title else 0
    cell_w = width / figure.columns
    cell_h = (height - head) / figure.rows
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family={quoteattr(FONT_FAMILY)} fill="#222222">',
        '<rect width="100%" height="100%" fill="white"/>',
    ]
    if figure.title:
        parts.append(_text(width / 2, 24, figure.title, _SUPTITLE_FONT, extra=' class="suptitle"'))
    for number, panel in enumerate(figure.panels):
        row, column = divmod(number, figure.columns)
        parts.extend(_panel(panel, number, column * cell_w, head + row * cell_h, cell_w, cell_h))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
