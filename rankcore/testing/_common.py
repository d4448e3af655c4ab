"""Helpers shared by the families' contract checks."""

from __future__ import annotations

import numpy as np

__all__ = ["assert_finite"]


def assert_finite(values, *, owner: str, what: str, at=None, at_name: str = "x", allow_inf: bool = False) -> None:
    """Raise AssertionError naming the first non-finite entry of ``values`` (and where it is).

    A check that compares values (monotone, convex, equal to a reference)
    calls this first, so that a NaN or an overflow is reported as such
    instead of as a failed comparison ("decreases", "differs").

    Parameters
    ----------
    owner : str
        The component, e.g. ``"price 'quadratic:0.5'"``.
    what : str
        The quantity, e.g. ``"log_value"``.
    at : array-like, optional
        The arguments the values were computed at (same shape), shown for
        the first bad entry as ``at_name = ...``.
    allow_inf : bool
        Accept ±inf (a value that legitimately overflows), refuse only NaN.
    """
    arr = np.asarray(values, dtype=np.float64).ravel()
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if not bad.any():
        return
    first = int(np.flatnonzero(bad)[0])
    where = ""
    if at is not None:
        where = f" at {at_name} = {float(np.asarray(at, dtype=np.float64).ravel()[first])!r}"
    kind = "NaN" if np.isnan(arr[first]) else repr(float(arr[first]))
    raise AssertionError(f"{owner}: {what} is {kind}{where} ({int(bad.sum())} of {arr.size} values not finite)")
