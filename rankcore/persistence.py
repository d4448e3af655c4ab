"""Saving and loading fitted models without pickle.

A model file is UTF-8 JSON::

    {
      "format": "rankcore-model",
      "format_version": 1,                   # 2 when params hold a marked value (below)
      "rankcore_version": "0.1.0",
      "estimator": "PushBoost",              # a registered estimator's name, never a code path
      "params": {...},                       # get_params(deep=False); tuples and component objects marked
      "state": {...},                        # fitted attributes; arrays encoded as below
      "sha256": "..."                        # of the canonical JSON of everything above
    }

Arrays are ``{"__ndarray__": <base64 of little-endian bytes>, "dtype": "<f8",
"shape": [n, d]}`` with a small set of allowed dtypes, so values round-trip
bit for bit.  In ``params``, a tuple is ``{"__tuple__": [...]}`` (unless the
parameter's default is a tuple too; a list there is ``{"__list__": [...]}``) and a component object
``{"__component__": family, "spec": ...}``, so that ``get_params()`` after a
load equals it before the save.  A file with such a marker is format version 2 (an older rankcore refuses it
as newer, asking for an upgrade, instead of failing on the marker); any other is version 1, which an older
rankcore reads; both load.  A parameter missing from ``params`` loads at its default: a file written before the
parameter existed lacks it, and a new parameter's default keeps the old behaviour; an unknown one is refused.
Loading never
executes anything from the file: the estimator class comes from the :data:`ESTIMATORS` allow-list, its parameters go
through ``set_params``, and the estimator's ``_set_fitted_state`` re-validates
them with the checks ``fit`` makes, then checks the state (shapes,
finiteness, consistency).  A file whose checksum does not match its content
-- truncated, edited by hand, bit-flipped -- is refused before any of that.
(The checksum detects corruption and careless edits; it is not a signature:
whoever edits a file on purpose can recompute it.  Validation of the content
is what keeps a deliberately crafted file from producing a broken model; it
cannot tell finite, well-shaped coefficients from the ones a fit produced.)
Reads are bounded: at most :data:`MAX_MODEL_BYTES` bytes and
:data:`MAX_NESTING` levels of JSON nesting.  See ``docs/security.md``.

Estimators that support persistence implement two methods (a
:class:`rankcore.base.Ranker` derives both from its declared fitted state and
two hooks, see there):

``_get_fitted_state() -> dict``
    fitted attributes: NumPy arrays, numbers, strings, lists and dicts of those.
``_set_fitted_state(state: dict) -> None``
    restore and validate them; raise :class:`ModelFormatError` on anything wrong.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import io
import json
import math
import os
import re
from collections.abc import MutableMapping
from typing import IO, Any, Iterator

import numpy as np

from ._argument_refusal import shown_type, with_article
# the atomic writes moved out; their names stay here too (rankcore.persistence.atomic_output, ...)
from ._atomic_files import atomic_output, open_output, write_text_atomically, writes_in_place
from ._model_io import nesting_depth as _nesting_depth, read_model_source, source_name, wide_encoding
from ._model_versions import newer_note, unknown_params_message
from .spec import legacy_numbers

__all__ = ["ModelFormatError", "ESTIMATORS", "save_model", "load_model", "load_model_file", "model_to_dict",
           "model_from_dict", "model_from_text", "model_text", "write_text_atomically", "writes_in_place",
           "open_output", "atomic_output"]

FORMAT = "rankcore-model"
#: The newest model format (read and written): 2 when params hold a marker a format-1 reader cannot decode; a
#: model without one is written as format 1, so that an older rankcore still loads it.
FORMAT_VERSION, READ_VERSIONS = 2, (1, 2)
_MARKERS = ("__tuple__", "__list__", "__component__")


class _EstimatorTable(MutableMapping):
    """The estimators a model file may name: name in the file -> ``"module:Class"``.

    Read live from the registry's estimator family (built-ins and plugins);
    an entry set here directly (``ESTIMATORS["Mine"] = "pkg.mod:Mine"``) is
    added on top -- for tests and notebooks; a distribution registers its
    estimators through the hook ``rankcore_register_estimators`` instead.
    """

    def __init__(self) -> None:
        self._added: dict[str, str] = {}

    @staticmethod
    def _registered() -> dict[str, type]:
        from .registry import registry

        # plugin problems are reported elsewhere; quiet, not catch_warnings: the filters are the process's
        return {entry.name: entry.cls for entry in registry(quiet=True).in_order("estimator")}

    def estimator_class(self, name: str) -> type:
        if name in self._added:
            module, _, attr = self._added[name].partition(":")
            return getattr(importlib.import_module(module), attr)
        return self._registered()[name]

    def name_of(self, cls: type) -> str | None:
        """The name a file records for an estimator of exactly this class, or None."""
        for name, target in self._added.items():
            module, _, attr = target.partition(":")
            if cls.__name__ == attr and cls.__module__.startswith(module):
                return name
        return next((name for name, registered in self._registered().items() if registered is cls), None)

    def __getitem__(self, name: str) -> str:
        if name in self._added:
            return self._added[name]
        cls = self._registered()[name]
        return f"{cls.__module__}:{cls.__qualname__}"

    def __setitem__(self, name: str, target: str) -> None:
        self._added[name] = target

    def __delitem__(self, name: str) -> None:
        del self._added[name]

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self._registered()), **dict.fromkeys(self._added)})

    def __len__(self) -> int:
        return len(set(self._registered()) | set(self._added))


#: Estimators that can be loaded: name in the file -> "module:Class" (the registered estimators).
ESTIMATORS = _EstimatorTable()

#: Largest model file :func:`load_model` reads, in bytes (it reads at most this
#: many + 1).  A fitted model is a few kB to a few MB; a KernelRanker keeps its
#: support set, 8 bytes per value (base64 adds a third).
MAX_MODEL_BYTES = 256 << 20
#: Deepest nesting of JSON arrays/objects accepted in a model file.  Real
#: files nest fewer than 10 levels; the limit stops a crafted file from
#: exhausting the interpreter's stack.
MAX_NESTING = 64

#: What a file's ``rankcore_version`` may hold: a release's version (PEP 440), such as ``0.1.0`` or ``1.2.0rc1``.
_VERSION = re.compile(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[A-Za-z0-9.]+)?")

_ALLOWED_DTYPES = {"<f8", "<f4", "<i8", "<i4", "<i2", "|i1", "|u1", "|b1", "<u4", "<u8"}


class ModelFormatError(ValueError):
    """A model file that is not a valid, untampered rankcore model.

    The message is one line, and never repeats a long value from the file whole.
    """

    def __init__(self, *args: Any) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            from .spec import abbreviate

            args = (abbreviate(" ".join(args[0].split())),)
        super().__init__(*args)


# --------------------------------------------------------------------------
# Encoding values
# --------------------------------------------------------------------------


def _encode(value: Any, where: str) -> Any:
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value)
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        dtype = arr.dtype.str
        if dtype not in _ALLOWED_DTYPES:
            raise TypeError(f"{where}: cannot save an array of dtype {arr.dtype}")
        return {
            "__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"),
            "dtype": dtype,
            "shape": list(arr.shape),
        }
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if not math.isfinite(value):
            # JSON has no inf/nan; keep them explicit rather than invalid JSON.
            return {"__float__": repr(value)}
        return value
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: dictionary keys must be strings, got {k!r}")
            out[k] = _encode(v, f"{where}.{k}")
        return out
    spec = getattr(value, "spec", None)
    if isinstance(spec, str):  # a configured component: saved by its spec string
        return spec
    raise TypeError(f"{where}: cannot save a value of type {type(value).__name__}")


def _encode_param(value: Any, where: str) -> Any:
    """A parameter's value as :func:`_encode` writes it, but a tuple and a component object marked as such.

    JSON has lists and strings only: unmarked, ``(1, 0, -1)`` would load as ``[1, 0, -1]`` and a
    :class:`rankcore.Component` as its spec string, and the loaded model's ``get_params()`` would differ from
    the fitted one's.  ``{"__tuple__": [...]}`` and ``{"__component__": family, "spec": ...}`` load as they were.
    """
    if isinstance(value, tuple):
        return {"__tuple__": [_encode_param(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [_encode_param(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _encode_param(v, f"{where}.{k}") for k, v in value.items()}
    family, spec = getattr(value, "family", None), getattr(value, "spec", None)
    if not isinstance(value, type) and isinstance(family, str) and isinstance(spec, str):
        _check_rebuilt(value, family, spec, where)
        return {"__component__": family, "spec": spec}
    return _encode(value, where)


def _check_rebuilt(value: Any, family: str, spec: str, where: str) -> None:
    """Refuse to save a component object that its spec would not rebuild: the file holds the spec alone.

    An unregistered class (a :class:`rankcore.Metric` subclass defined in a notebook) has no spec the registry
    resolves; a class registered under another's name rebuilds as that one.  Either would be saved as a file that
    cannot load, or loads a different component than the model was fitted with.
    """
    from .registry import resolve

    try:
        rebuilt = resolve(family, spec)
    except Exception as exc:        # its name is not registered here, or its parameters are refused
        raise ValueError(f"{where}: the {family} {spec!r} ({type(value).__name__}) cannot be saved: a model file "
                         f"holds a component as its registered spec, and this one does not resolve ({exc}); "
                         "register its class (rankcore.registry.register_plugin, or a plugin distribution) to save "
                         "a model that uses it") from None
    if rebuilt != value:
        raise ValueError(f"{where}: the {family} {spec!r} ({type(value).__name__}) cannot be saved: its spec "
                         f"rebuilds {with_article(type(rebuilt).__name__)}, another component than the one given")


def _decode_param(value: Any, where: str) -> Any:
    """A parameter's value from :func:`_encode_param`'s form (and from a file that marks nothing, as older ones)."""
    for marker, kind in (("__tuple__", tuple), ("__list__", list)):
        if isinstance(value, dict) and marker in value:
            items = value[marker]
            if set(value) != {marker} or not isinstance(items, list):
                raise ModelFormatError(f"{where}: malformed {kind.__name__} record")
            return kind(_decode_param(v, f"{where}[{i}]") for i, v in enumerate(items))
    if isinstance(value, dict) and "__component__" in value:
        family, spec = value["__component__"], value.get("spec")
        if set(value) != {"__component__", "spec"} or not isinstance(family, str) or not isinstance(spec, str):
            raise ModelFormatError(f"{where}: malformed component record")
        return _component(family, spec, where)
    if isinstance(value, list):
        return [_decode_param(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and not ({"__ndarray__", "__float__"} & set(value)):
        return {k: _decode_param(v, f"{where}.{k}") for k, v in value.items()}
    return _decode(value, where)


def _component(family: str, spec: str, where: str) -> Any:
    """The component of a ``{"__component__": family, "spec": spec}`` record, or a :class:`ModelFormatError` naming
    the parameter (``where``).

    An estimator is never a parameter's component: a record naming that family is refused before anything is built.
    """
    from .registry import FAMILIES, UnknownComponentError, resolve

    if family not in FAMILIES or family == "estimator":
        known = ", ".join(f for f in FAMILIES if f != "estimator")
        raise ModelFormatError(f"{where}: {family!r} is not a component family a parameter holds (known: {known})")
    try:
        return resolve(family, spec)
    except UnknownComponentError as exc:    # a plugin's component, its distribution not installed here
        raise ModelFormatError(f"{where}: {family} {spec!r} cannot be rebuilt: {exc}; the model was fitted with a "
                               "component this installation does not register: install the plugin that provides it "
                               "(`rankcore plugins` lists the installed ones)") from None
    except Exception as exc:        # a bad parameter: the spec's own message says which
        raise ModelFormatError(f"{where}: {family} {spec!r} cannot be rebuilt: {exc}") from None


def _marked_list(record: Any) -> bool:
    """Whether a parameter's record in the file is ``{"__list__": [...]}``: a list where the default is a tuple."""
    return isinstance(record, dict) and set(record) == {"__list__"}


