"""KernelRanker's parameters and fitted state, declared once (see :mod:`rankcore.base`)."""

from __future__ import annotations

import numbers

from ..base import N_JOBS, Fitted, random_state_kind, spec_kind, string_list
from ..spec import Component, Kind, Parameter, sequence_kind
from ._krylov import DEFAULT_TOL

__all__ = ["KERNEL_RANKER_PARAMETERS", "KERNEL_RANKER_FITTED", "SOLVERS"]

SOLVERS = ("auto", "exact", "krylov", "nystroem")


def _check_kernel(value):
    if isinstance(value, (str, Component)) or callable(value):
        return value
    raise TypeError(f"got {type(value).__name__}")


_KERNEL = Kind("a kernel spec such as 'rbf', a rankcore.Kernel or a callable", _check_kernel,
               type_doc="str, rankcore.Kernel or callable", shows_type=True)


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_gamma(value):
    if isinstance(value, str) or _is_number(value):
        return value
    raise TypeError("not a number")


def _check_degree(value):
    if _is_number(value) and float(value).is_integer():     # 2.0 too: the kernel reads it as 2
        return value
    raise TypeError("not a whole number")


# the kernel checks the value (its own range, "scale" where it has one)
_DEGREE = Kind("a whole number", _check_degree, type_doc="int or None")
_GAMMA = Kind("a number or a kernel's text value such as 'scale'", _check_gamma, type_doc="float, str or None")
_FILTER = sequence_kind("a filter spec such as 'tikhonov', a rankcore.Filter or a non-empty list of them",
                        type_doc="str, rankcore.Filter or sequence of them", non_empty=True,
                        also=lambda value: isinstance(value, (str, Component)))
_LAM = sequence_kind("a number > 0, an array of them, 'holdout' or 'apriori'",
                     type_doc='float, array-like, "holdout" or "apriori"',
                     also=lambda value: isinstance(value, str) or _is_number(value))

