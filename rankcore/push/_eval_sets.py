"""``fit(..., eval_set=...)`` of the push estimators: one validation set or several, and the one early stopping watches.

LightGBM's and XGBoost's users write ``eval_set=[(X_train, y_train), (X_val, y_val)]`` (with queries, one triple
``(X_val, y_val, qid_val)`` per set).  Every set is scored by ``scoring`` after each iteration
(``evals_result_``, keyed by the sets' names); early stopping watches one of them, and ``validation_scores_`` and
``best_iteration_`` are that set's.

The watched set is the last one, as in XGBoost, except that a set which is the training data itself (the very ``X``
and ``y`` objects given to ``fit``, and within queries the same queries, whatever their ids) is never watched while
another set is there.  LightGBM's scikit-learn API stops instead when any set but the training data stops improving.
The last-set rule is kept because it makes the model depend on one set: ``best_iteration_`` and the kept prefix are
those of the set the user put last, so adding sets to watch them (a second test set, the training rows) never
changes the model -- the fit equals the one given that set alone -- whereas stopping on whichever set stalls first
would cut the fit at the noisiest of them.  The training data are skipped because their score keeps improving as the
model fits those very rows: watching them would never stop.  When every set is the training data, early stopping is
switched off with a warning (:data:`TRAINING_ONLY`), as LightGBM does ("Only training set found, disabling early
stopping"): the curves are recorded and the fit runs ``n_iter`` iterations.  The name ``"training"`` is the training
data's alone: ``eval_names`` may not give it to another set, since a model file keeps only the name.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from .._caller import outside_stacklevel
from .._same_rows import matching_rows, rows_in_order_of
from ..metrics import MetricRefusal, RankingCache, check_qid, check_queries
from ..validation import is_list_of_eval_sets
from ._row_inputs import check_eval_init_scores
from ._scoring import MetricScoring

__all__ = ["EvalCurves", "EvalSets", "read_eval_sets", "read_eval_metric", "check_set_names", "ValidationSet",
           "Validation", "eval_metric_refusal", "TRAINING_NAME", "TRAINING_ONLY", "watches_training",
           "stops_on_training", "eval_set_stopping"]

#: The longest name of a validation set (``eval_names``, and a model file's).
MAX_NAME_LENGTH = 200

#: The name of a set that is the training data itself (LightGBM's): ``evals_result_``'s key, which ``rankcore
#: info`` reads as "the training rows", so no other set may take it.
TRAINING_NAME = "training"

#: The warning of a fit asked to stop early on an ``eval_set`` whose every set is the training data itself.
TRAINING_ONLY = ("eval_set: every set is the training data itself (the same X and y objects and queries), whose "
                 "score keeps improving as the model fits those rows; early stopping is off for this fit, as in "
                 "LightGBM (n_iter iterations; the curves are still recorded in evals_result_). Add a held-out set "
                 "to stop on, or leave out eval_set for early_stopping's own held-out rows")


@dataclass(frozen=True)
class EvalSets:
    """``eval_set`` read as a list of sets: each as given (the fit checks it), its name, and the one watched.

    Attributes
    ----------
    sets : tuple
        Each a pair ``(X_val, y_val)`` or a triple ``(X_val, y_val, qid_val)``, as given.
    names : tuple of str
        ``"validation_0"``, ``"validation_1"``, ... (XGBoost's names; ``"training"``, LightGBM's, for a set that is the
        training data itself), or ``eval_names``.
    watched : int
        The set early stopping watches: the last one that is not the training data itself.
    metrics : tuple of Metric
        ``eval_metric`` resolved (:func:`read_eval_metric`): the metrics recorded beside ``scoring``.
    init_scores : tuple
        ``eval_init_score``: each set's initial scores as given (None: the set starts at 0), or empty.
    training : tuple of int
        The sets that are the training data itself (the same ``X`` and ``y`` objects): scored from ``init_score``
        when they have no initial scores of their own, as LightGBM does.
    """

    sets: tuple
    names: tuple
    watched: int
    metrics: tuple = ()
    init_scores: tuple = ()
    training: tuple = ()

    def with_init_scores(self, init_scores: tuple) -> "EvalSets":
        """The same sets with each set's initial scores (``eval_init_score``; None for a set without)."""
        return replace(self, init_scores=tuple(init_scores))

    def label(self, i: int) -> str:
        """How errors name set ``i``: ``"eval_set"`` when it is the only one, else ``"eval_set[i]"``."""
        return "eval_set" if len(self.sets) == 1 else f"eval_set[{i}]"

    def map(self, function: Callable[[Any], Any]) -> "EvalSets":
        """The same sets with ``function`` applied to each of their entries (Dask: computed to the client)."""
        return replace(self, sets=tuple(tuple(function(v) for v in s) if isinstance(s, (tuple, list)) else s
                                        for s in self.sets))


