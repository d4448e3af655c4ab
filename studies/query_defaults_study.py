"""The default per-query ranker against every peer, and candidate defaults, on seven grouped sets.

Every model is fitted on the same splits of whole queries
(``rankcore.QueryKFold(shuffle=True)``; training rows grouped by query and
put in an order set by their values, as ``benchmarks/_query_cv.py`` does), one
thread per fit, and its out-of-fold scores and fit CPU seconds
(``time.process_time``) are cached per (set, seed, model) in ``--cache``, so
that a run can be resumed or extended with more models; ``--report`` prints
the tables from the cache: mean NDCG@1/5/10 over the queries (each split's
pooled out-of-fold scores, then the mean over the splits), fit CPU × the
``LGBMRanker()`` of the same splits, and each model minus ``LGBMRanker()``
paired over queries on NDCG@10 (``rankcore.metrics.compare``, bootstrap of
whole queries).

Sets (``--sets``): ``ltr`` (LightGBM's LTR example, from
``$RANKCORE_DATASETS``, left out without it), ``synthetic``
(``synthetic_queries(60, random_state=1)``), ``synthetic100``
(``synthetic_queries(100, random_state=7)``), ``retrieval``
(``retrieval_queries(800, random_state=3)``), ``retrieval1500``
(``retrieval_queries(1500, mean_size=30, max_grade=4, random_state=9)``),
``retrieval_long`` (``retrieval_queries(300, mean_size=120, max_grade=4,
random_state=4)``), ``synthetic1500`` (``synthetic_queries(1500,
max_size=100, random_state=13)``), ``retrieval2000``
(``retrieval_queries(2000, mean_size=40, max_grade=4, random_state=21)``),
``synthetic1200`` (``synthetic_queries(1200, max_size=150,
random_state=29)``), each with 5 folds per seed; and ``large``
(``retrieval_queries(2500, mean_size=100, max_grade=4, n_noise=100,
random_state=11)``, about 290,000 rows × 137 features) with one split: the
first of ``QueryKFold(3)``, 2/3 of the queries to train, 1/3 to test.  The
LETOR form (``_queries.query_normalized``: every column mapped to [0, 1]
within its query): ``letor_like`` (``retrieval_queries(800,
random_state=41)`` normalized; ``retrieval41`` the same rows as they come),
``ltr_normalized``, ``retrieval_normalized``, ``retrieval1500_normalized``,
``retrieval_long_normalized`` and ``synthetic100_normalized`` (the sets of
those names, normalized); ``retrieval_noisy`` and ``retrieval_noisier``
(``retrieval_queries(800, random_state=43)``, each column plus a normal of 1
or 1.5 times its spread).  The twentieth session's: ``synthetic100_monotone``
and ``synthetic100_monotone17`` (``synthetic_queries(100, monotone=1.2)`` at
random_state 7 and 17: a monotone leading signal seen through four columns),
``synthetic100_17`` (the plain generator at 17), and
``small_hard_normalized`` / ``small_hard_normalized53``
(``retrieval_queries(780, mean_size=19)`` at random_state 47 / 53, each column
plus a normal of twice its spread, normalized within queries).

Models (``--models``, names of :data:`MODELS`): the peers with their
defaults (``benchmarks/_query_models.py``), rankcore's default, and the
candidates.  ``l2=c rows`` candidates set the trees' (absolute) ``l2`` at
fit time to c mean per-row curvatures of the default objective at f = 0:
the per-query push of the identity price has Σ_k h_k = 2 at every score (each
pair's two curvatures sum to twice its loss, and J = log R divides by R),
so the mean per-row curvature is 2/n and ``l2 = 2c/n`` weighs as c rows.

``--deltas`` prints each model minus the default (NDCG@10 per set, the means
over the sets at @1/@5/@10); ``--draws`` the same for the :data:`DRAWS`
groups, each averaged over its fits with ``random_state`` 0, 1 and 2 (the
default's own random draws move it about as much as the candidates do);
``--rescreen`` the same for :data:`DRAWS2` (the earlier candidates fitted
again at random_state 1 and 2: ``--models rescreen``), with the pass rule
over the splits (:data:`MAX_SET_LOSS`, :data:`MAX_CPU_RATIO`) and per-set
tables of the three-state means.  :data:`AGAINST_SHIPPED`'s flags print the
eleventh to thirteenth sessions' screens against the blend as then shipped,
:data:`AGAINST_LIBRARY`'s (``--targets``, ``--budget-steps``,
``--normalized``; ``--target-scale``, ``--linear-start``; ``--discounted``;
``--letor-form``; ``--query-sampling``; ``--near-misses``, ``--path-average``;
``--listwise``; ``--shrink-noise``; ``--shrink-third``, ``--shrink-five``) the
fifteenth to forty-sixth sessions' against the library's default, with the pass rule, and
``--target-scale-many`` and
``--discounted-many`` (:data:`AGAINST_MANY`) the seventeenth and eighteenth
sessions' on the sets with many queries against the blend at λ = 1, the
library's default there.

Usage::

    python studies/query_defaults_study.py --sets ltr synthetic --models peers default --seeds 0 1
    python studies/query_defaults_study.py --report --sets ltr synthetic --seeds 0 1
    python studies/query_defaults_study.py --draws --sets ltr synthetic --seeds 0 1
    python studies/query_defaults_study.py --rescreen --sets ltr synthetic --seeds 0 1
    python studies/query_defaults_study.py --correlations --sets ltr retrieval letor_like
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "studies"))

from _data import DatasetUnavailable  # noqa: E402
from _queries import load_lambdarank, query_normalized, retrieval_queries, synthetic_queries  # noqa: E402

import _query_models as qm  # noqa: E402
import query_shrink_noise_pairs as snp  # noqa: E402

REFERENCE = "LGBMRanker()"
METRICS = ("ndcg@k:1", "ndcg@k:5", "ndcg@k:10")

SETS = {
    "ltr": lambda: _ltr(),
    "synthetic": lambda: synthetic_queries(60, random_state=1),
    "synthetic100": lambda: synthetic_queries(100, random_state=7),
    "retrieval": lambda: retrieval_queries(800, random_state=3),
    "retrieval1500": lambda: retrieval_queries(1500, mean_size=30, max_grade=4, random_state=9),
    "retrieval_long": lambda: retrieval_queries(300, mean_size=120, max_grade=4, random_state=4),
    "large": lambda: retrieval_queries(2500, mean_size=100, max_grade=4, n_noise=100, random_state=11),
    "synthetic1500": lambda: synthetic_queries(1500, max_size=100, random_state=13),
    # two sets with many queries kept out of every screen until the blend-weight candidates had been chosen
    "retrieval2000": lambda: retrieval_queries(2000, mean_size=40, max_grade=4, random_state=21),
    "synthetic1200": lambda: synthetic_queries(1200, max_size=150, random_state=29),
    # features normalized within each query, as the LETOR collections ship them (nineteenth session)
    "letor_like": lambda: _query_normalized(retrieval_queries(800, random_state=41)),
    "retrieval41": lambda: retrieval_queries(800, random_state=41),
    "ltr_normalized": lambda: _query_normalized(_ltr()),
    "retrieval_normalized": lambda: _query_normalized(retrieval_queries(800, random_state=3)),
    "retrieval1500_normalized": lambda: _query_normalized(
        retrieval_queries(1500, mean_size=30, max_grade=4, random_state=9)),
    "retrieval_long_normalized": lambda: _query_normalized(
        retrieval_queries(300, mean_size=120, max_grade=4, random_state=4)),
    "synthetic100_normalized": lambda: _query_normalized(synthetic_queries(100, random_state=7)),
    # retrieval-like rows whose features carry more noise (each column plus a normal of 1 or 1.5 of its spread)
    "retrieval_noisy": lambda: _noisier(retrieval_queries(800, random_state=43), 1.0, 43),
    "retrieval_noisier": lambda: _noisier(retrieval_queries(800, random_state=43), 1.5, 43),
    # the synthetic generator with a monotone leading signal seen through four columns (twentieth session),
    # and a second state of the plain generator beside it
    "synthetic100_monotone": lambda: synthetic_queries(100, monotone=1.2, random_state=7),
    "synthetic100_17": lambda: synthetic_queries(100, random_state=17),
    "synthetic100_monotone17": lambda: synthetic_queries(100, monotone=1.2, random_state=17),
    # small, hard and in LETOR's form: about 780 queries of about 20 rows, noisy features normalized within queries
    "small_hard_normalized": lambda: _query_normalized(_noisier(retrieval_queries(780, mean_size=19,
                                                                                  random_state=47), 2.0, 47)),
    "small_hard_normalized53": lambda: _query_normalized(_noisier(retrieval_queries(780, mean_size=19,
                                                                                    random_state=53), 2.0, 53)),
}
#: (folds, folds fitted): the large set fits the first split of 3 only (2/3 train, 1/3 test).
SPLITS = {"large": (3, 1)}


def three_states(names):
    """Each name's fits at random_state 0, 1 and 2 (the study's model names): a group of :func:`draw_deltas`."""
    return {name: [name, f"{name}, random_state=1", f"{name}, random_state=2"] for name in names}


def _noisier(data, scale, seed):
    X, y, qid = data
    rng = np.random.default_rng(seed)
    return X + scale * X.std(axis=0) * rng.normal(size=X.shape), y, qid


def _query_normalized(data):
    X, y, qid = data
    return query_normalized(X, qid), y, qid


def _ltr():
    X, y, qid = load_lambdarank()
    return X.toarray(), y, qid


def _study_objective(objective_name, setup, gradients, base=None, offset=None):
    """A graded per-query objective of the study built on the default's push, without a value (Newton steps).

    ``setup(bound, y, sample_weight, queries)`` adds the objective's own state once the push is bound
    (``bound.push``, ``bound.codes``: the rows' query codes); ``gradients(bound, scores, g, h)`` turns the
    push's gradient and curvature at ``scores`` into the objective's.  ``base``: the spec of the objective
    bound as ``bound.push`` instead of the push alone (the eighth session's default).  ``offset``: scores
    (one per row, in the order given to ``fit``) added to the trees' before the push is evaluated.
    """
    from rankcore.objectives import Objective
    from rankcore.objectives._base import BoundObjective
    from rankcore.objectives._query_push import QueryPush
    from rankcore.registry import resolve

    class Bound(BoundObjective):
        def __init__(self, objective, y, sample_weight, queries):
            super().__init__(objective, y, sample_weight)
            if base is None:
                self.push = QueryPush("exp", "identity", gain_weighted=True).bind(y, queries, sample_weight)
            else:
                self.push = resolve("objective", base).bind(y, sample_weight, n_threads=1, queries=queries)
            self.codes = queries.codes
            setup(self, y, sample_weight, queries)

        @property
        def has_hessian(self):
            return True

        def value(self, scores):
            return float("nan")

        def value_and_gradient(self, scores):
            return self.value_gradient_hessian(scores)[:2]

        def value_gradient_hessian(self, scores):
            _, g, h = self.push.value_gradient_hessian(scores if offset is None else scores + offset)
            return (float("nan"), *gradients(self, scores, g, h))

        def line(self, scores, direction):
            raise NotImplementedError

    class StudyObjective(Objective):
        name = objective_name
        task = "graded"
        ranks_within_queries = True
        requires_queries = True
        has_value = False
        max_grade = 1023.0

        def bind(self, y, sample_weight=None, *, n_threads=1, queries=None):
            return Bound(self, y, sample_weight, queries)

    return StudyObjective()


def relative_l2(rows, learner="trees", **params):
    """rankcore's default with ``l2`` = ``rows`` mean per-row curvatures (2·rows/n at fit time)."""
    def fit(X, y, qid, threads):
        import rankcore

        spec = f"{learner}{':' if ':' not in learner else ','}l2={2.0 * rows / y.shape[0]:.6g}"
        model = rankcore.boost(learner=spec, n_jobs=threads, random_state=0, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


class _Blend:
    """The study's push + QueryRMSE blend (``objective=`` of ``rankcore.boost``): g = g_push + λ·c·g_rmse.

    g_push, h_push: the default's gain-weighted per-query push (exp loss, identity price); g_rmse =
    r_i − mean_q(r), r = f − y, h_rmse = 1 − 1/n_q (the per-query squared loss, CatBoost's QueryRMSE);
    c = ‖g_push(0)‖₁ / ‖g_rmse(0)‖₁, fixed at the start.  No value: Newton steps.  ``query_power`` γ > 0
    weighs each query's term by (n̄ / n_q)^γ (n̄ the mean query size): the push's per-query terms are each
    query's log R_q, whatever its length, where QueryRMSE adds one term per row.  ``target``: the term regresses
    the scores on ``target(y)`` instead of the grades (c is set with it).
    """

    def __new__(cls, weight=1.0, query_power=0.0, target=None, schedule=None):
        from rankcore.objectives._base import clip_hessian

        def rmse(bound, scores):
            r = scores - bound.target
            mean = np.bincount(bound.codes, r * bound.w) / np.bincount(bound.codes, bound.w)
            g, h = bound.w * (r - mean[bound.codes]), bound.w * (1.0 - 1.0 / bound.n_q[bound.codes])
            return (g, h) if bound.factor is None else (g * bound.factor, h * bound.factor)

        def setup(bound, y, sample_weight, queries):
            bound.n_q = np.bincount(bound.codes).astype(np.float64)
            bound.target = bound.y if target is None else target(np.asarray(bound.y, dtype=np.float64))
            bound.w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
            bound.factor = (bound.n_q.mean() / bound.n_q[bound.codes]) ** query_power if query_power else None
            zero = np.zeros(y.shape[0])
            g_push = bound.push.value_gradient_hessian(zero)[1]
            g_rmse = rmse(bound, zero)[0]
            bound.weight = weight
            bound.scale = weight * np.abs(g_push).sum() / max(np.abs(g_rmse).sum(), 1e-300)
            bound.calls = 0

        def gradients(bound, scores, g, h):
            gr, hr = rmse(bound, scores)
            scale = bound.scale
            if schedule is not None:        # one evaluation per tree (Newton steps, no line search)
                scale = scale * schedule(bound.calls)
                bound.calls += 1
            return g + scale * gr, clip_hessian(h + scale * hr)

        return _study_objective("study-blend", setup, gradients)


def blend(weight=1.0, learner="trees", random_state=0, query_power=0.0, target=None, schedule=None, **params):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, objective=_Blend(weight, query_power, target, schedule),
                               n_jobs=threads,
                               random_state=random_state, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


def rc(learner="trees", **params):
    return qm.rankcore_trees(learner, **params)


PEERS = {name: qm.PEERS[name] for name in ("LGBMRanker()", "XGBRanker()", "CatBoost YetiRank", "CatBoost QueryRMSE")}

CANDIDATES = {
    "default": rc(),
    # leaf regularization (CatBoost: l2_leaf_reg=3, no floor on the rows per leaf)
    "l2=3 rows": relative_l2(3),
    "l2=10 rows": relative_l2(10),
    "l2=30 rows": relative_l2(30),
    "min_samples_leaf=5": rc("trees:min_samples_leaf=5"),
    "min_samples_leaf=1": rc("trees:min_samples_leaf=1"),
    "min_samples_leaf=1, l2=3 rows": relative_l2(3, "trees:min_samples_leaf=1"),
    "min_samples_leaf=50": rc("trees:min_samples_leaf=50"),
    # row sampling within queries
    "subsample=1": rc("trees:subsample=1"),
    "subsample=0.66": rc("trees:subsample=0.66"),
    # iterations and rate
    "300 trees, rate 0.07": rc("trees:learning_rate=0.07", n_iter=300),
    "400 trees, rate 0.05": rc("trees:learning_rate=0.05", n_iter=400),
    "150 trees, rate 0.13": rc("trees:learning_rate=0.13", n_iter=150),
    # shape
    "depth 5": rc("trees:max_depth=5"),
    "depth 7": rc("trees:max_depth=7"),
    "random_strength=0.5": rc("trees:random_strength=0.5"),
}

BLENDS = {
    "blend": blend(1.0),
    "blend, rmse x0.5": blend(0.5),
    "blend, rmse x2": blend(2.0),
    "blend, rmse x4": blend(4.0),
    "blend, rmse x8": blend(8.0),
}
CANDIDATES.update(BLENDS)

def yetirank_gains(spec="yetirank", learner="trees", **params):
    """``objective=spec`` with each pair weighted by its gain difference |2^y_a − 2^y_b| instead of |y_a − y_b|.

    The grades handed to the objective are the gains 2^y − 1: the same order, the same ties, and
    differences that are the gain differences.
    """
    def fit(X, y, qid, threads):
        import rankcore
        from rankcore.registry import resolve

        base = type(resolve("objective", spec))

        class GainYetiRank(base):
            name = "study-yetirank-gains"

            def bind(self, y, sample_weight=None, **kwargs):
                return super().bind(np.exp2(y) - 1.0, sample_weight, **kwargs)

        objective = GainYetiRank(**resolve("objective", spec).params)
        model = rankcore.boost(learner=learner, objective=objective, n_jobs=threads, random_state=0,
                               **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


#: YetiRank's noisy-neighbour pairs (``objective="yetirank"``) on the default oblivious trees.
YETI = {
    "yetirank, gain weights": yetirank_gains(),
    "yetirank": rc(objective="yetirank"),
    "yetirank, gradient leaves": rc(objective="yetirank:newton=false"),
    "yetirank, 4 permutations": rc(objective="yetirank:4"),
    "yetirank, 30 permutations": rc(objective="yetirank:30"),
    "yetirank, decay 0.95": rc(objective="yetirank:decay=0.95"),
}
CANDIDATES.update(YETI)

#: The default's gain-weighted push with its pairs weighted also by the place discounts of their rows
#: (``discount``, truncated at ``truncation``) and/or each query's pair weights divided by their total.
_PUSH = "push:exp,identity,gain_weighted=true"
POSITIONS = {
    "discount": rc(objective=f"{_PUSH},discount=sum"),
    "discount@10": rc(objective=f"{_PUSH},discount=sum,truncation=10"),
    "normalize": rc(objective=f"{_PUSH},normalize=true"),
    "discount, normalize": rc(objective=f"{_PUSH},discount=sum,normalize=true"),
    "discount@10, normalize": rc(objective=f"{_PUSH},discount=sum,truncation=10,normalize=true"),
    "discount product": rc(objective=f"{_PUSH},discount=product"),
    "discount product, normalize": rc(objective=f"{_PUSH},discount=product,normalize=true"),
}


def discounted_push(discount="product", weight=None, power=1.0, averaged=False, random_state=0):
    """The default's push (with the QueryRMSE term at weight λ unless ``weight`` is None), its pairs weighted also
    by their rows' place discounts.

    ``discount="product"`` weighs pair (i, k) by d_i·d_k, ``"sum"`` by d_i + d_k, d = 1 / log2(1 + place) in the
    query by the current scores (the library's ``discount`` option), raised to ``power`` (study only).  With
    ``averaged`` (study only) rows of equal score share the mean of the discounts of the places they span: the
    expected discount when ties are broken at random, so the first tree (all scores tied) weighs every row of a
    query alike and no weight depends on the rows' order in the input.
    """
    def fit(X, y, qid, threads):
        import rankcore
        from rankcore.objectives._query_positions import QueryRows

        plain = QueryRows.discounts

        def study_discounts(self, scores, truncation=0):
            d = plain(self, scores, truncation)
            if averaged:
                codes = np.empty(d.shape[0], dtype=np.int64)
                codes[self.rows] = np.repeat(np.arange(self.starts.shape[0] - 1), np.diff(self.starts))
                order = np.lexsort((scores, codes))
                s, c = scores[order], codes[order]
                tie = np.cumsum(np.r_[True, (s[1:] != s[:-1]) | (c[1:] != c[:-1])]) - 1
                means = np.bincount(tie, d[order]) / np.bincount(tie)
                d = np.empty_like(d)
                d[order] = means[tie]
            return d ** power if power != 1.0 else d

        term = "" if weight is None else f"query_rmse={weight:g},"
        QueryRows.discounts = study_discounts
        try:
            model = rankcore.boost(learner="trees", n_jobs=threads, random_state=random_state,
                                   objective=f"{_PUSH},{term}discount={discount}").fit(X, y, qid=qid)
        finally:
            QueryRows.discounts = plain
        return model.decision_function

    return fit


POSITIONS.update({
    "discount product^0.5": discounted_push("product", power=0.5),
    "discount^0.5": discounted_push("sum", power=0.5),
})
CANDIDATES.update(POSITIONS)

#: Several Newton steps on each tree's leaf values, its splits fixed (``trees:leaf_newton_steps``, CatBoost's
#: leaf_estimation_iterations); with rate 0.05 as well, since on the exponential push a leaf whose rows are
#: all above (or all below) the rest of their queries' pairs moves by its first step again at every step.
LEAF_STEPS = {
    "leaf steps 2": rc("trees:leaf_newton_steps=2"),
    "leaf steps 3": rc("trees:leaf_newton_steps=3"),
    "leaf steps 2, rate 0.05": rc("trees:leaf_newton_steps=2,learning_rate=0.05"),
}
CANDIDATES.update(LEAF_STEPS)

class _QueryBagged:
    """The default's push with CatBoost's Bayesian bootstrap by query (``sampling_unit="Group"``), study only.

    Each evaluation of the gradient (one per tree: the default takes Newton steps, no line search) multiplies
    every row's g and h by its query's weight w_q = (−log U_q)^T, U_q uniform, drawn from a generator seeded
    by ``seed``: the tree is grown and its leaves set on w·g, w·h, as ``trees:bagging_temperature`` does by row.
    """

    def __new__(cls, temperature=1.0, seed=0):
        def setup(bound, y, sample_weight, queries):
            bound.n_q = int(bound.codes.max()) + 1
            bound.rng = np.random.default_rng(seed)

        def gradients(bound, scores, g, h):
            if temperature > 0:
                w = (-np.log(1.0 - bound.rng.random(bound.n_q))) ** temperature
                g, h = g * w[bound.codes], h * w[bound.codes]
            return g, h

        return _study_objective("study-query-bagged", setup, gradients)


def query_bagged(temperature, learner="trees:subsample=1", **params):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, objective=_QueryBagged(temperature), n_jobs=threads,
                               random_state=0, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


def reseeded(random_state, learner="trees", **params):
    """rankcore's default fitted with another ``random_state``: the same model, other random draws (a yardstick)."""
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, n_jobs=threads, random_state=random_state, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


#: CatBoost's Bayesian bootstrap (``trees:bagging_temperature=T``): each tree grown on w·g, w·h with
#: w = (−log U)^T per row; with every row (subsample=1, as CatBoost's bootstrap replaces its row sampling)
#: and on top of the default's 80 % row sample.
BAYES = {
    "bayes T=1": rc("trees:bagging_temperature=1,subsample=1"),
    "bayes T=0.5": rc("trees:bagging_temperature=0.5,subsample=1"),
    "bayes T=0.2": rc("trees:bagging_temperature=0.2,subsample=1"),
    "bayes T=1, subsample 0.8": rc("trees:bagging_temperature=1"),
    "bayes T=0.5, subsample 0.8": rc("trees:bagging_temperature=0.5"),
    # by query (CatBoost's sampling_unit="Group"), through the objective (study only)
    "bayes by query T=1": query_bagged(1.0),
    "bayes by query T=0.5": query_bagged(0.5),
    "bayes by query T=0.2": query_bagged(0.2),
    # the same by the trees' option (weights hashed from the tree's seed and the query's index)
    "trees bayes by query T=0.5": rc("trees:bagging_temperature=0.5,bagging_unit=query,subsample=1"),
    "trees bayes by query T=1": rc("trees:bagging_temperature=1,bagging_unit=query,subsample=1"),
    "trees bayes by query T=0.5, subsample 0.8": rc("trees:bagging_temperature=0.5,bagging_unit=query"),
    # the yardstick: the default itself with other random draws (row sample, split noise)
    "default, random_state=1": reseeded(1),
    "default, random_state=2": reseeded(2),
    "bayes T=0.2, random_state=1": reseeded(1, "trees:bagging_temperature=0.2,subsample=1"),
    "bayes T=0.2, random_state=2": reseeded(2, "trees:bagging_temperature=0.2,subsample=1"),
    "trees bayes by query T=0.5, random_state=1": reseeded(1, "trees:bagging_temperature=0.5,bagging_unit=query,"
                                                              "subsample=1"),
    "trees bayes by query T=0.5, random_state=2": reseeded(2, "trees:bagging_temperature=0.5,bagging_unit=query,"
                                                              "subsample=1"),
}
CANDIDATES.update(BAYES)

#: The earlier candidates screened again over random_state 0, 1 and 2 (each was first judged on random_state 0
#: alone, against a default whose own state 0 is a lucky draw): name -> the candidate at a given random_state.
_RESCREENED = {
    "blend, rmse x2": lambda state: blend(2.0, random_state=state),
    "random_strength=0.5": lambda state: reseeded(state, "trees:random_strength=0.5"),
    "subsample=1": lambda state: reseeded(state, "trees:subsample=1"),
    "min_samples_leaf=5": lambda state: reseeded(state, "trees:min_samples_leaf=5"),
    "150 trees, rate 0.13": lambda state: reseeded(state, "trees:learning_rate=0.13", n_iter=150),
    "random_strength=2": lambda state: reseeded(state, "trees:random_strength=2"),
}
RESCREEN = {"random_strength=2": _RESCREENED["random_strength=2"](0)}
RESCREEN.update({f"{name}, random_state={state}": make(state)
                 for name, make in _RESCREENED.items() for state in (1, 2)})
CANDIDATES.update(RESCREEN)


def regraded(transform, random_state=0, learner="trees", **params):
    """rankcore's default fitted on ``transform(y)`` (the same order and ties; scored on the true grades).

    The default's pairs weigh 2^{y_i} − 2^{y_k}; fitted on log2(1 + y) they weigh the grade difference
    y_i − y_k (YetiRank's and QueryRMSE's use of the grades), on y / 2 the square roots of the gains.
    """
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, n_jobs=threads, random_state=random_state,
                               **params).fit(X, transform(np.asarray(y, dtype=np.float64)), qid=qid)
        return model.decision_function

    return fit


class _XENDCG:
    """XE-NDCG (S. Bruch, X. Wang, M. Bendersky, M. Najork, "An Analysis of the Softmax Cross Entropy Loss
    for Learning-to-Rank with Binary Relevance", 2019; Bruch, "An Alternative Cross Entropy Loss for
    Learning-to-Rank", 2021) as a study objective: per query, the cross entropy between the softmax of the
    scores, ρ = softmax_q(f), and the target distribution p_i = φ_i / Σ_q φ with φ_i = 2^{y_i} − γ_i,
    γ_i ~ U(0, 1) drawn afresh at every iteration.  g_i = ρ_i − p_i, h_i = ρ_i (1 − ρ_i) (the exact
    diagonal); queries whose rows share one grade carry no gradient.  Each query weighs the same
    (``per_query=True``) or by its rows (``per_query=False``: the query's loss times n_q / mean n_q).
    """

    def __new__(cls, seed=0, weight_by_rows=False):
        from rankcore.objectives._base import clip_hessian

        def setup(bound, y, sample_weight, queries):
            codes = bound.codes
            bound.n_q = int(codes.max()) + 1
            counts = np.bincount(codes, minlength=bound.n_q).astype(np.float64)
            top = np.full(bound.n_q, -np.inf)
            np.maximum.at(top, codes, y)
            low = np.full(bound.n_q, np.inf)
            np.minimum.at(low, codes, y)
            bound.active = (top > low)[codes].astype(np.float64)
            bound.query_weight = (counts / counts.mean())[codes] if weight_by_rows else 1.0
            bound.gain = np.exp2(np.asarray(y, dtype=np.float64))
            bound.rng = np.random.default_rng(seed)

        def gradients(bound, scores, g, h):
            codes, n_q = bound.codes, bound.n_q
            phi = bound.gain - bound.rng.random(scores.shape[0])
            p = phi / np.bincount(codes, phi, minlength=n_q)[codes]
            top = np.full(n_q, -np.inf)
            np.maximum.at(top, codes, scores)
            e = np.exp(scores - top[codes])
            rho = e / np.bincount(codes, e, minlength=n_q)[codes]
            w = bound.active * bound.query_weight
            return w * (rho - p), clip_hessian(w * rho * (1.0 - rho))

        return _study_objective("study-xendcg", setup, gradients)


def xendcg(random_state=0, weight_by_rows=False, learner="trees", **params):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, objective=_XENDCG(random_state, weight_by_rows), n_jobs=threads,
                               random_state=random_state, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


def regraded_blend(weight, transform, random_state=0, learner="trees", **params):
    """The blend (:class:`_Blend`) with the push's pairs on ``transform(y)`` and QueryRMSE on the true grades."""
    def fit(X, y, qid, threads):
        import rankcore

        y = np.asarray(y, dtype=np.float64)
        objective = _Blend(weight)
        model = rankcore.boost(learner=learner, objective=_RegradedPush(objective, transform), n_jobs=threads,
                               random_state=random_state, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


class _RegradedPush:
    """A study objective whose push is bound on ``transform(y)``; everything else sees the true grades."""

    def __new__(cls, objective, transform):
        bind = objective.bind

        def rebound(y, sample_weight=None, **kwargs):
            from rankcore.objectives._query_push import QueryPush

            bound = bind(y, sample_weight, **kwargs)
            bound.push = QueryPush("exp", "identity", gain_weighted=True).bind(transform(np.asarray(y, float)),
                                                                               kwargs["queries"], sample_weight)
            # the blend's scale was set from the push on the true grades: set it again on the new push
            zero = np.zeros(np.asarray(y).shape[0])
            g_push = bound.push.value_gradient_hessian(zero)[1]
            r = -np.asarray(y, float)
            mean = np.bincount(bound.codes, r * bound.w) / np.bincount(bound.codes, bound.w)
            g_rmse = bound.w * (r - mean[bound.codes])
            bound.scale = bound.weight * np.abs(g_push).sum() / max(np.abs(g_rmse).sum(), 1e-300)
            return bound

        objective.bind = rebound
        return objective


#: The tenth session's candidates: name -> the candidate at a given random_state.
_REGRADED = {
    "grade pairs": lambda state: regraded(lambda y: np.log2(1.0 + y), state),
    "half-gain pairs": lambda state: regraded(lambda y: y / 2.0, state),
    "xendcg": lambda state: xendcg(state),
    "xendcg by rows": lambda state: xendcg(state, weight_by_rows=True),
    "blend, rmse x1": lambda state: blend(1.0, random_state=state),
    "blend, rmse x2, half-gain pairs": lambda state: regraded_blend(2.0, lambda y: y / 2.0, state),
    "colsample=0.5": lambda state: reseeded(state, "trees:colsample=0.5"),
    "blend, rmse x1.5": lambda state: blend(1.5, random_state=state),
    "blend, rmse x3": lambda state: blend(3.0, random_state=state),
    "blend, rmse x2, random_strength=0.5": lambda state: blend(2.0, learner="trees:random_strength=0.5",
                                                               random_state=state),
    "blend, rmse x2, colsample=0.8": lambda state: blend(2.0, learner="trees:colsample=0.8", random_state=state),
    "blend, rmse x2": _RESCREENED["blend, rmse x2"],
    "random_strength=0.5": _RESCREENED["random_strength=0.5"],
}
REGRADED = {}
for _name, _make in _REGRADED.items():
    for _state in (0, 1, 2):
        _key = _name if _state == 0 else f"{_name}, random_state={_state}"
        if _key not in CANDIDATES:
            REGRADED[_key] = _make(_state)
CANDIDATES.update(REGRADED)



def _catboost_budget(loss, random_state=0, bootstrap=True):
    """``CatBoostRanker`` at the default's budget: 200 trees at rate 0.1 (its other defaults), optionally
    without its bootstrap (``bootstrap_type="No"``)."""
    def fit(X, y, qid, threads):
        from catboost import CatBoostRanker, Pool

        extra = {} if bootstrap else {"bootstrap_type": "No"}
        model = CatBoostRanker(loss_function=loss, iterations=200, learning_rate=0.1, random_seed=random_state,
                               verbose=False, thread_count=threads, allow_writing_files=False, **extra)
        model.fit(Pool(X, y, group_id=qid))
        return model.predict

    return fit


class _FlatCurvature:
    """The shipped default's objective with its curvature replaced by its mean (over all rows, or per query),
    study only: each tree's splits are then chosen by the gradient's least-squares fit (Σ G²/n per leaf, as
    CatBoost scores its splits) and its leaves are −G/(n·h̄)."""

    def __new__(cls, by_query=False):
        def setup(bound, y, sample_weight, queries):
            bound.sizes = np.bincount(bound.codes).astype(np.float64)

        def gradients(bound, scores, g, h):
            if by_query:
                return g, (np.bincount(bound.codes, h) / bound.sizes)[bound.codes]
            return g, np.full_like(h, h.mean())

        return _study_objective("study-flat-curvature", setup, gradients,
                                base="push:exp,identity,gain_weighted=true,query_rmse=2")


class _RateSchedule:
    """The shipped default's objective with each tree's gradient scaled by rate(t) / 0.1, study only: with Newton
    steps (one evaluation per tree, t = 0, 1, ...) and no leaf penalty that is tree t fitted at rate(t) instead of
    0.1 -- the split choices (and the split noise, which scales with the gains) are the same."""

    def __new__(cls, rate):
        def setup(bound, y, sample_weight, queries):
            bound.calls = 0

        def gradients(bound, scores, g, h):
            factor = rate(bound.calls) / 0.1
            bound.calls += 1
            return g * factor, h

        return _study_objective("study-rate-schedule", setup, gradients,
                                base="push:exp,identity,gain_weighted=true,query_rmse=2")


def rate_schedule(rate, random_state=0):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner="trees", objective=_RateSchedule(rate), n_jobs=threads,
                               random_state=random_state).fit(X, y, qid=qid)
        return model.decision_function

    return fit


def flat_curvature(by_query=False, random_state=0):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner="trees", objective=_FlatCurvature(by_query), n_jobs=threads,
                               random_state=random_state).fit(X, y, qid=qid)
        return model.decision_function

    return fit



def mvs_threshold(importance, kept):
    """μ with Σ min(1, a_i / μ) = kept for the importances a (all > 0, kept < their number): the rows above μ are
    always drawn, the others with probability a_i / μ.  O(n log n)."""
    a = np.sort(importance)[::-1]
    tail = np.cumsum(a[::-1])[::-1]             # tail[j] = Σ_{i >= j} a_(i)
    j = np.arange(min(int(kept), a.shape[0]))   # j rows saturated (p = 1), the rest share kept − j
    mu = tail[j] / (kept - j)
    ok = a[j] <= mu                             # the (j+1)-th largest is not saturated at μ_j
    return float(mu[np.argmax(ok)]) if ok.any() else float(a[-1])


class _MinimalVarianceSampling:
    """Minimal variance sampling (B. Ibragimov and G. Gusev, "Minimal Variance Sampling in Stochastic Gradient
    Boosting", 2019), CatBoost's default row sampling, over the default's blend (``trees:subsample=1``).

    Each tree draws row i with probability p_i = min(1, a_i / μ), a_i = sqrt(g_i² + λ h_i²), μ such that the
    expected draw is ``rate`` of the rows, and weighs a drawn row's g and h by 1 / p_i (the others: 0).  λ:
    Σg² / Σh² (``"balanced"``) or the number given.
    """

    def __new__(cls, rate=0.8, reg="balanced", random_state=0):
        def setup(bound, y, sample_weight, queries):
            bound.rng = np.random.default_rng(random_state)

        def gradients(bound, scores, g, h):
            lam = float(g @ g) / max(float(h @ h), 1e-300) if reg == "balanced" else float(reg)
            a = np.sqrt(g * g + lam * h * h) + 1e-300
            p = np.minimum(1.0, a / mvs_threshold(a, rate * a.shape[0]))
            w = np.where(bound.rng.random(a.shape[0]) < p, 1.0 / p, 0.0)
            return g * w, h * w

        return _study_objective("study-mvs", setup, gradients, base="push:exp,identity,gain_weighted=true,query_rmse=2")


def minimal_variance_sampling(rate=0.8, reg="balanced", random_state=0):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner="trees:subsample=1", objective=_MinimalVarianceSampling(rate, reg, random_state),
                               n_jobs=threads, random_state=random_state).fit(X, y, qid=qid)
        return model.decision_function

    return fit


def blend_relative_l2(rows, learner="trees", random_state=0):
    """The default with ``l2`` = ``rows`` mean per-row curvatures of its own objective (the blend) at f = 0."""
    def fit(X, y, qid, threads):
        import rankcore
        from rankcore.metrics._queries import check_qid
        from rankcore.registry import resolve

        spec = "push:exp,identity,gain_weighted=true,query_rmse=2"
        bound = resolve("objective", spec).bind(np.asarray(y, float), None, n_threads=1,
                                                queries=check_qid(qid, len(y)))
        curvature = float(np.mean(bound.value_gradient_hessian(np.zeros(len(y)))[2]))
        learner_spec = f"{learner}{':' if ':' not in learner else ','}l2={rows * curvature:.6g}"
        model = rankcore.boost(learner=learner_spec, n_jobs=threads, random_state=random_state).fit(X, y, qid=qid)
        return model.decision_function

    return fit

#: The eleventh session's screen, against the shipped default (the blend at λ = 2): name -> the candidate at a
#: given random_state.  "max_bins=63" and the 400-tree rows change the default's trees; the flat curvatures its
#: split scores.
_BUDGET = {
    "flat curvature": lambda state: flat_curvature(False, state),
    "flat curvature by query": lambda state: flat_curvature(True, state),
    "max_bins=63": lambda state: reseeded(state, "trees:max_bins=63"),
    "max_bins=127": lambda state: reseeded(state, "trees:max_bins=127"),
    "max_bins=31": lambda state: reseeded(state, "trees:max_bins=31"),
    "400 trees, rate 0.05": lambda state: reseeded(state, "trees:learning_rate=0.05", n_iter=400),
    "400 trees, rate 0.1": lambda state: reseeded(state, "trees:learning_rate=0.1", n_iter=400),
    "blend, rmse x2, per query": lambda state: blend(2.0, random_state=state, query_power=1.0),
    "blend, rmse x2, per query^0.5": lambda state: blend(2.0, random_state=state, query_power=0.5),
    "rate 0.15 to 0.05": lambda state: rate_schedule(lambda t: 0.15 - 0.1 * min(t, 199) / 199, state),
    "rate 0.05 to 0.15": lambda state: rate_schedule(lambda t: 0.05 + 0.1 * min(t, 199) / 199, state),
    "blend, rmse x2, price pow:2": lambda state: reseeded(state, "trees",
                                                          objective="push:exp,pow:2,gain_weighted=true,query_rmse=2"),
    "blend, rmse x2, price pow:1.5": lambda state: reseeded(
        state, "trees", objective="push:exp,pow:1.5,gain_weighted=true,query_rmse=2"),
}
#: CatBoost's rankers at the default's budget (LightGBM's LTR example only, with ``--report``).
CATBOOST_BUDGET = {
    "CatBoost QueryRMSE 200x0.1": _catboost_budget("QueryRMSE"),
    "CatBoost YetiRank 200x0.1": _catboost_budget("YetiRank"),
    **{f"CatBoost {loss} 200x0.1, no bootstrap" + (f", random_state={state}" if state else ""):
       _catboost_budget(loss, state, bootstrap=False) for loss in ("QueryRMSE", "YetiRank") for state in (0, 1, 2)},
}
BUDGET = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
          for name, make in _BUDGET.items() for state in (0, 1, 2)}
