"""The names a user of saved models meets are top-level names of rankcore, as the docs write them."""

import numpy as np

import rankcore
from rankcore import persistence


def test_model_format_error_and_text_pair_are_top_level():
    for name in ("ModelFormatError", "model_from_text", "model_text", "load_model", "save_model"):
        assert name in rankcore.__all__
        assert getattr(rankcore, name) is getattr(persistence, name)


def test_top_level_model_text_round_trip_and_refusal():
    X = np.random.default_rng(0).normal(size=(30, 2))
    model = rankcore.RankBoost(n_iter=2).fit(X, (X[:, 0] > 0).astype(int))
    loaded = rankcore.model_from_text(rankcore.model_text(model).encode())
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))
    try:
        rankcore.model_from_text(b"{}")
    except rankcore.ModelFormatError as exc:
        assert isinstance(exc, ValueError)
    else:
        raise AssertionError("an empty model text was loaded")
