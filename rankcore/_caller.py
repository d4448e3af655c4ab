"""Where a warning should point: the first frame outside rankcore, the user's own line.

A warning raised deep in a fit (the boosting driver, a kernel's wrapper)
with a fixed ``stacklevel`` points at whichever rankcore file sits that many
frames up, which depends on the path the call took (decorators, Dask,
AutoRanker's candidates).  :func:`outside_stacklevel` counts the frames.
"""

from __future__ import annotations

import os
import sys

__all__ = ["outside_stacklevel"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def outside_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by the caller of this function: its first frame outside rankcore.

    Returns
    -------
    int
        1 for the caller itself, 2 for its caller, ... (the whole stack's
        depth when every frame is rankcore's: the command line's entry point).
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        if frame.f_back is None:
            return level
        frame = frame.f_back
        level += 1
    return level
