"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .estimator import PairwiseLogistic


@rankcore.hookimpl
def rankcore_register_estimators():
    return [PairwiseLogistic]
