"""How values of any type are read as numbers: pandas' nullable and Arrow columns, objects, big integers.

``validation``'s checkers read every array through :func:`as_numeric_array`:
pandas' missing values become NaN, integers beyond 2**53 keep their order,
text, dates and durations are refused naming the argument (and a frame's
column).
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from typing import Any

import numpy as np

from ._argument_refusal import ArgumentRefusal
from ._categories import check_numeric_categories
from ._frames import as_pandas_frame

__all__ = ["as_numeric_array", "is_pandas_na", "missing_labels", "nullable_as_nan", "large_integers_among_floats",
           "name_text_column", "refuse_text_columns", "first_not_finite", "all_finite", "null_mask", "nulls_at",
           "text_labels_hint"]


def as_numeric_array(values: Any, name: str, *, exact_integers: bool = False) -> np.ndarray:
    """``values`` as a numeric array; with ``exact_integers``, integers beyond int64 stay Python ints.

    (An object array of Python integers -- ``[10**30, 10**30 + 1]`` -- would
    otherwise be rounded to float64 here, tying the two.)
    """
    if type(values) is np.ndarray and values.dtype.kind in "biuf":
        # a plain array of real numbers, which every step below returns as it is: a scoring service's rows, told
        # without its frame and text checks (most of the checks of a one-row call)
        return values
    if hasattr(values, "toarray") or type(values).__module__.startswith("scipy.sparse"):
        raise TypeError(f"{name}: expected a dense array-like, got a sparse {type(values).__name__}")
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: expected an array of numbers, got a string")
    if isinstance(values, np.ma.MaskedArray):
        values = _unmasked(values)
    # a Polars or Arrow table as its pandas frame: NumPy would read a Polars frame of mixed kinds as floats (dates as
    # day counts), and its categorical columns as text
    values = as_pandas_frame(values, name)
    refuse_text_columns(values, name)
    values = nullable_as_nan(values)
    if exact_integers and isinstance(values, (list, tuple)) and large_integers_among_floats(values):
        # NumPy would read the list as float64, rounding 2**62 and 2**62 + 1 into one value; Python compares an
        # int with a float exactly, so as objects they keep their order
        arr = np.empty(len(values), dtype=object)
        arr[:] = list(values)
        return arr
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged nested lists and the like
        raise ArgumentRefusal.said(name, f"could not be read as an array ({exc})") from None
    if exact_integers and arr.dtype == object and arr.size and (all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in arr.flat)
            or (arr.ndim == 1 and large_integers_among_floats(arr.tolist()))):
        return arr
    if arr.dtype == object:
        _refuse_text_values(arr, values, name)
        try:
            arr = arr.astype(np.float64)
        except OverflowError:                  # a Python int or Fraction beyond the largest double
            raise ArgumentRefusal.said(name, "expected numbers within the float64 range (about ±1.8e308), got "
                                             "a larger one") from None
        except (TypeError, ValueError) as exc:
            if any(type(v).__name__ == "NAType" for v in arr.flat):
                # pandas' missing value inside an object column: a missing value, as NaN beside it is
                return as_numeric_array(np.where(is_pandas_na(arr), np.nan, arr), name)
            check_numeric_categories(values, "this estimator", name=name)      # name the category column
            name_text_column(values, name)
            # keep NumPy's reason ("float() argument must be a string or a real number, not 'dict'")
            raise TypeError(f"{name}: expected numbers, got non-numeric values of type object ({exc})") from None
    if arr.dtype.kind in "mM":     # timedelta64 is a NumPy integer: its raw counts depend on the unit (s, ms, us)
        raise TypeError(f"{name}: expected numbers, got {'durations' if arr.dtype.kind == 'm' else 'dates'} "
                        f"(dtype {arr.dtype}); convert them to numbers first (e.g. .dt.total_seconds())")
    if arr.dtype.kind in "USV" or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name}: expected numbers, got dtype {arr.dtype}")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name}: expected real numbers, got complex dtype {arr.dtype}")
    return arr


def _unmasked(values: np.ma.MaskedArray) -> np.ndarray:
    """A NumPy masked array's values with its masked entries NaN: missing values, as pandas' ``pd.NA`` are.

    ``np.asarray`` would read the numbers behind the mask (often a placeholder such as -999 or 1e20) as data:
    scores, labels and rows that look right and are not.  An array with nothing masked is its data as it is.
    """
    if not np.ma.is_masked(values):
        return np.ma.getdata(values)
    # float64 holds NaN; objects (text too, refused below as it is unmasked) keep their values beside it
    return np.ma.filled(values.astype(np.float64 if values.dtype.kind in "biuf" else object), np.nan)


def _not_numbers(dtype: Any, column: Any) -> str | None:
    """What a DataFrame column (``column()`` reads it) of ``dtype`` holds when it is text, dates or durations.

    Text is found by its values, not by whether ``float()`` reads them: a column of ``"01"``, ``"2"`` (postcodes, ids
    read as strings) would otherwise become numbers silently, as LightGBM and XGBoost refuse such columns.  ``None``
    for anything else; only an object column is read (O(n)), the others are told by their dtype.
    """
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        return None                            # the category checks read these, by value
    if pd.api.types.is_datetime64_any_dtype(dtype) or isinstance(dtype, pd.PeriodDtype):
        return "dates"
    if pd.api.types.is_timedelta64_dtype(dtype):
        return "durations"
    if isinstance(dtype, pd.StringDtype):
        return "text"
    if dtype == object and _holds_text(column().to_numpy()):
        return "text"
    return None


#: What pandas' ``infer_dtype`` says of an object array that holds no text (numbers, missing values, nothing)
_NO_TEXT = frozenset({"floating", "integer", "mixed-integer-float", "decimal", "boolean", "empty", "complex"})


def _holds_text(values: np.ndarray) -> bool:
    """Whether a 1-D object array holds a ``str`` or ``bytes``.  O(n).

    pandas' ``infer_dtype`` tells the common all-numbers case in C (a Python loop over a million objects took
    20 times as long as reading them as floats); a mixed array, or no pandas loaded, is looked at value by value.
    """
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        kind = pandas.api.types.infer_dtype(values, skipna=True)
        if kind in _NO_TEXT:
            return False
        if kind in ("string", "bytes"):
            return True
    return any(isinstance(v, (str, bytes)) for v in values)


def _refuse_text_values(arr: np.ndarray, values: Any, name: str) -> None:
    """Refuse an object array (a pandas Series, a list read as objects) that holds text, as NumPy text is refused.

    ``float()`` would read ``"01"`` as 1, and the same values in a NumPy string array, a list or a one-column
    DataFrame are refused: text is refused however it comes.  A DataFrame's columns are told apart above.
    """
    if hasattr(values, "columns"):
        return
    if _holds_text(arr.ravel()):
        example = next(v for v in arr.flat if isinstance(v, (str, bytes)))
        raise TypeError(f"{name}: expected numbers, got non-numeric text ({example!r}); convert it to numbers first "
                        "(e.g. pd.to_numeric), as text is not read as the number it spells")


def refuse_text_columns(values: Any, name: str) -> None:
    """Refuse a DataFrame's first column of text, dates or durations, naming it and what to do instead.

    Dates read as numbers would be nanosecond counts and text read by ``float()`` its digits: scores that look
    right and are not, so neither is converted here.
    """
    if not hasattr(values, "columns") or not type(values).__module__.startswith("pandas"):
        return
    for j, dtype in enumerate(values.dtypes):
        if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
            continue                           # the common case, told without reading the column
        what = _not_numbers(dtype, lambda: values.iloc[:, j])
        if what is None:
            continue
        column = values.columns[j]
        if what == "text":
            example = next((v for v in values.iloc[:, j].tolist() if isinstance(v, (str, bytes))), None)
            raise _column_refusal(name, column, "text", example)     # no example: a string column of missing values
        raise TypeError(f"{name}: column {column!r} holds {what} (dtype {dtype}), not numbers; "
                        f"drop it, or convert it to numbers first (e.g. the days since a reference date)")


def _column_refusal(name: str, column: Any, what: str, example: Any = None) -> TypeError:
    """The refusal of a DataFrame column holding ``what`` (text, dicts...), with an example value when there is one."""
    shown = "" if example is None else f" ({example!r})"
    return TypeError(f"{name}: column {column!r} holds {what}{shown}, not numbers; encode it as numbers, or as a "
                     "pandas 'category' column (Polars: Categorical or Enum) for rankcore.boost(learner='trees'), "
                     "which splits by category groups")


def name_text_column(values: Any, name: str) -> None:
    """A DataFrame's first column of values that are not numbers (dicts, objects: text is refused before NumPy
    reads the frame, by :func:`refuse_text_columns`), named with what to do rather than NumPy's reason alone."""
    if not hasattr(values, "columns") or not type(values).__module__.startswith("pandas"):
        return
    for j in range(values.shape[1]):
        column = values.iloc[:, j]
        try:
            np.asarray(column, dtype=np.float64)
        except (TypeError, ValueError):
            example = next((v for v in column.tolist() if not isinstance(v, (int, float, np.number))), column.iloc[0])
            raise _column_refusal(name, values.columns[j], f"{type(example).__name__} values", example) from None


