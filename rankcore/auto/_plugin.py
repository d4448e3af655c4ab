"""Built-in plugin of AutoRanker: its candidates, registered like a third-party plugin's."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_auto_candidates():
    from ._builtin import BUILTIN_CANDIDATES

    return list(BUILTIN_CANDIDATES)