def _decode(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        if "__ndarray__" in value:
            if set(value) != {"__ndarray__", "dtype", "shape"}:
                raise ModelFormatError(f"{where}: malformed array record")
            dtype, shape = value["dtype"], value["shape"]
            if not isinstance(dtype, str) or dtype not in _ALLOWED_DTYPES:
                raise ModelFormatError(f"{where}: array dtype {dtype!r} is not allowed")
            if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
                raise ModelFormatError(f"{where}: malformed array shape {shape!r}")
            try:
                raw = base64.b64decode(value["__ndarray__"].encode("ascii"), validate=True)
            except Exception:
                raise ModelFormatError(f"{where}: array data is not valid base64") from None
            dt = np.dtype(dtype)
            if len(raw) != dt.itemsize * math.prod(shape):
                raise ModelFormatError(f"{where}: array data has {len(raw)} bytes, "
                                       f"expected {dt.itemsize * math.prod(shape)}")
            return np.frombuffer(raw, dtype=dt).reshape(shape).copy()
        if "__float__" in value:
            text = value["__float__"]
            if set(value) != {"__float__"} or text not in ("inf", "-inf", "nan"):
                raise ModelFormatError(f"{where}: malformed special float")
            return float(text)
        return {k: _decode(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def _checksum(payload: dict) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _estimator_name(estimator: Any) -> str:
    cls = type(estimator)
    name = ESTIMATORS.name_of(cls)
    if name is None:
        local = "; save its model.to_local()" if hasattr(estimator, "to_local") else ""
        raise TypeError(f"estimator: {cls.__name__} cannot be saved (savable: {', '.join(ESTIMATORS)}){local}")
    return name


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def model_to_dict(estimator: Any) -> dict:
    """The JSON-ready dictionary of a fitted estimator (with its checksum)."""
    name = _estimator_name(estimator)
    if not hasattr(estimator, "_get_fitted_state"):
        raise TypeError(f"estimator: {name} does not support saving")
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    from . import __version__

    params = _params_record(estimator)
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rankcore_version": __version__,
        "estimator": name,
        "params": params,
        "state": _encode(estimator._get_fitted_state(), "state"),
    }
    if not _has_markers(params):
        payload["format_version"] = 1       # an older rankcore reads it: nothing in it needs format 2
    _check_loadable(payload, name)
    payload["sha256"] = _checksum(payload)
    return payload


def _has_markers(record: Any) -> bool:
    """Whether a parameters' record holds a marked value (:data:`_MARKERS`): the file then needs format 2."""
    if isinstance(record, dict):
        return any(k in _MARKERS for k in record) or any(_has_markers(v) for v in record.values())
    if isinstance(record, list):
        return any(_has_markers(v) for v in record)
    return False


def _this_version() -> str:
    from . import __version__

    return __version__


def _check_format_version(data: dict, source: str) -> None:
    """Refuse a format version this rankcore does not read; a newer one says which rankcore wrote it, which this
    is, and to upgrade."""
    version = data.get("format_version")
    if type(version) is int and version in READ_VERSIONS:
        return
    read = ", ".join(map(str, READ_VERSIONS))
    if type(version) is int and version > max(READ_VERSIONS):      # the versions read, not the one written, decide
        from . import __version__

        raise ModelFormatError(
            f"{source}: model format version {version} is not supported: the file was written by rankcore "
            f"{data.get('rankcore_version')!r}, this is rankcore {__version__!r}, which reads format versions "
            f"{read}; upgrade rankcore to load it")
    raise ModelFormatError(f"{source}: model format version {version!r} is not supported (expected one of {read})")


def _params_record(estimator: Any) -> dict:
    """``get_params(deep=False)`` as the file holds it (:func:`_encode_param`).

    A tuple where the estimator's default is a tuple too (KernelRanker's ``apriori_sizes``) is written as a plain
    list, as files always held it: the load makes it a tuple again by its default.  A list there is marked
    ``{"__list__": [...]}``, which the load keeps a list.
    """
    params = estimator.get_params(deep=False)
    try:
        defaults = type(estimator)().get_params(deep=False)
    except Exception:       # an estimator that cannot be built without arguments: mark every tuple
        defaults = {}
    record = {}
    for k, v in params.items():
        if isinstance(v, (tuple, list)) and isinstance(defaults.get(k), tuple):
            items = [_encode_param(item, f"params.{k}[{i}]") for i, item in enumerate(v)]
            record[k] = items if isinstance(v, tuple) else {"__list__": items}
        else:
            record[k] = _encode_param(v, f"params.{k}")
    return record


def _check_loadable(payload: dict, name: str) -> None:
    """Refuse to write a model that :func:`load_model` would refuse: its parameters changed after the fit.

    The file holds ``get_params()`` beside the fitted state, and the load checks that the two agree (the
    iterations within ``n_iter``, the objective of ``loss`` and ``price``, ...). After ``set_params`` on a
    fitted model they may not, and a file saved then could never be loaded.
    """
    try:
        _restored(ESTIMATORS.estimator_class(name), payload, "the saved model")
    except ModelFormatError as exc:
        raise ValueError(f"estimator: {name} cannot be saved as it stands, the file would not load ({exc}); "
                         "if its parameters were changed by set_params after the fit, refit it or set them back "
                         "before saving") from None


def model_from_dict(data: Any, *, source: str = "model") -> Any:
    """Rebuild and validate an estimator from :func:`model_to_dict`'s output."""
    if not isinstance(data, dict):
        raise ModelFormatError(f"{source}: expected a JSON object at the top level")
    if _nesting_depth(data, MAX_NESTING) > MAX_NESTING:
        raise ModelFormatError(f"{source}: JSON nested deeper than the limit of {MAX_NESTING} levels "
                               "(rankcore.persistence.MAX_NESTING)")
    if data.get("format") != FORMAT:
        raise ModelFormatError(f"{source}: not a rankcore model (format {data.get('format')!r}, expected {FORMAT!r})")
    _check_format_version(data, source)
    expected = {"format", "format_version", "rankcore_version", "estimator", "params", "state", "sha256"}
    if set(data) != expected:
        raise ModelFormatError(f"{source}: unexpected or missing fields {sorted(set(data) ^ expected)}")
    version = data["rankcore_version"]
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise ModelFormatError(f"{source}: rankcore_version {version!r} is not a rankcore version (such as '0.1.0')")
    payload = {k: v for k, v in data.items() if k != "sha256"}
    if data["sha256"] != _checksum(payload):
        raise ModelFormatError(f"{source}: checksum mismatch: the file is corrupted or was modified after saving")
    name, newer = data["estimator"], newer_note(version, _this_version())      # newer: "" unless a newer one wrote it
    if not isinstance(name, str) or name not in ESTIMATORS:
        from .registry import did_you_mean

        guess = did_you_mean(name, list(ESTIMATORS))
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise ModelFormatError(f"{source}: unknown estimator {name!r}{hint} (known: {', '.join(ESTIMATORS)}; "
                               f"a plugin's estimator loads when its distribution is installed){newer}")
    cls = ESTIMATORS.estimator_class(name)
    try:
        return _restored(cls, data, source)
    except ModelFormatError as exc:
        # the estimator's own checks speak of its parameters and state: the file they are in is said first
        text = str(exc)
        note = "" if "upgrade rankcore" in text else newer
        raise ModelFormatError((text if text.startswith(f"{source}:") else f"{source}: {text}") + note) from None


def _restored(cls: type, data: dict, source: str) -> Any:
    """The estimator of class ``cls`` with the parameters and fitted state of a checked model dictionary.

    The numbers of its spec strings are read as when the file may have been saved (:func:`legacy_numbers`): an
    estimator keeps a spec as given, so a file may hold ``"trees:max_depth=1_0"``, which loaded then.
    """
    with legacy_numbers():
        return _restored_as_read(cls, data, source)


def _restored_as_read(cls: type, data: dict, source: str) -> Any:
    """:func:`_restored`'s work."""
    params = _decode_param(data["params"], "params")
    if not isinstance(params, dict):
        raise ModelFormatError(f"{source}: params must be an object")
    estimator = cls()
    # a list where the default is a tuple (KernelRanker's apriori_sizes) is one again: files write such a tuple
    # unmarked (the form every file has held for it); a list there is marked {"__list__": ...}
    defaults = estimator.get_params(deep=False)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ModelFormatError(unknown_params_message(cls.__name__, unknown, list(defaults),
                                                      data.get("rankcore_version"), _this_version(), source))
    params = {k: tuple(v) if isinstance(v, list) and isinstance(defaults.get(k), tuple)
              and not _marked_list(data["params"].get(k)) else v for k, v in params.items()}
    try:
        estimator.set_params(**params)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{source}: invalid parameters: {exc}") from None
    state = _decode(data["state"], "state")
    if not isinstance(state, dict):
        raise ModelFormatError(f"{source}: state must be an object")
    try:
        estimator._set_fitted_state(state)
    except ModelFormatError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # a check the estimator does not make explicitly still refuses the file, as a format error
        raise ModelFormatError(f"{source}: invalid fitted state: {shown_type(exc)}: {exc}") from None
    return estimator


def save_model(estimator: Any, path: str | os.PathLike | IO) -> None:
    """Save a fitted estimator to a JSON file (no pickle).

    Parameters
    ----------
    estimator : fitted rankcore estimator
        The model to save.
    path : str, path-like or file object
        The file to write (replaced atomically when it exists), or a file object open for writing: a text one
        (``io.StringIO``) gets :func:`model_text`'s text, any other (``io.BytesIO``, a binary file) its UTF-8
        bytes, written at its position; it is neither flushed nor closed.  For the bytes themselves:
        ``model_text(estimator).encode()``.

    Raises
    ------
    ValueError
        A model :func:`load_model` would refuse: parameters changed after the fit, or a file larger than
        :data:`MAX_MODEL_BYTES` (nothing is written).
    TypeError
        ``path`` is neither a file name nor an object with ``write()``.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> import rankcore
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = rankcore.boost(learner="stumps", n_iter=3).fit(X, y)
    >>> buffer = io.BytesIO()        # or a file name: rankcore.save_model(model, "model.json")
    >>> rankcore.save_model(model, buffer)
    >>> buffer.getvalue()[:28]
    b'{"estimator":"PushBoost","fo'
    """
    if isinstance(path, (str, os.PathLike)):
        write_text_atomically(model_text(estimator), path)
    elif callable(getattr(path, "write", None)) and not isinstance(path, (bytes, bytearray)):
        _write_model_text(path, model_text(estimator))
    else:
        raise TypeError(f"path: expected a file name (str or path-like) or a file object with write(); got "
                        f"{type(path).__name__} (model_text(estimator) returns the model's text)")


def _write_model_text(fh: Any, text: str) -> None:
    """Write ``text`` to the file object ``fh``: as str to a text one, else as its UTF-8 bytes.

    A text file object is recognised by type or by its ``mode`` (``tempfile.SpooledTemporaryFile(mode="w")`` is
    no ``io.TextIOBase``); one known by neither that refuses bytes with a TypeError (``codecs.StreamWriter``)
    gets the str, which it can only have refused before writing anything.
    """
    mode = getattr(fh, "mode", None)
    if isinstance(fh, io.TextIOBase) or (isinstance(mode, str) and "b" not in mode):
        fh.write(text)
        return
    try:
        fh.write(text.encode("utf-8"))
    except TypeError:
        fh.write(text)


def model_text(estimator: Any) -> str:
    """The text :func:`save_model` writes for ``estimator``: one line of JSON.

    Parameters
    ----------
    estimator : fitted rankcore estimator

    Returns
    -------
    str

    Raises
    ------
    ValueError
        As :func:`save_model`.
    """
    data = model_to_dict(estimator)
    # Compact: CPython's C encoder writes it (an indented dump runs in Python, some 10 times as slow) and the
    # file is about 40% smaller.  ``python -m json.tool FILE`` shows it indented.
    text = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    size = len(text.encode("utf-8"))
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"estimator: the model file would hold {size} bytes, more than load_model reads "
                         f"(rankcore.persistence.MAX_MODEL_BYTES = {MAX_MODEL_BYTES}); fit fewer or smaller "
                         "rankers, or raise the limit for the loads as well")
    return text


def load_model(path: str | os.PathLike | IO) -> Any:
    """Load an estimator saved by :func:`save_model`, validating everything.

    Parameters
    ----------
    path : str, path-like or file object
        The model file :func:`save_model` wrote: its name, or a file object open for reading (binary, or text),
        read from its position to its end and not closed -- an ``io.BytesIO`` of bytes from a store, a response
        body.  A model's content in memory (bytes or str) is loaded by :func:`model_from_text`.

    Returns
    -------
    estimator
        The fitted estimator, of the class named in the file.

    Raises
    ------
    ModelFormatError
        Not JSON, not a rankcore model, an unsupported version, a checksum
        mismatch, an unknown estimator, or parameters/state that fail the
        estimator's validation.
        Also a file larger than :data:`MAX_MODEL_BYTES` or nested deeper than
        :data:`MAX_NESTING`.
    FileNotFoundError
        No such file.
    TypeError
        ``path`` is neither a file name nor a file object (bytes among them: see :func:`model_from_text`).

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> import rankcore
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = rankcore.boost(learner="stumps", n_iter=3).fit(X, y)
    >>> buffer = io.BytesIO()        # or a file name, as save_model's
    >>> rankcore.save_model(model, buffer)
    >>> _ = buffer.seek(0)
    >>> loaded = rankcore.load_model(buffer)
    >>> type(loaded).__name__
    'PushBoost'
    >>> bool(np.array_equal(loaded.decision_function(X), model.decision_function(X)))
    True
    """
    return load_model_file(path)[0]


def model_from_text(data: str | bytes | bytearray | memoryview, *, source: str = "model text") -> Any:
    """Load an estimator from the content of a model file -- what :func:`model_text` returns, or its bytes.

    The checks of :func:`load_model` apply: size limit, JSON, checksum, version, estimator and its state.

    Parameters
    ----------
    data : str, bytes, bytearray or memoryview
        The file's content (UTF-8 for bytes), e.g. ``model_text(model)`` or ``blob_store.get(key)``.
    source : str, default "model text"
        How error messages name the content.

    Returns
    -------
    estimator

    Raises
    ------
    ModelFormatError
        As :func:`load_model`.
    TypeError
        ``data`` is neither text nor bytes (a path or a file object goes to :func:`load_model`).
    """
    if isinstance(data, str):
        raw = data.encode("utf-8")
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
    else:
        raise TypeError(f"data: expected a model's content as str or bytes, got {type(data).__name__}"
                        + (" (a file name or file object goes to rankcore.load_model)"
                           if isinstance(data, os.PathLike) or hasattr(data, "read") else ""))
    if len(raw) > MAX_MODEL_BYTES:
        raise _too_large(source)
    return model_from_dict(_parse_json(raw, source), source=source)


def load_model_file(path: str | os.PathLike | IO) -> tuple[Any, dict]:
    """(the estimator, the file's top-level JSON object) of a model file, read once, as :func:`load_model` checks it.

    One read serves both, so that a stream (a pipe, the shell's ``<(...)``), which can be read only once, is
    described as it is loaded.  Raises as :func:`load_model`.
    """
    raw = read_model_source(path, MAX_MODEL_BYTES)
    source = source_name(path)
    if raw is None:
        raise _too_large(source)
    data = _parse_json(raw, source)
    return model_from_dict(data, source=source), data


def _too_large(source: str) -> ModelFormatError:
    return ModelFormatError(f"{source}: larger than the model file size limit of {MAX_MODEL_BYTES} bytes "
                            "(rankcore.persistence.MAX_MODEL_BYTES)")


def _parse_json(raw: bytes | bytearray, source: str) -> Any:
    too_deep = ModelFormatError(f"{source}: JSON nested deeper than the limit of {MAX_NESTING} levels "
                                "(rankcore.persistence.MAX_NESTING)")
    try:
        # utf-8-sig: a byte-order mark at the start (Windows Notepad's "UTF-8 with BOM") is no JSON error
        data = json.loads(raw.decode("utf-8-sig"))
    except RecursionError:
        raise too_deep from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"{source}: not a valid JSON model file ({_json_problem(raw, exc)})") from None
    except ValueError:        # Python's limit on the digits of an integer (4,300): no model holds such a number
        raise ModelFormatError(f"{source}: an integer of thousands of digits; no model file holds one") from None
    return data


def _json_problem(raw: bytes | bytearray, exc: Exception) -> str:
    """What keeps ``raw`` from being JSON, in the user's terms where Python's would mislead.

    One byte-order mark is read past; a second one (an editor re-saving "with BOM" a file that had one) makes
    Python say "decode using utf-8-sig", which the read already did.
    """
    bom = b"\xef\xbb\xbf"
    marks = 0
    while raw.startswith(bom, 3 * marks):
        marks += 1
    if marks > 1:
        return (f"it starts with {marks} UTF-8 byte-order marks, and one at most is read past: an editor saved it "
                f"\"with BOM\" again; delete the first {3 * (marks - 1)} bytes")
    return wide_encoding(raw) or str(exc)
