"""A DataFrame's ``category`` columns matched by value: the categories kept at fit encode the frames scored later.

pandas stores a ``category`` column as codes into its dtype's categories, so
two frames read separately -- a category missing from one of them -- give
the same value different codes.  An estimator that splits categories keeps
each category column's categories at fit and encodes every later frame's
*values* by them: a value's code is its position among the fit's categories,
and a value the fit's categories do not list becomes NaN (it goes where a
missing value goes).  A column that is categorical at fit but not later, or
the reverse, is refused, naming the column.

The categories are kept per column (None for a column that is not
categorical) as NumPy arrays; a model file holds them as lists of strings or
booleans, or as integer or float arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._argument_refusal import ArgumentRefusal
from ._caller import outside_stacklevel
from ._frames import as_pandas_frame

__all__ = ["encode_categories", "check_numeric_categories", "categories_to_state", "categories_from_state",
           "category_columns", "FittedOnNumbers", "NUMBERS_FIT", "warn_no_category_matches", "wide_integer_columns",
           "refuse_inexact_ids", "warn_unused_categories", "fold_rare_categories", "warn_unlisted_categories",
           "folded_level_counts", "CategoryFoldWarning"]

#: Integers beyond ±2**53 are not all float64 numbers: two such ids may read as one.
EXACT_INTEGERS = 2 ** 53

#: The refusal of a ``category`` column given to a model fitted on numbers (an array): what follows "column 'c' is a
#: pandas 'category' column, ".
NUMBERS_FIT = "but the model kept no categories (it was fitted on numbers); pass the column's values as in fit"


class CategoryFoldWarning(UserWarning):
    """A fit reads some levels of a category column as missing values: it kept only the most frequent ones
    (:func:`fold_rare_categories`), or the init model it continues does not list them
    (:func:`warn_unlisted_categories`).

    Its own class so that the command line can hold it back until the fit has been accepted: a fit refused after
    its columns were encoded (its weights, its validation data) reads nothing as missing.
    """


class FittedOnNumbers(list):
    """The ``fitted`` categories of a model fitted on an array: one None per column.

    A frame scored later is encoded as for a model fitted on a DataFrame without ``category`` columns -- such a
    column is refused by name -- rather than by its own codes, which would put each row's category code where the
    fit read the column's values (the fallback kept for model files written before categories were kept).
    """


def _is_frame(X: Any) -> bool:
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def _category_columns(frame: Any) -> list[bool]:
    import pandas as pd

    return [isinstance(dtype, pd.CategoricalDtype) for dtype in frame.dtypes]


def category_columns(X: Any) -> tuple[int, ...]:
    """The positions of a pandas DataFrame's ``category`` columns (a Polars or Arrow table's too; none for anything
    else)."""
    X = as_pandas_frame(X)
    if not _is_frame(X):
        return ()
    return tuple(j for j, is_cat in enumerate(_category_columns(X)) if is_cat)


def encode_categories(X: Any, fitted: list | None, *, name: str = "X", feature_names: Any = None,
                      warn: bool = True, max_categories: int | None = None,
                      sample_weight: Any = None) -> tuple[Any, list | None]:
    """``X`` with its ``category`` columns replaced by float64 codes (missing and unseen values: NaN).

    Parameters
    ----------
    X : DataFrame, array-like or sparse matrix
        Anything else than a pandas DataFrame is returned as it is.
    fitted : list or None
        Per column, the categories kept at fit (None for a column that was
        not categorical; :class:`FittedOnNumbers` for a model fitted on an
        array).  None at fit -- and for a model saved before categories were
        kept -- encodes a frame by its own categories.
    name : str
        The argument named in errors (``"X"``, ``"eval_set X"``).
    feature_names : array-like of str, optional
        The fit's column names, to name a column when ``X`` has none.
    warn : bool
        Warn about a column whose categories match none of the fit's, being
        of another kind (:func:`warn_no_category_matches`); False where the
        caller has warned already (a Dask partition, checked on the client).
    max_categories : int, optional
        At fit (``fitted`` None): the most categories a column may keep (the
        trees' ``max_bins``).  A column whose rows hold more levels keeps the
        most frequent ones (:func:`fold_rare_categories`, which warns) and
        its other levels become NaN, as values the fit does not list.
    sample_weight : array-like, optional
        The fit's row weights: with ``max_categories``, a level's frequency
        is the total weight of its rows (see :func:`fold_rare_categories`).

    Returns
    -------
    X : DataFrame or as given
    categories : list or None
        Per column of a DataFrame: its categories (an ndarray) or None; None
        when ``X`` is not a DataFrame.  With ``fitted``: ``fitted``.

    Raises
    ------
    ArgumentRefusal
        A ``ValueError`` of the argument ``name``.  With ``fitted``: a column
        categorical in fit but not in ``X`` or the reverse, or ``X`` not a
        DataFrame though the fit had category columns.
    """
    X = as_pandas_frame(X, name)          # a Polars or Arrow table's categorical columns are matched by value too
    if fitted is None:
        if not _is_frame(X):
            return X, None
        is_cat = _category_columns(X)
        categories = [X.iloc[:, j].cat.categories.to_numpy() if c else None for j, c in enumerate(is_cat)]
        if max_categories is not None:
            categories = fold_rare_categories(X, categories, int(max_categories), sample_weight)
        return _codes(X, categories), categories
    if not _is_frame(X):
        fitted_cat = [j for j, c in enumerate(fitted) if c is not None]
        if fitted_cat and X is not None:
            labels = [_label(j, feature_names) for j in fitted_cat]
            raise ArgumentRefusal.said(name, "the model was fitted on a DataFrame with the category column(s) "
                                       f"{', '.join(map(repr, labels[:5]))}{', ...' if len(labels) > 5 else ''}; "
                                       "pass a DataFrame with these columns of pandas 'category' dtype (their values "
                                       f"are matched to the fit's categories), got {type(X).__name__}")
        return X, fitted
    if X.shape[1] != len(fitted):
        return X, fitted              # the caller's width check names the mismatch
    for j, (now, then) in enumerate(zip(_category_columns(X), fitted)):
        if now and isinstance(fitted, FittedOnNumbers):
            raise ArgumentRefusal.said(name, f"column {X.columns[j]!r} is a pandas 'category' column, "
                                       f"{NUMBERS_FIT} (e.g. X[{X.columns[j]!r}].astype(float))")
        if now and then is None:
            raise ArgumentRefusal.said(name, f"column {X.columns[j]!r} is a pandas 'category' column but was not "
                                       f"categorical in fit; pass its values as in fit "
                                       f"(e.g. X[{X.columns[j]!r}].astype(float))")
        if then is not None and not now:
            raise ArgumentRefusal.said(name, f"column {X.columns[j]!r} was a pandas 'category' column in fit but is "
                                       f"{X.dtypes.iloc[j]} here; make it categorical (X[{X.columns[j]!r}]."
                                       f"astype('category')): its values are matched to the fit's categories")
    return _codes(X, fitted, warn), fitted


def fold_rare_categories(frame: Any, categories: list, max_categories: int, sample_weight: Any = None) -> list:
    """``categories`` with each column of more levels held by rows than ``max_categories`` cut to its most frequent.

    The trees split a column of at most ``max_bins`` categories; a column of
    more (an item id) keeps the ``max_categories`` most frequent levels
    (ties: the earlier category), listed in the column's category order, and
    its other levels -- no longer listed -- read as missing values, at fit
    and whenever the model scores.  A level's frequency is the number of its
    rows, or with ``sample_weight`` their total weight (ties: more rows
    first): the trees' bins of a number column are weighted quantiles, a
    weight of 2 fits as the row twice, and a level held only by rows of
    weight 0 (dropped rows) is kept only when fewer levels have weight.  A
    column is folded when its rows, of any weight, hold more levels than
    ``max_categories``: the trees bin every row.  A column within the limit is kept as its dtype lists it, unused
    categories included.  Warns once per folded column, naming
    it, the levels kept and folded and the share of rows (or weight)
    folded.  O(n + K log K) per column of K categories.
    """
    out = list(categories)
    weights = _fold_weights(sample_weight, frame.shape[0])
    for j, kept in enumerate(categories):
        if kept is None or len(kept) <= max_categories:
            continue
        codes = frame.iloc[:, j].cat.codes.to_numpy()
        present = codes >= 0
        rows = np.bincount(codes[present], minlength=len(kept))
        used = int(np.count_nonzero(rows))        # levels the rows hold, whatever their weight: the trees' bins
        if used <= max_categories:
            continue
        mass = rows if weights is None else np.bincount(codes[present], weights=weights[present], minlength=len(kept))
        # most weight first, then most rows; a stable sort keeps the category order among equal ones
        top = np.sort(np.lexsort((-rows, -mass))[:max_categories])
        out[j] = kept[top]
        _warn_folded(frame.columns[j], used, max_categories, codes, top, weights)
    return out


def _fold_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """The fit's row weights as float64 when they are ``n`` finite numbers >= 0, else None (rows are counted;
    the fit's own check refuses such weights right after, naming them)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        return None
    return w


def _warn_folded(column: Any, used: int, max_categories: int, codes: np.ndarray, top: np.ndarray,
                 weights: np.ndarray | None) -> None:
    """The warning of a folded column: the levels kept and folded, the share of the training rows (or weight)."""
    import warnings

    folded = codes >= 0
    folded[folded] = ~np.isin(codes[folded], top)
    folded_rows = int(np.count_nonzero(folded))
    if weights is None:
        share = f"{folded_rows / max(codes.shape[0], 1):.1%} of the training rows, {folded_rows} rows"
    else:
        share = (f"{weights[folded].sum() / weights.sum():.1%} of the training weight, {folded_rows} rows; "
                 "the levels of most weight are kept")
    warnings.warn(f"X: column {column!r} holds {used} categories, more than the trees' max_bins="
                  f"{max_categories}: the fit keeps the {max_categories} most frequent and reads the other "
                  f"{used - max_categories} as missing values ({share}), here and when the model scores; "
                  f"categories_ lists the kept ones", CategoryFoldWarning, stacklevel=outside_stacklevel())


def folded_level_counts(frame: Any, categories: list) -> list | None:
    """Per column of ``frame``, how many levels its rows hold where the fit kept fewer (``categories``, folded by
    :func:`fold_rare_categories`), else None; None when no column was folded.

    A model file records it (``category_levels_seen``), so that ``rankcore info`` can say a column was folded and
    how much of it the model reads as missing.  O(n) per column whose dtype lists more categories than were kept.
    """
    counts = [None] * len(categories)
    for j, kept in enumerate(categories):
        column = frame.iloc[:, j]
        if kept is None or len(column.cat.categories) <= len(kept):
            continue
        codes = column.cat.codes.to_numpy()
        # the levels the rows hold, counted as fold_rare_categories counts them: O(n), no sort
        used = int(np.count_nonzero(np.bincount(codes[codes >= 0], minlength=len(column.cat.categories))))
        if used > len(kept):
            counts[j] = used
    return counts if any(c is not None for c in counts) else None


def wide_integer_columns(dtypes: Any, columns: Any) -> list[int]:
    """Of ``columns``, those whose dtype (of ``dtypes``, one a column) is a 64-bit integer: ids float64 may merge."""
    out = []
    for j in columns:
        dtype = dtypes[j]
        if getattr(dtype, "kind", None) in ("i", "u") and getattr(dtype, "itemsize", 0) >= 8:
            out.append(int(j))
    return out


def refuse_inexact_ids(X: Any, columns: Any, *, name: str = "X", labels: Any = None) -> None:
    """Refuse integers beyond ±2**53 in X's ``columns`` split by category groups (``categorical_features``).

    Every column of a fit is read as float64, where such integers are not
    all distinct (2**53 and 2**53 + 1 are one number): distinct ids would
    become one category, silently.  A pandas ``category`` column keeps its
    values exactly (its categories are matched by value, not read as
    numbers).  ``X``: a pandas DataFrame or a NumPy array (anything else is
    not checked: a float column has lost the ids already); ``labels``: the
    columns' names for the message (a DataFrame's own by default).
    O(n) per 64-bit integer column among ``columns``.

    Raises
    ------
    ArgumentRefusal
        A ``ValueError`` of the argument ``name``, naming the first such column, its value and what to do.
    """
    if not columns or X is None:
        return
    frame = _is_frame(X)
    if not frame and not (isinstance(X, np.ndarray) and X.ndim == 2):
        return
    for j in wide_integer_columns(list(X.dtypes) if frame else [X.dtype] * X.shape[1], columns):
        values = X.iloc[:, j].dropna().to_numpy() if frame else X[:, j]
        if not values.shape[0]:
            continue
        low, high = int(values.min()), int(values.max())
        if max(-low, high) > EXACT_INTEGERS:
            column = X.columns[j] if frame and labels is None else _label(j, labels)
            value = high if high > EXACT_INTEGERS else low
            raise ArgumentRefusal.said(name, f"column {column!r} holds the integer {value}, beyond ±2**53, where "
                                       "float64 does not tell integers apart, so categorical_features would merge "
                                       "distinct ids silently; make the column a pandas 'category' column "
                                       f"(X[{column!r}].astype('category')), whose values are matched exactly, or map "
                                       "its ids to smaller numbers")


def check_numeric_categories(X: Any, reader: str, *, name: str = "X") -> None:
    """Refuse a DataFrame's ``category`` column of non-numeric values for ``reader``, which reads a column's values.

    A learner that does not split by category groups reads a ``category``
    column as its values; values that are not numbers (strings, say) would
    otherwise fail deep in the conversion without naming the column.

    Raises
    ------
    TypeError
        Naming the first such column, ``reader`` and what to do instead.
    """
    X = as_pandas_frame(X, name)
    if not _is_frame(X):
        return
    for j, is_cat in enumerate(_category_columns(X)):
        if is_cat and X.iloc[:, j].cat.categories.dtype.kind not in "biuf":
            raise TypeError(f"{name}: column {X.columns[j]!r} is a pandas 'category' column of non-numeric values, "
                            f"and {reader} reads a column's values; encode the column as numbers, or fit "
                            "rankcore.boost(learner='trees'), which splits by category groups")


def _label(j: int, feature_names: Any) -> Any:
    return str(feature_names[j]) if feature_names is not None and j < len(feature_names) else j


def _codes(frame: Any, categories: list, warn: bool = False) -> Any:
    """``frame`` with each column of ``categories[j]`` (not None) as its values' positions in it, as float64."""
    columns = [j for j, c in enumerate(categories) if c is not None]
    if not columns:
        return frame
    out = frame.copy()
    for j in columns:
        column = out.iloc[:, j]
        # by value: each of the frame's categories -> its position among the given ones (-1: absent)
        position, unmatched = _positions(categories[j], column.cat.categories)
        own = column.cat.codes.to_numpy()
        if position.shape[0] == 0:             # a column with no categories at all: every value missing
            out.isetitem(j, np.full(own.shape[0], np.nan))
            continue
        if warn and unmatched:
            warn_no_category_matches(frame.columns[j], categories[j], column.cat.categories)
        codes = np.where(own >= 0, position[np.maximum(own, 0)], -1).astype(np.float64)
        codes[codes < 0] = np.nan
        out.isetitem(j, codes)
    return out


#: Per fitted category array, by identity while it lives (a refit keeps new arrays; nothing is saved or pickled):
#: its index, and the last frame categories matched to it with their positions.
_LOOKUPS: dict[int, list] = {}


def _positions(kept: Any, given: Any) -> tuple[np.ndarray, bool]:
    """(the position of each of a frame column's categories ``given`` among the fit's ``kept``, -1 where absent;
    whether :func:`warn_no_category_matches` may have something to say), as ``pd.Index(kept).get_indexer(given)``.

    What does not depend on the rows is kept between calls, so that a service scoring a few rows a request does not
    build and hash the index of the fit's categories, and match the frame's categories (the same dtype each
    request) to it, on every call.  O(K) for K categories on a call whose ``given`` equal the last call's.
    """
    import weakref

    import pandas as pd

    key = id(kept)
    entry = _LOOKUPS.get(key)
    if entry is None or entry[0]() is not kept:
        try:
            alive = weakref.ref(kept, lambda _, key=key: _LOOKUPS.pop(key, None))
        except TypeError:               # not an ndarray (a list given by hand): nothing to keep it by
            return _matched(pd.Index(kept), kept, given)
        index = pd.Index(kept)
        found = _matched(index, kept, given)    # fills the index's hash table before another thread can see it
        _LOOKUPS[key] = [alive, index, (given, found[0], found[1])]
        return found
    last = entry[2]
    if last is not None and (last[0] is given or (last[0].dtype == given.dtype and last[0].equals(given))):
        return last[1], last[2]
    found = _matched(entry[1], kept, given)
    entry[2] = (given, found[0], found[1])
    return found


def _matched(index: Any, kept: Any, given: Any) -> tuple[np.ndarray, bool]:
    position = index.get_indexer(given)
    position.setflags(write=False)          # kept for later calls: read only
    # warn_no_category_matches says something only when no category matches and the kinds differ
    return position, bool(len(kept) and len(given) and not (position >= 0).any() and _kind(kept) != _kind(given))


def _kind(values: Any) -> str:
    kind = np.asarray(values).dtype.kind
    return "numbers" if kind in "iuf" else "booleans" if kind == "b" else "text"


def warn_no_category_matches(column: Any, fitted: Any, given: Any) -> None:
    """Warn when a column's categories ``given`` match none of the fit's (``fitted``) and are of another kind.

    Categories are matched by value: integers at fit and text now (a CSV
    read as text) would match none, silently, every row then taking the
    unseen categories' side.  O(K) for the K categories given.
    """
    import warnings

    import pandas as pd

    if not len(fitted) or not len(given) or _kind(fitted) == _kind(given):
        return
    if (pd.Index(fitted).get_indexer(given) >= 0).any():
        return

    seen, now = np.asarray(fitted).tolist()[0], np.asarray(given).tolist()[0]
    warnings.warn(f"X: column {column!r} holds none of the categories seen in fit (fit: {_kind(fitted)} such as "
                  f"{seen!r}; here: {_kind(given)} such as {now!r}), so every row takes the unseen categories' side; "
                  "convert the column to the fit's type",
                  UserWarning, stacklevel=outside_stacklevel())


def warn_unused_categories(X: Any, categories: list | None) -> None:
    """Warn at fit where a ``category`` column lists categories no row holds while some of its rows are missing.

    The fit keeps a column's categories as its dtype lists them, and a frame split into training and test rows
    keeps the categories of the whole: the test rows' new items are listed.  Such a category, never seen in
    training, goes right at every categorical split, where a missing value goes the side the fit chose for it --
    a category the fit does not list scores as missing instead.  Without missing values in training both go right,
    alike, so nothing is said.  O(n) per category column.
    """
    import warnings

    X = as_pandas_frame(X)
    if categories is None or not _is_frame(X):
        return
    for j, kept in enumerate(categories):
        if kept is None or not len(kept):
            continue
        # by value: a level the fit folded (not in ``kept``) is a missing value, not a listed category
        codes = _codes_by_value(X.iloc[:, j], kept)[1]
        if not (codes < 0).any():
            continue
        unused = int(np.count_nonzero(np.bincount(codes[codes >= 0], minlength=len(kept)) == 0))
        if unused:
            name = X.columns[j]
            listed = f"{unused} categor{'y' if unused == 1 else 'ies'}"
            warnings.warn(f"X: column {name!r} lists {listed} that no training row holds (its dtype keeps "
                          "them, as a frame split into training and test rows does); scored later, they go right at "
                          "every categorical split, not where the column's missing values go, as a category the fit "
                          f"does not list would; to score them as missing values, fit on "
                          f"X[{name!r}].cat.remove_unused_categories()", UserWarning, stacklevel=outside_stacklevel())


def _codes_by_value(column: Any, kept: Any) -> tuple[np.ndarray, np.ndarray]:
    """(the ``category`` column's own codes, its rows' positions among ``kept`` by value); -1 for a missing value in
    both, and in the second for a level ``kept`` does not list.  O(n + K) for K categories."""
    import pandas as pd

    own = column.cat.codes.to_numpy()
    position = pd.Index(kept).get_indexer(column.cat.categories) if len(kept) else np.full(
        len(column.cat.categories), -1)
    return own, (np.where(own >= 0, position[np.maximum(own, 0)], -1) if position.shape[0]
                 else np.full(own.shape[0], -1))


def warn_unlisted_categories(X: Any, categories: list | None) -> None:
    """Warn once per ``category`` column whose rows hold levels ``categories`` (an init model's) do not list.

    A continuation (``init_model``) reads the new rows by the init model's categories, as the model scores them:
    a level it does not list -- a new item, or one its fit folded away -- is a missing value, which the new trees
    cannot split from the other missing values until a model is fitted anew.  The warning names the column, how
    many levels and rows, and a few of the levels.  A column none of whose levels match, being of another kind,
    is left to :func:`warn_no_category_matches` (said when the frame is encoded).  O(n) per category column.
    """
    import warnings

    X = as_pandas_frame(X)
    if categories is None or not _is_frame(X):
        return
    for j, kept in enumerate(categories):
        if kept is None:
            continue
        given = X.iloc[:, j].cat.categories
        own, codes = _codes_by_value(X.iloc[:, j], kept)
        if len(kept) and len(given) and _kind(kept) != _kind(given) and not (codes >= 0).any():
            continue
        unlisted = (own >= 0) & (codes < 0)
        if not unlisted.any():
            continue
        levels = np.unique(own[unlisted])
        shown = ", ".join(repr(v) for v in np.asarray(given[levels[:3]]).tolist()) + (", ..." if levels.size > 3
                                                                                     else "")
        rows = int(np.count_nonzero(unlisted))
        warnings.warn(f"X: column {X.columns[j]!r} holds {levels.size} categor{'y' if levels.size == 1 else 'ies'} "
                      f"({shown}; {rows} row{'' if rows == 1 else 's'}) that the init model does not list: the "
                      "continuation reads them as missing values, as the model scores them, and keeps the model's "
                      "categories_, so its new trees cannot split on them until a model is fitted anew",
                      CategoryFoldWarning, stacklevel=outside_stacklevel())


def categories_to_state(categories: list) -> list:
    """The per-column categories as a model file holds them: lists of str or bool, int64 or float64 arrays.

    Unsigned integers beyond the int64 range stay uint64 (64-bit hashed ids), not wrapped to negative values.

    Raises
    ------
    ValueError
        Categories of another kind (dates, intervals, mixed types), naming the column.
    """
    out = []
    for j, values in enumerate(categories):
        if values is None:
            out.append(None)
            continue
        values = np.asarray(values)
        if values.dtype.kind == "u" and values.size and int(values.max()) > np.iinfo(np.int64).max:
            out.append(values.astype(np.uint64))     # 64-bit ids beyond int64: kept unsigned, not wrapped negative
        elif values.dtype.kind in "iu":
            out.append(values.astype(np.int64))
        elif values.dtype.kind == "f":
            out.append(values.astype(np.float64))
        elif values.dtype.kind == "b":
            out.append([bool(v) for v in values])
        elif values.dtype.kind in "OU" and all(isinstance(v, str) for v in values.tolist()):
            out.append([str(v) for v in values.tolist()])
        else:
            kinds = (", ".join(sorted({type(v).__name__ for v in values.tolist()})) if values.dtype.kind == "O"
                     else str(values.dtype))
            raise ValueError(f"categories_: column {j} has categories of type {kinds}, which a model "
                             f"file cannot hold (strings, integers, floats or booleans); convert them "
                             f"(e.g. .astype(str)) before fit")
    return out


def categories_from_state(state: Any, n_features: int) -> list:
    """The per-column categories of a model file, checked: one entry per column, distinct values.

    Raises
    ------
    ValueError
        Naming what is wrong.
    """
    if not isinstance(state, list) or len(state) != n_features:
        raise ValueError(f"must be a list of {n_features} entries (one per column), got "
                         f"{type(state).__name__}{f' of {len(state)}' if isinstance(state, list) else ''}")
    out = []
    for j, values in enumerate(state):
        if values is None:
            out.append(None)
            continue
        if isinstance(values, np.ndarray):
            ok = values.ndim == 1 and (values.dtype in (np.int64, np.uint64) or values.dtype == np.float64
                                       and not np.isnan(values).any())
            array = values
        elif isinstance(values, list) and (all(isinstance(v, str) for v in values)
                                           or all(isinstance(v, bool) for v in values)):
            ok = True
            array = np.array(values, dtype=object if values and isinstance(values[0], str) else bool)
        else:
            ok = False
        if not ok:
            raise ValueError(f"column {j}: expected None, a list of strings or booleans, or an int64, uint64 or "
                             f"float64 vector without NaN")
        if np.unique(array).shape[0] != array.shape[0]:
            raise ValueError(f"column {j}: the categories must be distinct")
        out.append(array)
    return out
