"""Initial scores on the command line: ``fit`` / ``auto --init-score COLUMN``, and ``score`` / ``evaluate`` adding
them.

A CSV column of initial scores holds the score each row starts from -- a
first-stage ranker's, say.  ``fit`` passes it as the estimator's
``init_score`` (LightGBM's ``init_score``, XGBoost's ``base_margin``) and a
``--validation`` file's column of that name as ``eval_init_score``, and
``auto`` as AutoRanker's; the model is the correction alone, so ``score`` and
``evaluate`` add the rows' own initial scores to its scores when given the
column.
"""

from __future__ import annotations

import inspect

import numpy as np

from . import CommandError

__all__ = ["FIT_HELP", "SCORED_HELP", "takes_init_scores", "check_fit_with_init_scores", "check_validation_init_scores",
           "check_scored_with_init_scores", "with_init_scores"]

#: ``--init-score`` of ``fit``.
FIT_HELP = ("the CSV column of each row's initial score (finite numbers; not a feature): the scores the fit starts "
            "from, a first-stage ranker's say, that the model learns a correction to (init_score); a --validation "
            "file needs the same column (eval_init_score)")
#: ``--init-score`` of ``score`` and ``evaluate``.
SCORED_HELP = ("the CSV column of each row's initial score (finite numbers; not a feature), added to the model's "
               "scores: for a model fitted with `rankcore fit --init-score`, which is the correction alone")


def takes_init_scores(cls) -> bool:
    """Whether the estimator's ``fit`` has an ``init_score`` parameter."""
    try:
        return "init_score" in inspect.signature(cls.fit).parameters
    except (TypeError, ValueError):
        return False


def check_fit_with_init_scores(configs, column: str) -> None:
    """Every model must start from initial scores (its estimator's ``fit`` takes ``init_score``); else one error
    naming it and the models that do, before the data are read."""
    from ._models import KINDS

    for config in configs:
        if takes_init_scores(config.kind.cls):
            continue
        kinds = " or ".join(sorted(name for name, kind in KINDS.items() if takes_init_scores(kind.cls)))
        raise CommandError(f"--init-score {column}: {config.label} ({config.kind.cls.__name__}) cannot start from "
                           f"initial scores (its fit takes no init_score); use --model {kinds}, or leave out "
                           f"--init-score and pass --drop {column}")


def check_validation_init_scores(args) -> None:
    """A ``--validation`` CSV file must hold the ``--init-score`` column too: its rows are scored from their own
    initial scores, as the training rows are fitted.  Said before any file is read."""
    import os

    from .datasets import detect_format, header_names

    column, path = args.init_score, args.validation
    if column is None or path is None or not os.path.isfile(path):
        return                          # no such file: the reader says so
    if (args.data_format or detect_format(path)) == "csv" and column not in header_names(path):
        raise CommandError(f"--validation: {path} has no column {column!r} (--init-score): the validation rows are "
                           "scored from their own initial scores, as the training rows are fitted (eval_init_score); "
                           "add the column to the file")


def check_scored_with_init_scores(model, model_path: str, column: str | None) -> None:
    """``score`` / ``evaluate``: ``--init-score`` exactly when the model was fitted from initial scores.

    A model fitted from them (``from_init_score_``) is the correction alone,
    and its scores without them rank by the correction; initial scores added
    to a model fitted without them add scores it never learned from.  Either
    is refused before the data are read.
    """
    fitted_from = bool(getattr(model, "from_init_score_", False))
    if column is None and fitted_from:
        raise CommandError(f"the model {model_path} was fitted from initial scores ({_fitted_by(model)} "
                           "--init-score): its scores are a correction to them; give the rows' initial scores with "
                           "--init-score COLUMN")
    if column is not None and not fitted_from:
        why = ("its fit takes no init_score" if not takes_init_scores(type(model))
               else "its model file records no initial scores")
        raise CommandError(f"--init-score {column}: the model {model_path} ({type(model).__name__}) was not fitted "
                           f"from initial scores ({why}); leave out --init-score and pass --drop {column}")


def _fitted_by(model) -> str:
    """The command that fits such a model from initial scores: ``rankcore auto`` for an AutoRanker's choice."""
    from ..auto import AutoRanker

    return "rankcore auto" if isinstance(model, AutoRanker) else "rankcore fit"


def with_init_scores(scores: np.ndarray, data) -> np.ndarray:
    """The model's ``scores`` plus the rows' initial scores (the file's ``--init-score`` column), when given."""
    return scores if data.init_score is None else scores + data.init_score
