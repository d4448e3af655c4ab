"""Input validation shared by every public entry point.

Each checker names the argument, says what was expected and shows what it
received, and raises ``TypeError`` for the wrong kind of object (strings,
sparse matrices where dense ones are needed) and ``ValueError`` for the wrong
values (shape, NaN/inf, labels, a single class, k out of range): an
:class:`ArgumentRefusal` whose ``parameter`` is the name the checker was
given (``name=``) and ``detail`` the rest of its message, so that a caller
saying it again reads the fields, not the text.  Checkers return clean
arrays (float64 or int8, C-contiguous) so kernels can take them as typed
memoryviews without further checks.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._argument_refusal import ArgumentRefusal, ArgumentTypeRefusal, said_again, shown_type
from ._categories import check_numeric_categories, encode_categories
from ._frames import as_pandas_frame, column_names, refuse_duplicated_columns, refuse_peer_container
from ._numbers import as_numeric_array, first_not_finite, missing_labels, nulls_at, text_labels_hint
from ._thread_counts import effective_n_threads, hold_idle_threads, idle_thread_count, threads_for_work
from ._sparse_checks import (DENSE_BYTES_LIMIT, check_sparse_structure, dense_bytes, dense_size, dense_sparse_frame,
                             is_sparse_frame, sparse_frame_as_csr, sparse_refusal)
from .spec import reading_model_file

__all__ = [
    "ArgumentRefusal",
    "ArgumentTypeRefusal",
    "said_again",
    "shown_type",
    "is_list_of_eval_sets",
    "check_interaction_size",
    "INTERACTION_MAX_BYTES",
    "check_categorical_features",
    "check_category_order",
    "check_scores",
    "check_binary_labels",
    "check_graded_labels",
    "check_same_length",
    "check_both_classes",
    "check_labels_and_scores",
    "check_k",
    "check_matrix",
    "check_sparse_structure",
    "check_sample_weight",
    "effective_n_threads",
    "threads_for_work",
    "idle_thread_count",
    "hold_idle_threads",
    "check_random_state_param",
    "fit_seed",
    "global_random_state",
    "int_seed",
    "reject_1d",
    "check_bipartite_target",
    "single_eval_set",
    "check_fit_data",
    "check_finite_scores",
    "check_learner_matrix",
    "ordered_labels",
]


def _describe(values: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:limit])
    return "[" + shown + (", ..." if len(values) > limit else "") + "]"


#: Said after "got NaN" for a feature matrix: who takes missing values, and the other way out.
_MISSING_ADVICE = ('the push estimators with learner="trees" (rankcore.boost(learner="trees")) fit data with missing '
                   "values, or impute them first (e.g. sklearn.impute.SimpleImputer)")
NAN_HINT = "; NaN marks a missing value: " + _MISSING_ADVICE
#: after a null (pd.NA, a Polars null) of a frame, which the caller wrote as missing: the same advice
NULL_HINT = "; " + _MISSING_ADVICE


def _location(arr: np.ndarray, flat: int) -> str:
    """Where the entry at flat index ``flat`` is, in the words of the array's shape (0-based)."""
    if arr.ndim == 2:
        row, column = divmod(flat, arr.shape[1])
        return f"at row {row}, column {column}"
    if arr.ndim == 1:
        return f"at position {flat}"
    return f"at index {tuple(int(i) for i in np.unravel_index(flat, arr.shape))}"


def _csr_location(Xs: Any, k: int) -> str:
    """Where the k-th stored value of a CSR matrix is."""
    row = int(np.searchsorted(Xs.indptr, k, side="right") - 1)
    return f"at row {row}, column {int(Xs.indices[k])}"