def nullable_as_nan(values: Any) -> Any:
    """A pandas DataFrame or Series of numbers with nullable columns (``Int64``, ``Float64``, ``boolean``) as float64,
    ``pd.NA`` as NaN -- a missing value, as NaN is everywhere else; anything else as it is.

    (NumPy reads such a column as objects, and ``pd.NA`` is not a number, so a frame read with pandas' nullable
    dtypes would otherwise be refused as non-numeric.)
    """
    if not type(values).__module__.startswith("pandas"):
        return values
    dtypes = list(values.dtypes) if hasattr(values, "columns") else [getattr(values, "dtype", None)]
    nullable = [not isinstance(d, np.dtype) and getattr(d, "kind", "O") in "biuf" for d in dtypes]
    if not any(nullable):
        return values                          # plain NumPy columns: read as they are (float32 stays float32)
    if not hasattr(values, "columns") and getattr(dtypes[0], "kind", "f") in "iu" and not values.isna().any():
        # integers without a missing value keep their NumPy integer type, as a plain int64 column does: beyond
        # 2**53 float64 would round distinct scores into ties (nanosecond timestamps, 64-bit ids)
        return values.to_numpy(dtype=getattr(dtypes[0], "numpy_dtype", np.int64))
    if all(nullable) or not hasattr(values, "columns"):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    # beside columns of other kinds (objects, text): only the nullable ones are read as numbers here, and the
    # checks below take or name the others
    out = values.copy()
    for j in np.flatnonzero(nullable):
        out.isetitem(int(j), values.iloc[:, int(j)].to_numpy(dtype=np.float64, na_value=np.nan))
    return out