def _is_training_data(given: Any, X: Any, y: Any, qid: Any = None, group: Any = None) -> bool:
    """Whether a set is the training data itself: the same ``X`` and ``y`` objects (LightGBM's test) and, in a fit
    within queries, the same queries (:func:`_same_queries`).

    The same rows cut into other queries are another ranking problem: their per-query score is no score of the
    training queries, so such a set is a validation set like any other (named, watched, weighted as one).
    """
    if not (X is not None and isinstance(given, (tuple, list)) and len(given) >= 2
            and given[0] is X and given[1] is y):
        return False
    if qid is None and group is None:
        return True
    return len(given) == 3 and _same_queries(given[2], qid, group)


def _same_queries(qid_val: Any, qid: Any, group: Any) -> bool:
    """Whether a set's query ids ``qid_val`` cut the training rows into the queries ``qid`` (or LightGBM's sizes
    ``group``) does: the same object, or, in memory, the same partition of the rows.

    The fit reads ids by value and only to group rows, so ids relabelled (``qid + 100``) or of another type
    (``"1"`` for ``1``) that group the rows alike are the same queries.  A Dask collection is compared by identity
    alone: comparing its values would compute it."""
    if qid_val is qid:
        return True
    if any(hasattr(v, "__dask_graph__") for v in (qid_val, qid, group)):
        return False
    try:
        ids = np.asarray(qid_val)
        if qid is not None and ids.shape == np.shape(qid) and bool(np.array_equal(ids, np.asarray(qid))):
            return True         # the same ids: no grouping needed
        n = ids.shape[0] if ids.ndim == 1 else -1
        given, training = check_qid(qid_val, n, name="qid_val"), check_queries(qid, group, n)
    except (TypeError, ValueError, IndexError):  # ids the fit refuses: its checks say what is wrong
        return False
    return given.groups_rows_as(training)


def _copy_of_training(given: Any, X: Any, y: Any, qid: Any = None, group: Any = None) -> str | None:
    """How a set that is not the very training objects holds the training rows: ``""`` row for row, ``", in another
    order"`` shuffled (:func:`~rankcore._same_rows.matching_rows`), in the training queries; None when it does not
    (other rows, only some of them, or the rows cut into other queries: a validation set like any other).
    O(n·d + n log n), and only for a set of the training data's shape."""
    if X is None or not isinstance(given, (tuple, list)) or len(given) < 2:
        return None
    if any(hasattr(v, "__dask_graph__") for v in (X, y, *given)):
        return None             # comparing a Dask collection's values would compute it
    if np.shape(given[0]) != np.shape(X):
        return None
    orders = matching_rows(X, y, given[0], given[1])
    if orders is None:
        return None
    in_order = bool(np.array_equal(orders[0], orders[1]))
    if qid is not None or group is not None:
        if len(given) != 3 or hasattr(given[2], "__dask_graph__"):
            return None
        try:
            ids = given[2] if in_order else rows_in_order_of(given[2], orders)
        except (TypeError, ValueError, IndexError):     # ids the fit refuses: its checks say what is wrong
            return None
        if not _same_queries(ids, qid, group):
            return None
    return "" if in_order else ", in another order"


