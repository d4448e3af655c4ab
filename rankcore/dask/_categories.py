"""A DataFrame's ``category`` columns on Dask: read by value, as the in-memory estimators read them.

A Dask DataFrame whose ``category`` columns have *known* categories (the
dtype lists them, the same on every partition) is encoded partition by
partition where the partitions are computed: each value becomes its position
among the column's categories, as a float64 code
(:func:`rankcore._categories.encode_categories`).  The categories come from
the dtypes, without a pass over the rows; the codes are the same on every
worker since they are matched by value, never read from a partition's own
codes.  The learner then finds which categories occur (one pass, see
:meth:`rankcore.learners.RowSource.distinct`) and splits them by groups as
in memory.

Frames scored later are encoded by the fit's categories (``categories_``),
by value: a frame whose categories are listed in another order, or whose
partitions list other categories (unknown categories are fine here), scores
as the training frame does; a value the fit's categories do not list is
missing (NaN), which the trees route as they route missing values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._categories import NUMBERS_FIT, category_columns, encode_categories, warn_no_category_matches
from .._frames import refuse_duplicated_columns

__all__ = ["frame_category_columns", "check_frame_columns", "names_a_column", "coded_dask_frame",
           "coded_local_frame", "refuse_category_columns", "fitted_categories_of", "category_frame"]


def _is_dask_frame(X: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(X, dd.DataFrame)


def frame_category_columns(X: Any) -> tuple[int, ...]:
    """The positions of the ``category`` columns of a pandas or Dask DataFrame (none for anything else); no pass."""
    if _is_dask_frame(X):
        return category_columns(X._meta)
    return category_columns(X)


#: The names of pandas' text dtypes (``StringDtype`` with either missing value, Arrow's strings).
_TEXT_DTYPES = ("str", "string", "string[python]", "string[pyarrow]", "large_string[pyarrow]")


def check_frame_columns(X: Any, name: str = "X") -> None:
    """Refuse on the client, from the dtypes (no pass), what a DataFrame's partitions would fail on later without
    naming the column: duplicate column names (ValueError) and a text column (TypeError, with the fix)."""
    refuse_duplicated_columns(X, name)         # the in-memory fit's refusal (reject_1d), word for word
    meta = X._meta if _is_dask_frame(X) else X
    for j, dtype in enumerate(meta.dtypes):
        if str(dtype) in _TEXT_DTYPES:
            column = str(X.columns[j])
            raise TypeError(f"{name}: column {column!r} holds text, not numbers; encode it as numbers, or as a pandas "
                            "'category' column for rankcore.boost(learner='trees'), which splits by category groups "
                            f"(X[{column!r}] = X[{column!r}].astype('category'), then "
                            f"X = X.categorize(columns=[{column!r}]))")


def names_a_column(categorical_features: Any) -> bool:
    """Whether ``categorical_features`` names a column before X's width is known: a boolean mask with a True entry,
    or any index or name (the fit checks them against X later).  An all-False mask names none, as in memory."""
    if categorical_features is None:
        return False
    if isinstance(categorical_features, str) or not hasattr(categorical_features, "__iter__"):
        return True                   # refused by name when the columns are resolved
    items = list(categorical_features)
    if items and np.asarray(items).dtype.kind == "b":
        return any(items)
    return bool(items)


def refuse_category_columns(X: Any, name: str, reason: str) -> None:
    """A TypeError naming the first ``category`` column of ``X`` (a pandas or Dask DataFrame), and ``reason``."""
    columns = frame_category_columns(X)
    if columns:
        column = X.columns[columns[0]]
        raise TypeError(f"{name}: column {str(column)!r} is a pandas 'category' column, {reason}")


def _meta_of_codes(meta: Any, categories: list) -> Any:
    """The empty frame a partition's codes look like: each category column float64, the others as they are."""
    out = meta.copy()
    for j, values in enumerate(categories):
        if values is not None:
            out.isetitem(j, np.empty(0, dtype=np.float64))
    return out


def _check_known(X: Any, name: str) -> None:
    for j in category_columns(X._meta):
        if not X.iloc[:, j].cat.known:
            column = str(X.columns[j])
            raise ValueError(f"{name}: column {column!r} is a 'category' column whose categories are unknown (its "
                             f"partitions may list different ones), so the fit cannot give each category one code on "
                             f"every worker; make them known first: X = X.categorize(columns=[{column!r}]) (one pass "
                             "over the column)")


