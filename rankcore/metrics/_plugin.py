"""Built-in metrics, registered through the same hook as third-party plugins."""

from ..hookspecs import hookimpl


@hookimpl
def rankcore_register_metrics():
    from ._curves import ROC, Height
    from ._graded import Misrank
    from ._query import ERR, NDCG, MeanAveragePrecision, MeanAveragePrecisionAtK, MeanReciprocalRank
    from ._query_recall import HitAtK, RecallAtK
    from ._scalar import AUC, KS, MaxHeight, PartialAUC, PNormRisk, PrecisionAtK, RMax, TwoWayPartialAUC

    return [AUC, PartialAUC, TwoWayPartialAUC, KS, PrecisionAtK, RMax, MaxHeight, Height, PNormRisk, Misrank, ROC,
            NDCG, ERR, MeanAveragePrecision, MeanAveragePrecisionAtK, MeanReciprocalRank,
            RecallAtK, HitAtK]