CANDIDATES.update(BUDGET)
#: The eleventh session's groups, each against the shipped default's three fits (``--budget``).
DRAWS4 = {
    "blend, rmse x2": ["blend, rmse x2", "blend, rmse x2, random_state=1", "blend, rmse x2, random_state=2"],
    **three_states(_BUDGET)}

#: The twelfth session's screen on the five smaller sets, against the shipped default (``--sampling``): CatBoost's
#: row sampling, stronger split noise, CatBoost's leaves.
_SAMPLING = {
    "MVS 0.8": lambda state: minimal_variance_sampling(0.8, "balanced", state),
    "MVS 0.8, by gradient": lambda state: minimal_variance_sampling(0.8, 0.0, state),
    "random_strength=2": lambda state: reseeded(state, "trees:random_strength=2"),
    "random_strength=1.5": lambda state: reseeded(state, "trees:random_strength=1.5"),
    "min_samples_leaf=1, l2=3 rows of the blend": lambda state: blend_relative_l2(3, "trees:min_samples_leaf=1",
                                                                                  state),
    "l2=3 rows of the blend": lambda state: blend_relative_l2(3, "trees", state),
}
#: The twelfth session's probes on LightGBM's LTR example alone (``--sets ltr --ltr-probes``): CatBoost's budget in
#: the default's trees, and QueryRMSE alone (λ = 100) in them with CatBoost's settings one at a time.
_LTR_PROBES = {
    "1000 trees, rate 0.03": lambda state: reseeded(state, "trees:learning_rate=0.03", n_iter=1000),
    "rmse x100": lambda state: reseeded(state, "trees", objective="push:exp,identity,gain_weighted=true,"
                                                                  "query_rmse=100"),
    "rmse x100, 1000 trees, rate 0.03": lambda state: reseeded(
        state, "trees:learning_rate=0.03", n_iter=1000,
        objective="push:exp,identity,gain_weighted=true,query_rmse=100"),
    **{f"rmse x100, {spec}": (lambda spec: lambda state: reseeded(
        state, f"trees:{spec}", objective="push:exp,identity,gain_weighted=true,query_rmse=100"))(spec)
       for spec in ("subsample=1", "min_samples_leaf=1", "min_samples_leaf=1,subsample=1", "random_strength=0",
                    "random_strength=2")},
}
TWELFTH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
           for group in (_SAMPLING, _LTR_PROBES) for name, make in group.items() for state in (0, 1, 2)}
