"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .loss import ModifiedHuber


@rankcore.hookimpl
def rankcore_register_losses():
    return [ModifiedHuber]
