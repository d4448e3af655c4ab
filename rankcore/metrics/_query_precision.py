"""``prec@k`` over queries: each query's precision in its first k places, from one sort of every query."""

from __future__ import annotations

import numpy as np

from ._queries import Queries
from ._query_kernels import cutoffs, precision, rank_queries
from ._refusal import k_beyond

__all__ = ["precision_by_query"]


def precision_by_query(k: int | float, spec: str, y: np.ndarray, scores: np.ndarray, queries: Queries) -> np.ndarray:
    """``prec@k`` per query: relevant rows in the first k places over k, a tie at place k sharing its places.

    A query shorter than a count k keeps k as the denominator (its missing
    places count as not relevant, as trec_eval's ``P_k``); a fraction is of
    each query's rows.  A count k larger than every query is an error (of the
    whole data, for a part of it: :meth:`Queries.part_of`).
    """
    largest = queries.longest           # of the data judged (a part of it may hold only shorter queries)
    if not (isinstance(k, float) and k < 1) and k > largest:
        raise k_beyond(spec, k, largest)
    kk = np.full(queries.n_queries, k, dtype=np.int64) if not (isinstance(k, float) and k < 1) \
        else cutoffs(k, queries.sizes)
    read = np.minimum(kk, queries.sizes)
    return precision(rank_queries(scores, queries), y == 1, read, "average") * read / kk
