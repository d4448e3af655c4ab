"""Query ids: validated once, turned into contiguous row blocks (one per query) by one stable sort."""

from __future__ import annotations

import importlib.util
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._argument_refusal import ArgumentTypeRefusal

__all__ = ["Queries", "check_qid", "check_queries", "joined_ids", "looks_like_sizes", "sizes_hint"]


@dataclass(frozen=True)
class Queries:
    """The rows of each query, from one label per row.

    Attributes
    ----------
    labels : ndarray, shape (n_queries,)
        The distinct query ids, sorted (by type name and ``repr`` when the
        ids cannot be compared with each other), so that the order of the
        rows never changes the order of the queries.
    codes : ndarray of int64, shape (n,)
        Each row's query, as an index into ``labels``.
    sizes : ndarray of int64, shape (n_queries,)
        Rows per query.
    whole_longest : int
        0 (the default): these queries are the data a metric judges.  Else
        they are a part of it (a fold, a hold-out of whole queries) whose
        longest query has this many rows (:meth:`part_of`): a metric's count
        k is then refused only when it is larger than that query too, and a
        part whose queries are all shorter than k is read as any query shorter
        than k is (``ndcg@k`` reads it whole, ``prec@k`` counts its missing
        places as not relevant) -- the values do not change, only the refusal.
    """

    labels: np.ndarray
    codes: np.ndarray
    sizes: np.ndarray
    whole_longest: int = 0

    @classmethod
    def single(cls, n: int) -> "Queries":
        """All ``n`` rows as one query (a single list)."""
        return cls(np.array([0]), np.zeros(n, dtype=np.int64), np.array([n], dtype=np.int64))

    @property
    def n_queries(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def longest(self) -> int:
        """Rows of the longest query of the data a metric judges: of these queries, or of the data they are a part
        of (:attr:`whole_longest`).  A count k larger than it cuts no query anywhere: the metrics refuse it."""
        return max(int(self.sizes.max()), int(self.whole_longest)) if self.sizes.shape[0] else int(self.whole_longest)

    def part_of(self, longest: int) -> "Queries":
        """These queries as a part of data whose longest query has ``longest`` rows (see :attr:`whole_longest`).

        For a unit the caller cut (AutoRanker's folds and hold-out parts, an
        early-stopping hold-out): a count k that reaches a query of the whole
        data is the user's meaningful choice, and the part's short queries are
        read as they are anywhere else.
        """
        return Queries(self.labels, self.codes, self.sizes, int(longest))

    def groups_rows_as(self, other: "Queries") -> bool:
        """Whether ``other``, queries of the same rows, groups them as these do whatever the ids (``qid + 100``,
        ``"1"`` for ``1``): one query of ``other`` for each of these.  O(n)."""
        if self.n_queries != other.n_queries or self.codes.shape != other.codes.shape:
            return False
        meant = np.full(self.n_queries, -1, dtype=np.int64)
        meant[self.codes] = other.codes                       # each query's code in ``other`` (its last row's)
        # every row agreeing maps each query onto one of ``other``'s, and as many queries make it one to one
        return bool(np.array_equal(meant[self.codes], other.codes))

    @property
    def starts(self) -> np.ndarray:
        """Offset of each query's first row in query order (int64, shape (n_queries,))."""
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)

    def rows(self) -> np.ndarray:
        """Row indices grouped by query, each query's rows in their original order (a stable sort)."""
        return np.argsort(self.codes, kind="stable")


