"""``rankcore explain --background FILE``: the reference rows of interventional SHAP (interaction) values, read as
DATA is.

The file is read by the reader and the options of DATA (its format, the
model's columns by name or position, categories as fitted).  Its rows are
features only: the label (if any), and the columns DATA's options set aside
(``--id``, ``--qid``, ``--init-score``, ``--drop``) are left out where the
file has them, and need not be there -- a sample of the training file and a
file of features alone both serve, in any of the formats DATA may have (a
CSV DATA's ``--drop`` names no column of a LIBSVM, .npz or .npy file).

``--groups a+b+c,d+e`` makes each group of columns one player of the
interventional game (``feature_contributions(..., groups=...)``): the
columns by the names the output shows, the others alone; a name's own
``+``, ``,`` or backslash is written behind a backslash (:func:`split_groups`).
"""

from __future__ import annotations

import copy
import os

import numpy as np

from . import CommandError

__all__ = ["BACKGROUND_HELP", "GROUPS_HELP", "check_background_options", "read_background", "read_groups"]

BACKGROUND_HELP = ("interventional SHAP values instead of path-dependent TreeSHAP: each feature's contribution "
                   "(with --interactions: each pair's interaction value) averaged over these reference rows (read "
                   "as DATA is, e.g. a sample of the training rows; a few hundred rows, at most about 1,000: the "
                   "time grows with their number), and the expected score their mean score")
GROUPS_HELP = ("with --background: each group of columns one player, taking the row's values or a background row's "
               "together (e.g. the columns of a one-hot-encoded variable): names as the output shows them, '+' "
               "within a group, ',' between groups (a+b+c,d+e), a name's own '+', ',' or backslash written \\+, "
               "\\, or \\\\ (x\\+y+z: the columns x+y and z); the other columns alone. One contribution per group "
               "(contribution:a+b+c; with --interactions the pairs are of groups), the players in the order of "
               "their first columns")


def check_background_options(args) -> None:
    """Refuse, before any file is read, ``--background`` with the outputs that take none, ``--groups`` without it."""
    if getattr(args, "background", None) is None:
        if getattr(args, "groups", None) is not None:
            raise CommandError("--groups: only with --background FILE (a group's interventional value is its "
                               "Shapley value as one player against those rows; path-dependent values of a group "
                               "are not the sum of its columns')")
        return
    if getattr(args, "permutation", False):
        raise CommandError("--background: not with --permutation (permutation importances shuffle the rows' own "
                           "columns); --background changes the contributions of the rows, of --summary and of "
                           "--interactions")


def read_background(args, model, model_path: str):
    """The rows of ``--background`` as the model reads them (a DataFrame when the model has names)."""
    from ._columns import load_for_model

    path = args.background
    options = copy.copy(args)
    aside = [args.id_column, getattr(args, "qid", None), getattr(args, "init_score", None)]
    drop = [c.strip() for c in (args.drop or "").split(",") if c.strip()]
    options.label, options.drop = _own_label_and_drop(args, path, drop + [c for c in aside if c],
                                                      int(model.n_features_in_))
    options.qid, options.init_score = None, None
    _, Z = load_for_model(options, path, model, model_path, require_label=False, queries=True)
    if Z.shape[0] == 0:
        raise CommandError(f"--background {path}: no rows; the values are averaged over its rows")
    return Z


