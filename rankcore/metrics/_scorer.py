"""``make_query_scorer``: a scikit-learn scorer that evaluates a metric per query of the test fold."""

from __future__ import annotations

from typing import Any

from ..registry import resolve
from ._base import Metric
from ._queries import check_queries

__all__ = ["make_query_scorer"]


#: The longest query of the data a test fold is a part of, as the scorer reads it: unknown, so no count k is refused
#: for being beyond the fold's own queries (see :func:`make_query_scorer`).
_ANY_LONGEST = 2**62


def _score_by_query(y_true: Any, y_score: Any, qid: Any = None, sample_weight: Any = None, *, metric: str) -> float:
    """``evaluate(y_true, y_score, metric, qid=qid)`` over the test fold's queries, read as a part of the data.

    ``sample_weight`` is a parameter only to be refused by name: scikit-learn passes it when the scorer requests
    it, and the ranking metrics count every row once.
    """
    if sample_weight is not None:
        raise ValueError(f"sample_weight: the query scorer of {metric!r} counts every row once (rankcore's ranking "
                         f"metrics take no weights); request qid alone, as make_query_scorer's scorer does, or "
                         f"set_score_request(qid=True, sample_weight=False)")
    if qid is None:
        # scikit-learn's set_score_request on a scorer replaces every request it had, so a call that names only
        # sample_weight leaves qid unrequested although the fold's qid was passed.
        raise ValueError(f"qid: the query scorer of {metric!r} received no qid; pass it with "
                         f"params={{'qid': qid}} (cross_val_score) or fit(X, y, qid=qid) (GridSearchCV), with "
                         f"sklearn.set_config(enable_metadata_routing=True); a set_score_request(...) call on the "
                         f"scorer replaces its requests, so name qid=True in it too")
    from ._evaluate import _checked_labels, _checked_scores, resolve_metrics
    from ._query_evaluate import evaluate_queries

    resolved = resolve_metrics([metric])
    scores = _checked_scores(y_score, resolved)
    labels = _checked_labels(y_true, scores, resolved, whole=False)
    queries = check_queries(qid, None, int(scores.shape[0])).part_of(_ANY_LONGEST)
    return float(evaluate_queries(resolved, labels, scores, queries, ci=None, n_boot=None, random_state=None)[metric])


def make_query_scorer(metric: str | Metric) -> Any:
    """A scorer for ``cross_val_score``/``GridSearchCV`` that averages ``metric`` over the test fold's queries.

    Parameters
    ----------
    metric : str or Metric
        Any registered scalar metric (``"ndcg@k:10"``, ``"map"``, ``"auc"``,
        ...), as :func:`rankcore.evaluate` takes it with ``qid``.

    Returns
    -------
    scorer
        A scikit-learn scorer that requests ``qid`` through metadata
        routing and scores ``decision_function`` (else ``predict``); a
        lower-is-better metric is negated, as scikit-learn's scorers are.

    Notes
    -----
    A test fold is a part of the data: its queries shorter than a count k are
    read as any query shorter than k is (``ndcg@k``, ``err@k``, ``map@k``:
    the whole query; ``prec@k`` keeps k as its denominator), and a fold whose
    queries are all shorter than k is scored, not refused (scikit-learn would
    turn the refusal into a NaN score for that fold).  Check a count k against
    the whole data once, with :func:`rankcore.evaluate` and ``qid``.

    The scorer counts every row once, as the metrics do: it requests no
    ``sample_weight`` (a search may route the weights to ``fit`` alone), and
    weights routed to it by ``set_score_request(sample_weight=True)`` are
    refused by name.  scikit-learn's ``set_score_request`` on a scorer
    replaces every request it had, so a call on it names ``qid=True`` too.

    Raises
    ------
    RuntimeError
        scikit-learn's metadata routing is off: without it the scorer could
        not receive the test fold's ``qid``.
    ValueError
        A metric that is not a single number; when scoring, no ``qid`` or a
        ``sample_weight``.

    Examples
    --------
    >>> import numpy as np, sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import cross_val_score
    >>> from rankcore import QueryKFold
    >>> from rankcore.metrics import make_query_scorer
    >>> rng = np.random.default_rng(0)
    >>> X, qid = rng.normal(size=(120, 3)), np.repeat(np.arange(12), 10)
    >>> y = np.clip(np.round(X[:, 0] + 1), 0, 3)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     scores = cross_val_score(Ridge(), X, y, cv=QueryKFold(3), scoring=make_query_scorer("ndcg@k:5"),
    ...                              params={"qid": qid})
    >>> bool(scores.min() > 0.9)
    True
    """
    import sklearn
    from sklearn.metrics import make_scorer

    resolved = resolve("metric", metric)
    if not resolved.scalar or resolved.greater_is_better is None:
        raise ValueError(f"metric: {resolved.spec!r} is not a single number; a scorer needs a scalar metric "
                         f"such as 'ndcg@k:10'")
    if not sklearn.get_config().get("enable_metadata_routing", False):
        raise RuntimeError("make_query_scorer: scikit-learn's metadata routing is off, so the scorer would not "
                           "receive each test fold's qid; call sklearn.set_config(enable_metadata_routing=True) "
                           "first (or use sklearn.config_context)")
    scorer = make_scorer(_score_by_query, response_method=("decision_function", "predict"),
                         greater_is_better=bool(resolved.greater_is_better), metric=resolved.spec)
    return scorer.set_score_request(qid=True)
