"""``rankcore explain --background FILE``: the reference rows of interventional SHAP values, read as DATA is.

The file is read by the reader and the options of DATA (its format, the
model's columns by name or position, categories as fitted).  Its rows are
features only: the label (if any), and the columns DATA's options set aside
(``--id``, ``--qid``, ``--init-score``, ``--drop``) are left out where the
file has them, and need not be there -- a sample of the training file and a
file of features alone both serve.
"""

from __future__ import annotations

import copy
import os

from . import CommandError

__all__ = ["BACKGROUND_HELP", "check_background_options", "read_background"]

BACKGROUND_HELP = ("interventional SHAP values instead of path-dependent TreeSHAP: each feature's contribution "
                   "averaged over these reference rows (read as DATA is, e.g. a sample of the training rows; a few "
                   "hundred rows, at most about 1,000: the time grows with their number), and the expected score "
                   "their mean score")


def check_background_options(args) -> None:
    """Refuse, before any file is read, ``--background`` with the outputs that take none."""
    if getattr(args, "background", None) is None:
        return
    for option, what in (("permutation", "permutation importances shuffle the rows' own columns"),
                         ("interactions", "SHAP interaction values are path-dependent here")):
        if getattr(args, option, False):
            raise CommandError(f"--background: not with --{option} ({what}); --background changes the "
                               f"contributions of the rows and of --summary")


def read_background(args, model, model_path: str):
    """The rows of ``--background`` as the model reads them (a DataFrame when the model has names)."""
    from ._columns import load_for_model
    from .datasets import detect_format, header_names

    path = args.background
    options = copy.copy(args)
    aside = [args.id_column, getattr(args, "qid", None), getattr(args, "init_score", None)]
    drop = [c.strip() for c in (args.drop or "").split(",") if c.strip()]
    if (args.data_format or detect_format(path)) == "csv" and os.path.isfile(path):
        names = header_names(os.fspath(path))
        options.drop = ",".join(c for c in dict.fromkeys(drop + [c for c in aside if c]) if c in names)
    options.qid, options.init_score = None, None
    _, Z = load_for_model(options, path, model, model_path, require_label=False, queries=True)
    if Z.shape[0] == 0:
        raise CommandError(f"--background {path}: no rows; the values are averaged over its rows")
    return Z
