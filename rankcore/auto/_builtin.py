"""AutoRanker's built-in candidates: one class per family, configured by spec strings.

Each class lists in ``default_specs`` the configurations of the default
search (``AutoRanker(candidates="auto")``); any other configuration can be
asked for by its spec (``"trees:max_leaves=8"``, ``"exactboost:n_runs=250"``).
Why these defaults, measured, is in ``docs/auto.md``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..push import AUTO_MIN_ROWS, large_data_learner
from ..spec import Parameter
from ..validation import threads_for_work
from ._candidate import NO_SAMPLE_WEIGHT, Candidate, CandidateContext, _format

#: Row-by-tree visits below which a library's model scores checked rows on one thread (as rankcore's trees do).
SERIAL_VISITS = 1024

__all__ = ["TreesCandidate", "StumpsCandidate", "LinearCandidate", "KernelCandidate", "ExactBoostCandidate",
           "LightGBMCandidate", "XGBoostCandidate", "BUILTIN_CANDIDATES"]


def _spec_args(component, names, always=()) -> str:
    """``"max_leaves=8,subsample=1"``: the parameters among ``names`` that differ from their defaults.

    The parameters in ``always`` are written even at their defaults.
    """
    values = component.params
    return ",".join(f"{p.name}={_format(values[p.name])}" for p in component.parameters
                    if p.name in always or (p.name in names and values[p.name] != p.default))


class TreesCandidate(Candidate):
    """Gradient-boosted trees on the push objective (rankcore.boost(learner="trees")) and variants."""

    name = "trees"
    parameters = (
        Parameter("n_iter", int, default=100, minimum=1, maximum=2**31 - 1, saved_beyond_maximum=True, doc="trees"),
        Parameter("learning_rate", float, default=0.1, minimum=0.0, exclusive_minimum=True, doc="shrinkage"),
        Parameter("max_leaves", int, default=31, minimum=2, doc="leaves per tree"),
        Parameter("subsample", float, default=0.8, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="fraction of rows per tree"),
        Parameter("colsample", float, default=1.0, minimum=0.0, maximum=1.0, exclusive_minimum=True,
                  doc="fraction of features per tree"),
        Parameter("min_samples_leaf", int, default=20, minimum=1, doc="rows per leaf, at least"),
        Parameter("growth", str, default="leafwise", choices=("leafwise", "depthwise", "oblivious"),
                  doc="how trees grow (oblivious: symmetric trees of depth 6, as CatBoost's)"),
        Parameter("leaf_reg", float, default=0.0, minimum=0.0, doc="L2 penalty of the leaf values in units of "
                  "the mean per-row curvature of the objective at the start (CatBoost's l2_leaf_reg=3 is about 12)"),
        Parameter("schedule", str, default="fixed", choices=("fixed", "long"),
                  doc="long: 500 trees at rate clip(0.05 (n/1e4)^0.3, 0.02, 0.1) for n training rows "
                      "(replaces n_iter and learning_rate)"),
        Parameter("random_strength", float, default=0.0, minimum=0.0,
                  doc="noise on each node's choice of feature (the trees learner's random_strength)"),
        Parameter("large_data", bool, default=True,
                  doc="on more than 10,000 training rows, where the trees stop early on a hold-out: true, the "
                      "trees learner's large-data settings (rate 0.2 on every row, up to 150 trees); false, the "
                      "small-data shape (max_leaves, learning_rate and subsample as given), up to n_iter trees"),
        Parameter("min_rows", int, default=0, minimum=0,
                  doc="skipped where a fit trains on fewer rows (a fold's training part): for configurations "
                      "worth their cost only on larger data"),
        Parameter("monotone", str, default="",
                  doc="monotone constraints, one sign per column of X (the trees learner's monotone, e.g. 1/0/-1)"),
        Parameter("interactions", str, default="",
                  doc="interaction constraints, groups of columns of X (the trees learner's interactions, e.g. "
                      "0+1/2+3+4)"),
        Parameter("objective", str, default="",
                  doc="a registered objective the trees boost instead of the push estimator's default (with qid: "
                      "lambdarank, yetirank, mp-squared...; its spec of at most one argument, as lambdarank:20)"),
    )
    examples = ("trees:n_iter=5", "trees:n_iter=5,max_leaves=2,subsample=1",
                "trees:n_iter=5,growth=oblivious,leaf_reg=12", "trees:n_iter=5,random_strength=3",
                "trees:n_iter=5,large_data=false", "trees:n_iter=5,min_rows=10", "trees:n_iter=5,objective=lambdarank")
    # the default, 8-leaf, every-row and two 300-tree variants: docs/studies/trees_defaults.md says why
    default_specs = ("trees", "trees:max_leaves=8", "trees:subsample=1",
                     f"trees:n_iter=300,large_data=false,min_rows={AUTO_MIN_ROWS + 1}",
                     "trees:n_iter=300,min_rows=3000")
    accepts_missing = True
    ranks_within_queries = True
    # the trees bin CSR columns as they are, bit-identical to the dense fit (docs/tree_data.md)
    accepts_sparse = True
    priority = 0

    @property
    def relative_cost(self) -> float:  # type: ignore[override]
        n_iter = LONG_TREES if self.schedule == "long" else self.n_iter
        # measured on the small sets: a symmetric tree of depth 6 costs 3 to 4 leafwise trees of 31 leaves
        shape = 3.5 if self.growth == "oblivious" else (0.6 if self.max_leaves <= 8 else 1.0)
        return n_iter / 100 * shape

    def _validate(self) -> None:
        if self.objective:
            self.resolved_objective()
        # a monotone or interactions value the trees learner cannot read (a sign 2, a column twice in a group) is
        # refused with the spec, before any data, as the learner's spec is: its ConstraintSpecError, which the
        # command line says with the feature columns' order as it says --learner's
        if self.monotone or self.interactions:
            from ..registry import resolve

            resolve("learner", self.learner_spec())

    def resolved_objective(self) -> Any:
        """The objective named by ``objective`` (None: the push estimator's default), see :func:`named_objective`."""
        return named_objective(self, "") if self.objective else None

    def skip_reason(self, context: CandidateContext) -> str | None:
        if context.n_rows < self.min_rows:
            return f"fewer than {self.min_rows:,} training rows"
        return objective_skip_reason(self.objective, self.resolved_objective(), context) \
            or super().skip_reason(context)

    def fit_identity(self, context: CandidateContext):
        """(the learner spec as fitted on ``context``'s rows, the number of trees): equal ones fit the same model.

        On more than 10,000 training rows of one list the learner's large-data
        settings apply to what the spec leaves out (``trees:subsample=1`` is
        then ``trees``); up to there, and within queries, ``large_data``
        changes nothing.
        """
        from ..registry import resolve

        given = self.learner_spec(context)
        learner = resolve("learner", given)
        # within queries early stopping stays off, and with it the large-data settings
        if context.n_rows > AUTO_MIN_ROWS and context.n_queries is None:
            learner = large_data_learner(given, learner)
        return learner.spec, self.schedule_for(context.n_rows)[0], self.objective

    def schedule_for(self, n_rows: int) -> tuple[int, float]:
        """(trees, learning rate) for ``n_rows`` training rows."""
        if self.schedule == "long":
            return LONG_TREES, long_rate(n_rows)
        return self.n_iter, self.learning_rate

    def learner_spec(self, context: CandidateContext | None = None) -> str:
        """The trees learner's spec (``context`` places the long schedule's rate and the leaf penalty)."""
        # named in the spec, the learner's large-data settings leave the small-data shape as it is
        shape = () if self.large_data else ("max_leaves", "learning_rate", "subsample")
        args = _spec_args(self, {"learning_rate", "max_leaves", "subsample", "colsample", "min_samples_leaf",
                                 "growth", "random_strength", "monotone",
                                 "interactions"}, always=shape)
        extra = []
        if context is not None and self.schedule == "long":
            args = ",".join(a for a in args.split(",") if a and not a.startswith("learning_rate="))
            extra.append(f"learning_rate={self.schedule_for(context.n_rows)[1]:.6g}")
        if context is not None and self.leaf_reg > 0:
            extra.append(f"l2={self.leaf_reg * start_curvature(context.n_rows, context.n_positive):.6g}")
        args = ",".join(a for a in [args, *extra] if a)
        return "trees" + (":" + args if args else "")

    def with_column_names(self, feature_names) -> "TreesCandidate":
        """This candidate with the columns ``interactions`` gives by name replaced by their indices among
        ``feature_names`` (as ``PushBoost`` resolves its learner's), shown by the spec as given; ``self`` when it
        names none.  A name that is not among them, or X without column names: a ValueError naming ``candidates``,
        the name and the columns (the trees learner's ``with_column_names``)."""
        from ..validation import said_again
        from ..registry import resolve

        if not self.interactions:
            return self
        try:
            named = resolve("learner", self.learner_spec()).with_column_names(feature_names)
        except ValueError as exc:
            # a refusal (of the constraints) keeps its class and fields, said of the candidate
            raise said_again(exc, f"candidates: {self.spec!r}: {exc}", plain=ValueError) from None
        if feature_names is None:       # columns by index, named by nothing
            return self
        resolved = type(self)(**{**self.params, "interactions": named.interactions}).shown_as(self.spec)
        resolved.__dict__["_column_names"] = [str(name) for name in feature_names]
        return resolved

    def named_warning(self, message: str) -> str:
        """``message`` with the learner's "in no group" warning of ``interactions`` (its fit on arrays names the
        columns by index), where it holds it, naming the candidate as asked for and X's columns by name (see
        :meth:`with_column_names`)."""
        from ..registry import resolve

        names = self.__dict__.get("_column_names")
        if names is None:
            return message
        learner = resolve("learner", self.learner_spec())
        by_index = learner.unused_columns_message(len(names), None)
        if by_index is None or by_index not in message:
            return message
        named = learner.unused_columns_message(len(names), names)
        named = named.replace(f"interactions={learner.interactions!r} (learner {learner.name!r})",
                              f"candidate {self.spec!r}", 1)
        return message.replace(by_index, named.replace(" (interactions counts the feature columns from 0)", ""))

    def build(self, context: CandidateContext) -> Any:
        from ..push import boost
        from ..registry import resolve

        spec = self.learner_spec(context)
        learner = resolve("learner", spec)
        # category columns split by groups where the trees can (not oblivious; within their bins)
        categorical = [j for j, k in context.categorical
                       if learner.accept_categorical and self.growth != "oblivious" and k <= learner.max_bins]
        return boost(learner=spec, objective=self.objective or None, n_iter=self.schedule_for(context.n_rows)[0],
                     early_stopping=early_stopping_as_validated(context), categorical_features=categorical or None,
                     random_state=context.random_state, n_jobs=context.n_jobs)


def named_objective(candidate: Candidate, default: str) -> Any:
    """The registered objective ``candidate.objective`` names, None at ``default``; a spec that does not resolve is
    refused (its ValueError, said of the candidate and its ``objective``) when the spec is read, before any data."""
    if candidate.objective == default:
        return None
    from ..registry import resolve
    from ..validation import said_again

    try:
        return resolve("objective", candidate.objective)
    except ValueError as exc:
        raise said_again(exc, f"candidate {candidate.name!r}: objective={candidate.objective!r}: {exc}") from None


def objective_skip_reason(spec: str, objective: Any, context: CandidateContext) -> str | None:
    """Why a candidate boosting ``objective`` (None: its own default, which fits both ways) skips these data: an
    objective of queries only on one list, or one of one list within queries."""
    if objective is None:
        return None
    if context.n_queries is None and objective.requires_queries:
        return f"objective {spec!r} ranks within queries only (fit with qid)"
    if context.n_queries is not None and not objective.ranks_within_queries:
        return f"objective {spec!r} ranks one list: it cannot fit within queries"
    return None


def early_stopping_as_validated(context: CandidateContext):
    """``early_stopping`` of a push fit: ``"auto"``, or False for a refit validated without it.

    ``"auto"`` switches early stopping (and the learner's large-data
    settings) on above 10,000 training rows.  A search whose folds trained
    on at most that many rows validated fits without it; the refit on every
    row -- which may hold more -- must fit the model that was validated.
    """
    if context.validated_rows is not None and context.validated_rows <= AUTO_MIN_ROWS < context.n_rows:
        return False
    return "auto"


#: Trees of the long schedule.
LONG_TREES = 500


def long_rate(n_rows: int) -> float:
    """The long schedule's rate: clip(0.05 (n/1e4)^0.3, 0.02, 0.1) -- smaller on small data, as CatBoost's rule."""
    return float(min(max(0.05 * (max(n_rows, 1) / 1e4) ** 0.3, 0.02), 0.1))


def start_curvature(n_rows: int, n_positive: int) -> float:
    """Mean per-row curvature of the trees' push objective at f = 0 for these class counts.

    The objective's curvature scale depends on the labels (0.011 per row on a
    569-row set, 0.0013 on a 4,601-row one), so a leaf penalty meant as "so
    many rows' worth" is multiplied by it.  At f = 0 every row of a class has
    the same curvature, so the class counts determine it.
    """
    from ..registry import resolve

    n_positive = min(max(int(n_positive), 1), max(int(n_rows) - 1, 1))
    y = np.zeros(max(int(n_rows), 2), dtype=np.int8)
    y[:n_positive] = 1
    _, _, h = resolve("objective", "push:exp,pow:2").bind(y).value_gradient_hessian(np.zeros(y.shape[0]))
    return float(np.mean(h))


class StumpsCandidate(Candidate):
    """P-Norm Push boosting of decision stumps (rankcore.boost())."""

    name = "stumps"
    parameters = (Parameter("n_iter", int, default=100, minimum=1, maximum=2**31 - 1, saved_beyond_maximum=True,
                            doc="stumps"),)
    examples = ("stumps:n_iter=10",)
    default_specs = ()              # on request: never chosen over the default trees in our study (docs/auto.md)
    ranks_within_queries = True
    relative_cost = 0.3
    priority = 10

    def build(self, context: CandidateContext) -> Any:
        from ..push import boost

        return boost(n_iter=self.n_iter, early_stopping=early_stopping_as_validated(context),
                     random_state=context.random_state, n_jobs=context.n_jobs)


class LinearCandidate(Candidate):
    """A linear ranker: L2 logistic regression on standardized features, refined by SGD on a precision@k surrogate."""

    name = "linear"
    parameters = (
        Parameter("k", float, default=0.05, minimum=0.0, exclusive_minimum=True, doc="the top fraction (or count) "
                  "the surrogate aims at"),
        Parameter("n_epochs", int, default=30, minimum=0, maximum=2**31 - 1, doc="SGD passes after the logistic start"),
    )
    examples = ("linear:n_epochs=2",)
    default_specs = ("linear",)
    small_data_specs = ("linear",)
    # SGDAtK scales CSR columns without centering them and steps through their stored values
    accepts_sparse = True
    # a fold fit costs 0.27 to 1.2 default trees' (docs/studies/trees_defaults.md)
    relative_cost = 0.4
    priority = 5

    def build(self, context: CandidateContext) -> Any:
        from ..precision_at_k import SGDAtK

        k = self.k if self.k < 1 else min(int(self.k), context.n_rows)
        # one thread: its batches are small, and a second thread costs more than it saves
        return SGDAtK(k=k, n_epochs=self.n_epochs, random_state=context.random_state, n_jobs=1)


class KernelCandidate(Candidate):
    """Kernel ranking (KernelRanker) on standardized features; small data only (its cost grows as n³)."""

    name = "kernel"
    parameters = (
        Parameter("kernel", str, default="laplacian", choices=("laplacian", "rbf"), doc="the kernel"),
        Parameter("lam", float, default=1e-3, minimum=0.0, exclusive_minimum=True, doc="regularization λ"),
    )
    examples = ("kernel", "kernel:rbf,0.01")
    default_specs = ("kernel", "kernel:kernel=rbf")
    small_data_specs = ("kernel",)
    # its cost grows as n³: beyond 600 rows it takes too much of the budget (docs/studies/trees_defaults.md)
    max_rows = 600
    relative_cost = 0.5
    priority = 20

    def build(self, context: CandidateContext) -> Any:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        from ..rkhs import KernelRanker

        return make_pipeline(StandardScaler(), KernelRanker(kernel=self.kernel, lam=self.lam,
                                                            random_state=context.random_state,
                                                            n_jobs=context.n_jobs))


class ExactBoostCandidate(Candidate):
    """ExactBoost: stumps boosted on the target metric itself, exactly (AUC if the metric is not monotone)."""

    name = "exactboost"
    parameters = (
        Parameter("n_runs", int, default=10, minimum=1, doc="independent runs averaged"),
        Parameter("depth", int, default=2, minimum=1, doc="branch-and-bound depth"),
        Parameter("metric", str, default="auto", doc="'auto' (the target metric when ExactBoost accepts it, "
                                                     "else auc) or a metric spec"),
    )
    examples = ("exactboost:n_runs=3",)
    default_specs = ("exactboost",)
    small_data_specs = ("exactboost",)
    # its branch and bound grows with rows x features: where it wins (small, narrow, noisy tables) it is cheap
    max_rows = 2000
    max_features = 50
    priority = 30

    @property
    def relative_cost(self) -> float:  # type: ignore[override]
        # 10 runs cost about 1.5 default tree fits (docs/studies/trees_defaults.md)
        return 0.15 * self.n_runs

    def fit_metric(self, context: CandidateContext) -> Any:
        """The metric ExactBoost fits: its spec, or the Metric itself when that spec does not resolve to it."""
        if self.metric != "auto":
            return self.metric
        from ..exactboost import resolve_monotone_metric
        from ..registry import resolve

        target = getattr(context, "target_metric", None)       # (a context made by hand may not carry it)
        target = resolve("metric", context.metric) if target is None else target
        try:        # ExactBoost's own test: declared monotone, bipartite, scalar, and not caught breaking it
            metric = resolve_monotone_metric(target)
        except ValueError:
            return "auc"
        try:        # the spec when it names this metric (a registered one): the model's parameters stay text
            same = resolve("metric", metric.spec) == metric
        except (TypeError, ValueError):
            same = False
        return metric.spec if same else metric

    def build(self, context: CandidateContext) -> Any:
        from ..exactboost import ExactBoost

        return ExactBoost(metric=self.fit_metric(context), n_runs=self.n_runs, depth=self.depth,
                          random_state=context.random_state, n_jobs=context.n_jobs)


class _GBDTCandidate(Candidate):
    """Shared: a gradient-boosting library's classifier trained on a rankcore objective (``rankcore.gbdt``); with
    ``qid``, the library's ranker."""

    package: ClassVar[str] = ""            # the module to import
    estimator: ClassVar[str] = ""          # its scikit-learn classifier
    ranker: ClassVar[str] = ""             # its scikit-learn ranker (within queries)
    native: ClassVar[str] = ""             # the ranker's own LambdaMART objective
    adapter: ClassVar[str] = ""            # the rankcore.gbdt function making the objective
    extra: ClassVar[dict] = {}             # other constructor arguments
    parameters = (Parameter("objective", str, default="auto", doc="auto: push:exp,pow:4 on one list, the library's "
                            "own LambdaMART with qid; or a registered objective spec (through rankcore.gbdt)"),)
    default_specs = ()          # opt-in: their models cannot be saved without pickle
    accepts_missing = True
    savable = False
    ranks_within_queries = True
    relative_cost = 0.5
    priority = 40

    def _validate(self) -> None:
        self.resolved_objective()

    def resolved_objective(self) -> Any:
        """The rankcore objective ``objective`` names (None for ``auto``), see :func:`named_objective`."""
        return named_objective(self, "auto")

    def skip_reason(self, context: CandidateContext) -> str | None:
        import importlib.util

        if importlib.util.find_spec(self.package) is None:
            return f"{self.package} is not installed"
        objective = self.resolved_objective()
        return (objective_skip_reason(self.objective, objective, context)
                or self._library_skip_reason(context, objective) or super().skip_reason(context))

    def _library_skip_reason(self, context: CandidateContext, objective: Any) -> str | None:
        """What the library's own estimator cannot do on this fit (None: nothing)."""
        return None

    def build(self, context: CandidateContext) -> Any:
        import importlib

        from .. import gbdt

        module = importlib.import_module(self.package)
        within = context.n_queries is not None
        if within and self.objective == "auto":
            objective: Any = self.native
        else:
            spec = "push:exp,pow:4" if self.objective == "auto" else self.objective
            objective = getattr(gbdt, self.adapter)(spec, random_state=context.random_state, n_jobs=1)
        model = getattr(module, self.ranker if within else self.estimator)
        wrapper = _QueryRawScores if within else _RawScores
        return wrapper(model(objective=objective, random_state=context.random_state, n_jobs=context.n_jobs,
                             **self.extra))


class LightGBMCandidate(_GBDTCandidate):
    """LightGBM's LGBMClassifier trained on a rankcore objective; with qid, LGBMRanker (needs lightgbm)."""

    name = "lightgbm"
    package, estimator, adapter, extra = "lightgbm", "LGBMClassifier", "lightgbm_objective", {"verbose": -1}
    ranker, native = "LGBMRanker", "lambdarank"
    # LightGBM reads a CSR matrix's absent entries as zeros, as the dense matrix
    accepts_sparse = True


class XGBoostCandidate(_GBDTCandidate):
    """XGBoost's XGBClassifier trained on a rankcore objective; with qid, XGBRanker (needs xgboost)."""

    name = "xgboost"
    package, estimator, adapter = "xgboost", "XGBClassifier", "xgboost_objective"
    ranker, native = "XGBRanker", "rank:ndcg"
    # not accepts_sparse: XGBoost reads a CSR matrix's absent entries as missing values, not as the zeros they are

    def _library_skip_reason(self, context: CandidateContext, objective: Any) -> str | None:
        if context.n_queries is None:
            return None
        if objective is not None:
            return "XGBRanker takes no custom objective: within queries only objective=auto (its rank:ndcg)"
        if context.weighted:
            return f"{NO_SAMPLE_WEIGHT} within queries (XGBRanker takes one weight per query, AutoRanker one per row)"
        return None


#: Weights beyond this range (either way) lose their meaning in LightGBM's and XGBoost's float32: they are rescaled.
FLOAT32_SAFE = 1e30


def float32_weights(weights):
    """``weights`` as LightGBM and XGBoost can hold them: divided by the largest when it or the smallest positive one
    lies outside [1/FLOAT32_SAFE, FLOAT32_SAFE] (float32 would make them inf or 0), else as given (their leaves'
    minimum Hessian sums are on the weights' scale, so weights in range are left alone)."""
    if weights is None:
        return None
    weights = np.asarray(weights, dtype=np.float64)
    top = float(weights.max())
    positive = weights[weights > 0]
    if top > FLOAT32_SAFE or float(positive.min()) < 1.0 / FLOAT32_SAFE:
        return weights / top
    return weights


class _RawScores:
    """A classifier fitted on a custom objective, scored by its raw margin (what the objective ranks by)."""

    def __init__(self, model):
        self.model = model

    @property
    def accepts_sparse(self) -> bool:
        """LightGBM reads a CSR matrix's absent entries as zeros; XGBoost as missing values (dense rows only)."""
        return type(self.model).__module__.startswith("lightgbm")

    def fit(self, X, y, sample_weight=None, init_score=None):
        """Fit the classifier; ``init_score``: each row's initial score, LightGBM's ``init_score`` and XGBoost's
        ``base_margin`` (the boosting starts there; the margin scored afterwards is the trees' alone)."""
        # the rankcore.gbdt objective gets the weights from the library (docs/gbdt.md)
        extra = {}
        if init_score is not None:
            xgb = type(self.model).__module__.startswith("xgboost")
            extra = {"base_margin" if xgb else "init_score": np.asarray(init_score, dtype=np.float64)}
        self.model.fit(X, y, sample_weight=float32_weights(sample_weight), **extra)
        return self

    def decision_function(self, X):
        try:
            return self.model.predict(X, raw_score=True)          # LightGBM
        except TypeError:
            return self.model.predict(X, output_margin=True)      # XGBoost

    def _checked_decision_function(self, X: np.ndarray) -> np.ndarray:
        """:meth:`decision_function` of rows AutoRanker checked (see
        :func:`~rankcore.auto._candidate.candidate_scores`): LightGBM's booster scores them as the scikit-learn
        wrapper's ``predict`` would, whose checks and parameters rebuilt from ``get_params`` on every call are most
        of a one-row call.  XGBoost's model, and rows of another width (the wrapper's refusal), the public way."""
        model = self.model
        if not type(model).__module__.startswith("lightgbm") or X.shape[1] != getattr(model, "n_features_in_", -1):
            return self.decision_function(X)
        booster = model.booster_
        # the wrapper's own count for its n_jobs, but one thread for a few rows: the scores do not depend on it
        threads = threads_for_work(model.n_jobs, X.shape[0] * booster.num_trees(), SERIAL_VISITS)
        return booster.predict(X, raw_score=True, num_threads=threads)

    def _checked_takes_nan(self) -> bool:
        """Rows with NaN take :meth:`_checked_decision_function`: both libraries read NaN as a missing value."""
        return True

    def feature_contributions(self, X, background=None, groups=None):
        """The library's exact TreeSHAP values of the raw margin: (n, d + 1), the expected margin last.

        LightGBM's ``predict(X, pred_contrib=True)`` (float64) and XGBoost's
        ``pred_contribs=True`` (float32: rows sum to the margin up to float32
        rounding), each row summing to :meth:`decision_function`.  Both are
        path-dependent: a ``background`` (interventional values, of ``groups``
        of columns or not) is refused with a ``TypeError``.
        """
        if background is not None or groups is not None:
            raise TypeError("LightGBM and XGBoost compute path-dependent TreeSHAP values only (pred_contrib), not "
                            "interventional ones against background rows")
        if hasattr(self.model, "get_booster"):                    # XGBoost
            import xgboost

            matrix = xgboost.DMatrix(np.asarray(X, dtype=np.float64), missing=np.nan)
            values = self.model.get_booster().predict(matrix, pred_contribs=True)
        else:                                                      # LightGBM
            values = self.model.predict(X, pred_contrib=True)
            if hasattr(values, "toarray"):                         # (sparse X: a sparse matrix of values)
                values = values.toarray()
        return np.asarray(values, dtype=np.float64)

    def feature_interactions(self, X, max_bytes=None, background=None, groups=None):
        """XGBoost's exact SHAP interaction values of the raw margin (``pred_interactions=True``, float32): (n, d +
        1, d + 1), the expected margin at (d, d).  LightGBM has none: a ``TypeError``; nor interventional ones
        against a ``background`` (of ``groups`` of columns or not): a ``TypeError`` too."""
        if not hasattr(self.model, "get_booster"):
            raise TypeError("LightGBM computes no SHAP interaction values (only pred_contrib)")
        if background is not None or groups is not None:
            raise TypeError("XGBoost computes path-dependent SHAP interaction values only (pred_interactions), not "
                            "interventional ones against background rows")
        import xgboost

        matrix = xgboost.DMatrix(np.asarray(X, dtype=np.float64), missing=np.nan)
        return np.asarray(self.model.get_booster().predict(matrix, pred_interactions=True), dtype=np.float64)


#: The grades LGBMRanker reads (its default label_gain, 2**g - 1 for g = 0..30), with any objective: its NDCG reads
#: the labels too.
LIGHTGBM_GRADES = 31


def _check_lightgbm_grades(y: np.ndarray) -> None:
    """Refuse grades LGBMRanker cannot read (not whole, or above 30) with what to do, instead of LightGBM's own
    fatal "Label 40 is not less than the number of label mappings (31)"."""
    bad = np.flatnonzero((y != np.floor(y)) | (y >= LIGHTGBM_GRADES))
    if bad.size:
        raise ValueError(f"y: LGBMRanker reads whole grades 0..{LIGHTGBM_GRADES - 1} (LightGBM's label_gain), got "
                         f"{y[bad[0]]:g}: map the grades into 0..{LIGHTGBM_GRADES - 1}, or use the candidate 'trees' "
                         "(rankcore's per-query push reads any grade)")


class _QueryRawScores(_RawScores):
    """A library's ranker (LGBMRanker, XGBRanker) fitted within queries, scored by its raw margin."""

    def fit(self, X, y, qid, sample_weight=None, init_score=None):
        """Fit the ranker on the rows sorted by query (both libraries read a query as consecutive rows): LightGBM
        gets the queries' sizes (``group``), XGBoost each row's query (``qid``); the weights and ``init_score``
        (LightGBM's ``init_score``, XGBoost's ``base_margin``) follow their rows."""
        codes = np.unique(np.asarray(qid), return_inverse=True)[1].ravel()
        order = np.argsort(codes, kind="stable")
        rows = slice(None) if np.array_equal(order, np.arange(codes.shape[0])) else order
        xgb = type(self.model).__module__.startswith("xgboost")
        if not xgb:
            _check_lightgbm_grades(np.asarray(y, dtype=np.float64))
        extra = {"qid": codes[rows]} if xgb else {"group": np.bincount(codes)}
        if init_score is not None:
            extra["base_margin" if xgb else "init_score"] = np.asarray(init_score, dtype=np.float64)[rows]
        weights = None if sample_weight is None else float32_weights(np.asarray(sample_weight)[rows])
        self.model.fit(X[rows], np.asarray(y)[rows], sample_weight=weights, **extra)
        return self


BUILTIN_CANDIDATES = [TreesCandidate, LinearCandidate, StumpsCandidate, KernelCandidate, ExactBoostCandidate,
                      LightGBMCandidate, XGBoostCandidate]
