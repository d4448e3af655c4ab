"""``rankcore demo``: the README's main job, on data that ships with the install.

Prints the table of :func:`run_demo` -- P-Norm Push for p = 1
(RankBoost), 4, 16, 64 on scikit-learn's bundled breast-cancer data (wdbc;
positives = malignant; the paper's setting: the first six features, each
min–max scaled feature a weak ranker, 200 iterations), top-of-list metrics on
train and test side by side -- and draws the figures of ``rankcore compare``
for the same models: the ROC curve and its leftmost portion in counts,
precision@k against k, the objective per iteration -- as SVG written by
rankcore itself, so a plain ``pip install .`` draws them (PNG and PDF with
``--image-format``, which needs matplotlib).  Each figure written is announced
with one sentence saying what to look at.

:func:`run_demo` prints the table alone; it needs nothing but rankcore and
scikit-learn (the data ship with scikit-learn)::

    python -c "from rankcore.cli.demo import run_demo; run_demo()"
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Sequence, TextIO

from ._common import integer, metric_specs, nonnegative_int, number, seed
from .._progress import Progress

__all__ = ["run_demo", "DEMO_PRICES", "DEMO_METRICS"]

DEMO_PRICES: tuple[str, ...] = ("identity", "pow:4", "pow:16", "pow:64")
#: pAUC McClish-scaled: 1 is a perfect ranking, 0.5 a random one (raw it would top out at 0.1).
DEMO_METRICS: tuple[str, ...] = ("rmax", "prec@k:10", "prec@k:0.05", "pauc:0.1,mcclish", "auc")


def _load_wdbc():
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, (data.target == 0).astype(np.int8)      # 1 = malignant: rank those first


#: Rows of scikit-learn's breast-cancer data (checked against the data by the tests).
_WDBC_ROWS = 569

_COUNT_METRICS = ("rmax", "max_height", "height")


def _format(metric: str, value: Any) -> str:
    if metric.split(":")[0] in _COUNT_METRICS:
        return f"{int(round(float(value)))}"
    return f"{float(value):.3f}"


def _table(records: list[dict], metrics: Sequence[str]) -> list[str]:
    """The table, one row per price: each metric's train and test values under its name.

    Metrics that do not fit the terminal's width next to the price column go
    to a second block below (the price column repeated).
    """
    from ._terminal import column_groups

    cells = [[r["price"]] + [f"{_format(m, r['train'][m]):>5}  {_format(m, r['test'][m]):>5}" for m in metrics]
             + [f"{r['seconds']:.2f}"] for r in records]
    top = ["price"] + list(metrics) + ["fit"]
    sub = [""] + ["train   test"] * len(metrics) + ["s"]
    widths = [max(len(x) for x in column) for column in zip(top, sub, *cells)]
    lines = []
    for group in column_groups(widths):
        if lines:
            lines.append("")
        for row in [top, sub] + cells:
            lines.append("  ".join(row[i].ljust(widths[i]) if i == 0 else row[i].rjust(widths[i])
                                   for i in group).rstrip())
    return lines


def _meaning(spec: str) -> str:
    """What a metric column means, in words (the class's summary for metrics without one here)."""
    from ._terminal import plain_text
    from ..registry import resolve

    metric = resolve("metric", spec)
    k = getattr(metric, "k", None)
    if metric.name == "rmax":
        return "malignant cases ranked above every benign one (R_max)"
    if metric.name == "prec@k":
        where = f"the {k} top-ranked cases" if isinstance(k, int) else f"the top {100 * k:g} % of the list"
        return f"share of malignant cases among {where}"
    if metric.name == "pauc":
        scale = ("McClish-scaled: 1 is perfect, 0.5 random" if metric.scale == "mcclish"
                 else f"raw: {metric.max_fpr:g} is perfect")
        return f"area under the ROC curve up to {100 * metric.max_fpr:g} % false positives, {scale}"
    if metric.name == "auc":
        return "probability that a malignant case is ranked above a benign one"
    return plain_text((type(metric).__doc__ or "").strip().splitlines()[0])


def _legend(metrics: Sequence[str], positives: tuple[int, int], rows: tuple[int, int]) -> list[str]:
    """One line (wrapped) per column: what it means."""
    items = [(spec, _meaning(spec)) for spec in metrics]
    items.append(("fit s", "seconds to fit the model"))
    items.append(("train, test", f"the {rows[0]} training rows ({positives[0]} malignant) and the {rows[1]} "
                                 f"held-out rows ({positives[1]} malignant)"))
    return [line for name, text in items for line in _paragraph(f"{name}: {text}")]


def _paragraph(text: str) -> list[str]:
    """``text`` wrapped to the terminal, continuation lines indented by two spaces."""
    from ._terminal import terminal_width, wrap_text

    width = terminal_width()
    first, *rest = wrap_text(text, width)
    return [first] + [f"  {line}" for line in (wrap_text(" ".join(rest), width - 2) if rest else [])]


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
        Features used (default: the first six, as in the paper; None: all 30, with which the data
        are nearly separable and every p ranks the training set perfectly).
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

    from ..metrics import evaluate
    from ..push import PushBoost

    out = sys.stdout if stream is None else stream
    X, y = _load_wdbc()
    if columns is not None:
        X = X[:, list(columns)]
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, stratify=y, random_state=random_state)
    intro = [f"wdbc (scikit-learn's breast-cancer data): {len(y_tr)} training / {len(y_te)} test rows, "
             f"{X.shape[1]} features, positives = malignant ({int(y.sum())} of {len(y)})",
             f"push family: loss={loss}, learner={learner}, {n_iter} iterations, one model per price"]
    for line in (line for text in intro for line in _paragraph(text)):
        print(line, file=out)
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
    print("", file=out)
    for line in _table(records, metrics):
        print(line, file=out)
    print("", file=out)
    for line in _legend(metrics, (int(y_tr.sum()), int(y_te.sum())), (len(y_tr), len(y_te))):
        print(line, file=out)
    return records


