"""Rows in queries on the command line: relevance grades, splits of whole queries, models that fit within queries.

A data file gives each row's query by a LIBSVM ``qid:`` field or a CSV
column named by ``--qid``.  The labels are then relevance grades (numbers
>= 0) unless ``--positive`` names the relevant one; the metrics are means
over queries (default :data:`QUERY_METRICS`); a test split takes whole
queries; only the estimators whose ``fit`` uses ``qid`` fit within queries.
With labels from clicks, ``fit --position COLUMN`` gives each row's display
position too, for the estimators whose ``fit`` takes ``position``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import CommandError

__all__ = ["QUERY_METRICS", "QUERY_MONITOR", "FIT_POSITION_HELP", "query_defaults", "qid_option",
           "query_labels", "check_fit_within_queries", "refuse_query_objectives", "grade_row_error", "query_split",
           "query_facts", "check_fit_with_positions",
           "check_positions_in_queries", "check_click_model_has_positions", "position_facts", "position_effects_note",
           "position_error"]

#: Metrics of the tables when the rows have query ids and ``--metrics`` is not given.
QUERY_METRICS = "ndcg@k:10,map,mrr"
#: The metric shown with the progress when the rows have query ids and ``--monitor`` is not given; also what
#: the push estimators score their own hold-out of queries by unless told otherwise.
QUERY_MONITOR = "ndcg@k:10"
#: ``--position`` of ``fit``.
FIT_POSITION_HELP = ("with --qid: the CSV column of each row's display position in its query's list (integers >= 0; "
                     "not a feature), for labels that are clicks: an effect per position is learned beside the model")


def query_defaults(text: str, *qids: Any) -> str:
    """Default metrics for these query ids: ``ndcg@k:10`` cut at the longest query when all are shorter.

    With several sets of ids (the splits of ``compare``) the cut is that of
    the set whose longest query is the shortest.  (An explicit ``ndcg@k:10``
    on shorter queries is an error; a default reads every place instead.)
    """
    from ..metrics import check_qid

    longest = min(int(check_qid(qid, len(qid)).sizes.max()) for qid in qids)
    return text if longest >= 10 else text.replace("ndcg@k:10", f"ndcg@k:{longest}")


def qid_option(data) -> str:
    """How the file gave its query ids: ``--qid COLUMN`` (CSV), ``qid:`` (LIBSVM) or its query file's name."""
    if data.format == "csv":
        return f"--qid {data.qid_name}"
    return data.query_file or "qid:"


def query_labels(args, data, specs: list[str], specs_option: str = "--metrics") -> np.ndarray:
    """The labels of rows in queries: relevance grades >= 0, or 0/1 with ``--positive``.

    ``specs_option`` names the option ``specs`` came from, in the message about them.

    Raises
    ------
    CommandError
        Text labels or a negative grade without ``--positive`` (naming the
        row), or a metric of 0/1 labels (``auc``, ``prec@k``) on more than
        two grades.
    """
    from ..registry import resolve

    if args.positive is not None:
        return data.binary_target(args.positive, require_both=False)
    option = qid_option(data)
    y = data.y
    if y.dtype.kind not in "biuf":
        raise CommandError(f"{data.source}: with query ids ({option}) the labels are relevance grades (numbers "
                           f">= 0), got {str(y[0])[:40]!r}; name the relevant label with --positive LABEL")
    negative = np.flatnonzero(y < 0)
    if negative.size:
        raise CommandError(f"{data.where(int(negative[0]))}: with query ids ({option}) the labels are relevance "
                           f"grades >= 0, got {float(y[negative[0]]):g}; name the relevant label with "
                           f"--positive LABEL")
    binary = [spec for spec in specs if resolve("metric", spec).task == "bipartite"]
    if binary and not np.isin(y, (0, 1)).all():
        grades = ", ".join(f"{g + 0.0:g}" for g in np.unique(y)[:8])   # + 0.0: -0 shown as 0
        raise CommandError(f"{specs_option}: {', '.join(binary)} judge{'s' if len(binary) == 1 else ''} 0/1 labels, "
                           f"but the rows in queries ({option}) have the grades {grades}; use a metric of "
                           f"grades ({QUERY_METRICS.replace(',', ', ')}, err@k:10) or name the relevant grade "
                           "with --positive LABEL")
    return np.asarray(y, dtype=np.float64)


