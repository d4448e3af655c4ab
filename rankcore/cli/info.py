"""``rankcore info MODEL``: what a saved model file holds, checked, without data.

A registry or a service that keeps model files needs to know what each one is -- its estimator, the rankcore that
wrote it, the features it reads and which of them are categories, how its fit ended, its parameters -- before it
serves it.  The file is loaded as ``score`` would load it (its checksum and structure verified), so a file ``info``
describes is one the other commands can use.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ._columns import model_categorical, model_features
from ._outputs import print_result

__all__ = ["add_parser", "run", "describe_model"]

#: Feature names printed before "... and N more" (``--json`` lists them all).
SHOWN_FEATURES = 20


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "info",
        help="what a saved model file holds: estimator, version, features, categories, how its fit ended",
        description="Load MODEL (its checksum and structure verified, as every command loads it) and print what "
                    "it is: the estimator and the rankcore version that wrote it, the features it reads (by name "
                    "when it was fitted on named columns) and those read as categories, with how many categories "
                    "each kept, its labels or whether it ranks within queries, how its fit ended (iterations, stop "
                    "reason, best iteration) and the parameters set away from their defaults. No data is read. "
                    "An unreadable or damaged file is an error (exit 2).",
    )
    parser.add_argument("model", metavar="MODEL", help="a model file written by `rankcore fit` or rankcore.save_model")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (every feature name, every parameter) instead of lines")
    # info prints its result alone; taken as every command takes it, so that a script's `-q` is not refused
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages (there are none)")
    return parser


def run(args) -> int:
    from ..persistence import load_model_file
    from . import surrogates_as_bytes

    # one read: refuses a damaged file before anything is said of it, and a pipe (<(...)) can be read only once
    model, header = load_model_file(args.model)
    described = describe_model(model, header)
    if args.json:
        # a name's bytes that are not UTF-8 are surrogates in Python: JSON's "\udcff" is no character to a strict
        # parser (a lone surrogate), so each such byte is written as the text output's error messages write it, \xff
        described = {"file": surrogates_as_bytes(args.model), **described}
        print_result(json.dumps(described, indent=2, default=_plain), "json")
    else:
        print("\n".join(_lines(args.model, described)))
    return 0


def describe_model(model: Any, header: dict) -> dict:
    """What ``info`` says of ``model`` (loaded from a file whose top-level JSON object is ``header``).

    Every entry is plain JSON: strings, numbers, lists and dicts; an attribute the estimator does not have is left
    out rather than given as null, so the keys say what the model records.
    """
    described: dict[str, Any] = {
        "estimator": header.get("estimator", type(model).__name__),
        "format": f"{header.get('format')} {header.get('format_version')}",
        "rankcore_version": header.get("rankcore_version"),
        "n_features": int(getattr(model, "n_features_in_", 0)),
    }
    names = model_features(model)
    if names is not None:
        described["feature_names"] = names
    kept = getattr(model, "categories_", None)
    categorical = model_categorical(model)
    if categorical:
        counts = {} if kept is None or names is None else {n: len(c) for n, c in zip(names, kept) if c is not None}
        described["categorical"] = {name: counts.get(name) for name in categorical}
        folded = _folded(model, names, counts)
        if folded:
            described["folded_categories"] = folded
    if getattr(model, "ranks_within_queries_", False):
        described["within_queries"] = True
        if hasattr(model, "n_queries_"):
            described["n_queries"] = int(model.n_queries_)
    elif hasattr(model, "classes_") or model.__dict__.get("relevant_label_") is not None:
        # the labels of the data file the command line recorded (--positive: its label ranked first, the other
        # one), else the classes, the greater ranked first; a KernelRanker has no classes_, only the recorded labels
        relevant, other = model.__dict__.get("relevant_label_"), model.__dict__.get("other_label_")
        labels = [other, relevant] if relevant is not None and other is not None else \
            list(getattr(model, "classes_", [relevant]))
        described["classes"] = [_label(c) for c in labels]
        described["ranked_first"] = _label(labels[-1] if relevant is None else relevant)
    for key, attribute in (("chosen", "best_candidate_"), ("metric", "metric_"), ("best_score", "best_score_"),
                           ("objective", "objective_spec_"), ("learner", "learner_spec_"),
                           ("n_iter", "n_iter_"), ("stop_reason", "stop_reason_"),
                           ("best_iteration", "best_iteration_")):
        value = getattr(model, attribute, None)
        if value is not None:
            described[key] = _named(key, value) if key in ("objective", "learner") else _plain(_spec_of(value))
    kernel_model = _kernel_model(model)
    if kernel_model:
        described["kernel_model"] = kernel_model
    searches = _searches(model)
    if searches:
        described["searches"] = searches
    described["params"] = _set_params(model, header.get("params") or {})
    if "random_state" in (header.get("params") or {}) and header["params"]["random_state"] is None:
        described["random_state_drawn"] = True      # the default: "parameters set" alone would not say it
    return described


def _folded(model: Any, names: list | None, kept: dict) -> dict:
    """``{column: {"kept": K, "seen": N}}`` of the category columns the fit folded: more levels in the training rows
    than the trees' bins, the K most frequent kept and the other N - K read as missing values whenever it scores."""
    seen = getattr(model, "category_levels_seen_", None)
    if seen is None or names is None:
        return {}
    return {name: {"kept": kept.get(name), "seen": int(n)} for name, n in zip(names, seen) if n is not None}


