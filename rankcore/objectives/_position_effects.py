"""Position effects learned beside the trees: ranking from clicks logged at display places.

Clicks depend on where a row was shown as well as on how relevant it is: a
row in the first place is clicked more often than the same row in the tenth.
Fitted on clicks as labels, a ranker learns the display order back.  With the
place each row was shown at (its *position*), the fit explains each row's
label by f(x) + b_p, its score plus an effect of its position p, and
minimizes

    J(f + b[position]) + (λ/2) Σ_p H_p b_p²,

the per-query objective J at the shifted scores plus a penalty on each
effect weighted by H_p, the curvature of J summed over the rows shown at p.
The trees learn f from the gradient and curvature of J at f + b, as they
would without positions; after each evaluation every b_p takes one Newton
step, as a leaf whose rows are those shown at p does:

    b_p ← b_p − η (G_p + λ H_p b_p) / ((1 + λ) H_p),

G_p the sum of the gradient over those rows, η the trees' learning rate and
λ ``position_l2``.  Near its fixed point G_p ≈ H_p (b_p − b*_p), so the
effects settle at about b*_p / (1 + λ): λ = 1 halves them.  Weighting the penalty
by the curvature makes λ mean the same for every objective and every number
of rows (the push's curvature is normalized, LambdaMART's grows with the
rows).  A per-query objective does not change when every score of a query
moves by one constant, so b is learned up to a common shift.  The model is
f alone: prediction needs no position.  This is the additive position effect LightGBM's
lambdarank learns with a ``position`` column (since version 4.1; the idea of
a position-bias term learned jointly with the ranker goes back to H. Guo, J.
Yu, Q. Liu, R. Tang and Y. Zhang, "PAL: a position-bias aware learning
framework for CTR prediction in live recommender systems", 2019), for any
per-query objective with a curvature here.

Each step costs two weighted counts over the rows, O(n + n_positions), and
memory O(n) for the shifted scores.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import BoundObjective
from ..validation import ArgumentRefusal, ArgumentTypeRefusal

__all__ = ["PositionEffects", "check_positions", "effects_step", "place_sums", "require_curvature"]


def check_positions(position, n: int, *, name: str = "position") -> tuple[np.ndarray, np.ndarray]:
    """(the distinct positions, sorted; each row's index into them) from one display position per row.

    Positions are integers >= 0 (the place each row was shown at, from 0 or
    from 1; only equality matters).  Raises an
    :class:`~rankcore.validation.ArgumentRefusal` (``ValueError``) of
    ``name`` for anything else: a wrong length, a missing or fractional
    value, a negative one, or not one dimension; values that are not
    integers at all (text, booleans, None) an
    :class:`~rankcore.validation.ArgumentTypeRefusal`, a ``TypeError`` too.
    """
    if position is None:
        raise ArgumentTypeRefusal.said(name, "expected one integer display position per row, got None")
    if hasattr(position, "to_numpy"):                     # a pandas Series (a nullable dtype gives objects)
        position = position.to_numpy()
    try:
        arr = np.asarray(position)
    except (TypeError, ValueError) as exc:
        raise ArgumentTypeRefusal.said(name, f"expected an array-like of integer display positions; {exc}") from None
    if arr.ndim != 1:
        raise ArgumentRefusal.said(name,
                                   f"expected one display position per row (a 1-D array), got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ArgumentRefusal.said(name, f"expected one display position per row ({n} rows), got {arr.shape[0]}")
    if arr.dtype == object:
        for row, v in enumerate(arr.tolist()):
            if v is None or type(v).__name__ == "NAType" or (isinstance(v, float) and v != v):
                raise ArgumentRefusal.said(name, f"row {row} has no display position ({v}); every row needs one")
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise ArgumentTypeRefusal.said(name, f"expected integer display positions, row {row} has {v!r}")
        try:
            arr = np.array([int(v) for v in arr.tolist()], dtype=np.int64)
        except OverflowError:
            raise ArgumentRefusal.said(name, "display positions must fit in 64 bits") from None
    elif arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            row = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ArgumentRefusal.said(name, f"row {row} has no display position ({arr[row]}); every row needs one")
        if not np.array_equal(arr, np.round(arr)):
            row = int(np.flatnonzero(arr != np.round(arr))[0])
            raise ArgumentRefusal.said(name, f"expected integer display positions, row {row} has {arr[row]}")
        if arr.size and float(np.abs(arr).max()) >= 2.0 ** 63:
            raise ArgumentRefusal.said(name, "display positions must fit in 64 bits")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise ArgumentTypeRefusal.said(name, f"expected integer display positions, got an array of {arr.dtype}")
    elif arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ArgumentRefusal.said(name, "display positions must fit in 64 bits")
    if arr.size and int(arr.min()) < 0:
        row = int(np.argmin(arr))
        raise ArgumentRefusal.said(name, f"display positions are integers >= 0, row {row} has {int(arr[row])}")
    ids, codes = np.unique(arr, return_inverse=True)
    return ids.astype(np.int64), codes.astype(np.intp).reshape(-1)


def require_curvature(bound) -> None:
    """Raise the ValueError of ``position`` for a bound objective without a curvature (``has_hessian``)."""
    if not bound.has_hessian:
        raise ArgumentRefusal.said(
            "position", f"the objective {bound.objective.spec!r} has no curvature, which the position effects' "
            "Newton steps need; use a per-query objective with one (the default, lambdarank, yetirank, xendcg)")


def effects_step(effects: np.ndarray, G: np.ndarray, H: np.ndarray, *, l2: float, rate: float) -> np.ndarray | None:
    """Δb, the effects' Newton step from the place sums G_p, H_p of one evaluation; None when it is not finite.

    Δb_p = −η (G_p + λ H_p b_p) / ((1 + λ) H_p), and 0 for a place whose
    rows carry no curvature (nothing in the objective decides it).  The
    arithmetic of :meth:`PositionEffects.advance`, shared with a backend
    that adds the place sums over blocks of rows (Dask).
    """
    # (G + λ H b) / ((1 + λ) H), written so that no huge λ overflows: G / ((1 + λ) H) + λ / (1 + λ) · b
    shrink = 1.0 / (1.0 + l2)
    step = np.zeros(effects.shape[0])
    np.divide(shrink * G, H, out=step, where=H > 0)
    step += np.where(H > 0, (1.0 - shrink) * effects, 0.0)
    if not np.isfinite(step).all():
        return None
    return -rate * step


def place_sums(codes: np.ndarray, gradient: np.ndarray, hessian: np.ndarray, n_positions: int) -> np.ndarray:
    """(2, n_positions): the gradient's and the curvature's sums over the rows shown at each place."""
    return np.stack([np.bincount(codes, weights=gradient, minlength=n_positions),
                     np.bincount(codes, weights=hessian, minlength=n_positions)])


class PositionEffects(BoundObjective):
    """A bound per-query objective evaluated at f + b[position], b learned one Newton step per evaluation.

    Parameters
    ----------
    inner : BoundObjective
        The per-query objective bound to the training rows; it must have a
        curvature (``has_hessian``).
    codes : ndarray of intp, shape (n,)
        Each row's position, as an index into ``n_positions`` effects.
    n_positions : int
    l2 : float
        λ >= 0, the effects' L2 penalty relative to their rows' curvature
        (the effects settle at 1 / (1 + λ) of their unpenalized values).
    rate : float
        η > 0, the step's shrinkage (the trees' learning rate).
    start : ndarray of float64, shape (n_positions,), optional
        The effects before the first step (default 0): a continued model's
        (``fit(..., init_model=...)``), so that n trees and then m more
        learn the effects of n + m.

    Attributes
    ----------
    effects : ndarray of float64, shape (n_positions,)
        b, updated by :meth:`advance`.
    history : list of ndarray
        b after each call of :meth:`advance`, in order.

    Notes
    -----
    :meth:`value`, :meth:`value_and_gradient` and
    :meth:`value_gradient_hessian` evaluate J at the shifted scores and
    change nothing; :meth:`advance` takes the effects' step from a gradient
    and curvature evaluated at them.  The backend calls it once per
    iteration, after the evaluation the next tree is grown from.
    """

    learns_position_effects = True

    def __init__(self, inner: BoundObjective, codes: np.ndarray, n_positions: int, *, l2: float, rate: float,
                 start: np.ndarray | None = None):
        super().__init__(inner.objective, inner.y, inner.sample_weight)
        require_curvature(inner)
        self.inner = inner
        self.codes = np.ascontiguousarray(codes, dtype=np.intp)
        self.effects = np.zeros(int(n_positions), dtype=np.float64)
        if start is not None:
            self.effects[:] = start
        self.start = self.effects.copy()
        self.l2 = float(l2)
        self.rate = float(rate)
        self.history: list[np.ndarray] = []

    @property
    def n_rows(self) -> int:
        return self.inner.n_rows

    @property
    def has_hessian(self) -> bool:
        return True

    def use_threads(self, n_threads: int) -> None:
        self.inner.use_threads(n_threads)

    def _shifted(self, scores: np.ndarray) -> np.ndarray:
        return scores + self.effects[self.codes]

    def value(self, scores):
        return self.inner.value(self._shifted(scores))

    def value_and_gradient(self, scores):
        return self.inner.value_and_gradient(self._shifted(scores))

    def value_gradient_hessian(self, scores):
        return self.inner.value_gradient_hessian(self._shifted(scores))

    def line(self, scores, direction):
        return self.inner.line(self._shifted(scores), direction)

    def advance(self, gradient: np.ndarray, hessian: np.ndarray) -> np.ndarray:
        """One Newton step of every effect from the gradient and curvature at the current shifted scores.

        Returns the gradient to grow the next tree from: ``gradient`` moved to
        first order to the new effects, g_i + h_i Δb_p (the diagonal
        curvature).  A tree grown from the gradient the effects stepped on
        would take the same step again along every place (the two add up, and
        at a learning rate of 1 they diverge); at the moved effects each place's
        rows sum to (1 − η) G_p when λ = 0, what the effects left.  The
        effects after each call are kept (``history``).  An effect whose rows
        carry no curvature keeps its value: nothing in the objective decides
        it.  A step that is not finite is not taken.
        """
        G, H = place_sums(self.codes, gradient, hessian, self.effects.shape[0])
        delta = effects_step(self.effects, G, H, l2=self.l2, rate=self.rate)
        moved = gradient
        if delta is not None:
            self.effects += delta
            moved = gradient + hessian * delta[self.codes]
        self.history.append(self.effects.copy())
        return moved

    def undo_advance(self) -> None:
        """Take back the last :meth:`advance` (the effects and ``history`` as before it): a step after which J is
        not finite, before the first tree (there is no finite model to stop at)."""
        self.history.pop()
        self.effects[:] = self.history[-1] if self.history else self.start

    def effects_after(self, n_trees: int) -> np.ndarray:
        """The effects the ``n_trees``-th tree was grown with (``start`` for none): those of a model cut to its
        first ``n_trees`` trees (early stopping keeps the best iteration's)."""
        return self.history[n_trees - 1].copy() if n_trees >= 1 else self.start.copy()
