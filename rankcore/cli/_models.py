"""The model factory: command-line options -> configured rankcore estimators.

The ``--model`` kinds are the registered estimators (:data:`KINDS`, read from
the registry's estimator family: the built-ins and every plugin's
``rankcore_register_estimators``).  What each kind accepts comes from its
estimator's declarations: an option applies to the estimators that declare a
parameter of its name, ``--n-iter`` sets the ``iteration_parameter``, and the
training objective per iteration is the fitted ``training_curve_``.  ``fit``
builds one configuration,
``compare`` several: there, every model option may list values separated by
commas (``--price identity,pow:4,pow:16``) and each ``--model`` is combined
with every combination of the values of the options that apply to it.

A model may also be given as one spec, ``--model "exactboost:metric=prec@k:50,n_runs=20"``:
the kind, then estimator parameters as ``key=value`` (a piece without ``=``
continues the previous value, so ``metric=pauc:0.1,mcclish`` works).
"""

from __future__ import annotations

import io
import itertools
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from .._thread_output import capture_stdout
from . import CommandError
from ._common import info, parse_value, registered_names, scalar_metric, seed, split_specs, thread_count
from ._constraints import deferred_constraints
from ._learner_hint import chosen_learner, learner_hint

# --------------------------------------------------------------------------
# Options that configure models
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelOption:
    """A command-line option that sets an estimator parameter."""

    flag: str                 # "--price"
    dest: str                 # "price"
    help: str
    family: str | None = None  # registry family of its spec strings (comma-aware splitting)
    number: bool = False       # parse the text as a number


OPTIONS: tuple[ModelOption, ...] = (
    ModelOption("--loss", "loss", "push: pairwise loss ℓ (exp, logistic, hinge, sqhinge, or a plugin's)", "loss"),
    ModelOption("--price", "price", "push: price g (identity, pow:p, exp:beta, or a plugin's); "
                "P-Norm Push is --loss exp --price pow:p", "price"),
    ModelOption("--objective", "objective", "push: any registered objective instead of --loss/--price "
                "(e.g. prec@k-avg:20)", "objective"),
    ModelOption("--learner", "learner", "push, rankboost: weak-learner family (stumps, thresholds:q=4, features, "
                "trees:max_leaves=31, or a plugin's; default stumps, and trees with query ids)", "learner"),
    ModelOption("--metric", "metric", "exactboost: the monotone metric boosted (auc, ks, prec@k:50, pauc:0.1, "
                "rmax, ...); kernel: the metric choosing lambda", "metric"),
    ModelOption("--margin", "margin", "exactboost: margin theta (default 0.05)", number=True),
    ModelOption("--n-runs", "n_runs", "exactboost: independent runs averaged (default 250)", number=True),
    ModelOption("--subsample", "subsample", "exactboost: fraction of each class per round (default 0.2)", number=True),
    ModelOption("--k", "k", "perceptron@k, sgd@k: k of the training set, a count or a fraction (default 0.05; "
                "--param k_per_batch=N for the per-batch form)", number=True),
    ModelOption("--variant", "variant", "perceptron@k: avg or max"),
    ModelOption("--surrogate", "surrogate", "sgd@k: avg, max or struct"),
    ModelOption("--eta0", "eta0", "sgd@k: initial step size", number=True),
    ModelOption("--batch-size", "batch_size", "perceptron@k, sgd@k: rows per mini-batch", number=True),
    ModelOption("--kernel", "kernel", "kernel: the kernel (rbf, rbf:100, laplacian, poly:2, linear, or a plugin's)",
                "kernel"),
    ModelOption("--filter", "filter", "kernel: the spectral filter (tikhonov, iterated:2, cutoff, landweber, "
                "showalter, or a plugin's)", "filter"),
    ModelOption("--lam", "lam", "kernel: lambda > 0, or holdout / apriori to choose it", number=True),
    ModelOption("--gamma", "gamma", "kernel: kernel length scale (overrides the kernel spec's)", number=True),
    ModelOption("--n-iter", "n_iter", "iterations: push/rankboost n_iter (boosting steps), exactboost n_rounds, "
                "perceptron@k/sgd@k n_epochs", number=True),
)
_OPTION_BY_DEST = {o.dest: o for o in OPTIONS}


# --------------------------------------------------------------------------
# Kinds of models
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelKind:
    """What ``--model NAME`` builds: a registered estimator, and what the options set on it."""

    name: str                               # "push"
    cls: type                               # the estimator class
    summary: str
    options: dict[str, str]                 # option dest -> estimator parameter
    names: tuple[str, ...] = ()             # every name --model accepts for it (lower case)

    @property
    def estimator(self) -> str:
        """``"module:Class"`` of the estimator."""
        return f"{self.cls.__module__}:{self.cls.__qualname__}"

    @property
    def live(self) -> bool:
        """Whether a fit reports every iteration with the monitored metric (fit takes eval_set and callbacks)."""
        return self.cls.monitor_parameter is not None and self.cls.iteration_parameter is not None


