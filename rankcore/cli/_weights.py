"""Sample weights on the command line: ``fit``, ``compare`` and ``auto`` with ``--weight COLUMN``.

A CSV column of weights holds how many times each row counts in the fit
(finite numbers >= 0, not all 0; LightGBM's ``weight_column``).  It is passed
as the estimators' ``sample_weight``: the push models read the weights as
multiplicities, of one list and within queries alike (one weight per row;
docs: push, ranking within queries).  Only the fit is weighted: the metrics
of the progress, the tables and ``--validation`` count every row once, so a
validation or test file needs no such column (one that has it leaves it out).
"""

from __future__ import annotations

import inspect

import numpy as np

from . import CommandError

__all__ = ["FIT_HELP", "COMPARE_HELP", "AUTO_HELP", "takes_sample_weight", "check_fit_with_weights",
           "weight_facts", "weight_error", "check_training_weights"]

_WHAT = ("the CSV column of each row's sample weight (finite numbers >= 0, not all 0; not a feature): how many "
         "times the row counts in the fit (sample_weight)")
#: ``--weight`` of ``fit``.
FIT_HELP = (f"{_WHAT}, for the models that take it (push, rankboost); the metrics count every row once, so a "
            "--validation file needs no such column (and one that has it leaves it out)")
#: ``--weight`` of ``compare``.
COMPARE_HELP = (f"{_WHAT}: every model is fitted with the training rows' weights, so each must take them (push, "
                "rankboost); the table's metrics count every row once, and a --test file needs no such column")
#: ``--weight`` of ``auto``.
AUTO_HELP = (f"{_WHAT}: every fit of the search and the refit is weighted, and candidates whose estimator takes "
             "no sample_weight are skipped (the leaderboard says so); the validation metric counts every row once")


def takes_sample_weight(cls) -> bool:
    """Whether the estimator's ``fit`` has a ``sample_weight`` parameter."""
    try:
        return "sample_weight" in inspect.signature(cls.fit).parameters
    except (TypeError, ValueError):
        return False


def check_fit_with_weights(configs, column: str, command: str = "fit") -> None:
    """Every model must take weights (its estimator's ``fit`` has ``sample_weight``); else one error naming every
    model that does not and the models that do, before the data are read.

    No model is fitted without the weights while others are fitted with
    them: a comparison of such fits would not compare like with like.
    """
    from ._models import KINDS

    refused = [config for config in configs if not takes_sample_weight(config.kind.cls)]
    if not refused:
        return
    kinds = " or ".join(sorted(name for name, kind in KINDS.items() if takes_sample_weight(kind.cls)))
    # each refused model once (compare's --price a,b on one kind is one refusal)
    shown = list(dict.fromkeys(f"{config.label if len(configs) == 1 else config.kind.name} "
                               f"({config.kind.cls.__name__})" for config in refused))
    named = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    their = "its fit takes" if len(shown) == 1 else "their fits take"
    what = f"--weight {column}: {named} cannot weigh rows ({their} no sample_weight)"
    if command == "compare" and len(refused) < len(configs):
        raise CommandError(f"{what}, and `rankcore compare` fits every model with the same weights; leave "
                           f"{'it' if len(shown) == 1 else 'them'} out (--model {kinds} take weights), or leave "
                           f"out --weight and pass --drop {column}")
    raise CommandError(f"{what}; use --model {kinds}, or leave out --weight and pass --drop {column}")


def weight_facts(weight: np.ndarray, column: str) -> str:
    """``"weights 0 to 3 (w), 12 rows of weight 0"`` for the status line."""
    zeros = int(np.count_nonzero(weight == 0))
    text = f"weights {float(weight.min()):.4g} to {float(weight.max()):.4g} ({column})"
    return text + (f", {zeros} row{'s' * (zeros != 1)} of weight 0" if zeros else "")


def weight_error(exc: Exception, column: str) -> CommandError | None:
    """The library's refusals of the weights, as one naming ``--weight`` (None: another error).

    A refusal of ``sample_weight`` (:class:`rankcore.validation.ArgumentRefusal`): of the weights themselves (an
    objective that takes none...), or, reason ``"zero_total"``, of what they leave an objective (a class or every
    query weighted 0).  Chosen by the fields, never the text: a reworded library message keeps the option's name.
    """
    from ..validation import ArgumentRefusal

    if not (isinstance(exc, ArgumentRefusal) and exc.parameter == "sample_weight"):
        return None
    if exc.reason == "zero_total":
        return CommandError(f"--weight {column}: the weights of the training rows leave the fit nothing to learn "
                            f"from ({exc})")
    return CommandError(f"--weight {column}: {exc.detail}; choose another objective, or leave out --weight and pass "
                        f"--drop {column}")


def check_training_weights(weight, column: str, where: str) -> None:
    """Refuse training rows whose weights are all 0 (a split that left every weighted row on the other side)."""
    if weight is not None and not (weight > 0).any():
        raise CommandError(f"--weight {column}: every training row ({where}) has weight 0; the rows of positive "
                           "weight are all held out: use another --random-state or --test-size, or a --test file")