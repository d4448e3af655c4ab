"""Small data: a fixed rank-average blend instead of a choice.

On a few dozen rows a validation part of five-fold cross-validation holds
10 to 25 rows, and a top-of-list metric reads one or two of them: which of
seven candidates looks best on such folds is mostly noise, and the default
trees (20 rows a leaf at least) can hardly split.  There the default search
fits only the candidates that rank small tables well -- each class's
``small_data_specs``: the linear ranker, kernel ranking and ExactBoost among
the built-ins -- and keeps the rank average of those that apply, which
needs no choice at all.  Measured nested on 22 tables of 32 to 150 rows
(docs/auto.md, *Small data: a fixed blend*).
"""

from __future__ import annotations

from ._candidate import Candidate, registered_candidates

__all__ = ["SMALL_DATA_ROWS", "small_data_candidates", "small_data_specs", "uses_small_data_blend"]

#: The default search on at most this many rows fits and keeps the small-data blend.
SMALL_DATA_ROWS = 120


def small_data_candidates() -> list[Candidate]:
    """The members of the small-data blend: every registered class's ``small_data_specs``, by priority, resolved."""
    return registered_candidates(lambda cls: cls.small_data_specs)


def small_data_specs() -> list[str]:
    """The specs of the small-data blend (:func:`small_data_candidates`)."""
    return [candidate.spec for candidate in small_data_candidates()]


def uses_small_data_blend(n_rows: int, requested, blend: bool) -> bool:
    """Whether a fit on ``n_rows`` rows keeps the small-data blend.

    Only the default search (``requested`` None: ``candidates="auto"``) with
    ``blend=True`` does; a list of candidates, or ``blend=False``, is always
    searched and chosen from.
    """
    return requested is None and bool(blend) and n_rows <= SMALL_DATA_ROWS