def _kind_of(cls: type) -> ModelKind:
    declared = {p.name for p in cls.parameters}
    options = {o.dest: o.dest for o in OPTIONS if o.dest != "n_iter" and o.dest in declared}
    if cls.iteration_parameter is not None:
        options["n_iter"] = cls.iteration_parameter
    names = tuple(dict.fromkeys(n.lower() for n in (*cls.aliases, cls.name)))
    doc = (cls.__doc__ or "").strip().splitlines()
    summary = cls.summary or (doc[0].rstrip(".") if doc else cls.name)
    return ModelKind(names[0], cls, summary, options, names)


class _Kinds(Mapping):
    """``--model`` name -> :class:`ModelKind`, for every registered estimator offered on the command line."""

    def _table(self) -> dict[str, ModelKind]:
        import warnings

        from ..registry import registry

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # plugin problems: `rankcore plugins` shows them
            entries = registry().in_order("estimator")
        kinds = [_kind_of(e.cls) for e in entries if e.cls.command_line]
        return {kind.name: kind for kind in kinds}

    def __getitem__(self, name: str) -> ModelKind:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


#: The ``--model`` kinds (read from the registry when used).
KINDS = _Kinds()


def estimator_class(kind: ModelKind) -> type:
    return kind.cls


def _refuse_estimator_offered_elsewhere(key: str) -> None:
    """Say how to reach an estimator ``rankcore fit`` does not offer (``command_line_instead``) when ``key`` names
    it."""
    import warnings

    from ..registry import registry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # plugin problems: `rankcore plugins` shows them
        entries = registry().in_order("estimator")
    for entry in entries:
        cls = entry.cls
        if not cls.command_line and cls.command_line_instead and key in (n.lower() for n in (cls.name, *cls.aliases)):
            raise CommandError(f"--model: {cls.name} is not fitted by `rankcore fit`: {cls.command_line_instead}")


def kind_named(name: str) -> ModelKind:
    key = name.strip().lower()
    table = KINDS._table()
    for kind in table.values():
        if key in kind.names:
            return kind
    _refuse_estimator_offered_elsewhere(key)
    from ..registry import did_you_mean

    guess = did_you_mean(key, [n for kind in table.values() for n in kind.names])
    hint = f"; did you mean {guess!r}?" if guess else ";"
    raise CommandError(f"--model: unknown model {name!r}{hint} models: {', '.join(table)}")


# --------------------------------------------------------------------------
# Configurations
# --------------------------------------------------------------------------


@dataclass
class ModelConfig:
    """One model to fit: its kind and the estimator parameters set explicitly."""

    kind: ModelKind
    params: dict[str, Any]
    label: str = ""
    #: (what the option said, the refusal) of a constraint value that cannot be read, said with the feature columns
    #: once the models are built (:func:`~rankcore.cli._constraints.say_unread_constraints`); () when none
    unread: tuple = ()

    def build(self):
        cls = estimator_class(self.kind)
        estimator = cls()
        valid = estimator.get_params(deep=False)
        unknown = sorted(set(self.params) - set(valid))
        if unknown:
            raise CommandError(f"{self.kind.name}: no parameter {unknown[0]!r} "
                               f"(its parameters: {', '.join(sorted(valid))})")
        estimator.set_params(**self.params)
        return estimator


def add_model_options(parser, *, multiple: bool) -> None:
    group = parser.add_argument_group(
        "model" + (" (comma-separated values of any option are compared)" if multiple else ""))
    group.add_argument(
        "--model", action="append", metavar="NAME|SPEC",
        # the kinds are listed in the epilog, formatted only with the help: naming them here would load
        # every plugin's estimators for each parse
        help="the model: a kind listed under 'models' below (default push), or one spec such as "
             "'exactboost:metric=prec@k:50,n_runs=20'" + ("; may be repeated" if multiple else ""),
    )
    for option in OPTIONS:
        # appended: a repeated flag is one more value to compare (compare) or an error (fit), never silently dropped
        group.add_argument(option.flag, dest=option.dest, action="append", metavar="VALUES" if multiple else "VALUE",
                           help=option.help + ("; may be repeated" if multiple else ""))
    group.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                       help="any other estimator parameter, e.g. --param n_jobs=1 --param early_stopping=true "
                            "(may be repeated)")
    group.add_argument("--random-state", type=seed, default=0, metavar="SEED",
                       help="seed of every randomized step (default 0, so runs repeat exactly)")
    group.add_argument("--n-jobs", type=thread_count, default=None, metavar="N",
                       help="threads: N, or -1 every core, -2 all but one (not 0; default: every core)")


