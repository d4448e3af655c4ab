"""Every ``method`` an interval result can carry is among the values its docstring lists (before, the docstring
listed "delong" and "bootstrap" while a per-query interval says "bootstrap over queries")."""

import re

import numpy as np

from rankcore.metrics import ConfidenceInterval, compare, confidence_interval


def _listed_methods() -> set:
    line = next(line for line in ConfidenceInterval.__doc__.splitlines() if line.strip().startswith("method :"))
    return set(re.findall(r'"([^"]+)"', line))


def test_every_method_a_result_carries_is_documented():
    rng = np.random.default_rng(0)
    y, s = rng.integers(0, 3, 200), rng.normal(size=200)
    qid = np.repeat(np.arange(20), 10)
    results = [confidence_interval(y > 0, s, "auc"),
               confidence_interval(y > 0, s, "prec@k:5", n_boot=200, random_state=0),
               confidence_interval(y, s, "ndcg@k:5", qid=qid, n_boot=200, random_state=0),
               compare(y, s, s + rng.normal(size=200), "ndcg@k:5", qid=qid, n_boot=200, random_state=0)]
    assert {r.method for r in results} == {"delong", "bootstrap", "bootstrap over queries"}
    assert {r.method for r in results} <= _listed_methods()
