"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .metric import ListRecallAtK


@rankcore.hookimpl
def rankcore_register_metrics():
    return [ListRecallAtK]