def _warn_training_copies(sets: tuple, training: tuple, *training_data: Any) -> None:
    """Warn of each set that holds the training rows without being the very ``X`` and ``y`` given to ``fit`` (a
    copy, in order or shuffled): the command line's ``--validation`` warning, in the Python API's words.  The set
    stays a validation set as given (its own ``eval_init_score`` and order): only the user knows which was meant."""
    for i, given in enumerate(sets):
        if i in training or (how := _copy_of_training(given, *training_data)) is None:
            continue
        label = "eval_set" if len(sets) == 1 else f"eval_set[{i}]"
        queries = "" if training_data[2] is None and training_data[3] is None else ", in the same queries"
        warnings.warn(f"{label} holds the training data (the same rows and labels{how}{queries}), though not "
                      "the very X and y given to fit: its scores are of rows the model is fitted on, not a hold-out, "
                      "and early stopping on it follows a score that keeps improving; give rows held out of the "
                      "training data (or X and y themselves, to record the training curve)", UserWarning,
                      stacklevel=outside_stacklevel())


def watches_training(evals: "EvalSets | None") -> bool:
    """Whether the set early stopping would watch is the training data itself: every set of ``eval_set`` is.

    Stopping there would follow a score that improves as long as the model fits the very rows (LightGBM warns and
    switches early stopping off), so the fits record the curves and run every iteration (:data:`TRAINING_ONLY`).
    """
    return evals is not None and evals.watched in evals.training


def stops_on_training(evals: "EvalSets | None") -> bool:
    """:func:`watches_training`, warned (:data:`TRAINING_ONLY`): the fit then switches early stopping off."""
    if not watches_training(evals):
        return False
    warnings.warn(TRAINING_ONLY, UserWarning, stacklevel=outside_stacklevel())
    return True


def eval_set_stopping(stopping: Any, evals: "EvalSets | None", stops: bool = False) -> Any:
    """The early-stopping rule ``stopping`` (an ``EarlyStopping``) of a fit given ``evals``.

    Its mode is ``"eval_set"`` when the fit stops on them (``stops``: ``early_stopping=True``, which the Dask fit
    resolves apart), but ``"off"`` when every set is the training data itself (:func:`stops_on_training`, warned):
    the fit is that of ``early_stopping=False``, without ``"auto"``'s large-data settings (more trees, a larger
    rate), which are chosen for a fit that stops.
    """
    if evals is None or not (stops or stopping.mode == "eval_set"):
        return stopping
    if stops_on_training(evals):
        return replace(stopping, mode="off", auto=False)
    return replace(stopping, mode="eval_set")


def _refuse_training_name(names: tuple, training: tuple) -> None:
    """Refuse ``eval_names`` calling a set that is not the training data itself ``"training"``: the model keeps
    the name alone, and ``rankcore info`` would say its scores are of the training rows."""
    for i, value in enumerate(names):
        if value == TRAINING_NAME and i not in training:
            raise ValueError(f"eval_names[{i}]: {TRAINING_NAME!r} names the training data itself (the same X and y "
                             f"objects given to fit), and eval_set[{i}] is not; rankcore info would call its scores "
                             f"the training rows'. Give the set another name (\"validation\", \"holdout\", ...)")


def check_set_names(names: Any, n_sets: int, *, name: str = "eval_names") -> tuple[str, ...]:
    """``n_sets`` distinct names of validation sets: non-empty printable strings of at most 200 characters.

    Raises TypeError for anything but a list (or tuple) of names, ValueError for a wrong count or a bad or
    repeated name, each naming ``name`` (and the index of the bad one).
    """
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)):
        raise TypeError(f"{name}: expected a list of names, one per set of eval_set, got {names!r}")
    if len(names) != n_sets:
        raise ValueError(f"{name}: expected {n_sets} name(s), one per set of eval_set, got {len(names)}")
    for i, value in enumerate(names):
        if not (isinstance(value, str) and 0 < len(value) <= MAX_NAME_LENGTH and value.isprintable()):
            raise ValueError(f"{name}[{i}]: expected a non-empty printable string of at most {MAX_NAME_LENGTH} "
                             f"characters, got {value!r}")
    repeated = next((value for i, value in enumerate(names) if value in names[:i]), None)
    if repeated is not None:
        raise ValueError(f"{name}: {repeated!r} names two sets; each set needs a name of its own")
    return tuple(names)


