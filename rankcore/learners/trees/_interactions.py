"""Interaction constraints of the ``trees`` learner: the ``interactions`` parameter and its groups of features.

``interactions="0+1/2+3+4"`` names groups G_1..G_m of columns of X ('+'
joins a group's columns, '/' separates the groups).  A split on feature j
at a node whose path from the root already splits on the features P is
allowed only if P ∪ {j} lies within some group (LightGBM's and XGBoost's
``interaction_constraints``).  A column in no group never splits (as in
LightGBM; XGBoost lets it split alone); a column may be in several groups.

The growers keep, for each node, the groups that hold its path's features
(its *live* groups; the root's are all of them): a child's are its parent's
that hold the split feature, and the features a node may split on are the
members of its live groups (within the tree's colsample draw).  In an
oblivious tree every path passes through every level, so a level's nodes
share their live groups: one set per tree, narrowed level by level, and one
mask per level (``_oblivious.py``).
"""

from __future__ import annotations

import re

import numpy as np

from ...spec import number_like
from .._constraint_refusal import ConstraintRefusal, ConstraintSpecError

__all__ = ["interaction_groups", "named_groups", "column_groups", "feature_groups", "InteractionGroups",
           "rule_arrays"]


def _unreadable(detail: str, columns=()) -> ConstraintSpecError:
    """A value of ``interactions`` that cannot be read: a SpecError, and the refusal of the constraint with fields."""
    return ConstraintSpecError(detail, constraint="interactions", columns=columns)


def _group_items(value) -> list:
    """The groups of ``value`` (text or a sequence of sequences), each a list of its raw items."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("", "none"):
            return []
        return [[p.strip() for p in group.split("+")] for group in text.split("/")]
    groups = []
    for group in value:
        if isinstance(group, (str, bytes)) or not hasattr(group, "__iter__"):
            raise _unreadable(f"{group!r} is not a group of columns (a sequence of column indices or names)")
        groups.append(list(group))
    return groups


#: Characters a column name in ``interactions`` cannot hold: the spec's separators ('+', '/') and its argument
#: separator (',').
_SEPARATORS = "+/,"


def _column_item(p) -> int | str:
    """One column of a group: an index (an integer >= 0; a string of digits is always an index) or a name."""
    if isinstance(p, (bool, np.bool_)):
        raise _unreadable(f"{p!r} is not a column index or name")
    if isinstance(p, str):
        if not p.strip():
            raise _unreadable("a group is empty (two separators in a row, or one at an end)")
        if p != p.strip():
            # the spec's text form strips its items, so a saved model would read another name back
            raise _unreadable(f"the column name {p!r} begins or ends with white space, which the text form of "
                              "interactions drops: give that column's index instead")
        if re.fullmatch(r"[0-9]+", p):
            if p != "0" and p.startswith("0"):
                # '03' would read as the index 3 where the user may mean a column named '03'
                raise _unreadable(f"{p!r} has a leading zero: a string of digits is a column index, written "
                                  f"without one ({int(p)}); a column named {p!r} is given by its index")
            return int(p)
        if number_like(p):
            raise _unreadable(f"{p!r} is not a column index (an integer >= 0) or a column name (a name that "
                              "reads as a number is not taken as one)")
        if any(c in p for c in _SEPARATORS):
            raise _unreadable(f"the column name {p!r} holds one of {' '.join(_SEPARATORS)}, which separate the "
                              "columns and groups of interactions: give that column's index instead")
        if p.lower() == "none":
            # the text 'none' reads back as no constraints, so a model fitted with it could not be saved
            raise _unreadable(f"the column name {p!r} reads as 'no constraints' in the text form of interactions: "
                              "give that column's index instead")
        return p
    if isinstance(p, (float, np.floating)) and float(p).is_integer():
        p = int(p)
    if not isinstance(p, (int, np.integer)) or p < 0:
        raise _unreadable(f"{p!r} is not a column index (an integer >= 0) or a column name (a string)")
    return int(p)


def _order(column: int | str) -> tuple:
    """Sort key of a group's column: the indices ascending, then the names ascending."""
    return (1, column) if isinstance(column, str) else (0, column)


def _group_order(group: tuple) -> list:
    return [_order(c) for c in group]


