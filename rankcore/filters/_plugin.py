"""Built-in filter components, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_filters():
    from ._builtin import BUILTIN_FILTERS

    return list(BUILTIN_FILTERS)
