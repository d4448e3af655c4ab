"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .learner import Comparisons


@rankcore.hookimpl
def rankcore_register_learners():
    return [Comparisons]
