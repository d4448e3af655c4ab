"""Which models take missing values: the checks ``fit``, ``compare``, ``score``, ``evaluate`` and ``explain``
make before any training or scoring, and the way out they name.

A model takes NaN in X when its estimator says so (scikit-learn's ``allow_nan``
input tag; the push estimators set it from their learner).  A file with missing
values and a model that refuses them is a :class:`~rankcore.cli.CommandError`
naming the file, its missing values and the learners that take them.
"""

from __future__ import annotations

from typing import Any

from . import CommandError
from ._models import KINDS, ModelConfig, describe_estimator, estimator_class

__all__ = ["accepts_missing", "nan_learners", "refusers_of_missing_values", "missing_facts", "check_missing",
           "check_scored_file", "say_columns_missing_everywhere", "unseen_categories_said"]


def accepts_missing(estimator) -> bool:
    """Whether ``estimator`` takes NaN in X: scikit-learn's ``allow_nan`` input tag.

    The push estimators set it from their learner's ``allow_nan`` (``trees``,
    or a plugin learner that declares it), so the answer follows the
    configuration, plugins included.
    """
    from sklearn.utils import get_tags

    try:
        return bool(get_tags(estimator).input_tags.allow_nan)
    except Exception:  # an estimator without usable tags: assume complete data is needed
        return False


def _learners_by_nan_support() -> dict[bool, list[str]]:
    """{True: the registered learners that declare ``allow_nan``, False: the others}, by name."""
    import warnings

    from ..registry import registry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        reg = registry()
    out: dict[bool, list[str]] = {True: [], False: []}
    for name in reg.names("learner"):
        out[bool(getattr(reg.get("learner", name), "allow_nan", False))].append(name)
    return out


def nan_learners() -> list[str]:
    """The registered learners that handle missing values (``allow_nan``), e.g. ``["trees"]``."""
    return _learners_by_nan_support()[True]


def refusers_of_missing_values() -> str:
    """``"refused by the learners features, stumps, thresholds and by exactboost, kernel, ..."``.

    Read from the declarations: a learner's ``allow_nan`` and, for a model
    without a ``--learner``, its default estimator's ``allow_nan`` tag.
    """
    learners = _learners_by_nan_support()[False]
    kinds = []
    for kind in KINDS.values():
        if "learner" in kind.options:
            continue
        try:
            estimator = estimator_class(kind)()
        except CommandError:           # an optional estimator that is not installed
            continue
        if not accepts_missing(estimator):
            kinds.append(kind.name)
    parts = []
    if learners:
        parts.append(f"the learners {', '.join(learners)}")
    if kinds:
        parts.append(f"--model {', '.join(kinds)}")
    return "missing values are refused by " + " and by ".join(parts) if parts else ""


def _way_out() -> str:
    learners = nan_learners()
    users = [k.name for k in KINDS.values() if "learner" in k.options]
    refused = refusers_of_missing_values()
    if not learners:
        return "impute the missing values first (no registered learner handles them" + \
            (f"; {refused})" if refused else ")")
    flags = " or ".join(f"--learner {name}" for name in learners)
    return (f"use a learner that handles them ({flags}, with --model {' or '.join(users)}) "
            "or impute the missing values first" + (f" ({refused})" if refused else ""))


def missing_facts(datasets) -> list[tuple[Any, Any]]:
    """``(dataset, MissingValues)`` for each of ``datasets`` (None skipped) with missing feature values."""
    found = []
    for data in datasets:
        if data is not None:
            missing = data.missing()
            if missing is not None:
                found.append((data, missing))
    return found


def check_missing(configs: list[ModelConfig], datasets, *, found=None) -> None:
    """Refuse, before any training, models that cannot use the missing values some data file has.

    Parameters
    ----------
    configs : list of ModelConfig
        The models to fit (every one must handle NaN if any file has some:
        a comparison that silently drops models would mislead).
    datasets : iterable of Dataset or None
        The files the models are fitted on or scored on.
    found : list, optional
        :func:`missing_facts` of ``datasets``, if already computed.

    Raises
    ------
    CommandError
        Naming the file(s) and their missing values (count, rows, columns,
        the first one's line and column), the models that cannot use them,
        and the way out.
    """
    found = missing_facts(datasets) if found is None else found
    if not found:
        return
    cannot = []
    for config in configs:
        estimator = config.build()
        if not accepts_missing(estimator):
            cannot.append(describe_estimator(estimator, config.label))
    if not cannot:
        return
    facts = "; ".join(f"{data.source} has {missing.describe()}" for data, missing in found)
    if len(configs) == 1:
        who = f"{cannot[0]} cannot use missing values"
        out = _way_out()
    else:
        who = f"{len(cannot)} of the {len(configs)} models cannot use missing values: {', '.join(cannot)}"
        out = "leave them out of the comparison, " + _way_out()
    raise CommandError(f"{facts}; {who}: {out}")


