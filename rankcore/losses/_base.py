"""The :class:`Loss` base class of the ``loss`` plugin family.

A loss ℓ compares one positive with one negative through the difference of
their scores, z = f_i − f_k, in the push objective (docs/theory/push.md#the-objective)::

    R_{g,ℓ}(f) = Σ_k v_k · g(L_k),      L_k = Σ_i w_i · ℓ(f_i − f_k)

The push objective never forms the I × K pairs itself: it asks the loss for
the three *pairwise sums* below, which a loss computes however it can -- in
O((I + K) log(I + K)) when it factorizes (exp, hinge, squared hinge), or by the
exact blocked pairwise kernel otherwise (logistic, most plugins).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..spec import Component

__all__ = ["Loss"]


class Loss(Component):
    """Base class of the ``loss`` plugin family: a convex, decreasing ℓ ≥ 1[z ≤ 0].

    What a subclass provides
    ------------------------
    Required (vectorized over float64 NumPy arrays of any shape, never
    modifying the input):

    ``value(z)``
        ℓ(z) ≥ 0, convex, non-increasing, with ℓ(z) ≥ 1 for z ≤ 0.
    ``derivative(z)``
        ℓ′(z) ≤ 0 (at a kink, the right-hand derivative, so that the value is
        consistent with the pairwise kernels' conventions).

    Optional:

    ``second_derivative(z)``
        ℓ″(z) ≥ 0; with it (and a price with g″) the line search takes Newton
        steps.  :attr:`has_second_derivative` tells whether it is there.
    ``pairwise_kernel()``
        A Cython ``rankcore.losses._pairwise.PairwiseLoss`` evaluating ℓ, ℓ′,
        ℓ″ without the GIL.  When given, the default pairwise sums run in the
        parallel Cython kernel (``prange`` over negatives); when not, in a
        blocked NumPy loop over the vectorized methods above (threads over
        blocks; NumPy releases the GIL inside ufuncs).  Both are exact and
        use O(I + K) memory plus a fixed-size block.  The per-query push
        also sums its queries' small grade levels with it, all in one call.
    ``negative_sums``, ``positive_sums``, ``directional_sums``
        Override all three with a faster exact algorithm when the loss has
        structure (the built-in hinge losses use sorting and prefix sums).
    ``curvature_sums``
        The sums the push objective's curvature needs (``value_gradient_hessian``,
        Newton leaves); the default is the exact blocked pairwise loop over
        ``derivative`` and ``second_derivative``.
    ``piecewise_linear``
        True for a loss whose second derivative is zero almost everywhere
        (``hinge``): the push objective then declares no curvature
        (``has_hessian`` False) rather than one that is zero on most rows.
    ``exponential_rate``
        A number r when ℓ(z) = exp(−r·z) exactly.  The push objective then
        uses the closed form L_k = e^{r f_k} · Σ_i w_i e^{−r f_i} in log space
        (docs/theory/push.md#log-space) instead of any pairwise sum; this is also what lets the
        objective be computed block by block (the Dask seam).  ``None``
        (default) is always correct.

    The pairwise sums (all arrays float64, C-contiguous)
    ---------------------------------------------------
    With f_pos (I,), w_pos (I,) the positives' scores and weights and f_neg
    (K,) the negatives' scores:

    ``negative_sums(f_pos, w_pos, f_neg, n_threads=1) -> (L, D)``
        L_k = Σ_i w_i ℓ(f_i − f_k),  D_k = Σ_i w_i ℓ′(f_i − f_k).
    ``positive_sums(f_pos, f_neg, c_neg, n_threads=1) -> E``
        E_i = Σ_k c_k ℓ′(f_i − f_k)  for per-negative weights c.
    ``directional_sums(f_pos, w_pos, h_pos, f_neg, h_neg, n_threads=1) -> (L, L1, L2)``
        with δ_ik = h_i − h_k: L1_k = Σ_i w_i ℓ′(f_i − f_k) δ_ik and
        L2_k = Σ_i w_i ℓ″(f_i − f_k) δ_ik² (NaN everywhere when the loss has
        no second derivative): the first two derivatives of L_k(f + αh) in α.
    ``curvature_sums(f_pos, w_pos, f_neg, c1_neg, c2_neg, n_threads=1) -> (P, N)``
        P_i = Σ_k (w_i c2_k ℓ′(f_i − f_k)² + c1_k ℓ″(f_i − f_k)) and
        N_k = Σ_i w_i ℓ″(f_i − f_k) (needs ``second_derivative``).

    Contract (``rankcore.testing.check_component("loss", spec)``): the shape
    conditions above on a grid; derivatives agree with finite differences;
    the three sums agree with an explicit pairwise computation on random data
    with ties, for 1 and 2 threads; inputs are not modified.
    """

    family: ClassVar[str] = "loss"
    #: r such that ℓ(z) = exp(−r z), or None.
    exponential_rate: ClassVar[float | None] = None
    #: ℓ″ = 0 almost everywhere (the push objective then has no curvature).
    piecewise_linear: ClassVar[bool] = False

    # ------------------------------------------------------------------
    # Pointwise
    # ------------------------------------------------------------------
    def value(self, z: np.ndarray) -> np.ndarray:
        """ℓ(z), elementwise."""
        raise NotImplementedError(f"loss {self.spec!r} must implement value(z)")

    def derivative(self, z: np.ndarray) -> np.ndarray:
        """ℓ′(z), elementwise (right-hand derivative at kinks)."""
        raise NotImplementedError(f"loss {self.spec!r} must implement derivative(z)")

    def second_derivative(self, z: np.ndarray) -> np.ndarray:
        """ℓ″(z), elementwise (optional)."""
        raise NotImplementedError(f"loss {self.spec!r} does not provide a second derivative")

    @property
    def has_second_derivative(self) -> bool:
        """Whether :meth:`second_derivative` is available."""
        return type(self).second_derivative is not Loss.second_derivative

    def pairwise_kernel(self) -> Any:
        """A nogil ``PairwiseLoss`` evaluator for the Cython kernel, or None."""
        return None

    def check_sums(self, *sums) -> None:
        """ValueError naming the loss when any of its pairwise sums (arrays, or None) holds NaN.

        A NaN sum is a loss that is NaN at some score difference: the push would drop the rows it touched from
        its objective and gradient without a word.  :func:`rankcore.testing.check_component` refuses such a
        loss; a plugin that never ran it reaches the push.  An infinite sum is an overflow, which the push
        reports as such.  O(n).
        """
        for values in sums:
            if values is not None and np.isnan(values).any():
                raise ValueError(f"loss {self.spec!r}: its pairwise sums hold NaN: the loss (or its derivative) is "
                                 "NaN at some score difference; a loss must be a number at every finite z "
                                 "(rankcore.testing.check_component('loss', ...) finds where)")

    # ------------------------------------------------------------------
    # Pairwise sums (default: exact pairwise evaluation, never I × K memory)
    # ------------------------------------------------------------------
    def negative_sums(self, f_pos, w_pos, f_neg, *, n_threads: int = 1):
        """(L, D): per-negative sums of w_i ℓ and w_i ℓ′ over the positives."""
        from . import _blocked

        return _blocked.negative_sums(self, f_pos, w_pos, f_neg, n_threads=n_threads)

    def positive_sums(self, f_pos, f_neg, c_neg, *, n_threads: int = 1):
        """E: per-positive sums of c_k ℓ′ over the negatives."""
        from . import _blocked

        return _blocked.positive_sums(self, f_pos, f_neg, c_neg, n_threads=n_threads)

    def directional_sums(self, f_pos, w_pos, h_pos, f_neg, h_neg, *, n_threads: int = 1):
        """(L, L1, L2): per-negative sums and their α-derivatives along h."""
        from . import _blocked

        return _blocked.directional_sums(self, f_pos, w_pos, h_pos, f_neg, h_neg, n_threads=n_threads)

    def curvature_sums(self, f_pos, w_pos, f_neg, c1_neg, c2_neg, *, n_threads: int = 1):
        """(P, N): P_i = Σ_k (w_i c2_k ℓ′² + c1_k ℓ″), N_k = Σ_i w_i ℓ″ (the push objective's curvature)."""
        from . import _blocked

        return _blocked.curvature_sums(self, f_pos, w_pos, f_neg, c1_neg, c2_neg, n_threads=n_threads)