CANDIDATES.update(TWELFTH)
DRAWS5 = {"blend, rmse x2": DRAWS4["blend, rmse x2"],
          **three_states(_SAMPLING)}
DRAWS6 = {"blend, rmse x2": DRAWS4["blend, rmse x2"],
          **three_states(_LTR_PROBES)}


class _QuerySampling:
    """Whole queries as the trees' sample, over the default's blend (``trees:subsample=1``): each tree keeps each
    query with probability ``rate`` (every row of it, g and h as they are) and gives the others' rows g = h = 0.

    The library's ``subsample`` draws rows: a query then enters a tree with some of its rows, and its gradient,
    which sums to zero within the query (QueryRMSE's does exactly, the push's nearly), no longer does on the rows
    drawn.  Drawn by query, each query a tree sees is whole (CatBoost: ``sampling_unit="Group"``).  A left-out
    row still counts in ``min_samples_leaf``'s counts here, which a kernel would not do.
    """

    def __new__(cls, rate=0.8, random_state=0, base="push:exp,identity,gain_weighted=true,query_rmse=2"):
        def setup(bound, y, sample_weight, queries):
            bound.rng = np.random.default_rng(random_state)
            bound.n_queries = int(queries.n_queries)

        def gradients(bound, scores, g, h):
            kept = (bound.rng.random(bound.n_queries) < rate).astype(np.float64)[bound.codes]
            return g * kept, h * kept

        return _study_objective("study-query-sampling", setup, gradients, base=base)


