"""``QueryKFold``: cross-validation folds that keep every query whole."""

from __future__ import annotations

import numbers
from typing import Any, Iterator

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state

from .metrics._queries import check_qid
from .validation import check_random_state_param

__all__ = ["QueryKFold"]


class QueryKFold(BaseCrossValidator):
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
    ids may be of any hashable type, rows in any order.  O(n log n).

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

    # scikit-learn's metadata routing passes both names to split()
    __metadata_request__split = {"groups": True, "qid": True}

    def __init__(self, n_splits: int = 5, *, shuffle: bool = False, random_state: Any = None) -> None:
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None, qid: Any = None) -> int:
        """The number of folds."""
        return self._checked_n_splits()

    def _checked_n_splits(self) -> int:
        n = self.n_splits
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
            raise ValueError(f"n_splits: expected an integer >= 2, got {n!r}")
        return int(n)

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
            Neither or both of ``qid`` and ``groups``; fewer queries than
            ``n_splits``; the errors of a bad ``qid`` (wrong length, None/NaN).
        """
        n_splits = self._checked_n_splits()
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise ValueError(f"shuffle: expected True or False, got {self.shuffle!r}")
        check_random_state_param(self.random_state, generator=False)
        if qid is not None and groups is not None:
            raise ValueError("qid, groups: give the query of each row once (qid= or groups=), not both")
        if qid is None and groups is None:
            raise ValueError("qid: QueryKFold needs the query of each row: split(X, qid=qid) or groups=qid "
                             "(through cross_val_score(..., params={'qid': qid}) with metadata routing)")
        n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
        queries = check_qid(qid if qid is not None else groups, n_rows, name="qid" if qid is not None else "groups")
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
        folds = np.empty(sizes.shape[0], dtype=np.int64)
        if self.shuffle:
            order = check_random_state(self.random_state).permutation(sizes.shape[0])
            folds[order] = np.arange(sizes.shape[0]) % n_splits
            return folds
        rows = np.zeros(n_splits, dtype=np.int64)
        for q in np.argsort(-sizes, kind="stable"):
            fold = int(np.argmin(rows))
            folds[q] = fold
            rows[fold] += sizes[q]
        return folds