def ordered_labels(y: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)``; object labels of mixed types are a TypeError naming ``name``.

    Numbers of at most two values (the usual binary target) are read in three
    passes instead of a sort (``np.unique`` sorts: 14 ms of 10⁵ float32
    labels, a seventh of a one-thread tree fit's setup); the same result.
    A label −0.0 (``y * -1`` on zeros, a CSV's "-0") is the label 0: the
    labels returned say 0.0, whichever zero comes first.
    """
    if y.dtype.kind in "biuf" and y.ndim == 1 and y.shape[0] > 0:
        low, high = y.min(), y.max()                      # NaN in y: both NaN, no match below
        is_high = y == high
        if low == high:
            return _plus_zero(y[:1].copy()), np.zeros(y.shape[0], dtype=np.intp)
        if np.count_nonzero(is_high) + np.count_nonzero(y == low) == y.shape[0]:
            return _plus_zero(np.array([low, high], dtype=y.dtype)), is_high.astype(np.intp)
    if y.dtype != object:
        labels, inverse = np.unique(y, return_inverse=True)
        return _plus_zero(labels), inverse
    try:
        return np.unique(y, return_inverse=True)
    except TypeError:
        raise TypeError(f"{name}: labels of mixed types cannot be ordered") from None


def _plus_zero(labels: np.ndarray) -> np.ndarray:
    """Float labels with −0.0 made +0.0 (in place), so that ``classes_`` and messages show the zero as 0.0."""
    if labels.dtype.kind == "f":
        labels += 0.0                                     # −0.0 + 0.0 = +0.0; every other value unchanged
    return labels


def _check_finite(arr: np.ndarray, name: str, *, locate=None, nan_hint: str = "", allow_nan: bool = False,
                  source: Any = None, null_hint: str = "") -> None:
    """Refuse NaN (unless ``allow_nan``) and ±inf, saying where the first one is and how many there are.

    ``locate(flat)`` words the position of a flat index (default: row and
    column of a 2-D array, the position in a 1-D one); ``nan_hint`` follows a
    NaN's message and ``null_hint`` a missing value's; ``source``: the column
    (or frame) read, whose nulls are said as such."""
    if arr.dtype.kind != "f":
        return
    found = first_not_finite(arr, allow_nan)
    if found is None:
        return
    first, count = found
    is_nan = bool(np.isnan(arr[np.unravel_index(first, arr.shape)]))
    where = (locate or (lambda i: _location(arr, i)))(first)
    expected = "numbers or NaN" if allow_nan else "finite numbers"
    # nulls the caller wrote became NaN: each kind counted as itself, the other named beside it (both to mend)
    null_first, nulls = nulls_at(source, arr, first) if source is not None and not allow_nan else (False, 0)
    what = "a missing value (null)" if null_first else "NaN" if is_nan else "infinite values"
    others = count - nulls if null_first else nulls
    besides = "" if not others else f"; and {others} NaN or infinite value{'s' * (others > 1)}" if null_first \
        else f"; and {others} missing value{'s' * (others > 1)} (null)"
    raise ArgumentRefusal.said(name, f"expected {expected}, got {what} {where} ({count - others} in all{besides})"
                                     f"{null_hint if null_first else nan_hint if is_nan else ''}")


#: Integers of larger magnitude are not all representable in float64.
_EXACT_INTEGER_LIMIT = 2**53


def _integers_as_float(arr: np.ndarray, name: str, integers: str, what: str) -> np.ndarray:
    """float64 of an integer array, keeping the order of the values exact.

    Integers beyond ±2**53 can round to the same float64 (``2**62`` and
    ``2**62 + 1`` do), which would tie distinct scores.  When that happens,
    ``integers="rank"`` replaces each value by its dense rank (exact: the
    ranks come from sorting the integers themselves), which leaves every
    order-based metric unchanged; ``integers="refuse"`` raises.
    """
    try:
        out = np.ascontiguousarray(arr, dtype=np.float64)
    except OverflowError:                           # Python integers beyond ±1.8e308
        out = None
    if out is not None and (integers == "round" or arr.size == 0):
        return out
    if out is not None and int(arr.max()) <= _EXACT_INTEGER_LIMIT and int(arr.min()) >= -_EXACT_INTEGER_LIMIT:
        return out                                  # every value is exact in float64
    if out is None and integers == "round":
        raise ArgumentRefusal.said(name, f"integer values beyond the range of float64 (e.g. {_short(arr.max())}); "
                                         "subtract a common offset or pass the scores as floats")
    if integers == "refuse-large":                  # the caller cannot compare across calls (chunks)
        raise ArgumentRefusal.said(
            name, f"integer values beyond ±2**53 (e.g. {_short(arr.max() if arr.max() > 0 else arr.min())}) "
            f"cannot all be represented in float64, and {what} cannot order them exactly; subtract a common "
            f"offset (e.g. the minimum) or pass the scores as floats"
        )
    distinct, inverse = np.unique(arr, return_inverse=True)
    if out is not None and np.unique(out).shape[0] == distinct.shape[0]:
        return out                                  # rounding merged no two values: the order is kept
    if integers == "rank":
        return np.ascontiguousarray(inverse.reshape(-1), dtype=np.float64)
    raise ArgumentRefusal.said(
        name, f"integer values beyond ±2**53 that float64 cannot tell apart (e.g. {_short(distinct[-1])}), "
        f"and {what} depends on more than their order; subtract a common offset "
        f"(e.g. the minimum) or pass the scores as floats"
    )


def _short(value: Any) -> str:
    """An integer for a message: whole when short, else its leading digits and length."""
    text = str(int(value))
    return text if len(text) <= 40 else f"{text[:12]}...({len(text.lstrip('-'))} digits)"


def check_scores(scores: Any, *, name: str = "scores", allow_empty: bool = False, integers: str = "round",
                 what: str = "this computation") -> np.ndarray:
    """Validate a 1-D vector of finite real scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
    name : str, default "scores"
        The argument's name in the error messages.
    allow_empty : bool, default False
        Accept zero scores.
    integers : {"round", "rank", "refuse", "refuse-large"}, default "round"
        What to do with integer scores beyond ±2**53 that float64 rounds
        together (distinct values would tie): ``"round"`` converts anyway,
        ``"rank"`` replaces them by their exact dense ranks (for consumers
        that only use the order), ``"refuse"`` raises a ValueError naming
        ``what``; ``"refuse-large"`` raises for any integer beyond ±2**53
        (for data seen in pieces, whose collisions cannot be checked).
    what : str, default "this computation"
        What needs the scores exact, in the message of ``"refuse"``.

    Returns
    -------
    ndarray of float64, shape (n,), C-contiguous
    """
    arr = as_numeric_array(scores, name, exact_integers=True)
    if arr.ndim == 2 and 1 in arr.shape:
        raise ArgumentRefusal.said(
            name, f"expected a 1-D array, got shape {arr.shape}; use .ravel() if a column was meant")
    if arr.ndim != 1:
        raise ArgumentRefusal.said(name, f"expected a 1-D array, got {arr.ndim}-D with shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ArgumentRefusal.said(name, "expected at least one value, got an empty array")
    if arr.dtype.kind in "iuO":                      # O: Python integers beyond int64, kept exact
        return _integers_as_float(arr, name, integers, what)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    _check_finite(arr, name, source=scores)
    return arr


def check_binary_labels(y: Any, *, name: str = "y") -> np.ndarray:
    """Validate bipartite labels: values in {0, 1} (bool, integer or float).

    Returns
    -------
    ndarray of int8, shape (n,), C-contiguous

    Labels that are not numbers (text, dates) are an
    :class:`ArgumentTypeRefusal`: a ``TypeError`` naming ``name`` in its fields.
    """
    try:
        arr = as_numeric_array(y, name)
    except TypeError as exc:
        raise ArgumentTypeRefusal.of(TypeError(text_labels_hint(y, name) or str(exc)), name) from None
    if arr.ndim != 1:
        raise ArgumentRefusal.said(name, f"expected a 1-D array of 0/1 labels, got shape {arr.shape}")
    if arr.size == 0:
        raise ArgumentRefusal.said(name, "expected at least one label, got an empty array")
    _check_finite(arr, name, source=y)
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        values = np.unique(arr[bad])
        raise ArgumentRefusal.said(
            name, f"expected binary labels in {{0, 1}} (1 = relevant), got other values {_describe(values)}"
        )
    return np.ascontiguousarray(arr, dtype=np.int8)


def check_graded_labels(y: Any, *, name: str = "y", integers: str = "round") -> np.ndarray:
    """Validate graded (real-valued) relevance labels.

    ``integers``: integer labels beyond ±2**53, as :func:`check_scores`
    (``"rank"`` for a consumer that reads only the labels' order).

    Returns
    -------
    ndarray of float64, shape (n,), C-contiguous

    Labels that are not numbers (text, dates) are an
    :class:`ArgumentTypeRefusal`, as ``fit`` refuses text grades within queries.
    """
    try:
        return check_scores(y, name=name, integers=integers)
    except TypeError as exc:
        raise ArgumentTypeRefusal.of(TypeError(text_labels_hint(y, name, graded=True) or str(exc)), name) from None


def check_same_length(**arrays: np.ndarray) -> int:
    """Check that the named arrays have the same first dimension; return it."""
    lengths = {key: (a.shape[0] if hasattr(a, "shape") else len(a)) for key, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise ValueError(f"inconsistent lengths: {shown}; expected one value per example")
    return next(iter(lengths.values()))


def check_both_classes(y: np.ndarray, *, name: str = "y", what: str = "this metric") -> tuple[int, int]:
    """Require at least one positive and one negative; return (n_pos, n_neg)."""
    n_pos = int(np.count_nonzero(y))
    n_neg = int(y.shape[0]) - n_pos
    if n_pos == 0 or n_neg == 0:
        present = "only negatives (0)" if n_pos == 0 else "only positives (1)"
        raise ArgumentRefusal.said(
            name, f"{what} needs both classes, got {present} in {y.shape[0]} labels"
        )
    return n_pos, n_neg


def check_labels_and_scores(
    y: Any, scores: Any, *, graded: bool = False, both_classes: bool = True, what: str = "this metric",
    integers: str = "round", label_integers: str = "round",
) -> tuple[np.ndarray, np.ndarray]:
    """Validate a (labels, scores) pair as every metric receives it (``integers`` for the scores and
    ``label_integers`` for graded labels: see :func:`check_scores`)."""
    y_arr = check_graded_labels(y, name="y", integers=label_integers) if graded else check_binary_labels(y, name="y")
    s_arr = check_scores(scores, name="scores", integers=integers, what=what)
    check_same_length(y=y_arr, scores=s_arr)
    if both_classes and not graded:
        check_both_classes(y_arr, what=what)
    return y_arr, s_arr


def check_k(k: Any, n: int, *, name: str = "k") -> int:
    """Resolve a "k" given as a count (int >= 1) or a fraction of ``n`` in (0, 1).

    A fraction κ becomes ``max(1, floor(κ·n + 0.5))`` (round half up).

    Raises
    ------
    TypeError
        ``k`` is not a number.
    ValueError
        A count outside [1, n], a fraction outside (0, 1), or a non-integral
        value >= 1.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Real):
        raise TypeError(f"{name}: expected an integer count or a fraction in (0, 1), got {type(k).__name__}")
    value = float(k)
    if not math.isfinite(value) or value <= 0:
        raise ArgumentRefusal.said(name, f"expected a count in [1, {n}] or a fraction in (0, 1), got {k!r}")
    if value < 1:
        return max(1, int(math.floor(value * n + 0.5)))
    if not value.is_integer():
        raise ArgumentRefusal.said(name, f"expected a whole count in [1, {n}] or a fraction in (0, 1), got {k!r}")
    count = int(value)
    if count > n:
        raise ArgumentRefusal.said(name, f"expected a count in [1, {n}] (the number of examples), got {count}")
    return count


def check_matrix(
    X: Any, *, name: str = "X", dtype: Any = np.float64, accept_sparse: bool = False, min_rows: int = 1,
    allow_nan: bool = False, null_source: Any = None,
) -> Any:
    """Validate a 2-D feature matrix of finite numbers.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
    name : str
        Used in error messages.
    dtype : numpy dtype, default float64
        The returned dtype (float32 is kept when asked for).
    accept_sparse : bool, default False
        Accept a scipy.sparse matrix and return it as CSR in canonical form:
        sorted column indices, values stored twice at one place summed, as
        ``toarray`` reads them (NaN in its stored values only with
        ``allow_nan``).
    min_rows : int
        Minimum number of rows.
    allow_nan : bool, default False
        Accept NaN (missing values, for learners that handle them); infinite
        values are refused either way.
    null_source : frame, optional
        The frame ``X`` was read from (a Polars or Arrow table made pandas):
        its nulls, which became NaN, are refused as missing values (nulls),
        not as NaN.  Default: ``X`` itself.

    Returns
    -------
    ndarray (C-contiguous) or scipy.sparse.csr_matrix
    """
    if is_sparse_frame(X):
        X = _sparse_frame(X, name, accept_sparse)
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        import scipy.sparse as sp

        check_sparse_structure(X, name=name)          # before any conversion reads the index arrays
        if not accept_sparse:
            raise sparse_refusal(X, name)
        Xs = sp.csr_matrix(X, dtype=dtype)
        check_sparse_structure(Xs, name=name)         # what LIL or DOK rows, never checked above, became
        if Xs.ndim != 2 or Xs.shape[0] < min_rows or Xs.shape[1] < 1:
            raise _shape_refusal(name, Xs.shape, min_rows)
        if not Xs.has_canonical_format:
            # a value stored twice at one place means their sum (scipy's toarray), which the kernels, reading one
            # stored value per place, would not see; a copy, so the caller's matrix is not changed
            Xs = Xs.copy()
            Xs.sum_duplicates()
        _check_finite(Xs.data, name, allow_nan=allow_nan, nan_hint=NAN_HINT, locate=lambda k: _csr_location(Xs, k))
        return Xs
    arr = as_numeric_array(X, name)
    if arr.ndim != 2:
        hint = _RESHAPE_HINT if arr.ndim == 1 else ""
        raise ArgumentRefusal.said(name, f"expected a 2-D array (n_samples, n_features), got shape {arr.shape}{hint}")
    if arr.shape[0] < min_rows or arr.shape[1] < 1:
        raise _shape_refusal(name, arr.shape, min_rows)
    arr = np.ascontiguousarray(arr, dtype=dtype)
    _check_finite(arr, name, allow_nan=allow_nan, nan_hint=NAN_HINT, null_hint=NULL_HINT,
                  source=X if null_source is None else null_source,
                  locate=lambda flat: _frame_location(arr, flat, X))
    return arr


def _frame_location(arr: np.ndarray, flat: int, X: Any) -> str:
    """:func:`_location` of a 2-D array read from ``X``, with the column's name when ``X`` is a frame."""
    where = _location(arr, flat)
    names = column_names(X)
    if names is None or arr.ndim != 2 or len(names) != arr.shape[1]:
        return where
    return f"{where} ({list(names)[flat % arr.shape[1]]!r})"


def _sparse_frame(X: Any, name: str, accept_sparse: bool) -> Any:
    """A DataFrame of ``Sparse`` columns as CSR where sparse input is taken; else the frame, if its dense copy fits.

    NumPy would read the frame cell by cell into a dense array without a
    word: kept within :data:`DENSE_BYTES_LIMIT`, refused past it.
    """
    csr = sparse_frame_as_csr(X) if accept_sparse else None
    if csr is not None:
        return csr
    if dense_bytes(X.shape) <= DENSE_BYTES_LIMIT:
        return dense_sparse_frame(X)
    if not accept_sparse:
        raise sparse_refusal(X, name)
    raise TypeError(f"{name}: a DataFrame with Sparse columns beside dense ones (or Sparse columns not filled with "
                    f"0) would be made dense here, {dense_size(X.shape)}; pass "
                    f"a scipy.sparse matrix (e.g. scipy.sparse.hstack of X.sparse.to_coo() of the Sparse columns "
                    f"and the dense ones), with missing values stored as NaN")


_RESHAPE_HINT = "; reshape a single sample with X.reshape(1, -1) (a single feature: X.reshape(-1, 1))"


def reject_1d(X: Any, *, name: str = "X") -> None:
    """Refuse a 1-D ``X`` (and a dict, an empty list, a frame with duplicated column names or an XGBoost, LightGBM
    or CatBoost data container) with rankcore's message, before scikit-learn's checks.

    (Its feature-count check, run first, would say "X does not contain any
    features"; its feature-name check fails on a dict with a KeyError, and on
    duplicated names with narwhals' ``DuplicateError``, which names no argument.)
    """
    # scikit-learn would say "X does not contain any features", or NumPy read it as one object
    refuse_peer_container(X, name)
    refuse_duplicated_columns(X, name)
    records = isinstance(X, (list, tuple)) and len(X) > 0 and isinstance(X[0], Mapping)
    if (isinstance(X, dict) and not hasattr(X, "toarray")) or records:      # (scipy's DOK matrix is a dict)
        # scikit-learn would index a dict by position (KeyError: 0), and say of JSON records "X has no features"
        what = f"a {type(X).__name__} of dicts (records: " if records else "a dict ("
        raise TypeError(f"{name}: expected a 2-D array or a DataFrame, got {what}pandas.DataFrame(X) makes one)")
    if isinstance(X, (list, tuple)) and len(X) == 0:
        raise ArgumentRefusal.said(
            name, f"expected a 2-D array (n_samples, n_features), got an empty {type(X).__name__}")
    # ndim, a shape without ndim (a Polars Series) or a flat list only: np.ndim() would trip array-likes that
    # refuse __array_function__
    flat_list = isinstance(X, (list, tuple)) and len(X) > 0 and all(np.isscalar(v) for v in X[:1])
    shape = None if hasattr(X, "ndim") else getattr(X, "shape", None)
    ndim = len(shape) if isinstance(shape, tuple) else getattr(X, "ndim", None)
    if ndim == 1 or flat_list:
        shape = getattr(X, "shape", (len(X),))
        raise ArgumentRefusal.said(name, f"expected a 2-D array (n_samples, n_features), got shape {tuple(shape)}"
                                         f"{_RESHAPE_HINT}")


def _shape_refusal(name: str, shape: tuple, min_rows: int) -> ArgumentRefusal:
    # ends in scikit-learn's wording, which its estimator checks look for
    text = f"expected at least {min_rows} row(s) and 1 column, got shape {shape}; found "
    if shape[1] < 1:
        return ArgumentRefusal.said(name, text + f"0 feature(s) (shape={shape}) while a minimum of 1 is required.")
    return ArgumentRefusal.said(name, text + f"{shape[0]} sample(s) (shape={shape}) while a minimum of {min_rows} "
                                "is required.")


def check_sample_weight(sample_weight: Any, n: int, *, name: str = "sample_weight") -> np.ndarray:
    """Validate non-negative, finite per-example weights with a positive sum."""
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    w = check_scores(sample_weight, name=name)
    if w.shape[0] != n:
        raise ArgumentRefusal.said(name, f"expected {n} weights (one per example), got {w.shape[0]}")
    if (w < 0).any():
        raise ArgumentRefusal.said(name, f"expected non-negative weights, got {_describe(w[w < 0])}")
    if not w.sum() > 0:
        raise ArgumentRefusal.said(name, "expected a positive total weight, got all zeros")
    return w


def check_flag(value: Any, *, name: str) -> bool:
    """``value`` as a bool; TypeError naming ``name`` unless it is True or False (a NumPy bool counts)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {value!r}")
    return bool(value)


def check_random_state_param(random_state: Any, *, name: str = "random_state", generator: bool = True,
                             legacy: bool = True) -> Any:
    """Check a ``random_state`` parameter without drawing from it: the one check of every ``random_state``.

    Accepts ``None``, an integer seed in [0, 2**32 - 1] (NumPy's ``RandomState``'s and scikit-learn's range, so
    every estimator takes the same seeds, whatever it seeds), a :class:`numpy.random.RandomState` (unless
    ``legacy=False``) and a :class:`numpy.random.Generator` (unless ``generator=False``).  Returns the value.
    A larger seed is taken while a model file is restored (the push estimators, ExactBoost and KernelRanker took
    such seeds before the limit, and their files load still).
    """
    kinds = tuple(t for t, ok in ((np.random.RandomState, legacy), (np.random.Generator, generator)) if ok)
    if random_state is None or isinstance(random_state, kinds):
        return random_state
    if (isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_))
            and 0 <= random_state and (random_state <= MAX_SEED or reading_model_file())):
        return random_state
    allowed = " or ".join(n for n, ok in (("RandomState", legacy), ("Generator", generator)) if ok)
    integer = isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
    shown = _short(random_state) if integer else repr(random_state)
    raise ArgumentRefusal.said(name, f"expected None, a non-negative integer seed below 2**32 or a numpy {allowed}, "
                                     f"got {shown}")


MAX_SEED = 2**32 - 1     #: The largest integer ``random_state``.


def int_seed(random_state: Any) -> Any:
    """The seed the random draws of a fit derive from, for a checked ``random_state``.

    An integer seed is itself; a :class:`numpy.random.RandomState` gives one
    draw in [0, 2**31 - 1) (and advances); None and a
    :class:`numpy.random.Generator` stay as they are (:func:`fit_seed` reads
    None as the estimators do).  ``int_seed(check_random_state(rs))``
    is the seed of the RandomState that scikit-learn makes of ``rs``.
    """
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    return random_state


def fit_seed(random_state: Any) -> Any:
    """The seed of a fit for a checked ``random_state``, read as scikit-learn reads it: None is one draw from NumPy's
    global ``RandomState`` (``check_random_state(None)``: ``np.random.seed`` makes a fit with None repeat, and every
    rankcore estimator reads None alike); otherwise :func:`int_seed`'s (an integer itself, a ``RandomState`` one
    draw, a ``Generator`` itself)."""
    return int_seed(global_random_state() if random_state is None else random_state)


def global_random_state() -> np.random.RandomState:
    """NumPy's global ``RandomState``, which ``np.random.seed`` seeds: what ``sklearn.utils.check_random_state(None)``
    returns, and where every ``random_state=None`` of rankcore draws from (estimators, intervals, importances)."""
    return np.random.mtrand._rand


def check_category_order(y: Any, *, name: str = "y") -> None:
    """Refuse an ordered pandas categorical target whose declared order is not its labels' sorted order.

    The relevant class is the greater label by value; an ordered categorical
    ``["low", "high"]`` declares "high" the greater, which sorting the text
    reverses: "low" would rank first, silently.  Other targets pass.
    """
    dtype = getattr(y, "dtype", None)
    if not getattr(dtype, "ordered", False) or not hasattr(dtype, "categories"):
        return
    codes = np.unique(np.asarray(getattr(y, "cat", y).codes))
    present = [dtype.categories[int(c)] for c in codes if c >= 0]
    try:
        agrees = present == sorted(present)
    except TypeError:
        agrees = False
    if not agrees:
        raise ArgumentRefusal.said(
            name, f"an ordered categorical whose order ({' < '.join(map(str, present))}) is not its "
                         f"labels' sorted order; the greater label by value ranks first here, so give the relevant "
                         f"class as 1: (y == {present[-1]!r}).astype(int)")


def check_bipartite_target(y: Any, *, name: str = "y", more_classes_hint: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Validate the target of a bipartite ranking estimator.

    Any two distinct labels are accepted, as scikit-learn classifiers accept
    them; the *greater* one (``classes_[1]`` after sorting: 1 in {0, 1},
    +1 in {-1, +1}, True in {False, True}) is the relevant class that should
    rank at the top.  ``more_classes_hint``: appended (after "; ") to the
    error for more than two classes, to say what else the caller can fit.

    Returns
    -------
    y01 : ndarray of int8
        1 for the relevant class, 0 otherwise.
    classes : ndarray, shape (2,)
        The two labels, sorted.

    Raises
    ------
    ValueError
        Empty, not 1-D, NaN/inf, a single class or more than two classes.
    """
    if hasattr(y, "toarray"):
        raise TypeError(f"{name}: expected a 1-D array of labels, got a sparse matrix")
    check_category_order(y, name=name)
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        raise ArgumentRefusal.said(
            name, f"expected a 1-D array of labels, got a column of shape {arr.shape}; use y.ravel()")
    if arr.ndim != 1:
        raise ArgumentRefusal.said(name, f"expected a 1-D array of labels, got shape {arr.shape}")
    if arr.size == 0:
        raise ArgumentRefusal.said(name, "expected at least one label, got an empty array")
    if arr.dtype.kind == "f":
        _check_finite(arr, name, source=y)
    if arr.dtype == object and arr.ndim == 1:      # a nullable boolean or object column: None / pd.NA is missing
        missing = missing_labels(arr)
        if missing.size:
            raise ArgumentRefusal.said(
                name, f"expected a label in every row, got a missing one (None or pd.NA) at position "
                             f"{int(missing[0])} ({missing.size} in all)")
    classes, inverse = ordered_labels(arr, name)
    if classes.shape[0] != 2:
        if classes.shape[0] < 2:
            raise ArgumentRefusal.said(
                name, f"a ranking needs both classes, got only the label {_describe(classes)} (one class)")
        hint = f"; {more_classes_hint}" if more_classes_hint else ""
        raise ArgumentRefusal.said(name, f"expected two classes (bipartite ranking), got {classes.shape[0]}: "
                                         f"{_describe(classes)}{hint}")
    return np.ascontiguousarray(inverse.reshape(-1), dtype=np.int8), classes


def check_fit_data(X: Any, y: Any, *, dtype: Any = np.float64, accept_sparse: bool = False):
    """Validate ``(X, y)`` for a bipartite ranking estimator's ``fit``.

    Returns
    -------
    X : ndarray (or CSR matrix), y01 : ndarray of int8, classes : ndarray
    """
    X_arr = check_matrix(X, name="X", dtype=dtype, accept_sparse=accept_sparse)
    y01, classes = check_bipartite_target(y)
    check_same_length(X=X_arr, y=y01)
    return X_arr, y01, classes


def check_finite_scores(scores: np.ndarray, *, owner: str, X: Any = None) -> np.ndarray:
    """Raise unless every score a model computed is finite; return ``scores``.

    Every estimator's ``decision_function`` ends with this check, so no public
    call returns NaN or ±inf silently.  Finite input can still overflow
    float64 when the features (or, in a model file, the coefficients) are
    extremely large; the message says so, rather than blaming the caller's
    scores downstream.  O(n) time.

    Raises
    ------
    FloatingPointError
        Naming ``owner`` (e.g. ``"SGDAtK.decision_function"``), how many
        scores are NaN or infinite, and the largest |x| when ``X`` is given.
    """
    arr = np.asarray(scores)
    if arr.dtype.kind != "f":
        return scores
    finite = np.isfinite(arr)
    if finite.all():
        return scores
    bad = int(arr.size - np.count_nonzero(finite))
    where = ""
    if X is not None and not hasattr(X, "indptr"):
        X_arr = np.asarray(X)
        if X_arr.size and X_arr.dtype.kind in "fiu":
            where = f" (the largest |x| is {float(np.max(np.abs(X_arr))):.3g})"
    raise FloatingPointError(
        f"{owner}: {bad} of {arr.size} scores overflowed to NaN or infinity{where}: the features or the "
        f"model's coefficients are too large for float64; rescale the features (e.g. StandardScaler) "
        f"or check the model"
    )


def check_eval_columns(X: Any, feature_names: Any, *, name: str = "eval_set X") -> None:
    """A validation frame's columns must be the fit's, in the fit's order (``feature_names``: the fit's
    ``feature_names_in_``, or None when it had no names).

    ``decision_function`` refuses other columns (scikit-learn's check); an
    ``eval_set`` frame is read the same way, not by position.

    Raises
    ------
    ValueError
        Naming ``name``, the columns missing, unknown or out of order.
    TypeError, ArgumentRefusal
        As :func:`reject_1d` (a 1-D ``X``, another library's data container).
    """
    reject_1d(X, name=name)
    columns = column_names(X)
    if feature_names is None or columns is None:
        return
    got, expected = [str(c) for c in columns], [str(c) for c in feature_names]
    if got == expected:
        return
    missing = [c for c in expected if c not in got]
    unknown = [c for c in got if c not in expected]
    if missing or unknown:
        detail = "; ".join(part for part in (
            f"missing {', '.join(map(repr, missing[:5]))}{', ...' if len(missing) > 5 else ''}" if missing else "",
            f"not in fit {', '.join(map(repr, unknown[:5]))}{', ...' if len(unknown) > 5 else ''}" if unknown else "",
        ) if part)
        raise ArgumentRefusal.said(name, f"its columns must be X's in fit ({detail})")
    shown = ", ".join(map(repr, expected[:4])) + (", ..." if len(expected) > 4 else "")
    raise ArgumentRefusal.said(name, f"its columns are X's in fit in another order; put them in the fit's order "
                                     f"({shown}), as decision_function needs them")


def check_learner_matrix(X: Any, learner: Any, *, name: str = "X", categories: list | None = None,
                         feature_names: Any = None, fold: bool = False, null_source: Any = None,
                         sample_weight: Any = None) -> tuple[Any, list | None]:
    """Validate a feature matrix for a learner, as far as the learner declares it can take it.

    * float32 stays float32, anything else becomes float64;
    * NaN only for learners with ``allow_nan`` (infinite values never);
    * a ``scipy.sparse`` matrix only for learners with ``accept_sparse`` (it
      is returned as CSR, never made dense);
    * a pandas DataFrame's ``category`` columns, for learners with
      ``accept_categorical``, become codes matched by value
      (:func:`rankcore._categories.encode_categories`): at fit
      (``categories`` None) the positions of the values among the column's
      categories, later among the fit's ``categories`` (a value they do not
      list, or missing: NaN).  For other learners a category column is read
      as its values, which must be numbers (a TypeError names the column
      otherwise).
    * ``fold`` (a fit, ``categories`` None): a ``category`` column whose rows
      hold more levels than the learner's ``max_bins`` keeps its most
      frequent ones, the others read as missing values
      (:func:`rankcore._categories.fold_rare_categories`, which warns), by
      the total ``sample_weight`` of their rows when it is given.
    * ``null_source``: the frame ``X`` was read from, when the caller made a
      Polars or Arrow table pandas already: its nulls are refused as such.

    Returns
    -------
    X : ndarray (C-contiguous) or scipy.sparse.csr_matrix
    categories : list or None
        For categorical learners and a DataFrame: per column, its categories
        (None for a column that is not categorical); else None.
    """
    found = None
    given = X if null_source is None else null_source     # its nulls, NaN in the pandas frame, are named as nulls
    X = as_pandas_frame(X, name)          # once here: the checks below read it as the pandas frame it stands for
    if getattr(learner, "accept_categorical", False):
        limit = getattr(learner, "max_bins", None) if fold and categories is None else None
        X, found = encode_categories(X, categories, name=name, feature_names=feature_names, max_categories=limit,
                                     sample_weight=sample_weight)
    else:
        check_numeric_categories(X, f"the learner {getattr(learner, 'spec', learner)!r}", name=name)
    if is_sparse_frame(X):      # its stored values as CSR (or refused), before np.asarray below reads every cell
        X = _sparse_frame(X, name, bool(getattr(learner, "accept_sparse", False)))
    sparse = hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse")
    dtype = np.float32 if getattr(X if sparse else np.asarray(X), "dtype", None) == np.float32 else np.float64
    arr = check_matrix(X, name=name, dtype=dtype, allow_nan=bool(getattr(learner, "allow_nan", False)),
                       accept_sparse=sparse and bool(getattr(learner, "accept_sparse", False)), null_source=given)
    return arr, found


def check_categorical_features(value: Any, n_features: int, feature_names: Any = None,
                               *, name: str = "categorical_features") -> tuple[int, ...]:
    """The column indices an estimator's ``categorical_features`` names, ascending.

    ``value`` is None (no column), an array-like of column indices (0 to
    ``n_features`` − 1), a boolean mask of ``n_features`` entries, or column
    names of the DataFrame the estimator was fitted on (``feature_names``, as
    ``feature_names_in_``).  Anything else -- a mapping too, whose keys
    iteration would read -- is a TypeError, an index out of
    range, a mask of the wrong length or an unknown name a ValueError, each
    naming ``name``.
    """
    if value is None:
        return ()
    if isinstance(value, Mapping):
        raise TypeError(f"{name}: expected column indices, a boolean mask or column names (a list), "
                        f"got a {type(value).__name__} {value!r}")
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") and not hasattr(value, "__iter__"):
        raise TypeError(f"{name}: expected column indices, a boolean mask or column names (a list), "
                        f"got {value!r}")
    items = list(value)
    if not items:
        return ()
    if all(isinstance(v, (bool, np.bool_)) for v in items):
        if len(items) != n_features:
            raise ArgumentRefusal.said(name, f"a boolean mask must have one entry per column ({n_features}), "
                                             f"got {len(items)}")
        return tuple(int(j) for j in np.flatnonzero(items))
    if all(isinstance(v, str) for v in items):
        if feature_names is None:
            raise ArgumentRefusal.said(name, f"column names need X as a DataFrame with those columns, got names "
                                             f"{items[:3]!r}")
        position = {str(c): j for j, c in enumerate(feature_names)}
        unknown = [v for v in items if v not in position]
        if unknown:
            raise ArgumentRefusal.said(
                name, f"{unknown[0]!r} is not a column of X (columns: {list(position)[:8]!r}...)")
        return tuple(sorted({position[v] for v in items}))
    if all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in items):
        bad = [int(v) for v in items if not 0 <= int(v) < n_features]
        if bad:
            raise ArgumentRefusal.said(name, f"column {bad[0]} is not one of the {n_features} columns of X")
        return tuple(sorted({int(v) for v in items}))
    raise TypeError(f"{name}: expected column indices, a boolean mask or column names, not a mix, "
                    f"got {items[:5]!r}")