def _split_values(option: ModelOption, text: str, multiple: bool) -> list[Any]:
    pieces = [text]
    if multiple:
        if option.family is not None:
            pieces = split_specs(text, registered_names(option.family), what=option.flag)
        else:
            pieces = [p.strip() for p in text.split(",")]
            if any(not p for p in pieces):
                raise CommandError(f"{option.flag}: empty item in {text!r}")
    return [parse_value(p, option.flag) if option.number else p.strip() for p in pieces]


def _model_entries(values: list[str] | None) -> list[tuple[ModelKind, dict[str, Any]]]:
    """``--model`` occurrences -> (kind, spec parameters) pairs."""
    entries: list[tuple[ModelKind, dict[str, Any]]] = []
    for text in values or ["push"]:
        if ":" in text:
            entries.append(_model_spec(text))
            continue
        for name in text.split(","):
            if not name.strip():
                raise CommandError(f"--model: empty item in {text!r}")
            entries.append((kind_named(name), {}))
    return entries


def _model_spec(text: str) -> tuple[ModelKind, dict[str, Any]]:
    name, _, rest = text.partition(":")
    kind = kind_named(name)
    params: dict[str, str] = {}
    last = None
    for piece in rest.split(","):
        key, eq, value = piece.partition("=")
        if eq and key.strip().isidentifier():
            last = key.strip()
            if last in params:
                raise CommandError(f"--model {text!r}: parameter {last!r} given twice")
            params[last] = value.strip()
        elif last is not None:
            params[last] += "," + piece.strip()
        else:
            raise CommandError(f"--model {text!r}: expected parameters as key=value after '{name}:', got {piece!r}")
    return kind, {k: _spec_value(k, v) for k, v in params.items()}


def _spec_value(key: str, value: str) -> Any:
    option = _OPTION_BY_DEST.get(key)
    if option is not None and option.family is not None:
        return value  # spec strings stay strings
    return parse_value(value, key)


