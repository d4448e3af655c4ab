"""``rankcore demo``: the main job on data that ships with the install.

Until the push family lands, the demo scores scikit-learn's bundled breast
cancer data (wdbc, one of the P-Norm Push paper's datasets) with a logistic
regression baseline and prints the top-of-list metrics on a held-out split.
"""

from __future__ import annotations


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "demo",
        help="rank the bundled breast-cancer data and print top-of-list metrics",
        description="Rank scikit-learn's bundled breast-cancer data (wdbc; positives = malignant) "
        "and print top-of-list metrics on a held-out split.",
    )
    parser.add_argument("--test-size", type=float, default=0.3, help="held-out fraction (default 0.3)")
    parser.add_argument("--random-state", type=int, default=0, help="seed of the split (default 0)")
    return parser


def run(args) -> int:
    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ..metrics import evaluate

    if not 0 < args.test_size < 1:
        raise ValueError(f"--test-size: expected a fraction in (0, 1), got {args.test_size}")
    data = load_breast_cancer()
    X, y = data.data, (data.target == 0).astype(np.int8)  # 1 = malignant
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=args.test_size, stratify=y, random_state=args.random_state
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_tr, y_tr)
    specs = ["rmax", "prec@k:10", "prec@k:0.05", "pauc:0.1", "auc"]
    print(f"wdbc (scikit-learn's breast cancer data): {len(y_tr)} train / {len(y_te)} test, positives = malignant")
    print(f"{'model':<24}{'split':<7}" + "".join(f"{s:>13}" for s in specs))
    for split, Xs, ys in (("train", X_tr, y_tr), ("test", X_te, y_te)):
        values = evaluate(ys, model.decision_function(Xs), specs)
        print(f"{'logistic regression':<24}{split:<7}" + "".join(f"{values[s]:>13.4g}" for s in specs))
    return 0
