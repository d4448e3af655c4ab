"""A data file's columns matched to a model's features by name, and the features an estimator is given.

A model fitted by the command line on a file with column names (a CSV
header, an npz ``feature_names`` array) keeps them (``feature_names_in_``,
saved in its model file) and the columns it split by category (its
``categorical_features``).  ``score`` and ``evaluate`` then take a file's
columns in the model's order whatever their order in the file, and refuse
a file that lacks one of them or has a feature column the model does not
know.  A model fitted on a LIBSVM file keeps its indices as names (``f1``,
``f2``, ...), reads another LIBSVM file by index and a CSV file by those
names.  A model without names (saved before they were kept, or fitted on
arrays) scores a file by position, as does a file without names, and a
LIBSVM file is taken by position for a model of other names.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from . import CommandError
from ._common import load
from .datasets import index_names


def estimator_input(data) -> Any:
    """What an estimator is fitted on: a DataFrame under the file's column names when it has some, else ``X``.

    The names are then the model's ``feature_names_in_``, and categorical
    columns are pandas ``category`` columns, matched by value.
    """
    return data.frame() if data.named else data.X


def dense_for(data, readers, *, fitted: bool = False) -> None:
    """Make a LIBSVM file kept sparse (``data.X`` a CSR matrix) dense, in place, when one of ``readers`` reads dense
    rows only, so that it gets the numbers the dense read of a smaller file gives.

    ``readers``: ``(label, estimator)`` pairs, the models the rows are for; ``fitted``: they are saved models (the
    advice is then another model, or fewer rows), else models about to be fitted.  The file was kept sparse for
    its size, so the dense matrix is made only within the share of the memory a LIBSVM file may take dense
    (:func:`rankcore.cli.datasets._libsvm.dense_limit`); past it a CommandError says which options read the file
    as it is -- not the estimators' Python advice (``X.to_numpy()``), which no command line can follow.
    """
    if not hasattr(data.X, "tocsr"):
        return
    make_dense(data, [label for label, estimator in readers if not _reads_sparse(estimator)], fitted=fitted)


def make_dense(data, dense_only: list[str], *, fitted: bool = False, advice: str | None = None) -> None:
    """Make a LIBSVM file kept sparse dense, in place, for the readers ``dense_only`` (their labels; none: leave
    it) -- within the share of the memory :func:`dense_for` says, else a CommandError naming them and giving
    ``advice`` (default: the ``fit`` options, or with ``fitted`` the models, that read the file sparse)."""
    from .datasets import dense_limit

    if not dense_only or not hasattr(data.X, "tocsr"):
        return
    needed = data.n_samples * data.n_features * 8
    limit, available = dense_limit()
    if needed > limit:
        memory = "half the memory available" if available is not None else f"the {limit / 1e9:.3g} GB allowed"
        advice = advice or ("score the file with a model fitted with --learner trees (push, rankboost), "
                            "--model sgd@k or --model perceptron@k, or split its rows into smaller files" if fitted
                            else "fit it with --learner trees (push, rankboost), --model sgd@k or --model "
                                 "perceptron@k, which read it sparse, or leave features out (--drop)")
        raise CommandError(f"{data.source}: {', '.join(dense_only)} read{'s' if len(dense_only) == 1 else ''} dense "
                           f"rows only, and the file's {data.n_samples} rows x {data.n_features} features make a "
                           f"dense matrix of {needed / 1e9:.3g} GB, more than {memory}; {advice}")
    data.X = data.X.toarray()


def _reads_sparse(estimator) -> bool:
    """Whether an estimator (fitted or not) reads a scipy.sparse matrix as it is: its scikit-learn tag, which the
    models set from their settings (push with trees: yes; with stumps: no).  A fitted AutoRanker answers for the
    model it chose: its tag says yes for every choice, and would leave a dense-only choice (exactboost, kernel) to
    its own dense copy, made within the Python API's smaller bound and refused with Python advice past it."""
    from sklearn.utils import get_tags

    from ..auto import AutoRanker, reads_sparse

    best = getattr(estimator, "best_estimator_", None)
    if isinstance(estimator, AutoRanker) and best is not None:
        return reads_sparse(best)
    try:
        return bool(get_tags(estimator).input_tags.sparse)
    except Exception:  # noqa: BLE001 - an object without scikit-learn tags: its own word, else no
        return bool(getattr(estimator, "accepts_sparse", False))


def model_features(model) -> list[str] | None:
    """The column names the model was fitted on, or None."""
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(n) for n in names]


def model_categorical(model) -> list[str]:
    """The columns read as categories (pandas ``category`` columns), by name: those whose categories the model kept
    (``categories_``: a fit on a frame, by the CLI or in Python), else -- a model file written before categories
    were kept -- its ``categorical_features`` names, as the CLI set them.

    A numeric column named in a Python fit's ``categorical_features`` kept no categories: it is read as numbers,
    as that fit read it.
    """
    names, kept = model_features(model), getattr(model, "categories_", None)
    if names is not None and kept is not None and len(kept) == len(names):
        return [name for name, categories in zip(names, kept) if categories is not None]
    value = model.get_params(deep=False).get("categorical_features") if hasattr(model, "get_params") else None
    if value is not None and not isinstance(value, str) and all(isinstance(v, str) for v in value):
        return list(value)
    return []