def _param_pairs(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise CommandError(f"--param: expected KEY=VALUE with an estimator parameter name, got {item!r}")
        out[key.strip()] = parse_value(value.strip(), f"--param {key.strip()}")
    return out


def _given_options(args, multiple: bool) -> dict[str, str]:
    """The model options given (dest -> text): a repeated option's values joined by commas (compare), or refused
    (fit, which trains one model)."""
    given = {}
    for option in OPTIONS:
        values = getattr(args, option.dest, None)
        if values is None:
            continue
        values = [values] if isinstance(values, str) else list(values)
        if len(values) > 1 and not multiple:
            raise CommandError(f"{option.flag}: given {len(values)} times; fit trains one model (compare several "
                               "with `rankcore compare`)")
        given[option.dest] = ",".join(values)
    return given


def build_configs(args, *, multiple: bool) -> list[ModelConfig]:
    """The model configurations the options ask for (exactly one unless ``multiple``)."""
    entries = _model_entries(args.model)
    if not multiple and len(entries) != 1:
        raise CommandError("--model: fit trains one model; use `rankcore compare` for several")
    given = _given_options(args, multiple)
    extra = _param_pairs(args.param)
    # every option must apply to at least one of the chosen models
    for dest in given:
        if not any(dest in kind.options for kind, _ in entries):
            users = [k.name for k in KINDS.values() if dest in k.options]
            chosen = ", ".join(k.name for k, _ in entries)
            raise CommandError(f"{_OPTION_BY_DEST[dest].flag} applies to --model {' / '.join(users)}, not {chosen}")
    if not multiple:
        for dest in given:
            if "," in str(given[dest]) and _OPTION_BY_DEST[dest].family is None:
                raise CommandError(f"{_OPTION_BY_DEST[dest].flag}: fit takes one value, got {given[dest]!r} "
                                   "(compare several with `rankcore compare`)")

    configs: list[ModelConfig] = []
    for kind, spec_params in entries:
        cls = estimator_class(kind)
        valid = set(cls().get_params(deep=False))
        lists = {dest: _split_values(_OPTION_BY_DEST[dest], text, multiple)
                 for dest, text in given.items() if dest in kind.options}
        extra_here = {k: v for k, v in extra.items() if k in valid}
        learner = chosen_learner(cls, lists, spec_params, extra)
        if len(entries) == 1 or not multiple:
            unknown = sorted(set(extra) - valid)
            if unknown:
                hint = learner_hint(valid, unknown[0], extra[unknown[0]], learner)
                raise CommandError(f"--param {unknown[0]}: {kind.name} has no such parameter{hint} "
                                   f"(its parameters: {', '.join(sorted(valid))})")
        for key in spec_params:
            if key not in valid:
                hint = learner_hint(valid, key, spec_params[key], learner)
                raise CommandError(f"--model {kind.name}: no parameter {key!r}{hint} (its parameters: "
                                   f"{', '.join(sorted(valid))})")
        # a parameter set twice, in the spec and by an option or --param: which was meant cannot be told
        twice = sorted({kind.options[d] for d in lists} & set(spec_params)) + sorted(set(extra_here) & set(spec_params))
        if twice:
            option = next((_OPTION_BY_DEST[d].flag for d in lists if kind.options[d] == twice[0]), "--param")
            raise CommandError(f"--model {kind.name}: {twice[0]} is set both in the spec and by {option}; set it once")
        both = next((d for d in lists if kind.options[d] in extra_here), None)
        if both is not None:
            raise CommandError(f"--param {kind.options[both]}: also set by {_OPTION_BY_DEST[both].flag}; set it once")
        if args.n_jobs is not None and "n_jobs" in {**extra_here, **spec_params}:
            raise CommandError("n_jobs is set both by --n-jobs and by --param or the --model spec; set it once")
        dests = list(lists)
        for combo in itertools.product(*(lists[d] for d in dests)):
            params: dict[str, Any] = {}
            if "random_state" in valid:
                params["random_state"] = args.random_state
            if "n_jobs" in valid and args.n_jobs is not None:
                params["n_jobs"] = args.n_jobs
            params.update(extra_here)
            chosen = dict(zip(dests, combo))
            for dest, value in chosen.items():
                params[kind.options[dest]] = value
            params.update(spec_params)
            configs.append(ModelConfig(kind, params))
    if multiple:
        unused = sorted(set(extra) - {k for c in configs for k in c.params})
        if unused:
            raise CommandError(f"--param {unused[0]}: none of the models has such a parameter")
    _name_configs(configs)
    for config in configs:
        check_specs(config)
        if config.unread:           # the error said first, as when it was raised here: no later model is checked
            break
    return configs


def monitor_from_params(args, configs: list[ModelConfig]) -> bool:
    """``args.monitor`` from the models' monitored parameter (a push model's ``scoring``) set by ``--param`` or a
    ``--model`` spec, when ``--monitor`` is not given: the fit sets that parameter to the watched metric, so the
    value given is watched rather than replaced; without one, from their ``metric`` (:func:`_monitor_from_metric`).
    A CommandError when ``--monitor`` says otherwise, or the models set different ones (``compare`` watches one
    metric).  Returns whether ``args.monitor`` was taken from the models' ``metric`` (see :func:`metric_monitor_on`).
    """
    given = {}
    for config in configs:
        name = config.kind.cls.monitor_parameter
        value = config.params.get(name) if name else None
        if isinstance(value, str) and value != "objective":       # 'objective': no metric to watch
            given.setdefault(value, name)
    if not given:
        return _monitor_from_metric(args, configs)
    (value, name), *others = given.items()
    if others:
        raise CommandError(f"--param {name}: the models set {value!r} and {others[0][0]!r}; every model is watched on "
                           f"one metric: give it once, with --monitor")
    from ..registry import resolve

    if args.monitor is None:
        args.monitor = scalar_metric(value, f"--param {name}")
    elif resolve("metric", args.monitor).spec != resolve("metric", value).spec:
        raise CommandError(f"--param {name}={value}: also set by --monitor {args.monitor} (the metric the fit watches "
                           f"is the model's {name}); set it once")
    return False


def _monitor_from_metric(args, configs: list[ModelConfig]) -> bool:
    """``args.monitor``, when not given, from the models' ``metric`` (``--metric ks`` of exactboost, kernel): the
    metric the fit was asked for is the one shown, not AUC, by ``fit`` and ``compare`` alike.  Models that set
    different metrics, or one that is no single number with a direction, leave the default.  Returns whether
    ``args.monitor`` was so set."""
    if args.monitor is not None:
        return False
    values = {config.params.get("metric") for config in configs if "metric" in config.kind.options.values()}
    if len(values) != 1 or not isinstance(next(iter(values)), str):
        return False
    from ..registry import resolve

    (value,) = values
    try:
        metric = resolve("metric", value)
    except (TypeError, ValueError):         # said by the model's own check of its parameters
        return False
    if getattr(metric, "scalar", True) and metric.greater_is_better is not None:
        args.monitor = value
        return True
    return False


def metric_monitor_on(args, y_monitored: np.ndarray, rows: str, default: str = "auc") -> None:
    """Keep ``args.monitor`` taken from the models' ``--metric`` only if it can be computed on the monitored rows
    (0/1 labels ``y_monitored``, said as ``rows``), else watch ``default`` and say why.

    The fit's metric is one of the training rows: ``prec@k:120`` fits 140 training rows, and refuses 60 test or
    validation rows.  Watched there, the command would fail once the fit is done, for a metric nobody asked to
    watch; ``--monitor`` given is never replaced.
    """
    from ..metrics import MetricRefusal, evaluate

    try:
        evaluate(y_monitored, np.zeros(y_monitored.shape[0]), [args.monitor])
    except MetricRefusal as exc:
        info(args, f"monitoring {rows} {default}: --metric {args.monitor}, the fit's, cannot be computed on the "
                   f"{rows} rows ({exc})")
        args.monitor = default


def check_specs(config: ModelConfig) -> None:
    """Resolve every spec-string parameter now, so a typo fails before the data are read.

    A ``monotone`` or ``interactions`` value that cannot be read is kept in ``config.unread`` (said with the feature
    columns by :func:`~rankcore.cli._constraints.say_unread_constraints`) and ends the checks, as an error here does.
    """
    from ..registry import resolve

    declared = {p.name: p for p in getattr(config.kind.cls, "parameters", ())}
    for dest, param in config.kind.options.items():
        option = _OPTION_BY_DEST[dest]
        value = config.params.get(param)
        if option.number and param in declared and value is not None:
            try:                        # the estimator's own check, said of the option (`--n-iter 0`)
                declared[param].check(value)
            except (ValueError, TypeError) as exc:
                text = str(exc)
                raise CommandError(f"{option.flag}{text[len(param):] if text.startswith(param + ':') else ': ' + text}"
                                   ) from None
        if option.family is None or not isinstance(value, str):
            continue
        try:
            resolve(option.family, value)
        except (ValueError, TypeError) as exc:
            if deferred_constraints(exc):       # said with the feature columns' order, before any other check
                config.unread = (f"{option.flag} {value!r}: {exc}", exc)
                return                          # the options after it are not checked, as when it was raised here
            raise CommandError(f"{option.flag} {value!r}: {exc}") from None


def _name_configs(configs: list[ModelConfig]) -> None:
    """Short unique labels: the kind, then what varies between models of that kind."""
    by_kind: dict[str, list[ModelConfig]] = {}
    for config in configs:
        by_kind.setdefault(config.kind.name, []).append(config)
    for kind, group in by_kind.items():
        keys = sorted({k for c in group for k in c.params if k not in ("random_state", "n_jobs")})
        differing = [k for k in keys if len({repr(c.params.get(k)) for c in group}) > 1]
        for config in group:
            if not differing:
                config.label = kind
            elif differing == [_param_of(kind, "price")] and kind == "push":
                config.label = f"{kind} {config.params.get('price')}"
            else:
                config.label = kind + " " + " ".join(f"{k}={config.params.get(k)}" for k in differing)
    seen: dict[str, int] = {}
    for config in configs:
        if config.label in seen:
            seen[config.label] += 1
            config.label = f"{config.label} #{seen[config.label]}"
        else:
            seen[config.label] = 1


def _param_of(kind: str, dest: str) -> str:
    return KINDS[kind].options.get(dest, dest)


# --------------------------------------------------------------------------
# Fitting with progress
# --------------------------------------------------------------------------


@dataclass
class FitOutcome:
    estimator: Any
    seconds: float
    curve: Any            # the estimator's TrainingCurve, or None (not iterative)
    monitor_score: float | None
    held_out: str | None = None   # what the curve's validation scores are ("test auc", "valid pauc:0.1")

    @property
    def history(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(iterations, training objective), for the objective figure."""
        return None if self.curve is None else (self.curve.iterations, self.curve.objective)


def _as_plugin_reads(estimator, X, monitor: tuple | None = None) -> tuple:
    """``(X, monitor)`` as an estimator from a plugin reads them: a float32 array (kept so by the ``.npy``/``.npz``
    reader) as float64, the type the command line always gave it; rankcore's own estimators take float32 as it is.

    A plugin's arithmetic may run in its input's type: in float32, its statistics of large values (1e38) overflow
    and its model is not the one a float64 file of the same values gives.  A monitor of the training rows themselves
    (``fit`` without ``--validation``) gets the very array the fit does: its eval set is then the training data,
    named ``training`` and never watched by early stopping.
    """
    if isinstance(X, np.ndarray) and X.dtype == np.float32 and not type(estimator).__module__.startswith("rankcore."):
        read = X.astype(np.float64)
        return read, (monitor if monitor is None or monitor[1] is not X else (monitor[0], read, *monitor[2:]))
    return X, monitor


def fit_one(config: ModelConfig, X, y: np.ndarray, *, progress, monitor: tuple | None = None,
            monitor_label: str | None = None, monitor_is_validation: bool = False, qid=None,
            keep_monitor_curve: bool = True, position=None, init_score=None, monitor_init=None,
            eval_metric=None, sample_weight=None, init_model=None) -> FitOutcome:
    """Fit one configured model, reporting progress.

    Parameters
    ----------
    X : ndarray or DataFrame
        The training features (a DataFrame keeps the column names and the categorical columns).
    monitor : (metric spec, X_val, y_val) or (metric spec, X_val, y_val, qid_val), optional
        A metric shown while fitting (push family: after every iteration
        through ``eval_set``; others: once, at the end); with ``qid_val``
        the mean over the validation rows' queries.
    qid : array-like, optional
        Each training row's query id: the model is fitted within queries.
    position : array-like of int, optional
        With ``qid``: each training row's display position, passed to the
        estimator's ``fit`` (position effects learned beside the model).
    init_score, monitor_init : array-like of float, optional
        The training rows' and the monitored rows' initial scores: the fit
        starts from ``init_score``, and the monitored rows are scored at the
        model's scores plus ``monitor_init`` (``eval_init_score``).
    eval_metric : list of str, optional
        More metrics recorded on the monitored rows after every iteration
        (``evals_result_``); needs the monitor to be validation data.
    sample_weight : array-like of float, optional
        Each training row's weight, passed to the estimator's ``fit`` (the
        monitored metric counts every row once).
    init_model : fitted estimator, optional
        A model the fit continues (``fit(..., init_model=...)``; the monitored rows are scored by the whole model).
    monitor_is_validation : bool
        Whether the monitored data may also steer the fit.  A push model with early stopping on (``True``, or
        ``"auto"`` on more than 10,000 rows of one list) stops on ``eval_set`` when it is given; test data or the
        training data must not do that, so then the model keeps its own internal validation split: the progress
        shows that hold-out's score, labelled ``valid <metric>``, and the monitored metric at the end.
    keep_monitor_curve : bool, default True
        Whether the monitored metric's value after every iteration is wanted
        even when the progress shows none (``--quiet``, ``--progress none``):
        the model's ``evals_result_`` and ``validation_scores_``, the held-out
        curve of ``compare``'s figures.  False (``fit`` monitoring its own
        training rows): with nothing shown per iteration the fit runs without
        ``eval_set``, whose scoring of every row after each iteration cost
        several times the fit itself, and the metric is computed once, after it.
    """
    estimator = config.build()
    X, monitor = _as_plugin_reads(estimator, X, monitor)
    total = _planned_iterations(config, estimator, init_model)
    steers = _early_stopping_on(estimator, y, qid)
    patient = _stops_on_eval_set_by_patience(estimator, y, qid)
    on_eval_set = config.kind.live and monitor is not None and (monitor_is_validation or not (steers or patient))
    monitor_name = None if monitor is None else (monitor_label or monitor[0])
    if on_eval_set:
        held_out = monitor_name
    elif config.kind.live and steers:
        held_out = f"valid {_holdout_metric(estimator, X.shape[0], queries=qid is not None)}"
    else:
        held_out = None
    task = progress.task(config.label, total, held_out if config.kind.live else monitor_name)
    watched = on_eval_set and (keep_monitor_curve or task.mode != "none")
    start = time.perf_counter()
    given = {"qid": qid, "position": position, "init_score": init_score, "sample_weight": sample_weight,
             "init_model": init_model}
    queries = {name: value for name, value in given.items() if value is not None}
    try:
        with _estimator_prints(task):
            if config.kind.live:
                fit_kwargs = dict(queries)
                if on_eval_set:
                    # set unwatched too (it changes nothing then): the model's parameters do not depend on --quiet
                    estimator.set_params(**{config.kind.cls.monitor_parameter: monitor[0]})
                fit_kwargs.update(_eval_set_kwargs(monitor, monitor_init, eval_metric) if watched else {})

                def report(info):
                    if task.total is None:      # n_iter left to the estimator: its plan, for one line in ten
                        task.total = info.n_iter
                    task.update(info.iteration, info.objective, info.validation_score)

                estimator.fit(X, y, callbacks=[report], **fit_kwargs)
            else:
                task.keep_alive()
                estimator.fit(X, y, **queries)
    except BaseException:
        task.abort()
        raise
    seconds = time.perf_counter() - start
    curve = estimator.training_curve_ if config.kind.cls.iteration_parameter is not None else None
    history = None if curve is None else (curve.iterations, curve.objective)
    score = None if monitor is None else _monitor_score(estimator, monitor, monitor_init)
    if history is not None and history[1].size:
        task.iteration = int(history[0][-1]) if not config.kind.live else task.iteration
        task.objective = None if np.isnan(last := float(history[1][-1])) else last  # NaN: no value (lambdarank)
    summary = [stop_summary(estimator)]
    if score is not None:
        if task.metric == monitor_name:
            task.score = score
        else:                               # the progress showed the hold-out's score: the monitor's too
            summary.insert(0, f"{monitor_name} {score:.4f}")
    task.close("  ".join(part for part in summary if part))
    return FitOutcome(estimator, seconds, curve, score, held_out if held_out_recorded(curve) else None)


def _estimator_prints(task):
    """Where what an estimator prints while it fits (``--param verbose=2``) goes: to the progress' stream (stderr),
    never to stdout, which carries results (``--out /dev/stdout``: the model file); nowhere with ``--quiet``.
    ``--progress none`` hides the progress display only: a table asked for by name is still shown."""
    return capture_stdout(io.StringIO() if task.quiet else task.stream)       # this thread's prints alone


def _monitor_score(estimator, monitor: tuple, monitor_init=None) -> float:
    """The monitored metric of the fitted model on the monitored rows (at its scores plus ``monitor_init``)."""
    from ..metrics import evaluate

    scores = decision_scores(estimator, monitor[1])
    scores = scores if monitor_init is None else scores + monitor_init
    return float(evaluate(monitor[2], scores, [monitor[0]], qid=monitor[3] if len(monitor) > 3 else None)[monitor[0]])


def _eval_set_kwargs(monitor: tuple, monitor_init, eval_metric) -> dict:
    """``fit``'s ``eval_set`` of the monitored rows, with their ``eval_init_score`` and the ``eval_metric`` given."""
    kwargs: dict[str, Any] = {"eval_set": tuple(monitor[1:])}
    if monitor_init is not None:
        kwargs["eval_init_score"] = monitor_init
    if eval_metric:
        kwargs["eval_metric"] = list(eval_metric)
    return kwargs


def held_out_recorded(curve: Any) -> bool:
    """Whether a ``TrainingCurve`` holds a validation score of some iteration."""
    return curve is not None and curve.validation is not None and bool(np.isfinite(curve.validation).any())


def _planned_iterations(config: ModelConfig, estimator, init_model=None) -> int | None:
    """The iterations the progress counts to: ``n_iter``, after an ``init_model``'s weak rankers (the callbacks
    count from its first, as LightGBM's)."""
    param = config.kind.options.get("n_iter")
    if param is None:
        return None
    value = estimator.get_params(deep=False).get(param)
    first = 0 if init_model is None else len(getattr(init_model, "rankers_", ()))
    return first + int(value) if isinstance(value, (int, np.integer)) and value > 0 else None


def _early_stopping_on(estimator, y, qid=None) -> bool:
    """Whether the estimator's ``early_stopping`` alone would stop on an ``eval_set`` (``True``; ``"auto"`` on large
    data of one list; within queries ``"auto"`` only watches it), by the library's rule."""
    return _stops_on_eval_set(estimator, y, qid, patience=False)


def _stops_on_eval_set_by_patience(estimator, y, qid=None) -> bool:
    """Whether ``early_stopping="auto"`` would stop on an ``eval_set`` only because ``n_iter_no_change`` is set
    (one list of at most 10,000 rows: LightGBM's ``early_stopping_rounds``); without one it does not stop.

    An eval_set then steers the fit as a hold-out does, so only validation data may be one (never the test split).
    """
    return not _early_stopping_on(estimator, y, qid) and _stops_on_eval_set(estimator, y, qid, patience=True)


def _stops_on_eval_set(estimator, y, qid, *, patience: bool) -> bool:
    """Whether a fit of ``estimator`` on labels ``y`` (and queries ``qid``) given an ``eval_set`` stops on it: the
    rule the fit itself reads (:func:`rankcore.push.resolve_early_stopping`), so the two cannot disagree.

    ``patience``: counting the user's ``n_iter_no_change`` (as the fit does); False asks about ``early_stopping``
    alone.  An estimator without ``early_stopping`` never stops on one.
    """
    from ..push import resolve_early_stopping

    params = estimator.get_params(deep=False)
    if "early_stopping" not in params:
        return False
    n_queries = None if qid is None else len(set(np.asarray(qid).tolist()))
    rule = resolve_early_stopping(params["early_stopping"], np.asarray(y), params.get("validation_fraction", 0.1),
                                  has_eval_set=True, stratify=False, n_queries=n_queries,
                                  patience_given=patience and params.get("n_iter_no_change") is not None)
    return rule.mode == "eval_set"


def _holdout_metric(estimator, n_rows: int, *, queries: bool = False) -> str:
    """The metric that scores a push model's own early-stopping hold-out (its ``scoring``, else the default)."""
    from ..push import AUTO_MIN_ROWS, LARGE_DATA_METRIC, QUERY_METRIC

    params = estimator.get_params(deep=False)
    scoring = params.get("scoring")
    if isinstance(scoring, str):
        return scoring
    if queries:
        return QUERY_METRIC
    return LARGE_DATA_METRIC if params.get("early_stopping") == "auto" and n_rows > AUTO_MIN_ROWS else "auc"


#: What a stop reason means, where its name alone does not say it.
_STOP_NOTES = {"diverged": "a step raised the objective above its start and was not taken: the warning says what "
                           "to change",
               "no_validation_split": "n_iter reached; early_stopping='auto' had too few rows of a class "
                                      "for a validation split"}


def stop_summary(estimator) -> str:
    """What ended an iterative fit other than its number of iterations ("stopped: early_stopping, kept the best
    31 iterations"); empty when it ran them all or has no stop reason."""
    reason = getattr(estimator, "stop_reason_", None)
    if reason and reason != "n_iter":
        note = f" ({_STOP_NOTES[reason]})" if reason in _STOP_NOTES else ""
        n_iter = getattr(estimator, 'n_iter_', '?')
        if reason == "early_stopping":
            # n_iter_ counts the iterations kept (up to the best on the hold-out), not those run: the progress
            # line above already shows a later iteration, so "after n_iter_ iterations" read as a contradiction
            if n_iter == 0:
                return f"stopped: {reason}{note}, no iteration scored better than the start on the hold-out: kept none"
            return f"stopped: {reason}{note}, kept the best {n_iter} iteration{'' if n_iter == 1 else 's'}"
        return f"stopped: {reason}{note} after {n_iter} iteration{'' if n_iter == 1 else 's'}"
    return ""


def decision_scores(estimator, X: np.ndarray) -> np.ndarray:
    """The estimator's ranking scores (higher = nearer the top)."""
    scores = estimator.decision_function(X)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise CommandError(f"{type(estimator).__name__}: expected one score per row, got shape {scores.shape} "
                           "(a lambda path or several filters cannot be used here; give one --lam and --filter)")
    return scores


def describe_kinds() -> str:
    return "\n".join(f"  {k.name:<13} {k.summary}" for k in KINDS.values())


def models_epilog(*examples: str):
    """Help epilog of a command that trains models: the model kinds, then example command lines.

    Returned as a callable that the parser calls when it formats the help:
    the model kinds come from the registry, which loads every plugin's
    estimators, and a command line that only parses (a usage error, another
    subcommand) should not pay for that.
    """
    def text() -> str:
        return "models:\n" + describe_kinds() + "\n\nexamples:\n" + "\n".join(f"  {line}" for line in examples)

    return text


# --------------------------------------------------------------------------
# Categorical columns
# --------------------------------------------------------------------------


def split_by_category(configs: list[ModelConfig], data) -> None:
    """Have every model split ``data``'s categorical columns by category, or refuse, before any training.

    Each configuration gets ``categorical_features`` = those columns' names,
    which its model file then records; a model without that parameter, or
    whose learner does not split by category (its ``accept_categorical``),
    is refused with the way out.
    """
    if not data.categories:
        return
    from ..registry import resolve
    from ._common import categorical_learners

    names = list(data.categories)
    cannot = []
    for config in configs:
        estimator = config.build()
        params = estimator.get_params(deep=False)
        learner = params.get("learner")
        spec = learner if isinstance(learner, str) else getattr(learner, "spec", None)
        resolved = None if spec is None else resolve("learner", spec)
        if "categorical_features" not in params or not getattr(resolved, "accept_categorical", False):
            cannot.append(describe_estimator(estimator, config.label))
        elif getattr(resolved, "growth", None) == "oblivious":
            raise CommandError(f"--categorical {','.join(names)}: --learner {spec!r} grows oblivious trees, which "
                               "do not split by category; use --learner trees:growth=depthwise (or leafwise), or "
                               f"leave {', '.join(names)} out of --categorical (read as numbers)")
        else:
            config.params["categorical_features"] = names
    if cannot:
        flags = " or ".join(f"--learner {name}" for name in categorical_learners()) or "a learner that does"
        users = " or ".join(k.name for k in KINDS.values() if "learner" in k.options)
        raise CommandError(f"--categorical: {', '.join(cannot)} cannot split by category (the columns "
                           f"{', '.join(names)}): use {flags} with --model {users}, or leave the columns out "
                           f"with --drop {','.join(names)}")


def describe_estimator(estimator, label: str | None = None) -> str:
    """``"push (learner stumps)"``: the label (or class name) and, where it has one, the learner."""
    text = label or type(estimator).__name__
    learner = estimator.get_params(deep=False).get("learner") if hasattr(estimator, "get_params") else None
    if learner is not None and "learner=" not in text:
        text += f" (learner {learner if isinstance(learner, str) else type(learner).__name__})"
    return text
