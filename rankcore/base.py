"""The base of every rankcore estimator: parameters and fitted state declared once.

An estimator declares its parameters as :class:`~rankcore.spec.Parameter`
objects (the same declarations the plugin components use) and its fitted state
as :class:`Fitted` records.  From these one declaration :class:`Ranker` derives

* ``__init__``: keyword-only, it only assigns, with a real signature, so
  scikit-learn's ``get_params``, ``set_params`` and ``clone`` work;
* the numpydoc "Parameters" section of the class docstring;
* the validation ``fit`` starts with (:func:`check_parameters`: one rule per
  parameter, errors ``"n_iter: expected an integer >= 1, got 0"``), which the
  model files' parameters go through too when they are loaded;
* the fitted state a model file holds (:meth:`Ranker._get_fitted_state`) and
  the fields a file must have;
* what a fit publishes, in one step, to the estimator other threads see,
  when ``fit`` is decorated with :func:`fits_on_a_copy` (and
  ``decision_function`` with :func:`reads_a_snapshot`), as every built-in is;
* the frozen setup record of the parameters (:meth:`Ranker._setup_record`):
  checked and resolved once per parameter state, what ``fit``, scoring and
  loading a file work from;
* ``training_curve_`` (the objective and validation metric per iteration) and
  the scikit-learn tags, read from the declarations without resolving a spec.

Estimators are a plugin family like the components: a third-party
distribution returns its :class:`Ranker` subclasses from the hook
``rankcore_register_estimators``; they are then saved and loaded by
:func:`rankcore.save_model`/:func:`rankcore.load_model` and fitted by
``rankcore fit --model NAME``.  See ``docs/architecture.md``.
"""

from __future__ import annotations

import inspect
import numbers
import re
import textwrap
import warnings
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Mapping, Sequence

import numpy as np
import sklearn
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags

from ._argument_refusal import ArgumentRefusal, said_again
from ._callbacks import check_callbacks, run_callbacks
from ._caller import outside_stacklevel
from ._peer_names import PEER_METHODS, peer_fitted_hint, peer_method_hint
from ._pickled_versions import check_stamp, stamped
from ._state_fields import checked_relevant_label, relevant_label_to_state
from ._threadsafe import fits_on_a_copy, reads_a_snapshot
from .spec import REQUIRED, Component, Kind, Parameter, ParameterError, show_value

__all__ = [
    "Ranker",
    "Fitted",
    "TrainingCurve",
    "IterationInfo",
    "CheckedParams",
    "check_parameters",
    "check_callbacks",
    "check_eval_set",
    "refuse_queries",
    "run_callbacks",
    "fits_on_a_copy",
    "reads_a_snapshot",
    "resolve_parameter",
    "declared_attribute",
    "spec_kind",
    "random_state_kind",
    "N_JOBS",
]


# --------------------------------------------------------------------------
# Kinds of estimator parameters beyond int, float, bool and str
# --------------------------------------------------------------------------

_SPEC_EXAMPLES = {"loss": "exp", "price": "pow:4", "learner": "stumps", "objective": "push:exp,pow:4",
                  "metric": "auc", "kernel": "rbf", "filter": "tikhonov"}


def spec_kind(family: str, *, also: str = "", accept: Callable[[Any], bool] | None = None) -> Kind:
    """A spec string of ``family`` (``"pow:16"``) or a configured component; resolved at ``fit``.

    ``also`` names more accepted values (``"None"``); ``accept(value)`` says
    whether a value that is neither is accepted too (a callable kernel...).
    """
    example = _SPEC_EXAMPLES.get(family, family)

    def check(value: Any) -> Any:
        if isinstance(value, (str, Component)) or (accept is not None and accept(value)):
            return value
        raise TypeError(f"got {type(value).__name__}")

    words = f"a {family} spec string such as {example!r} or a rankcore component" + (f", {also}" if also else "")
    return Kind(words, check, type_doc=f"str or {family.capitalize()}", shows_type=True)


def random_state_kind(*, generator: bool = True, legacy: bool = True) -> Kind:
    """``random_state``: None, a seed >= 0, and (if allowed) a numpy ``RandomState`` / ``Generator``."""
    from .validation import check_random_state_param

    names = " or ".join(n for n, ok in (("RandomState", legacy), ("Generator", generator)) if ok)

    def check(value: Any) -> Any:
        return check_random_state_param(value, generator=generator, legacy=legacy)

    return Kind(f"None, an integer in [0, 2**32 - 1] or a numpy {names}", check, type_doc=f"int, {names} or None")


