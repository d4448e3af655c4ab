"""Polars and Arrow tables read as the pandas DataFrames they stand for: names, categories by value, missing values.

rankcore reads a pandas DataFrame by its column names, its ``category``
columns by value and refuses its text, dates and durations naming the column.
A Polars DataFrame or a PyArrow ``Table`` reaches those checks as the pandas
frame it corresponds to, made here once, at the estimator's door:

* a Polars ``Categorical`` column becomes a pandas ``category`` column of its
  values (categories sorted, as ``pd.Categorical`` sorts them: Polars' own
  order is that of a process-wide cache, so the same data would otherwise give
  another order in another session); an ``Enum`` keeps its declared order; an
  Arrow dictionary column keeps its dictionary, as pandas reads it;
* a Polars null and NaN are both missing values, as pandas' ``NA`` and NaN are;
  a Boolean or integer column with nulls becomes pandas' nullable ``boolean`` or
  ``Int64`` column (exact integers, not floats rounding past 2**53);
* a Date, Datetime, Duration or String column stays what it is, so the pandas
  checks refuse it by name -- NumPy would read a Polars frame of mixed types as
  floats, turning dates into day counts and durations into microseconds.

Neither Polars nor PyArrow is imported unless the caller's object comes from
them; pandas is needed for the conversion (a clear ``TypeError`` otherwise).

A frame of any of these kinds that names two columns alike is refused here too
(:func:`refuse_duplicated_columns`), before scikit-learn's feature-name check,
whose narwhals ``DuplicateError`` names no argument.

An XGBoost, LightGBM or CatBoost data container is refused by name
(:func:`refuse_peer_container`), wherever rows are read: NumPy would read it
as one object.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._argument_refusal import ArgumentRefusal

__all__ = ["as_pandas_frame", "computed_dask_frame", "validate_columns",
           "is_foreign_frame", "duplicated_columns", "refuse_duplicated_columns",
           "refuse_peer_container", "column_names"]


def _module(X: Any) -> str:
    return type(X).__module__ or ""


def is_foreign_frame(X: Any) -> bool:
    """Whether ``X`` is a Polars DataFrame or LazyFrame, or a PyArrow Table or RecordBatch (not imported for it)."""
    module = _module(X)
    if module.startswith("polars"):
        return type(X).__name__ in ("DataFrame", "LazyFrame")
    return module.startswith("pyarrow") and type(X).__name__ in ("Table", "RecordBatch")


def as_pandas_frame(X: Any, name: str = "X") -> Any:
    """``X`` as a pandas DataFrame when it is a Polars or Arrow table; anything else as it is.

    Parameters
    ----------
    X : any
        A Polars ``DataFrame`` or a PyArrow ``Table``/``RecordBatch`` is
        converted; a Polars ``LazyFrame`` is refused (it is a query, not
        rows); everything else is returned unchanged.
    name : str
        The argument named in errors.

    Returns
    -------
    pandas.DataFrame or X

    Raises
    ------
    ArgumentRefusal
        A ``LazyFrame``.
    TypeError
        pandas is not installed.
    """
    if not is_foreign_frame(X):
        return X
    if type(X).__name__ == "LazyFrame":
        raise ArgumentRefusal.said(name, "expected rows, got a Polars LazyFrame (a query); call .collect() on it "
                                         "first")
    try:
        import pandas as pd
    except ImportError:
        raise TypeError(f"{name}: a {type(X).__name__} from {_module(X).split('.')[0]} is read through pandas, which "
                        "is not installed; install pandas, or pass X.to_numpy() (its columns are then read by "
                        "position, and categorical columns are refused)") from None
    if _module(X).startswith("polars"):
        return _from_polars(X, pd)
    return _from_arrow(X, pd, name)


def _from_polars(frame: Any, pd: Any) -> Any:
    """A Polars DataFrame as a pandas DataFrame, column by column (no PyArrow needed)."""
    if _one_plain_kind(frame):
        # one copy, into the row-major array the estimators read: column by column, pandas would gather the
        # columns into a column-major block that the estimators' check copies again (twice the data's size)
        return pd.DataFrame(frame.to_numpy(order="c"), columns=list(frame.columns), copy=False)
    columns = {}
    for column_name in frame.columns:
        columns[column_name] = _polars_column(frame.get_column(column_name), pd)
    return pd.DataFrame(columns, columns=list(frame.columns))


def _one_plain_kind(frame: Any) -> bool:
    """Whether every column of a Polars frame (one column at least) holds one float kind, or one integer kind
    without nulls: a 2-D NumPy array of that kind then stands for it exactly."""
    kinds = set(frame.dtypes)
    if len(kinds) != 1 or frame.height == 0:
        return False
    kind = kinds.pop()
    return kind.is_float() or (kind.is_integer() and not any(frame.null_count().row(0)))


def _polars_column(s: Any, pd: Any) -> Any:
    """One Polars Series as a pandas-readable column: categories by value, nulls as pandas' missing values."""
    import polars as pl

    dtype = s.dtype
    if isinstance(dtype, pl.Enum):
        return pd.Categorical(s.cast(pl.String).to_numpy(), categories=dtype.categories.to_list())
    if isinstance(dtype, pl.Categorical):
        return pd.Categorical(s.cast(pl.String).to_numpy())           # categories sorted, by value
    if s.null_count() and (dtype == pl.Boolean or dtype.is_integer()):
        # to_numpy would give objects (booleans) or floats rounding past 2**53 (integers); pandas' nullable
        # columns keep the values and mark the nulls, which rankcore reads as missing values
        values = s.fill_null(False if dtype == pl.Boolean else 0).to_numpy()
        mask = s.is_null().to_numpy()
        if dtype == pl.Boolean:
            return pd.arrays.BooleanArray(values, mask)
        return pd.arrays.IntegerArray(values, mask)
    if dtype.is_nested():
        # a Struct or Array column's NumPy form has two dimensions, which pandas refuses naming no column: one
        # Python value per row, refused by the pandas checks by the column's name
        values = np.empty(s.len(), dtype=object)
        for row, value in enumerate(s.to_list()):     # one by one: NumPy would read equal-length lists as rows
            values[row] = value
        return values
    # floats: a null becomes NaN (both are missing values); dates, durations and text keep their NumPy kinds,
    # which the pandas checks refuse by the column's name
    return s.to_numpy()


