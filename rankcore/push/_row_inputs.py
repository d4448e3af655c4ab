"""Per-row inputs of a fit besides X, y and the weights: display positions and the scores a fit starts from.

Both follow the training rows wherever they go -- into query order, into a
hold-out and the rows beside it, into cross-validation folds -- so they
travel together and are cut together (:meth:`RowInputs.take`).

``init_score`` is LightGBM's ``init_score`` and XGBoost's ``base_margin``:
the training scores start there instead of at 0 (a first-stage ranker's
scores, to learn a correction on top of them), and the model is the weak
rankers alone -- ``decision_function`` returns their sum, to which the
caller adds the new rows' own initial scores.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._caller import outside_stacklevel
from .._degenerate import warn_constant
from ._queries import QueryPositions

__all__ = ["RowInputs", "check_init_score", "check_eval_init_scores", "warn_one_sided_init", "warn_nothing_kept"]


@dataclass(frozen=True)
class RowInputs:
    """The training rows' display positions and initial scores (either None), in the rows' order.

    ``named``: what the initial scores are, as messages name them: ``"init_score"``, or ``"init_model"`` when they
    hold a model's scores that the fit continues (``fit(..., init_model=...)``, plus any ``init_score``).
    """

    positions: QueryPositions | None = None
    init_score: np.ndarray | None = None
    named: str = "init_score"

    @property
    def from_init(self) -> str | None:
        """What the training scores start from, for messages and the fitted state: ``named``, or None (from 0)."""
        return None if self.init_score is None else self.named

    def take(self, rows: np.ndarray) -> "RowInputs":
        """The inputs of ``rows`` (indices into the rows these inputs follow)."""
        return RowInputs(None if self.positions is None else self.positions.take(rows),
                         None if self.init_score is None else self.init_score[rows], self.named)

    def start(self, offsets: np.ndarray | None) -> np.ndarray | None:
        """Where the training scores start: the initial scores plus a tie-break ``offsets`` (either may be None)."""
        if self.init_score is None:
            return offsets
        return self.init_score.copy() if offsets is None else self.init_score + offsets


def check_init_score(init_score: Any, n: int, *, name: str = "init_score") -> np.ndarray | None:
    """One finite score per row, as float64 (None for None); a ValueError or TypeError naming ``name``."""
    if init_score is None:
        return None
    if hasattr(init_score, "to_numpy"):
        init_score = init_score.to_numpy()
    if np.iscomplexobj(init_score):          # float64 would drop the imaginary parts with a mere NumPy warning
        raise TypeError(f"{name}: expected one real number per row (the score each row starts from), got complex "
                        "numbers")
    try:
        arr = np.asarray(init_score, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected one number per row (the score each row starts from), got "
                        f"{type(init_score).__name__}") from None
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name}: expected one score per row ({n} rows), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        row = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name}: every initial score must be finite, row {row} has {arr[row]}")
    return np.ascontiguousarray(arr)


def check_eval_init_scores(eval_init_score: Any, n_sets: int) -> tuple:
    """``eval_init_score`` as one entry per set of ``eval_set`` (each None or array-like, checked with the set).

    One array (or None) for a single set; a list of them for several.
    """
    if eval_init_score is None:
        return (None,) * n_sets
    if n_sets == 1 and not (isinstance(eval_init_score, (list, tuple)) and len(eval_init_score) == 1
                            and (eval_init_score[0] is None or np.ndim(eval_init_score[0]) == 1)):
        return (eval_init_score,)
    if not isinstance(eval_init_score, (list, tuple)) or len(eval_init_score) != n_sets:
        raise ValueError(f"eval_init_score: expected one entry per set of eval_set ({n_sets}), an array of initial "
                         "scores or None each")
    return tuple(eval_init_score)


def warn_one_sided_init(fitted_from_init: bool, eval_inits: tuple, *, continued: bool = False) -> None:
    """Warn when the training rows and some validation set do not both have initial scores (``continued``: the
    fit continues an ``init_model``, whose scores both start from besides)."""
    if fitted_from_init and any(init is None for init in eval_inits):
        warnings.warn("eval_init_score: the fit starts from init_score, but some eval_set set has no initial scores: "
                      "it is scored at the model's corrections alone (its curve and any early stopping on it "
                      "read them without the scores they correct); pass eval_init_score for every set",
                      UserWarning, stacklevel=outside_stacklevel())
    elif not fitted_from_init and any(init is not None for init in eval_inits):
        where = ("init_model's scores while the sets start at init_model's scores plus their initial scores"
                 if continued else "0 while the sets start at their initial scores")
        warnings.warn(f"eval_init_score: given without init_score: the training rows start at {where}",
                      UserWarning, stacklevel=outside_stacklevel())


def warn_nothing_kept(owner: str, why: str, from_init: bool | str | None) -> None:
    """No iteration kept: a constant model, or, from ``init_score``, no correction to the initial scores
    (``from_init="init_model"``: nothing added to the model the fit continues)."""
    if not from_init:
        warn_constant(owner=owner, why=why)
        return
    if from_init == "init_model":
        warnings.warn(f"{owner}: {why}; the continuation adds nothing to init_model: the model is init_model's "
                      "weak rankers alone", UserWarning, stacklevel=outside_stacklevel())
        return
    warnings.warn(f"{owner}: {why}; the model adds nothing to init_score (decision_function is 0 everywhere): rank "
                  "by the initial scores alone", UserWarning, stacklevel=outside_stacklevel())