def _kernel_model(model: Any) -> dict:
    """A kernel ranker's fitted kernel, filter, λ and solver, and the rows it stores (the file's size grows with
    them, as does the time of every prediction); empty for other models.

    A path model (several λ or several filters) has no single filter or λ: its entry lists the ``filters`` and
    ``lams`` and ``path_shape``, the shape of a row's scores (``decision_function`` returns one column per filter
    and λ, in that order; the filter axis only for several filters), instead of the first filter alone.
    """
    support = getattr(model, "support_", None)
    kernel = getattr(model, "kernel_", None)
    if support is None or kernel is None:
        return {}
    filter_ = getattr(model, "filter_", None)
    lam = getattr(model, "lam_", None)
    entry = {"kernel": _spec_of(kernel), "filter": None if filter_ is None else _spec_of(filter_),
             "lam": None if lam is None else float(lam), "solver": getattr(model, "solver_", None),
             "support_rows": int(support.shape[0])}
    coef = getattr(model, "dual_coef_", None)
    if coef is not None and coef.ndim > 1:
        del entry["filter"], entry["lam"]
        entry["filters"] = [_spec_of(f) for f in getattr(model, "filters_", [])]
        entry["lams"] = [float(v) for v in getattr(model, "lams_", [])]
        entry["path_shape"] = [int(n) for n in coef.shape[:-1]]
    return entry


def _searches(model: Any) -> dict:
    """How an ExactBoost fit ended: its runs, the stumps they kept, and the feature searches ``max_boxes`` stopped
    before they proved their stump optimal (0: every stump is the exact optimum); empty for other models."""
    lengths = getattr(model, "run_lengths_", None)
    exhausted = getattr(model, "n_budget_exhausted_", None)
    if lengths is None or exhausted is None:
        return {}
    tail = getattr(model, "tail_run_lengths_", None)
    stumps = int(np.sum(lengths)) + (0 if tail is None else int(np.sum(tail)))
    return {"runs": int(len(lengths)), "stumps": stumps, "budget_exhausted": int(exhausted)}


def _searches_said(searches: dict) -> str:
    """The line of :func:`_searches`'s record."""
    runs = f"{searches['runs']} run{'' if searches['runs'] == 1 else 's'}, {searches['stumps']} stumps kept; "
    n = searches["budget_exhausted"]
    if n == 0:
        return runs + "every feature search proved its stump optimal"
    return runs + (f"{n} feature search{'' if n == 1 else 'es'} stopped by max_boxes before proving optimality "
                   "(a larger max_boxes searches further)")


def _kernel_said(kernel: dict) -> str:
    """The line of a kernel model: its kernel, filter, λ and solver, or of a path its filters and λ values and what
    ``decision_function`` returns."""
    rows = f"{kernel['support_rows']:,} support rows stored"
    shown = ("kernel", "filter", "lam", "solver")
    fitted = ", ".join(f"{k} {kernel[k]:.6g}" if isinstance(kernel[k], float) else f"{k} {kernel[k]}"
                       for k in shown if kernel.get(k) is not None)
    if "path_shape" not in kernel:
        return f"{fitted}; {rows}"
    lams = ", ".join(f"{v:.6g}" for v in kernel["lams"])
    shape = ", ".join(["n_samples"] + [str(n) for n in kernel["path_shape"]])
    axes = ("filter and λ" if len(kernel["path_shape"]) == 2
            else "filter" if len(kernel["filters"]) > 1 else "λ")
    return (f"{fitted}; a path: filters {', '.join(map(str, kernel['filters']))}, λ {lams}; decision_function "
            f"returns a score per {axes}, shape ({shape}): score one column; {rows}")


def _named(family: str, spec: Any) -> str:
    """A component's spec with its parameters by name (``push:gain_weighted=true,query_rmse=2``, not the canonical
    ``push:exp,identity,true,none,0,false,2``, whose positions a reader would have to know)."""
    from ..registry import resolve

    try:
        return resolve(family, spec).named_spec
    except Exception:       # a plugin's component not installed here: the file's own spelling
        return str(spec)


def _spec_of(value: Any) -> Any:
    """A fitted component (ExactBoost's ``metric_`` is the Metric object) as its spec, ``auc``, not its repr."""
    named = getattr(value, "named_spec", None)
    return named if isinstance(named, str) else value


def _set_params(model: Any, params: dict) -> dict:
    """The file's parameters that differ from the estimator's defaults (all of them when the defaults are unknown)."""
    try:
        defaults = type(model)().get_params(deep=False)
    except Exception:       # an estimator that cannot be built without arguments: say every parameter
        defaults = None
    params = {k: _unmarked(v) for k, v in params.items()}
    if defaults is None:
        return params
    return {k: v for k, v in params.items() if k not in defaults or _plain(defaults[k]) != v}


