"""Warnings held while a block runs, then said once per kind, in other words.

A fit repeated on parts of the data (early stopping's folds, the click
model's EM rounds) warns of the same thing once a part; the user must hear it
once, and told where it came from.  :func:`held_warnings` records the block's
warnings and, on leaving (by an error too: they were said before it without
the block), groups them by kind -- the category and the text with its numbers
aside -- and says each kind once, reworded by the caller, at the place in the
caller's code it was raised at and in its module (which a user's
``filterwarnings(module=...)`` matches).
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from typing import Callable

from ._caller import module_of_file

__all__ = ["held_warnings"]

#: A number in a warning's text (rows, an iteration, J): two warnings that differ only in them say the same thing.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@contextmanager
def held_warnings(reword: Callable[[list, bool], str | None]):
    """Hold the block's warnings; on leaving, say each kind once as ``reword(same, numbers_differ)`` says it.

    ``same``: the kind's recorded warnings, in order (the first is said); ``numbers_differ``: whether their texts
    differ in their numbers (so the first one's numbers are not everyone's).  ``reword`` returns the new text, or
    None for the first warning as raised; a category whose constructor takes more than a message keeps its own.
    """
    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        _say_once(caught, reword)


def _say_once(caught: list, reword) -> None:
    kinds: dict = {}
    for w in caught:
        kinds.setdefault((w.category, _NUMBER.sub("#", str(w.message))), []).append(w)
    for same in kinds.values():
        first, message = same[0], same[0].message
        text = reword(same, len({str(w.message) for w in same}) > 1)
        if text is not None:
            try:
                message = first.category(text)
            except TypeError:       # a category whose constructor takes more than a message: as it was raised
                pass
        warnings.warn_explicit(message, first.category, first.filename, first.lineno,
                               module=module_of_file(first.filename))
