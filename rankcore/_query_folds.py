"""Cross-validation folds that keep every query whole: ``QueryKFold``, and ``QueryTimeSeriesSplit`` in id order."""

from __future__ import annotations

import numbers
from typing import Any, Iterator

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state

from .metrics import check_qid
from .validation import check_random_state_param

__all__ = ["QueryKFold", "QueryTimeSeriesSplit"]


def _queries_of(X: Any, qid: Any, groups: Any, who: str):
    """The queries of the rows of ``X``, given once as ``qid`` or as ``groups`` (:func:`check_qid`'s checks)."""
    if qid is not None and groups is not None:
        raise ValueError("qid, groups: give the query of each row once (qid= or groups=), not both")
    if qid is None and groups is None:
        raise ValueError(f"qid: {who} needs the query of each row: split(X, qid=qid) or groups=qid "
                         "(through cross_val_score(..., params={'qid': qid}) with metadata routing)")
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    return check_qid(qid if qid is not None else groups, n_rows, name="qid" if qid is not None else "groups")


def _count(value: Any, name: str, least: int, *, optional: bool = False) -> int | None:
    """An integer parameter >= ``least`` (None passes where ``optional``), else a ValueError naming it."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        expected = f"an integer >= {least}" + (" or None" if optional else "")
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return int(value)


class _QuerySplitter(BaseCrossValidator):
    """What the splitters of whole queries share: ``split`` reads the queries once, then a subclass's folds."""

    # scikit-learn's metadata routing passes both names to split()
    __metadata_request__split = {"groups": True, "qid": True}

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None, qid: Any = None) -> int:
        """The number of (test) folds."""
        return _count(self.n_splits, "n_splits", 2)

    def split(self, X: Any, y: Any = None, groups: Any = None,
              qid: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Train and test row indices of each fold.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Only its number of rows is used.
        y : ignored
        groups, qid : array-like of shape (n,)
            The query of each row; give one of them.

        Yields
        ------
        train, test : ndarray of int64

        Raises
        ------
        ValueError
            Neither or both of ``qid`` and ``groups``; a parameter out of
            range; too few queries for the folds (the message gives the
            counts); the errors of a bad ``qid`` (wrong length, None/NaN).
        """
        self._check_parameters()
        yield from self._folds_of(_queries_of(X, self._ids(qid), self._ids(groups), type(self).__name__))

    def _ids(self, ids: Any) -> Any:
        """The query ids as the folds read them (as given: only their grouping counts, not their order)."""
        return ids

    def _check_parameters(self) -> None:
        """Refuse a parameter out of range, before the queries are read."""
        _count(self.n_splits, "n_splits", 2)

    def _folds_of(self, queries) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        raise NotImplementedError


class QueryKFold(_QuerySplitter):
    """K folds of whole queries: no query has rows on both sides of a split.

    Parameters
    ----------
    n_splits : int >= 2, default 5
        Folds; at most the number of queries.
    shuffle : bool, default False
        False: the queries, largest first, each go to the fold with the
        fewest rows so far (the folds' sizes in rows are balanced, the folds
        are the same on every call).  True: the queries in a random order
        (``random_state``) are dealt to the folds in turn, so each fold holds
        the same number of queries, give or take one.
    random_state : None, int or RandomState
        Seeds the order with ``shuffle=True``.

    Notes
    -----
    The query of each row comes as ``qid`` (scikit-learn's metadata routing:
    ``cross_val_score(..., params={"qid": qid})`` or
    ``GridSearchCV(...).fit(X, y, qid=qid)`` once
    ``sklearn.set_config(enable_metadata_routing=True)``) or as ``groups``
    (``cross_val_score(..., groups=qid)``, with or without routing).  Query
    ids may be of any hashable type, rows in any order.

    Cost, over n rows, q queries, D distinct query sizes and k folds: the
    queries are read in O(n log n) (see :func:`~rankcore.metrics.check_qid`);
    the folds take O(q log q + D k) time and O(q + D k) memory without
    ``shuffle`` (NumPy, one step per distinct size; at most O(k q) when one
    huge query leaves the folds far apart), O(q) with it; each fold's rows
    then O(n).  300,000 queries (6M rows, k=5): 36 ms for the folds.

    Examples
    --------
    >>> import numpy as np
    >>> from rankcore import QueryKFold
    >>> qid = np.array(["a", "a", "b", "c", "c", "c", "d"])
    >>> for train, test in QueryKFold(n_splits=2).split(np.zeros((7, 1)), qid=qid):
    ...     print(sorted(set(qid[test].tolist())))
    ['c', 'd']
    ['a', 'b']
    """

    def __init__(self, n_splits: int = 5, *, shuffle: bool = False, random_state: Any = None) -> None:
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_parameters(self) -> None:
        super()._check_parameters()
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise ValueError(f"shuffle: expected True or False, got {self.shuffle!r}")
        check_random_state_param(self.random_state, generator=False)

    def _folds_of(self, queries) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        n_splits = int(self.n_splits)
        if queries.n_queries < n_splits:
            raise ValueError(f"n_splits: {n_splits} folds need at least {n_splits} queries, got "
                             f"{queries.n_queries}")
        fold_of_query = self._folds(queries.sizes, n_splits)
        fold_of_row = fold_of_query[queries.codes]
        for fold in range(n_splits):
            test = fold_of_row == fold
            yield np.flatnonzero(~test), np.flatnonzero(test)

    def _folds(self, sizes: np.ndarray, n_splits: int) -> np.ndarray:
        """The fold of each query."""
        if self.shuffle:
            folds = np.empty(sizes.shape[0], dtype=np.int64)
            order = check_random_state(self.random_state).permutation(sizes.shape[0])
            folds[order] = np.arange(sizes.shape[0]) % n_splits
            return folds
        return _greedy_folds(sizes, n_splits)


def _greedy_folds(sizes: np.ndarray, n_splits: int) -> np.ndarray:
    """The fold of each query when the queries, largest first (ties in query order), each go to the fold with the
    fewest rows so far (ties: the lowest fold), computed one run of equal sizes at a time.

    Within a run of ``m`` queries of ``s`` rows, fold ``f`` (``a_f`` rows before the run) offers the places
    ``a_f, a_f + s, a_f + 2s, ...``; one query at a time would take the smallest place left, ties to the lowest
    fold, and a fold's places only grow, so the run's queries in order take the ``m`` smallest places sorted by
    (rows, fold).  O(n_queries log n_queries + D n_splits) time and O(n_queries + D n_splits) memory over D
    distinct sizes (the places a fold offers are bounded, see :func:`_run_places`).
    """
    folds = np.empty(sizes.shape[0], dtype=np.int64)
    order = np.argsort(-sizes, kind="stable")
    ordered = sizes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], ordered.shape[0]]
    rows = np.zeros(n_splits, dtype=np.int64)
    for start, end in zip(starts.tolist(), ends.tolist()):
        size = int(ordered[start])
        _, fold = _run_places(rows, size, end - start)
        folds[order[start:end]] = fold
        rows += np.bincount(fold, minlength=n_splits) * size
    return folds


def _run_places(rows: np.ndarray, size: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``m`` smallest places (rows before the query, fold) that the folds with ``rows`` offer to a run of
    ``m`` queries of ``size`` rows, in the order the greedy takes them.

    A fold takes its t-th query of the run only when its a_f + (t-1) size rows are the fewest, so at most every
    other fold has passed max(a) by then: t <= (max(a) - a_f) / size + m / n_splits + 1.  Offering that many
    places (and never more than m) keeps every place the greedy can take.
    """
    k = rows.shape[0]
    offered = np.minimum(m, (rows.max() - rows) // size + -(-m // k) + 2)
    fold = np.repeat(np.arange(k, dtype=np.int64), offered)
    step = np.arange(fold.shape[0], dtype=np.int64) - np.repeat(np.cumsum(offered) - offered, offered)
    place = rows[fold] + step * size
    taken = np.lexsort((fold, place))[:m]
    return place[taken], fold[taken]


class QueryTimeSeriesSplit(_QuerySplitter):
    """Folds of whole queries in the order of their ids: each test fold comes after every query it trains on.

    For queries that are periods of time -- a day of alerts, a week of
    sessions -- a row-wise ``TimeSeriesSplit`` cuts a day between training
    and test, and :class:`QueryKFold` trains on days after the ones it tests.
    Here the distinct ids, sorted, are the time line (days as numbers, dates,
    timestamps or ISO text such as ``"2024-03-01"``), and the folds are
    scikit-learn's ``TimeSeriesSplit``'s taken over queries: the last
    ``n_splits`` blocks of ``test_queries`` queries are the test folds, and
    each trains on the queries before its block (less ``gap``, at most
    ``max_train_queries`` of the latest).

    Parameters
    ----------
    n_splits : int >= 2, default 5
        Test folds.
    test_queries : int >= 1 or None, default None
        Queries per test fold; None: n_queries // (n_splits + 1).
    gap : int >= 0, default 0
        Queries left out between each training part and its test fold (a
        label known only some days later).
    max_train_queries : int >= 1 or None, default None
        Train on at most this many queries, the latest before the gap; None:
        every earlier query.

    Notes
    -----
    ``qid`` (metadata routing) or ``groups`` gives the query of each row, as
    for :class:`QueryKFold`; rows may come in any order.  The ids must
    compare with each other (ids of one kind: numbers, text, dates); an
    ordered pandas categorical is read in its categories' order.
    O(n log n).

    Examples
    --------
    >>> import numpy as np
    >>> from rankcore import QueryTimeSeriesSplit
    >>> day = np.repeat([3, 1, 2, 5, 4], 2)
    >>> for train, test in QueryTimeSeriesSplit(n_splits=2).split(np.zeros((10, 1)), qid=day):
    ...     print(sorted(set(day[train].tolist())), sorted(set(day[test].tolist())))
    [1, 2, 3] [4]
    [1, 2, 3, 4] [5]
    """

    def __init__(self, n_splits: int = 5, *, test_queries: int | None = None, gap: int = 0,
                 max_train_queries: int | None = None) -> None:
        self.n_splits = n_splits
        self.test_queries = test_queries
        self.gap = gap
        self.max_train_queries = max_train_queries

    def _check_parameters(self) -> None:
        super()._check_parameters()
        _count(self.test_queries, "test_queries", 1, optional=True)
        _count(self.gap, "gap", 0)
        _count(self.max_train_queries, "max_train_queries", 1, optional=True)

    def _ids(self, ids: Any) -> Any:
        """An ordered pandas categorical's ids as their places in its order; other ids as given.

        Its categories sorted by value ("Fri" < "Mon" < "Thu") are not its order (Mon < Tue < ...): test folds
        would come before the days trained on, silently.  With a missing id the ids go on as given, to be refused.
        """
        if not getattr(getattr(ids, "dtype", None), "ordered", False):
            return ids
        codes = np.asarray(ids.cat.codes if hasattr(ids, "cat") else ids.codes)
        return ids if (codes < 0).any() else codes

    def _folds_of(self, queries) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        # the earliest test fold first; ids that do not compare with each other are refused (no time line)
        n_splits = _count(self.n_splits, "n_splits", 2)
        test_queries = _count(self.test_queries, "test_queries", 1, optional=True)
        gap = _count(self.gap, "gap", 0)
        max_train = _count(self.max_train_queries, "max_train_queries", 1, optional=True)
        _check_ordered(queries.labels)
        n_queries = queries.n_queries
        size = test_queries if test_queries is not None else n_queries // (n_splits + 1)
        first_test = n_queries - n_splits * size
        if size < 1 or first_test - gap < 1:
            raise ValueError(f"n_splits: {n_splits} test folds of {max(size, 1)} queries after a gap of {gap} "
                             f"need at least {n_splits * max(size, 1) + gap + 1} queries, got {n_queries}")
        # queries.labels are sorted, so a query's code is its place on the time line
        for start in range(first_test, n_queries, size):
            end_train = start - gap
            begin_train = 0 if max_train is None else max(0, end_train - max_train)
            train = (queries.codes >= begin_train) & (queries.codes < end_train)
            test = (queries.codes >= start) & (queries.codes < start + size)
            yield np.flatnonzero(train), np.flatnonzero(test)


def _check_ordered(labels: np.ndarray) -> None:
    """Refuse ids whose sorted order is not an order in time: ids that do not compare with each other.

    :func:`check_qid` sorts such ids by type name and ``repr`` (any order serves to group rows), which is no time
    line.
    """
    if labels.dtype != object:
        return
    try:
        ordered = all(a < b for a, b in zip(labels[:-1].tolist(), labels[1:].tolist()))
    except TypeError:
        ordered = False
    if not ordered:
        kinds = sorted({type(v).__name__ for v in labels.tolist()})
        raise ValueError(f"qid: QueryTimeSeriesSplit orders the queries by their ids, which must compare with each "
                         f"other (numbers, text or dates of one kind), got ids of types {', '.join(kinds)}")
