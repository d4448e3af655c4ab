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
        that recorded none (0.1.0, or a development build before versions were recorded).
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


def stamped(state: dict) -> dict:
    """``state`` (a copy of a pickled estimator's ``__dict__``) with the running rankcore's version added."""
    state[VERSION_KEY] = _current()
    return state


def check_stamp(estimator: Any, state: dict) -> dict:
    """Take the version out of an unpickled ``state``; warn (:class:`PickleVersionWarning`) when it is not this one.

    Parameters
    ----------
    estimator : object
        The estimator being unpickled (named in the warning).
    state : dict
        Its pickled state; the version key is removed from it.

    Returns
    -------
    dict
        ``state`` without the version.
    """
    original = state.pop(VERSION_KEY, None)
    current = _current()
    if original != current:
        warnings.warn(PickleVersionWarning(type(estimator).__name__, original, current),
                      stacklevel=outside_stacklevel())
    return state
