"""Built-in kernel components, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_kernels():
    from ._builtin import BUILTIN_KERNELS

    return list(BUILTIN_KERNELS)
