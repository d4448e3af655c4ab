"""Built-in loss components, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_losses():
    from ._builtin import Exponential, Hinge, Logistic, SquaredHinge

    return [Exponential, Logistic, Hinge, SquaredHinge]
