"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .filter import Softcut


@rankcore.hookimpl
def rankcore_register_filters():
    return [Softcut]
