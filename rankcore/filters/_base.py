"""The :class:`Filter` base class of the ``filter`` plugin family.

A *spectral filter* (a regularization family, docs/theory/kernel_ranking.md#filters) is a function
g_λ(t) of an eigenvalue t ≥ 0 and a regularization parameter λ > 0 that
approximates 1/t for large t and stays bounded near t = 0.  Kernel ranking
(:class:`rankcore.KernelRanker`) applies it to the spectrum of the centered
kernel operator A = P K P / m = U Σ Uᵀ:

    c = U g_λ(Σ) Uᵀ (P y / m)

so that every filter and every λ share one decomposition.  A filter is the
whole story of a regularization scheme; writing a new one means writing
:meth:`Filter.evaluate`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar

import numpy as np

from ..spec import Component

__all__ = ["Filter"]


def _check_positive(value: Any, argument: str, owner: str, *, meaning: str = "") -> float:
    """``value`` as a finite float > 0; ``meaning`` (e.g. " (the largest eigenvalue)") is added to the error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {argument} must be a positive number, got {type(value).__name__}")
    out = float(value)
    if not (math.isfinite(out) and out > 0):
        raise ValueError(f"{owner}: {argument} must be a finite number > 0{meaning}, got {value!r}")
    return out


def _check_lam(lam: Any, owner: str) -> float:
    return _check_positive(lam, "lam", owner)


def _check_norm(norm: Any, owner: str) -> float:
    return _check_positive(norm, "norm", owner, meaning=" (the largest eigenvalue)")


def _check_spectrum(t: Any, owner: str) -> np.ndarray:
    if isinstance(t, (str, bytes)):
        raise TypeError(f"{owner}: t must be an array of eigenvalues, got a string")
    arr = np.asarray(t, dtype=np.float64)
    if arr.ndim > 1:
        raise ValueError(f"{owner}: t must be a scalar or a 1-D array of eigenvalues, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{owner}: t must be finite, got NaN or infinite eigenvalues")
    if (arr < 0).any():
        raise ValueError(
            f"{owner}: t must be >= 0 (eigenvalues of a positive semi-definite operator; clip "
            f"rounding-level negatives first), got min {arr.min()!r}"
        )
    return np.ascontiguousarray(arr.reshape(-1))


