"""The hook implementation rankcore loads through the entry point (``pyproject.toml``)."""

import rankcore

from .price import Quadratic


@rankcore.hookimpl
def rankcore_register_prices():
    return [Quadratic]