def _refuse_missing(frame: Any, categories: list, name: str) -> None:
    """Training rows: a category column's missing value (NaN code) is refused by column and row, with the fix."""
    for j, values in enumerate(categories):
        if values is None:
            continue
        missing = np.flatnonzero(frame.iloc[:, j].cat.codes.to_numpy() < 0)
        if missing.shape[0]:
            column = str(frame.columns[j])
            raise ValueError(f"{name}: column {column!r} (pandas 'category') has a missing value at index "
                             f"{frame.index[missing[0]]!r}, and a Dask fit takes no missing values; give them a "
                             f"category of their own (X[{column!r}].cat.add_categories('missing').fillna('missing')), "
                             "or fit in memory")


def _coded_partition(frame: Any, categories: list, name: str, at_fit: bool) -> Any:
    """One partition with its category columns as float64 codes among ``categories``, by value; it never warns
    (on a worker, the caller would not see it): :func:`coded_dask_frame` warns on the client."""
    if at_fit:
        _refuse_missing(frame, categories, name)
    coded, _ = encode_categories(frame, categories, name=name, warn=False)
    if at_fit:
        _refuse_undeclared(frame, coded, categories, name)
    return coded


def _refuse_undeclared(frame: Any, coded: Any, categories: list, name: str) -> None:
    """Training rows: a value (not missing: ``_refuse_missing`` refused those) that the column's declared categories
    do not list -- a partition whose dtype is not the frame's meta -- is refused by column, value and index."""
    for j, values in enumerate(categories):
        if values is None:
            continue
        lost = np.flatnonzero(np.isnan(coded.iloc[:, j].to_numpy(dtype=np.float64)))
        if lost.shape[0]:
            column = str(frame.columns[j])
            raise ValueError(f"{name}: column {column!r} holds {frame.iloc[lost[0], j]!r} at index "
                             f"{frame.index[lost[0]]!r}, which is not among the column's declared categories (its "
                             f"dtype: {list(values)[:8]!r}{' ...' if len(values) > 8 else ''}); find them all: "
                             f"X[{column!r}] = X[{column!r}].cat.as_unknown(); X = X.categorize(columns=[{column!r}]) "
                             "(one pass), or give the column a dtype listing all its values")


def _partition_categories(frame: Any) -> Any:
    """The categories each column's dtype lists in this partition: one entry (an ndarray) a column, by position."""
    import pandas as pd

    return pd.Series([frame.iloc[:, i].cat.categories.to_numpy() for i in range(frame.shape[1])],
                     index=range(frame.shape[1]), dtype=object)


def _listed_categories(X: Any, columns: list[int], client: Any) -> list:
    """Per column of ``columns`` (category columns of unknown categories): the categories its partitions list,
    merged here.  One pass over these columns' partitions (they are computed, the other columns are not needed);
    only each partition's categories travel to the client: O(partitions × categories)."""
    import pandas as pd
    from dask.dataframe.utils import UNKNOWN_CATEGORIES

    listed = X.iloc[:, columns].map_partitions(_partition_categories, meta=pd.Series(dtype=object))
    found = client.compute(listed).result() if client is not None else listed.compute()
    merged = []
    for i in range(len(columns)):
        # a partition without categories (no rows) lists an empty object array, and an empty partition Dask
        # stands in for by the meta lists Dask's placeholder: neither is a category, and their kind ("text") would
        # make categories of the fit's kind look like another's
        arrays = [a for a in (_without_placeholder(a, UNKNOWN_CATEGORIES) for a in found[found.index == i].tolist())
                  if len(a)]
        merged.append(pd.Index(np.concatenate(arrays)).unique() if arrays else pd.Index([]))
    return merged


def _without_placeholder(values: np.ndarray, placeholder: str) -> np.ndarray:
    """``values`` (one partition's categories) without Dask's placeholder of unknown categories; O(K)."""
    if values.dtype != object:
        return values
    import pandas as pd

    kept = [v for v in values.tolist() if not (isinstance(v, str) and v == placeholder)]
    return values if len(kept) == len(values) else pd.Index(kept).to_numpy()     # (its own dtype once more)


def _warn_on_client(X: Any, categories: list, client: Any) -> None:
    """Warn here, where the caller sees it, about each category column whose categories match none of the fit's
    (``warn_no_category_matches``, the in-memory warning).  Known categories are read from the meta (no pass);
    columns of unknown categories (each partition lists its own) are read in one small reduction
    (:func:`_listed_categories`), as their partitions' warnings would reach the workers' logs only."""
    unknown = []
    for j, values in enumerate(categories):
        if values is None:
            continue
        if not X.iloc[:, j].cat.known:
            unknown.append(j)
            continue
        warn_no_category_matches(X.columns[j], values, X._meta.iloc[:, j].cat.categories)
    if unknown:
        for j, given in zip(unknown, _listed_categories(X, unknown, client)):
            warn_no_category_matches(X.columns[j], categories[j], given)


