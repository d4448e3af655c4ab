"""Negative numbers given to an option as the next word: ``--margin -inf``, ``--lam -1e-3``, ``--eta0 -1E3``.

argparse takes a word for a value only when it cannot be an option, and a word starting with ``-`` can be one,
except for words matching its negative-number pattern (``-1``, ``-.5``): ``-inf``, ``-nan``, ``-1e-3`` and a
list such as ``-1,2`` are taken for options, and ``--margin -inf`` fails with "expected one argument" while
``--margin=-inf`` works.  So, before parsing, a long option followed by such a word is joined to it with ``=``
(:func:`join_negative_values`), the form argparse reads without guessing.

Why an argv rewrite rather than teaching argparse the pattern: the pattern is a private attribute
(``_negative_number_matcher``, whose handling changed in Python 3.13), and options are found through private
tables too; a rewrite of the words alone uses argparse's documented ``--option=value`` form.  It only touches words
argparse would refuse anyway (an option cannot be named ``-inf``, and none of rankcore's is a negative number), so
nothing that parses today parses differently: ``-1`` and ``-.5`` are left as they are.  The joined value then goes
through the option's own validation (a margin of ``-inf`` is refused by rankcore's message, naming the option); a
flag given such a word is refused by argparse ("ignored explicit argument"), and the word alone, after no option,
stays an unrecognized argument.  A bare ``--`` ends the rewrite: what follows are positional words.
"""

from __future__ import annotations

import re

__all__ = ["join_negative_values"]

_NUMBER = r"(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|inf|infinity|nan)"
#: A negative number as Python's ``float`` spells it (any case), or a comma-separated list starting with one.
_NEGATIVE_VALUE = re.compile(rf"-{_NUMBER}(?:,[-+]?{_NUMBER})*", re.IGNORECASE)
#: What argparse already takes for a negative number (its own pattern): left untouched.
_ARGPARSE_NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")


def join_negative_values(words: list[str]) -> list[str]:
    """``words`` with every ``--option WORD`` whose WORD is a negative number argparse would take for an option
    written ``--option=WORD`` (see the module's docstring)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return out + words[i:]
        following = words[i + 1] if i + 1 < len(words) else None
        if (word.startswith("--") and len(word) > 2 and "=" not in word and following is not None
                and _NEGATIVE_VALUE.fullmatch(following) and not _ARGPARSE_NEGATIVE.match(following)):
            out.append(f"{word}={following}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out