def is_pandas_na(arr: np.ndarray) -> np.ndarray:
    """Where an object array holds ``pd.NA`` (pandas is not imported for it)."""
    return np.frompyfunc(lambda v: type(v).__name__ == "NAType", 1, 1)(arr).astype(bool)


def _missing_items(arr: np.ndarray) -> np.ndarray:
    """Where an object array holds ``None`` or ``pd.NA`` (pandas is not imported for it)."""
    return np.frompyfunc(lambda v: v is None or type(v).__name__ == "NAType", 1, 1)(arr).astype(bool)


def missing_labels(arr: np.ndarray) -> np.ndarray:
    """Positions of an object array's missing values, ``None`` or ``pd.NA`` (a label column read with them)."""
    return np.flatnonzero(_missing_items(arr))


def null_mask(values: Any) -> np.ndarray | None:
    """Where a 1-D column holds a missing value -- a Polars null, pandas' ``pd.NA`` or a ``None`` -- or None.

    These become NaN when the column is read as float64, and a message about
    the NaN would name a value the caller never wrote; this mask lets it say
    "missing value (null)" instead.  None for inputs that cannot hold one
    (NumPy arrays of numbers and pandas columns backed by one, frames).  O(n), called only once a NaN was found;
    a loop in Python only over object columns and lists.
    """
    module = type(values).__module__
    if hasattr(values, "columns") or getattr(values, "ndim", 1) != 1:
        return None
    if module.startswith("polars") and hasattr(values, "is_null"):
        return np.asarray(values.is_null().to_numpy(), dtype=bool)
    if module.startswith("pyarrow") and hasattr(values, "is_null"):
        return np.asarray(values.is_null(), dtype=bool)
    dtype = getattr(values, "dtype", None)
    if module.startswith("pandas") and isinstance(dtype, np.dtype) and dtype != object:
        return None           # NumPy-backed: no null there (a None became NaN), and no loop over millions of rows
    if module.startswith("pandas") and dtype is not None and not isinstance(dtype, np.dtype):
        return np.asarray(values.isna(), dtype=bool)       # a nullable (masked or Arrow) column knows its nulls
    if module.startswith("pandas") or isinstance(values, (list, tuple)) or (
            isinstance(values, np.ndarray) and values.dtype == object):
        items = np.empty(len(values), dtype=object)
        items[:] = list(values)
        return _missing_items(items)
    return None


