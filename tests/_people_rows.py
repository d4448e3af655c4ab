"""A CSV of people -- age, income, city, height, weight and a 0/1 label -- shared by the command-line tests of
constraint refusals, which name columns by the file's names once ``--drop city`` and the label are taken out."""

from __future__ import annotations

import numpy as np

#: The feature columns once --drop city and the label are taken out, in the order the learner counts them.
ORDER = "age, income, height, weight"


def write_people(path, n_rows: int, seed: int):
    """Write ``n_rows`` rows of normal features (the label: age plus noise above 0) to ``path``; return ``path``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 5))
    y = (X[:, 0] + rng.normal(size=n_rows) > 0).astype(int)
    lines = ["age,income,city,height,weight,label"]
    lines += [",".join(map(repr, row)) + f",{label}" for row, label in zip(X.tolist(), y.tolist())]
    path.write_text("\n".join(lines) + "\n")
    return path
