"""What a model file's ``rankcore_version`` says when the file is refused: a newer rankcore wrote it (upgrade), or
the parameter it names was removed or renamed since (refit).

The version is read from the file only to word a refusal; what loads is decided by the format version and the
estimator's own checks (:mod:`rankcore.persistence`). ``this`` is the running rankcore's version throughout.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

__all__ = ["newer_than", "unknown_params_message", "newer_note"]


def _release(version: Any) -> tuple[int, ...] | None:
    """The release numbers of a version string (``"1.2.0rc1"`` -> ``(1, 2, 0)``), or None for anything else."""
    match = re.match(r"\d+(\.\d+)*", version) if isinstance(version, str) else None
    return tuple(int(n) for n in match.group(0).split(".")) if match else None


#: A version as rankcore writes one (PEP 440's canonical form): release, pre-release, post-release, development
#: release; a local label (``+g1234abc``) after it does not order versions here.
_PARTS = re.compile(r"(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?")

_LAST = math.inf            # an absent development part sorts after every development release of the same version


def _order(version: Any) -> tuple | None:
    """PEP 440's order of a canonical version as a tuple (``0.1.0.dev3 < 0.1.0a1 < 0.1.0 < 0.1.0.post1``), or None.

    Written here rather than read from ``packaging`` (installed almost everywhere, but no dependency of rankcore):
    rankcore writes only the canonical form, which this covers.
    """
    match = _PARTS.match(version) if isinstance(version, str) else None
    if match is None:
        return None
    release, phase, number, post, dev = match.groups()
    numbers = [int(n) for n in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:        # 0.1 and 0.1.0 are one version
        numbers.pop()
    if phase is not None:
        pre = (("a", "b", "rc").index(phase), int(number))
    elif dev is not None and post is None:
        pre = (-1, 0)               # 0.1.0.dev3 comes before 0.1.0's pre-releases
    else:
        pre = (3, 0)                # the release itself, after its pre-releases
    return (tuple(numbers), pre, -1 if post is None else int(post), _LAST if dev is None else int(dev))


def newer_than(written: Any, this: str) -> bool:
    """Whether a file's ``rankcore_version`` ``written`` is a version after ``this`` in PEP 440's order.

    A development build or pre-release reading a file of its final release is reading a newer file (the release
    may have added what the file holds: upgrade); the release reading its development build's file is not.
    """
    theirs, ours = _order(written), _order(this)
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
