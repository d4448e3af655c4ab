"""ExactBoost's fits do not move: scores and stumps bit for bit against recorded digests.

The kernel (``rankcore/exactboost/_bnb*.pyx``) was split by job
(runs, search, boxes, score levels) with the promise of the same results bit
for bit.  Each configuration below -- every search path: pair-count AUC, the
run-length kernels, the expanded reference, shift-invariant and general
boxes, binned and two-valued features, the budget, the margin modes, the
tie-break and the tail -- is fitted on small synthetic data with ties and
fixed seeds, and the SHA-256 of its stumps and training scores must equal
the digest recorded with the kernel before the split.  ExactBoost's scores
are sums of dyadic numbers and its thresholds midpoints of data values, so
the digests do not depend on the thread count (tested here too).

To record new digests after a deliberate change: ``python tests/exactboost/test_exactboost_golden.py``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import rankcore

CONFIGS = {
    "auc-pairs": dict(metric="auc"),
    "auc-exhaustive": dict(metric="auc", max_boxes=None, depth=2),
    "ks": dict(metric="ks", margin_mode="stump"),
    "prec@k": dict(metric="prec@k:0.2", head="auto"),
    "prec@k-no-tail": dict(metric="prec@k:10", head=None, tie_break=None),
    "pauc": dict(metric="pauc:0.2", margin_mode="normalized", max_bins=16),
    "rmax-general": dict(metric="rmax", depth=2, max_thresholds=8),
    "pnorm": dict(metric="pnorm:4", subsample=0.5, feature_subsample=0.5),
    "auc-binned": dict(metric="auc", max_bins=8, max_boxes=32),
}


def golden_data(seed: int = 3):
    """300 rows: continuous, rounded (ties), small-count and two-valued features, ~30 % positives."""
    rng = np.random.default_rng(seed)
    n = 300
    X = np.column_stack([
        rng.normal(size=n),
        np.round(rng.normal(size=n), 1),
        rng.integers(0, 5, size=n).astype(float),
        rng.integers(0, 2, size=n).astype(float),
        rng.exponential(size=n),
        rng.integers(0, 2, size=n).astype(float),
    ])
    logit = X[:, 0] + 0.8 * X[:, 3] - 0.5 * X[:, 2] + 0.5 * rng.normal(size=n) - 0.6
    y = (logit > 0).astype(int)
    return X, y


#: The reference path (boxes on expanded score arrays, ``run_length=False``), through the run functions.
RUN_CONFIGS = {
    "runs-expanded-auc": dict(metric="auc", max_boxes=64),
    "runs-expanded-ks": dict(metric="ks", depth=2, max_boxes=None),
    "runs-run-length-prec@k": dict(metric="prec@k:0.1", max_thresholds=6),
}


def run_digest(params: dict, run_length: bool) -> str:
    from rankcore.exactboost import RunSettings, fit_runs, prepare_data, run_seeds

    X, y = golden_data()
    settings = RunSettings(**{**params, "metric": rankcore.resolve("metric", params["metric"])}, n_rounds=10,
                           subsample=0.4, feature_subsample=0.7)
    result = fit_runs(prepare_data(X, y.astype(np.int8), max_bins=12), run_seeds(5, 4), settings, n_threads=2,
                      run_length=run_length)
    h = hashlib.sha256()
    for name in ("feature", "threshold", "a", "b", "loss", "evals", "exhausted"):
        h.update(np.ascontiguousarray(getattr(result, name)).tobytes())
    return h.hexdigest()[:24]


def digest(params: dict, n_jobs: int = 2) -> str:
    X, y = golden_data()
    model = rankcore.ExactBoost(n_runs=6, n_rounds=12, random_state=11, n_jobs=n_jobs, **params).fit(X, y)
    h = hashlib.sha256()
    for name in ("stumps_", "run_lengths_", "train_loss_", "tail_stumps_", "tail_run_lengths_"):
        value = getattr(model, name, None)
        if value is not None:
            for part in (value if isinstance(value, (list, tuple)) else [value]):
                h.update(np.ascontiguousarray(part).tobytes())
    h.update(np.ascontiguousarray(model.decision_function(X)).tobytes())
    return h.hexdigest()[:24]


RECORDED = {  # recorded with the kernel before the split (main at 7016e22)
    'auc-binned': '5638afb40d91bedb04267c02',
    'auc-exhaustive': 'e47dbd9da47dd1810b0191a8',
    'auc-pairs': '55d4b08e75e7ba293139a77e',
    'ks': 'c013dfaec149ded308aa3e6a',
    'pauc': 'fab36244a71c96d840292757',
    'pnorm': '8c07ac59b9f7c4f7191fa876',
    'prec@k': 'b98cd7f872440fee300654de',
    'prec@k-no-tail': '68f88a65ba5f870dd4687a12',
    'rmax-general': '064d07d9992103c7a730cef0',
    'runs-expanded-auc': '218ae34ff904e5b9d903922e',
    'runs-expanded-ks': '4f12c124b587387d24f52e89',
    'runs-run-length-prec@k': '4995c4bfbe75814564b422ba',
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_exactboost_fit_matches_the_recorded_digest(name, exact_threads):
    """Fits on two threads (``digest``'s n_jobs=2, really two: ``exact_threads``): with the one-thread test below,
    the recorded digests compare the thread counts."""
    exact_threads(2)
    assert digest(CONFIGS[name]) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(RUN_CONFIGS))
def test_exactboost_runs_match_the_recorded_digest_on_both_box_paths(name):
    """The expanded reference and the run-length path: the same runs, and the recorded ones."""
    assert run_digest(RUN_CONFIGS[name], run_length=False) == run_digest(RUN_CONFIGS[name], run_length=True)
    assert run_digest(RUN_CONFIGS[name], run_length=True) == RECORDED[name]


def test_exactboost_digest_does_not_depend_on_threads():
    assert digest(CONFIGS["auc-pairs"], n_jobs=1) == RECORDED["auc-pairs"]


if __name__ == "__main__":          # print the digests, to record them after a deliberate change
    for key in sorted(CONFIGS):
        print(f"    {key!r}: {digest(CONFIGS[key])!r},")
    for key in sorted(RUN_CONFIGS):
        print(f"    {key!r}: {run_digest(RUN_CONFIGS[key], run_length=True)!r},")
