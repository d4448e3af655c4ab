"""The push objective R_{g,ℓ} (docs/theory/push.md), composed from a registered loss and price.

    R_{g,ℓ}(f) = Σ_k v_k · g(L_k),    L_k = Σ_i w_i · ℓ(f_i − f_k)

(i over positives, k over negatives, w and v sample weights).  The working
value is J = log R, so that steep prices (``pow:64``) never overflow.

Two bound forms:

* :class:`~rankcore.objectives._exp_push.BoundExpPush` when the loss is
  exponential (``loss.exponential_rate`` set): closed forms in log space,
  O(n) per evaluation, and row-separable (block reductions; the Dask seam).
* :class:`BoundPairwisePush` for every other loss: the loss's pairwise sums
  (sorted prefix sums for the hinge losses, the exact blocked kernel for the
  logistic and third-party losses), combined with the price in log space.

Curvature (``value_gradient_hessian``; Newton leaves for trees and the
LightGBM/XGBoost adapters): h_n = (∂²R/∂f_n²) / R = ∂²J/∂f_n² + (∂J/∂f_n)²,
the diagonal of the Hessian of R itself in the units of J, clipped below at
``HESSIAN_FLOOR``.  Why not the diagonal of ∇²J = ∇²log R: J is a
log-sum-exp over negatives, and where one term dominates (one negative on
top at p = 64, one positive far below the rest) J is nearly *linear* in
that row's score: ∂²J/∂f² → 0 while ∂J/∂f stays of order d·r, so a Newton
leaf −g/h would move the row without bound.  R″/R keeps the step at R's
own Newton step (1/(d·r) for that negative), it is ≥ ∂²J/∂f² (a majorant:
steps never longer than J's Newton step where J is convex), and it is ≥ 0
because R is convex.  It is also the curvature the driver's line search
uses (R″/R = J″ + J′²).  The exact diagonal of ∇²J is ``h − g²``.
With c_k = v_k g′(L_k)/R and c2_k = v_k g″(L_k)/R:

    h_i = w_i Σ_k (w_i c2_k ℓ′(z_ik)² + c_k ℓ″(z_ik))     (positives)
    h_k = c2_k D_k² + c_k Σ_i w_i ℓ″(z_ik)                 (negatives)

from the loss's ``curvature_sums``: prefix sums for ``sqhinge``
(O((I + K) log(I + K))), the factorized pair loop for ``logistic`` (O(I·K)
time like its gradient, no exp per pair), the closed forms of the
exponential path (O(n)).  ``hinge`` is piecewise linear (ℓ″ = 0 almost
everywhere; with the identity price h would vanish on every row):
``has_hessian`` is False and it is fitted with gradient steps.  A price or
loss without a second derivative also gives ``has_hessian`` False.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .._vector import dot as _dot
from ..spec import Component, Parameter, SpecError
from ..validation import ArgumentRefusal
from ._base import BoundObjective, LinePoint, Objective, clip_hessian

__all__ = ["PushObjective", "BoundPairwisePush"]


def _component(family: str):
    """Parameter kind: a registered component of ``family``, given as a spec string (resolved here) or configured."""

    def convert(value: Any) -> Component:
        from ..registry import resolve

        if isinstance(value, Component):
            if value.family != family:
                raise ValueError(f"expected a {family}, got the {value.family} {value.spec!r}")
            return value
        if not isinstance(value, str):
            raise ValueError(f"expected a {family} spec string")
        try:
            return resolve(family, value)
        except SpecError as exc:
            raise ValueError(str(exc)) from None

    convert.__name__ = f"{family} spec"
    return convert


class PushObjective(Objective):
    """R_{g,ℓ}(f) = Σ_k g(Σ_i ℓ(f_i − f_k)) for a registered loss ℓ and price g (log form).

    Spec: ``push:<loss>,<price>``, e.g. ``push:exp,pow:4`` (P-Norm Push with
    p = 4), ``push:hinge,pow:2``; defaults ``exp`` and ``identity``
    (RankBoost).  Bound with ``queries`` it is the push within each query
    over relevance grades (:mod:`rankcore.objectives._query_push`);
    ``gain_weighted`` then weights each pair by the gain difference of its
    grades (on one list of 0/1 labels every pair's weight is 1); ``discount``
    also by the sum or product of the place discounts of its two rows at the current scores
    (optionally truncated at ``truncation``), and ``normalize`` divides each
    query's pair weights by their total
    (:mod:`rankcore.objectives._query_positions`); ``query_rmse`` = λ > 0 adds λ·c times
    CatBoost's QueryRMSE (each query's squared residuals about their weighted mean) to J, c
    matching the two gradients' L1 norms at f = 0 (:mod:`rankcore.objectives._query_rmse`).
    The estimators build it from their ``loss`` and ``price`` parameters.  Sample weights act as
    multiplicities: a positive of weight 2 counts twice in every L_k, a negative of weight 2 counts twice
    in the sum.
    """

    name = "push"
    aliases = ("pnorm-push", "rgl")
    parameters = (
        Parameter("loss", _component("loss"), default="exp", doc="a registered loss, e.g. exp or hinge"),
        Parameter("price", _component("price"), default="identity", doc="a registered price, e.g. pow:4"),
        Parameter("gain_weighted", bool, default=False,
                  doc="within queries, weight each pair by the gain difference 2^y_i - 2^y_k of its grades"),
        Parameter("discount", str, default="none", choices=("none", "sum", "product"),
                  doc="within queries, weight each pair also by d_i + d_k (sum) or d_i * d_k (product), "
                      "d = 1/log2(1 + place) of its rows' current places (exp loss, identity price)"),
        Parameter("truncation", int, default=0, minimum=0, maximum=2**31 - 1, saved_beyond_maximum=True,
                  doc="with discount: places beyond this level have discount 0 (0: every place)"),
        Parameter("normalize", bool, default=False,
                  doc="within queries, divide each query's pair weights by their total, so that every query "
                      "counts once (exp loss, identity price)"),
        # at most 1e6, a million times the push: a larger weight fits QueryRMSE alone just as well, and near
        # 1e200 the scaled gradients and curvature overflow (the trees then find no split)
        Parameter("query_rmse", float, default=0.0, minimum=0.0, maximum=1e6, saved_beyond_maximum=True,
                  doc="within queries, add this weight times CatBoost's QueryRMSE (each query's squared "
                      "residuals about their weighted mean), scaled to the push's gradient at f = 0 "
                      "(0: the push alone; at most 1e6)"),
    )
    examples = ("push", "push:exp,pow:4", "push:exp,exp:0.5", "push:hinge,pow:2", "push:logistic,identity",
                "push:sqhinge,pow:4")
    task = "bipartite"
    log_value = True
    sum_over_negatives = True         # R = Σ_k v_k g(L_k): each term reads one negative and all positives
    ranks_within_queries = True       # bound with queries: the same loss and price per query, over grades

    @property
    def fixed_value(self) -> bool:
        """Place discounts are read at each evaluation's scores, so with them J moves between iterations."""
        return self.discount == "none"

    def _validate(self) -> None:
        from ..registry import resolve

        # The kinds resolved the given loss and price once (a default is still its spec); the objective
        # keeps the components and, as its parameters, their canonical specs (so that equal objectives
        # compare and print equal).
        self._loss = self.loss if isinstance(self.loss, Component) else resolve("loss", self.loss)
        self._price = self.price if isinstance(self.price, Component) else resolve("price", self.price)
        self.loss, self.price = self._loss.spec, self._price.spec
        self._params.update(loss=self.loss, price=self.price)
        from ._query_push import check_position_options

        try:
            check_position_options(self._loss, self._price, self.discount, self.truncation, self.normalize)
        except ValueError as exc:
            raise SpecError(f"objective {self.name!r}: {exc}") from None

    @property
    def max_grade(self) -> float:
        """Gain-weighted pairs form 2^grade: grades up to 1023; otherwise any grade."""
        from ._query_push import MAX_GAIN_GRADE

        return MAX_GAIN_GRADE if self.gain_weighted else math.inf

    @property
    def loss_component(self):
        """The resolved :class:`rankcore.Loss`."""
        return self._loss

    @property
    def price_component(self):
        """The resolved :class:`rankcore.Price`."""
        return self._price

    def check_target(self, y, sample_weight=None):
        w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        pos = float(w[y == 1].sum())
        neg = float(w[y == 0].sum())
        if not (pos > 0 and neg > 0):
            missing = "positive" if not pos > 0 else "negative"
            # said of the objective first; the weights are the argument refused (what the command line's --weight
            # reads)
            detail = f"needs positive total weight in both classes, got zero total {missing} weight"
            raise ArgumentRefusal(f"objective {self.spec!r}: {detail}", parameter="sample_weight", detail=detail,
                                  reason="zero_total")

    def bind(self, y, sample_weight=None, *, n_threads=1, queries=None):
        """The push on one list (0/1 labels), or within each query over relevance grades (``queries``)."""
        if queries is not None:
            from ._query_push import QueryPush

            per_query = QueryPush(self._loss, self._price, gain_weighted=self.gain_weighted, discount=self.discount,
                                  truncation=self.truncation, normalize=self.normalize, query_rmse=self.query_rmse)
            return per_query.bind(y, queries, sample_weight, owner=self, n_threads=n_threads)
        if self.discount != "none" or self.normalize or self.query_rmse:
            # named as lambdarank's refusal is: the argument missing, then the objective as the user wrote it
            raise ValueError(f"qid: the objective {self.named_spec!r} ranks within queries (discount, normalize and "
                             "query_rmse act within queries); fit with qid=... (or group=...), or leave "
                             "discount=none, normalize=false and query_rmse=0")
        if self._loss.exponential_rate is not None:
            from ._exp_push import BoundExpPush

            return BoundExpPush(self, y, sample_weight, self._loss, self._price, n_threads=n_threads)
        return BoundPairwisePush(self, y, sample_weight, self._loss, self._price, n_threads=n_threads)