def nulls_at(source: Any, arr: np.ndarray, first: int) -> tuple[bool, int]:
    """(whether the value at the flat index ``first`` is a missing value, how many :func:`null_mask` finds) in
    ``source``, read as the 1-D ``arr``; (False, 0) where it can hold none.

    Both are needed where a column holds nulls and NaN alike: each kind is then counted as itself.
    """
    nulls = null_mask(source) if arr.ndim == 1 else frame_null_mask(source) if arr.ndim == 2 else None
    if nulls is None or nulls.shape != arr.shape:
        return False, 0
    return bool(nulls.reshape(-1)[first]), int(nulls.sum())


def frame_null_mask(frame: Any) -> np.ndarray | None:
    """Where a pandas, Polars or Arrow frame holds a missing value (:func:`null_mask` of each column), as an
    (n_rows, n_columns) array; None for anything else, or a frame without a null.

    A frame's nulls become NaN in the matrix the learners read: this lets the message about that NaN say
    "missing value (null)".  O(n·d), called only once a NaN was found.
    """
    library = type(frame).__module__.partition(".")[0]
    if not hasattr(frame, "columns") or library not in ("pandas", "polars", "pyarrow"):
        return None
    if hasattr(frame, "iloc"):
        columns = [frame.iloc[:, j] for j in range(frame.shape[1])]
    elif hasattr(frame, "num_columns"):                              # an Arrow table: ``columns`` are its data
        columns = list(frame.columns)
    else:
        columns = frame.get_columns()
    masks = [null_mask(column) for column in columns]
    if not any(mask is not None and mask.any() for mask in masks):
        return None
    n = len(frame)
    return np.column_stack([np.zeros(n, dtype=bool) if mask is None else mask for mask in masks])


def large_integers_among_floats(items: list) -> bool:
    """Whether a flat list holds integers beyond 2**53 beside finite floats, and nothing else: numbers float64 would
    round into ties."""
    has_large = False
    for v in items:
        if isinstance(v, (bool, np.bool_)):
            return False
        if isinstance(v, (int, np.integer)):
            has_large = has_large or abs(int(v)) > 2**53
        elif not (isinstance(v, (float, np.floating)) and math.isfinite(v)):
            return False
    return has_large


#: Entries of an array checked at a time for NaN and ±inf: the check's true/false arrays stay this small (two whole
#: n × d masks would take half a float32 X's memory).
_FINITE_BLOCK = 1 << 16


