"""Built-in plugin of the kernel-ranking package: the magnitude-preserving squared loss as a boosting objective."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_objectives():
    from ._objective import MagnitudePreservingSquared

    return [MagnitudePreservingSquared]
