"""Built-in plugin of the precision@k package: its surrogates as boosting objectives."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_objectives():
    from .objectives import SURROGATE_OBJECTIVES

    return list(SURROGATE_OBJECTIVES)
