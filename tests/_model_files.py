"""Tiny fitted models of every savable estimator, as model-file dictionaries.

Shared by the model-file validation tests and the load_model fuzzing.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from rankcore.persistence import _checksum, _decode, _encode, model_to_dict


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)
    return X, y


def _estimators():
    from rankcore.auto import AutoRanker
    from rankcore.exactboost import ExactBoost
    from rankcore.precision_at_k import PerceptronAtK, SGDAtK
    from rankcore.push import PNormPush, PushBoost, RankBoost
    from rankcore.rkhs import KernelRanker

    return {
        "PushBoost": PushBoost(n_iter=3, random_state=0),
        "PNormPush": PNormPush(n_iter=3, random_state=0),
        "RankBoost": RankBoost(n_iter=3, random_state=0),
        "ExactBoost": ExactBoost(n_runs=2, n_rounds=3, random_state=0),
        "PerceptronAtK": PerceptronAtK(k=5, n_epochs=2, batch_size=20, random_state=0),
        "SGDAtK": SGDAtK(k=5, n_epochs=2, batch_size=20, random_state=0),
        "KernelRanker": KernelRanker(lam=0.1, random_state=0),
        "AutoRanker": AutoRanker(candidates=["trees:n_iter=3", "linear:n_epochs=2", "kernel"], random_state=0,
                                 n_jobs=1),
        # the kinds whose files hold integer indices and a gate threshold
        "PushBoost-trees": PushBoost(learner="trees:max_leaves=4,min_samples_leaf=3,subsample=1", n_iter=3,
                                     random_state=0),
        "ExactBoost-head-tail": ExactBoost(metric="prec@k:5", n_runs=2, n_rounds=3, random_state=0),
    }


KINDS = tuple(_estimators())


@functools.lru_cache(maxsize=None)
def _model_dict(kind: str) -> dict:
    X, y = _data()
    return model_to_dict(_estimators()[kind].fit(X, y))


def model_dict(kind: str) -> dict:
    """A fresh copy of the saved form of a tiny fitted ``kind``."""
    return copy.deepcopy(_model_dict(kind))


def sample_matrix() -> np.ndarray:
    return _data()[0]


def resign(data: dict) -> dict:
    """Recompute the checksum, as someone editing the file on purpose would."""
    data = dict(data)
    data.pop("sha256", None)
    data["sha256"] = _checksum(data)
    return data


def tampered(model, change) -> dict:
    """The model's file with its state changed by ``change`` (decoded arrays), signed again."""
    data = model_to_dict(model)
    state = _decode(data["state"], "state")
    change(state)
    data["state"] = _encode(state, "state")
    return resign(data)
