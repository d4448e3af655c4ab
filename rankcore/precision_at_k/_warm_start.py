"""The logistic-regression warm start of SGD@k, the same for dense and sparse rows.

SGD@k starts from the weights of an L2 logistic regression (C = 1, an
unpenalized intercept) on the standardized rows z = (x − μ)/σ.  Sparse rows
cannot be centred without densifying them, so the regression here centres
them implicitly -- z·w = x̃·w − μ̃·w and Σ r z = X̃ᵀr − μ̃ Σ r, with x̃ = x/σ
and μ̃ = μ/σ -- and both storages solve the same problem to the same tight
tolerance (scikit-learn's solver, stopped at its default tolerance, gave
dense and sparse warm starts 3e-4 apart, enough to reorder the final ranking).

The objective is scikit-learn's ``LogisticRegression(C=1)`` problem divided
by the number of rows n: (1/n) Σ log(1 + exp(−s_i t_i)) + ‖w‖²/(2n), with
s_i = ±1 and t_i = z_i·w + b; it is strictly convex in w (and in b when both
classes are present), so the solution is unique.  Time O(nnz(X)) per L-BFGS
iteration, memory O(n + d).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

__all__ = ["logistic_start"]

#: L-BFGS stops when the largest gradient component is below this (the objective is a mean: O(1)).
GTOL = 1e-9
MAX_ITER = 1000


def logistic_start(Z, center: np.ndarray, y01: np.ndarray) -> np.ndarray:
    """Weights w of the L2 logistic regression on the rows Z − center (the intercept is dropped).

    Parameters
    ----------
    Z : ndarray or scipy.sparse CSR matrix of shape (n, d)
        Scaled rows (dense: usually already centred, with ``center`` zero).
    center : ndarray of shape (d,)
        Subtracted from every row implicitly.
    y01 : ndarray of shape (n,)
        0/1 labels, both present.

    Returns
    -------
    ndarray of shape (d,)
        The weights, or zeros if the solver produced non-finite values.
    """
    n, d = Z.shape
    center = np.ascontiguousarray(center, dtype=np.float64)
    sign = np.where(np.asarray(y01) > 0, 1.0, -1.0)

    def value_and_gradient(theta: np.ndarray):
        w, b = theta[:d], theta[d]
        t = np.asarray(Z @ w).reshape(-1) - float(center @ w) + b
        margin = -sign * t
        loss = np.logaddexp(0.0, margin).sum() / n + 0.5 * float(w @ w) / n
        r = -sign * expit(margin) / n                          # ∂loss/∂t
        grad_w = np.asarray(Z.T @ r).reshape(-1) - center * r.sum() + w / n
        return loss, np.append(grad_w, r.sum())

    with np.errstate(over="ignore", invalid="ignore"):
        result = minimize(value_and_gradient, np.zeros(d + 1), jac=True, method="L-BFGS-B",
                          options={"maxiter": MAX_ITER, "gtol": GTOL, "ftol": 0.0})
    w = np.ascontiguousarray(result.x[:d], dtype=np.float64)
    return w if np.isfinite(w).all() else np.zeros(d)