def query_sampling(rate=0.8, random_state=0, learner="trees:subsample=1", **params):
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, objective=_QuerySampling(rate, random_state),
                               n_jobs=threads, random_state=random_state, **params).fit(X, y, qid=qid)
        return model.decision_function

    return fit


#: The twenty-third session's screen: whole queries as each tree's sample, against the library's default
#: (``--query-sampling``).
_QUERY_SAMPLING = {
    "queries 0.8": lambda state: query_sampling(0.8, state),
    "queries 0.6": lambda state: query_sampling(0.6, state),
    "queries 0.8, rows 0.8": lambda state: query_sampling(0.8, state, "trees:subsample=0.8"),
}
CANDIDATES.update({(name if state == 0 else f"{name}, random_state={state}"): make(state)
                   for name, make in _QUERY_SAMPLING.items() for state in (0, 1, 2)})


def _dart_boosting(drop_rate, skip_drop, max_drop, random_state):
    """A stand-in for the driver's loop with DART's dropouts (K. V. Rashmi and R. Gilad-Bachrach, "DART: Dropouts
    meet Multiple Additive Regression Trees", 2015), for trees that take Newton steps without a line search.

    Each iteration skips dropping with probability ``skip_drop``; else each earlier tree is dropped with
    probability ``drop_rate`` (at most ``max_drop``).  The new tree is grown at the scores without the k dropped
    trees; then, as XGBoost's "tree" normalization, the dropped trees are scaled by k / (k + η) and the new tree
    (η·u, η the rate) by 1 / (k + η) (by 1 when nothing was dropped).  The records' steps carry the final weights.
    Like the driver's other stand-ins, it takes ``fixed_value`` and has no ``"diverged"`` stop (its J moves).
    """
    def run(backend, layout, *, n_iter, log_value, has_value=True, fixed_value=True, tol=0.0, max_step=None,
            callback=None):
        import dataclasses
        import math
        from rankcore.push._driver import BoostingRecord, BoostingResult, _next_candidate

        if has_value and getattr(layout, "line_search", True):
            raise ValueError("the study's DART runs Newton steps without a line search only")
        rng = np.random.default_rng(random_state)
        eta = float(getattr(layout, "shrinkage", 1.0))
        scores = backend._scores
        contributions, weights = [], []
        result = BoostingResult(initial_value=math.nan)

        def forget():
            backend._h_cache = backend._grad_cache = backend._summary = None

        for iteration in range(1, n_iter + 1):
            drop = np.empty(0, dtype=np.int64)
            if contributions and rng.random() >= skip_drop:
                drop = np.flatnonzero(rng.random(len(contributions)) < drop_rate)
                if drop.shape[0] > max_drop:
                    drop = rng.choice(drop, max_drop, replace=False)
            dropped = np.zeros_like(scores)
            for d in drop:
                dropped += weights[d] * contributions[d]
            scores -= dropped
            forget()
            state = backend.objective_state()
            candidate = _next_candidate(backend, layout, state, result, iteration, tol, 1)
            if candidate is None:
                scores += dropped
                break
            before = scores.copy()
            backend.apply_update(candidate.ranker, eta)
            new = scores - before
            k = drop.shape[0]
            if k:
                factor = k / (k + eta)
                for d in drop:
                    weights[d] *= factor
                scores[:] = before + factor * dropped + new / (k + eta)
                weights.append(1.0 / (k + eta))
            else:
                scores[:] = before + new
                weights.append(1.0)
            forget()
            contributions.append(new)
            result.records.append(BoostingRecord(iteration, candidate.ranker, eta, math.nan,
                                                 float(candidate.derivative), 0))
        result.records = [dataclasses.replace(r, alpha=r.alpha * w) for r, w in zip(result.records, weights)]
        return result

    return run


def dart(drop_rate=0.1, skip_drop=0.5, max_drop=50, random_state=0, learner="trees", **params):
    """The default with DART's dropouts (:func:`_dart_boosting`) in place of the driver's loop."""
    def fit(X, y, qid, threads):
        import rankcore
        import rankcore.push._boost_base as estimators

        original = estimators.run_boosting
        estimators.run_boosting = _dart_boosting(drop_rate, skip_drop, max_drop, random_state + 7919)
        try:
            model = rankcore.boost(learner=learner, n_jobs=threads, random_state=random_state,
                                   **params).fit(X, y, qid=qid)
        finally:
            estimators.run_boosting = original
        return model.decision_function

    return fit


def tail_average(last, random_state=0, learner="trees", **params):
    """The default's model averaged over its last ``last`` iterates (Polyak-Ruppert averaging of the boosting path):
    tree t of T weighs min(1, (T − t + 1) / last); the fit itself is the default's."""
    def fit(X, y, qid, threads):
        import rankcore

        model = rankcore.boost(learner=learner, n_jobs=threads, random_state=random_state, **params).fit(X, y, qid=qid)
        t = np.arange(1, model.alphas_.shape[0] + 1)
        model.alphas_ = model.alphas_ * np.minimum(1.0, (t[-1] - t + 1) / float(last))
        return model.decision_function

    return fit


#: The thirteenth session's screen on the five smaller sets, against the shipped default (``--dropouts``): DART's
#: dropouts, and the average of the boosting path's last iterates.
_DROPOUTS = {
    "dart 0.1": lambda state: dart(0.1, 0.5, 50, state),
    "dart 0.05": lambda state: dart(0.05, 0.5, 50, state),
    "tail average 50": lambda state: tail_average(50, state),
    "tail average 100": lambda state: tail_average(100, state),
}
def informative_queries(y, qid):
    """The number of queries whose rows have at least two grades (the queries a per-query objective learns from)."""
    _, codes = np.unique(qid, return_inverse=True)
    low = np.full(codes.max() + 1, np.inf)
    high = np.full(codes.max() + 1, -np.inf)
    np.minimum.at(low, codes, y)
    np.maximum.at(high, codes, y)
    return int((high > low).sum())


_PUSH = "push:exp,identity,gain_weighted=true"


def faded_blend(queries_full, weight=2.0, random_state=0):
    """The blend with λ = ``weight`` · min(1, ``queries_full`` / Q), Q the training rows' informative queries."""
    def fit(X, y, qid, threads):
        lam = weight * min(1.0, queries_full / max(informative_queries(y, qid), 1))
        return reseeded(random_state, "trees", objective=_PUSH + f",query_rmse={lam:.6g}")(X, y, qid, threads)

    return fit


#: The blend's weight against the number of training queries (``--blend-weight``, on the sets with many queries):
#: the push alone, the blend at λ = 0.5 and 1, and λ faded from 2 above 200 or 500 informative training queries.
_BLEND_WEIGHT = {
    "push alone": lambda state: reseeded(state, "trees", objective=_PUSH),
    "blend λ=0.5": lambda state: reseeded(state, "trees", objective=_PUSH + ",query_rmse=0.5"),
    "blend λ=1": lambda state: reseeded(state, "trees", objective=_PUSH + ",query_rmse=1"),
    "blend faded from 200 queries": lambda state: faded_blend(200, 2.0, state),
    "blend faded from 500 queries": lambda state: faded_blend(500, 2.0, state),
}
THIRTEENTH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
              for group in (_DROPOUTS, _BLEND_WEIGHT) for name, make in group.items() for state in (0, 1, 2)}
CANDIDATES.update(THIRTEENTH)
DRAWS7 = {"blend, rmse x2": DRAWS4["blend, rmse x2"],
          **three_states(_DROPOUTS)}
DRAWS8 = {"blend, rmse x2": DRAWS4["blend, rmse x2"],
          **three_states(_BLEND_WEIGHT)}

