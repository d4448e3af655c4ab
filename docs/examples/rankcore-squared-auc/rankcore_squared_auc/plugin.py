"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .objective import SquaredAuc


@rankcore.hookimpl
def rankcore_register_objectives():
    return [SquaredAuc]