#: The weak learner of a model fitted within queries when ``--learner`` is not given: the library's per-query default
#: ranker is the push on trees (``rankcore.boost(learner="trees").fit(X, y, qid=qid)``); on stumps, the push's own
#: default for one list, a fit within queries stopped improving after a few dozen of its 200 iterations.
QUERY_LEARNER = "trees"


def use_query_learner(configs) -> None:
    """Give each model that takes a weak learner and was given none the per-query one, :data:`QUERY_LEARNER`."""
    for config in configs:
        parameter = config.kind.options.get("learner")
        if parameter is not None and parameter not in config.params:
            config.params[parameter] = QUERY_LEARNER


def check_fit_within_queries(configs, data) -> None:
    """Every model must fit within queries (its estimator's ``fit`` uses ``qid``); else one error naming it."""
    for config in configs:
        if _fits_queries(config.kind.cls):
            continue
        kinds = " or ".join(sorted(name for name, kind in _kinds().items() if _fits_queries(kind.cls)))
        model = f"{config.label} ({config.kind.cls.__name__}) ranks one list and cannot fit within queries"
        if data.format == "csv":
            raise CommandError(f"--qid {data.qid_name}: {model}; use --model {kinds}, or leave out --qid and pass "
                               f"--drop {data.qid_name} to fit one list")
        raise CommandError(f"{data.source}: the rows have query ids ({qid_option(data)}), and {model}; use --model "
                           f"{kinds}")


def refuse_query_objectives(configs, data, args=None) -> None:
    """A model whose objective ranks only within queries (``lambdarank``, ``yetirank``, ``xendcg``) on rows
    without query ids: one error naming the objective and ``--qid``, before the labels are read.

    Without it the first complaint would be about the labels (a graded file is not two classes) or the
    default learner, and the advice would lead away from the missing query ids.
    """
    for config in configs:
        spec = config.params.get("objective")
        if spec is None or not getattr(_resolved_objective(spec), "requires_queries", False):
            continue
        where = ("name the query column with --qid COLUMN" if data.format == "csv"
                 else "give each row a qid: field (or a .query file beside the data)")
        raise CommandError(f"{_objective_option(args, spec)} ranks within queries, but {data.source} has no query "
                           f"ids: {where}")


def _objective_option(args, spec) -> str:
    """How the command line gave the objective ``spec``: ``--objective 'x'``, ``--param objective=x`` or within a
    ``--model`` spec (the option's own words, so that the user finds what to change)."""
    text = _spec_text(spec)
    if args is not None and getattr(args, "objective", None) is None:
        for pair in getattr(args, "param", None) or ():
            if str(pair).split("=", 1)[0].strip() == "objective":
                return f"--param objective={text}"
        if getattr(args, "model", None):
            return f"the model's objective {text!r}"
    return f"--objective {text!r}"


def grade_row_error(exc: Exception, data, rows: np.ndarray | None = None, parameter: str = "y") -> CommandError | None:
    """The library's refusal of a grade at a row (``y: ... at row 12``: a grade beyond an objective's or a metric's
    gains) said at that row's place in the file (``data.csv, line 14``); None for any other error.

    The library counts rows from 0 among the rows it was given and says which in the refusal's ``row`` field
    (:class:`~rankcore.ArgumentRefusal`, :class:`~rankcore.MetricRefusal`); in a file the user looks for a line.
    ``rows``: the file's row of each row given (a training split's), or None when they were the file's rows in
    order; ``parameter``: the argument the rows were given as (``"eval_set y"``: a monitored split's).
    """
    from .._argument_refusal import ArgumentRefusal
    from ..metrics import MetricRefusal

    row = getattr(exc, "row", None)
    # the labels the refusal is of: an ArgumentRefusal's argument, a MetricRefusal's labels
    named = getattr(exc, "parameter" if isinstance(exc, ArgumentRefusal) else "labels", None) \
        if isinstance(exc, (ArgumentRefusal, MetricRefusal)) else None
    text = str(exc)
    if row is None or named != parameter or not text.startswith(f"{parameter}: "):
        return None
    if rows is not None:
        if row >= len(rows):
            return None
        row = int(rows[row])
    if row >= data.n_samples:
        return None
    # the place the library says (its row among those given) becomes the line; its "got 1100.0" says what was got
    head, _, tail = text[len(parameter) + 2:].partition(f" at row {exc.row}")
    before, got, value = head.rpartition("got ")
    return CommandError(f"{data.where(row)}: {before}got the grade {value}{tail}" if got else
                        f"{data.where(row)}: {head}{tail}")


