"""Linear learners for precision@k: Perceptron@k-avg/max and SGD@k-avg/max/struct (docs/theory/precision_at_k.md).

Both estimators score with a linear model s = ⟨w, x⟩ (no intercept: a shift
changes no ranking) and learn from mini-batches.  Each batch is ranked by the
current model.

k is the top of the **whole training set** (a count, or a fraction of its n
rows) and is translated to each batch as the paper does, k being a fraction
κ = k/n of every batch: k_t = round(k·b_t/n), clipped to [1, b_t]
(:func:`batch_k`).  ``k_per_batch`` gives the k of each batch directly (the
per-batch form of the paper's algorithms).  Either is then capped at the
batch's number of positives.

By default the features are standardized inside the model (the mean and
scale are fitted attributes; ``coef_`` is in the units of the input), the
returned weights are the average of the iterates after each batch
(Polyak-Ruppert averaging), and SGD@k starts from a logistic-regression warm
start; ``standardize=False, average=False`` (and ``init="zero"``) give the
paper's plain algorithms.

Edge cases, decided once for both estimators:

* A batch with no positives or no negatives carries no information about
  the order of the classes: it is skipped (no update, not counted in the
  step counter ``t_``, counted in ``n_skipped_batches_``).
* A batch with fewer positives than k uses k = n₊ for that batch: the best
  ranking then puts every positive on top, which is exactly the k = n₊
  problem (and the paper's Δ_t/|FN| would divide by zero otherwise).
* The translated k is applied to each batch (k_t = max(1, round(κ·b_t)), so
  the last, shorter batch gets proportionally fewer); a count ``k_per_batch``
  is used as is (capped at the batch size) and must not exceed ``batch_size``.
* Ties in the scores (all of them at w = 0) are not broken by position: tied
  examples share fractional membership in the top k (the expected update
  under a random order of the ties).  From w = 0 the first perceptron step is
  therefore a multiple of the difference of the class means.
"""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._blas import blas_limit
from .._peer_names import (names_peer_fit_arguments, names_peer_predict_arguments, score_takes_no_queries,
                           takes_no_sample_weight)
from .._state_fields import refuse_labels_coded_otherwise
from .._degenerate import warn_if_constant
from .._threadsafe import continues_on_a_copy, fits_on_a_copy, reads_a_snapshot
from ..base import (IterationInfo, Ranker, TrainingCurve, check_callbacks, check_eval_set, refuse_queries,
                    ignore_score_weights, run_callbacks)
from ..metrics import prec_at_k
from .._frames import validate_columns
from ..validation import (
    ArgumentRefusal,
    ArgumentTypeRefusal,
    check_category_order,
    check_finite_scores,
    check_fit_data,
    check_k,
    check_matrix,
    effective_n_threads,
    ordered_labels,
    reject_1d,
)
from ._linear_state import restore_linear_state
from ._params import LINEAR_FITTED, PERCEPTRON_PARAMETERS, SGD_PARAMETERS
from ._warm_start import logistic_start

__all__ = ["PerceptronAtK", "SGDAtK", "batch_k"]

#: Dense rows with at most this share of nonzero entries are fitted as CSR (where O(nnz) beats BLAS on n·d).
SPARSE_DENSITY = 0.1
#: ... when they hold at least this many entries (below, the conversion is not worth its time).
SPARSE_MIN_ENTRIES = 100_000


def _check_row_count(rows: Any, name: str) -> None:
    """Refuse a row count that is not an integer >= 1, naming the argument ``name``."""
    if isinstance(rows, (bool, np.bool_)) or not isinstance(rows, numbers.Integral):
        raise ArgumentTypeRefusal.said(name, f"expected an integer number of rows >= 1, got {type(rows).__name__}")
    if rows < 1:
        raise ArgumentRefusal.said(name, f"expected an integer number of rows >= 1, got {rows!r}")


def batch_k(k: Any, n: int, batch: int) -> int:
    """The k of a batch of ``batch`` rows when ``k`` is the top of n training rows.

    The paper's translation: a count k is the fraction κ = k/n of every
    batch, a fraction κ is used as is, and k_batch = round-half-up(κ·batch)
    clipped to [1, batch].  (The epoch kernels compute the same from κ.)

    >>> batch_k(50, 1000, 100), batch_k(0.05, 1000, 100), batch_k(1, 1000, 100)
    (5, 5, 1)

    Raises
    ------
    TypeError
        ``n`` or ``batch`` is not an integer.
    ValueError
        ``n`` or ``batch`` is below 1, or ``k`` is refused by ``check_k``.
    """
    # both are row counts: a batch of 0 rows would get k = 0 and a negative one a negative k
    for name, rows in (("n", n), ("batch", batch)):
        _check_row_count(rows, name)
    count = check_k(k, n)
    kappa = float(k) if float(k) < 1 else count / n
    return int(min(batch, max(1, math.floor(kappa * batch + 0.5))))


