"""Warnings about a ``--validation`` file that cannot serve as the hold-out it stands for (``fit`` and ``auto``).

A validation file is read to score models on rows they were not fitted on.
Two files let that pass unnoticed, so both commands warn (the run goes on:
the scores are computed, only their meaning is weaker):

* the training file itself -- the same path once resolved (links, ``./``),
  or another file of the same bytes: every score is of rows the model (each
  candidate, for ``auto``) was fitted on, so it is optimistic;
* with query ids, a file of fewer than 2 queries: the score is one query's
  ranking, and ``auto`` cannot measure the spread of its parts (the noise a
  difference between candidates is weighed against).
"""

from __future__ import annotations

import filecmp
import os
import warnings

import numpy as np

__all__ = ["warn_if_training_file", "warn_if_few_queries"]

#: Queries a validation file needs for its per-query score to be more than one query's ranking.
MIN_QUERIES = 2


def same_file(training: str, validation: str) -> str | None:
    """How the file ``validation`` is ``training``: ``"the same file"`` (one path once resolved, or one inode),
    ``"the same content"`` (another file of the same bytes), or None.  O(file size) at worst: the bytes are
    compared only when the sizes match."""
    try:
        if os.path.realpath(training) == os.path.realpath(validation) or os.path.samefile(training, validation):
            return "the same file"
        if os.path.getsize(training) == os.path.getsize(validation) and filecmp.cmp(training, validation,
                                                                                   shallow=False):
            return "the same content"
    except OSError:     # a file that cannot be read: the reader says why
        return None
    return None


def warn_if_training_file(training: str, validation: str | None, why: str) -> None:
    """Warn when ``--validation`` is the training file ``training`` (:func:`same_file`); ``why``: what its scores
    then say, for this command."""
    if validation is None:
        return
    how = same_file(training, validation)
    if how is not None:
        warnings.warn(f"--validation {validation} is the training file {training} itself ({how}): its scores are "
                      f"of rows {why}, not a hold-out; give rows held out of the training file", UserWarning,
                      stacklevel=2)


def warn_if_few_queries(val, why: str) -> None:
    """Warn when the ``--validation`` dataset ``val`` (read with query ids) holds fewer than :data:`MIN_QUERIES`
    queries; ``why``: what follows, for this command."""
    if val.qid is None:
        return
    n = len(set(np.asarray(val.qid).tolist()))
    if n < MIN_QUERIES:
        warnings.warn(f"--validation {val.source} holds {n} quer{'y' if n == 1 else 'ies'}: {why}; give a file of "
                      f"more queries", UserWarning, stacklevel=2)