#: The fifteenth session's screen (``--targets``): the blend's QueryRMSE term regressing the scores on NDCG's gains
#: 2^y − 1, or on 2^(y/2) − 1, instead of the grades (the push and λ = 2 as shipped for these sets).
_TARGETS = {
    "blend, rmse on gains": lambda state: blend(2.0, random_state=state, target=lambda y: np.exp2(y) - 1.0),
    "blend, rmse on half-gains": lambda state: blend(2.0, random_state=state, target=lambda y: np.exp2(y / 2.0) - 1.0),
}
#: ... and fewer trees at a larger rate (a cheaper fit), with or without CatBoost's second leaf Newton step
#: (``--budget-steps``), which alone cost 1.1-1.25x the default's fit in the seventh session.
_BUDGET_STEPS = {
    "150 trees, rate 0.13": lambda state: reseeded(state, "trees:learning_rate=0.13", n_iter=150),
    "170 trees, rate 0.115": lambda state: reseeded(state, "trees:learning_rate=0.115", n_iter=170),
    "blend, leaf steps 2": lambda state: reseeded(state, "trees:leaf_newton_steps=2"),
    "blend, leaf steps 2, 170 trees": lambda state: reseeded(state, "trees:leaf_newton_steps=2", n_iter=170),
    # the QueryRMSE weight moved over the 200 trees (tree t of 0..199), its mean λ = 2 kept
    "blend, λ 4 → 0": lambda state: blend(2.0, random_state=state,
                                          schedule=lambda t: max(0.0, 2.0 * (1.0 - t / 199.0))),
    "blend, λ 0 → 4": lambda state: blend(2.0, random_state=state, schedule=lambda t: 2.0 * t / 199.0),
}
#: ... and every query counted once by the push (``normalize=true``: each query's pair weights divided by their
#: total), under the QueryRMSE term (``--normalized``).
_NORMALIZED = {
    "normalized blend λ=2": lambda state: reseeded(state, "trees", objective=_PUSH + ",normalize=true,query_rmse=2"),
    "normalized blend λ=1": lambda state: reseeded(state, "trees", objective=_PUSH + ",normalize=true,query_rmse=1"),
}


def annealed_noise(start, end, random_state=0, n_trees=200):
    """The default with the split noise's ``random_strength`` moved linearly from ``start`` (the first tree) to
    ``end`` (tree ``n_trees``), as CatBoost lets its split scores' noise fall during a fit (a study patch of the
    layout's oblivious route: the grower, whose noise is set when it is built, is built again each tree)."""
    def fit(X, y, qid, threads):
        import rankcore
        from rankcore.learners.trees._layout import TreeLayout

        original = TreeLayout._grow_oblivious

        def grow(self, *args, **kwargs):
            t = getattr(self, "_study_tree", 0)
            self._study_tree = t + 1
            self.random_strength = start + (end - start) * min(t, n_trees - 1) / (n_trees - 1)
            self._grower = None
            return original(self, *args, **kwargs)

        TreeLayout._grow_oblivious = grow
        try:
            model = rankcore.boost(learner="trees", n_jobs=threads, random_state=random_state).fit(X, y, qid=qid)
        finally:
            TreeLayout._grow_oblivious = original
        return model.decision_function

    return fit


#: ... and the split noise falling over the fit (``--normalized`` prints them with the normalized push).
_ANNEALED = {
    "noise 2 → 0": lambda state: annealed_noise(2.0, 0.0, state),
    "noise 1.5 → 0.5": lambda state: annealed_noise(1.5, 0.5, state),
}
FIFTEENTH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
             for group in (_TARGETS, _BUDGET_STEPS, _NORMALIZED, _ANNEALED) for name, make in group.items()
             for state in (0, 1, 2)}
CANDIDATES.update(FIFTEENTH)

#: The seventeenth session's screen (``--target-scale``): the blend's QueryRMSE term regressing the scores on σ·y
#: (``target xσ``: λ = 2; ``target xσ lλ``: weight λ), c set with it, so that at f = 0 the term's gradient keeps
#: its L1 norm while its curvature, against that pull, is 1/σ of the shipped term's.  It equals the push's
#: exponential loss at rate σ (scores σ times larger) with the term on the grades: the trees' leaf floor and split
#: noise are scale-free and their l2 is 0.
_TARGET_SCALES = {
    **{f"target x{sigma:g}": (lambda state, c=sigma: blend(2.0, random_state=state, target=lambda y: c * y))
       for sigma in (0.5, 2.0, 4.0, 8.0, 12.0, 16.0, 24.0, 32.0)},
    **{f"target x{sigma:g} l{weight:g}": (lambda state, c=sigma, w=weight: blend(w, random_state=state,
                                                                               target=lambda y: c * y))
       for sigma, weight in ((16.0, 1.0), (16.0, 4.0), (16.0, 6.0), (8.0, 4.0))},
}


def _quantile_features(X):
    """A map of rows to [0, 1] per column: each value's place among 65 quantiles of the training column."""
    grid = np.linspace(0.0, 1.0, 65)
    edges = [np.unique(np.quantile(X[:, j], grid)) for j in range(X.shape[1])]

    def transform(rows):
        rows = np.asarray(rows, dtype=np.float64)
        out = np.zeros(rows.shape)
        for j, e in enumerate(edges):
            if e.size > 1:
                out[:, j] = np.interp(rows[:, j], e, np.linspace(0.0, 1.0, e.size))
        return out

    return transform


def _query_ridge(Z, y, codes, alpha):
    """Ridge weights of the grades on the columns, both centred per query (a constant per query ranks nothing)."""
    counts = np.bincount(codes).astype(np.float64)
    means = np.zeros((counts.size, Z.shape[1]))
    np.add.at(means, codes, Z)
    Zc = Z - (means / counts[:, None])[codes]
    yc = y - (np.bincount(codes, y) / counts)[codes]
    keep = Zc.std(axis=0) > 0
    A = Zc[:, keep].T @ Zc[:, keep]
    A[np.diag_indices_from(A)] += alpha * Zc.shape[0]
    w = np.zeros(Z.shape[1])
    w[keep] = np.linalg.solve(A, Zc[:, keep].T @ yc)
    return w


def linear_start(alpha=0.01, shrink=1.0, random_state=0):
    """The default boosted from ``shrink`` times a query-centred ridge model's scores on quantile-mapped columns.

    The trees fit the default objective (the push with λ = 2) at f + offset, offset the linear scores; the
    model's scores are the trees' plus the offset.
    """
    spec = _PUSH + ",query_rmse=2"

    def fit(X, y, qid, threads):
        import rankcore

        X = np.asarray(X, dtype=np.float64)
        transform = _quantile_features(X)
        codes = np.unique(qid, return_inverse=True)[1]
        w = _query_ridge(transform(X), np.asarray(y, dtype=np.float64), codes, alpha)
        fitted_y = np.asarray(y, dtype=np.float64)

        def setup(bound, yb, sample_weight, queries):
            # the offset is in the rows' order as given: the fit must not have reordered them
            if not np.array_equal(np.asarray(yb, dtype=np.float64), fitted_y):
                raise RuntimeError("the study's linear start needs the rows in the order given to fit")

        objective = _study_objective("study-linear-start", setup, lambda bound, scores, g, h: (g, h),
                                     base=spec, offset=shrink * (transform(X) @ w))
        model = rankcore.boost(learner="trees", objective=objective, n_jobs=threads,
                               random_state=random_state).fit(X, y, qid=qid)
        return lambda rows: model.decision_function(rows) + shrink * (transform(rows) @ w)

    return fit


def _trees_on(objective, random_state):
    """A study model: the default's trees fitted to ``objective``."""
    def fit(X, y, qid, threads):
        import rankcore
        model = rankcore.boost(learner="trees", objective=objective, n_jobs=threads,
                               random_state=random_state).fit(X, y, qid=qid)
        return model.decision_function

    return fit


def stretched_blend(weight=2.0, random_state=0):
    """The blend whose QueryRMSE term regresses on each query's grades stretched so its top grade is the set's."""
    from rankcore.objectives._base import clip_hessian

    def centred(bound, scores):
        r = scores - bound.target
        return r - (np.bincount(bound.codes, r) / bound.n_q)[bound.codes], 1.0 - 1.0 / bound.n_q[bound.codes]

    def setup(bound, y, sample_weight, queries):
        if sample_weight is not None:
            raise ValueError("the study's stretched blend takes no sample weights")
        y = np.asarray(bound.y, dtype=np.float64)
        bound.n_q = np.bincount(bound.codes).astype(np.float64)
        top = np.zeros(bound.n_q.size)
        np.maximum.at(top, bound.codes, y)
        bound.target = np.where(top[bound.codes] > 0, y * (y.max() / np.maximum(top[bound.codes], 1e-300)), 0.0)
        zero = np.zeros(y.shape[0])
        g_push = bound.push.value_gradient_hessian(zero)[1]
        bound.scale = weight * np.abs(g_push).sum() / max(np.abs(centred(bound, zero)[0]).sum(), 1e-300)

    def gradients(bound, scores, g, h):
        gr, hr = centred(bound, scores)
        return g + bound.scale * gr, clip_hessian(h + bound.scale * hr)

    return _trees_on(_study_objective("study-stretched", setup, gradients), random_state)


def grade_pull(weight=2.0, random_state=0):
    """The term's limit as σ → ∞: the push plus a constant pull by each row's grade centred per query.

    g = g_push − λ·c·(y − ȳ_q), c = ‖g_push(0)‖₁ / ‖y − ȳ_q‖₁; the push's curvature alone.
    """
    from rankcore.objectives._base import clip_hessian

    def setup(bound, y, sample_weight, queries):
        y = np.asarray(bound.y, dtype=np.float64)
        n_q = np.bincount(bound.codes).astype(np.float64)
        centred = y - (np.bincount(bound.codes, y) / n_q)[bound.codes]
        g_push = bound.push.value_gradient_hessian(np.zeros(y.shape[0]))[1]
        bound.pull = -weight * np.abs(g_push).sum() / max(np.abs(centred).sum(), 1e-300) * centred

    def gradients(bound, scores, g, h):
        return g + bound.pull, clip_hessian(h)

    return _trees_on(_study_objective("study-pull", setup, gradients), random_state)


#: ... and where the trees start, or what the term regresses on (``--linear-start``): a query-centred ridge
#: model as the start, each query's grades stretched to the set's top grade, and the pull of σ → ∞.
_STARTS = {
    "linear a=0.01 x1": lambda state: linear_start(0.01, 1.0, state),
    "linear a=0.01 x0.5": lambda state: linear_start(0.01, 0.5, state),
    "linear a=0.1 x1": lambda state: linear_start(0.1, 1.0, state),
    "stretched": lambda state: stretched_blend(2.0, state),
    "pull": lambda state: grade_pull(2.0, state),
}
SEVENTEENTH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
               for group in (_TARGET_SCALES, _STARTS) for name, make in group.items() for state in (0, 1, 2)}
CANDIDATES.update(SEVENTEENTH)


#: The eighteenth session's screen (``--discounted``): the place discounts of the sixth session (the one variant
#: with a pattern then, before the QueryRMSE term joined the default) on top of the blend, with the library's
#: ties (row order) or tie-averaged, and a milder d^0.5.  ``--discounted-many``: the same at λ = 1 on the sets
#: with many queries.
_DISCOUNTED = {
    "blend, product": lambda state: discounted_push("product", 2.0, random_state=state),
    "blend, product, tie-averaged": lambda state: discounted_push("product", 2.0, averaged=True, random_state=state),
    "blend, product^0.5, tie-averaged": lambda state: discounted_push("product", 2.0, power=0.5, averaged=True,
                                                                       random_state=state),
    "blend, sum, tie-averaged": lambda state: discounted_push("sum", 2.0, averaged=True, random_state=state),
}
_DISCOUNTED_MANY = {
    "blend λ=1, product, tie-averaged": lambda state: discounted_push("product", 1.0, averaged=True,
                                                                       random_state=state),
    "blend λ=1, product^0.5, tie-averaged": lambda state: discounted_push("product", 1.0, power=0.5, averaged=True,
                                                                           random_state=state),
}
EIGHTEENTH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
              for group in (_DISCOUNTED, _DISCOUNTED_MANY) for name, make in group.items() for state in (0, 1, 2)}
CANDIDATES.update(EIGHTEENTH)


def _ranked_queries(codes, y):
    """Per row: whether its query holds two grades or more (a query of one grade has no order to learn)."""
    n_q = int(codes.max()) + 1
    top, low = np.full(n_q, -np.inf), np.full(n_q, np.inf)
    np.maximum.at(top, codes, y)
    np.minimum.at(low, codes, y)
    return top > low


