"""The running log-sum-exp over each query's levels against a plain Python loop."""

import math

import numpy as np
import pytest

from rankcore.objectives._query_kernels import running_lse


def _reference(a, bounds, reverse, inclusive):
    out = np.empty_like(a)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        for j in range(lo, hi):
            others = range(j + 1, hi) if reverse else range(lo, j)
            terms = [a[t] for t in others] + ([a[j]] if inclusive else [])
            finite = [t for t in terms if t > -math.inf]
            top = max(finite, default=-math.inf)
            out[j] = top + math.log(sum(math.exp(t - top) for t in finite)) if finite else -math.inf
    return out


@pytest.mark.parametrize("reverse", [False, True], ids=["prefix", "suffix"])
@pytest.mark.parametrize("inclusive", [False, True], ids=["strict", "inclusive"])
def test_running_lse_matches_loop(reverse, inclusive):
    rng = np.random.default_rng(0)
    sizes = [1, 4, 0, 7, 2]                                 # an empty query too
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    a = rng.normal(scale=500, size=bounds[-1])             # terms e^{±1000} apart
    a[[2, 6]] = -np.inf
    out = np.empty_like(a)
    running_lse(a, bounds, reverse, inclusive, out)
    np.testing.assert_allclose(out, _reference(a, bounds, reverse, inclusive), rtol=1e-14)
    assert not np.isnan(out).any()
