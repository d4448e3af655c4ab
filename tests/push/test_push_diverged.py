"""A step that leaves the objective above its start stops the fit as ``"diverged"``, never as converged.

The trees take the line search's step times their learning rate (or, without a line search, their Newton step
times it), so a learning rate well above 1 overshoots the minimum along each tree.  Before the stop, such a fit
climbed at every tree and ended "converged" (the single list: J from 15.3 to 2.7e7 at learning_rate=1000, a model
ranking worse than it started) or ran on to "overflow" (within queries).  Now the first step that leaves J above
its start J_0 (the model before any step: zeros, init_score or init_model) is not taken, the fit stops with
``stop_reason_ == "diverged"`` and a ``ConvergenceWarning`` naming the learning rate; a rise that stays below J_0
(a Newton step's ordinary non-monotone one) is left alone.
"""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import rankcore
from rankcore.learners._base import Candidate
from rankcore.learners._features import FeatureRanker
from rankcore.persistence import load_model, save_model
from rankcore.push import _driver
from rankcore.push._driver import DIVERGENCE_RTOL, _above_start, run_boosting

DIVERGED = r"\(stop_reason_ = 'diverged'\)"


def _single(n=500, seed=0):
    """The report's data: 500 rows, 5 features, a rare positive class from the first feature."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X, (X[:, 0] + rng.normal(size=n) > 1).astype(int)


def _queries(n_queries=30, rows=10, seed=0):
    rng = np.random.default_rng(seed)
    n = n_queries * rows
    X = rng.normal(size=(n, 5))
    grades = np.clip(np.round(X[:, 0] + rng.normal(size=n) + 1), 0, 3).astype(int)
    return X, grades, np.repeat(np.arange(n_queries), rows)


def _clicks():
    X, _, qid = _queries()
    position = np.tile(np.arange(10), 30)
    clicks = (np.random.default_rng(2).random(300) < 0.3 / (1 + position)).astype(int)
    return X, clicks, qid, position


def _at_most_start(model):
    values = np.asarray(model.objective_values_, dtype=np.float64)
    return bool(np.all(values[1:] - values[0] <= DIVERGENCE_RTOL * max(1.0, abs(values[0]))))


# ----------------------------------------------------------------------------
# The report's fits
# ----------------------------------------------------------------------------
def test_the_single_list_at_learning_rate_1000_stops_diverged_with_a_warning_naming_it():
    X, y = _single()
    with pytest.warns(ConvergenceWarning, match=r"iteration 1 " + DIVERGED + r".*learning_rate=1000") as caught:
        model = rankcore.boost(learner="trees:learning_rate=1000", n_iter=50, random_state=0).fit(X, y)
    # before: objective_values_ [15.27, 3694.7, 1.52e6, ...], stop_reason_ "converged"
    assert model.stop_reason_ == "diverged" and model.n_iter_ == 0
    assert _at_most_start(model) and model.objective_values_.shape == (1,)
    message = str(caught[0].message)
    assert "15.27" in message and "3694.68" in message and "not taken" in message
    assert "line search" in message and "the model is constant" in message


def test_the_per_query_default_at_learning_rate_1000_stops_diverged_not_overflow():
    X, grades, qid = _queries()
    with pytest.warns(ConvergenceWarning, match=DIVERGED + r".*Newton step.*learning_rate=1000"):
        model = rankcore.boost(learner="trees:learning_rate=1e3", n_iter=30, random_state=0).fit(X, grades, qid=qid)
    assert model.stop_reason_ == "diverged" and _at_most_start(model)
    assert np.isfinite(model.decision_function(X)).all()


def test_a_later_diverging_step_keeps_the_iterations_before_it():
    # at learning_rate=3 with position effects and a line search the first tree still lowers J; the second does not
    X, clicks, qid, position = _clicks()
    says = r"iteration 2 " + DIVERGED + r".*keeps the 1 iteration\(s\).*position effects take Newton steps.*rate \(3\)"
    with pytest.warns(ConvergenceWarning, match=says):
        model = rankcore.boost(learner="trees:learning_rate=3,line_search=true", n_iter=30, random_state=0,
                               n_jobs=1).fit(X, clicks, qid=qid, position=position)
    assert model.stop_reason_ == "diverged" and model.n_iter_ == 1 and len(model.alphas_) == 1
    assert np.isfinite(model.decision_function(X)).all()


@pytest.mark.parametrize("learner", ["trees:learning_rate=1e3", "trees:learning_rate=1e3,line_search=true"])
def test_position_effects_at_a_huge_rate_stop_at_their_start(learner):
    # before: "overflow" after a few trees, J at 1e5 before the first (the line search's J, at the effects after
    # their first step); the model is the one before any step, its effects the start's
    X, clicks, qid, position = _clicks()
    with pytest.warns(ConvergenceWarning, match=DIVERGED + ".*position effects"):
        model = rankcore.boost(learner=learner, n_iter=30, random_state=0, n_jobs=1).fit(X, clicks, qid=qid,
                                                                                        position=position)
    assert model.stop_reason_ == "diverged" and model.n_iter_ == 0
    np.testing.assert_array_equal(model.position_effects_, np.zeros_like(model.position_effects_))


def test_the_step_not_taken_never_reaches_the_callbacks_or_the_validation_curve():
    # at learning_rate=2.05 the first tree lowers J a little (15.27 to 15.23), the second raises it past 15.27
    X, y = _single()
    X_val, y_val = _single(200, seed=1)
    seen = []

    def callback(info):
        seen.append(info.iteration)

    with pytest.warns(ConvergenceWarning, match=r"iteration 2 " + DIVERGED + r".*keeps the 1 iteration"):
        model = rankcore.boost(learner="trees:learning_rate=2.05", n_iter=20, random_state=0,
                               early_stopping=True).fit(X, y, callbacks=[callback], eval_set=[(X_val, y_val)])
    assert seen == [1] and model.n_iter_ == 1 and model.stop_reason_ == "diverged"
    assert model.validation_scores_.shape == (1,) and _at_most_start(model)


def test_a_continuation_at_a_huge_rate_keeps_the_init_model():
    X, y = _single()
    first = rankcore.boost(learner="trees", n_iter=5, random_state=0).fit(X, y)
    with pytest.warns(ConvergenceWarning, match=DIVERGED + ".*adds nothing to init_model"):
        more = rankcore.boost(learner="trees:learning_rate=1000", n_iter=10, random_state=0).fit(X, y,
                                                                                                 init_model=first)
    assert more.stop_reason_ == "diverged" and more.n_iter_ == first.n_iter_
    np.testing.assert_array_equal(more.decision_function(X), first.decision_function(X))


def test_a_diverged_model_saves_and_loads(tmp_path):
    X, y = _single()
    with pytest.warns(ConvergenceWarning):
        model = rankcore.boost(learner="trees:learning_rate=3,line_search=true", n_iter=30, random_state=0,
                               n_jobs=1).fit(*_clicks()[:2], qid=_clicks()[2], position=_clicks()[3])
    assert model.stop_reason_ == "diverged" and model.n_iter_ >= 1
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.stop_reason_ == "diverged" and loaded.n_iter_ == model.n_iter_
    X = _clicks()[0]
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.objective_values_, model.objective_values_)


# ----------------------------------------------------------------------------
# Ordinary rates are unchanged, bit for bit
# ----------------------------------------------------------------------------
def _ordinary_fits():
    X, y = _single(300)
    Xq, grades, qid = _queries()
    Xc, clicks, qc, position = _clicks()
    return [
        (dict(learner="trees"), (X, y), {}),
        (dict(learner="trees:learning_rate=1"), (X, y), {}),
        (dict(learner="stumps", price="pow:4"), (X, y), {}),
        (dict(learner="trees"), (Xq, grades), dict(qid=qid)),
        (dict(learner="trees:line_search=true,learning_rate=0.5"), (Xq, grades), dict(qid=qid)),
        (dict(learner="trees"), (Xc, clicks), dict(qid=qc, position=position)),
        (dict(learner="trees:line_search=true"), (Xc, clicks), dict(qid=qc, position=position)),
    ]


@pytest.mark.parametrize("case", range(7))
def test_fits_at_ordinary_rates_are_the_fits_without_the_stop(monkeypatch, case):
    params, args, kwargs = _ordinary_fits()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = rankcore.boost(n_iter=25, random_state=0, n_jobs=1, **params).fit(*args, **kwargs)
    monkeypatch.setattr(_driver, "DIVERGENCE_RTOL", math.inf)          # the stop off: the fit before it
    free = rankcore.boost(n_iter=25, random_state=0, n_jobs=1, **params).fit(*args, **kwargs)
    assert model.stop_reason_ == free.stop_reason_ != "diverged"
    np.testing.assert_array_equal(model.decision_function(args[0]), free.decision_function(args[0]))
    np.testing.assert_array_equal(model.objective_values_, free.objective_values_)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rate=st.floats(min_value=-2.0, max_value=12.0), within_queries=st.booleans(),
       line_search=st.booleans())
def test_for_any_learning_rate_j_never_ends_above_its_start(rate, within_queries, line_search):
    X, grades, qid = _queries(20)
    learner = f"trees:learning_rate={10.0 ** rate:.6g},line_search={str(line_search).lower()}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.boost(learner=learner, n_iter=15, random_state=0, n_jobs=1)
        if within_queries:
            model.fit(X, grades, qid=qid)
        else:
            model.fit(X, (grades >= 2).astype(int))
    assert _at_most_start(model)
    assert np.isfinite(model.decision_function(X)).all()


# ----------------------------------------------------------------------------
# The driver's rule, on a scripted backend
# ----------------------------------------------------------------------------
class _Layout:
    line_search = False           # each step is the ranker's Newton step times the shrinkage
    shrinkage = 0.5

    def select(self, stats):
        return Candidate(FeatureRanker(0, 0.0, 1.0), -1.0)


class _Backend:
    """J = ``values[t]`` after t kept steps; records what :meth:`take_back` was asked."""

    def __init__(self, values):
        self.values, self.steps, self.taken_back = list(values), 0, []

    def objective_state(self):
        return self.steps

    def value(self, state):
        return self.values[state]

    def learner_statistics(self, state):
        return None

    def apply_update(self, ranker, alpha):
        self.steps += 1

    def take_back(self, ranker, alpha):
        self.taken_back.append(alpha)
        self.steps -= 1


def test_a_rise_that_stays_below_the_start_is_left_alone():
    backend = _Backend([10.0, 5.0, 7.0, 4.0, 9.9])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run_boosting(backend, _Layout(), n_iter=4, log_value=False)
    assert result.stop_reason == "n_iter" and [r.value for r in result.records] == [5.0, 7.0, 4.0, 9.9]
    assert backend.taken_back == []


def test_a_step_above_the_start_is_taken_back_and_the_records_end_before_it():
    backend = _Backend([10.0, 5.0, 7.0, 10.5, 1.0])
    with pytest.warns(ConvergenceWarning, match=r"iteration 3 " + DIVERGED + r".*from 10 at the start to 10\.5.*"
                                                r"keeps the 2 iteration\(s\).*learning_rate=0\.5"):
        result = run_boosting(backend, _Layout(), n_iter=4, log_value=False)
    assert result.stop_reason == "diverged" and [r.value for r in result.records] == [5.0, 7.0]
    assert backend.taken_back == [0.5] and backend.steps == 2


def test_an_objective_whose_value_moves_with_the_scores_is_not_compared():
    backend = _Backend([10.0, 11.0, 12.0])
    result = run_boosting(backend, _Layout(), n_iter=2, log_value=False, fixed_value=False)
    assert result.stop_reason == "n_iter" and len(result.records) == 2


@pytest.mark.parametrize("start, value, log_value, above", [
    (10.0, 10.0, False, False),
    (10.0, 10.0 * (1 + 0.5 * DIVERGENCE_RTOL), False, False),     # rounding on a flat start
    (10.0, 10.0 * (1 + 2 * DIVERGENCE_RTOL), False, True),
    (-5.0, -5.0 + 1e-12, False, False),                            # a negative J: relative to |J_0|
    (-5.0, -4.9, False, True),
    (0.0, 1e-300, False, True),                                    # J_0 = 0 (a perfect start): any rise
    (1e-3, 1e-3 + 0.5 * DIVERGENCE_RTOL, True, False),             # log R near 0: the tolerance is on R
    (1e-3, 1e-3 + 2 * DIVERGENCE_RTOL, True, True),
    (-math.inf, 0.0, True, False),                                 # a start of −inf converged already
    (3.0, -math.inf, True, False),
])
def test_above_start_is_relative_to_j0_or_to_r_for_a_log_value(start, value, log_value, above):
    assert _above_start(value, start, log_value) is above


def test_a_diverged_round_of_the_click_model_is_its_own_stop_not_a_callbacks():
    # each EM round's fit diverges at this rate; "diverged" is a fit's own reason, so the rounds go on (a callback's
    # string would stop them after the first)
    X, clicks, qid, position = _clicks()
    with pytest.warns(ConvergenceWarning, match=DIVERGED):
        model = rankcore.boost(learner="trees:learning_rate=1e3", position_bias="em:rounds=3", n_iter=20,
                               random_state=0).fit(X, clicks, qid=qid, position=position)
    assert model.stop_reason_ == "diverged" and model.position_em_rounds_ == 3 and _at_most_start(model)


# ----------------------------------------------------------------------------
# The warning names what can be changed (found by a hostile re-check)
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("learner, queries", [("stumps", (5, 60)),
                                              ("trees:learning_rate=0.1,line_search=true", (30, 10))])
def test_a_searched_step_at_a_rate_of_at_most_1_blames_an_undeclared_moving_objective(monkeypatch, learner, queries):
    # a line search at a learning rate <= 1 never raises a J that is one fixed function of the scores; the push with
    # place discounts reads its weights at each evaluation's scores -- an objective (a plugin's, say) that did not
    # declare fixed_value = False climbs at the first step.  Before: "The step at learning_rate=1 overshot: lower the
    # learning rate below 1." -- advice about a parameter stumps and features do not have, for a cause it is not
    from rankcore.objectives._push import PushObjective

    monkeypatch.setattr(PushObjective, "fixed_value", True)
    X, grades, qid = _queries(*queries)
    with pytest.warns(ConvergenceWarning, match=DIVERGED) as caught:
        model = rankcore.boost(objective="push:exp,identity,discount=sum,truncation=3", learner=learner, n_iter=10,
                               random_state=0).fit(X, grades, qid=qid)
    assert model.stop_reason_ == "diverged"
    message = str(caught[0].message)
    assert "fixed_value" in message and "lower the learning rate" not in message


class _SearchedStumps:
    line_search = True            # stumps, thresholds, features: shrinkage 1, no learning rate to lower
    shrinkage = 1.0


class _SearchedTrees(_SearchedStumps):
    shrinkage = learning_rate = 0.5


class _EffectsBackend:
    learns_position_effects = True


@pytest.mark.parametrize("layout, names_rate", [(_SearchedStumps(), False), (_SearchedTrees(), True)])
def test_position_effects_that_overshoot_under_a_line_search_name_position_l2(layout, names_rate):
    # under a line search at a rate <= 1 only the position effects' own Newton step can leave J above its start:
    # position_l2 shrinks it, for every learner; the learning rate is named only where the learner has one.  On the
    # driver's cause alone: no fit of the sweep climbed there (position_l2 = 1 by default halves the effects' step).
    # Before: "The step at learning_rate=1 overshot; ...: lower the learning rate below 1." for stumps
    cause = _driver._divergence_cause(_EffectsBackend(), layout)
    assert "position_l2" in cause
    assert ("lower the learning rate below 0.5" in cause) is names_rate and "learning rate below 1" not in cause


def test_the_click_model_says_a_rounds_warning_once_not_once_a_round():
    # every EM round is a fit of the same parameters, so each diverges alike: before, ten rounds raised ten
    # ConvergenceWarnings differing only in their numbers (J after the step); now the first, saying how many came
    X, clicks, qid, position = _clicks()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner="trees:learning_rate=1e3", position_bias="em:rounds=4", n_iter=20,
                               random_state=0).fit(X, clicks, qid=qid, position=position)
    diverged = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert model.stop_reason_ == "diverged" and model.position_em_rounds_ == 4
    assert len(diverged) == 1 and re.search(DIVERGED, diverged[0]) and "4 EM rounds" in diverged[0]
    assert caught[0].filename == __file__          # still pointing at the caller's line
