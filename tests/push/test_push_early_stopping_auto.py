"""Early stopping that helps: ties keep the later iteration, scoring on the objective, ``early_stopping="auto"``.

``"auto"`` switches on above 10,000 training rows: a stratified hold-out, the
fit on the other rows, the best prefix kept (no refit), the learner's
large-data settings; with too few rows of a class it falls back to no early
stopping and says so.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import rankcore
from rankcore import Metric, PushBoost
from rankcore.push._params import STOP_REASONS
from rankcore.push._validation import (
    AUTO_MIN_ROWS,
    NO_VALIDATION,
    MIN_HOLDOUT_ROWS,
    last_minimum,
    plan_validation,
    resolve_early_stopping,
)


def _data(n, seed=0, d=4, rate=None):
    """n rows; with ``rate``, exactly round(rate * n) positives (the rest by a noisy score)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    score = X[:, 0] + 0.5 * X[:, 1] + rng.standard_normal(n)
    if rate is None:
        return X, (score > 0.8).astype(int)
    y = np.zeros(n, dtype=int)
    y[np.argsort(-score)[: round(rate * n)]] = 1
    return X, y


# ---------------------------------------------------------------------------
# ties: the later iteration
# ---------------------------------------------------------------------------


class PlantedCurve(Metric):
    """A 'metric' that returns a planted sequence of values, one per call (the validation curve)."""

    name = "planted"
    values: list = []
    calls: list = []

    def compute(self, y, scores):
        type(self).calls.append(1)
        return type(self).values[len(type(self).calls) - 1]


@pytest.fixture
def planted():
    def plant(values):
        PlantedCurve.values = list(values)
        PlantedCurve.calls = []
        return PlantedCurve()
    return plant


def test_last_minimum_keeps_the_later_of_tied_losses():
    assert last_minimum([3.0, 1.0, 2.0, 1.0, 4.0]) == 3
    assert last_minimum([0.0, 0.0, 0.0]) == 2
    assert last_minimum([5.0]) == 0
    assert last_minimum([2.0, 1.0, math.inf]) == 1


def test_a_plateau_of_best_scores_keeps_the_later_iteration(planted):
    X, y = _data(300)
    # iteration:    0    1    2    3    4    5    6    7    8    9   10   11
    curve = [0.5, 0.7, 0.9, 0.9, 0.8, 0.9, 0.85, 0.85, 0.8, 0.8, 0.8, 0.8]
    model = PushBoost(n_iter=11, early_stopping=True, n_iter_no_change=3, scoring=planted(curve),
                      n_jobs=1).fit(X[:200], y[:200], eval_set=(X[200:], y[200:]))
    # the best score 0.9 first comes at iteration 2, last (within the patience) at 5: 5 is kept
    assert model.best_iteration_ == model.n_iter_ == 5
    assert model.stop_reason_ == "early_stopping"
    np.testing.assert_array_equal(model.validation_scores_, curve[1:6])
    assert len(PlantedCurve.calls) == 9          # the start and iterations 1-8: stopped 3 after the best


def test_a_saturated_metric_does_not_stop_the_fit_at_its_first_perfect_iteration(planted):
    X, y = _data(300)
    curve = [0.5, 0.9] + [1.0] * 30
    model = PushBoost(n_iter=30, early_stopping=True, n_iter_no_change=5, scoring=planted(curve),
                      n_jobs=1).fit(X[:200], y[:200], eval_set=(X[200:], y[200:]))
    assert model.n_iter_ == model.best_iteration_ == 30 and model.stop_reason_ == "n_iter"


def test_cross_validated_selection_keeps_the_later_of_tied_mean_scores(planted):
    """Early stopping on small data (5 folds): a plateau of the mean curve keeps its end."""
    X, y = _data(120, seed=3)
    plan = plan_validation(y, 0.1, 0, stratify=True)
    assert plan.kind == "cv"
    fold_curve = [0.5, 0.8, 0.9, 0.9, 0.9, 0.7, 0.7]           # the same curve in every fold
    model = PushBoost(n_iter=6, early_stopping=True, scoring=planted(fold_curve * len(plan.folds)),
                      random_state=0, n_jobs=1).fit(X, y)
    assert model.best_iteration_ == model.n_iter_ == 4


# ---------------------------------------------------------------------------
# scoring="objective": the objective's own loss on the validation rows
# ---------------------------------------------------------------------------