def _dense_moments(X: np.ndarray, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``((X / unit).mean(axis=0), (X / unit).std(axis=0))`` in two reads of X and no copy of it.

    The kernel repeats NumPy's additions in NumPy's order (``_moments``,
    Design A), so the numbers are NumPy's, bit for bit; one column (d = 1,
    contiguous, which NumPy sums pairwise) keeps NumPy's own expressions.
    """
    if X.shape[1] == 1 or not X.flags.c_contiguous:
        Xu = X / unit
        return Xu.mean(axis=0), Xu.std(axis=0)
    from ._moments import scaled_column_moments

    return scaled_column_moments(X, unit)


def _standardization(X) -> tuple[np.ndarray, np.ndarray]:
    """Column means and scales (standard deviations; 1 for constant columns): :func:`_column_scales` without the
    mask of the columns that vary."""
    mean, scale, _ = _column_scales(X)
    return mean, scale


def _column_scales(X, columns: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means, scales (standard deviations; 1 for constant columns) and the mask of the columns that vary.

    Computed on each column divided by a power of two near its largest
    |value|, then scaled back: exact (the same numbers as on the column
    itself wherever nothing overflows or underflows), and free of the
    overflow of the squares at |x| ≈ 1e200 and of their underflow at 1e-200.
    Sparse input is centred implicitly later (``_sgd_fast``, Design H), so
    its true mean is reported.  A column is constant when its scale is at
    most 1e-12 of its mean's magnitude (rounding noise) -- a relative rule,
    so the features' units do not matter.  Dense X: O(n·d) in three reads
    (peak, sums, squared deviations) and O(d) memory.

    ``columns`` names X's columns in the messages (X being those columns of the caller's data).

    Raises
    ------
    ValueError
        A non-constant column whose scale is subnormal (below ~2.2e-308):
        the weights in the units of the input (``coef_``) would overflow.
    """
    sparse = hasattr(X, "indptr")
    if sparse:
        peak = np.asarray(abs(X).max(axis=0).toarray(), dtype=np.float64).ravel()
    else:
        peak = np.maximum(X.max(axis=0), -X.min(axis=0))                  # max |x| without a copy of X
    unit = np.ldexp(1.0, np.frexp(np.where(peak > 0, peak, 1.0))[1])      # a power of two >= max |x|
    if sparse:
        Xu = X.copy()
        Xu.data = Xu.data / unit[Xu.indices]
        mean = np.asarray(Xu.mean(axis=0)).ravel()
        sq = np.asarray(Xu.multiply(Xu).mean(axis=0)).ravel()
        scale = np.sqrt(np.maximum(sq - mean * mean, 0.0))
    else:
        mean, scale = _dense_moments(X, unit)
    varies = scale > 1e-12 * np.abs(mean)
    mean, scale = mean * unit, scale * unit
    small = varies & (scale < np.finfo(np.float64).tiny)
    if small.any():
        j = int(np.flatnonzero(small)[0])
        j = j if columns is None else int(columns[j])
        raise ValueError(f"X: column {j} varies on a scale too small to fit a model in the units of the input "
                         f"(standard deviation {scale[j]:.3g}, a subnormal number): rescale the features")
    scale = np.where(varies, scale, 1.0)
    return np.ascontiguousarray(mean, dtype=np.float64), np.ascontiguousarray(scale, dtype=np.float64), varies


def _max_abs(X) -> float:
    """max |x| over the stored entries of a dense or CSR matrix (0 when empty), without a copy of them."""
    data = X.data if hasattr(X, "indptr") else X
    return max(float(data.max()), -float(data.min())) if data.size else 0.0


