"""``solver="auto"``: choose exact, Krylov or Nyström by predicted time and memory.

The predictions are flop and byte counts divided by rates measured on a
2-core machine (module constants below; they only need to be right within a
factor of two -- the choice changes at sizes where one route is several times
the other).  The old rule (exact up to 20,000 rows) cost 20 s / 1.2 GB at 7,828
rows and 119 s / 3.3 GB at 14,000 rows, where Nyström ranked as well (AUC
within 0.002) in 0.6-1.6 s.

* exact: two m × m arrays; (4/3) m³ flops of tridiagonal reduction (half of
  it memory-bound) plus 2 m³ more when the path has more vectors than rows;
* krylov: one m × m array when it fits the memory budget (else matrix-free:
  each Lanczos step recomputes the kernel block by block, O(m · block) memory)
  and about :data:`KRYLOV_STEPS` Lanczos steps of 2 m² flops (memory-bound);
* nystroem: m × r kernel block and O(m r²) flops; approximate (r landmarks).

The rule: the exact route while it is predicted to take at most
:data:`AUTO_SECONDS` and fits the memory budget (every filter exactly, no
convergence question); else Krylov while *it* does (on the kernel matrix in
memory); else Nyström with ``n_components`` landmarks -- beyond a few thousand
rows on a 2-core machine.  An explicit ``solver=`` overrides all this.
"""

from __future__ import annotations

from .._memory import usable_memory

__all__ = ["plan_solver", "default_memory_budget", "AUTO_SECONDS", "KRYLOV_STEPS"]

#: Effective rate of the compute-bound LAPACK/BLAS-3 work (flop/s, 2 threads).
DENSE_FLOPS = 4e9
#: Effective rate of memory-bound BLAS-2 work (a matrix–vector product over a
#: matrix larger than the caches), flop/s.
STREAM_FLOPS = 1.5e9
#: Kernel evaluations per second (distance GEMM plus exp, 2 threads).
KERNEL_EVALS = 2e8
#: Lanczos steps assumed for a 200-λ grid down to ~3.5e-5 (measured 100-300 on rbf kernels).
KRYLOV_STEPS = 200
#: Above this predicted time a route is not chosen automatically.
AUTO_SECONDS = 2.0


def default_memory_budget() -> int:
    """Half the memory this process may use (bytes), or 4 GB when it cannot be read.

    That is the physical memory bounded by the container's limit and ``ulimit -v``
    (:func:`rankcore._memory.usable_memory`): in a container with a 2 GB limit on a 64 GB host, an m × m array
    sized by the host's memory would have the kernel's out-of-memory killer end the process.
    """
    usable = usable_memory()
    return 4 << 30 if usable is None else usable // 2


def plan_solver(m: int, n_components: int, memory_budget: int, exact_max: int, *,
                cutoff: bool = False) -> tuple[str, dict]:
    """(solver, predictions) for ``m`` training rows; predictions in seconds and bytes per route.

    ``cutoff``: the spectral cut-off filter is among the filters.  Its small-λ
    values usually take the exact route after the Lanczos steps (a step
    function is not certifiable in the dense part of the spectrum), so the
    Krylov prediction then includes the exact one.
    """
    r = min(n_components, m)
    gram = m * m / KERNEL_EVALS
    est = {
        "exact": {"seconds": gram + (4.0 / 3.0) * m**3 / DENSE_FLOPS, "bytes": 16 * m * m},
        "krylov": {"seconds": gram + KRYLOV_STEPS * 2.0 * m * m / STREAM_FLOPS,
                   "bytes": 8 * m * m + 8 * m * (KRYLOV_STEPS + 1)},
        "nystroem": {"seconds": m * r / KERNEL_EVALS + 2.0 * m * r * r / DENSE_FLOPS, "bytes": 16 * m * r},
    }
    if cutoff:
        est["krylov"]["seconds"] += est["exact"]["seconds"] - gram
        est["krylov"]["bytes"] = max(est["krylov"]["bytes"], est["exact"]["bytes"])
    if est["exact"]["bytes"] <= memory_budget and m <= exact_max and est["exact"]["seconds"] <= AUTO_SECONDS:
        return "exact", est
    if est["krylov"]["bytes"] <= memory_budget and est["krylov"]["seconds"] <= AUTO_SECONDS:
        return "krylov", est
    if r < m:
        return "nystroem", est
    return ("exact" if m <= exact_max and est["exact"]["bytes"] <= memory_budget else "krylov"), est
