"""The :class:`Candidate` base class: one configured learner AutoRanker may choose.

A candidate is a registered component (family ``"candidate"``, hook
``rankcore_register_auto_candidates``) that builds an unfitted estimator for
the data at hand and says, by declared attributes, when it applies: whether
it accepts missing values, up to how many rows it is worth fitting, how
expensive it is compared with the default trees, and whether it belongs to
the default search.  AutoRanker reads these declarations; it never asks
which class a candidate is.
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._caller import module_of_file
from .._numbers import all_finite
from ..spec import Component, SpecError, parse_spec

__all__ = ["Candidate", "CandidateContext", "build_estimator", "fit_estimator", "warnings_named_by",
           "candidate_scores", "registered_candidates", "NO_SAMPLE_WEIGHT", "NO_INIT_SCORE", "NO_POSITION",
           "fit_takes_sample_weight", "fit_takes", "NO_SPARSE"]

#: The skip reason of a candidate whose estimator takes no ``sample_weight``, on a weighted fit.
NO_SAMPLE_WEIGHT = "takes no sample_weight"
#: The skip reason of a candidate whose estimator takes no ``init_score``, on a fit from initial scores.
NO_INIT_SCORE = "takes no init_score"
#: The skip reason of a candidate whose estimator takes no ``position``, on a fit with display positions.
NO_POSITION = "takes no position"
#: The skip reason of a candidate whose estimator reads no scipy.sparse X, on a fit with sparse X.
NO_SPARSE = "reads no sparse input (X is a scipy.sparse matrix)"


@dataclass(frozen=True)
class CandidateContext:
    """What a candidate knows when it builds an estimator for one fit.

    Attributes
    ----------
    metric : str
        The spec of the metric AutoRanker selects on (``"pauc:0.1"``).
    target_metric : Metric or None
        That metric itself, resolved, when AutoRanker holds it (always, in
        its fits): a candidate that builds on the metric reads it here, since
        a metric object given to ``AutoRanker(metric=...)`` need not be
        registered, and then its spec does not resolve.  None: resolve
        ``metric``.
    n_rows, n_features, n_positive : int
        Shape of the rows this fit trains on (a fold's training part, or
        every row for the final refit).
    has_missing : bool
        X holds NaN somewhere.
    random_state : int
        The seed of this fit (every fit of one AutoRanker gets its own).
    n_jobs : int
        Threads the estimator may use.
    validated_rows : int or None
        For the final refit on every row: the training rows of the fits the
        choice was validated on (a fold's training part), so that a
        candidate whose settings depend on the number of rows can refit as
        it was validated.  None for a fold's fit.
    categorical : tuple of (int, int)
        (column, number of categories) of each column that holds a pandas
        ``category`` column's positions (0, 1, ...; NaN missing): a
        candidate that splits by groups of categories may do so there;
        the others see numbers.
    n_queries : int or None
        The fit ranks within this many queries (``fit(..., qid=...)``: y
        holds relevance grades, and the estimator is fitted with each row's
        query); None: one list of two classes.
    weighted : bool
        The fit has ``sample_weight``: the estimator is fitted with each
        training row's weight (``fit(X, y, sample_weight=w)``).  A candidate
        whose estimator takes no weights is skipped
        (:meth:`Candidate.takes_sample_weight`).
    init_score : bool
        The fit starts from initial scores (``fit(..., init_score=s)``):
        the estimator is fitted with each training row's initial score and
        its scores are added to them; a candidate whose estimator takes none
        is skipped (:meth:`Candidate.takes_init_score`).
    position : bool
        The fit has display positions (``fit(..., qid=q, position=p)``): the
        estimator is fitted with each training row's position; a candidate
        whose estimator takes none is skipped.
    sparse : bool
        X is a scipy.sparse matrix (CSR): the estimator is fitted and scored
        on CSR rows; a candidate that does not declare ``accepts_sparse`` is
        skipped.
    """

    metric: str
    n_rows: int
    n_features: int
    n_positive: int
    has_missing: bool
    random_state: int
    n_jobs: int = 1
    validated_rows: int | None = None
    categorical: tuple[tuple[int, int], ...] = ()
    n_queries: int | None = None
    weighted: bool = False
    init_score: bool = False
    position: bool = False
    sparse: bool = False
    target_metric: Any = None

    def resolved_metric(self) -> Any:
        """The metric AutoRanker selects on, resolved: :attr:`target_metric`, else ``metric``'s spec resolved."""
        if self.target_metric is not None:
            return self.target_metric
        from ..registry import resolve

        return resolve("metric", self.metric)


class Candidate(Component):
    """Base class of AutoRanker's candidates (the ``candidate`` plugin family).

    Subclass it, set ``name`` (and optionally the declarations below), and
    implement :meth:`build`; register the class with the
    ``rankcore_register_auto_candidates`` hook.  On a weighted fit
    (``context.weighted``) the estimator gets ``fit(X, y, sample_weight=w)``;
    a candidate whose estimator takes no weights
    (:meth:`takes_sample_weight`) is skipped.  So are ``init_score`` and
    ``position`` (:meth:`takes_init_score`, :meth:`takes_position`).

    Attributes
    ----------
    default_specs : tuple of str or None
        The configurations of this class in ``AutoRanker(candidates="auto")``
        (spec strings).  None, the default: the bare name, so that an
        installed plugin's candidate joins the default search; ``()``: only
        on request.
    small_data_specs : tuple of str
        The configurations of this class in the *small-data blend*: on data
        of at most :data:`~rankcore.auto.SMALL_DATA_ROWS` rows the default
        search fits only these (of every registered class) and keeps the
        rank average of those that apply (``docs/auto.md``, *Small data: a
        fixed blend*).  Default ``()``: not a member.
    accepts_missing : bool
        The estimator accepts NaN in X.  Otherwise, when X has missing
        values, AutoRanker fits it behind a
        :class:`~rankcore.auto.MissingValueImputer` (each column's training
        median, and a 0/1 indicator per column that had missing values) --
        unless ``impute_missing`` is False, when the candidate is skipped
        (with that reason in the leaderboard).
    impute_missing : bool
        Fit the candidate behind the imputer on data with missing values
        (default True; irrelevant when ``accepts_missing``).
    max_rows, max_features : int or None
        Skipped on data with more training rows, or more features (too slow
        to be worth it there).
    relative_cost : float
        Rough fit time relative to the default trees on the same rows; the
        search orders work and plans a time budget with it until it has
        measured the candidate itself.
    priority : int
        Order of evaluation (lower first); ties by name.
    savable : bool
        Its fitted estimator can be saved by :func:`rankcore.save_model`
        (possibly behind a standard scaler, see :meth:`build`).
    ranks_within_queries : bool
        Its estimator's ``fit(X, y, qid=qid)`` ranks within queries (relevance
        grades, each query its own list).  Otherwise the candidate is
        skipped when AutoRanker is fitted with ``qid``.
    accepts_sparse : bool
        Its estimator (and the imputer in front of it, which keeps sparse
        input sparse) fits and scores a scipy.sparse CSR matrix as it is,
        with absent entries read as zeros, as the dense matrix would be.
        Otherwise the candidate is skipped when AutoRanker is fitted on
        sparse X (no dense copy is made: see ``docs/auto_fit_inputs.md``).
    """

    family: ClassVar[str] = "candidate"
    default_specs: ClassVar[tuple[str, ...] | None] = None
    small_data_specs: ClassVar[tuple[str, ...]] = ()
    accepts_missing: ClassVar[bool] = False
    impute_missing: ClassVar[bool] = True
    max_rows: ClassVar[int | None] = None
    max_features: ClassVar[int | None] = None
    relative_cost: ClassVar[float] = 1.0
    priority: ClassVar[int] = 100
    savable: ClassVar[bool] = True
    ranks_within_queries: ClassVar[bool] = False
    accepts_sparse: ClassVar[bool] = False

    @property
    def spec(self) -> str:
        """``"trees:max_leaves=8,subsample=1"``: the name and every parameter that differs from its default, by name.

        A candidate resolved for a fit's columns (:meth:`shown_as`) is shown
        by the spec it was asked by; :attr:`task_spec` is its own.
        """
        shown = self.__dict__.get("_shown_spec")
        return self.task_spec if shown is None else shown

    @property
    def task_spec(self) -> str:
        """The spec of the parameters as they are: what a search task resolves the candidate by (on a worker too)."""
        return self.named_spec

    def shown_as(self, spec: str) -> "Candidate":
        """This candidate, shown (leaderboard, ``best_candidate_``...) by ``spec``: the spec it was asked by, of
        which this one is the resolution for the fit's columns (say, columns given by name as their indices)."""
        self.__dict__["_shown_spec"] = str(spec)
        return self

    def with_column_names(self, feature_names: Any) -> "Candidate":
        """This candidate with the columns of X its parameters give by name resolved to their indices among
        ``feature_names`` (the fit's ``feature_names_in_``; None: X without column names), for a fit that trains
        on arrays; ``self`` when it names none (the default).  AutoRanker calls it before any fit; a name it cannot
        resolve is a ValueError naming ``candidates``."""
        return self

    def named_warning(self, message: str) -> str:
        """``message``, the text of a warning of this candidate's fit, naming X's columns by name where the fit
        (on arrays) named them by index; as given by default (and for a candidate not made by
        :meth:`with_column_names`)."""
        return message

    @classmethod
    def declaration_problem(cls) -> str | None:
        """Declarations the search could not use (see :class:`~rankcore.spec.Component`): specs that are not this
        class's, a cost or priority that is not a finite number, flags that are not bools."""
        for attr in ("default_specs", "small_data_specs"):
            specs = getattr(cls, attr)
            if (specs is None and attr == "default_specs") or cls._per_instance(attr):
                continue
            if isinstance(specs, str) or not isinstance(specs, (tuple, list)):
                return f"{cls.__name__}.{attr} must be a tuple of spec strings, got {specs!r}"
            for spec in specs:
                try:
                    name, args, kwargs = parse_spec(spec) if isinstance(spec, str) else (None, [], {})
                    if name not in (cls.name, *cls.aliases):
                        return f"{cls.__name__}.{attr}: {spec!r} is not a spec of {cls.name!r}"
                    cls.from_spec_args(args, kwargs, spec=spec)
                except SpecError as exc:
                    return f"{cls.__name__}.{attr}: {exc}"
        for attr, low in (("relative_cost", 0.0), ("priority", -math.inf)):
            value = getattr(cls, attr)
            if cls._per_instance(attr):
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
                    or value <= low:
                what = "a finite number > 0" if low == 0.0 else "a finite number"
                return f"{cls.__name__}.{attr} must be {what}, got {value!r}"
        for attr in ("max_rows", "max_features"):
            value = getattr(cls, attr)
            whole = isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer()
            if value is not None and not cls._per_instance(attr) and not (whole and value >= 1):
                return f"{cls.__name__}.{attr} must be None or a whole number >= 1, got {value!r}"
        return cls._flags_problem(("accepts_missing", "impute_missing", "savable", "ranks_within_queries",
                                    "accepts_sparse"))

    @classmethod
    def default_search_specs(cls) -> tuple[str, ...]:
        """The specs this class adds to the default search."""
        return (cls.name,) if cls.default_specs is None else tuple(cls.default_specs)

    def skip_reason(self, context: CandidateContext) -> str | None:
        """Why this candidate does not apply to the data (None: it applies)."""
        if context.n_queries is not None and not self.ranks_within_queries:
            return "ranks one list: it cannot fit within queries"
        if context.sparse and not self.accepts_sparse:
            return NO_SPARSE
        if context.has_missing and not (self.accepts_missing or self.impute_missing):
            return "X has missing values, which it does not accept"
        if self.max_rows is not None and context.n_rows > self.max_rows:
            return f"more than {self.max_rows} training rows"
        if self.max_features is not None and context.n_features > self.max_features:
            return f"more than {self.max_features} features"
        if context.weighted and not self.takes_sample_weight(context):
            return NO_SAMPLE_WEIGHT
        if context.init_score and not self.takes_init_score(context):
            return NO_INIT_SCORE
        if context.position and not self.takes_position(context):
            return NO_POSITION
        return None

    def takes_sample_weight(self, context: CandidateContext) -> bool:
        """Whether the estimator :meth:`build` gives takes ``fit(X, y, sample_weight=w)``.

        Read from the built estimator's ``fit`` signature (of a
        scikit-learn ``Pipeline``'s last step, which gets the weights): a
        parameter named ``sample_weight``.  Override it when the signature
        does not say (a ``fit(X, y, **kwargs)``); AutoRanker asks only on a
        weighted fit.
        """
        return fit_takes_sample_weight(self.build(context))

    def takes_init_score(self, context: CandidateContext) -> bool:
        """Whether the built estimator takes ``fit(..., init_score=s)`` (read from its ``fit`` signature, as
        :meth:`takes_sample_weight`): it learns a correction to ``s`` and scores without it.  AutoRanker asks only
        on a fit from initial scores."""
        return fit_takes(self.build(context), "init_score")

    def takes_position(self, context: CandidateContext) -> bool:
        """Whether the built estimator takes ``fit(..., qid=q, position=p)`` (read from its ``fit`` signature).
        AutoRanker asks only on a fit with display positions."""
        return fit_takes(self.build(context), "position")

    def fit_identity(self, context: CandidateContext) -> Any:
        """A hashable key such that two candidates with equal keys fit the same model on ``context``'s rows.

        AutoRanker skips a candidate whose key equals an earlier one's (say,
        two spellings of one configuration, or a variant that the data's
        size makes the same).  None, the default: never the same as another.
        """
        return None

    def build(self, context: CandidateContext) -> Any:
        """An unfitted estimator with ``fit(X, y)`` (y in {0, 1}) and scores for new rows.

        The estimator gets ``context.random_state`` and ``context.n_jobs``.
        It may be a scikit-learn ``Pipeline`` of a ``StandardScaler`` and a
        rankcore estimator (still savable inside an AutoRanker model).
        """
        raise NotImplementedError(f"candidate {self.name!r} does not implement build()")

    def scores(self, estimator: Any, X: Any) -> np.ndarray:
        """Ranking scores of the fitted ``estimator`` for the rows of X (default: :func:`candidate_scores`)."""
        return candidate_scores(estimator, X)


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def build_estimator(candidate: Candidate, context: CandidateContext, data_has_missing: bool) -> Any:
    """``candidate.build(context)``, behind a :class:`~rankcore.auto.MissingValueImputer` when the data have
    missing values, or category columns (whose unlisted categories are missing values when scored), that the
    candidate's estimator does not accept.

    ``data_has_missing`` is about the whole data, not the rows ``context``
    describes: a fold's training part without NaN may still be scored on
    rows with NaN.
    """
    estimator = candidate.build(context)
    # a category column: a category the fit did not list is scored as a missing value, so a candidate that takes no
    # NaN goes behind the imputer even when no training value is missing (which it then passes through unchanged)
    if (data_has_missing or context.categorical) and not candidate.accepts_missing:
        from ._impute import with_imputer

        return with_imputer(estimator)
    return estimator


def fit_takes_sample_weight(estimator: Any) -> bool:
    """Whether ``estimator.fit`` (a ``Pipeline``'s last step's) has a parameter named ``sample_weight``."""
    return fit_takes(estimator, "sample_weight")


def fit_takes(estimator: Any, name: str) -> bool:
    """Whether ``estimator.fit`` (a ``Pipeline``'s last step's) has a parameter named ``name``."""
    import inspect

    from sklearn.pipeline import Pipeline

    model = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
    try:
        return name in inspect.signature(model.fit).parameters
    except (AttributeError, TypeError, ValueError):     # no fit, or a signature Python cannot read
        return False


def fit_estimator(estimator: Any, X: np.ndarray, y: np.ndarray, qid: np.ndarray | None = None,
                  sample_weight: np.ndarray | None = None, init_score: np.ndarray | None = None,
                  position: np.ndarray | None = None) -> Any:
    """Fit a candidate's estimator (from :func:`build_estimator`) on ``(X, y)``; with ``qid``, within queries.

    ``qid``, ``sample_weight``, ``init_score`` and ``position`` (one value
    per row of X each) go to the estimator's own ``fit``; behind the
    imputer (a scikit-learn ``Pipeline``) to its last step, the model --
    the imputer's medians count every row once.
    """
    given = {name: value for name, value in (("sample_weight", sample_weight), ("qid", qid),
                                             ("init_score", init_score), ("position", position))
             if value is not None}
    if not given:
        return estimator.fit(X, y)
    from sklearn import config_context
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        # the step is named: scikit-learn's metadata routing, when a caller turned it on, would refuse step__name
        with config_context(enable_metadata_routing=False):
            return estimator.fit(X, y, **{f"{estimator.steps[-1][0]}__{name}": v for name, v in given.items()})
    return estimator.fit(X, y, **given)


@contextmanager
def warnings_named_by(candidate: Candidate):
    """Within it, the warnings raised are held and raised again on leaving, each with its text as
    ``candidate.named_warning`` gives it (the fit's place in the caller's code kept): the warnings of a fit on
    arrays naming X's columns as the caller named them (those of a fit that fails are dropped with it)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:        # by its module too, which a user's filterwarnings(module=...) matches
        warnings.warn_explicit(candidate.named_warning(str(w.message)), w.category, w.filename, w.lineno,
                               module=module_of_file(w.filename))


def candidate_scores(estimator: Any, X: Any, *, checked: bool = False, nan: bool = False) -> np.ndarray:
    """Ranking scores of a fitted candidate estimator: ``decision_function``, else P(relevant).

    ``checked``: X holds rows AutoRanker checked and encoded for this model (a C-contiguous float64 array, no
    ±inf): an estimator with a private path for such rows scores them without checking them again.  ``nan``:
    some of those rows hold NaN, which only an estimator that takes missing values scores on that path.
    """
    if checked:
        scores = checked_scores(estimator, X, nan=nan)
        if scores is not None:
            return np.asarray(scores, dtype=np.float64)
    if hasattr(estimator, "decision_function"):
        scores = estimator.decision_function(X)
    else:
        scores = estimator.predict_proba(X)[:, 1]
    return np.asarray(scores, dtype=np.float64)


def checked_rows(X: Any) -> bool:
    """Whether the members may score X as rows AutoRanker checked: a dense, all finite array, and scikit-learn's
    transforms returning arrays (its ``transform_output`` setting would hand a pipeline's model a frame)."""
    # all_finite, not np.isfinite(X).all(): every call (each row AutoRanker scores) would build an n x d mask
    return _dense_rows(X) and all_finite(X)


def nan_rows(X: Any) -> bool:
    """Whether X, not :func:`checked_rows`, would be but for NaN: the rows a member that takes missing values
    scores on the checked path (``nan=True``).  Only such rows pay for the mask telling NaN from ±inf."""
    return _dense_rows(X) and not np.isinf(X).any()


def _dense_rows(X: Any) -> bool:
    from sklearn import get_config

    return (type(X) is np.ndarray and X.dtype == np.float64 and X.flags.c_contiguous
            and get_config().get("transform_output", "default") == "default")


def checked_scores(estimator: Any, X: np.ndarray, *, nan: bool = False) -> np.ndarray | None:
    """The scores of rows AutoRanker checked (see :func:`candidate_scores`) through the estimator's private path,
    ``_checked_decision_function``; None when it has none.

    AutoRanker checks the rows once: each member of a bag or blend checking them again (scikit-learn's checks and
    tags, then its own) would cost most of a one-row call.  A scikit-learn ``Pipeline`` of a ``StandardScaler``
    (whose transform is done here, by the same two operations) or of the missing-value imputer, then such an
    estimator, takes the path too; rows the scaler takes beyond float64 go the public way, to the model's refusal.
    Rows with NaN (``nan``) take it only into an estimator whose ``_checked_takes_nan()`` says it scores them (a
    bag or blend passes ``nan`` on to its members): the others refuse them, or impute them, their public way.
    """
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        for _, step in estimator.steps[:-1]:
            X = _checked_transform(step, X)
            if X is None:
                return None
            nan = nan and not all_finite(X)      # (the imputer's output holds none)
        return checked_scores(estimator.steps[-1][1], X, nan=nan)   # (the imputer's model may be a scaler's pipeline)
    method = getattr(estimator, "_checked_decision_function", None)
    if method is None or X.shape[1] != getattr(estimator, "n_features_in_", X.shape[1]):
        return None             # the public path, and its own refusal of another width
    if getattr(estimator, "_checked_passes_nan", False):
        return method(X, nan=nan)
    takes_nan = getattr(estimator, "_checked_takes_nan", None)
    if nan and (takes_nan is None or not takes_nan()):
        return None
    return method(X)


def _checked_transform(step: Any, X: np.ndarray) -> np.ndarray | None:
    """A fitted pipeline step's transform of checked rows, or None when this path does not know the step."""
    from sklearn.preprocessing import StandardScaler

    from ._impute import MissingValueImputer

    if type(step) is MissingValueImputer:
        return np.ascontiguousarray(step.transform(X), dtype=np.float64)
    if type(step) is not StandardScaler:
        return None
    # scikit-learn's transform: a copy, minus mean_, divided by scale_ (each in place: the same rounding)
    with np.errstate(over="ignore"):
        Z = X - step.mean_ if step.with_mean else X.copy()
        if step.with_std and step.scale_ is not None:
            Z /= step.scale_
    # a finite row scaled beyond float64 (a column of tiny spread), or a NaN row: the public path (the model's own
    # refusal, or its reading of NaN)
    return Z if np.isfinite(Z).all() else None


def registered_candidates(select) -> list[Candidate]:
    """``select(cls)``'s specs of every registered candidate class, by priority (then name), each once, resolved."""
    from ..registry import registry

    # plugin problems are reported by `rankcore plugins`; quiet, not catch_warnings, whose filters other threads share
    reg = registry(quiet=True)
    entries = sorted((reg.entry("candidate", name) for name in reg.names("candidate")),
                     key=lambda e: (e.cls.priority, e.name))
    candidates: dict[str, Candidate] = {}
    for entry in entries:
        for spec in select(entry.cls):
            candidate = reg.resolve("candidate", spec)
            candidates.setdefault(candidate.spec, candidate)
    return list(candidates.values())
