"""Hook implementations of the example plugin: what rankcore loads by entry point."""

import rankcore

from .metrics import NDCGAtK
from .prices import CubicPrice


@rankcore.hookimpl
def rankcore_register_prices():
    return [CubicPrice]


@rankcore.hookimpl
def rankcore_register_metrics():
    return [NDCGAtK]