def is_list_of_eval_sets(value: Any) -> bool:
    """Whether ``eval_set`` is several sets (or a list of one) rather than one pair or triple.

    A list of tuples is LightGBM's and XGBoost's form.  A list of lists, or a tuple of tuples, is a list of
    sets too when each item's first entry is a table of rows; a list or tuple of arrays (``[X_val, y_val]``)
    stays one pair.  O(sets).
    """
    if not isinstance(value, (list, tuple)) or not value:
        return False
    if isinstance(value, list) and all(isinstance(v, tuple) for v in value):
        return True
    return all(isinstance(v, (list, tuple)) and len(v) in (2, 3) and _is_row_table(v[0]) for v in value)


def _is_row_table(X: Any) -> bool:
    """Whether X is two-dimensional: an array or frame of ndim 2, or a list of rows (lists, tuples, 1-D arrays)."""
    ndim = getattr(X, "ndim", None)
    if ndim is not None:
        return ndim == 2
    return (isinstance(X, (list, tuple)) and len(X) > 0
            and (isinstance(X[0], (list, tuple)) or getattr(X[0], "ndim", None) == 1))


def single_eval_set(eval_set: Any, *, owner: str = "this estimator") -> Any:
    """``eval_set`` of an estimator that validates on one set (ExactBoost, the precision@k linear estimators).

    Parameters
    ----------
    eval_set : Any
        A pair ``(X_val, y_val)``, or a list holding such tuples
        (LightGBM's and XGBoost's form).
    owner : str
        The estimator, named in the error.

    Returns
    -------
    Any
        The one set of a list of one; anything else unchanged (the
        estimators check it afterwards).  ``[X_val, y_val]`` stays the pair
        it is (``is_list_of_eval_sets``).

    Raises
    ------
    ValueError
        For a list of several tuples, naming ``owner``: the push estimators
        (``rankcore.boost``) score several sets, these score one.
    """
    if is_list_of_eval_sets(eval_set):
        if len(eval_set) > 1:
            raise ValueError(f"eval_set: {owner} takes one validation set, got a list of {len(eval_set)}; pass one "
                             "pair (X_val, y_val) (the boosting estimators -- rankcore.boost, PushBoost and the "
                             "Dask ones -- take several)")
        return eval_set[0]
    return eval_set


