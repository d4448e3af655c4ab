"""AutoRanker's model file is the same bytes for the same data and ``random_state``: it holds no durations."""

import math

import numpy as np

import rankcore


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 3))
    y = (X[:, 0] + rng.normal(size=160) > 0.8).astype(int)
    return X, y


def _fit_and_save(path):
    X, y = _data()
    model = rankcore.AutoRanker(candidates=["trees", "stumps"], random_state=0, n_jobs=1).fit(X, y)
    rankcore.save_model(model, path)
    return model


def test_two_fits_write_the_same_bytes(tmp_path):
    # the search and refit times differ at every run: before, the file held them and its sha256 changed
    first = _fit_and_save(tmp_path / "a.json")
    _fit_and_save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert first.search_time_ > 0 and all(math.isfinite(r.fit_time) for r in first.leaderboard_.rows
                                          if r.status == "evaluated")


def test_a_loaded_model_says_its_durations_are_unknown(tmp_path):
    model = _fit_and_save(tmp_path / "m.json")
    again = rankcore.load_model(tmp_path / "m.json")
    X, _ = _data()
    assert np.array_equal(again.decision_function(X), model.decision_function(X))
    assert math.isnan(again.search_time_) and math.isnan(again.refit_time_)
    assert all(math.isnan(r.fit_time) and math.isnan(r.score_time) for r in again.leaderboard_.rows)
    assert [r.mean for r in again.leaderboard_.rows] == [r.mean for r in model.leaderboard_.rows]