def first_not_finite(arr: np.ndarray, allow_nan: bool) -> tuple[int, int] | None:
    """(the C-order flat index of the first ±inf -- or NaN unless ``allow_nan`` --, how many there are), or None.

    Read in blocks of leading-axis slices (views of any layout) of about :data:`_FINITE_BLOCK` entries: memory
    O(block), time O(arr.size).
    """
    if arr.size == 0:
        return None
    if arr.ndim == 0:
        arr = arr.reshape(1)           # a lone value: flat index 0, as the whole-array check found it
    inner = arr.size // arr.shape[0]
    step = max(1, _FINITE_BLOCK // max(inner, 1))
    first, count = None, 0
    for start in range(0, arr.shape[0], step):
        block = arr[start:start + step]
        bad = np.isinf(block) if allow_nan else ~np.isfinite(block)
        if first is None:
            if not bad.any():
                continue
            first = start * inner + int(np.flatnonzero(bad)[0])
        count += int(np.count_nonzero(bad))
    return None if first is None else (first, count)


def all_finite(arr: np.ndarray) -> bool:
    """Whether a float array holds no NaN and no ±inf, in memory O(:data:`_FINITE_BLOCK`) (no n × d mask).

    A NaN or ±inf makes the sum NaN or ±inf, so a finite sum proves every entry finite in one pass; finite entries
    may still sum past the float range, so a sum that is not finite is checked again entry by entry, in blocks.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(arr.sum()):
            return True
    return first_not_finite(arr, allow_nan=False) is None


def text_labels_hint(y: Any, name: str, *, graded: bool = False) -> str | None:
    """The refusal of text labels (``"yes"``/``"no"``) by a metric, saying what to do; None for other values.

    A fit takes any two labels (the greater is the relevant one), but a metric needs numbers, and its plain
    refusal's advice ("convert it to numbers first, e.g. pd.to_numeric") cannot read "yes": which rows are
    relevant is the user's choice to state, not a conversion.  The plain refusal stands (None) for numbers written
    as text, for more than two texts, for text mixed with numbers or ``str`` with ``bytes`` (no one comparison
    marks the relevant rows), and for a piece of the labels (``name`` "y (chunk 2)"), which may hold only one
    of their texts.  ``graded``: the labels may be grades, not only 0/1.

    Called on a refusal only, in O(n) hashed in C (:func:`_label_counts`): 10^7 labels in about a second.
    """
    if _PIECE.search(name):
        return None             # a piece of the labels, whose texts need not be all of them
    counts = _label_counts(y)
    if counts is None:
        return None
    missing = sum(n for value, n in counts.items() if _is_missing_label(value))
    values = [value for value in counts if not _is_missing_label(value)]
    if not (all(isinstance(v, str) for v in values) or all(isinstance(v, bytes) for v in values)):
        return None
    values = {str(v) if isinstance(v, str) else bytes(v) for v in values}   # np.str_ would show as np.str_('no')
    if not values or len(values) > 2 or all(_spells_a_number(v) for v in values):
        return None             # "0"/"1": numbers read as text, which the plain refusal's pd.to_numeric fixes
    shown = sorted(values)
    expected = "numbers (grades, or 0/1 with 1 = relevant)" if graded else "0/1 numbers (1 = relevant)"
    # the example is code: a name that is no expression ("eval_set y") is written as the labels' usual name
    hint = (f"{name}: expected {expected}, got text labels ({', '.join(map(repr, shown))}); mark the relevant "
            f"rows with 1, e.g. ({name if _is_expression(name) else 'y'} == {shown[-1]!r}).astype(int)")
    if len(shown) == 2 and not graded:
        hint += f" (fit reads the greater of two labels, here {shown[-1]!r}, as the relevant one)"
    if len(shown) == 1:         # the advice alone would lead straight to the one-class refusal
        hint += (f"; but every labelled row here is {shown[0]!r}, so that marks them all relevant, and a metric "
                 f"comparing relevant rows with the others (auc, ks, pauc, ...) needs rows of both kinds: pass "
                 f"the rows that are not {shown[0]!r} too")
    if missing:                 # the comparison would read a row without a label as irrelevant, silently
        hint += f"; first drop the {missing} row{'s' * (missing != 1)} without a label (None/NaN)"
    return hint


#: Labels counted at a time by :func:`_label_counts`.
_COUNT_BLOCK = 1 << 16

#: The end of the name a piece of the labels is checked under (Dask's chunks: ``"y (chunk 2)"``).
_PIECE = re.compile(r"\(chunk \d+\)$")


def _label_counts(y: Any) -> "Counter | None":
    """Each distinct label of ``y`` with its rows; None for what is no sequence of hashable labels.

    A list keeps its items' types (NumPy would write ``["yes", 1]`` as the texts ``'yes'``, ``'1'``); an array of
    text is counted once it holds at most two texts, checked by whole-array comparisons."""
    try:
        arr = y.to_numpy() if hasattr(y, "to_numpy") else y
        arr = (arr if isinstance(arr, np.ndarray) else np.asarray(arr, dtype=object)).ravel()
        if arr.dtype.kind in "US" and arr.size:
            rest = arr[arr != arr[0]]
            if rest.size and (rest != rest[0]).any():
                return None     # three texts or more: the plain refusal, without counting each
            counts = Counter({arr[0].item(): arr.size - rest.size})
            counts.update({rest[0].item(): rest.size} if rest.size else {})
            return counts
        counts: Counter = Counter()
        labels: set = set()
        for start in range(0, arr.size, _COUNT_BLOCK):     # by blocks: many texts stop at the first block
            block = arr[start:start + _COUNT_BLOCK].tolist()
            counts.update(block)
            labels.update(value for value in set(block) if not _is_missing_label(value))
            if len(labels) > 2:
                return None
        return counts
    except Exception:           # what cannot be read (or hashed) as labels is refused for that, not for its text
        return None


def _is_missing_label(value: Any) -> bool:
    """Whether a label is missing: ``None``, ``pd.NA`` or a float NaN (pandas' missing value in a column of text)."""
    return value is None or type(value).__name__ == "NAType" or (isinstance(value, float) and value != value)


def _is_expression(name: str) -> bool:
    """Whether ``name`` reads as Python code (``y_true``, ``labels[0]``), so an example may use it as it is."""
    try:
        compile(name, "<name>", "eval")
    except (SyntaxError, ValueError):
        return False
    return True


def _spells_a_number(text: str | bytes) -> bool:
    """Whether ``float()`` reads ``text`` (``"1"``, ``b"0.5"``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True