def _default_names(n_sets: int, training: tuple) -> tuple[str, ...]:
    """The sets' names without ``eval_names``: ``"training"`` for the first set that is the training data itself
    (LightGBM's name), ``"validation_i"`` (XGBoost's, ``i`` its place in ``eval_set``) for the others.

    A score of the rows the model was fitted on is no validation score: named ``validation_0``, ``best_score_`` and
    ``rankcore info`` would call it one.
    """
    first = training[0] if training else None
    return tuple(TRAINING_NAME if i == first else f"validation_{i}" for i in range(n_sets))


def read_eval_metric(eval_metric: Any) -> tuple:
    """``fit``'s ``eval_metric`` (one metric spec or a list of them) as distinct registered scalar metrics.

    Each spec is resolved once; a repeated one (the same resolved spec) is kept once, in its first place.  Raises
    TypeError or ValueError naming ``eval_metric`` (``eval_metric[i]`` in a list) and the bad spec.
    """
    from ..base import resolve_parameter

    if eval_metric is None:
        return ()
    several = not isinstance(eval_metric, str) and not hasattr(eval_metric, "spec")
    items = _metric_sequence(eval_metric) if several else [eval_metric]
    metrics = {}
    for i, given in enumerate(items):
        name = f"eval_metric[{i}]" if several else "eval_metric"
        metric = resolve_parameter(name, "metric", given)
        if not getattr(metric, "scalar", True) or metric.greater_is_better is None:
            raise ValueError(f"{name}={metric.spec!r}: the metric is not a scalar score; eval_metric records "
                             "scalar metrics (\"ndcg@k:5\", \"map@k:10\", \"auc\", ...)")
        metrics.setdefault(metric.spec, metric)
    return tuple(metrics.values())


def _metric_sequence(eval_metric: Any) -> list:
    """The items of ``eval_metric`` given as several specs: any ordered sequence (a list, a tuple, a 1-D array, a
    pandas Series or Index); a set (no order), a mapping, bytes or a non-iterable are a ``TypeError``."""
    expected = "expected a metric spec (\"ndcg@k:5\") or a list of them"
    if isinstance(eval_metric, (set, frozenset, dict, bytes, bytearray)) or not hasattr(eval_metric, "__iter__"):
        unordered = " (a set has no order: give a list)" if isinstance(eval_metric, (set, frozenset)) else ""
        raise TypeError(f"eval_metric: {expected}, got {eval_metric!r}{unordered}")
    if getattr(eval_metric, "ndim", 1) != 1:
        raise TypeError(f"eval_metric: {expected}, got an array of shape {eval_metric.shape}")
    # an array's items are NumPy strings: plain str, as a list's would be (their keys in evals_result_)
    return [str(item) if isinstance(item, str) else item for item in eval_metric]


def read_eval_sets(eval_set: Any, eval_names: Any = None, eval_metric: Any = None, *, X: Any = None,
                   y: Any = None, init_scores: Any = None, qid: Any = None, group: Any = None) -> EvalSets | None:
    """``fit``'s ``eval_set`` (one pair or triple, or a list of them), ``eval_names``, ``eval_metric`` and
    ``eval_init_score`` (``init_scores``: the sets' initial scores) as :class:`EvalSets`.

    ``X``, ``y``, ``qid`` and ``group``: the training data as given to ``fit``, to recognize a set that is the
    training data itself (:func:`_is_training_data`).
    None for None; an :class:`EvalSets` is returned as it is (the one-worker Dask fit passes one on).  The sets'
    shapes and contents are the fit's to check.
    """
    if isinstance(eval_set, EvalSets):
        return eval_set
    sets = _read_sets(eval_set, eval_names, eval_metric, (X, y, qid, group))
    if init_scores is None:
        return sets
    if sets is None:
        raise ValueError("eval_init_score: given without eval_set; it holds the initial scores of its sets")
    return sets.with_init_scores(check_eval_init_scores(init_scores, len(sets.sets)))