#: The largest ``feature_interactions`` output (n · (d + 1)² float64) computed unless the caller allows more: 1 GiB.
INTERACTION_MAX_BYTES = 1 << 30


def check_interaction_size(n: int, d: int, max_bytes, owner: str = "feature_interactions") -> None:
    """Refuse (``ValueError``) an output of n · (d + 1)² float64 over ``max_bytes`` bytes (None: no limit; an
    integral float such as 1e9 is that int)."""
    if isinstance(max_bytes, (float, np.floating)) and float(max_bytes).is_integer():
        max_bytes = int(max_bytes)
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer))
                                  or max_bytes < 0):
        raise ValueError(f"max_bytes: expected an int >= 0 (bytes, e.g. 2**30) or None (no limit), got {max_bytes!r}")
    size, per_row = 8 * n * (d + 1) ** 2, 8 * (d + 1) ** 2
    if max_bytes is not None and size > max_bytes:
        advice = (f"one row alone takes {per_row} bytes: pass max_bytes >= {per_row}" if per_row > max_bytes else
                  f"pass the rows in chunks of at most {int(max_bytes) // per_row}, or a larger max_bytes")
        mib = f" ({size / 2**20:.1f} MiB)" if size >= 1 << 20 else ""
        raise ValueError(f"{owner}: the output of {n} rows × {d + 1} × {d + 1} float64 takes {size} bytes{mib}, "
                         f"over max_bytes={int(max_bytes)}; {advice} (None: no limit)")