def interaction_groups(value) -> str:
    """Parameter kind: groups of columns of X, '+' joining a group's columns and '/' separating the groups.

    ``"0+1/2+3+4"``, or a sequence of sequences of column indices
    (``[[0, 1], [2, 3, 4]]``); ``""`` or ``"none"``: no constraints.  A
    column may also be given by its name (``"age+income/2+3"``,
    ``[["age", "income"], [2, 3]]``): names are kept as they are and
    resolved against the columns of the DataFrame a fit is given
    (:func:`named_groups`).  A string of digits is always an index, a name
    cannot hold '+', '/' or ',' nor read as a number.
    Returns the canonical text: each group's columns ascending (indices,
    then names), the groups ascending, a repeated group and a group
    contained in another left out -- the rule reads only the groups that no
    other contains, so equivalent lists fit the same trees and get the same
    spec.  An empty group, a column that is neither an integer >= 0 nor a
    name, or a column twice in one group is a :class:`ConstraintSpecError` (a ValueError).
    """
    out = []
    for group in _group_items(value):
        columns = [_column_item(p) for p in group]
        if not columns:
            raise _unreadable("a group is empty")
        if len(set(columns)) < len(columns):
            twice = next(j for j in columns if columns.count(j) > 1)
            raise _unreadable(f"column {twice!r} is twice in the group {'+'.join(map(str, columns))}",
                              [twice] if isinstance(twice, int) else [])
        out.append(tuple(sorted(columns, key=_order)))
    return "/".join("+".join(map(str, group)) for group in _maximal(out))


def _maximal(groups: list[tuple]) -> list[tuple]:
    """The distinct groups that no other group contains, ascending.

    A group is contained in another iff the groups holding each of its
    columns share one besides itself: O(Σ|G|·h) for h groups per column at
    most (all 19,900 pairs of 200 columns: a fraction of a second).
    """
    unique = sorted(set(groups), key=_group_order)
    holders: dict = {}
    for i, group in enumerate(unique):
        for j in group:
            holders.setdefault(j, set()).add(i)
    return [group for group in unique
            if len(set.intersection(*sorted((holders[j] for j in group), key=len))) == 1]


interaction_groups.__name__ = ("groups of columns of X such as 0+1/2+3+4 or age+income/3 ('+' joins a group's "
                               "columns, '/' separates the groups; a column by its index or its name)")


def _parsed(text: str) -> list[list]:
    """The groups of a canonical text (:func:`interaction_groups`'s output): indices as ints, names as strings."""
    # ASCII digits only: str.isdigit() also holds for '²' and '①', which are names int() cannot read
    return [[int(j) if re.fullmatch(r"[0-9]+", j) else j for j in group.split("+")] for group in text.split("/")]


def _names_in(groups: list[list]) -> list[str]:
    """The distinct column names of ``groups``, in order."""
    return list(dict.fromkeys(c for group in groups for c in group if isinstance(c, str)))


def named_groups(text: str, feature_names) -> str:
    """``interactions`` (its canonical text) with each column name replaced by its index among ``feature_names``.

    ``feature_names``: the columns of the DataFrame a fit is given (an
    estimator's ``feature_names_in_``), or None (X without column names).
    The text is returned as it is when it names no column.  A ValueError
    naming ``interactions`` for a name with no column names to resolve it,
    a name that is not one of them (with the closest ones), a column given
    twice in a group (by name and index), and a string of digits that is
    the name of another column than that index: a spec that names columns
    reads digits as indices, which such a column's name would contradict.
    """
    if not text:
        return text
    groups = _parsed(text)
    names = _names_in(groups)
    if not names:
        return text
    if feature_names is None:
        raise ConstraintRefusal.said("interactions", f"the columns {', '.join(map(repr, names[:6]))} are given by "
                                     "name, but X has no column names (an array, or a DataFrame whose column names "
                                     "are not all strings): fit on a DataFrame with those columns, or give column "
                                     f"indices ({text!r})")
    position: dict[str, int] = {}
    for j, name in enumerate(feature_names):
        position.setdefault(str(name), j)
    for group in groups:
        for c in group:
            if isinstance(c, int) and position.get(str(c), c) != c:
                raise ConstraintRefusal.said("interactions", f"{c} is read as the column index {c}, but X also has a "
                                             f"column named '{c}' (column {position[str(c)]}); with names in "
                                             "interactions a string of digits is always an index: give every column "
                                             f"by its index instead ({text!r})",
                                             sorted({position[str(c)], *([c] if c < len(feature_names) else [])}))
    unknown = [name for name in names if name not in position]
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], list(position), n=3, cutoff=0.6)
        hint = (f" (the closest: {', '.join(map(repr, close))})" if close else
                f" (its columns: {', '.join(map(repr, list(position)[:8]))}{', ...' if len(position) > 8 else ''})")
        raise ConstraintRefusal.said("interactions", f"{unknown[0]!r} is not a column of X{hint}")
    resolved = []
    for group in groups:
        columns = [position[c] if isinstance(c, str) else c for c in group]
        if len(set(columns)) < len(columns):
            twice = next(j for j in columns if columns.count(j) > 1)
            shown = [repr(c) for c in group if (position[c] if isinstance(c, str) else c) == twice]
            raise ConstraintRefusal.said("interactions", f"column {twice} is twice in the group "
                                         f"{'+'.join(map(str, group))} (as {' and '.join(shown)})", (twice,))
        resolved.append(columns)
    return interaction_groups(resolved)