def _check_n_jobs(value: Any) -> Any:
    if value is None or (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                         and value != 0):
        return value
    raise ValueError("not a thread count")


#: ``n_jobs``: None or -1 (every core), a positive count, or -2 (all but one) and below.
N_JOBS = Kind("None, a positive integer or a negative integer (-1 = all cores)", _check_n_jobs,
              type_doc="int or None")


def resolve_parameter(name: str, family: str, value: Any):
    """Resolve a spec parameter through the registry; errors name the parameter the user set.

    ``resolve_parameter("price", "price", "pwo:16")`` raises
    ``"price='pwo:16': unknown price 'pwo'; did you mean 'pow'? ..."``.
    """
    from .registry import resolve

    try:
        return resolve(family, value)
    except (TypeError, ValueError) as exc:
        text = str(exc)
        if not text.startswith(f"{name}"):
            text = f"{name}={_spec_repr(value)}: {text}"
        if isinstance(exc, ArgumentRefusal):        # a learner's monotone value holding no sign: class and fields kept
            raise said_again(exc, text) from None
        raise type(exc)(text) if _rebuildable(exc) else ParameterError(text) from None


def declared_attribute(family: str, value: Any, attribute: str, default: Any) -> Any:
    """A class attribute (a declaration) of the component ``value`` names, read without configuring it.

    ``declared_attribute("learner", "trees:max_leaves=8", "allow_nan", False)``
    looks the class ``trees`` up in the registry and reads ``allow_nan``;
    ``default`` when ``value`` names no registered component (the error is
    the fit's to raise).
    """
    if isinstance(value, Component):
        return getattr(value, attribute, default)
    if not isinstance(value, str):
        return default
    from .registry import registry

    return registry().declared(family, value, attribute, default)


def _spec_repr(value: Any) -> str:
    return repr(value.spec) if isinstance(value, Component) else show_value(value)


def _rebuildable(exc: BaseException) -> bool:
    try:
        type(exc)("probe")
        return True
    except Exception:  # an exception class with another constructor
        return False


# --------------------------------------------------------------------------
# Checked parameters: the frozen record a fit works from
# --------------------------------------------------------------------------


