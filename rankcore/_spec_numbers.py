"""Numbers written as text: one rule for every spec string and the command line.

A spec writes a number in ASCII digits with one optional sign, a decimal point and an exponent; ``float()`` and
``int()`` read more (``1_0``, other scripts' digits), which another reader of the same text would not take.
:func:`read_float` and :func:`read_int` read the spec's form and say in a few words why other text is not a
number; within :func:`legacy_numbers` (a model file being restored) they also read what ``float()`` and
``int()`` read, so files saved before the rule load still.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re

import numpy as np

__all__ = ["number_like", "read_float", "read_int", "legacy_numbers", "reading_model_file"]


#: A number as a spec writes it: ASCII digits, one optional sign, a decimal point, an exponent.  ``float()`` and
#: ``int()`` read more -- ``1_0``, other scripts' digits (``١٠``, ``１０``) -- which no spec this library writes
#: holds, and which another reader of the same text (a shell script, LightGBM's config) would not take.
_DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER_RE = re.compile(r"[+-]?[0-9]+")
#: Spellings of the values no spec parameter takes: refused as "not finite" rather than as "not a number".
_SPECIAL_RE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
#: Digits of the largest finite double, for a message about a number beyond it.
_MAX_FLOAT = f"{np.finfo(np.float64).max:.4g}"


def _not_a_number(text: str) -> str:
    """Why ``text`` (stripped) is not a number as a spec writes it, in words (the caller shows the text)."""
    if "_" in text and _DECIMAL_RE.fullmatch(text.replace("_", "")):
        return "'_' does not separate digits here: write the number without it"
    if any(c.isdigit() or c.isnumeric() for c in text if not "0" <= c <= "9"):
        return "digits must be ASCII 0-9"
    if any(c.isspace() for c in text):
        return "no spaces inside a number"
    return "not a number"


def read_float(text: str, *, special: bool = False) -> float:
    """The float a spec's text writes: ASCII digits, a sign, a point, an exponent (``-1``, ``.5``, ``2.5e-3``).

    Spaces around the number are dropped (as around a spec's ``,`` and ``=``), none inside; ``1_0`` and digits
    of other scripts, which ``float()`` reads, are refused.  A literal that is not 0 but rounds to 0.0
    (``1e-400``) or beyond the largest double (``1e400``) is refused, saying it underflows or overflows: its value
    is not the one written.  ``inf``, ``infinity`` and ``nan`` (any case, signed) are read only when ``special``
    (a command-line value), else refused as not finite.  Within :func:`legacy_numbers` (loading a model file),
    what ``float()`` reads is read too, finite values only.

    Raises
    ------
    ValueError
        Saying why in a few words, without the text: the caller names the parameter and shows the value.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    stripped = text.strip()
    if _DECIMAL_RE.fullmatch(stripped):
        value = float(stripped)
        if math.isinf(value):
            raise ValueError(f"overflows: its magnitude is beyond the largest double, {_MAX_FLOAT}")
        mantissa = re.split("[eE]", stripped, maxsplit=1)[0]
        if value == 0.0 and mantissa.strip("+-.0") and not _LEGACY_NUMBERS.get():
            raise ValueError("underflows to 0: its magnitude is below the smallest double, 5e-324")
        return value
    if _SPECIAL_RE.fullmatch(stripped):
        if special:
            return float(stripped)
        raise ValueError("not a finite number")
    legacy = _legacy_float(stripped)
    if legacy is not None:
        return legacy
    raise ValueError(_not_a_number(stripped))


#: Inside :func:`legacy_numbers`: numbers read as ``float()`` and ``int()`` read them.
_LEGACY_NUMBERS: contextvars.ContextVar[bool] = contextvars.ContextVar("rankcore_legacy_numbers", default=False)


@contextlib.contextmanager
def legacy_numbers():
    """Within it, :func:`read_float` and :func:`read_int` also read what ``float()`` and ``int()`` read (``1_0``,
    other scripts' digits, a literal that underflows to 0) -- still finite numbers only.

    For a model file saved before the ASCII rule: an estimator keeps a spec string as it was given (``get_params``),
    so a file may hold ``"trees:max_depth=1_0"``, which loaded then and must load still.  New input never takes
    this path.
    """
    token = _LEGACY_NUMBERS.set(True)
    try:
        yield
    finally:
        _LEGACY_NUMBERS.reset(token)


def reading_model_file() -> bool:
    """Whether the caller runs within :func:`legacy_numbers` (a model file being restored): a check tightened
    since a file could have been saved (an integer ``random_state`` of 2**32 or more) accepts what it did then."""
    return _LEGACY_NUMBERS.get()


def _legacy_float(text: str) -> float | None:
    """``float(text)`` inside :func:`legacy_numbers` when finite, else None."""
    if not _LEGACY_NUMBERS.get():
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_int(text: str) -> int:
    """The integer a spec's text writes: ASCII digits and a sign (exact at any size), or a whole number as
    :func:`read_float` reads it (``10.0``, ``1e3``).

    Raises
    ------
    ValueError
        Saying why in a few words, as :func:`read_float`.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    stripped = text.strip()
    if _INTEGER_RE.fullmatch(stripped):
        try:
            return int(stripped)
        except ValueError:              # more digits than Python converts (sys.get_int_max_str_digits)
            raise ValueError(f"an integer of {len(stripped)} digits, too long to read") from None
    if _LEGACY_NUMBERS.get() and not any(c in stripped for c in ".eE"):
        with contextlib.suppress(ValueError):       # a file's spec integer as int() read it then: '1_0'
            return int(stripped)
    if not read_float(stripped).is_integer():
        raise ValueError("not a whole number")
    return int(float(stripped))


def number_like(text: str) -> bool:
    """Whether ``text`` reads as a number (``-1``, ``0.5``, ``nan``): an item of a numeric list, never a name."""
    text = text.strip()
    return bool(_DECIMAL_RE.fullmatch(text) or _SPECIAL_RE.fullmatch(text))
