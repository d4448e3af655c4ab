"""ExactBoost's validation_scores_: one value per round (the start left out), as the push models' and LightGBM's."""

from __future__ import annotations

import numpy as np
import pytest

from rankcore import ExactBoost, PushBoost
from rankcore.persistence import _checksum, _decode, _encode, model_from_dict, model_to_dict


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(160, 3))
    y = (X[:, 0] + rng.normal(size=160) > 0.5).astype(int)
    return X[:110], y[:110], X[110:], y[110:]


def _auc(y, s):
    pos, neg = s[y == 1], s[y == 0]
    return float(((pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum()) / (pos.size * neg.size))


@pytest.fixture(scope="module")
def watched():
    X, y, X_val, y_val = _data()
    seen = []
    model = ExactBoost(n_runs=2, n_rounds=5, random_state=0).fit(
        X, y, eval_set=(X_val, y_val), callbacks=[lambda info: seen.append((info.iteration, info.validation_score))])
    return model, X_val, y_val, seen


def test_one_score_per_round_the_last_the_final_models(watched):
    model, X_val, y_val, _ = watched
    assert model.validation_scores_.shape == (5,)
    assert model.validation_scores_.dtype == np.float64
    assert model.validation_scores_[-1] == pytest.approx(_auc(y_val, model.decision_function(X_val)))


def test_entry_r_minus_1_is_rounds_r_score_as_the_callbacks_see_it(watched):
    model, _, _, seen = watched
    assert [r for r, _ in seen] == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(model.validation_scores_, [score for _, score in seen])


def test_as_long_as_a_push_models_curve():
    X, y, X_val, y_val = _data()
    push = PushBoost(n_iter=5, early_stopping=False).fit(X, y, eval_set=(X_val, y_val))
    exact = ExactBoost(n_runs=1, n_rounds=5, random_state=0).fit(X, y, eval_set=(X_val, y_val))
    assert exact.validation_scores_.shape == push.validation_scores_.shape == (5,)


def test_training_curve_has_no_validation_score_at_the_start(watched):
    model = watched[0]
    curve = model.training_curve_
    assert curve.validation.shape == curve.objective.shape == (6,)
    assert np.isnan(curve.validation[0])
    np.testing.assert_array_equal(curve.validation[1:], model.validation_scores_)


def test_a_stopped_fit_repeats_its_last_score():
    X, y, X_val, y_val = _data()
    model = ExactBoost(n_runs=1, n_rounds=5, random_state=0).fit(
        X, y, eval_set=(X_val, y_val), callbacks=[lambda info: info.iteration == 2])
    assert model.validation_scores_.shape == (5,)
    assert np.all(model.validation_scores_[2:] == model.validation_scores_[1])


def test_round_trip_and_a_file_with_the_start_still_loads(watched):
    model = watched[0]
    np.testing.assert_array_equal(model_from_dict(model_to_dict(model)).validation_scores_, model.validation_scores_)
    data = model_to_dict(model)        # as written before the start was left out: n_rounds + 1 values
    old = np.concatenate(([0.5], _decode(data["state"]["validation_scores"], "validation_scores")))
    data["state"]["validation_scores"] = _encode(old, "validation_scores")
    data["sha256"] = _checksum({k: v for k, v in data.items() if k != "sha256"})
    np.testing.assert_array_equal(model_from_dict(data).validation_scores_, model.validation_scores_)
