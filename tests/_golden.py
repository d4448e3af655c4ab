"""Golden fits: every estimator, fixed seeds, small deterministic data.

``python tests/_golden.py`` (re)writes ``tests/data/golden/``: one saved model
file per configuration and ``scores.json`` with the decision values of the
training and test rows as hexadecimal floats (bit for bit).
``tests/persistence/test_golden.py`` refits every configuration and compares: the same
scores bit for bit and the same saved file (parameters and fitted state), and
the stored files still load and score the same.  Regenerate only when a change
is *meant* to change the models, and say so in the commit.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

GOLDEN_DIR = Path(__file__).resolve().parent / "data" / "golden"


def data():
    """80 training and 40 test rows, 5 features (one with ties), two labels and grades."""
    rng = np.random.default_rng(20240601)
    X = rng.normal(size=(120, 5))
    X[:, 3] = np.round(X[:, 3] * 2) / 2              # ties
    grade = X[:, 0] - 0.7 * X[:, 1] + 0.5 * X[:, 3] + 0.6 * rng.normal(size=120)
    y = (grade > np.quantile(grade, 0.75)).astype(np.int64)
    return X[:80], y[:80], grade[:80], X[80:], y[80:]


def configs():
    """name -> (estimator factory, fit keyword arguments factory, which target)."""
    from rankcore import ExactBoost, KernelRanker, PerceptronAtK, PNormPush, PushBoost, RankBoost, SGDAtK

    X, y, grade, X_te, y_te = data()
    ev = {"eval_set": (X_te, y_te)}
    return {
        "push-stumps": (lambda: PushBoost(n_iter=15, n_jobs=1, random_state=0), {}, "y"),
        "push-logistic-thresholds": (lambda: PushBoost(loss="logistic", price="pow:2", learner="thresholds:q=4",
                                                       n_iter=10, n_jobs=1), {}, "y"),
        "push-features-exp": (lambda: PushBoost(price="exp:1", learner="features", n_iter=10, n_jobs=1), {}, "y"),
        "push-trees": (lambda: PushBoost(learner="trees:max_leaves=4", n_iter=6, n_jobs=1, random_state=0), {}, "y"),
        "push-prec@k": (lambda: PushBoost(objective="prec@k-avg:10", n_iter=8, n_jobs=1, random_state=0), {}, "y"),
        "push-mp-squared": (lambda: PushBoost(objective="mp-squared", n_iter=8, n_jobs=1), {}, "grade"),
        "push-early-stopping": (lambda: PushBoost(n_iter=25, early_stopping=True, n_jobs=1, random_state=3),
                                {}, "y"),
        "push-eval-set": (lambda: PushBoost(n_iter=12, early_stopping=True, n_iter_no_change=3, scoring="prec@k:5",
                                            n_jobs=1), ev, "y"),
        "pnorm": (lambda: PNormPush(p=8, n_iter=12, n_jobs=1), {}, "y"),
        "rankboost": (lambda: RankBoost(n_iter=12, learner="stumps:max_bins=16", n_jobs=1), {}, "y"),
        "exactboost-auc": (lambda: ExactBoost(n_runs=4, n_rounds=5, random_state=0, n_jobs=1), {}, "y"),
        "exactboost-prec@k": (lambda: ExactBoost(metric="prec@k:8", n_runs=3, n_rounds=4, random_state=1,
                                                 n_jobs=1), {}, "y"),
        "exactboost-bins": (lambda: ExactBoost(max_bins=8, margin_mode="normalized", depth=2, tie_break=None,
                                               subsample=0.5, n_runs=3, n_rounds=4, random_state=2, n_jobs=1),
                            {}, "y"),
        "perceptron": (lambda: PerceptronAtK(k=6, batch_size=20, n_epochs=3, random_state=0), {}, "y"),
        "perceptron-max": (lambda: PerceptronAtK(k=0.1, variant="max", average=False, standardize=False,
                                                 n_epochs=2, random_state=1), {}, "y"),
        "sgd": (lambda: SGDAtK(k=6, batch_size=20, n_epochs=3, random_state=0), {}, "y"),
        "sgd-zero-struct": (lambda: SGDAtK(k=0.1, surrogate="struct", init="zero", eta0=0.5, alpha=0.01,
                                           radius=10.0, batch_size=30, n_epochs=2, random_state=2), {}, "y"),
        "kernel": (lambda: KernelRanker(lam=0.1, gamma=4.0, n_jobs=1), {}, "grade"),
        "kernel-holdout": (lambda: KernelRanker(lam="holdout", metric="auc", lam_grid=[1.0, 0.1, 0.01],
                                                filter=["tikhonov", "cutoff"], random_state=0, n_jobs=1), {}, "y"),
        "kernel-path": (lambda: KernelRanker(lam=[0.1, 0.01], kernel="laplacian", n_jobs=1), {}, "grade"),
        "kernel-nystroem": (lambda: KernelRanker(solver="nystroem", n_components=20, random_state=0, n_jobs=1),
                            {}, "grade"),
    }


def fit(name):
    """The fitted estimator of configuration ``name``."""
    X, y, grade, _, _ = data()
    make, kwargs, target = configs()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # e.g. the hold-out grid's edge warning
        return make().fit(X, y if target == "y" else grade, **kwargs)


def scores(estimator):
    """The decision values on the training and test rows, as base64 of their little-endian float64 bytes."""
    X, _, _, X_te, _ = data()
    return {split: encode(estimator.decision_function(rows)) for split, rows in (("train", X), ("test", X_te))}


def encode(values) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def decode(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f8")


def environment():
    """The versions, the BLAS kernel family and NumPy's SIMD targets the scores depend on.

    OpenBLAS picks its kernels by processor (or by ``OPENBLAS_CORETYPE``), and two kernel
    families round a product differently; recorded with one, the scores are compared bit for
    bit only where the same one runs (set ``OPENBLAS_CORETYPE`` to the recorded one to get there).
    """
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    blas = sorted({f"{pool.get('internal_api')}:{pool.get('architecture')}"
                   for pool in threadpool_info() if pool.get("user_api") == "blas"})
    return {"numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__, "blas": blas,
            "simd": _numpy_simd_targets()}


def _numpy_simd_targets():
    """The instruction sets NumPy's vectorized loops (``exp``, ``log``, ``power``...) run on here.

    NumPy picks its loops by processor at import, and an AVX-512 machine's ``exp`` rounds the
    last bit differently from an AVX2 machine's: the same versions and BLAS do not make the
    same bits. (NumPy exposes this only privately; None where it cannot be read.)
    """
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # pragma: no cover - another NumPy layout
        return None
    return sorted(name for name in __cpu_dispatch__ if __cpu_features__.get(name))


def canonical(model: dict) -> dict:
    """A model file's content without the version stamp and checksum (they may change)."""
    return {k: v for k, v in model.items() if k not in ("rankcore_version", "sha256")}


def write() -> None:
    from rankcore.persistence import save_model

    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    table = {"environment": environment(), "scores": {}}
    for name in configs():
        est = fit(name)
        table["scores"][name] = scores(est)
        save_model(est, GOLDEN_DIR / f"{name}.json")
    (GOLDEN_DIR / "scores.json").write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(write())
