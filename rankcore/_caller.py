"""Where a warning should point: the first frame outside rankcore, the user's own line.

A warning raised deep in a fit (the boosting driver, a kernel's wrapper)
with a fixed ``stacklevel`` points at whichever rankcore file sits that many
frames up, which depends on the path the call took (decorators, Dask,
AutoRanker's candidates).  :func:`outside_stacklevel` counts the frames.  A warning held and said again
(``warnings.warn_explicit``) keeps its module by :func:`module_of_file`.
"""

from __future__ import annotations

import os
import sys

__all__ = ["outside_stacklevel", "module_of_file"]

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


def module_of_file(filename: str) -> str:
    """The name of the loaded module of ``filename``: a user's ``filterwarnings(module=...)`` matches a held warning
    by it, as it matched the warning when raised (``warn_explicit`` would take the file's path).

    A file of no loaded module (``python -c``, a notebook's cell, exec'd code) is named as ``warn_explicit`` names
    it by default, its path without ".py": never None, which ``warn_explicit`` takes as "skip the warning" (CPython
    drops it silently).  O(loaded modules): called once for each kind of held warning.
    """
    for name, module in list(sys.modules.items()):
        try:        # its namespace: a lazy module's __getattr__ (an import on access, which may fail) is not run
            namespace = getattr(module, "__dict__", None)
        except Exception:       # an entry without a namespace whose __getattr__ raises: not a module of a file
            continue
        if isinstance(namespace, dict) and namespace.get("__file__") == filename:
            return name
    module = filename or "<unknown>"
    return module[:-3] if module[-3:].lower() == ".py" else module
