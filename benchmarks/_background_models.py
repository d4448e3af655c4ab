"""The models and rows the interventional SHAP benchmarks explain: rankcore ``trees`` leaf-wise (31 leaves) and
oblivious (depth 6), 200 trees each, fitted on the same 20,000 rows × 50 float32 columns (``rare_positives``), the
rows after them to explain, and 100 of the training rows as the background."""

from __future__ import annotations

import numpy as np

from _shapes import rare_positives

N_BACKGROUND = 100
N_TREES = 200
N_TRAIN = 20_000
SPECS = {"leafwise": "trees:subsample=1", "oblivious": "trees:growth=oblivious,subsample=1"}


def background_models(n_explained: int):
    """``(models by name, the n_explained rows to explain, the background rows)``; one thread per fit."""
    import rankcore

    X, y = rare_positives(N_TRAIN + n_explained, 50)
    models = {name: rankcore.boost(learner=spec, n_iter=N_TREES, tol=0.0, early_stopping=False, random_state=0,
                                   n_jobs=1).fit(X[:N_TRAIN], y[:N_TRAIN])
              for name, spec in SPECS.items()}
    background = X[np.random.default_rng(0).choice(N_TRAIN, N_BACKGROUND, replace=False)]
    return models, X[N_TRAIN:], background
