"""Whether more iterations would help, judged on the held-out metric -- not on the training objective.

A training objective keeps falling long after the model stopped getting
better: on wdbc the push objective still falls at iteration 200 while the
training ranking is already perfect and the test AUC has not moved for a
hundred iterations.  So the objective figure's advice reads each model's
held-out metric after every iteration (the ``validation`` of its
``training_curve_``, recorded when the comparison monitors a held-out split)
and says, per model, whether it still improved over the last fifth of the
iterations.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["held_out_history", "iterations_verdict", "iterations_advice"]

#: The share of the last iterations looked at.
TAIL = 0.2


def held_out_history(curve: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(iterations, values) of the held-out metric of a ``TrainingCurve``, where it was measured; or None."""
    if curve is None or curve.validation is None:
        return None
    values = np.asarray(curve.validation, dtype=np.float64).reshape(-1)
    measured = np.isfinite(values)
    if not measured.any():
        return None
    return np.asarray(curve.iterations)[measured], values[measured]


def iterations_verdict(values: Sequence[float], *, greater_is_better: bool, what: str) -> str:
    """One clause: did the metric ``what`` still improve over the last fifth of the iterations?

    The best value in the last fifth is compared with the best before it: a
    gain or a loss counts when it exceeds 10⁻³ of the metric's scale (0.001 of
    AUC, one unit of R_max), so rounding-level wobbles of a flat curve do not.
    """
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    n = values.shape[0]
    if finite.size < 5:
        return f"{what}: too few iterations ({n}) to tell"
    tail = max(2, int(math.ceil(TAIL * n)))
    sign = 1.0 if greater_is_better else -1.0
    before, last = sign * values[:-tail], sign * values[-tail:]
    best_before = np.nanmax(before) if np.isfinite(before).any() else -np.inf
    gain = np.nanmax(last) - best_before
    scale = max(1.0, float(np.nanmax(np.abs(finite))))
    tol = 1e-3 * scale
    if gain > tol:
        return (f"{what} still improved in the last {tail} of {n} iterations "
                f"({sign * best_before:.4g} -> {sign * np.nanmax(last):.4g}): more iterations may help")
    if gain < -tol:
        best = int(np.nanargmax(sign * values)) + 1
        return (f"{what} fell from its best, {values[best - 1]:.4g} at iteration {best}, to at most "
                f"{sign * np.nanmax(last):.4g} in the last {tail} of {n} iterations: more iterations would not "
                "help, fewer might (early_stopping=True stops at the best)")
    return (f"{what} gained less than {1e-3 * scale:.2g} in the last {tail} of {n} iterations "
            f"({sign * best_before:.4g} before, {sign * np.nanmax(last):.4g} at best after): more iterations "
            "would not help")


def iterations_advice(models: Sequence[tuple[str, Any, str | None]]) -> str:
    """The objective figure's caption: what it shows and, per model, the verdict on its held-out metric.

    The verdicts follow the first line, one per line (indented by two spaces).

    Parameters
    ----------
    models : sequence of (label, TrainingCurve, held-out label)
        The held-out label says which split's metric the curve's validation
        scores are, ``"<split> <metric spec>"`` (``"test auc"``, or
        ``"valid pauc:0.1"`` for a model that stopped early on its own
        hold-out); None when the curve has none.
    """
    from ..registry import resolve

    verdicts = []
    for label, curve, what in models:
        history = held_out_history(curve)
        if history is not None and what is not None:
            better = resolve("metric", what.partition(" ")[2]).greater_is_better is not False
            verdicts.append(f"{label}: " + iterations_verdict(history[1], greater_is_better=better, what=what))
    if not verdicts:
        return ("each model's training objective after each iteration, on its own scale; no held-out metric "
                "was recorded per iteration, so this figure cannot say whether more iterations would help "
                "(a training objective keeps falling after the ranking stops improving)")
    named = {what for _, _, what in models if what is not None}
    what = named.pop() if len(named) == 1 else "held-out metric"
    head = (f"each model's training objective after each iteration (left, on its own scale) and its {what} "
            f"(right); judge the number of iterations by the {what}, not by the training "
            "objective, which keeps falling after the ranking stops improving")
    return head + ":" + "".join(f"\n  {verdict}" for verdict in verdicts)
