"""Self-contained HTML reports of a comparison: table, figures, exact settings and versions.

One file, no external resources: figures are embedded as ``data:`` URIs (SVG,
so they stay sharp), styles are inline, nothing is fetched when the page is
opened.  Everything needed to repeat the run is written down: the command
line, the data file's SHA-256, the split, every estimator's full parameter
set, and the versions of Python, rankcore, its dependencies and every plugin
distribution that was loaded.  The page has no timestamp: apart from the fit
times it records, the same run gives the same page.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import os
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Sequence

__all__ = ["Report", "render_report", "write_report", "environment_versions", "file_sha256", "format_value"]

_DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "pluggy", "matplotlib")


@dataclass
class Report:
    """What a report shows.

    Attributes
    ----------
    title : str
    command : str
        The command line that produced the run.
    data : list of (str, str)
        Facts about the data (file, checksum, rows, split...).
    columns, rows : list
        The result table.
    figures : list of (caption, svg bytes)
    models : list of dict
        One per model: ``label``, ``estimator`` (class name), ``params``
        (every parameter), ``fit_seconds``.
    settings : dict
        Other options of the run (metrics, split seed, ...).
    notes : list of str
    tables : list of (title, columns, rows)
        More result tables, shown under the first (confidence intervals...).
    """

    title: str
    command: str
    data: list[tuple[str, str]]
    columns: list[str]
    rows: list[list[Any]]
    figures: list[tuple[str, bytes]] = field(default_factory=list)
    models: list[dict] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    versions: dict[str, str] | None = None
    tables: list[tuple[str, list[str], list[list[Any]]]] = field(default_factory=list)


def file_sha256(path: str) -> str:
    """SHA-256 of a file's bytes (identifies the exact data used)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_NOT_INSTALLED = "not installed"


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return _NOT_INSTALLED


def environment_versions() -> dict[str, str]:
    """Python, platform, rankcore, its dependencies and every loaded plugin distribution."""
    import warnings

    from .. import __version__
    from ..registry import registry

    versions = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "rankcore": __version__,
    }
    for name in _DEPENDENCIES:
        versions[name] = _version(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        reg = registry()
    # an entry point's provider reads "Name version" (a runtime plugin's, whatever it was registered with)
    distributions = sorted({e.distribution for e in reg.all_entries()} - {"rankcore"})
    for dist in distributions:
        name, _, version = dist.partition(" ")
        installed = _version(name)
        versions[f"plugin {name}"] = installed if installed != _NOT_INSTALLED or not version else version
    return versions


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; vertical-align: top; }
th { background: #f4f4f4; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.9em; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.9em; }
img { max-width: 100%; height: auto; }
"""


def format_value(value: Any) -> str:
    """A table cell: integers as is, floats with 4 decimals (or 4 significant digits if tiny/huge)."""
    import math

    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
            return f"{v:.4g}"
        return f"{v:.4f}"
    return str(value)


def _cell(value: Any) -> str:
    text = html.escape(format_value(value))
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool) or hasattr(value, "dtype")
    return f'<td class="num">{text}</td>' if numeric else f"<td>{text}</td>"


def _kv_table(pairs: Sequence[tuple[str, Any]]) -> str:
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in pairs)
    return f"<table>{rows}</table>"


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, default=repr)


def render_report(report: Report) -> str:
    """The report as one HTML string."""
    from ._stdin import shown

    # data read from `-` is "standard input" in the facts, not its temporary copy (its sha256 stays the bytes')
    report = dataclasses.replace(report, title=shown(report.title), notes=[shown(n) for n in report.notes],
                                 data=[(key, shown(value)) for key, value in report.data])
    versions = report.versions if report.versions is not None else environment_versions()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(report.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(report.title)}</h1>",
        "<h2>Command</h2>",
        f"<pre>{html.escape(report.command)}</pre>",
        "<h2>Data</h2>",
        _kv_table(report.data),
        "<h2>Results</h2>",
        "<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in report.columns) + "</tr>",
    ]
    for row in report.rows:
        parts.append("<tr>" + "".join(_cell(v) for v in row) + "</tr>")
    parts.append("</table>")
    for title, columns, rows in report.tables:
        parts.append(f"<h3>{html.escape(title)}</h3>")
        parts.append("<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr>")
        parts.extend("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
        parts.append("</table>")
    for note in report.notes:
        parts.append(f"<p>{html.escape(note)}</p>")
    if report.figures:
        parts.append("<h2>Figures</h2>")
        for caption, svg in report.figures:
            uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
            parts.append(f'<figure><img alt="{html.escape(caption.splitlines()[0])}" src="{uri}">'
                         f"<figcaption>{'<br>'.join(map(html.escape, caption.splitlines()))}</figcaption></figure>")
    parts.append("<h2>Models and their exact parameters</h2>")
    for model in report.models:
        head = f"{model['label']} — {model['estimator']}"
        if model.get("fit_seconds") is not None:
            head += f" (fitted in {model['fit_seconds']:.2f} s)"
        parts.append(f"<h3>{html.escape(head)}</h3>")
        parts.append(f"<pre>{html.escape(_json(model['params']))}</pre>")
    if report.settings:
        parts.append("<h2>Settings</h2>")
        parts.append(_kv_table([(k, v if isinstance(v, str) else _json(v)) for k, v in report.settings.items()]))
    parts.append("<h2>Versions</h2>")
    parts.append(_kv_table(list(versions.items())))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(report: Report, path: str | os.PathLike) -> str:
    """Write :func:`render_report`'s page to ``path`` (``-``: standard output; a stream is appended to); returns
    the path."""
    from ._outputs import output_file

    target = os.fspath(path)
    with output_file(target) as fh:
        fh.write(render_report(report))
    return target