def read_groups(spec: str, names: list[str]) -> tuple[np.ndarray, list[str], list[list[int]]]:
    """``(labels, player names, each player's columns)`` of ``--groups SPEC`` over the columns ``names``.

    Players are numbered in the order of their first columns, a group named
    by its columns joined by ``+`` in the columns' order (a member's own
    ``+``, ``,`` or backslash escaped as in SPEC), a column alone by its
    name -- escaped too, every column alone, when one of them would be named
    as a group is (a column ``a+b`` beside the group of ``a`` and ``b``), so
    that no two players share a name.  O(len(SPEC) + d).
    """
    position = {name: j for j, name in enumerate(names)}
    # SPEC's names are stripped of surrounding spaces: a column whose name has some is found by its stripped name
    # when no other column has it
    stripped: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        stripped.setdefault(name.strip(), []).append(j)
    position.update({name: js[0] for name, js in stripped.items() if name not in position and len(js) == 1})
    group_of: dict[int, int] = {}
    for g, members in enumerate(split_groups(spec)):
        if not all(members):
            raise CommandError(f"--groups {spec!r}: an empty group or column name; write the groups as a+b+c,d+e")
        for name in members:
            if name not in position:
                # a name holding '+' or ',' written bare is split there: say how to write it
                split = [f"{n!r} as {escape_name(n)}" for n in names if "+" in n or "," in n]
                raise CommandError(f"--groups: no column {name!r}; the columns are {', '.join(names)}" + (
                    f" (write a name's '+', ',' and backslash as \\+, \\, and \\\\: {', '.join(split)})"
                    if split else ""))
            if position[name] in group_of:
                raise CommandError(f"--groups: column {name!r} is named twice; a column is in one group")
            group_of[position[name]] = g
    keys = [("group", group_of[j]) if j in group_of else ("column", j) for j in range(len(names))]
    number = {key: i for i, key in enumerate(dict.fromkeys(keys))}
    labels = np.array([number[key] for key in keys], dtype=np.int32)
    players = [np.flatnonzero(labels == p).tolist() for p in range(len(number))]
    shown = [names[columns[0]] if len(columns) == 1 else "+".join(escape_name(names[j]) for j in columns)
             for columns in players]
    if len(set(shown)) < len(shown):
        # a column alone named as a group is (column 'a+b' beside the group a, b): every name written as SPEC
        # writes it, escaped, so that each player has a name of its own (an escaped name has no bare '+')
        shown = ["+".join(escape_name(names[j]) for j in columns) for columns in players]
    return labels, shown, players


#: What a backslash in ``--groups`` makes of the next character; before any other, it is itself.
_ESCAPED = {"+": "+", ",": ",", "\\": "\\"}


def split_groups(spec: str) -> list[list[str]]:
    """``--groups SPEC`` as groups of column names: ``,`` between groups, ``+`` within one, ``\\+``, ``\\,`` and
    ``\\\\`` a name's own ``+``, ``,`` and backslash; names stripped of surrounding spaces.  O(len(SPEC)).

    A backslash before another character (or at the end) is kept as it is,
    so a name such as ``C:\\x`` is written as before.
    """
    groups: list[list[str]] = []
    members: list[str] = []
    name: list[str] = []
    i = 0
    while i < len(spec):
        char = spec[i]
        if char == "\\" and i + 1 < len(spec) and spec[i + 1] in _ESCAPED:
            name.append(_ESCAPED[spec[i + 1]])
            i += 2
            continue
        if char in "+,":
            members.append("".join(name).strip())
            name = []
            if char == ",":
                groups.append(members)
                members = []
        else:
            name.append(char)
        i += 1
    members.append("".join(name).strip())
    groups.append(members)
    return groups


def escape_name(name: str) -> str:
    """``name`` as ``--groups`` reads it: its ``\\``, ``+`` and ``,`` each behind a backslash."""
    return name.replace("\\", "\\\\").replace("+", "\\+").replace(",", "\\,")


def _own_label_and_drop(args, path: str, aside: list[str], n_features: int) -> tuple:
    """(``--label``, ``--drop``) for the background file: DATA's label and set-aside columns that the file has.

    By format: a CSV file's header, an .npz file's arrays and ``feature_names``, a LIBSVM file's index names
    (``f3``; its label is first on each row, never a column), an .npy file's width (a label column when it
    has one more column than the model's features; it has no names to drop by).  A file that cannot be read is
    left to the reader, which says why.
    """
    from .datasets import detect_format, header_names, index_names, npz_array_names, npz_feature_names

    fmt = args.data_format or detect_format(path)
    label = args.label
    drop = list(dict.fromkeys(aside))
    if not os.path.isfile(path):
        return label, ",".join(drop) or None
    if fmt == "csv":
        names = header_names(os.fspath(path))
        label = label if label in names else None
        drop = [c for c in drop if c in names]
    elif fmt == "libsvm":
        label, drop = None, [c for c in drop if index_names([c]) is not None]
    elif fmt == "npz":
        label = label if label is not None and label in npz_array_names(os.fspath(path)) else None
        names = npz_feature_names(os.fspath(path))
        drop = [c for c in drop if c in names]
    elif fmt == "npy":
        # an .npy DATA's --label is a column index, which a background as wide as DATA shares; else the reader
        # takes the last column of an array one column wider than the model's features as the label
        same = (args.data_format or detect_format(args.data)) == "npy" and _npy_width(path) == n_features + 1
        label, drop = label if same else None, []
    return label, ",".join(drop) or None


def _npy_width(path: str) -> int | None:
    """The number of columns of a 2-D .npy array (gzipped or not), read from its header (None when it is not one)."""
    from .datasets import npy_shape

    shape = npy_shape(path)
    return shape[1] if shape is not None and len(shape) == 2 else None
