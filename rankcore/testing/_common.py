"""Helpers shared by the families' contract checks."""

from __future__ import annotations

import numpy as np

__all__ = ["assert_finite", "spec_round_trip_check"]


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


def spec_round_trip_check(family: str):
    """The check ``check_<family>_spec_round_trip(component, rng)`` of a family.

    It asserts that the canonical spec resolves to an equal component; every
    family whose components are specs shares this one check.
    """

    def check(component, rng):
        from ..registry import resolve

        assert resolve(family, component.spec) == component, (
            f"{family} {component.spec!r}: spec does not round-trip")

    check.__name__ = check.__qualname__ = f"check_{family}_spec_round_trip"
    check.__doc__ = "The canonical spec resolves to an equal component."
    return check
