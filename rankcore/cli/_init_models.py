"""``rankcore fit DATA --init-model MODEL``: continue a saved model with more weak rankers.

The estimator's ``fit(..., init_model=...)`` (LightGBM's ``init_model``, XGBoost's ``xgb_model``): the fit starts
from the saved model's scores and the model written holds its weak rankers followed by the new ones.  The
continuation's settings are the command line's, as for any fit: give the model's ``--learner``, ``--objective``
and so on again, or others whose weak rankers can live in one model with the saved ones (the library says which
cannot).  What the command line adds:

* the relevant label: a fit on one list maps the file's relevant label (``--positive``, default the greater) to 1,
  so every model of the command line has ``classes_`` [0, 1]; the model file records the label itself
  (``relevant_label_``) and a continuation whose relevant label is another is refused, naming ``--positive``;
* category columns: the file's are read as the model's (``--categorical`` defaults to the model's columns), their
  text as the model's categories -- numbers where it was fitted on numbers, the model's full list of categories
  even where the file lacks some, as ``rankcore score`` reads them;
* the library's refusals said in the command line's words (:func:`init_model_error`).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from .._argument_refusal import with_article
from .._categories import CategoryFoldWarning
from . import CommandError
from ._columns import categories_as_fitted, model_categorical, model_features
from .datasets import same_label as _same_label

__all__ = ["HELP", "load_init_model", "init_model_error", "check_relevant_label", "record_relevant_label",
           "init_model_categorical", "read_as_model_categories"]

#: ``--init-model`` of ``fit``.
HELP = ("a model file (rankcore fit's) to continue: the fit starts from its scores and the model written holds its "
        "weak rankers, then --n-iter new ones (LightGBM's init_model); give its settings (--learner, --objective, "
        "...) again or others of the same kind, its --positive, and its --qid / --init-score if it was fitted "
        "with them; its --categorical columns are read by its categories")


def _takes_init_model(cls) -> bool:
    try:
        return "init_model" in inspect.signature(cls.fit).parameters
    except (TypeError, ValueError):
        return False


def load_init_model(path: str, config):
    """The model of ``--init-model`` loaded before any data is read; a ``CommandError`` if it cannot be or the
    configured model cannot continue it."""
    from ..persistence import load_model

    if not _takes_init_model(config.kind.cls):
        cls = config.kind.cls
        # a stream learner continues in Python: --model push would start another model, not continue this one
        hint = (f"a saved {cls.__name__} model learns from more rows in Python, with "
                "rankcore.load_model(MODEL).partial_fit(X, y)" if hasattr(cls, "partial_fit")
                else "use --model push with the saved model's settings")
        raise CommandError(f"--init-model: {config.label} ({cls.__name__}) cannot continue a model (its "
                           f"fit takes no init_model); {hint}")
    try:
        model = load_model(path)
    except (OSError, ValueError) as exc:
        text = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CommandError(f"--init-model: cannot read the model file {path!r}: {text}") from None
    _check_family(model, path)
    return model


def _check_family(model, path: str) -> None:
    """Refuse, before any data is read, a model that no fit continues: only push-family models take more weak
    rankers (an ``auto`` model, a blend of refits and folds, or an ExactBoost model do not)."""
    from ..push import PNormPush, PushBoost, RankBoost

    if isinstance(model, (PushBoost, PNormPush, RankBoost)):
        return
    name = type(model).__name__
    what = (f"a `rankcore auto` model ({name}), which cannot be continued" if name == "AutoRanker" else
            f"{with_article(name)} model, which cannot be continued")
    raise CommandError(f"--init-model: {path} is {what}: only a model of --model push (PushBoost, PNormPush or "
                       "RankBoost; `rankcore fit`'s default) takes more weak rankers; fit a new model, or continue "
                       "a `rankcore fit` model")


def _shown(label) -> str:
    """A label as the user typed it: text quoted, numbers plain (1, not 1.0)."""
    if isinstance(label, (str, np.str_)):
        return repr(str(label))
    if isinstance(label, (bool, np.bool_)):
        return str(bool(label))
    return f"{float(label):g}"


def unseen_labels(labels, known) -> list:
    """The labels among ``labels`` that are none of ``known`` by :func:`_same_label` (``"1"`` read as text is the
    number 1): the one rule of every check that a file's labels are another file's or a model's.

    Labels of numbers on both sides are compared at once (``np.isin``: the same equality); otherwise label by
    label, O(len(labels) · len(known)) -- distinct labels of a one-list file, a handful.
    """
    labels, known = np.asarray(labels), np.asarray(known)
    if labels.dtype.kind in "biuf" and known.dtype.kind in "biuf":
        return labels[~np.isin(labels, known)].tolist()
    return [label for label in labels.tolist() if not any(_same_label(label, k) for k in known.tolist())]


def check_relevant_label(model, label, path: str | None) -> None:
    """Refuse a one-list continuation whose relevant label ``label`` is not the one the model ranks first (``model``
    None: no continuation).

    A model file of ``rankcore fit`` records it (``relevant_label_``); one without (fitted in Python, or by an
    earlier rankcore) ranks ``classes_[1]`` first, which is checked where it is a label of the file's kind, and
    otherwise the continuation is warned about.
    """
    classes = getattr(model, "classes_", None)
    if classes is None:     # none, or fitted on grades or within queries: the library says why it cannot continue
        return
    recorded = getattr(model, "relevant_label_", None)
    if recorded is not None:
        if not _same_label(recorded, label):
            raise CommandError(f"--init-model: {path} ranks the label {_shown(recorded)} first, this fit the label "
                               f"{_shown(label)}: continuing it would train the new weak rankers to undo it; give "
                               f"--positive {recorded if isinstance(recorded, str) else _shown(recorded)}")
        return
    if _same_label(np.asarray(classes).tolist()[1], label):
        return
    warnings.warn(f"--init-model: {path} does not record which label it ranks first; this fit ranks "
                  f"{_shown(label)} first: if the model was fitted "
                  "with another --positive, the new weak rankers undo it", UserWarning, stacklevel=2)


def record_relevant_label(estimator, label, labels=None) -> None:
    """Keep the data file's relevant label in a model fitted on one list, on the file's labels mapped to 1 (that
    label) and 0 (``relevant_label_``): its model file records it whatever its kind (``rankcore.base.Ranker``), and
    ``evaluate`` and a continuation read the labels with it.  The callers record none for a fit within queries.

    ``labels``: the file's labels; where they are two, the other one is kept too (``other_label_``), so that
    ``evaluate`` refuses a file whose classes are coded otherwise ({1, 2} for a fit on {0, 1}) instead of scoring
    the inverse ranking.
    """
    estimator.relevant_label_ = label.item() if hasattr(label, "item") else label
    distinct = [] if labels is None else [v for v in np.unique(labels).tolist() if not _same_label(v, label)]
    if len(distinct) == 1:
        estimator.other_label_ = distinct[0]
    else:
        # a continuation (--init-model) carries the init model's other label over: on a file of three labels it
        # would make ``evaluate`` refuse this fit's own third label as one the fit never had
        vars(estimator).pop("other_label_", None)


def init_model_categorical(args, model) -> list[str] | None:
    """The category columns to read a continuation's file with: ``--categorical``, else the model's (``model``
    None: no continuation, ``--categorical``)."""
    if model is None or getattr(args, "categorical", None):
        return None                           # ``load`` reads --categorical itself
    return model_categorical(model) or None


def read_as_model_categories(data, model, path: str | None) -> None:
    """Give the file's category columns the model's categories (in place): its values read as the model's
    (numbers where it was fitted on numbers) and coded by the model's list, even where the file lacks some
    (``model`` None: no continuation, nothing to do).  A value the model does not list is a missing value, as when
    the model scores it (:func:`_warn_unlisted` says so once per column).
    """
    if model is None:
        return
    names = model_features(model)
    kept = getattr(model, "categories_", None)
    if names is None or not kept or len(kept) != len(names) or not data.categories:
        return
    categories_as_fitted(data, model, names)
    for name, fitted in zip(names, kept):
        if fitted is None or name not in data.categories or name not in data.feature_names:
            continue
        fitted = np.asarray(fitted)
        index = {_key(value): code for code, value in enumerate(fitted.tolist())}
        ours = np.asarray(data.categories[name]).tolist()
        recode = np.array([index.get(_key(value), np.nan) for value in ours], dtype=np.float64)
        j = data.feature_names.index(name)
        codes = data.X[:, j]
        present = ~np.isnan(codes)
        codes[present] = recode[codes[present].astype(np.int64)]
        unlisted = [value for value, code in zip(ours, recode) if np.isnan(code)]
        if unlisted:
            _warn_unlisted(data.source, name, path, unlisted, int(np.count_nonzero(present & np.isnan(codes))))
        data.categories[name] = fitted


def _warn_unlisted(source: str, name: str, path: str | None, unlisted: list, rows: int) -> None:
    """Say once per column that the continuation reads ``unlisted`` categories (``rows`` rows) as missing values."""
    shown = ", ".join(_shown(v) for v in unlisted[:6]) + (", ..." if len(unlisted) > 6 else "")
    warnings.warn(f"{source}: column {name!r} holds {len(unlisted)} categor{'y' if len(unlisted) == 1 else 'ies'} "
                  f"the model {path} does not list ({shown}; {rows} row{'' if rows == 1 else 's'}): the continuation "
                  "reads them as missing values, as the model scores them, and keeps the model's categories, so its "
                  "new trees cannot split on them until a model is fitted anew", CategoryFoldWarning, stacklevel=2)


def _key(value):
    """A category as a dictionary key: numbers by value (1 and 1.0 are one), text as text."""
    if isinstance(value, (bool, np.bool_)):
        return ("b", bool(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return ("n", float(value))
    return ("s", str(value))


#: The library's names in a refusal of ``init_model``, and the command line's for them (in this order).
_WORDS = (
    ("fit(X, y, qid=...) (or group=)", "--qid"),
    ("the training rows' init_score (and eval_init_score for eval_set)",
     "--init-score COLUMN (and the --validation file's --init-score column)"),
    ("fitted from init_score (from_init_score_)", "fitted with --init-score"),
    ("fit it from init_score first, or leave init_score out",
     "fit it with --init-score first, or leave --init-score out"),
    ("init_score", "--init-score"),
    ("give the same categorical_features, category columns or learner categorical columns",
     "give the model's --categorical columns (or the learner's categorical=)"),
    ("; give the column the model's categories (pandas: set_categories)", ""),
    ("the result's learner_spec_ (and its file)", "the model file's learner"),
    ("continue it with learner '", "continue it with --learner '"),
)


def init_model_error(exc: Exception, data=None) -> CommandError | None:
    """The library's refusal of ``init_model`` said of ``--init-model`` and the command line's options, the
    training file ``data`` (its source, its columns by name: from the refusal's fields,
    :class:`~rankcore.push.InitModelColumns`); None for another error."""
    from ..push import InitModelColumns

    feature_names = None if data is None or not data.named else list(data.feature_names)
    named = isinstance(exc, InitModelColumns) and bool(feature_names)
    # a column said by a mark the words below leave alone, its name put in last (a name is no word to translate)
    text = exc.said(lambda j: f"\0{j}\0") if named else str(exc)
    if not text.startswith("init_model"):
        return None
    text = "--init-model" + text[len("init_model"):]
    for library, command_line in _WORDS:
        text = text.replace(library, command_line)
    source = "DATA" if data is None else data.source
    text = (text.replace("X has ", f"{source} has ").replace("X's ", f"{source}'s ")
            .replace("y has the classes", f"{source} has the labels"))
    if named:
        for j in {*exc.columns, *exc.own_columns, *([] if exc.column is None else [exc.column])}:
            text = text.replace(f"\0{j}\0", repr(feature_names[j]) if j < len(feature_names) else str(j))
    return CommandError(text)


