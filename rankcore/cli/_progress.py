"""The command line's progress options (the display itself is :mod:`rankcore._progress`)."""

from __future__ import annotations

from .._progress import MODES


def add_progress_options(parser) -> None:
    group = parser.add_argument_group("progress")
    group.add_argument("--quiet", "-q", action="store_true",
                       help="no progress and no status messages (results only)")
    group.add_argument("--progress", choices=MODES, default="auto",
                       help="progress display: a bar in a terminal, plain lines otherwise (auto, the default), "
                            "or forced bar / lines / none")
