"""``rankcore demo``: the README's main job, on data that ships with the install.

Prints the table of :func:`rankcore.demo.run_demo` -- P-Norm Push for p = 1
(RankBoost), 4, 16, 64 on scikit-learn's bundled breast-cancer data (wdbc;
positives = malignant; the paper's setting: the first six features, each
min–max scaled feature a weak ranker, 200 iterations), top-of-list metrics on
train and test side by side -- and draws the figures of ``rankcore compare``
for the same models: the ROC curve and its leftmost portion in counts,
precision@k against k, the objective per iteration -- as SVG written by
rankcore itself, so a plain ``pip install .`` draws them (PNG and PDF with
``--image-format``, which needs matplotlib).  Each figure written is announced
with one sentence saying what to look at.
"""

from __future__ import annotations

import sys

from ._common import metric_specs
from .._progress import Progress

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
    parser.add_argument("--n-iter", type=int, default=200, metavar="N", help="boosting iterations (default 200)")
    parser.add_argument("--test-size", type=float, default=0.3, metavar="FRACTION",
                        help="held-out fraction (default 0.3)")
    parser.add_argument("--random-state", type=int, default=0, metavar="SEED", help="seed of the split (default 0)")
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
    out.add_argument("--max-fp", type=int, metavar="N",
                     help="width of the leftmost ROC portion in false positives (default: a tenth of the negatives)")
    out.add_argument("--report", metavar="FILE.html", help="also write a self-contained HTML report")
    out.add_argument("--force", "-f", action="store_true", help="overwrite the figures and report of an earlier run")
    out.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    return parser


def run(args) -> int:
    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from .. import demo
    from . import CommandError
    from ._models import ModelConfig, kind_named
    from .compare import check_outputs, finish, run_comparison

    if not 0 < args.test_size < 1:
        raise CommandError(f"--test-size: expected a fraction in (0, 1), got {args.test_size}")
    if args.n_iter < 1:
        raise CommandError(f"--n-iter: expected a positive integer, got {args.n_iter}")
    args.save_models = None
    check_outputs(args)
    metrics = metric_specs(args.metrics) if args.metrics else list(demo.DEMO_METRICS)
    columns = None if args.all_features else range(6)

    # The main job itself: the push family's demo prints the table.
    records = demo.run_demo(sys.stdout, n_iter=args.n_iter, columns=columns, metrics=metrics,
                            test_size=args.test_size, random_state=args.random_state)
    sys.stdout.flush()
    if args.no_plots and not args.report:
        return 0

    # The figures: the same models on the same split (each fit takes a fraction of a second).
    data = load_breast_cancer()
    X, y = data.data, (data.target == 0).astype(np.int8)
    if columns is not None:
        X = X[:, list(columns)]
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=args.test_size, stratify=y,
                                              random_state=args.random_state)
    configs = [ModelConfig(kind_named("push"), {"loss": "exp", "price": price, "learner": "features",
                                           "n_iter": args.n_iter, "random_state": args.random_state},
                           label=f"push {price}") for price in demo.DEMO_PRICES]
    comparison = run_comparison(configs, {"train": (X_tr, y_tr), "test": (X_te, y_te)}, metrics,
                                progress=Progress("none"), monitor="auc")
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