def _reference_log_push(y, f, p, w=None):
    """log Σ_k w_k (Σ_i w_i exp(−(f_i − f_k)))^p over all pairs, the plain way (O(I·K))."""
    w = np.ones(y.shape[0]) if w is None else w
    pos, neg = y == 1, y == 0
    inner = (w[pos][:, None] * np.exp(-(f[pos][:, None] - f[neg][None, :]))).sum(axis=0)
    return float(np.log(np.sum(w[neg] * inner ** p)))


@pytest.mark.parametrize("learner, price, p", [("stumps", "pow:4", 4.0), ("trees:max_leaves=4", "pow:2", 2.0)])
def test_objective_scoring_is_the_push_objective_on_the_validation_rows(learner, price, p):
    X, y = _data(260, seed=5)
    X_tr, y_tr, X_va, y_va = X[:180], y[:180], X[180:], y[180:]
    model = PushBoost(learner=learner, price=price, n_iter=12, scoring="objective", random_state=0,
                      n_jobs=1).fit(X_tr, y_tr, eval_set=(X_va, y_va))
    staged = list(model.staged_decision_function(X_va))
    expected = [_reference_log_push(y_va, s, p) for s in staged]
    np.testing.assert_allclose(model.validation_scores_, expected, rtol=1e-10)
    curve = model.training_curve_
    assert curve.validation_name == "objective"
    # score() stays the default metric (auc), higher is better
    assert model.score(X_va, y_va) == pytest.approx(rankcore.resolve("metric", "auc")(y_va, staged[-1]))


def test_objective_scoring_stops_at_the_minimum_of_the_validation_objective():
    X, y = _data(400, seed=6)
    model = PushBoost(price="pow:4", n_iter=300, early_stopping=True, scoring="objective", n_iter_no_change=5,
                      n_jobs=1).fit(X[:250], y[:250], eval_set=(X[250:], y[250:]))
    full = PushBoost(price="pow:4", n_iter=300, n_jobs=1).fit(X[:250], y[:250])
    values = [_reference_log_push(y[250:], np.zeros(150), 4.0)]
    values += [_reference_log_push(y[250:], s, 4.0) for s in full.staged_decision_function(X[250:])]
    run = np.asarray(values[: model.best_iteration_ + 6])
    assert model.best_iteration_ == last_minimum(run) == model.n_iter_
    assert model.stop_reason_ in ("early_stopping", "converged")


def test_objective_scoring_uses_the_weights_of_the_held_out_rows():
    # early_stopping=True holds out (rather than cross-validates) from MIN_HOLDOUT_ROWS validation rows on
    X, y = _data(2200, seed=7)
    w = np.random.default_rng(1).integers(1, 4, size=2200).astype(float)
    model = PushBoost(n_iter=8, early_stopping=True, scoring="objective", validation_fraction=0.5, random_state=2,
                      n_jobs=1).fit(X, y, sample_weight=w)
    plan = plan_validation(y, 0.5, 2, stratify=True, min_rows=MIN_HOLDOUT_ROWS)
    assert plan.kind == "holdout"
    (tr, va), = plan.folds
    part = PushBoost(n_iter=model.n_iter_ + 10, random_state=2, n_jobs=1).fit(X[tr], y[tr], sample_weight=w[tr])
    staged = list(part.staged_decision_function(X[va]))[: model.n_iter_]
    # the refit's curve is the hold-out's: J of the weighted validation rows
    np.testing.assert_allclose(model.validation_scores_, [_reference_log_push(y[va], s, 4.0, w[va]) for s in staged],
                               rtol=1e-10)


def test_objective_scoring_that_cannot_be_evaluated_names_scoring():
    X, y = _data(200, seed=8)
    y_va = np.zeros(40, dtype=int)                    # no positive among the validation rows
    with pytest.raises(ValueError, match=r"scoring='objective': the objective 'push:exp,pow:4' cannot be evaluated "
                                         r"on the 40 validation rows \(.*zero total positive weight\)"):
        PushBoost(scoring="objective", n_iter=3, random_state=0).fit(X[:160], y[:160], eval_set=(X[160:], y_va))


# ---------------------------------------------------------------------------
# early_stopping="auto"
# ---------------------------------------------------------------------------


