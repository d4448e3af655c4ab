"""The :class:`Kernel` base class of the ``kernel`` plugin family.

A kernel is a positive semi-definite function K(x, x') of two feature vectors;
kernel ranking (:class:`rankcore.KernelRanker`) works in its reproducing
kernel Hilbert space and only ever needs Gram matrices K(X, Y).  Writing a
new kernel means writing :meth:`Kernel.compute`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar

import numpy as np

from ..spec import Component, read_float
from ..validation import check_matrix, effective_n_threads

__all__ = ["Kernel", "scale_or_positive"]


#: Bounds of a numeric length scale γ.  The kernels divide by γ, so 1/γ must
#: be finite (γ = 1e-320 is not), and γ·10^±100 leaves room for the squared
#: distances of any reasonably scaled data before exp() or a power overflows.
GAMMA_MIN, GAMMA_MAX = 1e-100, 1e100


def scale_or_positive(value: Any) -> str | float:
    """Parameter kind for a length scale: ``"scale"`` (taken from the training data) or a number in [1e-100, 1e100]."""
    if isinstance(value, str) and value.strip().lower() == "scale":
        return "scale"
    if isinstance(value, bool):
        raise ValueError("expected 'scale' or a number > 0, got a boolean")
    number = read_float(value) if isinstance(value, str) else float(value)   # a spec's number: ASCII digits
    if not (math.isfinite(number) and GAMMA_MIN <= number <= GAMMA_MAX):
        raise ValueError(f"expected 'scale' or a number in [{GAMMA_MIN:g}, {GAMMA_MAX:g}], got {value!r}")
    return number


scale_or_positive.__name__ = "'scale' or a number in [1e-100, 1e+100]"



#: Features below this size cannot overflow a kernel's products: a NaN from them is the kernel's fault.
_ORDINARY_SCALE = 1e100

class Kernel(Component):
    """Base class of kernel functions K(x, x') (the ``kernel`` plugin family).

    Subclasses set :attr:`name` (and :attr:`parameters`, :attr:`examples`)
    and implement :meth:`compute`; kernels whose parameters depend on the
    training data (``gamma="scale"``) also implement :meth:`with_data`.

    A kernel must be symmetric, K(x, x') = K(x', x), and -- when
    :attr:`positive_semidefinite` is true, as kernel ranking requires --
    produce positive semi-definite Gram matrices.  :mod:`rankcore.testing`
    checks both, plus consistency between K(X, Y), K(Y, X) and K(X, X), the
    diagonal, and independence of ``n_threads``.

    Attributes
    ----------
    positive_semidefinite : bool
        Gram matrices are PSD (the RKHS exists).  Kernel ranking refuses
        kernels that do not claim it.

    Examples
    --------
    >>> import numpy as np, rankcore
    >>> k = rankcore.get_registry().resolve("kernel", "rbf:2")   # exp(-|x - x'|^2 / 2)
    >>> k(np.array([[0.0], [1.0]]))
    array([[1.        , 0.60653066],
           [0.60653066, 1.        ]])
    """

    family: ClassVar[str] = "kernel"
    positive_semidefinite: ClassVar[bool] = True

    # ------------------------------------------------------------------
    # What a kernel implements
    # ------------------------------------------------------------------
    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        """The Gram matrix on validated input.

        Parameters
        ----------
        X : ndarray of float64, shape (n, d), C-contiguous, finite
        Y : ndarray of float64, shape (r, d), or None
            ``None`` asks for K(X, X): a kernel may exploit the symmetry, and
            must return an exactly symmetric matrix.
        n_threads : int
            Threads the computation may use.

        Returns
        -------
        ndarray of float64, shape (n, r) (or (n, n))
        """
        raise NotImplementedError(f"kernel {self.name!r} does not implement compute(X, Y, n_threads)")

    def for_rows_of(self, X: np.ndarray) -> "Kernel":
        """This kernel with whatever its values take from the rows ``X`` of ``K(X, Y)`` fixed from all of them.

        A caller that computes ``K(X, Y)`` in blocks of rows (a model scoring
        many rows: each block is one call, between which Ctrl-C is delivered)
        asks for this kernel first, so that ``K(X[a:b], Y)`` are the rows a:b
        of ``K(X, Y)`` bit for bit.  The default returns ``self``: a kernel
        whose value at (x, y) reads x and y only.  (The built-in ``rbf``
        centres the rows on X's mean, which a block would change.)
        """
        return self

    def with_data(self, X: np.ndarray) -> "Kernel":
        """This kernel with its data-dependent parameters fixed from the training rows ``X``.

        The default returns ``self`` (no such parameters).  The result must
        not need data any more (:attr:`needs_data` false), and its ``spec``
        names every parameter as a number, so that a saved model is rebuilt
        exactly.
        """
        return self

    @property
    def needs_data(self) -> bool:
        """Some parameter is still ``"scale"``: call :meth:`with_data` first."""
        return any(value == "scale" for value in self.params.values())

    # ------------------------------------------------------------------
    # Public, validated interface
    # ------------------------------------------------------------------
    def __call__(self, X: Any, Y: Any = None, *, n_threads: Any = None) -> np.ndarray:
        """Validate the rows and return the Gram matrix K(X, Y) (K(X, X) when ``Y`` is None).

        Raises
        ------
        TypeError, ValueError
            Non-numeric, NaN/inf, not 2-D, different numbers of features, or
            a data-dependent parameter that was never fixed (see :meth:`with_data`).
            Also: the kernel values overflow on these data (features too large).
        RuntimeError
            A registered kernel returned the wrong shape, or NaN on features
            of ordinary size (its own fault); a callable's NaN or infinite
            values are a ValueError naming ``kernel``.
        """
        owner = f"kernel {self.spec!r}"
        if self.needs_data:
            raise ValueError(
                f"{owner}: a parameter is 'scale' (set from the training data); call "
                f"kernel.with_data(X_train) first"
            )
        X_arr = check_matrix(X, name="X")
        Y_arr = None
        if Y is not None:
            Y_arr = check_matrix(Y, name="Y")
            if Y_arr.shape[1] != X_arr.shape[1]:
                raise ValueError(
                    f"{owner}: X and Y must have the same number of features, got {X_arr.shape[1]} and {Y_arr.shape[1]}"
                )
        threads = effective_n_threads(n_threads, name="n_threads")
        out = np.asarray(self.compute(X_arr, Y_arr, threads), dtype=np.float64)
        expected = (X_arr.shape[0], X_arr.shape[0] if Y_arr is None else Y_arr.shape[0])
        if out.shape != expected:
            raise RuntimeError(f"{owner}: compute returned shape {out.shape}, expected {expected}")
        if not np.isfinite(out).all():
            scale = max(float(np.abs(a).max(initial=0.0)) for a in (X_arr, Y_arr) if a is not None)
            if np.isnan(out).any() and scale < _ORDINARY_SCALE:
                # NaN from features of ordinary size is the kernel's own doing, not the data's
                raise RuntimeError(f"{owner}: compute returned NaN on features of at most {scale:.3g} in size")
            # Finite data can still overflow a kernel (|x| ~ 1e200 squared): an input
            # problem, reported as such (a ValueError), not as a bug.
            raise ValueError(f"{owner}: the kernel values are not finite on these data (NaN or infinite); "
                             f"the features (up to {scale:.3g} in size) or the kernel's parameters are too large for "
                             "it: scale the features, or lower the parameters")
        return out

    def diagonal(self, X: Any, *, n_threads: Any = None) -> np.ndarray:
        """K(x_i, x_i) for every row (the default computes 1 x 1 Gram matrices in O(n d))."""
        X_arr = check_matrix(X, name="X")
        if self.needs_data:
            raise ValueError(f"kernel {self.spec!r}: call kernel.with_data(X_train) first")
        threads = effective_n_threads(n_threads, name="n_threads")
        return np.array([float(self.compute(X_arr[i:i + 1], X_arr[i:i + 1], threads)[0, 0])
                         for i in range(X_arr.shape[0])])


class CallableKernel(Kernel):
    """Adapter for a user function: ``kernel=callable`` in :class:`rankcore.KernelRanker`.

    Two conventions are accepted and told apart by a probe on two and three rows:

    * matrix form, ``func(X, Y) -> ndarray (len(X), len(Y))`` (fast);
    * pair form, as scikit-learn's ``pairwise_kernels``: ``func(x, y) -> float``
      for two 1-D rows (called n·r times).

    Not registered (it has no spec string), so a model with a callable kernel
    cannot be saved.
    """

    name: ClassVar[str] = "callable"

    def __init__(self, func: Any, **kwargs: Any) -> None:
        if not callable(func):
            raise TypeError(f"kernel: expected a spec string, a rankcore.Kernel or a callable, got {func!r}")
        self.func = func
        self._pairwise: bool | None = None
        super().__init__(**kwargs)

    @property
    def spec(self) -> str:  # type: ignore[override]
        return f"callable:{getattr(self.func, '__name__', type(self.func).__name__)}"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.func is self.func  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), id(self.func)))

    def __reduce__(self):
        return (CallableKernel, (self.func,))

    def _probe(self, X: np.ndarray) -> bool:
        rows = X[: min(2, X.shape[0])]
        cols = X[: min(3, X.shape[0])]
        try:
            out = self.func(rows, cols)
        except Exception:
            out = None
        arr = None if out is None else np.asarray(out)
        if arr is not None and arr.shape == (rows.shape[0], cols.shape[0]):
            return False
        value = self.func(X[0], X[0])
        if np.ndim(value) != 0 or not isinstance(np.asarray(value).item(), numbers.Real):
            raise TypeError(
                "kernel: a callable kernel must return a (len(X), len(Y)) array for func(X, Y), "
                "or a number for func(x, y) on two rows"
            )
        return True

    def compute(self, X: np.ndarray, Y: np.ndarray | None, n_threads: int) -> np.ndarray:
        other = X if Y is None else Y
        if self._pairwise is None:
            self._pairwise = self._probe(X)
        if not self._pairwise:
            out = np.array(self.func(X, other), dtype=np.float64)
        else:
            out = np.empty((X.shape[0], other.shape[0]))
            for i in range(X.shape[0]):
                for j in range(other.shape[0]):
                    out[i, j] = float(self.func(X[i], other[j]))
        if not np.isfinite(out).all():   # the user's function's doing: a ValueError naming the argument, not a bug
            raise ValueError(f"kernel: the callable {self.spec.partition(':')[2]} returned NaN or infinite values; "
                             "a kernel must give a finite number for every pair of rows")
        if Y is None and out.shape == (X.shape[0], X.shape[0]):
            out = 0.5 * (out + out.T)  # exactly symmetric, as K(X, X) must be
        return out