# What to look at in the demo's figures (the push family's story; see compare.FIGURE_GUIDE)
DEMO_GUIDE = {
    "roc": "the whole ROC curve in counts (left) and its leftmost part (right): the leftmost part is what the "
           "push family changes -- on the training rows a larger p puts more malignant cases above the first "
           "benign ones (rmax, in the legend).",
    "precision_at_k": "precision among the k top-ranked cases: every model is perfect at the very top; look "
                      "where each curve first drops below 1 (the dotted line is the base rate).",
}


def add_parser(subparsers):
    from .compare import add_image_format_option

    parser = subparsers.add_parser(
        "demo",
        help="the push family for several p on the bundled breast-cancer data: metrics and figures",
        description="Train P-Norm Push for p = 1 (RankBoost), 4, 16, 64 on scikit-learn's bundled breast-cancer "
                    "data (wdbc; positives = malignant; the paper's first six features), print top-of-list metrics "
                    "on train and test side by side, and draw the ROC curves (full and leftmost portion, in "
                    "counts), precision@k against k and the objective per iteration.",
    )
    parser.add_argument("--n-iter", type=integer, default=200, metavar="N", help="boosting iterations (default 200)")
    parser.add_argument("--test-size", type=number, default=0.3, metavar="FRACTION",
                        help="held-out fraction (default 0.3)")
    parser.add_argument("--random-state", type=seed, default=0, metavar="SEED", help="seed of the split (default 0)")
    parser.add_argument("--all-features", action="store_true",
                        help="use all 30 features instead of the paper's first six (then every p ranks the "
                             "training set almost perfectly)")
    parser.add_argument("--metrics", "-m", metavar="SPECS", help="comma-separated metric specs "
                        "(default rmax,prec@k:10,prec@k:0.05,pauc:0.1,mcclish,auc)")
    out = parser.add_argument_group("output")
    out.add_argument("--out-dir", default="rankcore-demo", metavar="DIR",
                     help="directory of the figures (default 'rankcore-demo')")
    add_image_format_option(out)
    out.add_argument("--no-plots", action="store_true", help="write no figures")
    out.add_argument("--max-fp", type=nonnegative_int, metavar="N",
                     help="width of the leftmost ROC portion in false positives (default: a tenth of the negatives)")
    out.add_argument("--report", metavar="FILE.html", help="also write a self-contained HTML report")
    out.add_argument("--force", "-f", action="store_true", help="overwrite the figures and report of an earlier run")
    out.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    return parser


def run(args) -> int:
    import numpy as np
    from sklearn.model_selection import train_test_split

    from . import CommandError
    from ._models import ModelConfig, kind_named
    from .compare import check_outputs, finish, run_comparison

    if not 0 < args.test_size < 1:
        raise CommandError(f"--test-size: expected a fraction in (0, 1), got {args.test_size}")
    n_test = math.ceil(args.test_size * _WDBC_ROWS)          # scikit-learn's rounding of a stratified split
    if not 2 <= n_test <= _WDBC_ROWS - 2:
        raise CommandError(f"--test-size {args.test_size}: {n_test} test rows of wdbc's {_WDBC_ROWS}; each part "
                           f"needs a row of each class (a fraction in [{2 / _WDBC_ROWS:.4f}, "
                           f"{1 - 2 / _WDBC_ROWS:.4f}])")
    if args.n_iter < 1:
        raise CommandError(f"--n-iter: expected a positive integer, got {args.n_iter}")
    args.save_models = None
    check_outputs(args)
    metrics = metric_specs(args.metrics) if args.metrics else list(DEMO_METRICS)
    columns = None if args.all_features else range(6)

    # The main job itself: the push family's demo prints the table.
    records = run_demo(sys.stdout, n_iter=args.n_iter, columns=columns, metrics=metrics,
                            test_size=args.test_size, random_state=args.random_state)
    sys.stdout.flush()
    if args.no_plots and not args.report:
        return 0

    # The figures: the same models on the same split (each fit takes a fraction of a second).
    X, y = _load_wdbc()
    if columns is not None:
        X = X[:, list(columns)]
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=args.test_size, stratify=y,
                                              random_state=args.random_state)
    configs = [ModelConfig(kind_named("push"), {"loss": "exp", "price": price, "learner": "features",
                                           "n_iter": args.n_iter, "random_state": args.random_state},
                           label=f"push {price}") for price in DEMO_PRICES]
    comparison = run_comparison(configs, {"train": (X_tr, y_tr), "test": (X_te, y_te)}, metrics,
                                progress=Progress("none", quiet=True), monitor="auc")
    for record, fitted in zip(records, comparison.models):
        for split in ("train", "test"):
            if any(not np.isclose(record[split][m], fitted.metrics[split][m]) for m in metrics):
                raise RuntimeError(f"the demo's {record['price']} model differs between its table and its figures")
    args.monitor, args.table_format = "auc", "text"
    facts = [("data", "scikit-learn load_breast_cancer (wdbc), positives = malignant"),
             ("rows", str(len(y))), ("features", f"{X.shape[1]}" + (" (the first six)" if columns is not None else "")),
             ("split", f"stratified, test size {args.test_size}, random_state {args.random_state}")]
    finish(args, comparison, title="wdbc (breast cancer): P-Norm Push, p = 1, 4, 16, 64", data_facts=facts,
           argv=getattr(args, "_argv", None), print_table=False, guide=DEMO_GUIDE)
    return 0