def test_the_rule_of_auto():
    y_small, y_large = np.zeros(AUTO_MIN_ROWS, int), np.zeros(AUTO_MIN_ROWS + 1, int)
    y_small[::5] = 1
    y_large[::5] = 1
    kw = dict(has_eval_set=False, stratify=True)
    assert resolve_early_stopping("auto", y_small, 0.1, **kw).mode == "off"
    on = resolve_early_stopping("auto", y_large, 0.1, **kw)
    assert (on.mode, on.auto, on.fallback) == ("holdout", True, "")
    assert resolve_early_stopping("auto", y_large, 0.1, has_eval_set=True, stratify=True).mode == "eval_set"
    assert resolve_early_stopping(True, y_small, 0.1, **kw).mode == "select"
    assert resolve_early_stopping(True, y_small, 0.1, has_eval_set=True, stratify=True).mode == "eval_set"
    assert resolve_early_stopping(False, y_large, 0.1, has_eval_set=True, stratify=True).mode == "off"
    rare = np.zeros(AUTO_MIN_ROWS + 1, int)
    rare[:60] = 1                                  # a 10 % hold-out would hold 6 positives
    off = resolve_early_stopping("auto", rare, 0.1, **kw)
    assert off.mode == "off" and not off.auto and "about 10 rows of each class" in off.fallback
    tiny = resolve_early_stopping("auto", y_large, 0.001, **kw)     # 11 rows
    assert tiny.mode == "off" and "at least 50 rows" in tiny.fallback
    graded = resolve_early_stopping("auto", np.linspace(0, 1, AUTO_MIN_ROWS + 1), 0.1, has_eval_set=False,
                                    stratify=False)
    assert graded.mode == "holdout"


def test_auto_stops_on_an_eval_set_when_the_user_sets_n_iter_no_change():
    """LightGBM's ``early_stopping_rounds=10`` with a validation set is ``n_iter_no_change=10`` with an eval_set here.

    (Up to 10,000 rows "auto" was off: the patience was accepted and ignored, and all n_iter trees were kept.)
    """
    small = np.zeros(AUTO_MIN_ROWS, int)
    small[::5] = 1
    rule = resolve_early_stopping("auto", small, 0.1, has_eval_set=True, stratify=True, patience_given=True)
    assert (rule.mode, rule.auto) == ("eval_set", False)          # as early_stopping=True: no large-data settings
    assert resolve_early_stopping("auto", small, 0.1, has_eval_set=True, stratify=True).mode == "off"
    assert resolve_early_stopping("auto", small, 0.1, has_eval_set=False, stratify=True,
                                  patience_given=True).mode == "off"
    assert resolve_early_stopping("auto", small, 0.1, has_eval_set=True, stratify=True, patience_given=True,
                                  n_queries=100).mode == "off"          # within queries an eval_set is watched only
    X, y = _data(400, seed=3)
    Xv, yv = _data(200, seed=4)
    params = dict(learner="trees:max_leaves=8,min_samples_leaf=5", n_iter=200, random_state=0)
    model = rankcore.boost(n_iter_no_change=3, **params).fit(X, y, eval_set=(Xv, yv))
    same = rankcore.boost(n_iter_no_change=3, early_stopping=True, **params).fit(X, y, eval_set=(Xv, yv))
    assert model.stop_reason_ == "early_stopping" and 0 < model.n_iter_ < 200
    np.testing.assert_array_equal(model.alphas_, same.alphas_)
    watched = rankcore.boost(**params).fit(X, y, eval_set=(Xv, yv))     # no patience given: watched, as before
    assert watched.stop_reason_ == "n_iter" and watched.n_iter_ == 200


