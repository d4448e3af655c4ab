"""The base of every estimator's setup: its parameters checked once, before a fit or a load resolves the rest."""

from __future__ import annotations

from dataclasses import dataclass

from .base import CheckedParams

__all__ = ["EstimatorSetup"]


@dataclass(frozen=True)
class EstimatorSetup:
    """An estimator's configuration, checked and resolved once; subclasses add what they resolve.

    Attributes
    ----------
    params : CheckedParams
        Every parameter, checked.
    """

    params: CheckedParams