class Filter(Component):
    """Base class of spectral regularization filters g_λ(t) (the ``filter`` family).

    Subclasses set :attr:`name` (and :attr:`parameters`, :attr:`examples`)
    and implement :meth:`evaluate`.  Everything else -- validation, the
    λ path, the value at t = 0 -- comes from this class.

    A filter must be

    * defined and finite for every t ≥ 0, **including t = 0**, where it takes
      its finite limit (for instance 1/λ for Tikhonov).  Kernel matrices have
      many eigenvalues that are zero or rounding-level; evaluate them without
      cancellation (``expm1``/``log1p``, series for tiny arguments), never as
      ``(1 - something) / t`` in plain arithmetic.  (Kernel ranking flushes
      eigenvalues below 1e-290 -- subnormal territory, where no formula keeps
      its digits -- to exactly 0 before calling a filter.);
    * non-negative, with 0 ≤ t·g_λ(t) ≤ 1 (the residual 1 − t·g_λ(t) lies in
      [0, 1]: the constant γ₀ of the filter's definition is at most 1);
    * a regularization: for fixed t > 0, t·g_λ(t) → 1 as λ → 0.

    :mod:`rankcore.testing` checks all of this on every registered filter.

    Attributes
    ----------
    qualification : float
        The largest p with sup_t t^p |1 − t g_λ(t)| ≤ γ_p λ^p (documentation:
        1 for Tikhonov, ν for ν-times iterated Tikhonov, ∞ for spectral
        cut-off, Landweber and Showalter).
    uses_norm : bool
        The filter depends on the operator norm ‖A‖ passed as ``norm``
        (Landweber's step μ ≤ 1/‖A‖).  Others ignore ``norm``.

    Examples
    --------
    >>> import numpy as np, rankcore
    >>> f = rankcore.get_registry().resolve("filter", "tikhonov")
    >>> f(np.array([0.0, 1.0]), 0.5)
    array([2.        , 0.66666667])
    """

    family: ClassVar[str] = "filter"
    qualification: ClassVar[float] = math.inf
    uses_norm: ClassVar[bool] = False

    # ------------------------------------------------------------------
    # The one method a filter implements
    # ------------------------------------------------------------------
    def evaluate(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        """g_λ(t) on validated input.

        Parameters
        ----------
        t : ndarray of float64, shape (n,)
            Eigenvalues, all finite and ≥ 0 (zeros included).
        lam : float
            The regularization parameter, finite and > 0.
        norm : float
            An upper bound of the spectrum (the largest eigenvalue of A,
            or 1 when unknown); only filters with ``uses_norm`` need it.

        Returns
        -------
        ndarray of float64, shape (n,)
            Finite, non-negative values; must not modify ``t``.
        """
        raise NotImplementedError(f"filter {self.name!r} does not implement evaluate(t, lam, norm)")

    # ------------------------------------------------------------------
    # Public, validated interface
    # ------------------------------------------------------------------
    def __call__(self, t: Any, lam: Any, *, norm: Any = 1.0) -> np.ndarray:
        """Validate the arguments and return g_λ(t) (same shape as ``t``; 1-D for a scalar).

        Raises
        ------
        TypeError, ValueError
            λ or ``norm`` not a finite positive number, ``t`` negative,
            NaN/inf or not 1-D.
        RuntimeError
            The filter returned values of the wrong shape, negative or non-finite
            values (a defect of the filter, reported with its name).
        """
        owner = f"filter {self.spec!r}"
        lam_f = _check_lam(lam, owner)
        norm_f = _check_norm(norm, owner)
        arr = _check_spectrum(t, owner)
        return self._checked(arr, lam_f, norm_f)

    def at_zero(self, lam: Any, *, norm: Any = 1.0) -> float:
        """The finite limit g_λ(0)."""
        return float(self(np.zeros(1), lam, norm=norm)[0])

    def path(self, t: Any, lams: Any, *, norm: Any = 1.0) -> np.ndarray:
        """g_λ(t) for every λ of a grid: an array of shape (len(lams), len(t)).

        Calls :meth:`_evaluate_path` (by default :meth:`evaluate` once per λ,
        O(len(lams)·len(t))) and validates the input once and the whole output
        at the end; a filter may override ``_evaluate_path`` with something faster.
        """
        owner = f"filter {self.spec!r}"
        norm_f = _check_norm(norm, owner)
        arr = _check_spectrum(t, owner)
        lam_arr = np.asarray(lams, dtype=np.float64).reshape(-1)
        if not (np.isfinite(lam_arr).all() and (lam_arr > 0).all()):
            for lam in lam_arr:  # names the offending value
                _check_lam(float(lam), owner)
        self._check_norm_bound(arr, norm_f)
        view = arr.view()
        view.flags.writeable = False  # a filter must not modify the spectrum
        out = self._evaluate_path(view, lam_arr, norm_f)
        self._check_output(out, f"lam in [{lam_arr.min() if lam_arr.size else 0!r}, "
                                f"{lam_arr.max() if lam_arr.size else 0!r}]")
        return out

    def _evaluate_path(self, t: np.ndarray, lams: np.ndarray, norm: float) -> np.ndarray:
        """g_λ(t) for validated ``t`` (read-only) and ``lams``: shape (len(lams), len(t)).

        The default calls :meth:`evaluate` once per λ; a filter may override it
        with a vectorized formula that gives the same values bit for bit (the
        built-in filters do: the Krylov path evaluates its filters on the Ritz
        values at every convergence check, where a Python loop over 200 λ
        would cost more than the arithmetic).
        """
        out = np.empty((lams.shape[0], t.shape[0]))
        for i, lam in enumerate(lams):
            row = np.asarray(self.evaluate(t, float(lam), norm), dtype=np.float64)
            if row.shape != t.shape:
                raise RuntimeError(f"filter {self.spec!r}: evaluate returned shape {row.shape}, expected {t.shape}")
            out[i] = row
        return out

    def _check_norm_bound(self, t: np.ndarray, norm: float) -> None:
        if self.uses_norm and t.size and t.max() > norm * (1 + 1e-12):
            raise ValueError(
                f"filter {self.spec!r}: the spectrum exceeds norm={norm!r} (max eigenvalue {t.max()!r}); "
                "pass the largest eigenvalue as norm"
            )

    def _check_output(self, out: np.ndarray, where: str) -> None:
        if not np.isfinite(out).all():
            raise RuntimeError(f"filter {self.spec!r}: evaluate returned NaN or infinite values at {where}")
        if (out < 0).any():
            raise RuntimeError(f"filter {self.spec!r}: evaluate returned negative values at {where}")

    def _checked(self, t: np.ndarray, lam: float, norm: float) -> np.ndarray:
        self._check_norm_bound(t, norm)
        view = t.view()
        view.flags.writeable = False  # a filter must not modify the spectrum
        out = np.asarray(self.evaluate(view, lam, norm), dtype=np.float64)
        if out.shape != t.shape:
            raise RuntimeError(f"filter {self.spec!r}: evaluate returned shape {out.shape}, expected {t.shape}")
        self._check_output(out, f"lam={lam!r}")
        return out