def _resolved_objective(spec: Any) -> Any:
    """The objective a spec names, or None when it names none (its own refusal comes later, from the fit)."""
    from ..registry import resolve

    if not isinstance(spec, str):
        return spec
    try:
        return resolve("objective", spec)
    except (ValueError, TypeError, LookupError):
        return None


def _spec_text(spec: Any) -> str:
    """The objective as the user wrote it (a spec string), or its registered spec."""
    return spec if isinstance(spec, str) else str(getattr(spec, "named_spec", spec))


def _fits_queries(cls) -> bool:
    """Whether the estimator's ``fit`` uses ``qid``: it requests it as scikit-learn fit metadata."""
    try:
        routing = cls().get_metadata_routing()
    except (AttributeError, TypeError, ValueError):   # not a scikit-learn estimator with defaults
        return False
    return routing.fit.requests.get("qid") is True


def _kinds() -> dict:
    from ._models import KINDS

    return KINDS


def query_split(qid: Any, test_size: float, random_state: int) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, test rows): a seeded share ``test_size`` of the queries, whole, is the test split.

    The queries are drawn from the sorted distinct ids, so the split does not
    depend on the order of the rows.

    Raises
    ------
    CommandError
        Fewer than two queries.
    """
    from ..metrics import check_qid

    queries = check_qid(qid, len(qid))
    if queries.n_queries < 2:
        raise CommandError(f"--test-size {test_size}: the rows form {queries.n_queries} query; a test split of "
                           "whole queries needs at least 2 (or give --test DATA)")
    n_test = min(queries.n_queries - 1, max(1, int(round(test_size * queries.n_queries))))
    rng = np.random.default_rng(random_state)
    test = np.zeros(queries.n_queries, dtype=bool)
    test[rng.permutation(queries.n_queries)[:n_test]] = True
    in_test = test[queries.codes]
    return np.flatnonzero(~in_test), np.flatnonzero(in_test)


def query_facts(y: np.ndarray, qid: Any) -> str:
    """``"40 queries (3 to 12 rows), grades 0 to 4"`` for the status line (``8 rows each`` when all are alike)."""
    from ..metrics import check_qid

    sizes = check_qid(qid, len(qid)).sizes
    rows = f"{int(sizes.min())} rows each" if sizes.min() == sizes.max() else \
        f"{int(sizes.min())} to {int(sizes.max())} rows"
    return f"{sizes.shape[0]} queries ({rows}), grades {float(y.min()):g} to {float(y.max()):g}"


# --------------------------------------------------------------------------
# Display positions (``fit --position COLUMN``)
# --------------------------------------------------------------------------


def check_fit_with_positions(configs, column: str) -> None:
    """Every model must learn position effects (its estimator's ``fit`` takes ``position``); else one error naming
    it and the models that do, before the data are read."""
    for config in configs:
        if _takes_positions(config.kind.cls):
            continue
        kinds = " or ".join(sorted(name for name, kind in _kinds().items() if _takes_positions(kind.cls)))
        raise CommandError(f"--position {column}: {config.label} ({config.kind.cls.__name__}) cannot learn effects "
                           f"of display positions (its fit takes no position); use --model {kinds}, or leave out "
                           f"--position and pass --drop {column}")


def _takes_positions(cls) -> bool:
    """Whether the estimator's ``fit`` has a ``position`` parameter (and fits within queries, where it applies)."""
    import inspect

    try:
        parameters = inspect.signature(cls.fit).parameters
    except (TypeError, ValueError):
        return False
    return "position" in parameters and _fits_queries(cls)


def check_click_model_has_positions(configs, args) -> None:
    """``--param position_bias=em`` (or a ``--model`` spec that sets it: the click model) needs ``--position``: said
    with the options, named by the one that set it, before the file is read (the library's refusal names ``fit``'s
    arguments)."""
    if args.position is not None:
        return
    # the option that set it: --param, or the --model spec (``push:position_bias=em``), which holds it as well
    by_param = any(item.partition("=")[0].strip() == "position_bias" for item in getattr(args, "param", None) or ())
    for config in configs:
        bias = config.params.get("position_bias")
        if isinstance(bias, str) and bias.strip().lower().partition(":")[0] == "em":
            option = "--param" if by_param else "--model"
            raise CommandError(f"{option} position_bias={bias}: the click model reads where each row was shown: name "
                               "the CSV column of display positions with --position COLUMN (and the query ids with "
                               "--qid COLUMN)")


def check_positions_in_queries(args) -> None:
    """Display positions are places within each query's list: ``--position`` on a CSV file needs ``--qid``.

    Said before the file is read (its query-id column would be read as a
    feature first); another format's refusal of ``--position`` is the
    reader's.
    """
    from .datasets import detect_format

    if args.position is None or args.qid is not None:
        return
    if (args.data_format or detect_format(args.data)) == "csv":
        raise CommandError(f"--position {args.position}: display positions are places within each query's list; "
                           "name the rows' query-id column with --qid COLUMN")


def position_facts(position: np.ndarray) -> str:
    """``"positions 0 to 9 (10 places)"`` for the status line."""
    places = np.unique(position)
    return f"positions {int(places[0])} to {int(places[-1])} ({places.shape[0]} place{'s' * (places.shape[0] > 1)})"


#: Decimals of the printed position effects at most: smaller effects print as 0 (what a fit leaves below them is
#: rounding, e.g. with one place, or under a huge ``position_l2``).
MAX_EFFECT_DECIMALS = 6


def position_effects_note(estimator, column: str, shown: int = 10) -> str | None:
    """``"position effects (pos): 0 +0.412, 1 +0.170, ...; the model ranks without them"``, or None (no effects).

    The effects are learned up to a common shift, so only their differences
    say anything; a long list shows its first and last places.
    """
    ids, effects = getattr(estimator, "position_ids_", None), getattr(estimator, "position_effects_", None)
    theta = getattr(estimator, "position_propensities_", None)
    if ids is not None and theta is not None:        # position_bias=em: the click model's examination per place
        pairs = [f"{int(p)} {float(t):.3f}" for p, t in zip(ids, theta)]
        pairs = pairs if len(pairs) <= shown else pairs[:shown - 4] + ["..."] + pairs[-2:]
        return (f"position propensities ({column}): {', '.join(pairs)} after {estimator.position_em_rounds_} EM "
                "rounds; the model ranks without them")
    if ids is None or effects is None:
        return None
    if len(ids) == 1:
        return f"position effects ({column}): one place ({int(ids[0])}), no effect to learn"
    largest = float(np.max(np.abs(effects))) if len(effects) else 0.0
    # one number of decimals for all: the largest effect to 3 significant digits, at most 6 (below, rounding noise)
    decimals = max(0, 2 - int(np.floor(np.log10(largest)))) if largest > 0 and np.isfinite(largest) else 3
    decimals = min(decimals, MAX_EFFECT_DECIMALS)
    pairs = [f"{int(p)} {float(b) + 0.0:+.{decimals}f}" for p, b in zip(ids, np.round(effects, decimals))]
    if len(pairs) > shown:
        pairs = pairs[:shown - 4] + ["..."] + pairs[-2:]
    return f"position effects ({column}): {', '.join(pairs)}; the model ranks without them"


def position_error(exc: Exception, column: str) -> CommandError | None:
    """The library's refusal of ``position`` (an objective without a curvature...) as one naming ``--position``;
    None for another error.

    Chosen by the refusal's class and fields (:class:`rankcore.validation.ArgumentRefusal`), never its text: a
    reworded library message keeps the option's name.
    """
    from ..validation import ArgumentRefusal

    if not (isinstance(exc, ArgumentRefusal) and exc.parameter == "position"):
        return None
    return CommandError(f"--position {column}: {exc.detail}")