def _check_scores_stay_finite(name: str, X, rows: np.ndarray, coef: np.ndarray, center: np.ndarray,
                              peak: float) -> None:
    """Raise if the scores ⟨w, x⟩ of the training rows overflow float64.

    The kernel ranks each batch by these scores; finite but huge features
    (|x| ≈ 1e200) make them ±inf or NaN while the weights stay finite, and
    the model would score everything NaN.  The cheap bound ‖w‖₁·max|x|
    (``peak`` = max|x|, measured once per fit; no product) settles almost
    every call; only when it exceeds float64 are the scores computed.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        bound = float(np.abs(coef).sum()) * (peak + float(np.abs(center).max(initial=0.0)))
        if bound < 1e300:
            return
        scores = np.asarray(X[rows] @ coef, dtype=np.float64).reshape(-1) - float(center @ coef)
    if not np.isfinite(scores).all():
        with np.errstate(over="ignore"):
            weights = float(np.abs(coef).sum())           # inf when |w|_1 itself overflows
        if peak < 1e150 <= weights:     # ordinary features: the steps grew the weights (a huge eta0), not the data
            raise FloatingPointError(f"{name}: the training scores <w, x> overflow float64: the weights grew to "
                                     f"|w|_1 = {weights:.3g} on features of at most {peak:.3g}; lower eta0 or set "
                                     "radius / alpha")
        raise FloatingPointError(
            f"{name}: the training scores <w, x> overflow float64 (the largest |x| is {peak:.3g}); "
            "rescale the features (e.g. StandardScaler) before fitting"
        )


class _LinearAtK(Ranker):
    """Shared machinery: validation, the epoch loop, streams, scoring, persistence."""

    _rule = "sgd"
    fitted = LINEAR_FITTED
    iteration_parameter = "n_epochs"
    accepts_sparse = True

    # ------------------------------------------------------------------
    # what subclasses define
    def _kind(self, params) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _hyper(self, params) -> tuple[float, float, float]:
        """(eta0, alpha, radius); radius 0 means no projection."""
        return 1.0, 0.0, 0.0

    def _init_kind(self, params) -> str:
        return "zero"

    # ------------------------------------------------------------------
    def _epoch_settings(self, n_rows: int) -> dict:
        """Every parameter checked (k against ``n_rows`` training rows): the settings of the epoch kernel."""
        checked = self._check_params()
        batch_size = checked.batch_size
        n_epochs = checked.n_epochs
        # k: the top of the whole training set (n_rows), translated to each batch -- unless k_per_batch sets the
        # batches' top, when k only scores (``score``, the validation set): its form is checked, not its size here
        k = checked.k
        kpb = checked.k_per_batch
        k_total = check_k(k, n_rows if kpb is None else 2**62)
        k_fraction = float(k) if float(k) < 1 else k_total / n_rows
        k_count = 0
        if kpb is not None:
            # the per-batch form: a count of each batch or a fraction of each batch
            if 0 < float(kpb) < 1:
                k_count, k_fraction = 0, float(kpb)
            else:
                k_count, k_fraction = check_k(kpb, 2**62, name="k_per_batch"), 0.0
                # against batch_size as set (a shorter batch, a call's last rows or a short partial_fit, caps k);
                # without one, against the rows of this call, every one of its batch
                batch = n_rows if batch_size is None else batch_size
                if k_count > batch:
                    size = (f"the batch size ({batch} rows)" if batch_size is not None
                            else f"the rows of each batch (batch_size=None: the call's {batch} rows)")
                    raise ValueError(f"k_per_batch: a count must not exceed {size}, got {kpb!r}; give fewer, a "
                                     "fraction of each batch, or k for the whole training set")
        n_threads = effective_n_threads(checked.n_jobs)
        eta0, alpha, radius = self._hyper(checked)
        kind = self._kind(checked)
        init = self._init_kind(checked)
        return dict(batch_size=batch_size, n_epochs=n_epochs, k_count=k_count, k_fraction=k_fraction,
                    n_threads=n_threads, eta0=eta0, alpha=alpha, radius=radius, kind=kind, init=init)

    def _call_settings(self, n_rows: int) -> dict:
        """:meth:`_epoch_settings` for a ``partial_fit`` call of ``n_rows`` rows, a count ``k`` above them refused
        in the words of a stream (an hour with fewer events than k), not of a training set."""
        try:
            return self._epoch_settings(n_rows)
        except ArgumentRefusal as exc:
            k = self.k
            count = isinstance(k, numbers.Real) and not isinstance(k, (bool, np.bool_)) and float(k) >= 1
            if exc.parameter != "k" or not (count and float(k) > n_rows):
                raise
            raise ArgumentRefusal.said(
                "k", f"a count is the top of the rows of each partial_fit call, and this call has {n_rows} "
                f"row(s), fewer than k = {k!r}; give k as a fraction of the rows (the same in every call)") from None

    def _init_state(self, X, y01: np.ndarray, params: dict) -> None:
        """Standardization, the starting weights and empty records, from the first data seen."""
        d = X.shape[1]
        if self.standardize:
            self.feature_mean_, self.feature_scale_, varies = _column_scales(X)
            # scaled later, by the first partial_fit call in which they vary (_scale_new_columns)
            self.unscaled_features_ = np.flatnonzero(~varies).astype(np.int64)
        else:
            self.feature_mean_, self.feature_scale_ = np.zeros(d), np.ones(d)
            self.unscaled_features_ = np.zeros(0, dtype=np.int64)
        start = np.zeros(d, dtype=np.float64)
        if params["init"] == "logistic" and 0 < int(y01.sum()) < y01.shape[0]:
            # BLAS within the fit's threads (an idle OpenBLAS pool busy-waits after each call)
            with blas_limit(params["n_threads"]):
                start = logistic_start(self._standardized(X), self._center(X), y01)
        self.iterate_ = start
        self.average_ = start.copy()
        self.coef_ = start / self.feature_scale_
        self.n_averaged_ = 0
        self.t_ = 0
        self.n_iter_ = 0
        self.n_skipped_batches_ = 0
        self.mistakes_per_epoch_ = np.zeros(0)
        self.loss_per_epoch_ = np.zeros(0)
        self.surrogate_per_epoch_ = np.zeros(0)

    def _standardized(self, X):
        """X in the units the learner works in: (X − mean) / scale (sparse: X / scale, centred by the kernel)."""
        if not self.standardize:
            return X
        if hasattr(X, "indptr"):
            Z = X.tocsr(copy=True)
            Z.data = Z.data / self.feature_scale_[Z.indices]     # a division: 1/scale may overflow
            Z.sort_indices()
            return Z
        Z = np.subtract(X, self.feature_mean_)               # one copy of X, divided in place
        Z /= self.feature_scale_
        return Z

    def _center(self, X) -> np.ndarray:
        """What the kernels subtract from the rows of ``_standardized(X)``: mean / scale for sparse X, else 0."""
        if self.standardize and hasattr(X, "indptr"):
            return np.ascontiguousarray(self.feature_mean_ / self.feature_scale_)
        return np.zeros(X.shape[1])

    def _check_standardize_kept(self) -> None:
        """Refuse ``standardize=False`` on a model that learned in standardized units (``set_params`` mid-stream).

        Its weights are in the units of ``feature_mean_``/``feature_scale_``;
        raw rows would be added to them and the model silently ruined.  The
        other way round (``standardize=True`` on a model fitted without) is
        refused too: its mean 0 and scale 1 would standardize nothing while
        the parameter said otherwise (a column of 1e6 taking steps a million
        times too large).  A model fitted with it keeps the columns not
        scaled yet in ``unscaled_features_``, never all of mean 0 and scale 1
        with none left to scale.
        """
        raw = not self.feature_mean_.any() and (self.feature_scale_ == 1.0).all()
        if not self.standardize and not raw:
            raise ArgumentRefusal.said(
                "standardize", "the model was fitted with standardize=True and its weights are in standardized "
                "units: it cannot be turned off between partial_fit calls; set it back to True, or fit anew")
        if self.standardize and raw and getattr(self, "unscaled_features_", np.zeros(0)).size == 0:
            raise ArgumentRefusal.said(
                "standardize", "the model was fitted with standardize=False and its weights are in the units of "
                "the input: it cannot be turned on between partial_fit calls (nothing would be standardized); set "
                "it back to False, or fit anew")

    def _scale_new_columns(self, X) -> None:
        """Give a scale to the columns constant in every call so far that vary in this one (``X``).

        The first call fixes the standardization, and a column constant there
        (an indicator never on in the first hour) got scale 1: were it to vary
        later on a scale of 1e6, its steps would be a million times too large
        and the model ruined.  Its weight is still (about) 0 -- a constant
        column moves no shift-invariant surrogate -- so it takes its mean and
        scale from the first call in which it varies; its weights in
        standardized units are multiplied by the new scale, which leaves
        ``coef_`` as it was.  O(n·c) for c such columns; new arrays (published
        ones are never changed in place).
        """
        columns = getattr(self, "unscaled_features_", None)
        if not self.standardize or columns is None or columns.size == 0:
            return
        mean, scale, varies = _column_scales(X[:, columns], columns)
        if not varies.any():
            return
        now = columns[varies]
        factor = scale[varies] / self.feature_scale_[now]
        self.feature_mean_, self.feature_scale_ = self.feature_mean_.copy(), self.feature_scale_.copy()
        self.iterate_, self.average_ = self.iterate_.copy(), self.average_.copy()
        self.feature_mean_[now], self.feature_scale_[now] = mean[varies], scale[varies]
        self.iterate_[now] *= factor
        self.average_[now] *= factor
        self.coef_ = (self.average_ if self.average and self.n_averaged_ else self.iterate_) / self.feature_scale_
        self.unscaled_features_ = columns[~varies]

    def _run_pass(self, Z, y01: np.ndarray, order: np.ndarray, params: dict, center: np.ndarray,
                  peak: float) -> None:
        """One pass over ``order`` of the standardized rows ``Z`` − ``center`` in mini-batches (``_sgd_fast``).

        ``peak`` is max|z| over ``Z`` (:func:`_max_abs`), for the overflow check of the scores.
        """
        from . import _sgd_fast, _surrogates

        batch_size = params["batch_size"] or Z.shape[0]
        batch_size = max(1, min(batch_size, order.shape[0]))
        average = None
        if self.average:
            average = self.average_ if self.n_averaged_ else np.zeros_like(self.iterate_)
        state = _sgd_fast.LinearState(self.iterate_, self.t_, average, self.n_averaged_ if self.average else 0)
        args = (batch_size, params["k_count"], params["k_fraction"], _sgd_fast.RULES[self._rule],
                _surrogates.KINDS[params["kind"]], params["eta0"], params["alpha"], params["radius"],
                state, params["n_threads"])
        if hasattr(Z, "indptr"):
            stats = _sgd_fast.epoch_csr(Z.data, Z.indices, Z.indptr, y01, order, *args, center=center)
        else:
            stats = _sgd_fast.epoch_dense(Z, y01, order, *args)
        iterate = state.coef()
        model = state.average() if (self.average and state.n_averaged) else iterate
        if not (np.isfinite(iterate).all() and np.isfinite(model).all()):
            raise FloatingPointError(
                f"{type(self).__name__}: the weights overflowed; lower eta0 or set radius / alpha"
            )
        _check_scores_stay_finite(type(self).__name__, Z, order, model, center, peak)
        with np.errstate(over="ignore"):
            coef = model / self.feature_scale_
        if not np.isfinite(coef).all():
            j = int(np.flatnonzero(~np.isfinite(coef))[0])
            raise ValueError(f"X: column {j} varies on a scale too small to express coef_ in the units of the "
                             f"input (scale {self.feature_scale_[j]:.3g}): rescale the features")
        self.iterate_ = iterate
        self.average_ = model
        self.n_averaged_ = int(state.n_averaged) if self.average else 0
        self.coef_ = coef
        self.t_ = int(state.t)
        self.n_iter_ += 1
        self.n_skipped_batches_ += int(stats.n_skipped)
        used = max(stats.n_batches, 1)
        self.mistakes_per_epoch_ = np.append(self.mistakes_per_epoch_, stats.mistakes)
        self.loss_per_epoch_ = np.append(self.loss_per_epoch_, stats.loss / used if stats.n_batches else np.nan)
        self.surrogate_per_epoch_ = np.append(
            self.surrogate_per_epoch_, stats.surrogate / used if stats.n_batches else np.nan
        )

    @staticmethod
    def _canonical(X):
        """The storage the kernels work on: canonical CSR, or dense rows -- as CSR when they are mostly zeros.

        Dense rows with at most ``SPARSE_DENSITY`` nonzero entries (and at
        least ``SPARSE_MIN_ENTRIES`` entries in all) are fitted as CSR: the
        warm start's L-BFGS iterations and the epochs then cost O(nnz) instead
        of O(n·d), and both storages give the same model (to solver
        tolerance, tested).  On 6,552 rows of 1,502 count columns, 1.7 %
        nonzero, the fit fell from 3.9 s to well under a second.  Time O(n·d)
        to count and convert, memory O(nnz).
        """
        if hasattr(X, "indptr"):
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()  # the kernel's ‖x‖² needs each column once per row
            return X
        if X.size >= SPARSE_MIN_ENTRIES and np.count_nonzero(X) <= SPARSE_DENSITY * X.size:
            import scipy.sparse as sp

            return sp.csr_matrix(X)
        return X

    # ------------------------------------------------------------------
    # qid and group are refused (one list): no hint may send a peer's group_id there
    @names_peer_fit_arguments(constructor=None, refuses=("qid", "group"))
    @fits_on_a_copy
    def fit(self, X, y, *, qid=None, group=None, eval_set=None, callbacks=None):
        """Fit on ``(X, y)`` for ``n_epochs`` passes over shuffled mini-batches.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Dense input is used as float64 C-contiguous; sparse input as CSR
            (updates then cost O(nnz of the batch)).
        y : array-like of shape (n_samples,)
            Two distinct labels; the greater one is the relevant class.
        qid, group : None
            Not supported: this estimator ranks one list (a ValueError
            naming it; ``rankcore.boost`` fits within queries).
        eval_set : tuple (X_val, y_val), optional
            Validation data: its prec@k (``score``) after each epoch is
            recorded in ``validation_scores_``.  One set: a list of one pair
            is that pair, a list of several is refused.
        callbacks : callable or list of callables, optional
            Each is called after every epoch with an
            :class:`~rankcore.base.IterationInfo` (epoch, mean batch
            surrogate, validation score, elapsed seconds); a truthy return
            value ends the fit after that epoch.

        Returns
        -------
        self
        """
        refuse_queries(type(self).__name__, qid, group)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        user_callbacks = check_callbacks(callbacks)
        reject_1d(X)
        validate_data(self, X, reset=True, skip_check_array=True)
        X, y01, classes = check_fit_data(X, y, accept_sparse=True)
        X = self._canonical(X)
        params = self._epoch_settings(X.shape[0])
        validation = None
        if eval_set is not None:
            X_val, y_val = check_eval_set(eval_set, classes, X.shape[1], accept_sparse=True,
                                          feature_names=getattr(self, "feature_names_in_", None),
                                          owner=type(self).__name__)
            validation = self._canonical(X_val), y_val
            try:                                # k on the validation rows too, before any epoch
                prec_at_k(y_val, np.zeros(y_val.shape[0]), self.k)
            except ValueError as exc:
                raise ValueError(f"eval_set: {exc}") from None
        self._init_state(X, y01, params)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        Z, center = self._standardized(X), self._center(X)
        peak = _max_abs(Z)
        rng = check_random_state(self.random_state)
        started = time.perf_counter()
        scores = []
        for epoch in range(1, params["n_epochs"] + 1):
            order = rng.permutation(X.shape[0]) if self.shuffle else np.arange(X.shape[0])
            self._run_pass(Z, y01, order.astype(np.intp), params, center, peak)
            score = None
            if validation is not None:
                score = self._precision(validation[0], validation[1])
                scores.append(score)
                self.validation_scores_ = np.array(scores)
            if user_callbacks:
                info = IterationInfo(epoch, params["n_epochs"], float(self.surrogate_per_epoch_[-1]),
                                     validation_score=score, elapsed=time.perf_counter() - started)
                if run_callbacks(user_callbacks, info):
                    break
        with np.errstate(over="ignore", invalid="ignore"):
            train_scores = np.asarray(X @ self.coef_, dtype=np.float64).reshape(-1)
        warn_if_constant(train_scores, owner=type(self).__name__,
                         why="the weights are zero" if not self.coef_.any()
                         else "the weighted features are equal on every row (constant features?)")
        return self

    def _precision(self, X, y01) -> float:
        """prec@k of the current model's scores of ``X`` (k resolved on len(X), as :meth:`score`)."""
        with np.errstate(over="ignore", invalid="ignore"):
            scores = np.asarray(X @ self.coef_, dtype=np.float64).reshape(-1)
        return float(prec_at_k(y01, scores, self.k))

    def _training_curve(self) -> TrainingCurve:
        values = np.asarray(self.surrogate_per_epoch_, dtype=np.float64)
        validation = getattr(self, "validation_scores_", None)
        return TrainingCurve(np.arange(1, values.shape[0] + 1), values, validation, "mean batch surrogate",
                             None if validation is None else "prec@k", "epoch")

    @continues_on_a_copy
    @takes_no_sample_weight
    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` in mini-batches, in the given order (a stream).

        Each call continues from the current weights, average and step
        counter and appends one entry to the per-epoch records.  The rows are
        not shuffled: the caller's order is the stream's order.  The first
        call fixes the standardization and the warm start (a column constant
        there is scaled by the first call in which it varies); a count ``k``
        is translated with n = the rows of each call.  One call on a new model
        is ``fit`` with ``n_epochs=1, shuffle=False``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            A batch may hold one class only (it is then skipped, see the
            module notes), provided the two labels are known: from
            ``classes`` or from the first call's ``y``.
        classes : array-like of shape (2,), optional
            The two labels, required on the first call unless its ``y`` has both.

        Returns
        -------
        self
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        first = not hasattr(self, "coef_")
        reject_1d(X)
        validate_data(self, X, reset=first, skip_check_array=True)
        X = self._canonical(check_matrix(X, name="X", accept_sparse=True))
        check_category_order(y)
        y_arr = np.asarray(y)
        if y_arr.ndim != 1 or y_arr.shape[0] != X.shape[0]:
            raise ValueError(f"y: expected a 1-D array of {X.shape[0]} labels (one per row of X), "
                             f"got shape {y_arr.shape}")
        _refuse_weights_as_classes(classes, y_arr, type(self).__name__)
        if first:
            if classes is None:
                present = ordered_labels(y_arr, "y")[0]        # mixed types: a TypeError naming y
                if present.shape[0] != 2:
                    raise ValueError(
                        f"classes: the first call to partial_fit must see both labels or be given "
                        f"classes=[negative, positive]; y has {present.shape[0]} distinct label(s)"
                    )
                classes_ = present
            else:
                classes_ = ordered_labels(_classes_array(classes), "classes")[0]
                if classes_.shape[0] != 2:
                    raise ValueError(f"classes: expected two distinct labels, got {np.asarray(classes).tolist()!r}")
            if isinstance(y_arr.dtype, np.dtype) and y_arr.dtype.kind == "f" and not np.isfinite(y_arr).all():
                raise ValueError("y: expected finite labels, got NaN or infinite values")
        else:
            check_is_fitted(self)
            refuse_labels_coded_otherwise(self, y, source=type(self).__name__)
            classes_ = self.classes_
            if classes is not None:          # as scikit-learn's partial_fit: given again, they must be the same
                given = ordered_labels(_classes_array(classes), "classes")[0]
                if given.shape != classes_.shape or not np.array_equal(given, classes_):
                    raise ValueError(f"classes: {np.asarray(classes).tolist()!r} differs from the classes of the "
                                     f"first call, {classes_.tolist()!r}")
            if X.shape[1] != self.coef_.shape[0]:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                                 f"{self.coef_.shape[0]} features as input")
        unknown = ~np.isin(y_arr, classes_)
        if unknown.any():
            raise ValueError(
                f"y: labels must be one of {classes_.tolist()!r}, got {np.unique(y_arr[unknown])[:5].tolist()!r}"
            )
        y01 = np.ascontiguousarray(y_arr == classes_[1], dtype=np.int8)
        params = self._call_settings(X.shape[0])
        if first:
            self._init_state(X, y01, params)
            self.classes_ = classes_
            self.n_features_in_ = X.shape[1]
        else:
            self._check_standardize_kept()
            self._scale_new_columns(X)
        Z = self._standardized(X)
        self._run_pass(Z, y01, np.arange(X.shape[0], dtype=np.intp), params, self._center(X), _max_abs(Z))
        if hasattr(self, "validation_scores_"):      # a pass without validation data
            self.validation_scores_ = np.append(self.validation_scores_, np.nan)
        return self

    @names_peer_predict_arguments
    @reads_a_snapshot
    def decision_function(self, X):
        """Scores ⟨w, x⟩: the higher, the more likely relevant.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        reject_1d(X)
        validate_columns(self, X, reset=False)
        X = check_matrix(X, name="X", accept_sparse=True)
        if X.shape[1] != self.coef_.shape[0]:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.coef_.shape[0]} features as input")
        return self._checked_decision_function(X)

    def _checked_decision_function(self, X):
        """:meth:`decision_function` of rows already checked (here, or by an outer estimator such as AutoRanker:
        float64, ``n_features_in_`` columns, no NaN): the same scores, without checking them again."""
        with np.errstate(over="ignore", invalid="ignore"):
            scores = np.asarray(X @ self.coef_, dtype=np.float64).reshape(-1)
        return check_finite_scores(scores, owner=f"{type(self).__name__}.decision_function", X=X)

    @score_takes_no_queries
    @reads_a_snapshot
    def score(self, X, y, sample_weight=None):
        """prec@k of the scores on ``(X, y)``, with ``k`` resolved on len(X) (ties: fractional credit).

        ``sample_weight`` must be None (it is there for ``Pipeline.score``).
        """
        ignore_score_weights(sample_weight, self)
        scores = self.decision_function(X)
        refuse_labels_coded_otherwise(self, y, source=type(self).__name__)
        y_arr = np.asarray(y)
        if y_arr.shape != scores.shape:
            raise ValueError(f"y: expected {scores.shape[0]} labels, got shape {y_arr.shape}")
        unseen = np.setdiff1d(np.unique(y_arr), self.classes_) if y_arr.size else y_arr
        if unseen.size:
            # as the other estimators: a label never seen in fit is an error, not an irrelevant item
            raise ValueError(f"y: labels {unseen[:5].tolist()!r} were not seen in fit "
                             f"(classes {self.classes_.tolist()!r})")
        y01 = (y_arr == self.classes_[1]).astype(np.int8)
        from ..metrics import prec_at_k

        return prec_at_k(y01, scores, self.k)

    # ------------------------------------------------------------------
    # persistence (rankcore.persistence; the fields are declared in _params.LINEAR_FITTED)
    def _check_loaded_params(self, state: dict):
        return self._epoch_settings(n_rows=2**62)     # the parameters read from the file pass the same checks as in fit

    def _restore_fitted_state(self, state: dict, setup) -> None:
        restore_linear_state(self, state)


class PerceptronAtK(_LinearAtK):
    """Perceptron@k-avg and Perceptron@k-max (Kar, Narasimhan, Jain 2015).

    The rules: docs/theory/precision_at_k.md#perceptron-learners.

    On each mini-batch, rank by the current scores; FP are the negatives in
    the top k, FN the positives outside it, Δ_t = |FP|.  If Δ_t > 0:

    * ``variant="avg"``: w ← w − Σ_FP x + (Δ_t/|FN|) Σ_FN x   (mistake bound against the avg surrogate)
    * ``variant="max"``: w ← w − Σ_FP x + Σ_{Δ_t highest-scored FN} x   (against the max surrogate)

    Defaults: averaged (the mean of the iterates after each batch: the
    averaged perceptron), on internally standardized features, batches of 64
    rows (at 5 % of a batch that is k_b = 3), 25 passes (the paper's budget).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The model's weights in the units of the input: scores are X @ coef_.
    iterate_ : ndarray of shape (n_features,)
        The last iterate, in standardized units (where learning continues).
    average_ : ndarray of shape (n_features,)
        The model in standardized units: the average of the iterates (the
        last iterate with ``average=False``); ``coef_ = average_ / feature_scale_``.
    n_averaged_ : int
        Iterates in the average (0 with ``average=False``).
    feature_mean_, feature_scale_ : ndarray of shape (n_features,)
        The standardization (zeros and ones with ``standardize=False``).
    unscaled_features_ : ndarray of int64
        The columns constant in every call so far (scale 1): ``partial_fit``
        scales each by the first call in which it varies.
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the relevant class.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame with string column names.
    t_ : int
        Batches used so far (skipped ones excluded).
    n_iter_ : int
        Passes done: epochs of ``fit`` plus calls of ``partial_fit``.
    mistakes_per_epoch_ : ndarray of shape (n_iter_,)
        Σ_t Δ_t of each pass: false positives in the batches' top k, before
        each update (fractional at ties) -- the paper's cumulative mistake value.
    loss_per_epoch_ : ndarray of shape (n_iter_,)
        Mean over the pass's batches of the prec@k loss Δ_t / k_t; NaN for a
        pass whose batches were all skipped.
    surrogate_per_epoch_ : ndarray of shape (n_iter_,)
        Mean over the batches of the surrogate of the mistake bound
        (``variant``), normalized by k_t, before each update; NaN for a pass
        whose batches were all skipped.
    n_skipped_batches_ : int
        Batches without positives or without negatives.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from rankcore import PerceptronAtK
    >>> X, y = make_classification(n_samples=600, weights=[0.9], random_state=0)
    >>> model = PerceptronAtK(k=0.05, random_state=0).fit(X, y)
    >>> round(model.score(X, y), 2) >= 0.5
    True
    """

    name, aliases, parameters = "PerceptronAtK", ("perceptron@k", "perceptron"), PERCEPTRON_PARAMETERS
    summary = "Perceptron@k (avg or max)"
    examples = ("PerceptronAtK:k=5,n_epochs=3,random_state=0",)
    _rule = "perceptron"

    def _kind(self, params) -> str:
        return params.variant


class SGDAtK(_LinearAtK):
    """SGD@k-avg, SGD@k-max and the struct-SVM (1PMB-style) baseline.

    The rule: docs/theory/precision_at_k.md#stochastic-gradient-learners.

    Mini-batch projected subgradient descent on a precision@k surrogate of
    each batch: w ← Π(w − η_t ∇_w surrogate_t(w)), η_t = η₀/√t, the surrogate
    normalized by k_t, Π the projection on the ball ‖w‖ <= ``radius`` (if set),
    and an optional L2 penalty (α/2)‖w‖² (w ← (1 − η_t α) w before the step).

    **Defaults, and why.** On twelve public datasets (5 stratified 70/30
    splits each, ``benchmarks/precision_at_k_comparison.py``) the paper's
    plain algorithm (w₀ = 0, η₀ = 1, last iterate) fell behind logistic
    regression on test prec@5 % and on partial AUC over FPR [0, 0.1]: the
    surrogate at k = 5 % sees a few rows per batch and its last iterate is
    noisy.  The defaults therefore (1) standardize the features inside the
    model, (2) start from an L2 logistic regression (C = 1) on them -- a
    ranking that is good over the whole list --, (3) descend the avg
    surrogate from there with small steps (η₀ = 0.03, η_t = η₀/√t, 30
    passes of 512-row batches) and (4) return the average of the iterates
    after each batch.  The surrogate then reorders the top of the list
    without losing the rest: mean test prec@5 % and pAUC@0.1 match or beat
    logistic regression's.  ``init="zero", eta0=1.0, average=False,
    standardize=False, n_epochs=10`` is the paper's algorithm (and this
    class's earlier default).

    Attributes
    ----------
    coef_, iterate_, average_, n_averaged_, feature_mean_, feature_scale_, unscaled_features_, classes_,
    n_features_in_, feature_names_in_, t_, n_iter_, mistakes_per_epoch_,
    loss_per_epoch_, n_skipped_batches_ :
        As in :class:`PerceptronAtK`.
    surrogate_per_epoch_ : ndarray of shape (n_iter_,)
        Mean over the pass's batches of the training surrogate (normalized
        by k_t), each evaluated before that batch's update; NaN for a pass
        whose batches were all skipped.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from rankcore import SGDAtK
    >>> X, y = make_classification(n_samples=600, weights=[0.9], random_state=0)
    >>> model = SGDAtK(k=0.05, init="zero", eta0=0.1, batch_size=100, random_state=0).fit(X, y)
    >>> bool(model.surrogate_per_epoch_[-1] < model.surrogate_per_epoch_[0])
    True
    """

    _rule = "sgd"

    name = "SGDAtK"
    aliases = ("sgd@k", "sgd")
    summary = "SGD@k on a precision@k surrogate"
    examples = ("SGDAtK:k=5,n_epochs=3,random_state=0",)
    parameters = SGD_PARAMETERS

    def _kind(self, params) -> str:
        return params.surrogate

    def _init_kind(self, params) -> str:
        return params.init

    def _hyper(self, params) -> tuple[float, float, float]:
        return params.eta0, params.alpha, 0.0 if params.radius is None else params.radius


def _refuse_weights_as_classes(classes, y_arr: np.ndarray, owner: str) -> None:
    """Refuse ``partial_fit(X, y, w)``: the third argument is ``classes``, and weights of two values that are the
    labels (0/1: rows left out by a weight of 0) would pass as the classes, the weights ignored without a word.

    One value per row that is not ``y`` itself (``classes=y`` names the labels, as scikit-learn allows) is refused.
    """
    if classes is None or isinstance(classes, (str, bytes)):
        return
    arr = np.asarray(classes, dtype=object).ravel()
    n = y_arr.shape[0]
    if n > 2 and arr.shape[0] == n and not np.array_equal(arr, y_arr.astype(object).ravel()):
        raise ValueError(f"classes: expected the two labels, got {n} values, one per row (sample weights?); "
                         f"{owner} takes no sample weights: partial_fit's third argument is classes; use "
                         "rankcore.boost(...).fit(X, y, sample_weight=w) for weighted rows")


def _classes_array(classes) -> np.ndarray:
    """``classes`` as an array, refusing what ``np.asarray`` would quietly turn into other labels.

    A list of numbers and strings becomes strings (``[0, 'a']`` -> ``['0', 'a']``), and NaN never equals a label.
    """
    if isinstance(classes, (list, tuple)):
        kinds = {isinstance(c, str) for c in classes}
        if len(kinds) > 1:
            raise TypeError("classes: labels of mixed types (numbers and strings) cannot be ordered, "
                            f"got {[c.item() if isinstance(c, np.generic) else c for c in classes]!r}")
    arr = np.asarray(classes)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"classes: NaN is not a label, got {arr.tolist()!r}")
    return arr