def _unmarked(value: Any) -> Any:
    """A parameter as the file marks it, said plainly: a marked tuple or list (``{"__tuple__": [...]}``,
    ``{"__list__": [...]}``) as its items, a component object (``{"__component__": family, "spec": ...}``) as its
    spec."""
    for marker in ("__tuple__", "__list__"):
        if isinstance(value, dict) and set(value) == {marker}:
            return [_unmarked(v) for v in value[marker]] if isinstance(value[marker], list) else value
    if isinstance(value, dict) and set(value) == {"__component__", "spec"}:
        return value["spec"]
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    """``value`` as JSON writes it: NumPy scalars as Python numbers, anything else unknown as its text."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _label(value: Any) -> Any:
    """A label as the user wrote it, as far as the model knows: a whole number as an integer (``1``, not ``1.0``).

    The data files' readers read numeric labels as float64 (whether a CSV file wrote ``1`` or ``1.0`` is not
    kept), so a label column of integers comes back as ``1.0``; every other message of the command line shows such
    a label as ``1`` already.
    """
    value = _plain(value)
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2 ** 53:
        return int(value)
    return value


def _scores_said(value: float | dict) -> str:
    """A best score as a line says it: ``0.8629``, or a push model's per eval set (``best_score_``:
    ``{set: {metric: value}}``) as ``validation_0 auc 0.8629``; the set named ``training``, the training data itself
    (``rankcore fit`` without ``--validation`` monitors those rows), as ``training rows auc 0.8629``."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return ", ".join(f"{'training rows' if name == 'training' else name} {metric} {score:.6g}"
                     for name, metrics in value.items() for metric, score in metrics.items())


def _lines(path: str, d: dict) -> list[str]:
    """The human-readable form of :func:`describe_model`'s dict."""
    from .. import __version__

    version = d["rankcore_version"]
    written = f"written by rankcore {version}" + ("" if version == __version__ else f" (this is {__version__})")
    lines = [f"{path}: {d['estimator']} ({d['format']}, {written}); checksum and structure verified"]
    what = [f"{k.replace('_', ' ')} {_scores_said(d[k])}" if isinstance(d[k], (float, dict)) else f"{k} {d[k]}"
            for k in ("chosen", "metric", "best_score", "objective", "learner") if k in d]
    if "n_iter" in d:
        stop = d.get("stop_reason")
        ended = f" (stopped: {stop})" if stop and stop != "n_iter" else ""      # n_iter: it ran every iteration
        what.append(f"{d['n_iter']} iteration{'' if d['n_iter'] == 1 else 's'}{ended}")
    if "best_iteration" in d:
        what.append(f"best iteration {d['best_iteration']}")
    if what:
        lines.append("; ".join(what))
    names = d.get("feature_names")
    if names is None:
        lines.append(f"features: {d['n_features']}, by position (fitted on an array)")
    else:
        more = len(names) - SHOWN_FEATURES
        shown = ", ".join(names[:SHOWN_FEATURES]) + (f", ... and {more} more" if more > 0 else "")
        lines.append(f"features: {d['n_features']}, by name: {shown}")
    if "categorical" in d:         # as the features: the first SHOWN_FEATURES (a frame of thousands of them)
        folded = d.get("folded_categories", {})
        said = [_categories_said(name, n, folded.get(name))
                for name, n in list(d["categorical"].items())[:SHOWN_FEATURES]]
        more = len(d["categorical"]) - SHOWN_FEATURES
        lines.append("categories: " + ", ".join(said) + (f", ... and {more} more" if more > 0 else ""))
    if d.get("within_queries"):
        queries = f" (fitted on {d['n_queries']} queries)" if "n_queries" in d else ""
        lines.append(f"ranks within queries{queries}: score with the rows' query ids")
    elif "classes" in d:
        lines.append(f"labels: {', '.join(map(str, d['classes']))}; ranked first: {d['ranked_first']}")
    kernel = d.get("kernel_model")
    if kernel:
        lines.append(_kernel_said(kernel))
    if "searches" in d:
        lines.append(_searches_said(d["searches"]))
    params = d["params"]
    lines.append("parameters set: " + (", ".join(f"{k}={v!r}" for k, v in params.items()) if params
                                       else "none (every parameter at its default)"))
    if d.get("random_state_drawn"):
        lines.append("random_state=None: the fit's random draws came from NumPy's global RandomState, whose state the "
                     "file does not keep, so a refit may give another model (an integer random_state repeats a fit)")
    return lines


def _categories_said(name: str, n: int | None, folded: dict | None) -> str:
    """``c (12 categories)``, or of a column folded at fit ``c (255 most frequent of 300 categories kept, the other
    45 read as missing)``."""
    if n is None:
        return name
    if folded is None:
        return f"{name} ({n} categor{'y' if n == 1 else 'ies'})"
    other = folded["seen"] - n
    return (f"{name} ({n} most frequent of {folded['seen']} categories kept, the other {other} read as missing: "
            "folded at fit, more than the trees' max_bins)")