def listmle_terms(y, codes):
    """The ListMLE likelihood's gradient and Hessian diagonal per row (F. Xia, T.-Y. Liu, J. Wang, W. Zhang,
    H. Li, "Listwise approach to learning to rank: theory and algorithm", 2008): ``terms(scores, rng)`` -> (g, h).

    Per query, π sorts the rows by grade (highest first), ties in grade in an order drawn from ``rng`` at each
    call; the loss is −log P(π | f) = Σ_k [log Z_k − f_π(k)], Z_k = Σ_{j≥k} exp f_π(j) (Plackett-Luce).  With
    p_k(m) = exp(f_m) / Z_k for the row at place m ≥ k: g_m = −1 + Σ_{k≤m} p_k(m) and the Hessian's diagonal
    h_m = Σ_{k≤m} p_k(m) (1 − p_k(m)).  log Z is a reverse cumulative logsumexp along each query's places,
    Σ_k 1/Z_k and Σ_k 1/Z_k² cumulative logsumexps, in a (queries × longest query) array padded with −inf:
    O(n log n) time per query for the sort, O(Q · n_max) memory.  Queries of one grade get g = h = 0.
    """
    n_q = int(codes.max()) + 1
    sizes = np.bincount(codes, minlength=n_q)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    ranked = _ranked_queries(codes, y)[codes]

    def terms(scores, rng):
        order = np.lexsort((rng.random(scores.shape[0]), -y, codes))
        at = (codes[order], np.arange(scores.shape[0]) - starts[codes[order]])
        top = np.full(n_q, -np.inf)
        np.maximum.at(top, codes, scores)
        table = np.full((n_q, int(sizes.max())), -np.inf)
        table[at] = (scores - top[codes])[order]
        with np.errstate(invalid="ignore", over="ignore"):
            log_z = np.logaddexp.accumulate(table[:, ::-1], axis=1)[:, ::-1]
            first = np.exp(table + np.logaddexp.accumulate(-log_z, axis=1))[at]
            second = np.exp(2.0 * table + np.logaddexp.accumulate(-2.0 * log_z, axis=1))[at]
        g, h = np.empty_like(scores), np.empty_like(scores)
        g[order], h[order] = first - 1.0, np.maximum(first - second, 0.0)
        return np.where(ranked, g, 0.0), np.where(ranked, h, 0.0)

    return terms


def lambdaloss_terms(y, codes, mu=10.0):
    """NDCG-Loss2++'s gradient and Hessian diagonal per row at the current ranks (X. Wang, C. Li, N. Golbandi,
    M. Bendersky, M. Najork, "The LambdaLoss Framework for Ranking Metric Optimization", 2018):
    ``terms(scores, rng)`` -> (g, h).

    Per query, every pair with y_i > y_j adds w_ij log(1 + exp(−(f_i − f_j))), w_ij = (ρ_ij + μ δ_ij)
    |G_i − G_j|, held fixed at the current scores' ranks r (ties in score in an order drawn from ``rng``):
    G = (2^y − 1) / maxDCG, D(r) = log2(1 + r), ρ_ij = |1/D(r_i) − 1/D(r_j)| (LambdaRank's) and δ_ij =
    |1/D(|r_i − r_j|) − 1/D(|r_i − r_j| + 1)|.  g and the Hessian's diagonal h sum the pairs' logistic terms.
    The pairs of differing grades are listed once: O(P) time and memory a call for P such pairs (a study's
    NumPy; the library's kernels never list pairs).
    """
    from scipy.special import expit

    n_q = int(codes.max()) + 1
    sizes = np.bincount(codes, minlength=n_q)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    inv_d = np.concatenate(([0.0], 1.0 / np.log2(np.arange(2.0, sizes.max() + 2.0))))    # inv_d[r] = 1 / D(r)
    gain = np.exp2(y) - 1.0
    ideal = np.zeros(n_q)
    for q in np.flatnonzero(_ranked_queries(codes, y)):
        ideal[q] = np.sum(np.sort(gain[codes == q])[::-1] * inv_d[1:sizes[q] + 1])
    gain = gain / np.where(ideal > 0, ideal, 1.0)[codes]
    upper, lower = [], []
    for q in np.flatnonzero(ideal > 0):
        rows = np.flatnonzero(codes == q)
        i, j = np.nonzero(y[rows][:, None] > y[rows][None, :])
        upper.append(rows[i])
        lower.append(rows[j])
    upper, lower = np.concatenate(upper), np.concatenate(lower)
    d_gain = gain[upper] - gain[lower]

    def terms(scores, rng):
        order = np.lexsort((rng.random(scores.shape[0]), -scores, codes))
        rank = np.empty(scores.shape[0], dtype=np.intp)
        rank[order] = np.arange(1, scores.shape[0] + 1) - starts[codes[order]]
        ru, rl = rank[upper], rank[lower]
        gap = np.abs(ru - rl)
        w = (np.abs(inv_d[ru] - inv_d[rl]) + mu * np.abs(inv_d[gap] - inv_d[gap + 1])) * d_gain
        e = expit(scores[lower] - scores[upper])
        p = w * e
        curv = p * (1.0 - e)
        n = scores.shape[0]
        g = np.bincount(lower, p, minlength=n) - np.bincount(upper, p, minlength=n)
        return g, np.bincount(upper, curv, minlength=n) + np.bincount(lower, curv, minlength=n)

    return terms


class _Listwise:
    """A listwise term as a study objective (``objective=`` of ``rankcore.boost``), alone or added to the default.

    ``make(y, codes)`` -> ``terms(scores, rng)`` -> (g, h) per row (:func:`listmle_terms`, :func:`lambdaloss_terms`),
    scaled by c = ‖g_push(0)‖₁ / ‖g_term(0)‖₁ (the default's gain-weighted push alone at f = 0, fixed at the
    start), as :class:`_Blend` scales QueryRMSE.  ``weight`` None: c·(g, h) alone; else the library's default objective
    (the push with QueryRMSE at the λ it takes for these training queries) plus ``weight``·c·(g, h).  The term's
    random draws (ties) come from a generator seeded with ``random_state``.
    """

    def __new__(cls, make, weight=None, random_state=0):
        from rankcore.objectives._base import clip_hessian
        from rankcore.push._query_defaults import query_rmse_weight
        from rankcore.registry import resolve

        def setup(bound, y, sample_weight, queries):
            if sample_weight is not None:
                raise ValueError("the study's listwise terms take no sample weights")
            yf = np.asarray(bound.y, dtype=np.float64)
            bound.terms, bound.rng = make(yf, bound.codes), np.random.default_rng(random_state)
            zero = np.zeros(y.shape[0])
            g_push = bound.push.value_gradient_hessian(zero)[1]
            g_term = bound.terms(zero, np.random.default_rng(random_state))[0]
            bound.scale = np.abs(g_push).sum() / max(np.abs(g_term).sum(), 1e-300)
            if weight is not None:
                lam = query_rmse_weight(int(_ranked_queries(bound.codes, yf).sum()))
                bound.push = resolve("objective", f"{_PUSH},query_rmse={lam:g}").bind(
                    y, None, n_threads=1, queries=queries)

        def gradients(bound, scores, g, h):
            gt, ht = bound.terms(scores, bound.rng)
            if weight is None:
                return bound.scale * gt, clip_hessian(bound.scale * ht)
            return g + weight * bound.scale * gt, clip_hessian(h + weight * bound.scale * ht)

        return _study_objective("study-listwise", setup, gradients)


def listwise(make, weight=None, random_state=0):
    return _trees_on(_Listwise(make, weight, random_state), random_state)


#: The fortieth session's screen (``--listwise``): ListMLE and LambdaLoss's NDCG-Loss2++ (μ = 10) added to the
#: library's default at w = 1 (their gradient's L1 norm at f = 0 the push's), and each alone.
_LISTWISE = {
    "default + ListMLE": lambda state: listwise(listmle_terms, 1.0, state),
    "default + NDCG-Loss2++": lambda state: listwise(lambdaloss_terms, 1.0, state),
    "ListMLE alone": lambda state: listwise(listmle_terms, None, state),
    "NDCG-Loss2++ alone": lambda state: listwise(lambdaloss_terms, None, state),
}
FORTIETH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
            for name, make in _LISTWISE.items() for state in (0, 1, 2)}
# the default through the listwise path at w = 0: the same scores as "default" (a check of the path)
FORTIETH["default, listwise path"] = listwise(lambda y, codes: lambda s, rng: (np.ones_like(s),) * 2, 0.0)
CANDIDATES.update(FORTIETH)

#: The forty-first session's screen (``--shrink-noise``, :mod:`query_shrink_noise_pairs`): model shrinkage at
#: s = 0.01 and 0.03, Langevin-style gradient noise at w = 0.1 and 0.3, the pairwise logistic term at w = 0.5 and 1.
_SHRINK_NOISE = {
    "shrink 0.01": lambda state: snp.shrunk(0.01, state),
    "shrink 0.03": lambda state: snp.shrunk(0.03, state),
    "default + noise 0.1": lambda state: listwise(snp.gaussian_noise_terms, 0.1, state),
    "default + noise 0.3": lambda state: listwise(snp.gaussian_noise_terms, 0.3, state),
    "default + PairLogit 0.5": lambda state: listwise(snp.pairlogit_terms, 0.5, state),
    "default + PairLogit 1": lambda state: listwise(snp.pairlogit_terms, 1.0, state),
}
FORTYFIRST = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
              for name, make in _SHRINK_NOISE.items() for state in (0, 1, 2)}
FORTYFIRST["default, shrink path"] = snp.shrunk(0.0)    # s = 0: the default's scores (a check of the loop)
CANDIDATES.update(FORTYFIRST)

#: The forty-sixth session's third split for model shrinkage (``--shrink-third``): s = 0.01 again, and s = 0.005;
#: ``--shrink-five`` the default and both rates with random_state 3 and 4 as well (:data:`MORE_STATES`).
_SHRINK_THIRD = {"shrink 0.005": lambda state: snp.shrunk(0.005, state)}
MORE_STATES = (3, 4)
FORTYSIXTH = {(name if state == 0 else f"{name}, random_state={state}"): make(state)
              for name, make in _SHRINK_THIRD.items() for state in (0, 1, 2)}
FORTYSIXTH.update({f"default, random_state={state}": reseeded(state) for state in MORE_STATES})
FORTYSIXTH.update({f"{name}, random_state={state}": make(state)
                   for name, make in (("shrink 0.01", _SHRINK_NOISE["shrink 0.01"]), *_SHRINK_THIRD.items())
                   for state in MORE_STATES})
CANDIDATES.update(FORTYSIXTH)


MODELS = {**PEERS, **CANDIDATES, **CATBOOST_BUDGET}
GROUPS = {"peers": list(PEERS),
          "candidates": [m for m in CANDIDATES if m not in BLENDS and m not in YETI and m not in POSITIONS
                         and m not in LEAF_STEPS and m not in BAYES and m not in RESCREEN
                         and m not in REGRADED and m not in BUDGET
                         and m not in TWELFTH and m not in THIRTEENTH and m not in FIFTEENTH
                         and m not in SEVENTEENTH and m not in EIGHTEENTH and m not in FORTIETH
                         and m not in FORTYFIRST and m not in FORTYSIXTH],
          "blends": list(BLENDS), "yeti": list(YETI), "positions": list(POSITIONS),
          "leaf_steps": list(LEAF_STEPS), "bayes": list(BAYES),
          "budget": list(BUDGET), "catboost_budget": list(CATBOOST_BUDGET),
          "sampling": [m for ms in DRAWS5.values() for m in ms if m in TWELFTH],
          "ltr_probes": [m for ms in DRAWS6.values() for m in ms if m in TWELFTH],
          "dropouts": [m for ms in DRAWS7.values() for m in ms if m in THIRTEENTH],
          "blend_weight": [m for ms in DRAWS8.values() for m in ms if m in THIRTEENTH],
          "targets": [m for m in FIFTEENTH if any(m.startswith(name) for name in _TARGETS)],
          "budget_steps": [m for m in FIFTEENTH if any(m.startswith(name) for name in _BUDGET_STEPS)],
          "normalized": [m for m in FIFTEENTH if any(m.startswith(name) for name in _NORMALIZED)],
          "annealed": [m for m in FIFTEENTH if any(m.startswith(name) for name in _ANNEALED)],
          "target_scales": [m for ms in three_states(_TARGET_SCALES).values() for m in ms],
          "discounted": [m for ms in three_states(_DISCOUNTED).values() for m in ms],
          "discounted_many": [m for ms in three_states(_DISCOUNTED_MANY).values() for m in ms],
          "starts": [m for ms in three_states(_STARTS).values() for m in ms],
          "regraded": [m for ms in three_states(_REGRADED).values() for m in ms],
          "listwise": [m for ms in three_states(_LISTWISE).values() for m in ms],
          "shrink_noise": [m for ms in three_states(_SHRINK_NOISE).values() for m in ms],
          # the default's own fits are part of these two groups: the screen refits them beside the candidates
          "shrink_third": [m for ms in three_states(("default", "shrink 0.01", *_SHRINK_THIRD)).values() for m in ms],
          "shrink_five": [f"{name}, random_state={state}" for name in ("default", "shrink 0.01", *_SHRINK_THIRD)
                          for state in MORE_STATES],
          # random_state 0 of each re-screened candidate is its earlier entry (the same fit)
          "rescreen": [m for ms in three_states(_RESCREENED).values() for m in ms]}