def _refuse_model_missing(model, model_path: str, data, missing) -> None:
    """Refuse to score a file with missing values (``missing``: its :meth:`Dataset.missing`) with a model that
    cannot use them (before scoring)."""
    if missing is None or accepts_missing(model):
        return
    flags = " or ".join(f"--learner {name}" for name in nan_learners()) or "a learner that handles them"
    refused = refusers_of_missing_values()
    raise CommandError(f"{data.source} has {missing.describe()}; the model {model_path}, "
                       f"{describe_estimator(model)}, cannot score missing values: impute them first, or fit "
                       f"a model that handles them (rankcore fit ... {flags})" + (f"; {refused}" if refused else ""))


def check_scored_file(args, model, model_path: str, data) -> None:
    """Before a model scores a file (``score``, ``evaluate``, ``explain``): refuse its missing values if the model
    cannot use them, else say them on stderr, and warn of the feature columns missing on every row and of the
    categories the model never saw.  The missing values are found once, for all of it.

    The scores of such a file are numbers like any other, so a week whose feed lost a column, or whose column of
    categories gained a new one, would be scored without a word: the model reads both as missing values, and a
    monitor of the metrics would chase a drop without its cause.  Time and memory those of
    :meth:`Dataset.missing` and one pass over each category column.
    """
    import warnings

    from ._common import info

    missing = data.missing()
    _refuse_model_missing(model, model_path, data, missing)
    if missing is not None:
        info(args, f"{data.source}: {missing.describe()}; the model scores them as missing values")
        say_columns_missing_everywhere(data, missing)
    said = unseen_categories_said(model, data)
    if said is not None:
        warnings.warn(said, UserWarning, stacklevel=2)


def unseen_categories_said(model, data) -> str | None:
    """The warning of the categories of ``data`` that ``model`` never saw in training (scored as missing values),
    or None when there are none: ``score``'s words, which ``compare`` gives of its ``--test`` file too."""
    unseen = _unseen_categories(model, data)
    if not unseen:
        return None
    said = "; ".join(f"column {name!r}: {', '.join(repr(v) for v in values[:5])}"
                     f"{' and more' if len(values) > 5 else ''} ({rows} row{'s' if rows != 1 else ''})"
                     for name, values, rows in unseen)
    return f"{data.source}: categories the model never saw in training, scored as missing values: {said}"


def say_columns_missing_everywhere(data, missing) -> None:
    """Warn of the feature columns of ``data`` missing on every row (``missing``: its :meth:`Dataset.missing`).

    None for a file of fewer than two rows: the missing values of one row are its own, which the status line
    names, not a feed that lost a column.
    """
    import warnings

    empty = missing.everywhere if missing is not None and data.n_samples >= 2 else []
    if empty:
        warnings.warn(f"{data.source}: the feature column{'s' if len(empty) > 1 else ''} "
                      f"{', '.join(repr(name) for name in empty)} {'are' if len(empty) > 1 else 'is'} missing "
                      "on every row: the model scores every row as if the feature were unknown", UserWarning,
                      stacklevel=3)


def _unseen_categories(model, data) -> list[tuple[str, list, int]]:
    """``(column, categories the fit never had, rows holding them)`` for each category column of ``data``."""
    import numpy as np

    kept = getattr(model, "categories_", None)
    names = getattr(model, "feature_names_in_", None)
    if kept is None or names is None or not getattr(data, "categories", None):
        return []
    found = []
    for name, fitted in zip(names, kept):
        if fitted is None or name not in data.categories:
            continue
        file_categories = np.asarray(data.categories[name], dtype=object).tolist()
        known = set(np.asarray(fitted, dtype=object).tolist())
        new = np.array([value not in known for value in file_categories], dtype=bool)
        if not new.any():
            continue
        # the rows of each file category counted once, O(n + K): a column of ids gains thousands of new ones
        codes = data.X[:, data.feature_names.index(name)]
        counts = np.bincount(codes[~np.isnan(codes)].astype(np.int64), minlength=len(file_categories))
        held = new & (counts[:len(file_categories)] > 0)
        if held.any():
            found.append((name, [file_categories[j] for j in np.flatnonzero(held)], int(counts[held].sum())))
    return found
