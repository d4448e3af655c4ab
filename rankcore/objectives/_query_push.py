"""The push objective within queries, over relevance grades (docs/theory/push.md#per-query-push).

    R(f) = Σ_q Σ_{k ∈ q} v_k · g(L_k),    L_k = Σ_{i ∈ q, y_i > y_k} w_i · a_ik · ℓ(f_i − f_k)

Every row k is priced by its height above the rows of higher grades in its own
query (k a "negative" of each higher grade, i a "positive" of each lower one);
a_ik = 1, or the gain difference 2^{y_i} − 2^{y_k} with ``gain_weighted``.
RankBoost is ℓ = exp, g = identity; P-Norm Push is g(r) = r^p.  The working
value is J = log R, as for the single list, so ``pow:64`` never overflows.

Rows are sorted once by (query, grade); the rows of one query and one grade
form a *level*.  Three forms:

* ℓ(z) = e^{−rz}: L_k = e^{r f_k} · T_level(k), where T is a running sum over
  the levels above of Σ w_i e^{−r f_i} (times the gain steps δ_l = 2^{g_l} −
  2^{g_{l−1}} when gain-weighted, which keeps every sum a sum of positive
  terms).  Every sum over pairs becomes a log-sum-exp per level and a running
  log-sum-exp over the levels of each query (``_query_kernels.running_lse``):
  O(rows + levels) per evaluation after the sort, never a loop over pairs.
* ℓ(z) = e^{−rz} with a price of degree 1 (g(L) = g(1)·L, RankBoost): the same
  running sums in linear space, each query shifted by its own mid-range
  (``_query_kernels.exp_linear_push``): one exp per row and no log, where the
  log-space form makes about ten passes with exp and log.  A query whose
  scores spread too far for its sums to stay
  normal doubles (``_linear_spread_limit``), or a sum over the queries that
  overflows, sends the call to the log-space form, which is exact at any scale.
* any other loss: for each query and each level below its top, the loss's
  pairwise sums between that level's rows and the (contiguous) rows above it --
  exact, O(n_q) memory.  A level of at most ``_query_pairs.SMALL_LEVEL_PAIRS``
  pairs (|level| · |rows above|) is summed with every other such level in one
  compiled call (``_query_pair_kernels``, the loss's ``pairwise_kernel()``
  evaluator, threads over queries): O(Σ |level| · |rows above|) pair
  evaluations and no Python per level, so many short queries cost about what
  their pairs cost.  A loss without a compiled evaluator (written in Python)
  has its small levels summed together by vectorized NumPy over their pairs
  (``_query_pair_numpy``: the loss's methods once per chunk of pairs, no
  Python per level).  A larger level asks the loss for its sums
  (O(n_q log n_q) per level for the hinge losses, O(|level| · |rows above|)
  for the logistic), a few Python calls per level.  With the hinge losses, a query of more than a few levels
  (float grades) is swept whole instead (``_query_sweep_kernels``, a Fenwick
  tree over its scores' ranks): O(n_q log n_q) whatever its levels.

Curvature: the diagonal of ∇²R / R (the single-list push's curvature, see
``_push.py``), clipped below at ``HESSIAN_FLOOR``.

``query_rmse`` = λ > 0 adds λ·c times CatBoost's QueryRMSE to J, around
whichever form the push takes (:mod:`rankcore.objectives._query_rmse`).

The estimators reach it through ``PushObjective.bind(y, w, queries=...)``
(``fit(X, y, qid=...)``): the same loss and price as the single list.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._vector import dot as _dot
from ..metrics import Queries
from ..validation import ArgumentRefusal, check_flag
from ._base import BoundObjective, LinePoint, clip_hessian
from . import _query_pairs
from ._query_kernels import LinearStatus, exp_linear_push, running_lse
from ._query_pair_kernels import negative_sums as small_negative_sums
from ._query_pair_kernels import positive_sums as small_positive_sums
from ._query_pair_numpy import negative_sums as numpy_negative_sums
from ._query_pair_numpy import positive_sums as numpy_positive_sums
from ._query_sweep_kernels import negative_sweep, positive_sweep

__all__ = ["QueryPush", "BoundQueryPush"]

#: The largest grade whose gain 2^g is a float64 (gain-weighted pairs).
MAX_GAIN_GRADE = 1023.0

_LN2 = math.log(2.0)

#: The largest log of the weights c = v g′(L)/R formed in linear space by the pairwise form (e^700 < max float).
_SAFE_LOG_WEIGHT = 700.0

#: The largest |log| of any sum the linear-space kernel forms within a query: e^{±700} are normal
#: doubles (they reach e^{±708}), so its products and sums of positive terms keep every digit.  The
#: sum over the queries can still overflow (some 17,000 queries at the bound): the kernel checks it.
_LINEAR_LOG_RANGE = 700.0


#: The largest r·|f| at which the log-space form's gradient keeps digits: the ulp of r·f is 1/4 there, and the few
#: roundings of each weight's log cost it a factor of about e^{±1} (scores this far apart: a huge learning rate).
_LOG_SPACE_LIMIT = 2.0 ** 50


def _log_sum_exp(x: np.ndarray) -> float:
    """log Σ e^x over a 1-D array (entries may be −inf), shifted by its maximum.

    scipy's ``logsumexp`` computes the same; this runs at every evaluation of
    the objective, where its argument checks and dispatch cost a third of the
    objective's time on small queries.
    """
    top = float(np.max(x))
    if not math.isfinite(top):
        return top
    with np.errstate(over="ignore"):         # entries ~1e308 apart: an infinite term, an infinite value
        return top + math.log(float(np.sum(np.exp(x - top))))

class QueryPush:
    """The push family within queries over grades: loss ℓ, price g, optional gain-weighted pairs.

    Parameters
    ----------
    loss : str or Loss
        A registered loss (spec or instance), e.g. ``"exp"`` or ``"logistic"``.
    price : str or Price
        A registered price, e.g. ``"identity"`` (RankBoost) or ``"pow:4"``.
    gain_weighted : bool
        Weight each pair (i above k) by 2^{y_i} − 2^{y_k}.
    discount : {"none", "sum", "product"}
        Weight each pair also by d_i + d_k (``"sum"``) or d_i · d_k (``"product"``), the discounts
        1/log2(1 + place) of its rows' current places in their query (``_query_positions``).
        Exponential loss and a price of degree 1 only.
    truncation : int
        With ``discount``: 0, every place; T ≥ 1, places beyond T have discount 0.
    normalize : bool
        Divide each query's pair weights by their total (every query counts once).  Exponential loss
        and a price of degree 1 only.
    query_rmse : float
        λ ≥ 0: add λ·c times CatBoost's QueryRMSE, ½ Σ_i w_i (r_i − m_q)² with r = f − y and m_q the
        weighted mean of r over the query, to the working value (c, fixed at bind time, gives the
        term's gradient at f = 0 the L1 norm of the push's; :mod:`rankcore.objectives._query_rmse`).
        0 (the default) is the push alone.  Any loss, price and option.
    """

    log_value = True
    has_value = True

    def __init__(self, loss: Any = "exp", price: Any = "identity", *, gain_weighted: bool = False,
                 discount: str = "none", truncation: int = 0, normalize: bool = False, query_rmse: float = 0.0):
        from ..registry import resolve
        from ._query_rmse import check_query_rmse

        self.loss = _resolved("loss", loss, resolve)
        self.price = _resolved("price", price, resolve)
        self.gain_weighted = check_flag(gain_weighted, name="gain_weighted")
        if discount not in DISCOUNTS:
            raise ValueError(f"discount: expected one of {', '.join(map(repr, DISCOUNTS))}, got {discount!r}")
        self.discount = str(discount)
        self.normalize = check_flag(normalize, name="normalize")
        self.truncation = check_position_options(self.loss, self.price, self.discount, truncation, self.normalize)
        self.query_rmse = check_query_rmse(query_rmse)

    @property
    def spec(self) -> str:
        """``push:<loss>,<price>`` with its options by name: the push objective it is the per-query form of."""
        from ..spec import _format_value

        options = [("gain_weighted", self.gain_weighted), ("discount", self.discount != "none" and self.discount),
                   ("truncation", self.truncation), ("normalize", self.normalize),
                   ("query_rmse", self.query_rmse)]
        return f"push:{self.loss.spec},{self.price.spec}" + "".join(
            f",{name}={_format_value(value)}" for name, value in options if value)

    def bind(self, y, queries: Queries, sample_weight=None, *, owner: Any = None, n_threads: int = 1):
        """The objective on fixed grades, queries and weights (sorts the rows once).

        ``owner`` is the objective component the bound form answers for
        (its ``objective`` attribute, named in errors); default this one.
        ``n_threads``: the threads of the exponential push's linear-space
        kernel (it shares large inputs' queries between them, the same sums).
        A :class:`BoundQueryPush`, or with ``discount`` or ``normalize`` a
        :class:`~rankcore.objectives._query_positions.BoundPositionPush` over one; with
        ``query_rmse`` > 0, that form inside a
        :class:`~rankcore.objectives._query_rmse.BoundQueryRMSEBlend`.
        """
        bound = BoundQueryPush(self, y, queries, sample_weight, owner=owner, n_threads=n_threads)
        if self.discount != "none" or self.normalize:
            from ._query_positions import BoundPositionPush

            bound = BoundPositionPush(bound.objective, bound, queries, discount=self.discount,
                                      truncation=self.truncation, normalize=self.normalize)
        if self.query_rmse == 0:
            return bound
        from ._query_rmse import BoundQueryRMSEBlend

        return BoundQueryRMSEBlend(bound, queries, self.query_rmse)


#: The pair discounts of the per-query push: none, d_i + d_k, d_i · d_k (d of the rows' current places).
DISCOUNTS = ("none", "sum", "product")


def check_position_options(loss, price, discount: str, truncation: Any, normalize: bool) -> int:
    """The truncation level as an int, after checking that the options fit the loss and price."""
    discount = discount != "none"
    if isinstance(truncation, (bool, np.bool_)) or not isinstance(truncation, (int, np.integer)) or truncation < 0:
        raise ValueError(f"truncation: expected an integer >= 0 (0: every place), got {truncation!r}")
    if truncation and not discount:
        raise ValueError(f"truncation: truncates the place discounts, so it needs discount=sum or product; "
                         f"got truncation={int(truncation)} with discount=none")
    if discount or normalize:
        option = "discount" if discount else "normalize"
        rate = loss.exponential_rate
        if rate is None or not rate > 0 or price.homogeneous_degree != 1:
            raise ValueError(f"{option}: needs the exponential loss and a price of degree 1 (the pair weights "
                             f"must split between a pair's rows), got loss {loss.spec!r}, price {price.spec!r}")
    return int(truncation)


def _resolved(family: str, value: Any, resolve):
    from ..spec import Component, SpecError

    if isinstance(value, Component) and value.family != family:
        raise TypeError(f"{family}: expected a {family}, got the {value.family} {value.spec!r}")
    if not isinstance(value, (str, Component)):
        raise TypeError(f"{family}: expected a registered {family} (a spec string or an instance), "
                        f"got {type(value).__name__}")
    try:
        return resolve(family, value)
    except SpecError as exc:
        raise ValueError(f"{family}: {exc}") from None


def _check_grades(y, n_rows: int, gain_weighted: bool) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y: expected one grade per row ({n_rows}), got shape {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(f"y: grades must be numbers, got dtype {y.dtype}")
    y = y.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(y) | (y < 0))
    if bad.size:
        raise ArgumentRefusal.said("y", f"grades must be finite and >= 0, got {float(y[bad[0]])!r} at row "
                                        f"{int(bad[0])}", row=int(bad[0]))
    if gain_weighted:
        bad = np.flatnonzero(y > MAX_GAIN_GRADE)
        if bad.size:
            raise ArgumentRefusal.said("y", f"gain-weighted pairs need 2^grade to be finite (grades <= "
                                            f"{MAX_GAIN_GRADE:g}), got {float(y[bad[0]])!r} at row {int(bad[0])}",
                                       row=int(bad[0]))
    return y


def _check_weight(sample_weight, n_rows: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n_rows)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n_rows,):
        raise ArgumentRefusal.said("sample_weight", f"expected one weight per row ({n_rows}), got shape {w.shape}")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        raise ArgumentRefusal.said("sample_weight", f"weights must be finite and >= 0, got {float(w[bad[0]])!r} "
                                                    f"at row {int(bad[0])}")
    return w


def _scaled_down(log_x: np.ndarray) -> tuple[np.ndarray, float]:
    """(e^{log_x − shift}, shift), shift ≥ 0 the least that keeps every value below e^700."""
    shift = max(float(np.max(log_x, initial=-np.inf)) - _SAFE_LOG_WEIGHT, 0.0)
    return np.exp(log_x - shift), shift


def _scaled_up(x: np.ndarray, shift: float) -> np.ndarray:
    """x · e^shift for x ≥ 0, formed in logs (e^shift itself may be beyond any float)."""
    with np.errstate(divide="ignore"):
        return np.exp(np.log(x) + shift)


def _log(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(x)


class BoundQueryPush(BoundObjective):
    """The per-query push on fixed grades, queries and weights (see the module docstring).

    Answers what the boosting driver asks of a bound objective (``value``,
    ``value_and_gradient``, ``value_gradient_hessian``, ``line``), in the
    caller's row order.

    Attributes
    ----------
    log_value : bool
        Always True: the working value is J = log R.
    n_rows : int
    n_queries : int
    n_single_grade_queries : int
        Queries whose rows all share one grade (or have one row): they
        contribute nothing.
    """

    def _refuse_no_pair(self, objective: QueryPush, n_queries: int, weighted: bool) -> None:
        """No pair of rows of two grades, both of positive weight, in any query: nothing to fit.

        When queries of two grades exist, the weights left them no pair: a refusal of ``sample_weight``
        (``zero_total``, said of the objective first as the push on one list says it), naming how many.
        """
        single = self.n_single_grade_queries
        if not weighted or single == n_queries:
            raise ValueError("y, qid: the per-query push needs a query with two grades of positive weight, "
                             f"got {n_queries} queries, {single} with a single grade")
        detail = (f"needs a query with two grades of positive weight, got {n_queries} queries: {single} with a "
                  f"single grade, and the weights leave none of the other {n_queries - single} a pair of rows "
                  f"of two grades, both of positive weight")
        raise ArgumentRefusal(f"objective {objective.spec!r}: {detail}", parameter="sample_weight", detail=detail,
                              reason="zero_total")

    def __init__(self, objective: QueryPush, y, queries: Queries, sample_weight=None, *, owner: Any = None,
                 n_threads: int = 1):
        if not isinstance(queries, Queries):
            raise TypeError(f"queries: expected a Queries (rankcore.metrics._queries.check_qid), "
                            f"got {type(queries).__name__}")
        if isinstance(n_threads, (bool, np.bool_)) or not isinstance(n_threads, (int, np.integer)) or n_threads < 1:
            raise ValueError(f"n_threads: expected an integer >= 1, got {n_threads!r}")
        self.n_threads = int(n_threads)
        n = int(queries.codes.shape[0])
        self.loss = objective.loss
        self.price = objective.price
        self.gain_weighted = objective.gain_weighted
        y = _check_grades(y, n, self.gain_weighted)
        w = _check_weight(sample_weight, n)
        BoundObjective.__init__(self, objective if owner is None else owner, y, sample_weight)
        self.n_queries = queries.n_queries
        # One stable sort by (query, grade): the rows of a level are contiguous, levels ascend within a query.
        self.order = np.lexsort((y, queries.codes))
        codes = queries.codes[self.order]
        self.grades = y[self.order]
        self.weight = w[self.order]
        with np.errstate(divide="ignore"):
            self.log_weight = np.log(self.weight)
        # Each row's weight as the row above a pair (w) and as the row below (v): the sample weight in both
        # roles, until set_role_weights splits a pair weight between its rows (position-aware pairs).
        self.pos_weight = self.neg_weight = self.weight
        self._log_pos = self._log_neg = self.log_weight
        self.sorted_codes = codes
        new_level = np.ones(n, dtype=bool)
        new_level[1:] = (codes[1:] != codes[:-1]) | (self.grades[1:] != self.grades[:-1])
        self.level_starts = np.flatnonzero(new_level)
        self.level = np.cumsum(new_level) - 1
        level_query = codes[self.level_starts]
        level_grade = self.grades[self.level_starts]
        per_query = np.bincount(level_query, minlength=queries.n_queries)
        self.bounds = np.concatenate([[0], np.cumsum(per_query)]).astype(np.int64)
        self.level_ends = np.append(self.level_starts[1:], n)
        last = self.bounds[1:][per_query > 0] - 1
        self.top_level = np.zeros(self.level_starts.shape[0], dtype=bool)
        self.top_level[last] = True
        self.below_top = ~self.top_level[self.level]          # rows priced against a higher grade
        self.n_single_grade_queries = int(np.count_nonzero(per_query == 1))
        first = np.zeros(self.level_starts.shape[0], dtype=bool)
        first[self.bounds[:-1][per_query > 0]] = True
        # log δ_l = log(2^{g_l} − 2^{g_{l−1}}), −inf at a query's first level (no step below it).
        step = np.zeros_like(level_grade)
        step[1:] = level_grade[:-1] - level_grade[1:]
        # (a query's first level steps down from the previous query's top: overflow there, masked by `first`)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            self.log_step = np.where(first, -np.inf, level_grade * _LN2 + np.log(-np.expm1(step * _LN2)))
        live_pairs = self.below_top & (self.weight > 0)
        above_weight = self._running(self._level_lse(self.log_weight), True, False)
        if not np.any(live_pairs & np.isfinite(above_weight[self.level])):
            self._refuse_no_pair(objective, queries.n_queries, sample_weight is not None)
        self.rate = self.loss.exponential_rate
        self._routes = None                   # the pairwise form's split of the levels, formed at its first call
        self._routes_key = None               # the route bounds it was formed with (tests change them)
        self._log_g1 = self._linear_kernel_log_g1()
        if self._log_g1 is not None:
            self._level_edges = np.append(self.level_starts, n).astype(np.int64)
            self._level_step = np.exp(self.log_step) if self.gain_weighted else np.empty(0)
            self._spread_limit = self._linear_spread_limit(codes)

    def set_role_weights(self, pos_weight: np.ndarray, neg_weight: np.ndarray) -> None:
        """Weigh each pair (i above k) by pos_weight[i] · neg_weight[k] · a_ik from now on (sorted row order).

        Only with ℓ(z) = e^{−rz} and a price of degree 1 (where R is bilinear in the two roles'
        weights); the sample weights are the default for both roles.  Finite weights ≥ 0, O(rows).
        """
        if self._log_g1 is None:
            raise ValueError(f"loss {self.loss.spec!r}, price {self.price.spec!r}: pair weights split between "
                             "their rows need the exponential loss and a price of degree 1 (identity)")
        self.pos_weight = np.ascontiguousarray(pos_weight, dtype=np.float64)
        self.neg_weight = np.ascontiguousarray(neg_weight, dtype=np.float64)
        self._log_pos = self._log_neg = None          # formed when the log-space path asks for them
        self._spread_limit = self._linear_spread_limit(self.sorted_codes)

    @property
    def log_pos(self) -> np.ndarray:
        """log of each row's weight as the row above a pair (sorted order)."""
        if self._log_pos is None:
            self._log_pos = _log(self.pos_weight)
        return self._log_pos

    @property
    def log_neg(self) -> np.ndarray:
        """log of each row's weight as the row below a pair (sorted order)."""
        if self._log_neg is None:
            self._log_neg = _log(self.neg_weight)
        return self._log_neg

    def _linear_kernel_log_g1(self) -> float | None:
        """log g(1) when ℓ(z) = e^{−rz} and g(L) = g(1)·L (degree 1): the linear-space kernel applies."""
        if self.rate is None or not self.rate > 0 or self.price.homogeneous_degree != 1:
            return None
        log_g1 = float(np.asarray(self.price.log_value(np.zeros(1)))[0])
        return log_g1 if math.isfinite(log_g1) else None

    def _linear_spread_limit(self, codes: np.ndarray) -> np.ndarray:
        """Per query, the largest r·(max − min) of its scores at which the linear-space sums stay normal.

        With s = r·(max − min), every nonzero sum the kernel forms for query q lies in
        [e^{lo_q − s}, e^{hi_q + s}]: hi_q = log 2^{top grade} + 2 log n_q + 2 log(largest weight),
        lo_q = log(smallest step δ) + 2 log(smallest positive weight) (no grade terms without gain
        weights; with role weights, the largest or smallest weight of each role once).  Both ends
        within e^{±700} bound s; +inf for a query with no positive weight.
        """
        starts = np.flatnonzero(np.append(True, codes[1:] != codes[:-1]))
        hi = 2.0 * np.log(np.diff(np.append(starts, codes.shape[0])))
        lo = np.zeros(starts.shape[0])
        for w in (self.pos_weight, self.neg_weight):      # one weight of each role in every product
            hi = hi + _log(np.maximum.reduceat(w, starts))
            lo = lo + _log(np.minimum.reduceat(np.where(w > 0, w, np.inf), starts))
        if self.gain_weighted:
            hi = hi + np.maximum.reduceat(self.grades, starts) * _LN2
            steps = self.log_step[self.level]
            lo = lo + np.minimum.reduceat(np.where(np.isfinite(steps), steps, np.inf), starts)
        limit = np.full(self.n_queries, np.inf)
        with np.errstate(invalid="ignore"):
            limit[codes[starts]] = np.fmin(_LINEAR_LOG_RANGE - hi, _LINEAR_LOG_RANGE + lo)
        return limit

    # ------------------------------------------------------------------
    @property
    def has_hessian(self) -> bool:
        """Whether ℓ″ and g″ exist and ℓ is not piecewise linear (as for the single-list push)."""
        return (self.loss.has_second_derivative and self.price.has_second_derivative
                and not getattr(self.loss, "piecewise_linear", False))

    def _sorted_scores(self, scores) -> np.ndarray:
        f = np.asarray(scores, dtype=np.float64)
        if f.shape != (self.n_rows,):
            raise ValueError(f"scores: expected one score per row ({self.n_rows}), got shape {f.shape}")
        bad = np.flatnonzero(~np.isfinite(f))
        if bad.size:
            raise ValueError(f"scores: must be finite, got {float(f[bad[0]])!r} at row {int(bad[0])}")
        return f[self.order]

    def _running(self, a: np.ndarray, reverse: bool, inclusive: bool) -> np.ndarray:
        out = np.empty(a.shape[0])
        running_lse(np.ascontiguousarray(a), self.bounds, reverse, inclusive, out)
        return out

    def _level_lse(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):      # scores near the largest double: inf, NaN
            return np.logaddexp.reduceat(a, self.level_starts)

    def _unsort(self, sorted_values: np.ndarray) -> np.ndarray:
        out = np.empty(self.n_rows)
        out[self.order] = sorted_values
        return out

    # ------------------------------------------------------------------
    def value(self, scores) -> float:
        """J = log R at ``scores`` (``-inf`` when every pair's loss vanishes)."""
        return self._evaluate(scores, 0)[0]

    def value_and_gradient(self, scores) -> tuple[float, np.ndarray]:
        """(J, ∂J/∂f) at ``scores``, rows in the caller's order."""
        return self._evaluate(scores, 1)[:2]

    def value_gradient_hessian(self, scores) -> tuple[float, np.ndarray, np.ndarray]:
        """(J, ∂J/∂f, diagonal of ∇²R / R clipped at the floor), rows in the caller's order."""
        if not self.has_hessian:
            raise ValueError(f"loss {self.loss.spec!r}, price {self.price.spec!r}: no curvature (the loss is "
                             "piecewise linear, or the loss or price has no second derivative)")
        return self._evaluate(scores, 2)

    def line(self, scores, direction):
        """α ↦ :class:`~rankcore.objectives.LinePoint` of φ(α) = J(scores + α·direction).

        With the exponential loss φ″ is exact (Newton steps, :meth:`_exponential_line`); with other
        losses φ″ is NaN (secant steps).
        """
        f = np.asarray(scores, dtype=np.float64)
        h = np.asarray(direction, dtype=np.float64)
        if self.rate is not None:
            f_sorted = self._sorted_scores(f)
            h_sorted = self._sorted_scores(h)
            # J depends on score differences within a query only: the direction shifted to h ≥ 0 is the same line
            shifted = h_sorted - (float(h_sorted.min()) if h_sorted.size else 0.0)
            with np.errstate(divide="ignore"):
                log_h = np.log(shifted)

            def along(alpha: float) -> LinePoint:
                with np.errstate(over="ignore", invalid="ignore"):   # a huge step: inf scores, J = inf
                    moved = f_sorted + alpha * h_sorted
                return self._exponential_line(moved, shifted, log_h, alpha)

            return along

        def evaluate(alpha: float) -> LinePoint:
            value, grad = self.value_and_gradient(f + alpha * h)
            d1 = float(_dot(grad, h)) if math.isfinite(value) else 0.0
            return LinePoint(alpha, float(value), d1, math.nan)

        return evaluate

    def _evaluate(self, scores, order: int):
        out = self.evaluate_unclipped(scores, order)
        if order == 0:
            return out[0], None, None
        if order == 1:
            return out[:2]
        return out[0], out[1], clip_hessian(out[2])

    def evaluate_unclipped(self, scores, order: int) -> tuple[float, Any, Any]:
        """(J, ∂J/∂f or None, diagonal of ∇²R / R or None) in the caller's order, the curvature not clipped.

        ``order`` 0: the value only; 1: and the gradient; 2: and the curvature.
        """
        if self._log_g1 is not None:
            linear = self._linear_exponential(scores, order, clip=False)
            if linear is not None:
                return linear
        f = self._sorted_scores(scores)
        if self.rate is not None:
            value, grad, hess = self._exponential(f, order)
        else:
            value, grad, hess = self._pairwise(f, order)
        return (value, None if order == 0 else self._unsort(grad),
                self._unsort(hess) if order == 2 else None)

    # ------------------------------------------------------------------
    # ℓ(z) = e^{−rz} and g(L) = g(1)·L: sums in linear space per query
    # ------------------------------------------------------------------
    def _linear_exponential(self, scores, order: int, *, clip: bool = True):
        """What ``evaluate_unclipped`` returns, by the linear-space kernel; None where it cannot vouch for its sums.

        None for scores of the wrong shape or not finite (the log-space path names the problem), a
        query whose scores spread beyond its ``_spread_limit``, or a sum over the queries that
        overflows: the log-space path then computes the same numbers.
        """
        f = np.asarray(scores, dtype=np.float64)
        if f.shape != (self.n_rows,):
            return None
        n_levels = self.level_starts.shape[0]
        grad = np.empty(self.n_rows)
        hess = np.empty(self.n_rows if order == 2 else 0)
        status, total = exp_linear_push(np.ascontiguousarray(f), self.order, self.pos_weight, self.neg_weight,
                                        self._level_edges,
                                        self.bounds, self._level_step, self._spread_limit, float(self.rate),
                                        order, np.empty(n_levels), np.empty(n_levels), grad, hess,
                                        self.n_threads)
        if status != LinearStatus.LINEAR_DONE:
            return None
        if total == 0.0:
            value = -math.inf
            grad[:] = 0.0
            hess[:] = 0.0
        else:
            value = math.log(total) + self._log_g1
        if order == 2:
            return value, grad, clip_hessian(hess) if clip else hess
        return value, grad if order > 0 else None, None

    # ------------------------------------------------------------------
    # ℓ(z) = e^{−rz}: running log-sum-exps over levels
    # ------------------------------------------------------------------
    def _exponential(self, f: np.ndarray, order: int):
        # Each gradient weight and curvature is bounded in exact arithmetic (∂J/∂f is a ratio of R's terms),
        # but its log is a sum of terms of the size of r·f, each rounded to an ulp of r·f: beyond
        # _LOG_SPACE_LIMIT those roundings put factors near e^{±1} in every weight (no digit is left), and
        # further out they overflow exp.  Such a gradient and curvature are NaN (J itself keeps its relative
        # precision), without NumPy's warning: the boosting driver stops with "overflow" on them.
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            value, grad, hess = self._exponential_sums(f, order)
        if order > 0 and math.isfinite(value) and float(self.rate) * float(np.max(np.abs(f))) > _LOG_SPACE_LIMIT:
            grad = np.full(f.shape[0], np.nan)
            hess = None if hess is None else np.full(f.shape[0], np.nan)
        return value, grad, hess

    def _exponential_sums(self, f: np.ndarray, order: int):
        """:meth:`_exponential` (J, gradient, curvature in sorted order) under NumPy's error state it sets."""
        r = float(self.rate)
        price = self.price
        level = self.level
        live = self.below_top & (self.neg_weight > 0)
        # T_level: log Σ_{i above} a_ik w_i e^{−r f_i} / (the part common to the level), L_k = e^{r f_k} T.
        above = self._running(self._level_lse(self.log_pos - r * f), True, self.gain_weighted)
        if self.gain_weighted:
            # Σ_{i above k} (2^{y_i} − 2^{y_k}) x_i = Σ_{levels l above k's} δ_l Σ_{i at level l or above} x_i
            above = self._running(self.log_step + above, True, False)
        with np.errstate(invalid="ignore"):
            u = np.where(live, r * f + above[level], -np.inf)                  # log L_k
        live &= u > -np.inf
        terms = np.full(f.shape[0], -np.inf)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            terms[live] = self.log_neg[live] + price.log_value(u[live])
        value = _log_sum_exp(terms) if np.any(live) else -math.inf
        zeros = np.zeros(f.shape[0])
        if order == 0 or not math.isfinite(value):
            return value, zeros, np.zeros(f.shape[0])
        log_c = np.full(f.shape[0], -np.inf)                                    # log v_k g′(L_k) / R
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            log_c[live] = self.log_neg[live] + price.log_derivative(u[live]) - value
        # Negatives: ∂J/∂f_k = c_k ∂L_k/∂f_k = r c_k L_k.
        grad = np.where(live, r * np.exp(log_c + u), 0.0)
        # Positives: ∂J/∂f_n = −r w_n e^{−r f_n} Σ_{k below} a_nk c_k e^{r f_k}.
        below = self._below(self._level_lse(log_c + r * f))
        pos_log = self.log_pos - r * f + below[level]
        grad_pos = r * np.exp(pos_log)
        grad -= grad_pos
        if order == 1:
            return value, grad, None
        log_c2 = np.full(f.shape[0], -np.inf)                                   # log v_k g″(L_k) / R
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            log_c2[live] = self.log_neg[live] + price.log_second_derivative(u[live]) - value
        hess = np.where(live, r * r * (np.exp(log_c2 + 2.0 * u) + np.exp(log_c + u)), 0.0)
        hess += r * grad_pos
        below2 = self._below_squared(self._level_lse(log_c2 + 2.0 * r * f))
        hess += r * r * np.exp(2.0 * (self.log_pos - r * f) + below2[level])
        return value, grad, hess

    def _above(self, log_x: np.ndarray) -> np.ndarray:
        """log Σ_{i above the level} a_ik · exp(log_x[i]) for a row k of each level (a = 1, or the gain difference)."""
        above = self._running(self._level_lse(log_x), True, self.gain_weighted)
        if self.gain_weighted:
            # Σ_{i above k} (2^{y_i} − 2^{y_k}) x_i = Σ_{levels l above k's} δ_l Σ_{i at level l or above} x_i
            above = self._running(self.log_step + above, True, False)
        return above

    def _exponential_line(self, f: np.ndarray, h: np.ndarray, log_h: np.ndarray, alpha: float) -> LinePoint:
        """φ, φ′, φ″ at the sorted scores f along h ≥ 0 (:meth:`_exponential_line_sums`); scores far apart
        give inf or NaN (the line search stops the fit with "overflow"), without NumPy's warning."""
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return self._exponential_line_sums(f, h, log_h, alpha)

    def _exponential_line_sums(self, f: np.ndarray, h: np.ndarray, log_h: np.ndarray, alpha: float) -> LinePoint:
        """φ, φ′, φ″ at the sorted scores f along the sorted direction h ≥ 0 (ℓ(z) = e^{−rz}).

        With x_i = w_i e^{−r f_i} and, for a row k, the weighted moments E_k[h^j] of h over the rows
        above it (weights a_ik x_i): d log L_k / dα = r (h_k − E_k[h]) and d² L_k/dα² / L_k =
        r² E_k[(h_i − h_k)²].  So φ′ = Σ_k c_k L_k ℓ1_k and φ″ = Σ_k (c2_k L_k² ℓ1_k² + c_k L_k ℓ2_k) − φ′²
        with c = v g′(L)/R, c2 = v g″(L)/R: three running log-sum-exps, O(rows + levels), no pairs.
        """
        r = float(self.rate)
        level = self.level
        log_x = self.log_pos - r * f
        s0 = self._above(log_x)[level]
        with np.errstate(invalid="ignore"):
            u = np.where(self.below_top & (self.neg_weight > 0), r * f + s0, -np.inf)           # log L_k
        live = u > -np.inf
        terms = np.full(f.shape[0], -np.inf)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            terms[live] = self.log_neg[live] + self.price.log_value(u[live])
        if not np.any(live):
            return LinePoint(alpha, -math.inf, 0.0, 0.0)
        value = _log_sum_exp(terms)
        if not math.isfinite(value):
            return LinePoint(alpha, value, 0.0, 0.0)
        with np.errstate(invalid="ignore", over="ignore"):
            mean1 = np.exp(self._above(log_x + log_h)[level][live] - s0[live])            # E_k[h]
            mean2 = np.exp(self._above(log_x + 2.0 * log_h)[level][live] - s0[live])      # E_k[h²]
        hk = h[live]
        slope = r * (hk - mean1)
        curve = r * r * np.maximum(hk * hk - 2.0 * hk * mean1 + mean2, 0.0)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            first = np.exp(self.log_neg[live] + self.price.log_derivative(u[live]) - value + u[live])
            second = np.exp(self.log_neg[live] + self.price.log_second_derivative(u[live]) - value
                            + 2.0 * u[live])
        d1 = float(_dot(first, slope))
        d2 = float(_dot(np.nan_to_num(second, nan=0.0), slope * slope) + _dot(first, curve)) - d1 * d1
        return LinePoint(alpha, value, d1, d2)

    def _below(self, level_sums: np.ndarray) -> np.ndarray:
        """log Σ_{k below the level} a_nk · exp(level_sums[level(k)]) for a row n of each level."""
        strict = self._running(level_sums, False, False)
        if not self.gain_weighted:
            return strict
        return self._running(self.log_step + strict, False, True)

    def _below_squared(self, level_sums: np.ndarray) -> np.ndarray:
        """log Σ_{k below} a_nk² · exp(level_sums[level(k)]) (a = 1, or the gain difference)."""
        strict = self._running(level_sums, False, False)
        if not self.gain_weighted:
            return strict
        # a_nk² = Σ_{t ∈ (level k, level n]} δ_t (a_tk + a_{t−1,k}): sums of positive terms only.
        stepped = self.log_step + strict
        through = self._running(stepped, False, True)
        before = self._running(stepped, False, False)
        return self._running(self.log_step + np.logaddexp(through, before), False, True)

    # ------------------------------------------------------------------
    # Any other loss: the loss's pairwise sums, per query and level
    # ------------------------------------------------------------------
    def _pair_weights(self, level_index: int, start: int, stop: int) -> np.ndarray:
        """w_i · a_ik of the rows start:stop above the level (a_ik depends on i and k's level only)."""
        w = self.weight[start:stop]
        if not self.gain_weighted:
            return w
        g = self.grades[self.level_starts[level_index]]
        return w * np.exp2(g) * np.expm1((self.grades[start:stop] - g) * _LN2)

    def _level_routes(self):
        """Which route sums each level (``_query_pairs``), formed again when a route's bound changes."""
        max_pairs = _query_pairs.SMALL_LEVEL_PAIRS
        key = (max_pairs, _query_pairs.SWEEP_MIN_ROWS, _query_pairs.SWEEP_MANY_LEVELS,
               _query_pairs.SWEEP_MAX_LEVEL_ROWS)
        if self._routes is None or self._routes_key != key:
            swept = _query_pairs.swept_queries(self.loss, self.level_starts, self.bounds, self.grades.shape[0])
            self._routes = _query_pairs.LevelRoutes(self.level_starts, self.level_ends, self.bounds,
                                                    self.top_level, self.level, max_pairs, swept)
            self._routes_key = key
            if swept.size:
                self._sweep_edges = np.append(self.level_starts, self.grades.shape[0]).astype(np.int64)
        return self._routes

    def _pairwise_sums(self, f: np.ndarray, routes, order: int):
        """(L, D) of every row (0 on top levels), the swept rows' N, and the large levels' blocks."""
        n = f.shape[0]
        L, D = np.zeros(n), np.zeros(n)
        N = np.zeros(n if order == 2 and routes.swept.size else 0)
        if routes.swept.size:
            negative_sweep(self.loss.degree, order, self.gain_weighted, f, self.weight, self.grades,
                           self._sweep_edges, self.bounds, L, D, N, self.n_threads, queries=routes.swept)
        if routes.n_small:
            evaluator, negative, _ = self._small_level_sums()
            negative(evaluator, f, self.weight, self.grades, self.gain_weighted, routes.starts, routes.ends,
                     routes.stops, routes.groups, L, D, self.n_threads)
        blocks = []
        for lv, lo, hi, stop in routes.large:
            w_pos = np.ascontiguousarray(self._pair_weights(lv, hi, stop))
            f_pos = np.ascontiguousarray(f[hi:stop])
            f_neg = np.ascontiguousarray(f[lo:hi])
            L[lo:hi], D[lo:hi] = self.loss.negative_sums(f_pos, w_pos, f_neg)
            blocks.append((lo, hi, stop, f_pos, w_pos, f_neg))
        return L, D, N, blocks

    def _pairwise(self, f: np.ndarray, order: int):
        price = self.price
        routes = self._level_routes()
        L, D, N, blocks = self._pairwise_sums(f, routes, order)
        self.loss.check_sums(L, D if order else None, N if order == 2 else None)
        log_l = _log(np.maximum(L, 0.0))
        live = self.below_top & (self.weight > 0) & (log_l > -np.inf)
        terms = np.full(f.shape[0], -np.inf)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            terms[live] = self.log_weight[live] + price.log_value(log_l[live])
        value = _log_sum_exp(terms) if np.any(live) else -math.inf
        grad = np.zeros(f.shape[0])
        hess = np.zeros(f.shape[0])
        if order == 0 or not math.isfinite(value):
            return value, grad, hess
        # c = v g′(L)/R and c2 = v g″(L)/R, each over its own scale e^shift: where R is subnormal (every
        # pair's loss nearly zero) they overflow while the loss's sums underflow; the products are finite.
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            log_c = np.where(live, self.log_weight + price.log_derivative(log_l) - value, -np.inf)
            log_c2 = (np.where(live, self.log_weight + price.log_second_derivative(log_l) - value, -np.inf)
                      if order == 2 else np.full(f.shape[0], -np.inf))
        c, shift = _scaled_down(log_c)
        c2, shift2 = _scaled_down(log_c2)
        if not shift < _SAFE_LOG_WEIGHT:
            # Even the scaled weights cannot be formed: every pair's loss is below about 1e-300, far beyond
            # what the loss can tell apart; report the objective at its floor (a zero gradient).
            return value, grad, hess
        grad -= c * D
        scales = (c, c2, log_c2, shift, shift2)
        if routes.n_small:
            self._small_level_positives(f, routes, order, D, scales, grad, hess)
        if routes.swept.size:
            self._swept_positives(f, routes, order, D, N, scales, grad, hess)
        self._large_level_positives(blocks, order, D, scales, grad, hess)
        if shift:
            grad *= math.exp(shift)
        if order == 2 and shift == shift2 and shift:
            hess = _scaled_up(hess, shift)
        return value, grad, hess

    def _small_level_sums(self):
        """(evaluator, negative_sums, positive_sums) that sum the small levels all at once.

        The loss's compiled evaluator and ``_query_pair_kernels``; for a loss without one (written in
        Python), the loss itself and ``_query_pair_numpy`` (its NumPy methods once per chunk of pairs).
        """
        kernel = self.loss.pairwise_kernel()
        if kernel is not None:
            return kernel, small_negative_sums, small_positive_sums
        return self.loss, numpy_negative_sums, numpy_positive_sums

    def _small_level_positives(self, f, routes, order, D, scales, grad, hess) -> None:
        """Adds the small levels' positives' sums (and curvature) to grad and hess, all levels at once."""
        c, c2, log_c2, shift, shift2 = scales
        evaluator, _, positive = self._small_level_sums()
        n = f.shape[0]
        E, P, N = np.zeros(n), np.zeros(n if order == 2 else 0), np.zeros(n if order == 2 else 0)
        args = (evaluator, f, self.weight, self.grades, self.gain_weighted, routes.starts, routes.ends, routes.stops,
                routes.groups)
        zeros = np.zeros(n if order == 2 and shift != shift2 else 0)
        positive(*args, c, c2 if shift == shift2 else zeros, order, E, P, N, self.n_threads)
        grad += E
        if order < 2:
            return
        rows = routes.rows
        if shift == shift2:
            hess += P
            hess[rows] += c2[rows] * D[rows] ** 2 + c[rows] * N[rows]
            return
        # Different scales: the g′ and g″ parts of the curvature apart, each rescaled in logs.
        hess += _scaled_up(P, shift)
        hess[rows] += _scaled_up(c[rows] * N[rows], shift)
        P2 = np.zeros(n)
        positive(*args, zeros, c2, order, np.zeros(n), P2, N, self.n_threads)
        hess += _scaled_up(P2, shift2)
        with np.errstate(divide="ignore"):          # D² may underflow where c2 overflows
            hess[rows] += np.exp(log_c2[rows] + 2.0 * np.log(np.abs(D[rows])))

    def _swept_positives(self, f, routes, order, D, N, scales, grad, hess) -> None:
        """Adds the swept queries' positives' sums (and curvature) to grad and hess (``_query_sweep_kernels``)."""
        c, c2, log_c2, shift, shift2 = scales
        n = f.shape[0]
        E, P = np.zeros(n), np.zeros(n if order == 2 else 0)
        args = (self.loss.degree, order, self.gain_weighted, f, self.weight, self.grades, self._sweep_edges,
                self.bounds)
        rows = routes.swept_rows
        if order < 2 or shift == shift2:
            positive_sweep(*args, c, c2 if order == 2 else np.zeros(0), E, P, self.n_threads, queries=routes.swept)
            grad += self.weight * E
            if order == 2:
                hess += self.weight * P
                hess[rows] += c2[rows] * D[rows] ** 2 + c[rows] * N[rows]
            return
        # Different scales: the g′ and g″ parts of the curvature apart, each rescaled in logs.
        zeros = np.zeros(n)
        positive_sweep(*args, c, zeros, E, P, self.n_threads, queries=routes.swept)
        grad += self.weight * E
        hess += _scaled_up(self.weight * P, shift)
        hess[rows] += _scaled_up(c[rows] * N[rows], shift)
        P2 = np.zeros(n)
        positive_sweep(*args, zeros, c2, np.zeros(n), P2, self.n_threads, queries=routes.swept)
        hess += _scaled_up(self.weight * P2, shift2)
        with np.errstate(divide="ignore"):          # D² may underflow where c2 overflows
            hess[rows] += np.exp(log_c2[rows] + 2.0 * np.log(np.abs(D[rows])))

    def _large_level_positives(self, blocks, order, D, scales, grad, hess) -> None:
        """Adds the large levels' positives' sums (and curvature) to grad and hess, by the loss's own sums."""
        c, c2, log_c2, shift, shift2 = scales
        loss = self.loss
        zeros = np.zeros(grad.shape[0])
        for lo, hi, stop, f_pos, w_pos, f_neg in blocks:
            c_neg = np.ascontiguousarray(c[lo:hi])
            grad[hi:stop] += w_pos * loss.positive_sums(f_pos, f_neg, c_neg)
            if order < 2:
                continue
            c2_neg = np.ascontiguousarray(c2[lo:hi])
            if shift == shift2:
                P, N = loss.curvature_sums(f_pos, w_pos, f_neg, c_neg, c2_neg)
                hess[hi:stop] += w_pos * P
                hess[lo:hi] += c2_neg * D[lo:hi] ** 2 + c_neg * N
                continue
            # Different scales: the g′ and g″ parts of the curvature apart, each rescaled in logs.
            P, N = loss.curvature_sums(f_pos, w_pos, f_neg, c_neg, zeros[lo:hi])
            hess[hi:stop] += _scaled_up(w_pos * P, shift)
            hess[lo:hi] += _scaled_up(c_neg * N, shift)
            P, _ = loss.curvature_sums(f_pos, w_pos, f_neg, zeros[lo:hi], c2_neg)
            hess[hi:stop] += _scaled_up(w_pos * P, shift2)
            with np.errstate(divide="ignore"):          # D² may underflow where c2 overflows
                hess[lo:hi] += np.exp(log_c2[lo:hi] + 2.0 * np.log(np.abs(D[lo:hi])))