def load_for_model(args, path: str, model, model_path: str, *, require_label: bool = True,
                   keep: list[str] = (), queries: bool = False) -> tuple[Any, Any]:
    """Read a data file for a fitted model: ``(dataset, features in the model's order)``.

    ``queries``: the rows' query ids are read (``--qid``, LIBSVM ``qid:``).

    Raises
    ------
    CommandError
        A file with names lacks some of the model's columns, or has feature
        columns the model does not know (both named).
    """
    from .datasets import detect_format

    names = model_features(model)
    fmt = args.data_format or detect_format(path)
    # a LIBSVM file's indices are its column names: a model fitted on one takes each index by number
    by_index = fmt == "libsvm" and index_names(names) is not None
    by_name = names is not None and (fmt in ("csv", "npz") or by_index)
    data = load(args, path, require_label=require_label, keep=keep,
                n_features=None if by_name else int(model.n_features_in_),
                categorical=model_categorical(model) or None, queries=queries,
                feature_names=names if by_index else None)
    dense_for(data, [(f"the model {model_path} ({type(model).__name__})", model)], fitted=True)
    if names is None:
        return data, data.X
    if by_name and data.named:
        # a model fitted with display positions (``fit --position``) ranks without them: the file's column of
        # them is one to drop, and the model does not know its name
        note = " (the model was fitted with display positions and ranks without them)" \
            if getattr(model, "position_ids_", None) is not None else ""
        align(data, names, f"the model {model_path}", note=note)
    elif data.n_features != len(names):
        raise CommandError(f"{data.source}: {data.n_features} feature columns, but the model {model_path} was "
                           f"fitted on {len(names)}")
    else:                                  # a file without names: its columns by position, under the model's names
        data.feature_names = list(names)
    categories_as_fitted(data, model, names)
    return data, data.frame()


def load_to_continue(args, path: str, model, model_path: str, **options) -> Any:
    """Read ``fit``'s DATA for its ``--init-model``: as :func:`load_for_model` reads a file for a model.

    A LIBSVM file is read by index into the model's features (a batch lacking an index, a feature 0 on every
    row, is one), a file with names is put in the model's column order, and a missing or unknown column is
    refused by name (advising ``--drop``).  A file or model without names is left to the library's count check.
    ``options``: those of :func:`rankcore.cli._common.load`.
    """
    from .datasets import DataError, detect_format

    names = model_features(model)
    fmt = args.data_format or detect_format(path)
    by_index = fmt == "libsvm" and index_names(names) is not None
    try:
        data = load(args, path, feature_names=names if by_index else None, **options)
    except DataError as exc:
        implied = options.get("categorical") and not getattr(args, "categorical", None)
        if not implied or "to read by category" not in str(exc):
            raise
        raise CommandError(f"{exc}; the model {model_path} (--init-model) was fitted with --categorical "
                           f"{','.join(options['categorical'])}, and a continuation reads every column of the "
                           "model: continue it on a file that has them") from None
    if names is not None and data.named and (fmt in ("csv", "npz") or by_index):
        align(data, names, f"the model {model_path} (--init-model)")
    return data


def categories_as_fitted(data, model, names: list[str]) -> None:
    """Read a file's category text as the model's categories are: numbers or booleans where it was fitted on them.

    The model matches categories by value, and a CSV file gives text: a model fitted in Python on a ``category``
    column of integers found none of ``'1'``, ``'2'`` among ``1, 2`` and scored every row as an unseen category.

    Raises
    ------
    CommandError
        A value that does not read as the fit's type, naming the column.
    """
    kept = getattr(model, "categories_", None)
    if not kept or len(kept) != len(names):
        return
    for name, fitted in zip(names, kept):
        kind = np.asarray(fitted).dtype.kind if fitted is not None else ""
        if kind in ("O", "U") and name in data.categories:
            numbers_as_fitted(data, name, fitted)
            continue
        if kind not in ("i", "u", "f", "b") or name not in data.categories:
            continue
        try:
            values = [_read_as(str(text), kind) for text in data.categories[name]]
        except ValueError as exc:
            raise CommandError(f"{data.source}: column {name!r}: {exc}, but the model was fitted on "
                               f"{'booleans' if kind == 'b' else 'numbers'} in it") from None
        unique, inverse = np.unique(np.array(values), return_inverse=True)      # "1" and "1.0" are one category
        j = data.feature_names.index(name)
        codes = data.X[:, j]
        present = ~np.isnan(codes)
        codes[present] = inverse[codes[present].astype(np.int64)]
        data.categories[name] = unique


#: Text with a leading zero before a digit ("01", "02139"): an identifier's spelling, never matched by number
_LEADING_ZERO = re.compile(r"[+-]?0\d")
#: A decimal number as a file writes one (``2``, ``-2.0``, ``1e3``): what ``float()`` reads besides (``1_000``,
#: ``inf``, digits of other scripts) is an identifier's spelling, not a number written otherwise
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)