def _is_missing(value: Any) -> bool:
    """None, and every value that is not equal to itself: NaN of any type (float, complex, Decimal), NaT, pd.NA."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError, ArithmeticError):      # a comparison that refuses to answer: not a missing mark
        return False


def _rounded_together(items: list, read: np.ndarray) -> bool:
    """Whether NumPy read ``items`` as float64 (``read``) and so rounds apart integers beyond 2^53 to one id.

    NumPy reads integers as float64 when they are mixed with other real numbers, and also when they are all
    integers that fit neither int64 nor uint64 together (one of 2^63 or more beside a negative one, or NumPy's
    uint64 beside its int64).
    """
    return read.dtype.kind == "f" and any(isinstance(v, numbers.Integral) and abs(int(v)) > 2**53 for v in items)


def _id_kind(kind: type) -> str | None:
    """``"number"`` or ``"text"`` for a query id of the type ``kind``; None for another id (a tuple...)."""
    if issubclass(kind, (str, bytes)):        # np.str_ and np.bytes_ too
        return "text"
    # np.bool_ is no numbers.Number, but a chunk of booleans is one of numbers to NumPy's concatenation
    return "number" if issubclass(kind, (numbers.Number, np.bool_)) else None


def _first_of_kinds(ids: np.ndarray) -> dict[str, tuple[int, Any]]:
    """The kinds (``"number"``, ``"text"``) of the ids, each with its first id and where: O(1) for an array of
    numbers or text; for objects, the set of their types, then a scan stopped at the first id of each kind."""
    if ids.shape[0] == 0:
        return {}
    if ids.dtype.kind in "iufb":
        return {"number": (0, ids[0].item())}
    if ids.dtype.kind in "US":
        return {"text": (0, ids[0].item())}
    found: dict[str, tuple[int, Any]] = {}
    if ids.dtype == object:
        values = ids.tolist()
        kinds = {_id_kind(kind) for kind in set(map(type, values))} - {None}
        for row, value in enumerate(values if kinds else ()):
            kind = _id_kind(type(value))
            if kind is not None and kind not in found:
                found[kind] = (row, value)
                if len(found) == len(kinds):
                    break
    return found


def _check_id_kinds(parts: list, name: str = "qid", where=None) -> None:
    """Refuse query ids that mix numbers and text (``5`` and ``"5"``) over ``parts`` (arrays, in row order).

    One array holding both would make two queries of 5 and "5", NumPy's
    concatenation of an array of numbers and one of text (the chunks of a
    Dask column) one: the same ids would give other queries in memory and on
    a cluster.  Mixed ids are nearly always a join gone wrong (a column read
    as numbers from one file and as text from another), so they are refused
    (an :class:`~rankcore.validation.ArgumentTypeRefusal`, ``parameter``
    ``name``) with one id of each kind; ``where(part, index)`` says where an
    id is (default: ``"at row {index}"``, the row counted over all the parts).
    O(1) per array of numbers or text; a scan of an array of objects.
    """
    firsts: dict[str, tuple[int, int, Any]] = {}
    offset = 0
    for k, part in enumerate(parts):
        part = np.asarray(part)
        for kind, (i, value) in _first_of_kinds(part.reshape(-1)).items():
            firsts.setdefault(kind, (k, offset + i if where is None else i, value))
        offset += part.shape[0] if part.ndim else 0
        if len(firsts) == 2:
            break
    if len(firsts) < 2:
        return
    said = [f"{value!r} ({type(value).__name__}) " + (f"at row {i}" if where is None else where(k, i))
            for k, i, value in (firsts["number"], firsts["text"])]
    raise ArgumentTypeRefusal.said(name, f"query ids mix numbers and text ({said[0]}, {said[1]}), so 5 and '5' "
                                         "would be two queries: nearly always a join that read the ids as numbers "
                                         "in one place and as text in another; give ids of one type (e.g. "
                                         "qid.astype(str))")


def joined_ids(parts: list, name: str = "qid", where=None) -> np.ndarray:
    """The query ids of ``parts`` (the chunks of a column, in row order) concatenated, refused when they mix numbers
    and text (:func:`_check_id_kinds`), which the concatenation would turn into one type.

    A NaN id is refused as missing first, as :func:`check_qid` refuses it: beside a chunk of text the
    concatenation would make it the text ``"nan"``, one more query.  Chunks of bytes and of text are joined as
    objects, so that ``b"5"`` and ``"5"`` stay two ids as in one array (NumPy's join would decode the bytes).

    Parameters
    ----------
    parts : list of ndarray
        The chunks of the column, in row order.
    name : str, default "qid"
        The argument the refusals name.
    where : callable, optional
        ``where(chunk, row)``: the words that place a refused id (None: its row in the column).

    Returns
    -------
    ndarray
        The ids of every row.
    """
    parts = [np.asarray(p) for p in parts]
    offset = 0
    for k, part in enumerate(parts):
        bad = np.flatnonzero(np.isnan(part.reshape(-1))) if part.dtype.kind == "f" else ()
        if len(bad):
            at = f"at row {offset + int(bad[0])}" if where is None else where(k, int(bad[0]))
            raise ValueError(f"{name}: query ids must not be NaN, got NaN {at}")
        offset += part.shape[0] if part.ndim else 0
    _check_id_kinds(parts, name, where)
    if not parts:
        return np.empty(0)
    text_kinds = {p.dtype.kind for p in parts if p.size} & {"S", "U"}
    return np.concatenate([p.astype(object) for p in parts]) if len(text_kinds) == 2 else np.concatenate(parts)


def _sort_key(value: Any) -> tuple[str, str]:
    return type(value).__name__, repr(value)


def looks_like_sizes(qid, n: int) -> bool:
    """Whether ``qid`` (refused as one id per row of ``n``) reads as the sizes of consecutive queries of n rows:
    whole numbers >= 1, fewer than n of them, adding up to n.

    Parameters
    ----------
    qid : array-like
        The ids given.
    n : int
        The rows.

    Returns
    -------
    bool
    """
    try:
        sizes = np.asarray(qid, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return (sizes.ndim == 1 and 0 < sizes.shape[0] < n and bool(np.all(sizes >= 1))
            and bool(np.all(sizes == np.floor(sizes))) and sizes.sum() == n)


def sizes_hint(arr: np.ndarray, n: int) -> str:
    """LightGBM's ``group`` passed as ``qid``: the words that say so, else "".

    Parameters
    ----------
    arr : ndarray
        The ids given.
    n : int
        The rows.

    Returns
    -------
    str
        The hint, to append to a refusal.
    """
    if not looks_like_sizes(arr, n):
        return ""
    return ("; these look like the sizes of consecutive queries (LightGBM's group): pass them as group= instead, "
            "or each row's query id, qid=np.repeat(np.arange(len(sizes)), sizes)")


class _TextIds(np.ndarray):
    """An object array of ``str`` ids given as a sequence (a list, a pandas column), whose labels :func:`check_qid`
    returns as NumPy text, as it did when NumPy read them."""


def _text_array(items: list) -> np.ndarray:
    """``str`` ids as objects, grouped by :func:`_text_ids`; as NumPy text without pandas.

    NumPy's text drops a string's trailing ``"\\x00"``, so that ``"a"`` and ``"a\\x00"`` would be one query: such
    ids stay objects (grouped exactly, their labels objects).
    """
    arr = np.fromiter(items, dtype=object, count=len(items))
    if "\x00" in "".join(items):
        return arr
    if importlib.util.find_spec("pandas") is None:        # no grouping by hashing: NumPy's reading, as before
        return np.asarray(items)
    return arr.view(_TextIds)


def _ids_array(qid: Any, name: str) -> np.ndarray:
    """A sequence of query ids (not an ndarray) as an array: NumPy's for numbers or strings that it reads exactly,
    else objects, element by element (tuples stay ids, not rows)."""
    # a pandas column hands its ids over at once (iterating an Arrow-backed text column costs about 1 us a row);
    # the same Python values as its iteration
    items = qid.tolist() if type(qid).__module__.startswith("pandas") and hasattr(qid, "tolist") else list(qid)
    if items and all(isinstance(v, (list, np.ndarray)) for v in items):
        raise ValueError(f"{name}: expected a 1-D array of query ids, got rows that are lists or arrays "
                         f"(a 2-D array?)")
    if items and set(map(type, items)) == {str}:
        return _text_array(items)
    arr = np.empty(len(items), dtype=object)
    for row, value in enumerate(items):
        arr[row] = value
    if arr.size and all(isinstance(v, (numbers.Real, str)) and not isinstance(v, bool) for v in items) \
            and len({type(v) is str for v in items}) == 1:
        read = np.asarray(items)
        if not _rounded_together(items, read):
            arr = read                         # numbers or strings: sorted by NumPy
    return arr


def _text_ids(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The sorted distinct ids and each row's code for an object array whose every id is a ``str`` (a pandas
    column of user names), by pandas' hashing; None (read row by row) for other ids or without pandas.

    The same labels and codes as the loop over rows: ``str`` ids are never missing nor of two kinds, and sort
    by code point.  pandas' grouping is checked, not trusted (each row equal to its label, the labels distinct),
    because a hash table of C strings would merge ids that differ after a ``"\\x00"``, as NumPy's ``np.unique`` on
    a ``StringDType`` array does.  O(n) hashing and comparing plus a sort of the distinct ids.
    """
    if arr.shape[0] == 0 or not isinstance(arr, _TextIds) and set(map(type, arr.tolist())) != {str}:
        return None
    try:
        import pandas
    except ImportError:
        return None
    try:
        codes, found = pandas.factorize(arr)
    except (TypeError, ValueError, UnicodeError):        # an id pandas cannot hash as text: read row by row
        return None
    found = np.asarray(found, dtype=object)
    if len(set(found.tolist())) != found.shape[0] or codes.min() < 0 or not bool(np.all(found[codes] == arr)):
        return None
    order = np.argsort(found, kind="stable")
    relabel = np.empty(found.shape[0], dtype=np.int64)
    relabel[order] = np.arange(found.shape[0])
    return found[order], relabel[codes]


def _refuse_arrow_nulls(qid: Any, name: str) -> None:
    """Refuse an Arrow array (or chunked array) of ids with a null, said as one: NumPy would read it as NaN or
    None, and the message would then name a NaN that is not in the user's data."""
    if not type(qid).__module__.startswith("pyarrow") or not getattr(qid, "null_count", 0):
        return
    missing = np.asarray(qid.is_null(), dtype=bool)
    raise ValueError(f"{name}: query ids must not be missing, got a missing (null) id at row "
                     f"{int(np.argmax(missing))}")


def check_qid(qid: Any, n: int, *, name: str = "qid") -> Queries:
    """Validate one query id per row and group the rows by query.

    Parameters
    ----------
    qid : array-like of shape (n,)
        Any hashable ids (ints, strings, tuples of them, ...); rows need not
        be sorted or contiguous.
    n : int
        The number of rows (of ``y``).
    name : str, default "qid"
        The argument's name in the error messages.

    Returns
    -------
    Queries

    Raises
    ------
    ValueError
        Not 1-D, a length other than ``n``, None or NaN ids.
    TypeError
        Unhashable ids (lists, dicts), or a string/bytes/scalar in place of
        a sequence; ids that mix numbers and text (an
        :class:`~rankcore.validation.ArgumentTypeRefusal`, see
        :func:`_check_id_kinds`).

    Notes
    -----
    O(n log n) for ids NumPy can sort (numbers, strings), O(n) hashing plus
    a sort of the distinct ids otherwise; O(n) memory.  Ids that are all
    ``str`` (a list, a pandas column of names) are hashed by pandas when it
    is installed, not row by row: 3M rows of 300k names in about 2 s.
    """
    if (hasattr(qid, "__dask_graph__") or type(qid).__module__.startswith("pyarrow")) and hasattr(qid, "__array__"):
        # read by NumPy: iterating a Dask array would yield lazy scalars (it is computed here, as ``y`` and the
        # scores are), an Arrow array Arrow scalars that NumPy cannot sort (queries ordered by their text)
        _refuse_arrow_nulls(qid, name)
        qid = np.asarray(qid)
    if qid is None or isinstance(qid, (str, bytes)) or not hasattr(qid, "__len__"):
        raise TypeError(f"{name}: expected one query id per row (an array or a list), got {type(qid).__name__}")
    shape = getattr(qid, "shape", None)
    if not isinstance(qid, np.ndarray) and isinstance(shape, tuple) and len(shape) != 1:
        # a one-column DataFrame iterates over its column names, so the length check below would count 1 id
        raise ValueError(f"{name}: expected a 1-D array of query ids, got {type(qid).__name__} of shape {shape}"
                         + (" (pass its column, df['name'])" if hasattr(qid, "columns") else ""))
    arr = qid if isinstance(qid, np.ndarray) else _ids_array(qid, name)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of query ids, got shape {arr.shape}")
    if arr.shape[0] != n:
        # the rows are X's in a fit and y's in a metric: said as a count, which is right in both
        raise ValueError(f"{name}: expected one query id per row ({n} rows), got {arr.shape[0]}"
                         f"{sizes_hint(arr, n) if name == 'qid' else ''}")
    if arr.dtype.kind == "f":
        bad = np.flatnonzero(np.isnan(arr))
        if bad.size:
            raise ValueError(f"{name}: query ids must not be NaN, got NaN at row {int(bad[0])}")
    text = _text_ids(arr) if arr.dtype == object else None
    if text is not None:
        labels, codes = text
        labels = labels.astype(str) if isinstance(arr, _TextIds) else labels
    elif arr.dtype.kind in "iufUSb":
        labels, codes = np.unique(arr, return_inverse=True)
        codes = codes.reshape(-1).astype(np.int64)
    else:
        index: dict[Any, int] = {}
        codes = np.empty(n, dtype=np.int64)
        for row, value in enumerate(arr):
            if _is_missing(value):
                raise ValueError(f"{name}: query ids must not be None or NaN, got {value!r} at row {row}")
            try:
                codes[row] = index.setdefault(value, len(index))
            except TypeError:
                raise TypeError(f"{name}: query ids must be hashable, got {type(value).__name__} "
                                f"{value!r} at row {row}") from None
        found = list(index)
        # after the missing ids (a NaN beside text is refused as missing); over the distinct ids when they are
        # few, in the order of their first rows, each said at its first row: a scan of every row of a long column
        # of objects would slow it
        few = 2 * len(found) <= n
        _check_id_kinds([np.fromiter(found, dtype=object, count=len(found)) if few else arr], name,
                        where=(lambda _, i: f"at row {int(np.argmax(codes == i))}") if few else None)
        try:
            ranking = sorted(range(len(found)), key=lambda i: found[i])
        except (TypeError, ValueError, ArithmeticError):
            ranking = sorted(range(len(found)), key=lambda i: _sort_key(found[i]))
        relabel = np.empty(len(found), dtype=np.int64)
        relabel[ranking] = np.arange(len(found))
        codes = relabel[codes]
        labels = np.empty(len(found), dtype=object)
        for position, i in enumerate(ranking):
            labels[position] = found[i]
    sizes = np.bincount(codes, minlength=labels.shape[0]).astype(np.int64)
    return Queries(labels, codes, sizes)


def _size(value: float | int) -> str:
    """A group size for a message: a whole number as one (``1e20`` as ``100000000000000000000``)."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def _ids_hint(group: np.ndarray, n: int) -> str:
    """For ``group`` of one entry per row (n > 1): the words that send query ids to ``qid``, else ""."""
    if n < 2 or group.shape[0] != n or group.dtype.kind == "b":     # a mask per row is no id
        return ""
    # CatBoost's Pool(group_id=...) and XGBoost's qid hold one id per row: the form of qid, not of group
    return ("; group has one entry per row: query ids (CatBoost's group_id, XGBoost's qid) go to qid=..., "
            "group takes the sizes of consecutive queries")


def _one_row_queries(n: int) -> ValueError:
    """The refusal of ``group`` = n ones for n rows: valid both as sizes and as one id per row, read either way
    it would be a guess."""
    # as LightGBM's sizes: n queries of one row each, in which nothing is ranked; as XGBoost's qid or CatBoost's
    # group_id: one query of every row.  Neither reading is safe to pick silently
    return ValueError(f"group: {n} sizes of 1 for {n} rows are {n} queries of one row each (LightGBM's sizes), in "
                      f"which nothing is ranked; if they are one query id per row (XGBoost's qid, CatBoost's "
                      f"group_id: one query of all {n} rows), pass them as qid=... (or group=[{n}])")


def check_queries(qid: Any, group: Any, n: int) -> Queries | None:
    """The queries of ``n`` rows from ``qid`` (one id per row) or ``group`` (sizes of consecutive blocks).

    ``group`` is LightGBM's form: row counts of consecutive queries, summing
    to ``n``.  None when neither is given.  ``n`` ones (n >= 2) are refused:
    valid both as sizes (n one-row queries) and as one id per row (one query).


    Parameters
    ----------
    qid : array-like or None
        One query id per row.
    group : array-like or None
        The sizes of consecutive queries (LightGBM's form).
    n : int
        The rows.

    Returns
    -------
    Queries or None
        The rows of each query.

    Raises
    ------
    ValueError
        Both given, group sizes that are not positive integers or do not sum
        to ``n``, ``n`` sizes of 1, or any error of :func:`check_qid`.
    """
    if qid is not None and group is not None:
        raise ValueError("qid, group: give one of them (qid: one query id per row; group: LightGBM's sizes of "
                         "consecutive queries), not both")
    if group is None:
        return None if qid is None else check_qid(qid, n)
    sizes = np.asarray(group)
    expected = "group: expected a 1-D array of query sizes (whole numbers >= 1), got"
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"{expected} {'an empty array' if sizes.size == 0 else f'shape {sizes.shape}'}")
    per_row = _ids_hint(sizes, n)
    if sizes.dtype.kind not in "iuf":
        raise ValueError(f"{expected} dtype {sizes.dtype}{per_row}")
    if sizes.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(sizes) | (sizes != np.round(sizes)))
        if bad.size:
            raise ValueError(f"{expected} {sizes[bad[0]].item()!r} at position {int(bad[0])}{per_row}")
    # the range before the cast: a size beyond int64 must not wrap into one that sums to n (np.repeat would then
    # write past its output)
    low, high = sizes.min().item(), sizes.max().item()
    if low < 1:
        raise ValueError(f"group: every query size must be >= 1, got {_size(low)}{per_row}")
    if per_row and high == 1:
        raise _one_row_queries(n)
    if per_row and int(sizes.astype(np.int64).sum()) != n:
        raise ValueError(f"group: the query sizes sum to {int(sizes.astype(np.int64).sum())}, but y has {n} "
                         f"rows{per_row}")
    if high > n or sizes.shape[0] > n:
        raise ValueError(f"group: the query sizes sum to more than the {n} rows of y"
                         + (f" (one of them is {_size(high)})" if high > n else f" ({sizes.shape[0]} sizes)")
                         + ("; in scikit-learn's cross-validation pass qid, which is split with the rows"
                            if high <= n else ""))
    sizes = sizes.astype(np.int64)
    if int(sizes.sum()) != n:
        # scikit-learn's model selection hands group to every fold whole (it splits only per-row arrays): the
        # most common way to get here
        raise ValueError(f"group: the query sizes sum to {int(sizes.sum())}, but y has {n} rows (in scikit-learn's "
                         "cross-validation pass qid, one id per row, which is split with the rows; group is not)")
    return Queries(np.arange(sizes.shape[0]), np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes), sizes)