def _canonical_order(X, y, qid):
    keys = [X[:, j] for j in range(X.shape[1] - 1, -1, -1)] + [y, qid]
    return np.lexsort(keys)


def _cache_file(cache: Path, set_name, seed, model):
    safe = "".join(c if c.isalnum() or c in "-_.=" else "_" for c in model)
    return cache / set_name / f"seed{seed}" / f"{safe}.npz"


def top_feature_correlation(X, y, qid, k=3) -> tuple[float, int]:
    """The k strongest features' mean within-query Spearman correlation with the grade, and the queries it is over.

    Each feature's correlation is averaged over the queries of two grades or
    more (a column constant in a query counts 0 there); the k largest in
    magnitude are averaged.  How well single features order the queries.
    """
    from scipy.stats import rankdata

    order = np.argsort(qid, kind="stable")
    X, y, qid = np.asarray(X)[order], np.asarray(y)[order], np.asarray(qid)[order]
    starts = np.r_[0, np.flatnonzero(np.diff(qid)) + 1, qid.shape[0]]
    total, n_queries = np.zeros(X.shape[1]), 0
    for a, b in zip(starts[:-1].tolist(), starts[1:].tolist()):
        if np.unique(y[a:b]).shape[0] < 2:
            continue
        ry = rankdata(y[a:b])
        ry -= ry.mean()
        rx = rankdata(X[a:b], axis=0)
        rx -= rx.mean(axis=0)
        scale = np.sqrt((rx ** 2).sum(axis=0) * (ry ** 2).sum())
        total += np.divide(rx.T @ ry, scale, out=np.zeros(X.shape[1]), where=scale > 0)
        n_queries += 1
    mean = total / max(n_queries, 1)
    return float(np.sort(np.abs(mean))[::-1][:k].mean()), n_queries


def correlations(set_names) -> None:
    """Print :func:`top_feature_correlation` of each set (``--correlations``)."""
    print("\n| set | rows × columns | top-3 within-query Spearman | queries of two grades or more |")
    print("|---|---|---|---|")
    for name in set_names:
        try:
            X, y, qid = SETS[name]()
        except DatasetUnavailable as exc:
            print(f"left out {name}: {exc}", file=sys.stderr)
            continue
        value, n_queries = top_feature_correlation(X, y, qid)
        print(f"| {name} | {X.shape[0]:,} × {X.shape[1]} | {value:.3f} | {n_queries} |", flush=True)


def _available(set_name):
    """The set's (X, y, qid), or None with a note on stderr when its data are not at hand (a data set's path)."""
    try:
        return SETS[set_name]()
    except DatasetUnavailable as exc:
        print(f"left out {set_name}: {exc}", file=sys.stderr)
        return None


