"""The parameters and fitted state of Perceptron@k and SGD@k, declared once (see :mod:`rankcore.base`)."""

from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np

from ..base import N_JOBS, Fitted, float64_array, int64_array, random_state_kind, string_list
from ..spec import Kind, Parameter

__all__ = ["PERCEPTRON_PARAMETERS", "SGD_PARAMETERS", "LINEAR_FITTED", "STATE_ARRAYS", "FEATURE_ARRAYS"]


def _real(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError("not a number")
    return value


K = Parameter("k", Kind("an integer count or a fraction in (0, 1) of the training rows", _real,
                        type_doc="int or float"), default=0.05, doc="""
    The top of the list you act on, **for the whole training set**: a
    count (1 <= k <= n) or a fraction in (0, 1) of the n training rows.
    Each batch of b rows gets k_b = round(k·b/n) clipped to [1, b] (the
    paper's k = κ·b with κ = k/n; :func:`rankcore.precision_at_k.batch_k`),
    capped at the batch's number of positives.  ``score`` uses the same
    k on the scored rows.""")

K_PER_BATCH = Parameter("k_per_batch", Kind("None, an integer count or a fraction in (0, 1) of each batch", _real,
                                            type_doc="int, float or None"), default=None, nullable=True, doc="""
    The per-batch form instead: the k of every batch, as a count (at most
    the batch size) or a fraction of the batch.  None: translate ``k``.
    Set, it replaces ``k`` in training, and a count ``k`` above the
    training rows (or a ``partial_fit`` call's) is not refused: ``k`` then
    only scores.""")

BATCH_SIZE = Parameter("batch_size", int, default=64, minimum=1, nullable=True, rule="a positive integer", doc="""
    Rows per mini-batch; None uses the whole data as one batch.""")

N_EPOCHS = Parameter("n_epochs", int, default=25, minimum=1, maximum=2**31 - 1,
                     rule="a positive integer, at most 2147483647", doc="""
    Passes over the data in :meth:`fit` (the iterations of ``callbacks`` and ``training_curve_``); at most
    2**31 - 1, as a round count of LightGBM's (every pass runs: 1e308 would never end).""")

#: The parameters both estimators end with (defaults: Perceptron@k's).
_COMMON_TAIL = (
    BATCH_SIZE,
    N_EPOCHS,
    Parameter("average", bool, default=True, doc="""
        Return the average of the iterates after each used batch
        (Polyak-Ruppert); False: the last iterate."""),
    Parameter("standardize", bool, default=True, doc="""
        Centre and scale each feature on the data of ``fit`` (or of the first
        ``partial_fit`` call; a column constant there: of the first call in
        which it varies) inside the model; sparse input is centred
        implicitly (never densified: the same model as dense input).  The
        result does not depend on the features' scale (1e-300 to 1e300).
        ``coef_`` is in the units of the input either way."""),
    Parameter("shuffle", bool, default=True, doc="""
        Draw a new batch order for each epoch from ``random_state``."""),
    Parameter("random_state", random_state_kind(generator=False), default=None, doc="""
        Seeds the batch order of each epoch."""),
    Parameter("n_jobs", N_JOBS, default=1, doc="""
        Threads for scoring a batch (None: all cores).  The default is one
        thread: a batch is a fraction of a millisecond of work and a parallel
        region per batch costs more than it saves; threads are only used for
        batches of at least 2¹⁸ multiply-adds (e.g. 2,600 rows × 100
        features) and pay only on idle cores."""),
)

PERCEPTRON_PARAMETERS = (
    K,
    K_PER_BATCH,
    Parameter("variant", str, default="avg", choices=("avg", "max"), type_doc='{"avg", "max"}', doc="""
        The update: the mistake bound against the avg or the max surrogate."""),
) + _COMMON_TAIL


def _sgd_tail():
    return tuple(replace(p, default=512) if p.name == "batch_size"
                 else replace(p, default=30) if p.name == "n_epochs" else p for p in _COMMON_TAIL)


SGD_PARAMETERS = (
    K,
    K_PER_BATCH,
    Parameter("surrogate", str, default="avg", choices=("avg", "max", "struct"), type_doc='{"avg", "max", "struct"}',
              doc="""
        ``"ramp"`` is not offered: it is not convex."""),
    Parameter("eta0", float, default=0.03, minimum=0.0, exclusive_minimum=True, doc="""
        Initial step size."""),
    Parameter("init", str, default="logistic", choices=("logistic", "zero"), rule="'logistic' or 'zero'",
              type_doc='{"logistic", "zero"}', doc="""
        Starting weights: an L2 logistic regression (C = 1, solved to a
        tight tolerance by L-BFGS, the same for dense and sparse rows) on the
        standardized training rows, or w = 0."""),
    Parameter("alpha", float, default=0.0, minimum=0.0, doc="""
        L2 penalty."""),
    Parameter("radius", float, default=None, minimum=0.0, exclusive_minimum=True, nullable=True, doc="""
        Radius of the ball the weights are projected on (the paper's
        setting); None: no projection.  Both ``radius`` and ``alpha`` may be set."""),
) + _sgd_tail()

#: Per-epoch records, one entry per pass.
STATE_ARRAYS = ("mistakes_per_epoch_", "loss_per_epoch_", "surrogate_per_epoch_")
#: Per-feature arrays (absent from models saved before they existed).
FEATURE_ARRAYS = ("iterate_", "average_", "feature_mean_", "feature_scale_")


def _labels(classes):
    return [c.item() if hasattr(c, "item") else c for c in classes]


# The linear models' files name each field after its attribute (``coef_``).
_SAVED = (("coef_", float64_array), ("classes_", _labels), ("n_features_in_", int), ("t_", int), ("n_iter_", int),
          ("n_skipped_batches_", int))
_SAVED_IF_SET = (("n_averaged_", int),) + tuple((name, float64_array) for name in FEATURE_ARRAYS) + (
    ("feature_names_in_", string_list), ("validation_scores_", float64_array),
    # the columns constant in every partial_fit call so far (absent from models saved before it existed)
    ("unscaled_features_", int64_array))

LINEAR_FITTED = (tuple(Fitted(name, name, dump) for name, dump in _SAVED)
                 + tuple(Fitted(name, name, float64_array) for name in STATE_ARRAYS)
                 + tuple(Fitted(name, name, dump, optional=True) for name, dump in _SAVED_IF_SET))
