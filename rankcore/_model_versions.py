"""What a model file's ``rankcore_version`` says when the file is refused: a newer rankcore wrote it (upgrade), or
the parameter it names was removed or renamed since (refit).

The version is read from the file only to word a refusal; what loads is decided by the format version and the
estimator's own checks (:mod:`rankcore.persistence`). ``this`` is the running rankcore's version throughout.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

__all__ = ["newer_than", "unknown_params_message", "newer_note"]


def _release(version: Any) -> tuple[int, ...] | None:
    """The release numbers of a version string (``"1.2.0rc1"`` -> ``(1, 2, 0)``), or None for anything else."""
    match = re.match(r"\d+(\.\d+)*", version) if isinstance(version, str) else None
    return tuple(int(n) for n in match.group(0).split(".")) if match else None


def newer_than(written: Any, this: str) -> bool:
    """Whether a file's ``rankcore_version`` ``written`` is a release after ``this`` (a pre-release of the same
    release is not: a development build reads the files of its own release)."""
    theirs, ours = _release(written), _release(this)
    return theirs is not None and ours is not None and theirs > ours


def unknown_params_message(name: str, unknown: list, valid: list, written: Any, this: str, source: str) -> str:
    """Why a file whose ``params`` name parameters the estimator (``name``) does not have is refused, and what to do.

    A newer rankcore may have added them (upgrade); else the rankcore that wrote the file had them and they were
    removed or renamed since: the file cannot say what they became (refit, or load it with that rankcore).  A file
    that says this release wrote it cannot have lost them since: a development build of the release, or an edit,
    named them.
    """
    shown = ", ".join(repr(k) for k in unknown)
    if newer_than(written, this):
        return (f"{source}: {name} has no parameter {shown} in this rankcore {this!r}: the file was written "
                f"by rankcore {written!r}, a newer one; upgrade rankcore to load it")
    hint = ""
    for key in unknown:
        close = difflib.get_close_matches(key.lower(), [v.lower() for v in valid], n=1, cutoff=0.6)
        hint += f"; {key!r} may now be {close[0]!r}" if close else ""
    it = "them" if len(unknown) > 1 else "it"
    if _release(written) is not None and _release(written) == _release(this):
        # this very release cannot have removed them since: a development build of it or an edit named them
        why = (f"the file says it was written by this release ({written!r}), which never had {it}: by a "
               f"development build of it, or edited after saving{hint}")
    else:
        were = "they were" if len(unknown) > 1 else "it was"
        why = f"the rankcore that wrote the file ({written!r}) had {it}, and {were} removed or renamed since{hint}"
    return (f"{source}: {name} has no parameter {shown} in this rankcore {this!r}: {why}; refit the model with "
            f"this rankcore (the file's \"params\" hold the others), or load it with the rankcore that wrote it "
            f"(valid parameters: {', '.join(sorted(valid))})")


def newer_note(written: Any, this: str) -> str:
    """What a refusal of a file a newer rankcore wrote adds: this rankcore may not know what the file holds."""
    if not newer_than(written, this):
        return ""
    return f" (the file was written by rankcore {written!r}, newer than this {this!r}: upgrade rankcore to load it)"