def _log_nonneg(values: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(values, 0.0))


class BoundPairwisePush(BoundObjective):
    """The push objective for any loss, through the loss's pairwise sums.

    Per evaluation: one ``negative_sums`` and one ``positive_sums`` call for
    the gradient, one ``directional_sums`` call per line-search step.  Cost is
    the loss's (O((I+K) log(I+K)) for hinge/sqhinge, O(I·K) for the pairwise
    kernel); memory O(I + K).
    """

    def __init__(self, objective, y, sample_weight, loss, price, *, n_threads=1):
        super().__init__(objective, y, sample_weight)
        self.loss = loss
        self.price = price
        self.n_threads = int(n_threads)
        self.pos = np.flatnonzero(y == 1)
        self.neg = np.flatnonzero(y == 0)
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.w_pos = np.ascontiguousarray(w[self.pos])
        self.v_neg = np.ascontiguousarray(w[self.neg])
        self.log_shift = self._rescale_weights(price.homogeneous_degree)
        with np.errstate(divide="ignore"):
            self.log_v = np.log(self.v_neg)
        self.second = loss.has_second_derivative and price.has_second_derivative

    def _rescale_weights(self, degree) -> float:
        """Bring each class's weights near 1 by a power of two when they are far from it; returns log R − log R′.

        With a homogeneous price (g(sL) = s^d g(L)) weights scaled by s₊ (positives) and s₋ (negatives)
        scale R by s₋·s₊^d and leave J's derivatives alone. Near 1e150 and beyond, the curvature's
        v·g″(L)/R underflows while the sums it multiplies overflow, so the fit works on the rescaled
        weights (exactly: a power of two) and adds the log of the factor back to J.
        """
        if degree is None:
            return 0.0
        shift = 0.0
        for name, factor in (("w_pos", float(degree)), ("v_neg", 1.0)):
            w = getattr(self, name)
            top = float(w.max(initial=0.0))
            if top > 0.0 and not _RESCALE_BELOW <= top <= _RESCALE_ABOVE:
                exponent = math.frexp(top)[1]
                setattr(self, name, np.ldexp(w, -exponent))
                shift += factor * exponent * math.log(2.0)
        return shift

    @property
    def has_hessian(self) -> bool:
        """ℓ″ and g″ exist and the loss is not piecewise linear (see the module docs)."""
        return self.second and not getattr(self.loss, "piecewise_linear", False)

    def _value_from_sums(self, L: np.ndarray):
        self.loss.check_sums(L)
        log_l = _log_nonneg(L)
        with np.errstate(invalid="ignore"):
            a = self.log_v + self.price.log_value(log_l)
        a = np.where(self.v_neg > 0, a, -np.inf)
        value = float(logsumexp(a)) if a.size else -math.inf
        return value, log_l

    def value_and_gradient(self, scores):
        f_pos = np.ascontiguousarray(scores[self.pos])
        f_neg = np.ascontiguousarray(scores[self.neg])
        L, D = self.loss.negative_sums(f_pos, self.w_pos, f_neg, n_threads=self.n_threads)
        self.loss.check_sums(D)
        value, log_l = self._value_from_sums(L)
        grad = np.zeros(scores.shape[0])
        if not math.isfinite(value):
            return value + self.log_shift, grad
        c = self._over_r(self.v_neg > 0, self.price.log_derivative(log_l), value)   # v_k g′(L_k) / R
        scale = 1.0
        if not np.isfinite(c).all():
            c, _, scale = self._scaled_weights(log_l, value)
            if not math.isfinite(scale):
                return value + self.log_shift, grad     # the summed losses underflow: the objective at its floor
        E = self.loss.positive_sums(f_pos, f_neg, c, n_threads=self.n_threads)
        grad[self.pos] = self.w_pos * E * scale
        grad[self.neg] = -c * D * scale
        return value + self.log_shift, grad

    def _over_r(self, live, log_g, value):
        """v_k e^(log_g_k) / R for the ``live`` negatives (0 elsewhere).

        v times the exponential, not e^(log v + ...): a weight of 2 then
        gives exactly twice a row's terms, as two copies of the row do.
        (Huge weights, whose e^(log g − J) would underflow, were rescaled.)
        """
        with np.errstate(invalid="ignore", over="ignore"):
            return np.where(live, self.v_neg * np.exp(log_g - value), 0.0)

    def _scaled_weights(self, log_l, value, second=False):
        """(c / s, c2 / s, s): the weights v_k g′(L_k)/R (and v_k g″(L_k)/R) over a common scale s.

        Where R is subnormal (every pair far apart) g′/R overflows while the
        loss's sums underflow; the weights are then formed in logs and scaled
        down by s = e^(max log - 700), which the caller multiplies back into
        the gradient and the curvature (products of an overflowing weight and
        an underflowing sum, each finite once scaled).  s is infinite when
        even the scaled weights cannot be formed: the losses are then below
        about 1e-300, every pair separated far beyond what the loss can tell,
        and the callers report the objective at its floor (a zero gradient).
        """
        live = self.v_neg > 0
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            log_c = np.where(live, self.log_v + self.price.log_derivative(log_l) - value, -np.inf)
            log_c2 = (np.where(live & (log_l > -np.inf), self.log_v + self.price.log_second_derivative(log_l) - value,
                               -np.inf) if second else np.full(log_c.shape, -np.inf))
        top = max(float(np.max(log_c, initial=-np.inf)), float(np.max(log_c2, initial=-np.inf)))
        shift = max(top - _SAFE_LOG_WEIGHT, 0.0)
        with np.errstate(over="ignore"):
            scale = float(np.exp(shift))            # inf only past any float: the driver stops on it
        return np.exp(log_c - shift), np.exp(log_c2 - shift), scale

    def value_gradient_hessian(self, scores):
        """(J, ∇J, diagonal of ∇²R / R clipped at the floor); the loss's sums, O(its gradient's cost)."""
        if not self.has_hessian:
            return super().value_gradient_hessian(scores)
        f_pos = np.ascontiguousarray(scores[self.pos])
        f_neg = np.ascontiguousarray(scores[self.neg])
        t = self.n_threads
        L, D = self.loss.negative_sums(f_pos, self.w_pos, f_neg, n_threads=t)
        self.loss.check_sums(D)
        value, log_l = self._value_from_sums(L)
        grad = np.zeros(scores.shape[0])
        hess = np.zeros(scores.shape[0])
        if not math.isfinite(value):
            return value + self.log_shift, grad, clip_hessian(hess)
        live = self.v_neg > 0
        c = self._over_r(live, self.price.log_derivative(log_l), value)
        # g″ at L = 0 may be infinite (pow:p with p < 2), but then no pair of that negative is
        # active (ℓ′ = D_k = 0), so it contributes nothing.
        c2 = self._over_r(live & (L > 0), self.price.log_second_derivative(log_l), value)
        scale = 1.0
        if not (np.isfinite(c).all() and np.isfinite(c2).all()):
            c, c2, scale = self._scaled_weights(log_l, value, second=True)
            if not math.isfinite(scale):
                return value + self.log_shift, grad, clip_hessian(hess)      # the summed losses underflow: at the floor
        E = self.loss.positive_sums(f_pos, f_neg, c, n_threads=t)
        P, N = self.loss.curvature_sums(f_pos, self.w_pos, f_neg, c, c2, n_threads=t)
        grad[self.pos] = self.w_pos * E * scale
        grad[self.neg] = -c * D * scale
        hess[self.pos] = self.w_pos * P * scale
        hess[self.neg] = (c2 * D * D + c * N) * scale
        return value + self.log_shift, grad, clip_hessian(hess)

    def value(self, scores):
        L, _ = self.loss.negative_sums(np.ascontiguousarray(scores[self.pos]), self.w_pos,
                                       np.ascontiguousarray(scores[self.neg]), n_threads=self.n_threads)
        return self._value_from_sums(L)[0] + self.log_shift

    def line(self, scores, direction):
        f_pos0 = scores[self.pos]
        f_neg0 = scores[self.neg]
        h_pos = np.ascontiguousarray(direction[self.pos], dtype=np.float64)
        h_neg = np.ascontiguousarray(direction[self.neg], dtype=np.float64)

        def evaluate(alpha: float) -> LinePoint:
            f_pos = np.ascontiguousarray(f_pos0 + alpha * h_pos)
            f_neg = np.ascontiguousarray(f_neg0 + alpha * h_neg)
            L, L1, L2 = self.loss.directional_sums(f_pos, self.w_pos, h_pos, f_neg, h_neg, n_threads=self.n_threads)
            value, log_l = self._value_from_sums(L)
            if not math.isfinite(value):
                return LinePoint(alpha, value + self.log_shift, 0.0, 0.0)
            live = self.v_neg > 0
            if value < _SUBNORMAL_LOG:
                # R is subnormal (every pair far apart): q1 = g′/R overflows while the sums L1, L2 underflow,
                # so the products are formed as exp(log q + log|L|) -- finite, where q·L would be inf·0
                return self._line_point_in_logs(alpha, value, log_l, live, L1, L2)
            q1 = self._over_r(live, self.price.log_derivative(log_l), value)
            d1 = float(_dot(q1, L1))
            if not self.second:
                return LinePoint(alpha, value + self.log_shift, d1, math.nan)
            q2 = self._over_r(live & (L1 != 0.0), self.price.log_second_derivative(log_l), value)
            with np.errstate(invalid="ignore", over="ignore"):
                curvature = float(_dot(q2, L1 * L1) + _dot(q1, np.where(q1 > 0, L2, 0.0)))   # R″/R
            return LinePoint(alpha, value + self.log_shift, d1, curvature - d1 * d1)

        return evaluate

    def _line_point_in_logs(self, alpha, value, log_l, live, L1, L2) -> LinePoint:
        """The line's point where R is subnormal: d1 = Σ q1·L1 and R″/R from logs of the weights."""
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            log_q1 = np.where(live, self.log_v + self.price.log_derivative(log_l) - value, -np.inf)
        d1 = _signed_exp_sum(log_q1, L1)
        if not self.second:
            return LinePoint(alpha, value + self.log_shift, d1, math.nan)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            log_q2 = np.where(live & (L1 != 0.0),
                              self.log_v + self.price.log_second_derivative(log_l) - value, -np.inf)
        curvature = _signed_exp_sum(log_q2, L1, power=2) + _signed_exp_sum(log_q1, L2)
        return LinePoint(alpha, value + self.log_shift, d1, curvature - d1 * d1)


#: Largest log of a weight g′/R formed directly (e^700 ≈ 1e304, within float64).
_SAFE_LOG_WEIGHT = 700.0
#: A class's largest weight outside [2^-64, 2^64] is rescaled near 1 (homogeneous prices; see _rescale_weights).
_RESCALE_BELOW, _RESCALE_ABOVE = 2.0**-64, 2.0**64
#: log R below which R is subnormal (2^-1022): the line's derivatives are then formed in logs.
_SUBNORMAL_LOG = -1022 * math.log(2.0)


def _signed_exp_sum(log_weights: np.ndarray, values: np.ndarray, power: int = 1) -> float:
    """Σ exp(log_weights)·values**power, without forming exp(log_weights) or values**power.

    The weights may overflow exactly where the values underflow; their
    product is formed as exp(log w + power·log|v|).  Time and memory O(n).
    """
    keep = np.isfinite(log_weights) & (values != 0.0)
    if not keep.any():
        return 0.0
    v = values[keep]
    terms = np.exp(log_weights[keep] + power * np.log(np.abs(v)))
    return float(np.sum(np.sign(v) ** power * terms))