def _from_arrow(table: Any, pd: Any, name: str) -> Any:
    """A PyArrow Table or RecordBatch as pandas reads it, its Boolean columns nullable (nulls: missing values)."""
    import pyarrow as pa

    def types(arrow_type: Any) -> Any:
        if arrow_type == pa.bool_():
            return pd.BooleanDtype()          # pandas would make a Boolean column with nulls an object column
        return None

    try:
        frame = table.to_pandas(types_mapper=types)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise ArgumentRefusal.said(name, f"could not be read from Arrow ({exc})") from None
    for j, dtype in enumerate(frame.dtypes):
        if isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered:
            # a dictionary's order is that of first appearance (dictionary_encode), which the data's row order
            # decides: sorted, as pandas sorts a category column's values, unless the dictionary is ordered
            try:
                frame.isetitem(j, frame.iloc[:, j].cat.reorder_categories(sorted(dtype.categories)))
            except TypeError:                  # values of kinds that do not compare: the dictionary's order
                pass
    return frame


def duplicated_columns(X: Any) -> list:
    """The column names a frame ``X`` holds more than once, each once, in the order of the columns ([] for an
    array, or a frame whose names are unique)."""
    columns = column_names(X)
    if columns is None or isinstance(columns, str):
        return []
    try:
        names = list(columns)
        counts: dict = {}
        for column in names:
            counts[column] = counts.get(column, 0) + 1
    except TypeError:           # not a sequence of names (an unhashable name): scikit-learn's checks say it
        return []
    return [column for column, count in counts.items() if count > 1]


def refuse_duplicated_columns(X: Any, name: str = "X") -> None:
    """An :class:`ArgumentRefusal` of ``name`` when the frame ``X`` names two columns alike (in memory and on Dask,
    the same words): a fit records the names (``feature_names_in_``) and prediction finds the columns by them."""
    repeated = sorted({str(c) for c in duplicated_columns(X)})
    if repeated:
        raise ArgumentRefusal.said(name, f"expected unique column names, got {repeated[:5]!r} more than once; give "
                                         "each column a name of its own")


def column_names(X: Any) -> Any:
    """A frame's column names, None for an array: an Arrow table's ``column_names`` (its ``columns`` are the
    columns' data), any other frame's ``columns``."""
    return getattr(X, "column_names", None) if hasattr(X, "num_columns") else getattr(X, "columns", None)


def computed_dask_frame(X: Any) -> Any:
    """A Dask DataFrame given to an in-memory estimator as the pandas DataFrame it computes to; anything else as is.

    NumPy already computes a Dask array or a numeric Dask DataFrame when it
    reads one; a frame with ``category`` columns, whose categories are read
    from pandas, would instead fail on a Dask attribute.  Computed here, it
    is read as that pandas frame: names and categories by value.  Dask is
    not imported for it.
    """
    if _module(X).startswith("dask.") and type(X).__name__ == "DataFrame" and hasattr(X, "compute"):
        return X.compute()
    return X


def refuse_peer_container(X: Any, name: str = "X") -> None:
    """A ``TypeError`` naming ``name`` when ``X`` is an XGBoost, LightGBM or CatBoost data container (``DMatrix``,
    ``Dataset``, ``Pool``): rankcore reads the rows they were built from, not them (by the top-level package of the
    object's class, so a user's module ``lightgbm_utils`` is not one)."""
    container = _module(X).partition(".")[0]
    if container in ("xgboost", "lightgbm", "catboost"):
        article = "an" if container == "xgboost" else "a"
        raise TypeError(f"{name}: got {article} {container}.{type(X).__name__}, which rankcore does not read; pass the "
                        "array or DataFrame it was built from (its labels as y, its qid as qid=, its group sizes as "
                        "group=)")


def validate_columns(estimator: Any, X: Any, *, reset: bool) -> None:
    """scikit-learn's ``validate_data(estimator, X, reset=reset, skip_check_array=True)``: feature names and count.

    A NumPy array scored by a model fitted without feature names has no names to check, so only the count is
    (with scikit-learn's own check and message): ``validate_data`` would otherwise ask narwhals whether the array
    is a dataframe and build the estimator's tags, on every call -- a third of a one-row request's cost.  Anything
    else (a fit, a frame, a list, a model with ``feature_names_in_``) goes through ``validate_data`` as before.
    """
    from sklearn.utils.validation import _check_n_features, validate_data

    if not reset and type(X) is np.ndarray and getattr(estimator, "feature_names_in_", None) is None:
        _check_n_features(estimator, X, reset=False)
        return
    validate_data(estimator, X, reset=reset, skip_check_array=True)
