"""Built-in price components, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_prices():
    from ._builtin import Exponential, Identity, Power

    return [Identity, Power, Exponential]