KERNEL_RANKER_PARAMETERS = (
    Parameter("kernel", _KERNEL, default="rbf", doc="""
        A registered kernel spec (``"rbf"``, ``"rbf:100"``, ``"laplacian"``,
        ``"poly:2"``, ``"linear"``, ``"tanimoto"`` for fingerprints, or a plugin's), a configured
        :class:`rankcore.Kernel`, or a callable ``func(X, Y) -> Gram matrix``
        (or scikit-learn's pair form ``func(x, y) -> float``).  Length scales
        divide: ``rbf`` is exp(−‖x − x'‖²/γ), so scikit-learn's
        ``gamma=g`` is ``gamma=1/g`` here."""),
    Parameter("gamma", _GAMMA, default=None, nullable=True, doc="""
        Overrides the kernel's γ (``rbf``, ``laplacian``, ``poly``).  Default:
        the kernel spec's value, ``"scale"`` = from the training data (for
        ``rbf``: n_features · Var(X))."""),
    Parameter("degree", _DEGREE, default=None, nullable=True, doc="""
        Overrides the ``poly`` kernel's degree."""),
    Parameter("coef0", float, default=None, nullable=True, doc="""
        Overrides the ``poly`` kernel's constant."""),
    Parameter("filter", _FILTER, default="tikhonov", doc="""
        The regularization scheme: ``"tikhonov"``, ``"iterated:ν"``,
        ``"cutoff"``, ``"landweber"``, ``"showalter"`` or a plugin's.  A
        sequence fits (or, with ``lam="holdout"``, chooses among) several."""),
    Parameter("lam", _LAM, default=1e-3, doc="""
        λ > 0; an array fits the whole path (decision values get a λ axis);
        ``"holdout"`` chooses λ (and the filter, if several) on a held-out
        part by ``metric``; ``"apriori"`` extrapolates λ₊(s) = α s^{−β/2}
        fitted by hold-out on small subsets (Yao, Rosasco and Caponnetto's
        a-priori rule)."""),
    Parameter("lam_grid", sequence_kind("an array of numbers > 0", type_doc="array-like"), default=None,
              nullable=True, doc="""
        The grid of the hold-out and a-priori choices; default λ₀ q^j with
        λ₀ = 1, q = 0.95, j = 1..200 (the paper's)."""),
    Parameter("metric", spec_kind("metric"), default="misrank", type_doc="str or Metric", doc="""
        Any registered metric spec; bipartite metrics (``auc``, ...) need y
        with two values."""),
    Parameter("holdout_size", float, default=0.5, minimum=0.0, maximum=1.0, exclusive_minimum=True,
              exclusive_maximum=True, rule="a fraction in (0, 1)", doc="""
        Fraction of the rows held out to choose λ."""),
    Parameter("refit", bool, default=True, doc="""
        After the hold-out choice, refit on all rows (True) or keep the model
        fitted on the fitting part (False, the paper's Table 1 protocol)."""),
    Parameter("apriori_sizes", sequence_kind("a non-empty sequence of integers >= 4", type_doc="sequence of int"),
              default=(20, 30, 40, 50), doc="""
        Subset sizes for ``lam="apriori"`` (repeat a size to average over
        several subsets); each must be smaller than the training set."""),
    Parameter("solver", str, default="auto", choices=SOLVERS, rule="'auto', 'exact', 'krylov' or 'nystroem'",
              type_doc='{"auto", "exact", "krylov", "nystroem"}', doc="""
        ``"exact"``: one decomposition of the m x m operator (every filter
        exactly; O(m³) time, two m x m arrays).  ``"krylov"``: one Lanczos
        basis for every λ and filter (:mod:`rankcore.rkhs._krylov`), each
        (filter, λ) certified to ``tol``; on the kernel matrix in memory
        when m² doubles fit ``memory_budget``, else matrix-free (kernel rows
        recomputed block by block; block Lanczos, 32 vectors per sweep over
        the kernel, the random ones seeded by ``random_state``; O(m (32
        steps + block)) memory).
        ``"nystroem"``: low rank with ``n_components`` landmarks.
        ``"auto"`` chooses by predicted time and memory (exact on small
        data, Krylov up to about 2,700 rows, Nyström beyond on a 2-core
        machine); ``solver_`` and ``solver_plan_`` say what it chose and why."""),
    Parameter("tol", float, default=DEFAULT_TOL, minimum=0.0, maximum=1.0, exclusive_minimum=True,
              exclusive_maximum=True, rule="a relative error in (0, 1)", doc="""
        ``solver="krylov"``: relative coefficient error certified for every
        (filter, λ); the default reproduces the exact path's scores to
        better than 1e-6 and its hold-out choices."""),
    Parameter("max_iter", int, default=500, minimum=1, rule="an integer >= 1 (Lanczos steps)", doc="""
        ``solver="krylov"``: Lanczos steps (block steps matrix-free) at most; a (filter, λ) whose
        bound is not met by then gets a ``KrylovConvergenceWarning`` and the
        exact solver (when the kernel matrix is in memory)."""),
    Parameter("memory_budget", int, default=None, minimum=1, nullable=True,
              rule="a number of bytes (an integer >= 1) or None", doc="""
        Bytes the m x m arrays may take (``solver="auto"``/``"krylov"``);
        default half the memory the process may use: the physical memory, bounded by its container's
        (cgroup's) memory limit and ``ulimit -v``."""),
    Parameter("n_components", int, default=1000, minimum=1, doc="""
        Nyström landmarks (capped at the number of rows)."""),
    Parameter("random_state", random_state_kind(generator=False), default=None, doc="""
        Hold-out splits, a-priori subsets, Nyström landmarks and the random
        start vectors of the matrix-free Krylov route (its path differs
        from one seed to another within ``tol``)."""),
    Parameter("n_jobs", N_JOBS, default=None, doc="""
        Threads (BLAS and the Gram/centering kernels); None = all cores.
        Fits on fewer than ``PARALLEL_MIN_ROWS`` (1024) rows, and predictions
        on small batches, run serially: there a second thread costs more
        than it saves.  The results do not depend on the thread count
        beyond BLAS rounding."""),
)


def _none_or(dump):
    return lambda value: None if value is None else dump(value)


def _spec(component):
    return component.spec


KERNEL_RANKER_FITTED = (
    Fitted("kernel_", "kernel", _spec),
    Fitted("filters_", "filters", lambda filters: [f.spec for f in filters]),
    Fitted("_single_filter", "single_filter"),
    Fitted("_single_lam", "single_lam"),
    Fitted("lams_", "lams"),
    Fitted("support_", "support"),
    Fitted("dual_coef_", "dual_coef"),
    Fitted("spectrum_", "spectrum"),
    Fitted("solver_", "solver"),
    Fitted("n_features_in_", "n_features_in", int),
    Fitted("target_type_", "target_type"),
    Fitted("classes_", "classes", _none_or(lambda classes: classes.tolist()), default=None),
    Fitted("feature_names_in_", "feature_names_in", _none_or(string_list), default=None),
    Fitted("lam_grid_", "lam_grid"),
    Fitted("holdout_losses_", "holdout_losses"),
    Fitted("apriori_", "apriori"),
    Fitted("lam_"),
    Fitted("filter_"),
    Fitted("n_iter_"),
    Fitted("solver_plan_"),
    Fitted("_n_threads"),          # the threads the fit used
)
