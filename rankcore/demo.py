"""The main job: the push family on scikit-learn's bundled breast-cancer data.

:func:`run_demo` fits P-Norm Push (exponential loss) for several prices --
p = 1 (RankBoost), 4, 16, 64 by default -- on a stratified train/test split
of the Wisconsin diagnostic breast-cancer data (wdbc, one of the P-Norm Push
paper's datasets; positives = malignant) and prints the top-of-list metrics
side by side, train and test.  The default is the paper's wdbc setting: the
first six features (with all 30 the data are nearly separable and every p
ranks the training set perfectly), each min–max scaled feature a weak
ranker, 200 iterations::

    python -c "import rankcore.demo as d; d.run_demo()"

It needs nothing but rankcore and scikit-learn (the data ship with
scikit-learn).  ``rankcore demo`` on the command line adds figures.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Sequence, TextIO

__all__ = ["run_demo", "DEMO_PRICES", "DEMO_METRICS"]

DEMO_PRICES: tuple[str, ...] = ("identity", "pow:4", "pow:16", "pow:64")
DEMO_METRICS: tuple[str, ...] = ("rmax", "prec@k:10", "prec@k:0.05", "pauc:0.1", "auc")


def _load_wdbc():
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, (data.target == 0).astype(np.int8)      # 1 = malignant: rank those first


_COUNT_METRICS = ("rmax", "max_height", "height")


def _format(metric: str, value: Any) -> str:
    if metric.split(":")[0] in _COUNT_METRICS:
        return f"{int(round(float(value)))}"
    return f"{float(value):.3f}"


def run_demo(stream: TextIO | None = None, *, prices: Sequence[str] = DEMO_PRICES, loss: str = "exp",
             learner: str = "features", n_iter: int = 200, columns: Sequence[int] | None = range(6),
             metrics: Sequence[str] = DEMO_METRICS, test_size: float = 0.3, random_state: int = 0,
             n_jobs: int | None = None) -> list[dict]:
    """Fit the push family for each price on wdbc and print train and test metrics side by side.

    Parameters
    ----------
    stream : text stream, default sys.stdout
        Where the table goes (``None`` for stdout).
    prices : sequence of str
        Price specs, one model each (``"identity"`` is RankBoost, ``"pow:p"`` P-Norm Push).
    loss, learner : str
        The push objective's loss and the weak learners.
    n_iter : int
        Boosting iterations per model.
    columns : sequence of int or None
        Features used (default: the first six, as in the paper; None: all 30).
    metrics : sequence of str
        Registered metric specs (``rmax`` = positives above every negative,
        ``prec@k:10``, ``pauc:0.1``, ...).
    test_size : float
        Held-out fraction (stratified split).
    random_state : int
        Seed of the split.
    n_jobs : int or None
        Threads for the kernels.

    Returns
    -------
    list of dict
        One record per model: ``price``, ``seconds``, ``objective`` (final J),
        and ``train`` / ``test`` dictionaries of metric values.
    """
    from sklearn.model_selection import train_test_split

    from .metrics import evaluate
    from .push import PushBoost

    out = sys.stdout if stream is None else stream
    X, y = _load_wdbc()
    if columns is not None:
        X = X[:, list(columns)]
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, stratify=y, random_state=random_state)
    print(f"wdbc (scikit-learn's breast-cancer data): {len(y_tr)} training / {len(y_te)} test rows, "
          f"{X.shape[1]} features, positives = malignant ({int(y.sum())} of {len(y)})", file=out)
    print(f"push family: loss={loss}, learner={learner}, {n_iter} iterations; "
          f"rmax = positives ranked above every negative", file=out)
    records = []
    for price in prices:
        model = PushBoost(loss=loss, price=price, learner=learner, n_iter=n_iter, random_state=random_state,
                          n_jobs=n_jobs)
        start = time.perf_counter()
        model.fit(X_tr, y_tr)
        seconds = time.perf_counter() - start
        records.append({
            "price": price,
            "seconds": seconds,
            "objective": float(model.objective_values_[-1]),
            "train": evaluate(y_tr, model.decision_function(X_tr), list(metrics)),
            "test": evaluate(y_te, model.decision_function(X_te), list(metrics)),
        })
    header = ["price"] + [f"{m} {split}" for m in metrics for split in ("train", "test")] + ["fit s"]
    rows = [[r["price"]] + [_format(m, r[split][m]) for m in metrics for split in ("train", "test")]
            + [f"{r['seconds']:.2f}"] for r in records]
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    print("", file=out)
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)), file=out)
    return records
