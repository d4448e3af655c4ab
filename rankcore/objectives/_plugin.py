"""Built-in objective components, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_objectives():
    from ._cross_entropy import CrossEntropy
    from ._lambdarank import LambdaRankObjective
    from ._push import PushObjective
    from ._xendcg import XENDCGObjective
    from ._yetirank import YetiRankObjective

    return [PushObjective, LambdaRankObjective, YetiRankObjective, XENDCGObjective, CrossEntropy]