class CheckedParams(Mapping):
    """The checked values of an estimator's parameters, read-only: ``params.n_iter`` or ``params["n_iter"]``."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):          # copy/pickle probes, before _values exists
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __reduce__(self):
        return (CheckedParams, (self._values,))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("checked parameters are read-only")

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"CheckedParams({self._values!r})"


def check_parameters(parameters: Sequence[Parameter], values: Mapping[str, Any]) -> CheckedParams:
    """Check every declared parameter (in declaration order); the one validation of estimator parameters.

    Raises
    ------
    ParameterError
        For the first parameter that is of the wrong type or out of range:
        ``"<name>: expected <what it accepts>, got <value>"``.
    """
    return CheckedParams({p.name: p.check(values[p.name]) for p in parameters})


# --------------------------------------------------------------------------
# Iterations: callbacks, validation data and the training curve
# --------------------------------------------------------------------------


def refuse_queries(owner: str, qid: Any, group: Any) -> None:
    """Refuse ``qid``/``group`` in the ``fit`` of an estimator that ranks one list (a ValueError naming it)."""
    if qid is not None or group is not None:
        given = "qid" if qid is not None else "group"
        raise ValueError(f"{owner} ranks one list; it cannot fit within queries ({given}); use "
                         "rankcore.boost(...), whose push estimators fit within queries")


def ignore_score_weights(sample_weight: Any, estimator: Any) -> None:
    """``score(..., sample_weight=...)``: the parameter is there for scikit-learn's ``Pipeline.score``, which passes
    ``sample_weight=None`` (with metadata routing on, a final step without the parameter fails every pipeline's
    score), and for its searches, which with routing off pass ``fit``'s weights on to ``score``.  The ranking
    metrics count every row once: a weight is ignored, with a warning (raising would fail every fold of a weighted
    ``GridSearchCV``, which then keeps its first candidate)."""
    if sample_weight is not None:
        warnings.warn(f"sample_weight: {type(estimator).__name__}.score counts every row once (its ranking metric "
                      "takes no weights): the weights are ignored; with scikit-learn's metadata routing, "
                      "set_score_request(sample_weight=False) keeps them out", UserWarning,
                      stacklevel=outside_stacklevel())      # score is decorated: no fixed count reaches the caller


def require_score_queries(qid: Any, estimator: Any, group: Any = None) -> None:
    """``score`` of a model fitted within queries needs ``qid`` (or ``group``): without it every row would be ranked
    as one list.

    scikit-learn's model selection calls ``score(X, y)`` when its metadata routing is off (the default), even when
    ``fit`` was given ``qid``; a pooled score there would choose hyper-parameters on a number that means nothing.
    With routing on, ``score(X, y)`` comes from a caller that routes nothing to ``score`` (``FrozenEstimator``,
    scikit-learn's ``permutation_importance``): turning routing on, the advice for the first case, would not help
    there, so the message says what does.
    """
    if qid is not None or group is not None:
        return
    start = (f"qid: this {type(estimator).__name__} was fitted within queries, so score(X, y) needs the query of "
             "each row: score(X, y, qid=qid) or score(X, y, group=sizes) (qid=np.zeros(len(y)) scores the rows as "
             "one query). ")
    if sklearn.get_config().get("enable_metadata_routing", False):
        raise ValueError(start + "scikit-learn's metadata routing is on, yet no qid reached score: the caller routes "
                         "none to it (FrozenEstimator, sklearn.inspection.permutation_importance); score with "
                         "scoring=rankcore.metrics.make_query_scorer(...), which requests qid itself, or use "
                         "rankcore.permutation_importance(model, X, y, qid=qid)")
    raise ValueError(start + "In scikit-learn's model selection turn on metadata routing "
                     "(sklearn.set_config(enable_metadata_routing=True)), which passes each fold's qid to score; "
                     "sklearn.inspection.permutation_importance never passes qid: use "
                     "rankcore.permutation_importance(model, X, y, qid=qid)")


def check_eval_set(eval_set: Any, classes: np.ndarray, n_features: int, *, accept_sparse: bool = False,
                   feature_names: Any = None, owner: str = "this estimator"):
    """``fit(..., eval_set=(X_val, y_val))`` of a two-class estimator that validates on one set: the matrix and
    0/1 labels.

    The labels must be among the training ``classes`` (``classes[1]`` relevant); a frame's columns must be the
    fit's ``feature_names`` in order.  A list of one pair is that pair; a list of several is refused, naming
    ``owner`` (:func:`rankcore.validation.single_eval_set`).
    """
    from .validation import check_eval_columns, check_matrix, single_eval_set

    eval_set = single_eval_set(eval_set, owner=owner)
    if not (isinstance(eval_set, (tuple, list)) and len(eval_set) == 2):
        raise ValueError("eval_set: expected a pair (X_val, y_val)")
    check_eval_columns(eval_set[0], feature_names)
    X_val = check_matrix(eval_set[0], name="eval_set X", accept_sparse=accept_sparse)
    if X_val.shape[1] != n_features:
        raise ValueError(f"eval_set X: expected {n_features} features (as X), got {X_val.shape[1]}")
    y_arr = np.asarray(eval_set[1])
    if y_arr.ndim != 1 or y_arr.shape[0] != X_val.shape[0] or not np.isin(y_arr, classes).all():
        raise ValueError(f"eval_set y: expected {X_val.shape[0]} labels among the training classes "
                         f"{np.asarray(classes).tolist()!r}")
    return X_val, (y_arr == classes[1]).astype(np.int8)


@dataclass(frozen=True)
class IterationInfo:
    """What a ``callbacks=`` function of an iterative estimator's ``fit`` receives after each iteration.

    Attributes
    ----------
    iteration : int
        1-based number of the iteration just completed (a boosting step, an
        epoch, a round: the estimator's ``training_curve_.unit``).
    n_iter : int
        The planned number of iterations (the fit may stop earlier).
    objective : float
        The training objective after this iteration (``training_curve_.objective``).
    alpha : float or None
        Boosting: the step taken along the chosen weak ranker.
    ranker : object or None
        Boosting: the weak ranker chosen at this iteration.
    validation_score : float or None
        The validation metric after this iteration; None when nothing is monitored.
    elapsed : float
        Seconds since the fit started iterating.
    """

    iteration: int
    n_iter: int
    objective: float
    alpha: float | None = None
    ranker: Any = None
    validation_score: float | None = None
    elapsed: float = 0.0


@dataclass(frozen=True)
class TrainingCurve:
    """An iterative estimator's training objective and validation metric per iteration.

    Attributes
    ----------
    iterations : ndarray of int64
        The iteration numbers (0 is the start, where the estimator records it).
    objective : ndarray of float64
        The training objective at each of them.
    validation : ndarray of float64 or None
        The validation metric at each of them (NaN where it was not
        measured); None when the fit monitored no validation data.
    objective_name : str
        What ``objective`` is (``"objective J (log R)"``), for plots.
    validation_name : str or None
        The validation metric's spec.
    unit : str
        What an iteration is: ``"iteration"``, ``"round"``, ``"epoch"``.
    """

    iterations: np.ndarray
    objective: np.ndarray
    validation: np.ndarray | None = None
    objective_name: str = "training objective"
    validation_name: str | None = None
    unit: str = "iteration"


# --------------------------------------------------------------------------
# Fitted state
# --------------------------------------------------------------------------

_MISSING = object()


@dataclass(frozen=True)
class Fitted:
    """One declared attribute of an estimator's fitted state.

    Parameters
    ----------
    name : str
        The attribute (``"alphas_"``; private ones such as ``"_table"`` are
        published by a fit but never saved).
    key : str or None
        Its field in a model file's ``state``; None: not saved (rebuilt on load).
    dump : callable, optional
        ``dump(value) -> JSON-ready value`` for the file (default: the value).
    optional : bool
        The attribute may be absent (``feature_names_in_`` without column
        names, ``validation_scores_`` without validation data); then its
        field is left out of the file too.
    default : object, optional
        The value saved when the attribute is absent (the field is then
        always in the file, e.g. ``None``).
    """

    name: str
    key: str | None = None
    dump: Callable[[Any], Any] | None = None
    optional: bool = False
    default: Any = _MISSING


def float64_array(value: Any) -> np.ndarray:
    return np.ascontiguousarray(value, dtype=np.float64)


def int64_array(value: Any) -> np.ndarray:
    return np.ascontiguousarray(value, dtype=np.int64)


def string_list(value: Any) -> list[str]:
    return [str(v) for v in value]


#: The fitted attributes every estimator has: those scikit-learn's ``validate_data`` sets, the setup record a
#: fit worked from (:meth:`Ranker._setup_record`; each fit starts without one) and the relevant label.
COMMON_FITTED = (Fitted("n_features_in_"), Fitted("feature_names_in_", optional=True), Fitted("_setup_cache"),
                 # the data file's label a one-list model of the command line ranks first (``--positive``): set after
                 # the fit, saved and checked by the base class for every estimator (``_LABEL_KEY``)
                 Fitted("relevant_label_", optional=True),
                 # and the file's other label (fitted as 0), where it had two: ``evaluate`` refuses a file of a third
                 Fitted("other_label_", optional=True))


# --------------------------------------------------------------------------
# The base class
# --------------------------------------------------------------------------

_SECTION = re.compile(r"^([ \t]*)(Attributes|Notes|Examples|See Also|References|Methods)[ \t]*\n[ \t]*-{3,}",
                      re.M)


class NoTextForm(TypeError, AttributeError):
    """An estimator's ``spec`` when a parameter has no text form.

    A TypeError (the value's type is the problem) and an AttributeError, so
    that ``hasattr``, ``dir()``, ``inspect.getmembers`` and notebook displays,
    which read every attribute, pass over it instead of failing.
    """


def _class_defines(cls: type, name: str) -> bool:
    """Whether ``cls`` (or a base) defines ``name`` (``__getattr__`` asks it on each missing attribute: once a call).

    The class's own lookup, which the interpreter caches per type and drops when a class changes: no copy of the
    names to go stale when a test sets an attribute on the class, nor to keep a class made at run time alive.
    """
    return hasattr(cls, name)


class Ranker(BaseEstimator):
    """Base of the rankcore estimators (and of third-party ones, registered as plugins).

    A subclass declares:

    ``name`` (and ``aliases``)
        The registered name: the ``estimator`` of a model file.  The
        ``rankcore fit --model`` kind is the first alias (else the name in
        lower case); every alias and the name are accepted there
        (case-insensitive).
    ``parameters``
        A tuple of :class:`~rankcore.spec.Parameter` (with ``doc``): the
        constructor, the docstring's "Parameters" section and the
        validation come from it.
    ``fitted``
        A tuple of :class:`Fitted`: what a fit publishes and a file holds.
    ``iteration_parameter``
        The parameter that sets the number of iterations (``"n_iter"``) of
        an iterative estimator, which then also implements
        :meth:`_training_curve` and accepts ``fit(..., callbacks=...)``.

    and implements ``fit``, ``decision_function`` and, to be saved, the
    hooks :meth:`_check_loaded_params` and :meth:`_restore_fitted_state`.
    With ``fit`` decorated by :func:`fits_on_a_copy` and ``decision_function``
    by :func:`reads_a_snapshot`, an estimator may be refitted in one thread
    while others score with it.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    fitted: ClassVar[tuple[Fitted, ...]] = ()
    iteration_parameter: ClassVar[str | None] = None
    #: Whether ``fit`` takes scipy.sparse matrices (the ``sparse`` input tag).
    accepts_sparse: ClassVar[bool] = False
    #: The parameter that sets the metric a fit's validation data is scored with
    #: (``rankcore fit --monitor`` sets it, with ``eval_set``); None: none.
    monitor_parameter: ClassVar[str | None] = None
    #: One line for listings (``rankcore fit --help``, ``rankcore plugins``); default: the docstring's first line.
    summary: ClassVar[str] = ""
    #: Whether ``rankcore fit --model`` offers it (under its first alias, else its name in lower case).
    command_line: ClassVar[bool] = True
    #: When ``command_line`` is False: how the command line reaches it instead (said when one asks ``--model``).
    command_line_instead: ClassVar[str] = ""
    #: Specs the contract checks of :mod:`rankcore.testing` fit (default: the name, all defaults).
    examples: ClassVar[tuple[str, ...]] = ()
    family: ClassVar[str] = "estimator"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "parameters" in cls.__dict__:
            cls.__init__ = _make_init(cls)
            if cls.__dict__.get("__doc__"):
                cls.__doc__ = _with_parameters_section(cls.__doc__, cls.parameters)
        declared = tuple(COMMON_FITTED) + tuple(cls.fitted)
        cls._fitted_names = frozenset(f.name for f in declared)

    # ------------------------------------------------------------------
    # Parameters
    # ------------------------------------------------------------------
    @classmethod
    def example_specs(cls) -> tuple[str, ...]:
        """The specs to exercise in contract checks (``"ExactBoost:n_runs=3,n_rounds=4"``)."""
        return cls.examples or (cls.name,)

    @classmethod
    def from_spec_args(cls, args: list, kwargs: dict, *, spec: str = "") -> "Ranker":
        """An estimator from a parsed spec: ``"ExactBoost:n_runs=20,metric=auc"`` (keyword arguments only).

        Values are read as Python literals where they are one (``20``,
        ``0.5``, ``True``, ``None``), else kept as text (``auc``); the
        estimator's checks then run as in ``fit``.

        Raises
        ------
        SpecError
            A positional argument, an unknown parameter or a value its check refuses.
        """
        from .spec import SpecError

        shown = spec or cls.name
        if args:
            raise SpecError(f"estimator {shown!r}: give parameters as key=value, got {args[0]!r}")
        known = {p.name for p in cls.parameters}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise SpecError(f"estimator {shown!r}: unknown parameter(s) {', '.join(unknown)}; "
                            f"expected {', '.join(sorted(known)) or 'none'}")
        estimator = cls(**{key: _literal(value) for key, value in kwargs.items()})
        try:
            estimator._check_params()
        except ParameterError as exc:
            raise SpecError(f"estimator {shown!r}: {exc}") from None
        return estimator

    @property
    def spec(self) -> str:
        """``name:key=value,...`` of the parameters set away from their defaults (scalars and text only)."""
        shown = []
        for param in self.parameters:
            value = getattr(self, param.name)
            if _same(value, param.default):
                continue
            if not (value is None or isinstance(value, (bool, int, float, str))):
                raise NoTextForm(f"{type(self).__name__}.spec: {param.name}={show_value(value)} has no text form")
            shown.append(f"{param.name}={value!r}" if isinstance(value, (bool, int, float)) or value is None
                         else f"{param.name}={value}")
        return self.name + (":" + ",".join(shown) if shown else "")

    def _check_params(self) -> CheckedParams:
        """Every declared parameter checked (type and range); the start of ``fit`` and of loading a file."""
        from ._nested_params import refuse_unbuilt

        values = {p.name: getattr(self, p.name) for p in self.parameters}
        refuse_unbuilt(values)          # a component set_params could not build (learner__max_leaves=1)
        return check_parameters(self.parameters, values)

    def _setup(self) -> Any:
        """Check every parameter and resolve every spec: the frozen record a fit works from.

        The default is the checked parameters; an estimator with spec
        parameters returns its own record of resolved components.  Called
        through :meth:`_setup_record`, never directly.
        """
        return self._check_params()

    def _setup_record(self) -> Any:
        """The setup record of the current parameter values, made once per parameter state.

        It is kept with the values it was made from (``_setup_cache``, not a
        parameter: ``get_params`` and ``clone`` never see it); a parameter
        changed since -- by ``set_params`` or by assignment -- makes a new
        one.  A fit starts without it (see :func:`fits_on_a_copy`) and
        publishes the one it made with the model.
        """
        key = _parameter_key(self)
        cached = self.__dict__.get("_setup_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        record = self._setup()
        self.__dict__["_setup_cache"] = (key, record)
        return record

    def get_params(self, deep: bool = True) -> dict:
        """scikit-learn's ``get_params``; with ``deep``, a component object's parameters too
        (``learner__max_leaves``: :mod:`rankcore._nested_params`)."""
        params = super().get_params(deep=deep)
        if deep:
            from ._nested_params import component_params

            params.update(component_params(super().get_params(deep=False)))
        return params

    @classmethod
    def _constructor_hint(cls, name: str) -> str:
        """What follows the constructor's "unexpected keyword argument ``name``" (another library's name for one
        of the parameters, say); nothing unless a family says."""
        return ""

    def set_params(self, **params: Any) -> "Ranker":
        """scikit-learn's ``set_params``; ``learner__max_leaves=15`` rebuilds a component object with that value
        (:mod:`rankcore._nested_params`)."""
        from ._nested_params import with_components_rebuilt

        return super().set_params(**with_components_rebuilt(self, params))

    def __getstate__(self):
        # the setup record is made again on demand: its key holds the parameter objects themselves
        state = dict(super().__getstate__())
        state.pop("_setup_cache", None)
        return stamped(state, type(self))    # scikit-learn records its version for its own classes only

    def __setstate__(self, state):
        super().__setstate__(check_stamp(self, state))

    # ------------------------------------------------------------------
    # Iterations
    # ------------------------------------------------------------------
    @property
    def training_curve_(self) -> TrainingCurve:
        """The training objective and the validation metric per iteration (:class:`TrainingCurve`)."""
        if self.iteration_parameter is None:
            raise AttributeError(f"training_curve_: {type(self).__name__} is not iterative")
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return self._training_curve()

    def _training_curve(self) -> TrainingCurve:
        raise NotImplementedError(f"{type(self).__name__} declares iteration_parameter but no _training_curve")

    def __getattr__(self, name: str) -> Any:
        # Reached only when the normal lookup fails.  LightGBM's, XGBoost's and CatBoost's rankers score with
        # ``predict``; ours are not classifiers (scikit-learn reads ``predict`` as a label), so the name stays
        # missing (``hasattr`` is False) and the error says where the scores are.
        if _class_defines(type(self), name):
            # a property (feature_importances_, ...) raised AttributeError: run it again for its own message
            return object.__getattribute__(self, name)
        if name == "predict":
            raise AttributeError(f"{type(self).__name__} has no predict: a ranker's scores are "
                                 f"decision_function(X) (higher is ranked first; no qid: a row's score does not "
                                 f"depend on its query), and score(X, y) evaluates them", name=name, obj=self)
        if name in ("predict_proba", "predict_log_proba"):
            # LightGBM's and XGBoost's classifiers give probabilities; a ranker's scores are on no such scale
            raise AttributeError(f"{type(self).__name__} has no {name}: a ranker's scores, decision_function(X), "
                                 f"are not probabilities (higher is ranked first); for probabilities, calibrate "
                                 f"them: sklearn.calibration.CalibratedClassifierCV(model)", name=name, obj=self)
        if name in PEER_METHODS:
            raise AttributeError(f"{type(self).__name__} has no {name}: {peer_method_hint(self, name)}", name=name,
                                 obj=self)
        if (hint := peer_fitted_hint(self, name)) is not None:         # LightGBM's habits: when it is recorded
            raise AttributeError(f"{type(self).__name__} has no {name}: {hint}", name=name, obj=self)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self)

    # ------------------------------------------------------------------
    # scikit-learn tags
    # ------------------------------------------------------------------
    def _task(self) -> str:
        """``"bipartite"`` (two labels, the greater ranked first) or ``"graded"`` (real grades), as configured."""
        return "bipartite"

    def _allows_nan(self) -> bool:
        """Whether X may hold NaN (missing values) as configured."""
        return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = bool(self._allows_nan())
        tags.input_tags.sparse = bool(self.accepts_sparse)
        if self._task() == "bipartite":
            # Not a classifier (no predict), but a two-class target: ClassifierTags
            # with multi_class=False makes scikit-learn's checks send two classes.
            tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

    # ------------------------------------------------------------------
    # Persistence (rankcore.persistence: JSON, no pickle)
    # ------------------------------------------------------------------
    def _get_fitted_state(self) -> dict:
        """The declared fitted attributes that a file holds, under their keys."""
        state = {}
        for attr in type(self).fitted:
            if attr.key is None:
                continue
            value = self.__dict__.get(attr.name, attr.default)
            if value is _MISSING or (attr.optional and value is None):
                if attr.optional:
                    continue
                raise AttributeError(f"{type(self).__name__}: fitted attribute {attr.name} is missing")
            state[attr.key] = attr.dump(value) if attr.dump is not None and value is not None else value
        names = self.__dict__.get("feature_names_in_")
        if names is not None and not _declares_names(type(self)):
            # every model keeps the column names it was fitted on, declared or not (a plugin's may not declare
            # them): without them a frame or a CSV file of other columns would be scored by position
            state[_NAMES_KEY] = string_list(names)
        label = self.__dict__.get("relevant_label_")
        if label is not None:
            # every one-list model the command line fits keeps the data file's label it ranks first (``--positive``):
            # ``rankcore evaluate`` and a continuation read the file's labels with it
            state[_LABEL_KEY] = relevant_label_to_state(label)
            other = self.__dict__.get("other_label_")
            if other is not None:
                state[_OTHER_LABEL_KEY] = relevant_label_to_state(other)
        return state

    def _set_fitted_state(self, state: dict) -> None:
        """Check the parameters as ``fit`` does, then the file's fields, then restore (and check) the state."""
        from .persistence import ModelFormatError

        try:
            setup = self._check_loaded_params(state)
        except ModelFormatError:
            raise
        except (TypeError, ValueError) as exc:
            from .registry import UnknownComponentError

            # a file fitted with a plugin's component, loaded where that plugin is not installed
            hint = ("; the model was fitted with a component this installation does not register: install the "
                    "plugin that provides it (`rankcore plugins` lists the installed ones)"
                    if isinstance(exc, UnknownComponentError) else "")
            self._state_error(f"invalid parameters: {exc}{hint}")
        names = None
        state = dict(state)
        label = state.pop(_LABEL_KEY, None)         # absent from files of earlier versions: none recorded
        other = state.pop(_OTHER_LABEL_KEY, None)
        if _NAMES_KEY in state and not _declares_names(type(self)):
            names = state.pop(_NAMES_KEY)
            if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
                self._state_error(f"{_NAMES_KEY} must be a list of column names")
        required, optional = self._state_fields(setup, state)
        keys = set(state)
        if not required <= keys or not keys <= required | optional:
            wrong = (keys - required - optional) | (required - keys)
            self._state_error(f"unexpected or missing fields {sorted(wrong)}")
        self._restore_fitted_state(state, setup)
        if label is not None:
            self.relevant_label_ = checked_relevant_label(label, self._state_error)
        if other is not None:
            self.other_label_ = checked_relevant_label(other, self._state_error, key=_OTHER_LABEL_KEY)
            # saved only beside relevant_label, and a fit's two labels differ: an edited file may say otherwise
            if label is None or (type(other) is type(label) and other == label):
                self._state_error(f"{_OTHER_LABEL_KEY} must go with a different {_LABEL_KEY}, got "
                                  f"{other!r} beside {label!r}")
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        restored = self.__dict__.get("feature_names_in_")
        if restored is not None:               # declared by the estimator or kept for it: checked alike
            listed = [str(n) for n in np.asarray(restored).ravel()]
            if len(set(listed)) != len(listed) or len(listed) != getattr(self, "n_features_in_", len(listed)):
                self._state_error(f"{_NAMES_KEY} must hold one distinct name per feature")

    def _state_error(self, message: str):
        from .persistence import ModelFormatError

        raise ModelFormatError(f"{type(self).__name__} state: {message}")

    def _check_loaded_params(self, state: dict) -> Any:
        """The parameters read from a file, checked as ``fit`` checks them; returns what the restore needs."""
        return self._check_params()

    def _state_fields(self, setup: Any, state: dict) -> tuple[set, set]:
        """(required, optional) fields of a file's state, from the declaration."""
        keyed = [f for f in type(self).fitted if f.key is not None]
        return ({f.key for f in keyed if not f.optional}, {f.key for f in keyed if f.optional})

    def _restore_fitted_state(self, state: dict, setup: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} cannot be loaded from a file")


#: The model file's key of the column names a model was fitted on.
_NAMES_KEY = "feature_names_in"
#: The model file's key of the data file's label a one-list model ranks first (``rankcore fit --positive``).
_LABEL_KEY = "relevant_label"
_OTHER_LABEL_KEY = "other_label"


def _declares_names(cls: type) -> bool:
    """Whether the estimator's own declaration keeps ``feature_names_in_`` in its model files."""
    return any(f.name == "feature_names_in_" and f.key is not None for f in cls.fitted)


def _parameter_key(estimator: Ranker) -> tuple:
    """The parameter values of ``estimator`` as a comparable key: values by value, mutable objects by identity.

    A list of spec strings compares by its items (a copy with the same items
    is the same state); an array or another unhashable object by identity.
    """
    return tuple(_value_key(getattr(estimator, p.name)) for p in estimator.parameters)


def _value_key(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_value_key(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return (type(value), id(value), value)     # the object itself too: its id stays its own while cached
    return (type(value), value)


def _literal(text: str) -> Any:
    """A spec value as a Python literal where it is one (``20``, ``0.5``, ``True``, ``None``), else the text."""
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def _same(value: Any, default: Any) -> bool:
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:  # arrays and other values without a plain ==
        return False


def _make_init(cls: type) -> Callable:
    """A keyword-only ``__init__`` assigning the declared parameters, with the signature scikit-learn reads."""
    names = tuple(p.name for p in cls.parameters)
    defaults = {p.name: p.default for p in cls.parameters}
    missing = [p.name for p in cls.parameters if p.default is REQUIRED]
    if missing or len(set(names)) != len(names):
        raise TypeError(f"{cls.__name__}.parameters: every parameter needs a default and a distinct name "
                        f"(got {', '.join(names)})")

    def __init__(self, **params: Any) -> None:
        for key in params:
            if key not in defaults:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument {key!r}"
                                f"{type(self)._constructor_hint(key)}")
        for name in names:
            setattr(self, name, params[name] if name in params else defaults[name])

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    __init__.__signature__ = inspect.Signature(
        [self_param] + [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=defaults[n]) for n in names])
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    __init__.__doc__ = f"Set the parameters (see :class:`{cls.__name__}`); every check is made by ``fit``."
    return __init__


def _with_parameters_section(doc: str, parameters: Sequence[Parameter]) -> str:
    """``doc`` with a numpydoc "Parameters" section of ``parameters`` before its first later section."""
    if re.search(r"^[ \t]*Parameters[ \t]*\n[ \t]*-{3,}", doc, re.M):
        return doc
    match = _SECTION.search(doc)
    indent = match.group(1) if match else _body_indent(doc)
    entries = "\n".join(p.numpydoc() for p in parameters)
    section = textwrap.indent(f"Parameters\n----------\n{entries}\n", indent, lambda line: bool(line.strip()))
    if match:
        return doc[:match.start()] + section + "\n" + doc[match.start():]
    return doc.rstrip() + "\n\n" + section


def _body_indent(doc: str) -> str:
    lines = [line for line in doc.splitlines()[1:] if line.strip()]
    return (re.match(r"[ \t]*", lines[0]).group() if lines else "    ")