def _number(text: str) -> Decimal | None:
    """A category's text as the exact number it writes (``"2"`` and ``"2.0"`` the same), else None.

    Text with a leading zero (``"01"``) is None: a postcode ``"01"`` is not the category ``"1"``.  Exact, not a
    float: ids beyond 2**53 (``"9007199254740993"``) would otherwise round onto a neighbour's category.
    """
    text = text.strip()
    if _LEADING_ZERO.match(text) or not _DECIMAL.fullmatch(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:          # an exponent beyond Decimal's range ("1e99999999999999999999"): no number
        return None


def numbers_as_fitted(data, name: str, fitted: Any) -> None:
    """Give a file's category text that writes a fitted category's number otherwise (``"2.0"`` for ``"2"``) it.

    A file's categories are text, matched by value: a column of integers saved by a tool as ``2.0`` (pandas does
    so once a column has a missing value) would match none of a fit's ``2`` and score every row as an unseen
    category, silently.  Text that is itself a fitted category, or that no single fitted category reads as, is
    left as it is.  O(K) for the K categories of each.
    """
    fitted = [str(text) for text in np.asarray(fitted, dtype=object).tolist()]
    by_number: dict = {}
    for text in fitted:
        number = _number(text)
        if number is not None:
            by_number.setdefault(number, []).append(text)
    if not by_number:
        return
    known, given = set(fitted), [str(text) for text in np.asarray(data.categories[name], dtype=object).tolist()]
    renamed = []
    for text in given:
        same = by_number.get(_number(text), []) if text not in known else []
        renamed.append(same[0] if len(same) == 1 else text)
    if renamed == given:
        return
    unique, inverse = np.unique(np.array(renamed, dtype=str), return_inverse=True)
    codes = data.X[:, data.feature_names.index(name)]
    present = ~np.isnan(codes)
    codes[present] = inverse[codes[present].astype(np.int64)]
    data.categories[name] = unique.astype(object)


def _read_as(text: str, kind: str):
    """One category's text as a number of the fit's kind (integer, float) or a boolean."""
    if kind == "b":
        word = text.strip().lower()
        if word in ("true", "1"):
            return True
        if word in ("false", "0"):
            return False
        raise ValueError(f"the category {text!r} is not a boolean")
    what = "a number" if kind == "f" else "an integer"
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"the category {text!r} is not {what}") from None
    if kind == "f":
        return number
    try:
        return int(text)                   # exactly, beyond 2**53 too
    except ValueError:
        if not number.is_integer():
            raise ValueError(f"the category {text!r} is not {what}") from None
        return int(number)


def like_training(other, data) -> None:
    """Give ``other`` (a validation or test file) the training file's columns: by name, or by position."""
    # a LIBSVM file was read into the training file's columns by index, or (beside a file of other names) is taken
    # by position; every other file with names is matched by name
    by_position = other.format == "libsvm" and index_names(data.feature_names) is None
    if data.named and other.named and not by_position:
        align(other, data.feature_names, f"the training data {data.source}")
    elif other.n_features != data.n_features:
        raise CommandError(f"{other.source}: {other.n_features} feature columns, but the training data "
                           f"{data.source} has {data.n_features}")
    else:
        other.feature_names, other.named = list(data.feature_names), data.named
    for name, fitted in data.categories.items():
        if name in other.categories and name in other.feature_names:
            numbers_as_fitted(other, name, fitted)


def align(data, names: list[str], what: str, note: str = "") -> None:
    """Put ``data``'s feature columns in the order of ``names`` (in place), refusing missing or unknown ones.

    Parameters
    ----------
    data : Dataset
    names : list of str
        The feature columns expected, in order.
    what : str
        Whose columns they are, for the messages (``"the model m.json"``).
    note : str
        Said after the advice to drop columns the model does not know.
    """
    present = data.feature_names
    missing = [n for n in names if n not in present]
    if missing:
        from .datasets import DEFAULT_LABEL

        taken = (f"; a column named {DEFAULT_LABEL!r} is read as the labels unless --label COLUMN names the label "
                 "column" if DEFAULT_LABEL in missing else "")
        raise CommandError(f"{data.source}: no column {_quoted(missing)}, a feature of {what} "
                           f"(its features: {_quoted(names, limit=12)}){taken}")
    unknown = [n for n in present if n not in names]
    if unknown:
        raise CommandError(f"{data.source}: the column{'s' if len(unknown) > 1 else ''} {_quoted(unknown)} "
                           f"{'are' if len(unknown) > 1 else 'is'} not a feature of {what}; leave "
                           f"{'them' if len(unknown) > 1 else 'it'} out with --drop {','.join(unknown)}{note}")
    order = [present.index(n) for n in names]
    if order != list(range(len(order))):
        data.X = data.X[:, order] if hasattr(data.X, "tocsr") else np.ascontiguousarray(data.X[:, order])
        data.feature_names = list(names)


def _quoted(names: list[str], limit: int = 6) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")
