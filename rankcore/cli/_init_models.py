"""``rankcore fit DATA --init-model MODEL``: continue a saved model with more weak rankers.

The estimator's ``fit(..., init_model=...)`` (LightGBM's ``init_model``, XGBoost's ``xgb_model``): the fit starts
from the saved model's scores and the model written holds its weak rankers followed by the new ones.  The
continuation's settings are the command line's, as for any fit: give the model's ``--learner``, ``--objective``
and so on again, or others whose weak rankers can live in one model with the saved ones (the library says which
cannot).
"""

from __future__ import annotations

import inspect

from . import CommandError

__all__ = ["HELP", "load_init_model", "init_model_error"]

#: ``--init-model`` of ``fit``.
HELP = ("a model file (rankcore fit's) to continue: the fit starts from its scores and the model written holds its "
        "weak rankers, then --n-iter new ones (LightGBM's init_model); give its settings (--learner, --objective, "
        "...) again or others of the same kind, and its --qid / --init-score if it was fitted with them")


def _takes_init_model(cls) -> bool:
    try:
        return "init_model" in inspect.signature(cls.fit).parameters
    except (TypeError, ValueError):
        return False


def load_init_model(path: str, config):
    """The model of ``--init-model`` loaded before any data is read; a ``CommandError`` if it cannot be or the
    configured model cannot continue it."""
    from ..persistence import load_model

    if not _takes_init_model(config.kind.cls):
        raise CommandError(f"--init-model: {config.label} ({config.kind.cls.__name__}) cannot continue a model (its "
                           "fit takes no init_model); use --model push with the saved model's settings")
    try:
        return load_model(path)
    except (OSError, ValueError) as exc:
        text = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CommandError(f"--init-model: cannot read the model file {path!r}: {text}") from None


def init_model_error(exc: Exception) -> CommandError | None:
    """The library's refusal of ``init_model`` said of ``--init-model`` (None for another error)."""
    text = str(exc)
    if not text.startswith("init_model"):
        return None
    text = "--init-model" + text[len("init_model"):]
    return CommandError(text.replace("fit(X, y, qid=...) (or group=)", "--qid"))
