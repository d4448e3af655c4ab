"""The relevant label a saved one-list model records, applied where a command reads labels for it (``evaluate``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import CommandError
from ._common import info
from ._init_models import _same_label, _shown, unseen_labels


def evaluation_positive(args, data, model, path: str) -> Any:
    """The ``--positive`` to evaluate ``model`` (saved at ``path``) with on ``data``: the option, else the label the
    model records ranking first (``relevant_label_``) when it is one of the file's labels.

    Without ``--positive`` the file's greater label would be the relevant one, and a model fitted with
    ``--positive B`` on {B, M} would be scored by the inverse metric (AUC 1 - AUC) without a word.  Taking the
    recorded label is said on stderr; a recorded label that is not one of the file's (without ``--positive``), or
    a ``--positive`` that contradicts it in a file holding it, is warned about -- evaluating the other label is a
    choice the user may mean.  A file holding only the model's other label gets the recorded label (with or
    without ``--positive`` naming it), which it lacks: :func:`evaluation_target` reads it as every row irrelevant.
    """
    recorded = getattr(model, "relevant_label_", None)
    if recorded is None or data.y is None:
        return args.positive
    labels = np.unique(data.y).tolist()
    if _only_other_label(args, data, model):
        # a week without one relevant row (no fraud this time) is data, not a coding question: every row is the
        # fit's other label, so none is relevant -- prec@k is then 0, and the metrics undefined with one class
        # say so; the greater label of a file of one label is no relevant label to fall back on, and a
        # --positive naming the model's own label asks the same question
        info(args, f"{data.source}: every row has the label {_shown(labels[0])}, which {path} ranks below "
                   f"{_shown(recorded)}: no row is relevant")
        return recorded
    if args.positive is not None:
        # as typed: "1" is the label 1.0; a label the file lacks is the error reading it gives, not a warning
        held = any(_same_label(args.positive, label) for label in labels)
        # a file of other labels ('neg'/'pos' for a model of 0/1) holds no opposite of the recorded label:
        # --positive is then the user's mapping, not a contradiction
        recorded_held = any(_same_label(recorded, label) for label in labels)
        if held and recorded_held and not _same_label(args.positive, recorded):
            what = "the opposite ranking" if len(labels) == 2 else f"with {args.positive} first instead"
            warnings.warn(f"{path} ranks the label {_shown(recorded)} first; --positive {args.positive} evaluates "
                          f"{what}", UserWarning, stacklevel=2)
        return args.positive
    other = getattr(model, "other_label_", None)
    unseen = unseen_labels(labels, [recorded] if other is None else [recorded, other])
    if other is not None and unseen and len(unseen) < len(labels):
        # classes coded otherwise ({1, 2} for a fit on {0, 1}): the recorded label ranked first would score the
        # inverse ranking (or all rows as one class) without a word; a file of none of the fit's labels is warned of
        # below (which of them is relevant is the user's mapping)
        raise CommandError(f"{data.source}: the label {_shown(unseen[0])} never occurs in the data {path} was fitted "
                           f"on (labels {_shown(other)}, {_shown(recorded)}, ranking {_shown(recorded)} first); the "
                           "two files must code the classes alike, or name the relevant label with --positive LABEL")
    found = [label for label in labels if _same_label(label, recorded)]
    if found and len(labels) == 2 and found[0] == labels[-1]:
        return None                                 # the default already: said as without a recorded label
    if found:
        info(args, f"{data.source}: ranking {_shown(found[0])} first, the label {path} was fitted to rank first; "
                   "use --positive LABEL to choose")
        return found[0]
    warnings.warn(f"{path} ranks the label {_shown(recorded)} first, which {data.source} does not hold (labels "
                  f"{', '.join(_shown(v) for v in labels[:6])}); this evaluation ranks the greater label first: "
                  "pass --positive LABEL to choose", UserWarning, stacklevel=2)
    return None


def evaluation_target(args, data, model, path: str) -> tuple[Any, np.ndarray]:
    """``(positive, y)``: :func:`evaluation_positive` and the file's labels read with it as 0/1.

    A file of only the model's other label lacks the relevant label, and is read as every row irrelevant; any
    other file lacking the label asked for is refused by :meth:`Dataset.binary_target` (a typing mistake in
    ``--positive``, or a file coded otherwise, is not a week without a relevant row).
    """
    positive = evaluation_positive(args, data, model, path)
    return positive, data.binary_target(positive, require_both=False,
                                        may_be_absent=_only_other_label(args, data, model))


def _only_other_label(args, data, model) -> bool:
    """Whether every row of ``data`` has the label ``model`` ranks below its relevant one, and the relevant label
    asked for is the model's (no ``--positive``, or one naming it)."""
    recorded, other = _fitted_labels(model)
    if recorded is None or other is None or data.y is None or len(data.y) == 0:
        return False
    if args.positive is not None and not _same_label(args.positive, recorded):
        return False
    return all(_same_label(label, other) for label in np.unique(data.y).tolist())


def _fitted_labels(model) -> tuple[Any, Any]:
    """``(relevant, other)``: the labels ``model`` ranks first and below it, as the command line records them, else
    those of a model fitted on two labels in Python (``classes_``, the greater ranked first); Nones otherwise.

    A model saved from Python records no label, yet a quiet week judged with ``--positive 1`` is the same week
    judged without it: both ask for the label the model ranks first."""
    recorded, other = getattr(model, "relevant_label_", None), getattr(model, "other_label_", None)
    classes = getattr(model, "classes_", None)
    if recorded is None and classes is not None and np.ndim(classes) == 1 and len(classes) == 2:
        other, recorded = np.asarray(classes).tolist()
    return recorded, other
