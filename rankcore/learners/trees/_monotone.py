"""Monotone constraints of the ``trees`` learner: the ``monotone`` parameter and its signs per layout feature.

``monotone="1/0/-1"`` gives each column of X a sign: +1, the score may
only rise with the column (others fixed), −1 only fall, 0 free.  The
growers (``_grow.pyx``, ``TreeSearch``) enforce it by LightGBM's "basic"
method: each node has bounds [lo, hi] on its values, a split's children's
values are clamped to them, a split of a constrained column whose clamped
values go against its sign is not allowed, and such a split bounds its
children by the midpoint of their values (``_split.split_bounds``).
Oblivious trees (``growth="oblivious"``) score a constrained level's
candidates by their gain where the children keep the sign's order, and
project the grown tree's leaf values onto the monotone order exactly
(``_oblivious_monotone.py``).
"""

from __future__ import annotations

import re

import numpy as np

from .._constraint_refusal import ConstraintRefusal, ConstraintSpecError

__all__ = ["monotone_signs", "column_signs", "feature_signs", "unbundled", "checked_signs"]


def monotone_signs(value) -> str:
    """Parameter kind: one sign per column of X, -1, 0 or 1, separated by '/' (``"1/0/-1"``; ``""``: none).

    A sequence of integers is accepted too; returns the canonical text.
    """
    if isinstance(value, str):
        text = value.strip()
        parts = [] if text.lower() in ("", "none") else [p.strip() for p in text.split("/")]
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        parts = [value]
    else:
        parts = list(value)
    signs = []
    for p in parts:
        v = None
        if isinstance(p, (int, np.integer, float, np.floating)) and not isinstance(p, bool):
            v = int(p) if float(p) in (-1.0, 0.0, 1.0) else None
        elif isinstance(p, str) and re.fullmatch(r"[+-]?[0-9]+", p):
            v = int(p)
        if v not in (-1, 0, 1):
            # a SpecError as before, and the refusal of monotone with fields (the command line lists the columns)
            raise ConstraintSpecError(f"{p!r} is not a sign (-1, 0 or 1)", constraint="monotone")
        signs.append(str(v))
    return "/".join(signs)


monotone_signs.__name__ = "signs per column of X such as 1/0/-1 (each -1, 0 or 1)"


def column_signs(text: str, n_columns: int) -> np.ndarray | None:
    """The signs of ``monotone`` (its canonical text) per column of X, int8; None when none is set or all are 0.

    A ValueError naming ``monotone`` when the count is not X's ``n_columns``.
    """
    if not text:
        return None
    signs = np.array([int(v) for v in text.split("/")], dtype=np.int8)
    if signs.shape[0] != n_columns:
        raise ConstraintRefusal.said("monotone", f"expected {n_columns} signs, one per feature of X in column "
                                     f"order, got {signs.shape[0]} ({text!r})")
    return signs if signs.any() else None


def feature_signs(text: str, n_features: int, columns: np.ndarray | None, categorical) -> np.ndarray | None:
    """The signs of a layout's ``n_features`` features, which are the ``columns`` of X (None: every column).

    A constrained categorical feature (``categorical``: layout features) is a
    ValueError naming ``monotone``: its categories have no order to keep.
    None when no kept feature is constrained.
    """
    if not text:
        return None
    if columns is None:
        signs = column_signs(text, n_features)
    else:
        signs = np.array([int(v) for v in text.split("/")], dtype=np.int8)
        if columns.shape[0] and signs.shape[0] <= int(columns[-1]):
            raise ConstraintRefusal.said("monotone", f"expected a sign for every column of X (at least "
                                         f"{int(columns[-1]) + 1}), got {signs.shape[0]} ({text!r})")
        signs = signs[columns]
    if signs is None or not signs.any():
        return None
    bad = sorted(int(j) for j in categorical if signs[int(j)] != 0)
    if bad:
        named = bad if columns is None else [int(columns[j]) for j in bad]
        raise ConstraintRefusal.said("monotone", f"columns {named} are categorical; their categories have no order "
                                     "to be monotone in (set their sign to 0, or pass them as numbers)", named)
    return signs


def unbundled(bundles: list[list[int]], n_sparse: int, signs: np.ndarray | None) -> tuple[list[list[int]], int]:
    """The bundles without the constrained features (each then in a code column of its own); O(d).

    Bundles keep their other members in order; a bundle left empty goes
    (counted off ``n_sparse`` if it was one of the first, sparse ones).
    """
    if signs is None:
        return bundles, n_sparse
    out, out_sparse = [], 0
    for i, members in enumerate(bundles):
        members = [j for j in members if signs[j] == 0]
        if members:
            out.append(members)
            out_sparse += i < n_sparse
    return out, out_sparse


def checked_signs(signs, n_features: int, categories: dict, bundles: list) -> np.ndarray | None:
    """A layout's monotone signs (int8, one per feature), checked; None when none is set or all are 0."""
    if signs is None:
        return None
    signs = np.ascontiguousarray(signs, dtype=np.int8)
    if signs.shape != (n_features,) or not np.isin(signs, (-1, 0, 1)).all():
        raise ConstraintRefusal.said("monotone", f"expected {n_features} signs (-1, 0 or 1), one per feature, got "
                                     f"{signs!r}")
    if not signs.any():
        return None
    if any(signs[j] for j in categories) or any(signs[j] for b in bundles for j in b):
        raise ConstraintRefusal.said("monotone", "a constrained feature must be numeric and in a code column of its "
                                     "own (not categorical, not bundled)")
    return signs