def column_groups(text: str, n_columns: int) -> list[list[int]] | None:
    """The groups of ``interactions`` (its canonical text) as lists of columns of X; None when none is set.

    A column beyond X's ``n_columns`` is a ValueError naming ``interactions``.
    """
    if not text:
        return None
    groups = _parsed(text)
    names = _names_in(groups)
    if names:           # not resolved (named_groups): the learner was given X without column names
        raise ConstraintRefusal.said("interactions", f"the columns {', '.join(map(repr, names[:6]))} are given by "
                                     "name, but X has no column names: fit on a DataFrame with those columns, or give "
                                     f"column indices ({text!r})")
    top = max(max(group) for group in groups)
    if top >= n_columns:
        raise ConstraintRefusal.said("interactions", f"column {top} is out of range: expected column indices of X "
                                     f"in 0..{n_columns - 1} ({text!r})")
    return groups


def feature_groups(text: str, n_features: int, columns: np.ndarray | None) -> list[np.ndarray] | None:
    """The groups of a layout's ``n_features`` features, which are the ``columns`` of X (None: every column).

    A column the layout does not store (it cannot split) leaves its groups;
    a group left empty goes.  None when no constraint is set.
    """
    if not text:
        return None
    if columns is None:
        return [np.array(g, dtype=np.intp) for g in column_groups(text, n_features)]
    position = {int(j): q for q, j in enumerate(np.asarray(columns).tolist())}
    groups = [[position[j] for j in group if j in position] for group in _parsed(text)]
    return [np.array(g, dtype=np.intp) for g in groups if g]


