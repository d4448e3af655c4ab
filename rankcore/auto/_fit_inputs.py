"""AutoRanker.fit's arguments beyond X, y and the weights: ``init_score``, ``position``, ``eval_set`` and kin.

They mean what they mean to ``PushBoost.fit`` (LightGBM's and XGBoost's
names), carried through a search over candidates:

* ``init_score`` (one first-stage score per row): every fit -- each
  candidate on each fold, the refit -- starts from its rows' initial scores,
  and a validation row is scored at its initial score plus the model's; the
  fitted model is the correction alone (``decision_function`` adds nothing).
* ``position`` (with ``qid``): each fit gets its rows' display positions.
* ``eval_set`` (with ``eval_names``, ``eval_metric``, ``eval_init_score``):
  the user's validation data replace the internal cross-validation: every
  candidate is fitted once on every row of X and chosen on the watched set
  (the last one that is not X itself, as ``PushBoost`` watches), and the
  models scored there are the ones kept.
* ``init_model`` is refused (:func:`refuse_init_model` says why).

Each is checked before anything is fitted; errors name the argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._frames import refuse_peer_container
from ..metrics import MetricRefusal, check_qid
from ..objectives import check_positions
from ..push import (check_eval_init_scores, check_grades, check_init_score, eval_metric_refusal, read_eval_sets,
                    refuse_positions_without_queries)
from ._folds import FoldPlan, check_metric_on_units, plan_units
from ._queries import (PerQueryMean, canonical_order, check_metric_on_query_units, counted_queries, plan_query_units,
                       query_labels)

__all__ = ["RowExtras", "EvalRows", "EvalChoice", "SearchRows", "check_row_extras", "refuse_init_model",
           "read_auto_eval_sets", "joined_rows", "score_eval_sets", "refuse_eval_metrics"]


def refuse_init_model(init_model: Any) -> None:
    """The ValueError of ``fit(..., init_model=...)``: AutoRanker continues no model.

    Continuing is adding weak rankers to a model's own.  AutoRanker's choice
    may be a rank-average blend or a fold bag of standardized models, which
    have no weak rankers to add to, and a new search could choose another
    family than the one continued.  A correction to a fitted model is a fit
    from its scores; one boosting model is continued by its own estimator.
    """
    if init_model is None:
        return
    raise ValueError("init_model: AutoRanker does not continue a fitted model (its choice may be a blend or a fold "
                     "bag, with no weak rankers to add to, and a new search may choose another learner); to learn a "
                     "correction to a model's scores, pass init_score=model.decision_function(X) (and "
                     "eval_init_score for eval_set), or continue one boosting model with rankcore.boost(...).fit("
                     "X, y, init_model=model)")


@dataclass(frozen=True)
class RowExtras:
    """Each training row's initial score and display position (either None), in the rows' order."""

    init_score: np.ndarray | None = None
    position: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> "RowExtras":
        return RowExtras(None if self.init_score is None else self.init_score[rows],
                         None if self.position is None else self.position[rows])

    def given(self) -> dict:
        """``{"init_score": ..., "position": ...}`` of those given (the executor's and the refit's keywords)."""
        return {name: value for name, value in (("init_score", self.init_score), ("position", self.position))
                if value is not None}


def check_row_extras(init_score: Any, position: Any, n: int, *, within: bool,
                     order: np.ndarray | None = None) -> RowExtras:
    """``init_score`` (finite, one per row) and ``position`` (integers >= 0, one per row; with queries only),
    checked as ``PushBoost.fit`` checks them and put in ``order`` (the canonical row order within queries)."""
    init = check_init_score(init_score, n)
    places = None
    if position is not None:
        if not within:
            refuse_positions_without_queries()
        ids, codes = check_positions(position, n)
        places = ids[codes]
    extras = RowExtras(init, places)
    return extras if order is None else extras.take(order)


@dataclass(frozen=True)
class EvalRows:
    """One checked validation set: rows encoded as X is, 0/1 labels or grades, query codes, initial scores.

    Within queries the rows are in the canonical order (``order``: the
    given rows' indices in it) and ``codes`` number the set's queries 0, 1, ...
    """

    name: str
    label: str
    X: np.ndarray
    y: np.ndarray
    codes: np.ndarray | None
    init: np.ndarray | None
    order: np.ndarray
    training: bool

    def labels(self) -> np.ndarray:
        """The labels as the search's metric reads them (within queries: grades with query codes)."""
        return self.y if self.codes is None else query_labels(self.y, self.codes)


@dataclass(frozen=True)
class EvalChoice:
    """The user's validation sets, the one the choice is made on (``watched``), and ``eval_metric``'s metrics."""

    sets: tuple
    watched: int
    metrics: tuple

    @property
    def watched_set(self) -> EvalRows:
        return self.sets[self.watched]


def _set_rows(estimator, given: Any, label: str, within: bool) -> tuple:
    """(X_val, y_val, qid_val or None) of one set, its shape checked."""
    form = "(X_val, y_val, qid_val)" if within else "(X_val, y_val)"
    if not isinstance(given, (tuple, list)) or len(given) not in (2, 3):
        raise ValueError(f"{label}: expected a tuple {form} or a list of them, got {type(given).__name__}")
    if len(given) == 3 and not within:
        raise ValueError(f"{label}: a set with query ids {form.replace(')', ', qid_val)')} is for a fit within "
                         f"queries; fit(X, y) ranks one list: pass (X_val, y_val)")
    if len(given) == 2 and within:
        raise ValueError(f"{label}: a fit within queries is validated per query: pass {form}, one query id per row "
                         f"of X_val")
    # by name before NumPy reads a DMatrix as one object (the check of the rows would name X, not the set)
    refuse_peer_container(given[0], f"{label} X_val")
    try:
        X_val = estimator._prediction_rows(given[0])
    except ValueError as exc:
        raise _x_val_refusal(exc, label) from None
    return X_val, given[1], given[2] if within else None


def _x_val_refusal(exc: ValueError, label: str) -> ValueError:
    """The check of a set's X_val refusing it (``exc``, which names X, or sklearn's feature count), said as
    ``"{label}: X_val: ..."``: a refusal of ``"{label} X_val"``, what the user passed (:func:`_refusal_of`)."""
    return _refusal_of(exc, f"{label}: X_val: {exc}", f"{label} X_val", str(exc))


def _refusal_of(exc: ValueError, message: str, parameter: str, detail: str) -> ValueError:
    """``exc`` said as ``message`` (which ends with ``detail``): an :class:`~rankcore.validation.ArgumentRefusal`
    of ``parameter``, as the set's other refusals are; a refusal keeps its class and fields (a subclass with fields
    of its own, no ``parameter`` among them, keeps what it names)."""
    from ..validation import ArgumentRefusal, said_again

    if not isinstance(exc, ArgumentRefusal):
        return ArgumentRefusal(message, parameter=parameter, detail=detail)
    return said_again(exc, message, **({"parameter": parameter} if "parameter" in exc.fields else {}))


def _set_labels(estimator, y_val: Any, m: int, label: str, within: bool) -> np.ndarray:
    if within:          # refused as an ArgumentRefusal of "{label} y_val" by the check itself
        return check_grades(y_val, m, name=f"{label} y_val")
    arr = np.asarray(y_val)
    if arr.ndim != 1 or arr.shape[0] != m:
        raise _y_val_refusal(label, f"expected y_val of one label per row of X_val ({m}), got shape {arr.shape}")
    if not np.isin(arr, estimator.classes_).all():
        shown = np.asarray(estimator.classes_).tolist()     # [0, 1], not numpy's reprs of its scalars
        raise _y_val_refusal(label, f"y_val holds labels other than the training classes {shown!r}")
    y01 = (arr == estimator.classes_[1]).astype(np.int8)
    if y01.min() == y01.max():
        raise _y_val_refusal(label, "y_val holds one class only; the candidates are chosen on it: it needs both")
    return y01


def _y_val_refusal(label: str, detail: str) -> ValueError:
    """``"{label}: {detail}"``, a refusal of the set's labels: an :class:`~rankcore.validation.ArgumentRefusal` of
    ``"{label} y_val"``, as their check within queries (:func:`_set_labels`) says its refusal."""
    from ..validation import ArgumentRefusal

    return ArgumentRefusal(f"{label}: {detail}", parameter=f"{label} y_val", detail=detail)


def read_auto_eval_sets(estimator, eval_set: Any, eval_names: Any, eval_metric: Any, eval_init_score: Any, *,
                        X: Any, y: Any, within: bool, init_score: Any, queries: tuple = (None, None)
                        ) -> EvalChoice | None:
    """``fit``'s validation arguments checked against the fit (X already checked: ``estimator`` knows its columns
    and, on one list, ``classes_``); None without ``eval_set``.

    ``init_score``: the training rows' checked initial scores in their given order, or None.  A fit from initial
    scores needs every set's own (``eval_initial_score``; a set that is X itself takes ``init_score``), and a fit
    without them takes none: the candidates are chosen by what they rank, the initial scores plus the model's.
    ``queries``: the fit's ``(qid, group)``, part of what makes a set the training data itself.
    """
    evals = read_eval_sets(eval_set, eval_names, eval_metric, X=X, y=y, qid=queries[0], group=queries[1])
    if evals is None:
        if eval_init_score is not None:
            raise ValueError("eval_init_score: given without eval_set; it holds the initial scores of its sets")
        return None
    if evals.watched in evals.training:
        raise ValueError("eval_set: every set is the training data itself (the same X and y); the candidates are "
                         "chosen on held-out rows: add a validation set, or leave out eval_set for cross-validation")
    inits = check_eval_init_scores(eval_init_score, len(evals.sets))
    sets = []
    for i, given in enumerate(evals.sets):
        label = evals.label(i)
        X_val, y_val, qid_val = _set_rows(estimator, given, label, within)
        m = X_val.shape[0]
        y_val = _set_labels(estimator, y_val, m, label, within)
        init_name = "eval_init_score" if len(evals.sets) == 1 else f"eval_init_score[{i}]"
        init = check_init_score(inits[i], m, name=init_name)
        if init is None and i in evals.training:
            init = init_score                  # X itself starts from init_score, as LightGBM scores it
        if (init is None) != (init_score is None):
            raise ValueError(f"{init_name}: " + (
                f"the fit starts from init_score, so each set is scored at its own initial scores plus the model's; "
                f"{label} has none" if init is None else
                "given without init_score: the candidates would be fitted from 0 and chosen from other scores"))
        codes, order = None, np.arange(m)
        if within:
            codes = check_qid(qid_val, m, name=f"{label} qid_val").codes
            order = canonical_order(X_val, y_val, codes)
            X_val, y_val, codes = X_val[order], y_val[order], check_qid(codes[order], m).codes
            init = None if init is None else init[order]
        sets.append(EvalRows(evals.names[i], label, X_val, y_val, codes, init, order, i in evals.training))
    return EvalChoice(tuple(sets), evals.watched, tuple(evals.metrics))


def _refuse_no_pairs(grades: np.ndarray, codes: np.ndarray, label: str) -> None:
    """Refuse the watched set within queries when none of its queries holds two grades (as a list of one class is
    refused): a query of one grade scores every ranking alike (nDCG 1), so every candidate would tie there."""
    n_queries = int(codes.max()) + 1
    low, high = np.full(n_queries, np.inf), np.full(n_queries, -np.inf)
    np.minimum.at(low, codes, grades)
    np.maximum.at(high, codes, grades)
    if not (high > low).any():
        raise ValueError(f"{label}: no query of the set holds two grades (each has one row, or rows of one grade), "
                         f"so every ranking scores alike; the candidates are chosen on it: it needs queries with "
                         f"rows of different grades")


@dataclass(frozen=True)
class SearchRows:
    """What the search fits and scores: the training rows, then (with ``eval_set``) the watched set's rows.

    ``n_train``: the rows of X (the first ones); ``labels``: as the metric reads them; ``codes``: each row's query
    code (None: one list); ``weights``, ``extras``: the training rows' (the set's rows get placeholders no fit
    reads: every fit trains on X's rows alone).
    """

    X: np.ndarray
    y: np.ndarray
    labels: np.ndarray
    codes: np.ndarray | None
    weights: np.ndarray | None
    extras: RowExtras
    n_train: int

    def executor_inputs(self) -> dict:
        """The executor's keywords of the inputs given (an executor overridden without them is never passed
        them: ``DaskAutoRanker`` takes none of these)."""
        given = {name: value for name, value in (("qid", self.codes), ("sample_weight", self.weights))
                 if value is not None}
        return {**given, **self.extras.given()}


def joined_rows(X: np.ndarray, y: np.ndarray, codes: np.ndarray | None, weights: np.ndarray | None,
                extras: RowExtras, evals: EvalChoice, unit_metric: Any, seed: int) -> tuple:
    """(:class:`SearchRows`, the plan, its scoring units) of a choice on the watched set of ``evals``.

    One hold-out: trained on every row of X, validated on the set's rows,
    scored in parts (stratified, or of whole queries) so that the selection
    sees the spread of a score as on an internal hold-out.
    """
    watched = evals.watched_set
    n, m = X.shape[0], watched.X.shape[0]
    within = codes is not None
    X_all = _stacked(X, watched.X)
    y_all = np.concatenate([y, watched.y.astype(y.dtype)])
    codes_all = None if not within else np.concatenate([codes, watched.codes + int(codes.max()) + 1])
    labels = y_all if not within else query_labels(y_all, codes_all)
    weights_all = None if weights is None else np.concatenate([weights, np.ones(m)])
    init_all = None if extras.init_score is None else np.concatenate([extras.init_score, watched.init])
    places = None if extras.position is None else np.concatenate([extras.position, np.zeros(m, np.int64)])
    plan = FoldPlan("holdout", ((np.arange(n), np.arange(n, n + m)),), 1, 1, by_query=within, given=watched.name)
    if within:
        queries = check_qid(codes_all, n + m)
        counted = counted_queries(unit_metric, labels)
        if not counted[int(codes.max()) + 1:].any():
            detail = ("counts none of its queries (each needs a relevant row, or both classes); the candidates are "
                      "chosen on it")
            raise MetricRefusal(f"{watched.label}: the metric {unit_metric.spec!r} {detail}", spec=unit_metric.spec,
                                reason="no_query", detail=detail, labels=watched.label, eval_set=watched.label)
        _refuse_no_pairs(watched.y, watched.codes, watched.label)
        # its parts read queries shorter than a count k whole (``unit_metric.longest``: the set's longest query)
        units = plan_query_units(plan, queries, counted, seed)
        check_metric_on_query_units(unit_metric, labels, plan, units, eval_set=watched.label)
    else:
        units = plan_units(plan, y_all, seed)
        check_metric_on_units(unit_metric, y_all, plan, units, eval_set=watched.label)
    rows = SearchRows(X_all, y_all, labels, codes_all, weights_all, RowExtras(init_all, places), n)
    return rows, plan, units


def _stacked(X: Any, X_val: Any) -> Any:
    """The training rows, then the set's, in the training rows' form: CSR when X is sparse (a dense set made CSR,
    O(its stored values)), else dense (a sparse set's dense copy: it joins a dense X of the same columns)."""
    import scipy.sparse as sp

    if hasattr(X, "toarray"):
        return sp.vstack([X, sp.csr_matrix(X_val)], format="csr")
    return np.concatenate([X, X_val.toarray() if hasattr(X_val, "toarray") else X_val])


def refuse_eval_metrics(evals: EvalChoice, metric: Any, within: bool) -> None:
    """Refuse, before any fit, an ``eval_metric`` that cannot score some set (read with constant scores)."""
    for extra in evals.metrics:
        for rows in evals.sets:
            try:
                _value(extra, rows, np.zeros(rows.X.shape[0]), within, default=False)
            except (ValueError, TypeError) as exc:
                # the sentence names the metric once: a refusal's detail, not the check's own "metric 'x':" again
                raise eval_metric_refusal(exc, extra.spec, rows.label, rows.label) from None


def _value(metric: Any, rows: EvalRows, scores: np.ndarray, within: bool, *, default: bool) -> float:
    if within:
        return float(PerQueryMean(metric, default=default)(rows.labels(), scores))
    return float(metric(rows.y, scores))


def score_eval_sets(evals: EvalChoice, metric: Any, models: dict, *, within: bool, default: bool) -> dict:
    """``evals_result_``: set name -> metric spec -> model name -> its value on the whole set.

    ``models``: name -> (fitted model, scorer): every candidate fitted on X
    that the search kept, and the choice when it is a blend.  A set is
    scored at its initial scores plus the model's.  ``metric`` (the
    selection's; ``default``: the unnamed default within queries) comes
    first, then ``eval_metric``'s others.
    """
    result: dict = {}
    for rows in evals.sets:
        scores = {}
        for name, (model, scorer) in models.items():
            s = np.asarray(scorer(model, rows.X), dtype=np.float64)
            scores[name] = s if rows.init is None else s + rows.init
        per_metric = {metric.spec: {name: _value(metric, rows, s, within, default=default)
                                    for name, s in scores.items()}}
        for extra in evals.metrics:
            per_metric.setdefault(extra.spec, {name: _value(extra, rows, s, within, default=False)
                                               for name, s in scores.items()})
        result[rows.name] = per_metric
    return result
