"""The one warning for a fit that ranks nothing: constant scores on the training rows.

Every estimator calls :func:`warn_if_constant` at the end of ``fit`` (the push
family instead reports ``stop_reason_ = "no_split"`` from its driver): a fit
on data that carry no order -- every feature constant, a kernel that cannot
tell the rows apart -- returns a model, as scikit-learn and LightGBM do, but
never silently.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._caller import outside_stacklevel

__all__ = ["warn_constant", "warn_if_constant"]


def warn_if_constant(scores, *, owner: str, why: str) -> bool:
    """Warn (``UserWarning``) when ``scores`` -- a fit's training scores -- are all equal.

    Parameters
    ----------
    scores : array-like of float
        The fitted model's scores of the training rows.
    owner : str
        The estimator, as the message names it.
    why : str
        The likely cause, as the estimator knows it (one clause).

    Returns
    -------
    bool
        True when it warned.
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    if s.size < 2 or not (s == s[0]).all():
        return False
    warn_constant(owner=owner, why=why)
    return True


def warn_constant(*, owner: str, why: str) -> None:
    """The ``UserWarning`` of a fitted model that scores every training row the same (at the user's call)."""
    warnings.warn(f"{owner}: the fitted model is constant (it scores every training row the same): {why}; "
                  "it ranks nothing", UserWarning, stacklevel=outside_stacklevel())
