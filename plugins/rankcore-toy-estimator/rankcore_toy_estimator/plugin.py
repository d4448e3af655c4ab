"""Hook implementation of the toy estimator plugin: what rankcore loads by entry point."""

import rankcore

from .ranker import CentroidRanker


@rankcore.hookimpl
def rankcore_register_estimators():
    return [CentroidRanker]
