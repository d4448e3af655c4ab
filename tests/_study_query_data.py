"""Small per-query data with the cases a study term's gradient must handle: interleaved queries, ties in grade and
in score, and a query of one grade (its pairs: none)."""

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
