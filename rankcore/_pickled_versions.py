"""The rankcore version a pickled estimator records, and the warning when another rankcore unpickles it.

scikit-learn stamps its own version (``_sklearn_version``) only into the
pickles of classes whose module starts with ``sklearn.``: a rankcore
estimator's pickle (``pickle``, ``joblib``, MLflow, Dask sending a model to a
worker) recorded no version at all, so a model unpickled under another
rankcore -- whose classes may read their attributes otherwise -- loaded
without a word.  :class:`rankcore.base.Ranker` stamps the running version into
the state it pickles (:func:`stamped`) and checks it when it is unpickled
(:func:`check_stamp`).  Copies made in this process (``copy.copy``,
``copy.deepcopy``, the copy a fit works on) go through the same methods and
carry the same version: they never warn.
"""

from __future__ import annotations

import warnings
from typing import Any

from ._caller import outside_stacklevel

__all__ = ["PickleVersionWarning", "VERSION_KEY", "stamped", "check_stamp"]

#: The key of the pickled state that holds the version (never an attribute: unpickling takes it out).
VERSION_KEY = "_rankcore_version"
#: The most characters of a recorded version the warning shows (a pickle may hold any value there).
LONGEST_SHOWN = 40


class PickleVersionWarning(UserWarning):
    """A rankcore estimator was unpickled under another rankcore version than the one that pickled it.

    The model may load with attributes its class no longer reads, or score
    otherwise; save it with :func:`rankcore.save_model` under the rankcore
    that pickled it, and load that file here (``docs/upgrading.md``).
    Filter it as any warning:
    ``warnings.filterwarnings("ignore", category=rankcore.PickleVersionWarning)``.

    Attributes
    ----------
    estimator_name : str
        The unpickled estimator's class name.
    original_version : str or None
        The rankcore version that pickled it; None for a pickle of a rankcore
        that recorded none (0.1.0, or a development build before versions were recorded);
        shortened (and quoted) when the pickle held a long or unprintable text, and
        ``"<T, not a version>"`` when it held a value of another type ``T``.
    current_version : str
        The running rankcore's version.
    """

    def __init__(self, estimator_name: str, original_version: str | None, current_version: str) -> None:
        self.estimator_name = estimator_name
        self.original_version = original_version
        self.current_version = current_version
        super().__init__(estimator_name, original_version, current_version)

    def __str__(self) -> str:
        if self.original_version is None:
            written = "a rankcore that recorded no version (0.1.0, or a development build before versions were " \
                      "recorded)"
        else:
            written = f"rankcore {self.original_version}"
        return (f"{self.estimator_name} was pickled by {written} and is unpickled under rankcore "
                f"{self.current_version}: it may not load or score as it did. Pickles are not kept across "
                f"versions: save the model with rankcore.save_model under the rankcore that pickled it and "
                f"load that file with rankcore.load_model (see docs/upgrading.md)")


def _current() -> str:
    from . import __version__

    return __version__


def stamped(state: dict, cls: type | None = None) -> dict:
    """``state`` (a copy of a pickled estimator's ``__dict__``) with the running rankcore's version added.

    Not for a ``cls`` with its own ``__setstate__`` (a user's subclass): one that does not hand the state on to
    rankcore's would keep the version as an attribute.
    """
    if cls is None or _rankcore_owned(cls, "__setstate__"):
        state[VERSION_KEY] = _current()
    return state


def check_stamp(estimator: Any, state: Any) -> dict:
    """Take the version out of an unpickled ``state``; warn (:class:`PickleVersionWarning`) when it is not this one.

    A state without a version warns only for a class that pickles through rankcore's own methods: a subclass
    with its own ``__getstate__`` or ``__reduce__`` may leave the version out of pickles of this very rankcore
    (``copy.deepcopy`` among them), so its missing version tells nothing.

    Parameters
    ----------
    estimator : object
        The estimator being unpickled (named in the warning).
    state : dict
        Its pickled state (not changed).

    Returns
    -------
    dict
        A copy of ``state`` without the version.

    Raises
    ------
    TypeError
        When ``state`` is not a dict (not the state of a pickled rankcore estimator).
    """
    if not isinstance(state, dict):
        raise TypeError(f"{type(estimator).__name__}.__setstate__: expected the dict of a pickled estimator's "
                        f"attributes, got {type(state).__name__}")
    state = dict(state)                 # the caller's dict is left as it was
    if VERSION_KEY not in state and not _pickles_the_rankcore_way(type(estimator)):
        return state
    original = state.pop(VERSION_KEY, None)
    current = _current()
    # a str subclass's own __eq__, or an array's elementwise one, never decides
    if not (isinstance(original, str) and str.__eq__(original, current)):
        warnings.warn(PickleVersionWarning(type(estimator).__name__, _recorded(original), current),
                      stacklevel=outside_stacklevel())
    return state


def _recorded(original: Any) -> str | None:
    """The recorded version as the warning shows it: short enough to read, whatever the pickle held."""
    if original is None:
        return None
    if not isinstance(original, str):
        # never the value's own repr or str: a huge int's raises, an object's may
        return f"<{type(original).__name__}, not a version>"
    text = str.__str__(original)
    if len(text) > LONGEST_SHOWN or not text.isprintable():
        return repr(text[:LONGEST_SHOWN]) + ("..." if len(text) > LONGEST_SHOWN else "")
    return text


def _pickles_the_rankcore_way(cls: type) -> bool:
    """Whether ``cls`` pickles and unpickles through rankcore's methods only (each is rankcore's, scikit-learn's
    or Python's): then its pickles carry the version."""
    return all(_rankcore_owned(cls, name) for name in ("__getstate__", "__setstate__", "__reduce__", "__reduce_ex__"))


def _rankcore_owned(cls: type, name: str) -> bool:
    owner = next((klass for klass in cls.__mro__ if name in vars(klass)), object)
    return owner is object or (owner.__module__ or "").partition(".")[0] in ("rankcore", "sklearn")
