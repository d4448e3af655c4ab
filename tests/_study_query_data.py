"""The study terms' test helpers: small per-query data with the cases a term's gradient must handle (interleaved
queries, ties in grade and in score, a query of one grade), and finite differences to check the gradient by."""

import numpy as np


def interleaved_queries(seed=0, n=40):
    """(scores, y, codes) of ``n`` rows in 5 interleaved queries, grades 0-2, query 2 all of grade 1, the first four
    scores tied."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 5, n)                    # interleaved queries
    y = rng.integers(0, 3, n).astype(float)          # ties in grade
    y[codes == 2] = 1.0                              # a query of one grade
    scores = rng.normal(size=n)
    scores[:4] = 0.5                                 # ties in score
    return scores, y, codes


def finite_differences(loss, scores, eps=1e-5):
    """(∂loss/∂f_i, ∂²loss/∂f_i²) of ``loss(scores)`` by central differences, one row at a time: the reference of
    a study term's gradient and Hessian diagonal."""
    grad, curv = np.empty_like(scores), np.empty_like(scores)
    base = loss(scores)
    for i in range(scores.size):
        step = np.zeros_like(scores)
        step[i] = eps
        up, down = loss(scores + step), loss(scores - step)
        grad[i], curv[i] = (up - down) / (2 * eps), (up - 2 * base + down) / eps ** 2
    return grad, curv
