"""The :class:`KernelRanker` estimator: magnitude-preserving least-squares ranking in an RKHS."""

from __future__ import annotations

import math
import numbers
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._blas import blas_limit as _blas_limit
from .._peer_names import names_peer_fit_arguments, names_peer_predict_arguments, score_takes_no_queries
from .._degenerate import warn_constant
from .. import _memory
from .._memory import check_allocation
from .._threadsafe import fits_on_a_copy, reads_a_snapshot
from .._setup import EstimatorSetup
from .._state_fields import check_feature_names, refuse_labels_coded_otherwise
from ..base import Ranker, refuse_queries, ignore_score_weights, resolve_parameter
from ..filters import Filter
from ..kernels import RBF, CallableKernel, Kernel, Laplacian, Linear, Polynomial, Tanimoto
from ..registry import registry
from ..spec import show_given
from .._frames import validate_columns
from ..validation import (
    check_bipartite_target,
    check_category_order,
    check_finite_scores,
    check_graded_labels,
    check_matrix,
    effective_n_threads,
    int_seed,
    reject_1d,
)
from ._block_krylov import BlockKrylovSpectrum
from ._krylov import BlockKernelOperator, DenseOperator, KrylovSpectrum
from ._params import KERNEL_RANKER_FITTED, KERNEL_RANKER_PARAMETERS
from ._plan import default_memory_budget, plan_solver
from ._selection import apriori_choice, default_grid, holdout_choice
from ._spectral import ExactSpectrum, NystroemSpectrum

__all__ = ["KernelRanker", "EXACT_AUTO_LIMIT"]

#: ``solver="auto"`` never chooses the exact decomposition above this many
#: rows; below it, the choice is by predicted time and memory (:mod:`._plan`).
EXACT_AUTO_LIMIT = 20_000

#: Rows of the kernel computed at a time by the matrix-free Krylov route.
KRYLOV_BLOCK = 1024

#: Vectors per block Lanczos step of the matrix-free Krylov route (b and 31 seeded random vectors): each
#: sweep over the kernel (m² exponentials for rbf) serves all of them.  Measured in
#: docs (rkhs page, "Block Lanczos"): on the kernel matrix in memory the single-vector route is faster.
KRYLOV_VECTORS = 32

#: 32-bit LAPACK indexing of an m x m array: m * m < 2**31.
EXACT_MAX_SAMPLES = 46_340

_KERNEL_OVERRIDES = ("gamma", "degree", "coef0")

#: Below this many training rows a fit runs on one thread whatever ``n_jobs``
#: says: the m x m work is then a few milliseconds, and waking a second BLAS /
#: OpenMP thread (on a busy machine, waiting a whole time slice for it) made
#: such fits 2-4x slower than serial in our measurements (m = 100..800, 2 cores).
PARALLEL_MIN_ROWS = 1024

#: Multiply-adds (rows x support x features) below which OpenBLAS runs every product of a scoring on one thread
#: whatever its thread count: its matrix-vector products thread from m x n = 2304 x 4 (its default
#: ``GEMM_MULTITHREAD_THRESHOLD``), its matrix products from m x n x k = 65536 x 4; the smaller bounds both.
BLAS_SERIAL_WORK = 9216
#: The kernels whose code is known (a subclass may add BLAS calls of its own).
_BUILTIN_KERNELS = (RBF, Laplacian, Linear, Polynomial, Tanimoto)


def _blas_serial(kernel: Kernel, X: np.ndarray, support: np.ndarray) -> bool:
    """Whether scoring the rows ``X`` needs no BLAS thread limit: a built-in kernel (whose only BLAS call is one
    product of the rows and the support) on a product too small for BLAS to thread.  A plugin's or a user's
    kernel may call BLAS otherwise: it keeps the limit."""
    return type(kernel) in _BUILTIN_KERNELS and X.shape[0] * support.shape[0] * X.shape[1] < BLAS_SERIAL_WORK


#: Cross-Gram entries (rows scored times support rows) per kernel call of ``decision_function``: 32 MB.  The
#: kernels run without the GIL, where Ctrl-C cannot reach them, and one call took every row (and an n x m matrix
#: of memory); Python raises the ``KeyboardInterrupt`` between blocks.
SCORE_BLOCK_ENTRIES = 1 << 22