@pytest.mark.parametrize("n, on", [(AUTO_MIN_ROWS, False), (AUTO_MIN_ROWS + 1, True)])
def test_auto_switches_on_above_ten_thousand_rows(n, on):
    X, y = _data(n, seed=9)
    model = PushBoost(n_iter=4, random_state=0).fit(X, y)
    assert hasattr(model, "validation_scores_") == on
    if on:
        # the large-data way: boosted on the rows outside a stratified 10 % hold-out, no refit
        (tr, va), = plan_validation(y, 0.1, 0, stratify=True).folds
        part = PushBoost(n_iter=4, early_stopping=False, random_state=0).fit(X[tr], y[tr])
        np.testing.assert_array_equal(model.alphas_, part.alphas_[: model.n_iter_])
        assert model.best_iteration_ == model.n_iter_ and len(model.validation_scores_) == model.n_iter_
        # scored by pauc:0.1 (scoring=None); a scoring the user gives is kept
        assert model.validation_metric_ == "pauc:0.1" and model.training_curve_.validation_name == "pauc:0.1"
        assert PushBoost(n_iter=2, scoring="auc", random_state=0).fit(X, y).validation_metric_ == "auc"
    else:
        assert model.n_iter_ == 4 and model.stop_reason_ == "n_iter"
        np.testing.assert_array_equal(model.alphas_, PushBoost(n_iter=4, early_stopping=False,
                                                               random_state=0).fit(X, y).alphas_)


def test_auto_gives_trees_their_large_data_settings_unless_the_user_set_them():
    X, y = _data(AUTO_MIN_ROWS + 1, seed=10)
    trees = rankcore.resolve("learner", "trees")
    assert dict(trees.large_data_params) == {"learning_rate": 0.2, "subsample": 1.0}
    model = PushBoost(learner="trees", n_iter=2, random_state=0).fit(X, y)
    assert rankcore.resolve("learner", model.learner_spec_).params == {**trees.params, **trees.large_data_params}
    mine = PushBoost(learner="trees:max_leaves=15,subsample=0.5", n_iter=2, random_state=0).fit(X, y)
    got = rankcore.resolve("learner", mine.learner_spec_)
    assert (got.max_leaves, got.subsample, got.learning_rate) == (15, 0.5, 0.2)
    positional = PushBoost(learner="trees:15,0.05", n_iter=2, random_state=0).fit(X, y)
    got = rankcore.resolve("learner", positional.learner_spec_)
    assert (got.max_leaves, got.learning_rate, got.subsample) == (15, 0.05, 1.0)
    configured = rankcore.resolve("learner", "trees:max_leaves=7")          # a component: kept as it is
    assert PushBoost(learner=configured, n_iter=2, random_state=0).fit(X, y).learner_spec_ == configured.spec
    off = PushBoost(learner="trees", n_iter=2, early_stopping=False, random_state=0).fit(X, y)
    assert off.learner_spec_ == "trees"
    # and the cap: n_iter=None is the learner's large-data cap there, 100 elsewhere
    assert trees.large_data_n_iter == 150
    assert PushBoost(learner="trees")._setup().for_large_data().n_iter == 150
    assert PushBoost(learner="trees")._setup().n_iter == 100
    assert PushBoost(learner="trees", n_iter=7)._setup().for_large_data().n_iter == 7
    assert PushBoost()._setup().for_large_data().n_iter == 300         # stumps: a larger cap, no spec change
    assert PushBoost()._setup().for_large_data().learner.spec == "stumps"
    assert PushBoost(learner="features")._setup().for_large_data().n_iter == 100    # declares none


def test_auto_falls_back_to_no_early_stopping_and_says_so():
    X, y = _data(AUTO_MIN_ROWS + 1, seed=11, rate=0.006)              # 60 positives: 6 in a 10 % hold-out
    with pytest.warns(UserWarning, match=r"early_stopping='auto': a validation_fraction=0.1 hold-out of the "
                                         r"10001 rows \(1001 rows\) would not hold about 10 rows of each class"):
        model = PushBoost(n_iter=3, random_state=0).fit(X, y)
    assert model.stop_reason_ == NO_VALIDATION == "no_validation_split" and NO_VALIDATION in STOP_REASONS
    assert model.n_iter_ == 3 and not hasattr(model, "validation_scores_")
    np.testing.assert_array_equal(model.alphas_, PushBoost(n_iter=3, early_stopping=False,
                                                           random_state=0).fit(X, y).alphas_)
    # a larger hold-out validates
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hasattr(PushBoost(n_iter=3, validation_fraction=0.3, random_state=0).fit(X, y), "validation_scores_")
    # the fallback model is saved and loaded like any other
    from rankcore.persistence import model_from_dict, model_to_dict

    assert model_from_dict(model_to_dict(model)).stop_reason_ == "no_validation_split"


