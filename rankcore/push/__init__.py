"""The push family: the generic boosting driver and its estimators (SPEC §2).

``rankcore.boost(loss=..., price=..., learner=...)``, :class:`PushBoost`,
:class:`PNormPush` and :class:`RankBoost` minimize the push objective
R_{g,ℓ}(f) = Σ_k g(Σ_i ℓ(f_i − f_k)) -- or any registered objective -- over
linear combinations of weak rankers.  See ``docs/push.md``.
"""

from ._estimators import PNormPush, PushBoost, RankBoost, boost
from ._progress import IterationInfo

__all__ = ["boost", "PushBoost", "PNormPush", "RankBoost", "IterationInfo"]
