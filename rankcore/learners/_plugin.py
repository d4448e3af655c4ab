"""Built-in learner components, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_learners():
    from ._features import Features
    from ._threshold import Stumps, Thresholds
    from .trees import Trees

    return [Features, Thresholds, Stumps, Trees]