def test_auto_fits_are_deterministic_given_random_state():
    X, y = _data(AUTO_MIN_ROWS + 500, seed=12)
    kw = dict(learner="trees:max_leaves=4", n_iter=6)
    a, b = (PushBoost(**kw, random_state=4).fit(X, y) for _ in range(2))
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.validation_scores_, b.validation_scores_)
    c = PushBoost(**kw, random_state=5).fit(X, y)
    assert not np.array_equal(a.validation_scores_, c.validation_scores_)      # another hold-out


def test_a_large_data_model_saves_and_loads(tmp_path):
    X, y = _data(AUTO_MIN_ROWS + 1, seed=13)
    model = PushBoost(learner="trees", n_iter=None, n_iter_no_change=1, random_state=0).fit(X, y)
    assert model.learner_spec_ != "trees"
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    again = rankcore.load_model(path)
    np.testing.assert_array_equal(again.decision_function(X[:100]), model.decision_function(X[:100]))
    assert again.learner_spec_ == model.learner_spec_
    # a learner the parameters cannot have produced is refused
    from rankcore.persistence import ModelFormatError, _checksum, model_from_dict

    doc = json.loads(path.read_text())
    doc["state"]["learner"] = "trees:62,0.2"
    doc["sha256"] = _checksum({k: v for k, v in doc.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match=r"learner 'trees:62,0.2' does not match the parameters"):
        model_from_dict(doc)
    doc = json.loads(path.read_text())          # more iterations than the large-data cap
    doc["params"]["n_iter"] = model.n_iter_ - 1
    doc["sha256"] = _checksum({k: v for k, v in doc.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match=r"iterations stored, but at most"):
        model_from_dict(doc)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, message", [
    ({"validation_fraction": 0.0}, r"validation_fraction: expected a number in \(0, 1\), got 0.0"),
    ({"validation_fraction": 1.0}, r"validation_fraction: expected a number in \(0, 1\), got 1.0"),
    ({"validation_fraction": -0.2}, r"validation_fraction: expected a number in \(0, 1\), got -0.2"),
    ({"validation_fraction": float("nan")}, r"validation_fraction: expected a number in \(0, 1\), got nan"),
    ({"validation_fraction": "0.1"}, r"validation_fraction: expected a number in \(0, 1\), got '0.1'"),
    ({"n_iter_no_change": 0}, r"n_iter_no_change: expected an integer >= 1, got 0"),
    ({"n_iter_no_change": -3}, r"n_iter_no_change: expected an integer >= 1, got -3"),
    ({"n_iter_no_change": 2.5}, r"n_iter_no_change: expected an integer >= 1, got 2.5"),
    ({"n_iter_no_change": True}, r"n_iter_no_change: expected an integer >= 1, got True"),
    ({"tol": -1e-3}, r"tol: expected a finite number >= 0, got -0.001"),
    ({"tol": float("inf")}, r"tol: expected a finite number >= 0, got inf"),
    ({"tol": "small"}, r"tol: expected a finite number >= 0, got 'small'"),
    ({"early_stopping": "on"}, r"early_stopping: expected True, False or 'auto', got 'on'"),
    ({"early_stopping": None}, r"early_stopping: expected True, False or 'auto', got None"),
    ({"n_iter": 0}, r"n_iter: expected an integer in \[1, 2147483647\], got 0"),
])
@pytest.mark.parametrize("estimator", ["PushBoost", "PNormPush", "RankBoost"])
def test_bad_early_stopping_parameters_name_the_parameter(estimator, kwargs, message):
    X, y = _data(60, seed=14)
    with pytest.raises(ValueError, match=message):
        getattr(rankcore, estimator)(**kwargs).fit(X, y)


def test_cli_reports_the_fallback_and_knows_when_auto_steers():
    from rankcore.cli._models import _early_stopping_on, stop_summary

    model = PushBoost()
    model.stop_reason_, model.n_iter_ = NO_VALIDATION, 100
    assert stop_summary(model) == ("stopped: no_validation_split (n_iter reached; early_stopping='auto' had too "
                                    "few rows of a class for a validation split) after 100 iterations")
    assert not _early_stopping_on(PushBoost(), np.zeros(AUTO_MIN_ROWS))
    assert _early_stopping_on(PushBoost(), np.zeros(AUTO_MIN_ROWS + 1))
    assert _early_stopping_on(PushBoost(early_stopping=True), np.zeros(10))
    assert not _early_stopping_on(PushBoost(early_stopping=False), np.zeros(10**6))