def score_row_blocks(n_rows: int, n_support: int) -> list[tuple[int, int]]:
    """The (start, stop) row ranges ``decision_function`` scores in, about :data:`SCORE_BLOCK_ENTRIES` kernel
    values each (one empty range for no rows)."""
    step = max(1, SCORE_BLOCK_ENTRIES // max(1, n_support))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)] or [(0, 0)]


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class KernelSetup(EstimatorSetup):
    """KernelRanker's configuration, checked and resolved once: what ``fit``, ``score`` and loading use.

    Attributes
    ----------
    kernel : Kernel
        The configured kernel before it sees the data (``gamma``, ``degree``,
        ``coef0`` applied; a callable wrapped).
    filters : tuple of Filter
        The resolved filters; ``single_filter``: ``filter`` named one.
    lam_mode : str
        ``"single"``, ``"path"``, ``"holdout"`` or ``"apriori"``.
    lams : ndarray or None
        The λ values of ``"single"`` and ``"path"``.
    grid : ndarray
        The grid of the hold-out and a-priori choices.
    metric : Metric
        The resolved ``metric``.
    """

    kernel: Kernel
    filters: tuple
    single_filter: bool
    lam_mode: str
    lams: np.ndarray | None
    grid: np.ndarray
    metric: Any


#: Labels beyond this size leave the doubles in the solve (its sums of squares): refused before it.
_LARGEST_LABEL = 1e150
_LABELS_TOO_LARGE = ("y: the labels are too large for the kernel ranker's solve (its coefficients overflow); scale "
                     "them down, which changes no ranking")


def _check_exact_memory(solver: str, m: int) -> None:
    """Refuse ``solver="exact"`` when its two m x m arrays exceed the memory available now (a ValueError naming
    ``solver``): the second one is allocated only after the O(m³) reduction -- hours at m = 30,000 -- and NumPy's
    ``MemoryError`` then names nothing."""
    if solver == "exact":
        check_allocation("solver", 16 * m * m, f"the exact decomposition's two {m:,} x {m:,} arrays",
                         "use solver='nystroem' (n_components landmarks) or solver='auto', or fit fewer rows")


def _describe_two(arr: np.ndarray) -> str:
    first, second = np.unique(arr)[:2].tolist()
    return f"{first} and {second}"


class KernelRanker(Ranker):
    """Regularized ranking in a reproducing kernel Hilbert space (docs/theory/kernel_ranking.md).

    Minimizes the magnitude-preserving least-squares ranking risk
    (1/m²) Σ_{i,j} (y_i − y_j − (f(x_i) − f(x_j)))² under a spectral
    regularization scheme g_λ: f = Σ_i c_i K(x_i, ·) with
    c = U g_λ(Σ) Uᵀ (P y / m), where P K P / m = U Σ Uᵀ.  One decomposition
    serves every λ and every filter, so a λ path, a hold-out choice over 200
    values or several filters at once cost little more than one fit.

    Attributes
    ----------
    dual_coef_ : ndarray
        Coefficients c over ``support_``: shape (n_support,) for one model;
        for a path ([n_filters,] [n_lams,] n_support) -- the filter axis only
        when ``filter`` was a sequence, the λ axis only when ``lam`` was an array.
    support_ : ndarray, shape (n_support, n_features)
        The rows the coefficients refer to (training rows, or the landmarks).
    kernel_ : rankcore.Kernel
        The kernel with data-dependent parameters fixed.
    filters_ : list of rankcore.Filter
        The filters of ``dual_coef_`` (after a hold-out choice: the chosen one).
    lams_ : ndarray
        The λ values of ``dual_coef_``'s λ axis (one value for a single model).
    lam_, filter_ : float, rankcore.Filter
        The model's λ and filter (None for a path).
    spectrum_ : ndarray
        Eigenvalues (ascending) of the final decomposition.
    lam_grid_, holdout_losses_ : ndarray
        With ``"holdout"``/``"apriori"``: the grid and the held-out loss of
        every (filter, λ) (shape (n_filters, n_grid); of the last subset for
        ``"apriori"``).
    apriori_ : dict
        With ``"apriori"``: subset ``sizes``, their ``lams``, ``alpha``,
        ``beta`` and the ``extrapolated`` α m^{−β/2}; ``lam_`` is that value
        clipped to the range of ``lam_grid`` (with a warning when it is outside).
    solver_ : str
        ``"exact"``, ``"krylov"`` or ``"nystroem"``.
    solver_plan_ : dict
        The predicted seconds and bytes of each route for the final fit (what
        ``solver="auto"`` chose by).  Not kept in model files: a loaded
        model's is the plan for its support rows.
    n_iter_ : int or None
        Lanczos steps of the final fit (``solver_ == "krylov"``).  Not kept in
        model files (a loaded model has none).
    target_type_ : str
        ``"bipartite"`` (two label values) or ``"graded"``.
    classes_ : ndarray
        The two labels, for non-numeric bipartite y (the greater is relevant).
    n_features_in_, feature_names_in_ :
        As in scikit-learn.

    Examples
    --------
    >>> import numpy as np
    >>> from rankcore import KernelRanker
    >>> X = np.arange(1, 101, dtype=float).reshape(-1, 1)
    >>> y = np.floor(X[:, 0] / 10)
    >>> model = KernelRanker(kernel="rbf", gamma=100.0, lam=1e-4).fit(X, y)
    >>> model.decision_function(X[:3]).shape
    (3,)
    """

    name = "KernelRanker"
    aliases = ("kernel", "kernelranker", "rkhs")
    summary = "regularized kernel ranking (spectral filters)"
    examples = ("KernelRanker:lam=0.1", "KernelRanker:lam=holdout,metric=auc,random_state=0")
    parameters = KERNEL_RANKER_PARAMETERS
    fitted = KERNEL_RANKER_FITTED

    def _task(self) -> str:
        return "any"      # real-valued grades or two labels: no classifier tags

    # ------------------------------------------------------------------
    # Parameter resolution (spec strings stay strings until fit)
    # ------------------------------------------------------------------
    def _configured_kernel(self) -> Kernel:
        """The kernel the parameters describe, before it sees the data."""
        overrides = {name: getattr(self, name) for name in _KERNEL_OVERRIDES if getattr(self, name) is not None}
        if isinstance(self.kernel, (str, Kernel)) and not isinstance(self.kernel, CallableKernel):
            kernel = registry().resolve("kernel", self.kernel)
        elif callable(self.kernel):
            if overrides:
                raise ValueError(f"{', '.join(overrides)}: not applicable to a callable kernel; got {overrides!r}")
            return CallableKernel(self.kernel)
        else:
            raise TypeError(
                f"kernel: expected a kernel spec such as 'rbf', a rankcore.Kernel or a callable, got "
                f"{show_given(self.kernel)}"
            )
        if not kernel.positive_semidefinite:
            raise ValueError(f"kernel: {kernel.spec!r} is not positive semi-definite; "
                             "kernel ranking needs a PSD kernel")
        if overrides:
            declared = {p.name for p in kernel.parameters}
            unknown = sorted(set(overrides) - declared)
            if unknown:
                raise ValueError(
                    f"{', '.join(unknown)}: kernel {kernel.spec!r} has no such parameter "
                    f"(its parameters: {', '.join(sorted(declared)) or 'none'})"
                )
            kernel = type(kernel)(**{**kernel.params, **overrides})
        return kernel

    def _setup(self) -> KernelSetup:
        """Every parameter checked and every spec resolved that needs no data (the start of ``fit`` and of loading)."""
        params = self._check_params()
        kernel = self._configured_kernel()
        filters, single_filter = self._resolve_filters()
        lam_mode, lams = self._resolve_lam()
        grid = self._resolve_grid()
        metric = resolve_parameter("metric", "metric", params.metric)
        return KernelSetup(params, kernel, tuple(filters), single_filter, lam_mode, lams, grid, metric)

    def _resolve_filters(self) -> tuple[list[Filter], bool]:
        spec = self.filter
        if isinstance(spec, (str, Filter)):
            return [registry().resolve("filter", spec)], True
        if isinstance(spec, (list, tuple)) and spec:
            return [registry().resolve("filter", s) for s in spec], False
        raise TypeError("filter: expected a filter spec such as 'tikhonov', a rankcore.Filter or a non-empty list "
                        f"of them, got {show_given(spec)}")

    def _resolve_lam(self) -> tuple[str, np.ndarray | None]:
        lam = self.lam
        if isinstance(lam, str):
            if lam in ("holdout", "apriori"):
                return lam, None
            raise ValueError(f"lam: expected a number > 0, an array of them, 'holdout' or 'apriori', got {lam!r}")
        if _is_number(lam):
            value = float(lam)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"lam: expected a finite number > 0, got {lam!r}")
            return "single", np.array([value])
        try:
            arr = np.asarray(lam, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("lam: expected a number > 0, an array of them, 'holdout' or 'apriori', "
                            f"got {lam!r}") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"lam: an array of lambdas must be 1-D and non-empty, got shape {arr.shape}")
        if not (np.isfinite(arr).all() and (arr > 0).all()):
            raise ValueError("lam: every lambda must be a finite number > 0, "
                             f"got {arr[~(np.isfinite(arr) & (arr > 0))][:5]!r}")
        return "path", arr

    def _resolve_grid(self) -> np.ndarray:
        if self.lam_grid is None:
            return default_grid()
        try:
            grid = np.asarray(self.lam_grid, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"lam_grid: expected an array of numbers > 0, got {self.lam_grid!r}") from None
        if grid.ndim != 1 or grid.size == 0 or not (np.isfinite(grid).all() and (grid > 0).all()):
            raise ValueError(f"lam_grid: expected a non-empty 1-D array of finite numbers > 0, got {self.lam_grid!r}")
        return grid

    def _plan(self, m: int, filters=()) -> tuple[str, int]:
        """The solver for ``m`` rows (``"auto"`` chooses by predicted time and memory) and the landmarks."""
        budget = self.memory_budget
        self._memory_budget = int(default_memory_budget() if budget is None else budget)
        solver = self.solver
        auto, self.solver_plan_ = plan_solver(m, int(self.n_components), self._memory_budget,
                                              min(EXACT_AUTO_LIMIT, EXACT_MAX_SAMPLES),
                                              cutoff=any(f.name == "cutoff" for f in filters))
        if solver == "auto":
            solver = auto
            available = _memory.available_memory()
            if solver == "exact" and available is not None and 16 * m * m > available:
                # the default budget is half the machine's memory, and less may be free now: 'auto' then plans
                # within what is free (a route that fits) instead of choosing the route _check_exact_memory refuses
                self._memory_budget = min(self._memory_budget, int(available))
                solver, self.solver_plan_ = plan_solver(m, int(self.n_components), self._memory_budget,
                                                        min(EXACT_AUTO_LIMIT, EXACT_MAX_SAMPLES),
                                                        cutoff=any(f.name == "cutoff" for f in filters))
        if solver == "exact" and m > EXACT_MAX_SAMPLES:
            raise ValueError(
                f"solver: the exact decomposition supports at most {EXACT_MAX_SAMPLES} samples (32-bit LAPACK "
                f"indices), got {m}; use solver='nystroem'"
            )
        if solver == "nystroem":        # the m x r kernel block and its factors: NumPy's MemoryError names no parameter
            check_allocation("n_components", int(self.solver_plan_["nystroem"]["bytes"]),
                             f"the Nystroem kernel block and its factors ({m:,} rows x "
                             f"{min(int(self.n_components), m):,} landmarks)")
        return solver, int(self.n_components)

    def _check_X(self, X: Any, *, reset: bool) -> np.ndarray:
        """rankcore's matrix checks, plus scikit-learn's feature-name and count bookkeeping."""
        if np.iscomplexobj(X):
            raise ValueError("X: Complex data not supported; expected real numbers")
        if getattr(X, "ndim", None) == 1 or (isinstance(X, list) and X and np.ndim(X[0]) == 0):
            raise ValueError(
                "X: expected a 2-D array (n_samples, n_features), got a 1-D array. Reshape your data "
                "with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample"
            )
        reject_1d(X)
        validate_columns(self, X, reset=reset)
        return check_matrix(X, name="X")

    def _validate_target(self, y: Any) -> tuple[np.ndarray, np.ndarray | None]:
        if y is None:
            raise ValueError("KernelRanker requires y to be passed, but the target y is None")
        check_category_order(y)
        arr = np.asarray(y)
        if arr.dtype == object:
            try:  # numbers stored as objects are grades, not class labels
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                pass
        if arr.dtype.kind in "biuf":
            values = check_graded_labels(arr, name="y")
            classes = None
        else:
            y01, classes = check_bipartite_target(arr, name="y")
            values = y01.astype(np.float64)
        if np.unique(values).shape[0] < 2:
            if arr.dtype.kind in "iu" and np.unique(arr).shape[0] > 1:
                # the labels are regressed by their size, so they are read as float64 and these round into one
                raise ValueError(f"y: the labels {_describe_two(arr)} differ only beyond float64's precision "
                                 f"(integers above 2**53); KernelRanker regresses the labels' values: pass smaller "
                                 f"ones (e.g. their ranks, np.unique(y, return_inverse=True)[1])")
            raise ValueError(f"y: a ranking needs at least two different label values, got only {float(values[0])!r}")
        return values, classes

    # ------------------------------------------------------------------
    # Fitting
    # ------------------------------------------------------------------
    # qid and group are refused (one list): no hint may send a peer's group_id there
    @names_peer_fit_arguments(constructor=None, refuses=("qid", "group"))
    @fits_on_a_copy
    def fit(self, X: Any, y: Any, *, qid: Any = None, group: Any = None) -> "KernelRanker":
        """Fit the ranking function(s).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real-valued relevance (graded), or two labels of any type
            (bipartite; the greater is relevant).
        qid, group : None
            Not supported: this estimator ranks one list (a ValueError
            naming it; ``rankcore.boost`` fits within queries).

        Returns
        -------
        self
        """
        refuse_queries(type(self).__name__, qid, group)
        setup = self._setup_record()
        self._check_apriori_sizes(2**62)        # its form whatever lam is, as a saved model's parameters are checked
        X_arr = self._check_X(X, reset=True)
        m = X_arr.shape[0]
        if m < 2:
            raise ValueError(f"KernelRanker needs at least 2 samples to rank, got {m} sample")
        y_values, classes = self._validate_target(y)
        if y_values.size and float(np.max(np.abs(y_values))) > _LARGEST_LABEL:
            raise ValueError(_LABELS_TOO_LARGE)       # before a solver meets them (Krylov's would name no argument)
        if X_arr.shape[0] != y_values.shape[0]:
            raise ValueError(f"inconsistent lengths: X has {X_arr.shape[0]} rows, y has {y_values.shape[0]} values")
        self.n_features_in_ = X_arr.shape[1]
        filters, single_filter = list(setup.filters), setup.single_filter
        mode, lams = setup.lam_mode, setup.lams
        solver, n_components = self._plan(m, filters)
        _check_exact_memory(solver, m)
        kernel = setup.kernel if isinstance(setup.kernel, CallableKernel) else setup.kernel.with_data(X_arr)
        metric = setup.metric if mode in ("holdout", "apriori") else None
        if metric is not None and not metric.scalar:
            raise ValueError(f"metric: {metric.spec!r} is not a scalar metric and cannot choose lambda")
        rng = np.random.default_rng(int_seed(check_random_state(self.random_state))) \
            if mode in ("holdout", "apriori") or solver == "nystroem" else None
        threads = effective_n_threads(self.n_jobs) if m >= PARALLEL_MIN_ROWS else 1
        # the block Lanczos start vectors of the matrix-free route (drawn after the hold-out's generator)
        krylov_seed = int_seed(check_random_state(self.random_state)) if solver == "krylov" else None

        self.kernel_, self.filters_, self.solver_ = kernel, filters, solver
        self.target_type_ = "bipartite" if np.unique(y_values).shape[0] == 2 else "graded"
        if classes is not None:
            self.classes_ = classes
        elif hasattr(self, "classes_"):
            del self.classes_
        self.lam_grid_ = self.holdout_losses_ = self.apriori_ = None
        self._n_threads = threads
        self._n_components = n_components
        self._rng = rng
        self._krylov_seed = krylov_seed
        self.n_iter_ = None

        with _blas_limit(threads):
            if mode in ("single", "path"):
                spectrum, support = self._decompose(X_arr, y_values)
                lams = spectrum.usable_lams(lams)    # λ below the rounding floor: clipped, with a warning
                coef = spectrum.path(filters, lams)
                self._set_model(support, coef, lams, spectrum, single_filter, mode == "single")
            elif mode == "holdout":
                grid = setup.grid
                result = self._holdout(X_arr, y_values, filters, grid, metric, extend=True)
                grid = result.lams
                self.lam_grid_, self.holdout_losses_ = grid, result.losses
                chosen_filter, chosen_lam = filters[result.filter_index], grid[result.lam_index]
                if self.refit:
                    spectrum, support = self._decompose(X_arr, y_values)
                    coef = spectrum.path([chosen_filter], np.array([chosen_lam]))
                    self._set_model(support, coef, np.array([chosen_lam]), spectrum, True, True, [chosen_filter])
                else:
                    self._set_model(result.support, result.coef.reshape(1, 1, -1), np.array([chosen_lam]),
                                    result.spectrum, True, True, [chosen_filter])
            else:  # apriori
                if not single_filter:
                    raise ValueError("filter: lam='apriori' extrapolates lambda for one filter; give a single filter")
                grid = setup.grid
                sizes = self._check_apriori_sizes(m)
                last: dict[str, Any] = {}

                def choose(X_sub: np.ndarray, y_sub: np.ndarray) -> float:
                    res = self._holdout(X_sub, y_sub, filters, grid, metric)
                    last["losses"] = res.losses
                    return float(grid[res.lam_index])

                result = apriori_choice(X_arr, y_values, sizes=sizes, choose=choose, rng=rng,
                                        bounds=(float(grid.min()), float(grid.max())))
                self.lam_grid_, self.holdout_losses_ = grid, last["losses"]
                self.apriori_ = {"sizes": result.sizes, "lams": result.lams, "alpha": result.alpha, "beta": result.beta,
                                 "extrapolated": result.extrapolated}
                spectrum, support = self._decompose(X_arr, y_values)
                lam_arr = spectrum.usable_lams(np.array([result.lam]))
                coef = spectrum.path(filters, lam_arr)
                self._set_model(support, coef, lam_arr, spectrum, True, True)
        del self._rng
        return self

    def _check_apriori_sizes(self, m: int) -> np.ndarray:
        try:
            sizes = np.asarray(self.apriori_sizes)
        except Exception:
            sizes = np.asarray([])
        if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or (sizes < 4).any():
            raise ValueError("apriori_sizes: expected a non-empty sequence of integers >= 4, "
                             f"got {self.apriori_sizes!r}")
        if (sizes >= m).any():
            raise ValueError(
                f"apriori_sizes: every subset must be smaller than the training set ({m} samples), "
                f"got {self.apriori_sizes!r}"
            )
        if np.unique(sizes).shape[0] < 2:
            raise ValueError("apriori_sizes: the extrapolation needs at least two different sizes, "
                             f"got {self.apriori_sizes!r}")
        return sizes.astype(np.int64)

    def _gram(self, A: np.ndarray, B: np.ndarray | None = None) -> np.ndarray:
        return np.ascontiguousarray(self.kernel_(A, B, n_threads=self._n_threads), dtype=np.float64)

    def _decompose(self, X: np.ndarray, y: np.ndarray):
        """(spectrum, support rows) for one training set, exact or Nyström."""
        m = X.shape[0]
        if self.solver_ == "exact":
            K = self._gram(X)
            if not K.flags.writeable:
                K = K.copy()
            return ExactSpectrum(K, y, n_threads=self._n_threads), X
        if self.solver_ == "krylov":
            return self._krylov_spectrum(X, y), X
        r = min(self._n_components, m)
        idx = np.sort(self._rng.choice(m, r, replace=False))
        K_mr = self._gram(X, X[idx])
        return NystroemSpectrum(K_mr, K_mr[idx], y), X[idx]

    def _krylov_spectrum(self, X: np.ndarray, y: np.ndarray) -> KrylovSpectrum:
        """Lanczos on the kernel matrix in memory, or matrix-free when m² doubles exceed the budget."""
        m = X.shape[0]
        threads = self._n_threads
        if 8 * m * m <= self._memory_budget:
            K = self._gram(X)

            def exact_spectrum(min_eigenvalue=None):  # the fallback for (filter, λ) that miss their bound
                return ExactSpectrum(np.array(K, order="C", copy=True), y, n_threads=threads,
                                     min_eigenvalue=min_eigenvalue)
            exact = exact_spectrum if m <= EXACT_MAX_SAMPLES and 16 * m * m <= self._memory_budget else None
            operator = DenseOperator(K)
        else:
            block = max(1, min(KRYLOV_BLOCK, self._memory_budget // (8 * m)))
            operator = BlockKernelOperator(self.kernel_, X, block=block, n_threads=threads)
            # one sweep over the kernel serves KRYLOV_VECTORS vectors for about the price of one: block Lanczos
            return BlockKrylovSpectrum(operator, y, block_size=KRYLOV_VECTORS, random_state=self._krylov_seed,
                                       tol=float(self.tol), max_iter=int(self.max_iter))
        return KrylovSpectrum(operator, y, tol=float(self.tol), max_iter=int(self.max_iter), exact=exact)

    def _holdout(self, X, y, filters, grid, metric, extend=False):
        return holdout_choice(
            X, y, filters=filters, lams=grid, metric=metric, holdout_size=float(self.holdout_size),
            rng=self._rng, decompose=self._decompose, gram=self._gram, extend=extend,
        )

    def _set_model(self, support, coef, lams, spectrum, single_filter, single_lam, filters=None) -> None:
        if filters is not None:
            self.filters_ = list(filters)
        shape = ([] if single_filter else [coef.shape[0]]) + ([] if single_lam else [coef.shape[1]]) + [coef.shape[2]]
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.abs(coef).sum(axis=-1)
        if not (np.isfinite(coef).all() and np.isfinite(total).all()):
            # labels near the largest double: the solve (or any score summed from it) leaves the doubles
            raise ValueError(_LABELS_TOO_LARGE)
        self.support_ = np.ascontiguousarray(support)
        self.dual_coef_ = np.ascontiguousarray(coef.reshape(shape))
        self.lams_ = np.asarray(lams, dtype=np.float64).copy()
        self.lam_ = float(self.lams_[0]) if single_lam else None
        self.filter_ = self.filters_[0] if single_filter else None
        self.spectrum_ = None if spectrum is None else spectrum.eigenvalues.copy()
        if spectrum is not None and not np.any(spectrum.eigenvalues > 0):
            # A = P K P / m is zero: the kernel values do not vary over the training rows
            warn_constant(owner="KernelRanker",
                          why=f"the centred kernel matrix of {getattr(self.kernel_, 'spec', 'the kernel')!r} is zero "
                              "on the training rows (constant features, or a length scale far from the "
                              "features' scale)")
        elif spectrum is not None and single_filter and single_lam and np.any(spectrum.weights != 0):
            self._warn_zero_model(coef, lams, spectrum.norm)      # (a path may well reach λ beyond the spectrum)
        if isinstance(spectrum, KrylovSpectrum):
            self.n_iter_ = spectrum.n_iter
        if spectrum is not None:
            spectrum.release()
        self._single_filter, self._single_lam = bool(single_filter), bool(single_lam)

    def _warn_zero_model(self, coef: np.ndarray, lams, norm: float) -> None:
        """The constant-model warning for a model of one filter and one λ that is 0 although y varies: a cut-off or
        Landweber λ beyond the spectrum keeps no direction of A (``cutoff`` at lam=10 with ‖A‖ = 0.1)."""
        if np.any(coef != 0):
            return
        spec = getattr(self.filters_[0], "spec", self.filters_[0])
        warn_constant(owner="KernelRanker",
                      why=f"filter {spec!r} at lam = {float(np.asarray(lams).reshape(-1)[0]):.3g} keeps no direction "
                          f"of the centred kernel matrix (its largest eigenvalue is {norm:.3g}): lower lam")

    # ------------------------------------------------------------------
    # Prediction
    # ------------------------------------------------------------------
    @names_peer_predict_arguments
    @reads_a_snapshot
    def decision_function(self, X: Any) -> np.ndarray:
        """Ranking scores f(x) = Σ_i c_i K(x_i, x) (higher = ranked higher).

        Returns
        -------
        ndarray of shape (n_samples,) for one model, or
        (n_samples, [n_filters,] [n_lams]) for a path (see ``dual_coef_``).
        """
        check_is_fitted(self, "dual_coef_")
        X_arr = self._check_X(X, reset=False)
        if X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X_arr.shape[1]} features, but KernelRanker was fitted with {self.n_features_in_}")
        return self._checked_decision_function(X_arr)

    def _checked_decision_function(self, X_arr: np.ndarray) -> np.ndarray:
        """:meth:`decision_function` of rows already checked (here, or by an outer estimator such as AutoRanker: a
        C-contiguous, finite float64 array of ``n_features_in_`` columns).  The same scores, without checking them
        again."""
        # Same rule as fit: parallel only when the cross-Gram matrix is big.
        big = X_arr.shape[0] * self.support_.shape[0] >= PARALLEL_MIN_ROWS ** 2
        threads = effective_n_threads(self.n_jobs) if big else 1
        coef = self.dual_coef_.reshape(-1, self.dual_coef_.shape[-1])
        scores = np.empty((X_arr.shape[0], coef.shape[0]))
        kernel = self.kernel_.for_rows_of(X_arr)
        # entering the limit costs more than a one-row score; BLAS itself runs a product this small on one thread
        limit = _blas_limit(threads) if big or not _blas_serial(kernel, X_arr, self.support_) else nullcontext()
        with limit:
            for start, stop in score_row_blocks(X_arr.shape[0], self.support_.shape[0]):
                K = kernel(X_arr[start:stop], self.support_, n_threads=threads)
                with np.errstate(over="ignore", invalid="ignore"):    # checked below
                    for k in range(coef.shape[0]):
                        # each row's own dot product (einsum's loop, no temporary), not BLAS's K @ coef.T: its
                        # rounding depends on the rows around (how many, which thread), a block's would differ
                        scores[start:stop, k] = np.einsum("ij,j->i", K, coef[k])
        check_finite_scores(scores, owner="KernelRanker.decision_function", X=X_arr)
        return scores.reshape((X_arr.shape[0],) + self.dual_coef_.shape[:-1])

    @score_takes_no_queries
    @reads_a_snapshot
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The ``metric`` on (X, y) in greater-is-better form (``misrank`` → 1 − misrank).

        Only for a single model (not a path).  ``sample_weight`` must be None
        (it is there for ``Pipeline.score``).
        """
        ignore_score_weights(sample_weight, self)
        scores = self.decision_function(X)
        if scores.ndim != 1:
            raise ValueError("score: this model holds a path of lambdas/filters; score one column of decision_function")
        refuse_labels_coded_otherwise(self, y, source=type(self).__name__)
        metric = self._setup_record().metric
        y_values, _ = self._validate_target_for_score(y)
        from ._selection import metric_labels

        loss = metric.loss(metric_labels(metric, y_values), scores)
        return 1.0 - loss if metric.bounded else -loss

    def _validate_target_for_score(self, y: Any):
        arr = np.asarray(y)
        if arr.dtype.kind in "biuf":
            return check_graded_labels(arr, name="y"), None
        if not hasattr(self, "classes_"):
            raise ValueError("y: non-numeric labels, but the model was fitted on numeric ones")
        values = np.asarray(arr)
        unknown = set(np.unique(values).tolist()) - set(self.classes_.tolist())
        if unknown:
            raise ValueError(f"y: labels {sorted(unknown)!r} were not seen in fit (classes {self.classes_.tolist()!r})")
        return (values == self.classes_[1]).astype(np.float64), self.classes_

    # ------------------------------------------------------------------
    # Persistence (rankcore.persistence: JSON, no pickle)
    # ------------------------------------------------------------------
    def _get_fitted_state(self) -> dict:
        check_is_fitted(self, "dual_coef_")
        if isinstance(self.kernel_, CallableKernel):
            raise TypeError("KernelRanker: a model with a callable kernel cannot be saved (it has no spec string); "
                            "register the kernel as a plugin to save it")
        return super()._get_fitted_state()

    def _check_loaded_params(self, state: dict):
        # the parameters read from the file pass the same checks as in fit (m: the support rows)
        setup = self._setup_record()
        support_rows = getattr(state.get("support"), "shape", (1,))[0]
        self._plan(max(int(support_rows), 1))
        self._check_apriori_sizes(2**62)
        return setup

    def _restore_fitted_state(self, state: dict, setup) -> None:
        fail = self._state_error
        reg = registry()
        if not isinstance(state["kernel"], str):
            fail("kernel must be a spec string")
        kernel = reg.resolve("kernel", state["kernel"])
        if kernel.needs_data:
            fail(f"kernel {state['kernel']!r} still depends on the training data")
        # the stored kernel is the parameters' with the data-dependent values fixed: its name and every value the
        # parameters fix must agree (a file whose kernel says rbf while its parameters say linear ranks otherwise)
        wanted = setup.kernel
        fixed = {k: v for k, v in getattr(wanted, "params", {}).items() if not isinstance(v, str)}
        if type(kernel) is not type(wanted) or any(kernel.params.get(k) != v for k, v in fixed.items()):
            fail(f"kernel {state['kernel']!r} does not match the parameters (kernel {wanted.spec!r})")
        if not (isinstance(state["filters"], list) and state["filters"]
                and all(isinstance(s, str) for s in state["filters"])):
            fail("filters must be a non-empty list of spec strings")
        configured = {f.spec: f for f in setup.filters}     # the parameters' filters, resolved
        unknown = [s for s in state["filters"] if s not in configured]
        if unknown:
            fail(f"filters {unknown!r} are not among the parameters' filters {sorted(configured)!r}")
        filters = [configured[s] for s in state["filters"]]
        single_filter, single_lam = state["single_filter"], state["single_lam"]
        if not isinstance(single_filter, bool) or not isinstance(single_lam, bool):
            fail("single_filter and single_lam must be booleans")
        if single_filter and len(filters) != 1:
            fail("a single-filter model must name exactly one filter")
        n_features = state["n_features_in"]
        if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
            fail(f"n_features_in must be a positive integer, got {n_features!r}")
        support, coef, lams = state["support"], state["dual_coef"], state["lams"]
        for name, arr in (("support", support), ("dual_coef", coef), ("lams", lams)):
            if not isinstance(arr, np.ndarray) or arr.dtype != np.float64:
                fail(f"{name} must be a float64 array")
            if not np.isfinite(arr).all():
                fail(f"{name} contains NaN or infinite values")
        if support.ndim != 2 or support.shape[1] != n_features or support.shape[0] < 1:
            fail(f"support must have shape (n_support, {n_features}), got {support.shape}")
        if lams.ndim != 1 or lams.size < 1 or (lams <= 0).any() or (single_lam and lams.size != 1):
            fail(f"lams must be a non-empty array of positive values (one for a single model), got shape {lams.shape}")
        shape = ([] if single_filter else [len(filters)]) + ([] if single_lam else [lams.size]) + [support.shape[0]]
        if coef.shape != tuple(shape):
            fail(f"dual_coef must have shape {tuple(shape)}, got {coef.shape}")
        if state["solver"] not in ("exact", "krylov", "nystroem"):
            fail(f"solver must be 'exact', 'krylov' or 'nystroem', got {state['solver']!r}")
        if state["target_type"] not in ("graded", "bipartite"):
            fail(f"target_type must be 'graded' or 'bipartite', got {state['target_type']!r}")
        spectrum = state["spectrum"]
        if spectrum is not None and (not isinstance(spectrum, np.ndarray) or spectrum.ndim != 1
                                     or not np.isfinite(spectrum).all() or (spectrum < 0).any()):
            fail("spectrum must be a 1-D array of finite non-negative eigenvalues")
        classes = state["classes"]
        if classes is not None:
            if not isinstance(classes, list) or len(classes) != 2:
                fail("classes must be a list of two labels")
            classes_arr = np.asarray(classes)
            if classes_arr.dtype == object or not classes_arr[0] < classes_arr[1]:
                fail(f"classes must be two sorted, distinct labels of one type, got {classes!r}")
        names = state["feature_names_in"]
        check_feature_names(names, n_features, fail)
        for name in ("lam_grid", "holdout_losses"):
            value = state[name]
            if value is not None and (not isinstance(value, np.ndarray) or value.dtype != np.float64):
                fail(f"{name} must be a float64 array or null")
        apriori = state["apriori"]
        if apriori is not None and (not isinstance(apriori, dict)
                                    or set(apriori) != {"sizes", "lams", "alpha", "beta", "extrapolated"}):
            fail("apriori must be null or an object with sizes, lams, alpha, beta, extrapolated")

        self.kernel_, self.filters_ = kernel, filters
        self._single_filter, self._single_lam = single_filter, single_lam
        self.lams_, self.support_, self.dual_coef_ = lams, np.ascontiguousarray(support), np.ascontiguousarray(coef)
        self.lam_ = float(lams[0]) if single_lam else None
        self.filter_ = filters[0] if single_filter else None
        self.spectrum_ = spectrum
        self.solver_ = state["solver"]
        self.n_features_in_ = n_features
        self.target_type_ = state["target_type"]
        if classes is not None:
            self.classes_ = np.asarray(classes)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.lam_grid_, self.holdout_losses_, self.apriori_ = state["lam_grid"], state["holdout_losses"], apriori