def _read_sets(eval_set: Any, eval_names: Any, eval_metric: Any, training_data: tuple) -> EvalSets | None:
    if eval_set is None:
        if eval_names is not None:
            raise ValueError("eval_names: given without eval_set; it names the sets of eval_set")
        # an empty sequence (a list, a tuple, an array) asks for no metric: nothing to score
        empty = not isinstance(eval_metric, str) and hasattr(eval_metric, "__len__") and len(eval_metric) == 0
        if eval_metric is not None and not empty:
            raise ValueError("eval_metric: given without eval_set; there is no validation set to score: pass "
                             "eval_set=(X_val, y_val) (or a list of sets)")
        return None
    metrics = read_eval_metric(eval_metric)
    sets = tuple(eval_set) if is_list_of_eval_sets(eval_set) else (eval_set,)
    training = tuple(i for i, given in enumerate(sets) if _is_training_data(given, *training_data))
    _warn_training_copies(sets, training, *training_data)
    names = _default_names(len(sets), training) if eval_names is None else check_set_names(eval_names, len(sets))
    _refuse_training_name(names, training)
    others = [i for i in range(len(sets)) if i not in training]
    return EvalSets(sets, names, others[-1] if others else len(sets) - 1, metrics, training=training)


class ValidationSet:
    """One set of checked validation rows: scored after every iteration, its scores and curve kept as they grow.

    ``queries``: the rows' queries (scored per query) or None; ``init``: the scores the set starts from
    (``eval_init_score``; None: 0); ``name``: its key in ``evals_result_``;
    ``label``: how errors name it (``"eval_set"``, ``"eval_set[1]"``; ``""`` for rows held out of the training
    data, whose labels are ``y``'s).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, queries: Any = None, *,
                 name: str = "validation", label: str = "", init: np.ndarray | None = None):
        self.X, self.y, self.w, self.queries = X, y, w, queries
        self.init = init
        self.name, self.label = name, label
        self.scores = np.zeros(0)
        self.curve: list[float] = []
        self.metric_curves: dict[str, list[float]] = {}
        # the scores before any iteration (zero, init_score or an init model's): best_score_ of a fit none bettered
        self.start_scores: dict[str | None, float] = {}
        self._score_of: Callable[[np.ndarray], float] | None = None
        self._metrics_of: tuple = ()

    def start(self, scoring: Any, n_threads: int, metrics: tuple = ()) -> float:
        """Bind ``scoring`` and ``metrics`` (``eval_metric``'s :class:`MetricScoring`) to the labels (checked once)
        and empty the curves; the ``scoring`` score before any iteration."""
        # the model's scores plus the rows' initial scores (init_score), as the fit's training scores
        self.scores = np.zeros(self.X.shape[0]) if self.init is None else self.init.copy()
        self.curve = []
        labels = f"{self.label} y" if self.label else "y"
        # within queries the list metrics of this set share one sort of its scores after each iteration
        cache = None if self.queries is None or not metrics else RankingCache(self.queries, n_threads)
        try:
            self._score_of = scoring.bind(self.y, self.w, n_threads=n_threads, queries=self.queries, name=labels,
                                          cache=cache)
            start = self._score_of(self.scores)
        except ValueError as exc:
            said = not self.label.endswith("]") or _names_set(exc, self.label, labels)
            if not isinstance(exc, MetricRefusal):
                if said:
                    raise
                raise ValueError(f"{self.label}: {exc}") from None
            if not said:                                            # which of several sets
                raise exc.with_context(f"{self.label}: {exc}", eval_set=self.label) from None
            if exc.eval_set is None and self.label:
                # the set refused, as a field too (the default metric's refusal names it only in its labels)
                raise exc.with_context(str(exc), labels=exc.labels, eval_set=self.label) from None
            raise
        bound, starts = [], {}
        for metric in metrics:
            try:
                bound.append(metric.bind(self.y, self.w, n_threads=n_threads, queries=self.queries, name=labels,
                                         cache=cache))
                # a metric that counts none of the queries: refused before iteration 1
                starts[metric.name] = float(bound[-1](self.scores))
            except ValueError as exc:
                raise eval_metric_refusal(exc, metric.name, labels, self.label or None) from None
        self.start_scores = {None: float(start), **starts}      # None: scoring's, named by Validation.starts
        self._metrics_of = tuple(zip((m.name for m in metrics), bound))
        self.metric_curves = {name: [] for name, _ in self._metrics_of}
        return start

    def add(self, ranker: Any, alpha: float, predict_sum: Any, n_threads: int) -> float:
        """Add α·h(x) of an iteration's weak ranker to the scores; their score, appended to the curve.

        ``predict_sum``: the learner's (trees) one parallel pass over the rows, bitwise α·h(x) as the
        ranker's own ``predict`` gives it; None: ``ranker.predict``.
        """
        if predict_sum is not None:
            self.scores += predict_sum([ranker], np.array([alpha], dtype=np.float64), self.X, n_threads)
        else:
            self.scores += alpha * ranker.predict(self.X)
        value = self._score_of(self.scores)
        self.curve.append(value)
        for name, score_of in self._metrics_of:
            try:
                self.metric_curves[name].append(score_of(self.scores))
            except MetricRefusal as exc:        # a plugin's refusal of these scores, found as the fit goes on
                raise eval_metric_refusal(exc, name, f"{self.label} y" if self.label else "y",
                                          self.label or None) from None
        return value


def _names_set(exc: ValueError, label: str, labels: str) -> bool:
    """Whether the refusal ``exc`` names the set ``label`` (its labels ``labels``) already."""
    return isinstance(exc, MetricRefusal) and (exc.eval_set == label or exc.labels == labels)


def eval_metric_refusal(exc: Exception, spec: str, labels: str, eval_set: str | None) -> MetricRefusal:
    """``eval_metric``'s refusal of the metric ``spec`` on the labels ``labels``: a :class:`MetricRefusal` said by
    its detail (the sentence names the metric and the labels once), another error whole."""
    refusal = MetricRefusal.of_metric(exc, spec, labels)       # a plugin's own error: what follows its names
    return refusal.with_context(f"eval_metric: the metric {spec!r} cannot score {labels}: {refusal.detail}",
                                parameter="eval_metric", eval_set=eval_set)


@dataclass(frozen=True)
class Validation:
    """The validation sets of one run of the driver and the one watched (early stopping, ``validation_scores_``).

    ``from_eval_set``: the sets are the user's ``eval_set`` (the fit records every curve in ``evals_result_``),
    not rows held out of the training data; ``metrics``: ``eval_metric``'s :class:`MetricScoring`, scored on
    every set beside ``scoring``.
    """

    sets: tuple
    watched: int = 0
    from_eval_set: bool = False
    metrics: tuple = ()

    @classmethod
    def held_out(cls, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, queries: Any = None, *,
                 init: np.ndarray | None = None) -> "Validation":
        """Rows held out of the training data (early stopping's split): one set, watched (``init``: their
        initial scores)."""
        return cls((ValidationSet(X, y, w, queries, init=init),))

    @property
    def watched_set(self) -> ValidationSet:
        return self.sets[self.watched]

    @classmethod
    def of_eval_sets(cls, sets: tuple, evals: EvalSets, scoring: Any) -> "Validation":
        """The checked ``sets`` of ``evals`` with its ``eval_metric``, less a metric that is ``scoring``'s own
        (its curve is recorded once, under ``scoring``'s key)."""
        metrics = tuple(MetricScoring(m, parameter=None) for m in evals.metrics if m.spec != scoring.name)
        return cls(tuple(sets), evals.watched, from_eval_set=True, metrics=metrics)

    def starts(self, metric: str) -> dict:
        """Every set's scores before the fit's first iteration, ``{set name: {metric: value}}`` in the layout of
        :meth:`curves` (``metric``: ``scoring``'s name, the key of the score :meth:`ValidationSet.start` returned)."""
        return {s.name: {(metric if key is None else key): value for key, value in s.start_scores.items()}
                for s in self.sets}

    def curves(self, metric: str, n_kept: int) -> dict:
        """``evals_result_``: set name -> {metric: its scores after each of the first ``n_kept`` iterations},
        ``metric`` (``scoring``'s) first, then ``eval_metric``'s in their order."""
        return EvalCurves.of({s.name: {metric: np.array(s.curve[:n_kept], dtype=np.float64),
                                       **{name: np.array(curve[:n_kept], dtype=np.float64)
                                          for name, curve in s.metric_curves.items()}}
                              for s in self.sets})


# LightGBM's names of the eval sets (valid_0, ...) and of its list metrics at a cut-off (ndcg@10, map@5)
_LIGHTGBM_SET = re.compile(r"^valid_(\d+)$")
_LIGHTGBM_METRIC = re.compile(r"^(ndcg|map)@(\d+)$")


class MissingCurve(KeyError):
    """A key ``evals_result_`` does not hold: a KeyError whose message prints as written (KeyError quotes it)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _plain(value: Any) -> Any:
    """``value`` (a dict, an array, a NumPy scalar) as plain Python: dicts, lists, floats and ints."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


class EvalCurves(dict):
    """``evals_result_``: a plain ``{name: {metric: curve}}`` dict (AutoRanker's: ``{name: {metric: {model:
    score}}}``) whose missing key is a KeyError that names the key a script written for LightGBM meant
    (``valid_0``: ``validation_0``; ``ndcg@10``: ``ndcg@k:10``).

    Python's own KeyError names only the missing key, and LightGBM's names of both the sets and the metrics differ.
    The curves are float64 NumPy arrays (LightGBM and XGBoost hold lists): ``curve.argmax()``, ``curve[-1]`` and
    ``curve.shape`` read them; :meth:`to_lists` gives the lists that ``json.dumps`` writes.
    """

    def copy(self) -> "EvalCurves":
        """A copy as deep as the curves (each array copied), each level an :class:`EvalCurves` still: ``dict.copy``
        would give a plain dict, whose missing key would not name the key meant."""
        return type(self)({key: value.copy() if hasattr(value, "copy") else value for key, value in self.items()})

    def to_lists(self) -> dict:
        """The curves as plain dicts of Python floats in lists (``{name: {metric: [score, ...]}}``): LightGBM's and
        XGBoost's layout, which ``json.dumps`` writes (it refuses NumPy arrays)."""
        return {key: _plain(value) for key, value in self.items()}

    @classmethod
    def of(cls, curves: dict) -> "EvalCurves":
        """The curves ``{name: {metric: curve}}``, each level answering a missing key with the name meant."""
        return cls({name: cls(metrics) for name, metrics in curves.items()})

    def __missing__(self, key):
        hint = self._meant(key)
        keys = ", ".join(repr(k) for k in self)
        raise MissingCurve(f"{key!r}: not among evals_result_'s keys here ({keys}){hint}")

    def _meant(self, key) -> str:
        """What a LightGBM script's ``key`` is here, as the end of the KeyError's message, or ``""``."""
        text = str(key)
        found = _LIGHTGBM_SET.match(text)
        if found and f"validation_{found[1]}" in self:
            return (f"; LightGBM's {text} is validation_{found[1]} here (XGBoost's set names; fit(..., "
                    f"eval_names=[...]) names the sets)")
        found = _LIGHTGBM_METRIC.match(text)
        if found:
            spec = f"{found[1]}@k:{found[2]}"
            here = (f"{spec} is here, with ties averaged and queries without a relevant row left out; "
                    if spec in self else "")
            theirs = f"{spec},convention=lightgbm"
            record = f"{theirs} is" if theirs in self else f"fit(..., eval_metric=\"{theirs}\") records"
            return f"; the curves are keyed by metric spec: {here}{record} LightGBM's {text}"
        return ""
