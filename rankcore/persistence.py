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
import contextlib
import errno
import hashlib
import importlib
import io
import json
import math
import os
import re
import secrets
import stat
from collections.abc import MutableMapping
from typing import IO, Any, Iterator

import numpy as np

from ._argument_refusal import shown_type
from ._model_io import followed as _followed, names_a_descriptor as _names_a_descriptor
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

#: Attempts at a free temporary file name beside an output (8 random hex digits each: a clash is rare).
_TEMPORARY_ATTEMPTS = 100

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
                         f"rebuilds a {type(rebuilt).__name__}, another component than the one given")


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


def write_text_atomically(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` (UTF-8, lines as given) to ``path`` atomically: a reader sees the old file or the new one.

    The text goes to a new temporary file beside the file ``path`` names,
    which is then renamed over it; an ``OSError`` names ``path``, and the
    temporary file is removed on any failure.  Model files and exported
    models are written so (:func:`atomic_output` says how).
    """
    with atomic_output(path, newline="\n") as fh:
        fh.write(text)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, binary: bool = False, newline: str | None = None):
    """A handle writing the output ``path`` that a reader sees whole or not at all.

    A regular file (or nothing yet) at ``path`` is written as a new temporary
    file beside it, renamed over ``path`` only when the ``with`` block ends
    without an exception; on any exception -- a full disk, a failed
    computation in the block, Ctrl-C -- the temporary file is removed and the
    file at ``path`` (an earlier output, or nothing) stays as it was.  A
    stream is appended to in place.  An ``OSError`` of the file names ``path``.

    * A symlink at ``path`` stays: the regular file it leads to is replaced
      (except a link that the kernel's ``protected_symlinks`` rule would not
      follow -- one in a sticky world-writable directory such as ``/tmp``,
      owned by another user -- which is not followed).
    * A stream is written into, never replaced (see :func:`writes_in_place`):
      a device (``/dev/null``), a FIFO, ``/dev/stdout``, a shell's
      ``>(...)``.  It is appended to, as a shell's ``>>`` does; there is no
      atomicity to keep there.
    * A replaced file's permission bits are kept (its group and, for root,
      its owner where the system allows); a new file is ``0666 & ~umask``.
      The new file does not share the earlier one's hard links.

    Parameters
    ----------
    path : str or path-like
    binary : bool, default False
        A binary handle, else text in UTF-8.
    newline : str, optional
        As :func:`open`'s, for text.

    Yields
    ------
    file object
    """
    target = os.fspath(path)
    if not target:      # else the temporary file is made in the working directory, then renamed over it
        raise ValueError("path: expected a file name, got ''")
    try:
        earlier = os.stat(target)
    except FileNotFoundError:
        earlier = None                      # a new file (or a link to one yet to be made)
    except OSError as exc:                  # a link loop, a component that is not a directory, ...
        raise type(exc)(exc.errno, exc.strerror, target) from None
    if earlier is not None and (not stat.S_ISREG(earlier.st_mode) or _names_a_descriptor(target)):
        with _named_errors(target):
            with os.fdopen(os.open(target, os.O_WRONLY | os.O_APPEND), *_open_mode(binary, newline)) as fh:
                yield fh
        return
    destination = _followed(target)
    directory, base = os.path.split(os.path.abspath(destination))
    try:
        fd, tmp = _temporary_beside(directory, base, private=earlier is not None)
    except OSError as exc:                  # no such directory, no permission, a full disk: name ``target``
        raise type(exc)(exc.errno, exc.strerror, target) from None
    try:
        # the temporary file is an implementation detail the caller never chose: its errors name ``target``
        with _named_errors(target, (tmp, destination)):
            with os.fdopen(fd, *_open_mode(binary, newline)) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            _give_mode(tmp, earlier)
            os.replace(tmp, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _temporary_beside(directory: str, base: str, private: bool) -> tuple[int, str]:
    """A new temporary file ``.BASE.XXXXXXXX.tmp`` in ``directory``: (its descriptor, its path).

    A unique name created with ``O_CREAT | O_EXCL`` (as mkstemp does): a link
    planted at a predictable name cannot redirect the write, and two savers
    never share a temporary file; os.replace then swaps the complete file in
    atomically.  Unlike mkstemp's 0600, a new output is created ``0666`` for
    the kernel to apply the process's umask (and the directory's default ACL)
    at the time of writing, as :func:`open` does; a file that will replace
    another (``private``) is 0600 until it is given that file's mode.  BASE is
    cut to 200 bytes: a target whose name is near the 255 bytes a file system
    allows is still written.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for extra in ("O_CLOEXEC", "O_NOFOLLOW", "O_BINARY"):
        flags |= getattr(os, extra, 0)
    while len(os.fsencode(base)) > 200:
        base = base[:-1]
    for _ in range(_TEMPORARY_ATTEMPTS):
        tmp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o600 if private else 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _give_mode(tmp: str, earlier: os.stat_result | None) -> None:
    """Give the temporary file ``tmp`` the mode (and, where allowed, the group and owner) of the file it replaces.

    A new output keeps the mode it was created with (``0666`` less the umask).
    A replaced one keeps its permission bits, as an editor saving a file or a
    shell's ``>`` truncating it does -- a private (0600) scores file must not
    become world-readable because it was rewritten.  The group (and the owner,
    for root) are kept when the system allows it; set-id bits are never copied.
    """
    if earlier is None:
        return
    with contextlib.suppress(OSError, AttributeError):  # only root gives a file away; a member may give her group
        os.chown(tmp, earlier.st_uid if os.geteuid() == 0 else -1, earlier.st_gid)
    os.chmod(tmp, stat.S_IMODE(earlier.st_mode) & 0o777)


def _open_mode(binary: bool, newline: str | None) -> tuple:
    """``os.fdopen``'s mode, buffering, encoding and newline arguments for an output handle."""
    return ("wb",) if binary else ("w", -1, "utf-8", None, newline)


@contextlib.contextmanager
def _named_errors(target: str, names: tuple = ()):
    """Give an ``OSError`` of the output file (no file name, or one of ``names``) the name ``target`` instead.

    A failed write (``ENOSPC`` on a full disk) carries no file name, and one on
    the temporary file names a file the caller never chose.
    """
    try:
        yield
    except OSError as exc:
        if exc.errno is not None and (exc.filename is None or exc.filename in names):
            raise type(exc)(exc.errno, exc.strerror, target) from None
        raise


def writes_in_place(path: str | os.PathLike) -> bool:
    """True when :func:`write_text_atomically` writes into ``path`` rather than replacing it: a stream.

    That is an existing file that is not a regular file once symlinks are
    followed (a device, a FIFO, a socket), or an open descriptor's entry
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/<pid>/fd/N``, or a link to
    one), whatever it refers to: replacing the entry would detach the
    descriptor its owner writes to.  Writing such a path overwrites no file.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    bool
        False for a regular file, a symlink to one, or nothing there.
    """
    target = os.fspath(path)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) or _names_a_descriptor(target)


def open_output(path: str | os.PathLike, binary: bool = False, newline: str | None = None):
    """Open ``path`` for writing an output: a regular file is created or truncated, a stream appended to.

    A stream (:func:`writes_in_place`: a device, a FIFO, ``/dev/stdout``,
    ``/dev/fd/N``) is opened with ``O_WRONLY | O_APPEND``, never
    ``O_TRUNC``: truncating ``/dev/stdout`` under a shell's ``>> file``
    would empty that file.

    Parameters
    ----------
    path : str or path-like
    binary : bool, default False
        A binary file object, else text in UTF-8.
    newline : str, optional
        As :func:`open`'s, for text.

    Returns
    -------
    file object
        To be closed by the caller (a ``with`` block).
    """
    target = os.fspath(path)
    opener = _append_opener if writes_in_place(target) else None
    if binary:
        return open(target, "wb", opener=opener)
    return open(target, "w", encoding="utf-8", newline=newline, opener=opener)


def _append_opener(target: str, flags: int) -> int:
    """``open``'s opener for a stream: write-only and appending, whatever ``flags`` (with ``O_TRUNC``) asks."""
    return os.open(target, os.O_WRONLY | os.O_APPEND)


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
        raise ModelFormatError(f"{source}: not a valid JSON model file ({wide_encoding(raw) or exc})") from None
    except ValueError:        # Python's limit on the digits of an integer (4,300): no model holds such a number
        raise ModelFormatError(f"{source}: an integer of thousands of digits; no model file holds one") from None
    return data
