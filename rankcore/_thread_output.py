"""What one thread prints, captured without touching the other threads' output.

``contextlib.redirect_stdout`` swaps ``sys.stdout`` for the whole process.
A fit on a Dask worker that runs in the client's process (a ``LocalCluster``
with ``processes=False``) captures its printed progress to send it to the
client; two such fits at once, each swapping and restoring ``sys.stdout``,
could restore each other's buffer and leave it in place: everything the
user's program printed afterwards went into a buffer nobody reads.
:func:`capture_stdout` instead puts a dispatcher in ``sys.stdout`` while any
thread captures, which writes each thread's text to that thread's buffer and
every other thread's to the stream that was there; the last capture to end
puts that stream back.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

__all__ = ["capture_stdout"]

_LOCK = threading.Lock()
_state: dict[str, Any] = {"proxy": None, "captures": 0}


class _PerThreadStdout:
    """``sys.stdout`` while threads capture: a capturing thread's writes go to its buffer, the others' to
    ``fallback`` (the stream ``sys.stdout`` was)."""

    def __init__(self, fallback: TextIO):
        self.fallback = fallback
        self.local = threading.local()

    def _target(self) -> TextIO:
        stream = getattr(self.local, "stream", None)
        return self.fallback if stream is None else stream

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:          # encoding, isatty, fileno...: the target's
        return getattr(self._target(), name)


@contextmanager
def capture_stdout(out: TextIO) -> Iterator[TextIO]:
    """Within it, what the calling thread prints goes to ``out``; other threads print where they did."""
    with _LOCK:
        proxy = _state["proxy"]
        if proxy is None or sys.stdout is not proxy:
            # the first capture (or someone replaced sys.stdout since): dispatch from the stream there now
            proxy = _PerThreadStdout(sys.stdout)
            _state["proxy"] = proxy
            sys.stdout = proxy
        _state["captures"] += 1
    previous = getattr(proxy.local, "stream", None)
    proxy.local.stream = out
    try:
        yield out
    finally:
        proxy.local.stream = previous
        with _LOCK:
            _state["captures"] -= 1
            if _state["captures"] == 0 and _state["proxy"] is not None:
                if sys.stdout is _state["proxy"]:
                    sys.stdout = _state["proxy"].fallback
                _state["proxy"] = None
