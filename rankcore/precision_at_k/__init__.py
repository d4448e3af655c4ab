"""Precision@k: the surrogates of Kar, Narasimhan and Jain and their linear learners.

The surrogates, their evaluation and the learners' rules: ``docs/theory/precision_at_k.md``.

* :func:`surrogate` / :func:`surrogate_and_grad` -- the ``struct``, ``ramp``,
  ``max`` and ``avg`` surrogates of the prec@k loss over a score vector, with a
  subgradient, in O(n log n).
* :class:`PerceptronAtK` -- Perceptron@k-avg and Perceptron@k-max.
* :class:`SGDAtK` -- SGD@k-avg, SGD@k-max and the struct-SVM baseline.
* :func:`batch_k` -- the k of a mini-batch when k is given for the whole training set.

The surrogates are also objectives of the boosting driver (``objective``
plugin family), so precision@k can be boosted with nonlinear weak rankers.
"""

from ._linear import PerceptronAtK, SGDAtK, batch_k
from .surrogates import CONVEX_SURROGATES, SURROGATES, surrogate, surrogate_and_grad

__all__ = ["PerceptronAtK", "SGDAtK", "batch_k", "SURROGATES", "CONVEX_SURROGATES", "surrogate", "surrogate_and_grad"]