class InteractionGroups:
    """A layout's interaction groups of features, and the rule the growers apply at each node.

    Parameters
    ----------
    groups : list of int arrays
        Each group's features (layout indices, ascending, distinct).
    n_features : int
        The layout's features.
    """

    def __init__(self, groups: list[np.ndarray], n_features: int):
        self.groups = [np.unique(np.asarray(g, dtype=np.intp)) for g in groups]
        self.n_features = int(n_features)
        if any(g.size and (g[0] < 0 or g[-1] >= self.n_features) for g in self.groups):
            raise ConstraintRefusal.said("interactions", f"expected groups of features in 0..{self.n_features - 1}, "
                                         f"got {[g.tolist() for g in self.groups]}")
        self.sets = [frozenset(g.tolist()) for g in self.groups]
        #: features in some group (the others never split): colsample draws among them
        self.grouped = np.zeros(self.n_features, dtype=bool)
        for g in self.groups:
            self.grouped[g] = True

    @property
    def root(self) -> tuple[int, ...]:
        """The root's live groups: all of them."""
        return tuple(range(len(self.groups)))

    def after(self, live: tuple[int, ...], feature: int) -> tuple[int, ...]:
        """The live groups of a split's children: the node's ``live`` groups that hold ``feature``."""
        return tuple(g for g in live if feature in self.sets[g])

    def mask(self, live: tuple[int, ...], feature_mask: np.ndarray) -> np.ndarray:
        """The features a node of ``live`` groups may split on, within the tree's ``feature_mask`` (uint8)."""
        out = np.zeros_like(feature_mask)
        for g in live:
            out[self.groups[g]] = feature_mask[self.groups[g]]
        return out

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(group_ptr, group_features, feature_ptr, feature_groups): the groups' features and each feature's
        groups as compressed rows (intp), for the native grower."""
        group_ptr = np.r_[0, np.cumsum([g.size for g in self.groups])].astype(np.intp)
        members = np.concatenate(self.groups).astype(np.intp) if self.groups else np.empty(0, dtype=np.intp)
        owner = np.repeat(np.arange(len(self.groups), dtype=np.intp), np.diff(group_ptr))
        order = np.argsort(members, kind="stable")
        feature_ptr = np.r_[0, np.cumsum(np.bincount(members, minlength=self.n_features))].astype(np.intp)
        return group_ptr, members, feature_ptr, np.ascontiguousarray(owner[order])


def native_groups(groups: InteractionGroups | None) -> tuple | None:
    """The growers' form of a layout's groups (``InteractionGroups.csr``), or None without constraints."""
    return None if groups is None else groups.csr()


def rule_arrays(csr, d: int, nodes: int, masks: int, owner: str) -> tuple:
    """A grower's workspace for ``csr`` (:meth:`InteractionGroups.csr`) over ``d`` features, checked.

    Returns (group_ptr, group_features, feature_ptr, feature_groups, live, masks): the compressed groups padded by
    one entry (never empty, so a grower can take each one's first address), ``live`` room for ``nodes`` sets of
    live groups and ``masks`` room for ``masks`` feature masks.  A ValueError naming ``owner`` when the arrays are
    not the groups of ``d`` features.  O(d + Σ|g| + nodes·m) time and memory for m groups.
    """
    gp, gf, fp, fg = (np.ascontiguousarray(np.r_[a, 0], dtype=np.intp) for a in csr)
    m = gp.shape[0] - 2
    if (m < 0 or fp.shape[0] != d + 2 or gf.shape[0] != gp[m] + 1 or fg.shape[0] != fp[d] + 1
            or not 0 <= np.min(gf) <= np.max(gf) < max(d, 1) or not 0 <= np.min(fg) <= np.max(fg) < max(m, 1)):
        raise ValueError(f"{owner}.set_interactions: expected the compressed groups of {d} features")
    return gp, gf, fp, fg, np.zeros(nodes * m + 1, dtype=np.uint8), np.zeros(masks * d + 1, dtype=np.uint8)


def checked_groups(groups, n_features: int) -> InteractionGroups | None:
    """A layout's interaction groups (lists of features), checked; None when none is set."""
    if groups is None:
        return None
    if isinstance(groups, InteractionGroups):
        groups = groups.groups
    return InteractionGroups(list(groups), n_features)


def unused_columns_message(learner, n_columns: int, feature_names=None) -> str | None:
    """The warning of :func:`warn_unused_columns`, or None when every feature column is in some group."""
    groups = column_groups(getattr(learner, "interactions", ""), n_columns)
    if groups is None:
        return None
    used = {j for group in groups for j in group}
    unused = [j for j in range(n_columns) if j not in used]
    if not unused:
        return None
    shown = [f"{feature_names[j]!s} (column {j})" if feature_names is not None else str(j) for j in unused[:12]]
    more = f", ... ({len(unused)} in all)" if len(unused) > 12 else ""
    return (f"interactions={learner.interactions!r} (learner {learner.name!r}) puts the feature column"
            f"{'s' if len(unused) > 1 else ''} {', '.join(shown)}{more} in no group, so no tree splits "
            f"{'them' if len(unused) > 1 else 'it'} (interactions counts the feature columns from 0)")


def warn_unused_columns(learner, n_columns: int, feature_names=None) -> None:
    """Warn (a UserWarning) of the feature columns that no group of the learner's ``interactions`` holds: no tree
    ever splits them.  ``feature_names``: the estimator's, to name them by (else their indices)."""
    import warnings

    from ..._caller import outside_stacklevel

    message = unused_columns_message(learner, n_columns, feature_names)
    if message is not None:
        warnings.warn(message, UserWarning, stacklevel=outside_stacklevel())