def run(set_name, models, seeds, cache: Path, threads=1):
    from rankcore import QueryKFold

    data = _available(set_name)
    if data is None:
        return
    X, y, qid = data
    n_splits, n_fitted = SPLITS.get(set_name, (5, 5))
    print(f"{set_name}: {X.shape[0]:,} rows x {X.shape[1]}, {np.unique(qid).shape[0]} queries", file=sys.stderr)
    for seed in seeds:
        todo = [m for m in models if not _cache_file(cache, set_name, seed, m).is_file()]
        if not todo:
            continue
        splits = list(QueryKFold(n_splits, shuffle=True, random_state=seed).split(X, qid=qid))[:n_fitted]
        for fold, (train, test) in enumerate(splits):
            # each fit is kept as soon as it is done (``.foldK`` files), so a stopped run resumes
            pending = [m for m in todo if not _fold_file(cache, set_name, seed, m, fold).is_file()]
            if not pending:
                continue
            train = train[_canonical_order(X[train], y[train], qid[train])]
            Xtr, ytr, qtr = X[train], y[train], qid[train]
            for name in pending[fold % len(pending):] + pending[:fold % len(pending)]:
                start = time.process_time()
                predict = MODELS[name](Xtr, ytr, qtr, threads)
                seconds = time.process_time() - start
                path = _fold_file(cache, set_name, seed, name, fold)
                path.parent.mkdir(parents=True, exist_ok=True)
                np.savez(path, test=test, scores=predict(X[test]), seconds=seconds, load=os.getloadavg()[0])
                print(f"  {set_name} seed {seed} fold {fold} {name}: {seconds:.2f} s "
                      f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        for name in todo:
            scores = np.full(y.shape[0], np.nan)
            seconds = []
            for fold in range(len(splits)):
                with np.load(_fold_file(cache, set_name, seed, name, fold)) as part:
                    scores[part["test"]] = part["scores"]
                    seconds.append(float(part["seconds"]))
            path = _cache_file(cache, set_name, seed, name)
            np.savez(path, scores=scores, seconds=np.array(seconds), load=os.getloadavg()[0])


def _fold_file(cache: Path, set_name, seed, model, fold):
    path = _cache_file(cache, set_name, seed, model)
    return path.with_name(f"{path.stem}.fold{fold}.npz")


def _load(cache, set_name, seed, model, n_rows=None):
    """(out-of-fold scores, CPU seconds, folds) of a model, or None; ``n_rows``: also the folds done so far."""
    path = _cache_file(cache, set_name, seed, model)
    if path.is_file():
        with np.load(path) as data:
            return data["scores"], float(data["seconds"].sum()), data["seconds"].shape[0]
    parts = sorted(path.parent.glob(f"{path.stem}.fold*.npz")) if n_rows is not None else []
    if not parts:
        return None
    scores, seconds = np.full(n_rows, np.nan), 0.0
    for part_path in parts:
        with np.load(part_path) as part:
            scores[part["test"]] = part["scores"]
            seconds += float(part["seconds"])
    return scores, seconds, len(parts)


def report(set_names, models, seeds, cache: Path, paired=True):
    """Per set: NDCG@1/5/10, fit CPU × LGBMRanker and the paired NDCG@10 difference to it.

    Every model is judged on the same queries: those every listed model has
    scored (a model stopped part way through its folds narrows them, and the
    heading says so); its time ratio is over the folds it shares with
    ``LGBMRanker()``.
    """
    import rankcore
    from rankcore.metrics import compare

    for set_name in set_names:
        data = _available(set_name)
        if data is None:
            continue
        _, y, qid = data
        set_seeds = [s for s in seeds if _load(cache, set_name, s, REFERENCE) is not None]
        if not set_seeds:
            continue
        loaded = {}
        for model in models:
            runs = {s: _load(cache, set_name, s, model, y.shape[0]) for s in set_seeds}
            if all(v is not None for v in runs.values()):
                loaded[model] = runs
        common = {s: np.logical_and.reduce([np.isfinite(loaded[m][s][0]) for m in loaded]) for s in set_seeds}
        scored = {s: np.isfinite(loaded[REFERENCE][s][0]) for s in set_seeds}
        narrowed = [s for s in set_seeds if common[s].sum() < scored[s].sum()]
        note = (f"; on the {int(sum(np.unique(qid[common[s]]).shape[0] for s in narrowed))} queries every model "
                f"scored (split {narrowed})" if narrowed else "")
        print(f"\n### {set_name} (seeds {set_seeds}{note})\n")
        head = "| model | NDCG@1 | NDCG@5 | NDCG@10 | fit CPU × LGBMRanker |"
        if paired:
            head += " NDCG@10 − LGBMRanker (p), per seed |"
        print(head)
        print("|---" * (head.count("|") - 1) + "|")
        for model, runs in loaded.items():
            values = {m: [] for m in METRICS}
            ratio_num = ratio_den = 0.0
            pairs = []
            for s, (scores, secs, folds) in runs.items():
                ref_scores, ref_secs, ref_folds = loaded[REFERENCE][s]
                rows = common[s]
                ev = rankcore.evaluate(y[rows], scores[rows], list(METRICS), qid=qid[rows])
                for m in METRICS:
                    values[m].append(ev[m])
                ratio_num += secs / folds
                ratio_den += ref_secs / ref_folds
                if paired and model != REFERENCE:
                    c = compare(y[rows], scores[rows], ref_scores[rows], "ndcg@k:10", qid=qid[rows], random_state=0)
                    pairs.append(f"{c.difference:+.4f} ({c.p_value:.3f})")
            line = f"| {model} | " + " | ".join(f"{np.mean(values[m]):.4f}" for m in METRICS)
            line += f" | {ratio_num / ratio_den:.2f} |"
            if paired:
                line += " " + ", ".join(pairs) + " |"
            print(line)


def deltas(set_names, models, seed, cache: Path, base="default"):
    """One row per candidate: its NDCG@10 minus ``base``'s on each set, and the means over the sets of @1/@5/@10."""
    import rankcore

    sets, rows = [], {m: {} for m in models if m != base}
    for set_name in set_names:
        data = _available(set_name)
        if data is None:
            continue
        _, y, qid = data
        base_run = _load(cache, set_name, seed, base, y.shape[0])
        if base_run is None:
            continue
        sets.append(set_name)
        for model in rows:
            run = _load(cache, set_name, seed, model, y.shape[0])
            if run is not None:
                both = np.isfinite(run[0]) & np.isfinite(base_run[0])
                ev = rankcore.evaluate(y[both], run[0][both], list(METRICS), qid=qid[both])
                base_ev = rankcore.evaluate(y[both], base_run[0][both], list(METRICS), qid=qid[both])
                rows[model][set_name] = {m: ev[m] - base_ev[m] for m in METRICS}
    print(f"\n### candidates − {base}, split {seed}: NDCG@10 per set; means over the sets\n")
    head = "| model | " + " | ".join(sets) + " | mean Δ NDCG@1 | mean Δ NDCG@5 | mean Δ NDCG@10 |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for model, per_set in rows.items():
        if not per_set:
            continue
        cells = [f"{per_set[s]['ndcg@k:10']:+.4f}" if s in per_set else "" for s in sets]
        means = [np.mean([v[m] for v in per_set.values()]) for m in METRICS]
        print(f"| {model} | " + " | ".join(cells) + " | " + " | ".join(f"{v:+.4f}" for v in means) + " |")


#: Models fitted with random_state 0, 1 and 2 (the same settings, other random draws), for :func:`draw_deltas`.
DRAWS = {
    "default": ["default", "default, random_state=1", "default, random_state=2"],
    "bayes T=0.2": ["bayes T=0.2", "bayes T=0.2, random_state=1", "bayes T=0.2, random_state=2"],
    "trees bayes by query T=0.5": ["trees bayes by query T=0.5", "trees bayes by query T=0.5, random_state=1",
                                   "trees bayes by query T=0.5, random_state=2"],
}
#: The fifteenth session's screen against the library's default (``--targets``).
DRAWS9 = {"default": DRAWS["default"],
          **three_states(_TARGETS)}
DRAWS10 = {"default": DRAWS["default"],
           **three_states(_BUDGET_STEPS)}
DRAWS11 = {"default": DRAWS["default"],
           **three_states((*_NORMALIZED, *_ANNEALED))}

#: The seventeenth session's screens against the library's default (``--target-scale``, ``--linear-start``) and,
#: on the sets with many queries, against the blend at λ = 1, the library's default there (``--target-scale-many``).
DRAWS12 = {"default": DRAWS["default"],
           **three_states(_TARGET_SCALES)}
DRAWS13 = {"default": DRAWS["default"],
           **three_states(_STARTS)}
DRAWS14 = three_states(("blend λ=1", "target x16 l1", "target x16"))
#: The eighteenth session's place discounts on the blend (``--discounted``; ``--discounted-many``).
DRAWS15 = {"default": DRAWS["default"],
           **three_states(_DISCOUNTED)}
DRAWS16 = three_states(("blend λ=1", *_DISCOUNTED_MANY))


#: The re-screen (:data:`RESCREEN`): the default and each earlier candidate at random_state 0, 1 and 2.
DRAWS2 = {"default": DRAWS["default"],
          **three_states(_RESCREENED)}
#: The tenth session's screen: pair weights from the grades, XE-NDCG, the blend at other weights and with other
#: settings, and the two near misses again (docs/studies/per_query_rankers.md).
DRAWS3 = {"default": DRAWS["default"],
          **three_states(_REGRADED)}
#: The pass rule of the candidate defaults: ahead of the default on the mean over the sets at every metric on
#: every split, no set's NDCG@10 lower by more than this, at no more than this multiple of the default's fit CPU.
MAX_SET_LOSS = 0.002
MAX_CPU_RATIO = 1.03


def _draw_means(set_names, seed, cache: Path, groups):
    """{set: {group: ({metric: mean over the fits of each fit's mean NDCG}, [NDCG@10 per fit], CPU s)}}.

    A set is left out unless every fit of the first group (the base) is cached for it, and a group unless
    every fit of it is cached on every set kept (a candidate screened on fewer splits drops out of the others).
    """
    import rankcore

    def complete(rs):
        return all(r is not None and np.isfinite(r[0]).all() for r in rs)

    loaded = {}
    for set_name in set_names:
        data = _available(set_name)
        if data is None:
            continue
        _, y, qid = data
        runs = {g: [_load(cache, set_name, seed, m, y.shape[0]) for m in ms] for g, ms in groups.items()}
        if complete(next(iter(runs.values()))):
            loaded[set_name] = (y, qid, runs)
    kept = [g for g in groups if all(complete(runs[g]) for _, _, runs in loaded.values())]
    out = {}
    for set_name, (y, qid, runs) in loaded.items():
        runs = {g: runs[g] for g in kept}
        out[set_name] = {}
        for g, rs in runs.items():
            evs = [rankcore.evaluate(y, r[0], list(METRICS), qid=qid) for r in rs]
            means = {m: float(np.mean([ev[m] for ev in evs])) for m in METRICS}
            out[set_name][g] = (means, [ev["ndcg@k:10"] for ev in evs], sum(r[1] for r in rs))
    return out


def draw_deltas(set_names, seed, cache: Path, base="default", groups=None):
    """Each group's NDCG averaged over its random states, minus the default's so averaged.

    Per set: the mean over the three fits (random_state 0, 1, 2) of each fit's mean NDCG over the queries; then
    the candidate minus the default per set, and the means over the sets.  Also each group's spread (the
    largest minus the smallest of its three fits' mean-over-the-sets NDCG@10), its lowest per-set NDCG@10
    difference and its fit CPU (the three fits on every set) × the default's.  Returns
    {group: (mean differences per metric, lowest per-set NDCG@10 difference, CPU ratio)}.
    """
    groups = DRAWS if groups is None else groups
    per = _draw_means(set_names, seed, cache, groups)
    sets = list(per)
    result = {}
    n_fits = len(groups[base])      # the states each group is fitted at (3; 5 for ``--shrink-five``)
    print(f"\n### over random_state {', '.join(map(str, range(n_fits)))}: candidates − {base}, split {seed}; "
          "means over the sets\n")
    head = ("| model | " + " | ".join(sets) + " | mean Δ NDCG@1 | mean Δ NDCG@5 | mean Δ NDCG@10 "
            f"| spread of the {n_fits} fits' mean NDCG@10 | fit CPU × default |")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for g in groups:
        if not sets:
            break
        if g not in per[sets[0]]:
            continue
        diffs = {s: {m: per[s][g][0][m] - per[s][base][0][m] for m in METRICS} for s in sets}
        fits = np.mean([per[s][g][1] for s in sets], axis=0)
        cpu = sum(per[s][g][2] for s in sets) / sum(per[s][base][2] for s in sets)
        means = {m: float(np.mean([diffs[s][m] for s in sets])) for m in METRICS}
        result[g] = (means, min(diffs[s]["ndcg@k:10"] for s in sets), cpu)
        print(f"| {g} | " + " | ".join(f"{diffs[s]['ndcg@k:10']:+.4f}" for s in sets) + " | "
              + " | ".join(f"{means[m]:+.4f}" for m in METRICS)
              + f" | {fits.max() - fits.min():.4f} | {cpu:.2f} |")
    return result


def draw_sets(set_names, seed, cache: Path, groups=None):
    """Per set: each group's NDCG@1/5/10 averaged over its three fits, and its fit CPU × the default's."""
    groups = DRAWS if groups is None else groups
    per = _draw_means(set_names, seed, cache, groups)
    for set_name, rows in per.items():
        print(f"\n#### {set_name} (split {seed}; means over random_state 0, 1, 2)\n")
        print("| model | NDCG@1 | NDCG@5 | NDCG@10 | NDCG@10 of each fit | fit CPU × default |")
        print("|---|---|---|---|---|---|")
        for g, (means, fits, cpu) in rows.items():
            print(f"| {g} | " + " | ".join(f"{means[m]:.4f}" for m in METRICS)
                  + " | " + ", ".join(f"{v:.4f}" for v in fits) + f" | {cpu / rows['default'][2]:.2f} |")


def draw_verdict(results, base="default"):
    """The pass rule over the splits' :func:`draw_deltas` results: one row per candidate, why it fails."""
    print("\n### the pass rule, over the splits\n")
    print(f"| model | ahead at @1/@5/@10 on every split | lowest set Δ NDCG@10 (≥ −{MAX_SET_LOSS}) "
          f"| fit CPU × default (≤ {MAX_CPU_RATIO}) | passes |")
    print("|---|---|---|---|---|")
    names = [g for g in results[0] if g != base] if results else []
    for g in names:
        if not all(g in r for r in results):
            continue
        ahead = all(r[g][0][m] > 0 for r in results for m in METRICS)
        lowest = min(r[g][1] for r in results)
        cpu = float(np.mean([r[g][2] for r in results]))
        ok = ahead and lowest >= -MAX_SET_LOSS and cpu <= MAX_CPU_RATIO
        print(f"| {g} | {'yes' if ahead else 'no'} | {lowest:+.4f} | {cpu:.2f} | {'**yes**' if ok else 'no'} |")


#: The nineteenth session's push alone against the library's default on the LETOR-form sets (``--letor-form``).
DRAWS17 = {"default": DRAWS["default"],
           "push alone": ["push alone", "push alone, random_state=1", "push alone, random_state=2"]}


#: The twenty-third session's whole-query samples against the library's default (``--query-sampling``).
DRAWS18 = {"default": DRAWS["default"],
           **three_states(_QUERY_SAMPLING)}


#: The twenty-third and twenty-fourth sessions' re-screen of earlier near misses on the LETOR-form sets
#: (``--near-misses``): candidates that had been level or close on the five smaller sets.
_NEAR_MISSES = ("MVS 0.8", "l2=3 rows of the blend", "random_strength=1.5", "subsample=1", "blend, rmse x3",
                "blend, product", "tail average 50", "blend, rmse on gains", "noise 1.5 → 0.5",
                "blend, rmse x2, colsample=0.8", "trees bayes by query T=0.5", "bayes T=0.2")
DRAWS19 = {"default": DRAWS["default"],
           **three_states(_NEAR_MISSES)}

#: The twenty-fourth session's path averages on the nine sets together (``--path-average``).
DRAWS20 = {"default": DRAWS["default"],
           **three_states(("tail average 50", "tail average 100"))}


#: The fortieth session's listwise objectives, added to the default and alone (``--listwise``).
DRAWS21 = {"default": DRAWS["default"],
           **three_states(_LISTWISE)}

#: The forty-first session's model shrinkage, gradient noise and pairwise logistic term (``--shrink-noise``).
DRAWS22 = {"default": DRAWS["default"],
           **three_states(_SHRINK_NOISE)}

#: The forty-sixth session's model shrinkage at s = 0.01 and 0.005 on a third split (``--shrink-third``).
DRAWS23 = {"default": DRAWS["default"],
           **three_states(("shrink 0.01", *_SHRINK_THIRD))}
#: The same with random_state 0 to 4 (``--shrink-five``).
DRAWS24 = {name: [*states, *(f"{name}, random_state={state}" for state in MORE_STATES)]
           for name, states in DRAWS23.items()}


#: The screens against the shipped default (the push + QueryRMSE blend): flag -> (groups, what they are).
AGAINST_SHIPPED = {"budget": (DRAWS4, "eleventh session's screen (DRAWS4)"),
                   "sampling": (DRAWS5, "twelfth session's screen (DRAWS5)"),
                   "ltr-probes": (DRAWS6, "twelfth session's probes on the LTR example (DRAWS6; --sets ltr)"),
                   "dropouts": (DRAWS7, "thirteenth session's screen (DRAWS7)"),
                   "blend-weight": (DRAWS8, "thirteenth session's blend weights (DRAWS8)")}


#: The screens against the library's own default ("default"): flag -> (groups, what they are).
AGAINST_LIBRARY = {"targets": (DRAWS9, "fifteenth session's QueryRMSE targets (DRAWS9)"),
                   "budget-steps": (DRAWS10, "fifteenth session's budgets, leaf steps and moving weights (DRAWS10)"),
                   "normalized": (DRAWS11, "fifteenth session's normalized push and annealed noise (DRAWS11)"),
                   "target-scale": (DRAWS12, "seventeenth session's QueryRMSE target scales (DRAWS12)"),
                   "linear-start": (DRAWS13, "seventeenth session's linear start, stretched grades, pull (DRAWS13)"),
                   "discounted": (DRAWS15, "eighteenth session's place discounts on the blend (DRAWS15)"),
                   "letor-form": (DRAWS17, "nineteenth and twentieth sessions' push alone (DRAWS17)"),
                   "query-sampling": (DRAWS18, "twenty-third session's whole-query samples (DRAWS18)"),
                   "near-misses": (DRAWS19, "twenty-fourth session's re-screen of near misses (DRAWS19)"),
                   "path-average": (DRAWS20, "twenty-fourth session's path averages on nine sets (DRAWS20)"),
                   "listwise": (DRAWS21, "fortieth session's ListMLE and NDCG-Loss2++ (DRAWS21)"),
                   "shrink-noise": (DRAWS22, "forty-first session's shrinkage, noise and PairLogit (DRAWS22)"),
                   "shrink-third": (DRAWS23, "forty-sixth session's shrinkage at s = 0.01 and 0.005 (DRAWS23)"),
                   "shrink-five": (DRAWS24, "forty-sixth session's shrinkage over random_state 0 to 4 (DRAWS24)")}

#: The screens on the sets with many queries against the blend at λ = 1 (the library's default there).
AGAINST_MANY = {"target-scale-many": (DRAWS14, "seventeenth session's target scales with many queries (DRAWS14)"),
                "discounted-many": (DRAWS16, "eighteenth session's place discounts with many queries (DRAWS16)")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--models", nargs="+", default=["peers", "default"],
                        help="model names of MODELS, or the groups 'peers', 'candidates'")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("QUERY_STUDY_CACHE",
                                                                          "query_defaults_cache")))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="print the tables from the cache")
    parser.add_argument("--correlations", action="store_true",
                        help="print each set's top-3 within-query Spearman correlation with the grade")
    parser.add_argument("--deltas", action="store_true",
                        help="print each model minus the default from the cache (the first of --seeds)")
    parser.add_argument("--draws", action="store_true",
                        help="print the DRAWS groups (random_state 0, 1, 2) minus the default's, from the cache")
    parser.add_argument("--rescreen", action="store_true",
                        help="the same for the DRAWS2 groups, with the per-set tables and the pass rule")
    for flag, (_, screen) in AGAINST_LIBRARY.items():
        parser.add_argument(f"--{flag}", action="store_true",
                            help=f"the {screen} minus the library's default, with the pass rule")
    parser.add_argument("--regraded", action="store_true",
                        help="the same for the DRAWS3 groups (the tenth session's screen)")
    for flag, (_, screen) in AGAINST_SHIPPED.items():
        parser.add_argument(f"--{flag}", action="store_true", help=f"the {screen} minus the shipped default's")
    for flag, (_, screen) in AGAINST_MANY.items():
        parser.add_argument(f"--{flag}", action="store_true", help=f"the {screen} minus the blend at λ = 1")
    args = parser.parse_args(argv)
    if args.correlations:
        correlations(args.sets)
        return 0
    for flag, (groups, _) in AGAINST_SHIPPED.items():
        if getattr(args, flag.replace("-", "_")):
            for seed in args.seeds:
                draw_deltas(args.sets, seed, args.cache, base="blend, rmse x2", groups=groups)
            return 0
    for flag, (groups, _) in AGAINST_LIBRARY.items():
        if getattr(args, flag.replace("-", "_")):
            draw_verdict([draw_deltas(args.sets, seed, args.cache, groups=groups) for seed in args.seeds])
            return 0
    for flag, (groups, _) in AGAINST_MANY.items():
        if getattr(args, flag.replace("-", "_")):
            draw_verdict([draw_deltas(args.sets, seed, args.cache, base="blend λ=1", groups=groups)
                          for seed in args.seeds], base="blend λ=1")
            return 0
    if args.draws:
        for seed in args.seeds:
            draw_deltas(args.sets, seed, args.cache)
        return 0
    if args.rescreen or args.regraded:
        groups = DRAWS3 if args.regraded else DRAWS2
        results = [draw_deltas(args.sets, seed, args.cache, groups=groups) for seed in args.seeds]
        draw_verdict(results)
        for seed in args.seeds:
            draw_sets(args.sets, seed, args.cache, groups=groups)
        return 0
    models = []
    for name in args.models:
        models.extend(GROUPS.get(name, [name]))
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {list(MODELS)}")
    if args.deltas:
        deltas(args.sets, models, args.seeds[0], args.cache)
        return 0
    if args.report:
        report(args.sets, list(dict.fromkeys([REFERENCE] + models)), args.seeds, args.cache)
        return 0
    models = list(dict.fromkeys([REFERENCE] + models))
    for set_name in args.sets:
        try:
            run(set_name, models, args.seeds, args.cache, args.threads)
        except DatasetUnavailable as exc:
            print(f"left out {set_name}: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