def coded_dask_frame(X: Any, categories: list | None, *, name: str = "X",
                     client: Any = None) -> tuple[Any, list | None]:
    """``(frame, categories)``: a Dask DataFrame with its category columns as float64 codes (lazily, by partition).

    ``categories`` None (a fit): each ``category`` column's known categories, from its dtype (a ValueError names a
    column whose categories are unknown, with the fix); the partitions' missing values are refused when computed.
    With the fit's ``categories``: the partitions are encoded by them (unknown categories are fine), and a column
    categorical in one but not the other is refused on the client, as in memory; a column whose categories match
    none of the fit's is warned about on the client, never by the partitions (``client`` computes the categories
    of the columns whose categories are unknown, one small reduction; None: the default scheduler).
    ``categories`` returned: per column, an ndarray or None (every entry None for a frame without category
    columns, as in memory).
    """
    at_fit = categories is None
    if at_fit:
        columns = frame_category_columns(X)
        categories = [X._meta.iloc[:, j].cat.categories.to_numpy() if j in columns else None
                      for j in range(len(X.columns))]
        if not columns:
            return X, categories
        _check_known(X, name)
    else:
        fitted_categories_of(X, categories, name=name)
        if not any(values is not None for values in categories):
            return X, categories
    if not at_fit:
        _warn_on_client(X, categories, client)
    meta = _meta_of_codes(X._meta, categories)
    # at fit the categories are the frame's own (nothing to warn about); when predicting, the client has warned
    coded = X.map_partitions(_coded_partition, categories, name, at_fit, meta=meta)
    return coded, categories


def coded_local_frame(X: Any, *, name: str = "X") -> tuple[Any, list | None]:
    """An in-memory pandas frame given to a Dask fit: its category columns as float64 codes, and per column its
    categories or None (None for anything but a DataFrame)."""
    coded, categories = encode_categories(X, None, name=name)       # (X itself when it is not a DataFrame)
    if categories is None:
        return X, None
    _refuse_missing(X, categories, name)
    return coded, categories


def fitted_categories_of(X: Any, fitted: list | None, *, name: str = "X", feature_names: Any = None) -> None:
    """Refuse, before any partition is computed, what the in-memory encoding refuses (with its messages): a column
    categorical at fit but not in ``X`` or the reverse, or ``X`` not a DataFrame though the fit had category
    columns.  Nothing is computed: a Dask DataFrame's dtypes are read from its meta."""
    if _is_dask_frame(X):
        if fitted is None:
            refuse_category_columns(X, name, NUMBERS_FIT)
            return
        if len(X.columns) != len(fitted):
            return                    # the caller's width check names the mismatch
        now = set(category_columns(X._meta))
        for j, then in enumerate(fitted):
            column = str(X.columns[j])
            if j in now and then is None:
                raise ValueError(f"{name}: column {column!r} is a pandas 'category' column but was not categorical "
                                 f"in fit; pass its values as in fit (e.g. X[{column!r}].astype(float))")
            if then is not None and j not in now:
                raise ValueError(f"{name}: column {column!r} was a pandas 'category' column in fit but is "
                                 f"{X.dtypes.iloc[j]} here; make it categorical (X[{column!r}].astype('category')): "
                                 "its values are matched to the fit's categories")
        return
    if fitted is not None and any(values is not None for values in fitted):
        labels = [str(feature_names[j]) if feature_names is not None else j
                  for j, values in enumerate(fitted) if values is not None]
        raise ValueError(f"{name}: the model was fitted on a DataFrame with the category column(s) "
                         f"{', '.join(map(repr, labels[:5]))}{', ...' if len(labels) > 5 else ''}; pass a Dask "
                         f"DataFrame with these columns of pandas 'category' dtype (their values are matched to the "
                         f"fit's categories), got {type(X).__name__}")


def category_frame(X: np.ndarray, names: Any, categories: list) -> Any:
    """The rows of a fit (codes) as the pandas DataFrame they were read from: each column with categories a
    ``category`` column of them (codes 0 .. K−1, none missing: the fit refused those), the others as in ``X``.

    ``names``: the columns' names (None: 0 .. d−1).  O(n·d) time and one copy of X.
    """
    import pandas as pd

    columns = {}
    for j, values in enumerate(categories):
        column = X[:, j]
        if values is not None:
            column = pd.Categorical.from_codes(column.astype(np.int64), categories=pd.Index(values))
        columns[j] = column
    frame = pd.DataFrame(columns)
    frame.columns = pd.Index(list(names) if names is not None else range(len(categories)), dtype=object)
    return frame
