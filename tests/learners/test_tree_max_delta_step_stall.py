"""A fit that the cap ``max_delta_step`` ends names the cap, not convergence.

When the fit would stop as converged -- the tree's derivative within ``tol``, or no step along it lowering the
objective -- and the cap clamped every leaf value the tree moves a score by, the tree is the cap times a sign per
leaf: the cap ended the fit.  It stops with ``stop_reason_ = "no_split"`` and a warning naming ``max_delta_step``
and what to change; the trees, steps and scores are those of the fit that stopped as converged.
"""

import re
import warnings

import numpy as np
import pytest

import rankcore
import rankcore.push._driver as driver
from rankcore.learners.trees._layout import TreeLayout
from rankcore.learners.trees._no_split import capped_stall_reason
from rankcore.objectives import LineSearchResult

GROWTHS = ["leafwise", "depthwise", "oblivious"]
CAP_WARNING = (r"boosting stopped at iteration {it} \(stop_reason_ = 'no_split'\): the cap max_delta_step={cap} "
               r"clamped every leaf value of this tree to \+-{cap}, too small a step to go on \({how}\): raise "
               r"max_delta_step, or set it to 0 \(no cap\); {model}")


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + rng.normal(size=n) > 0.5).astype(int)
    return X, y


def _fit(spec, X, y, **params):
    fit = params.pop("fit", {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner=spec, random_state=0, **params).fit(X, y, **fit)
    return model, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("growth", GROWTHS)
@pytest.mark.parametrize("cap", ["1e-300", "1e-20"])
def test_a_tiny_cap_names_itself(growth, cap):
    X, y = _data()
    model, messages = _fit(f"trees:growth={growth},max_delta_step={cap}", X, y, n_iter=10)
    assert model.n_iter_ == 0 and model.stop_reason_ == "no_split"
    assert len(messages) == 1, messages
    how = r"its derivative -?[0-9.e+-]+ is within tol = 1e-12"
    assert re.fullmatch(CAP_WARNING.format(it=1, cap=cap, how=how, model="the model is constant"), messages[0]), \
        messages[0]
    assert "boosting added no weak ranker" not in messages[0]


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_a_tiny_cap_names_itself_within_queries(growth):
    X, _ = _data()
    rng = np.random.default_rng(1)
    grades, qid = rng.integers(0, 3, X.shape[0]), np.repeat(np.arange(40), 10)
    model, messages = _fit(f"trees:growth={growth},max_delta_step=1e-30", X, grades, n_iter=5, fit={"qid": qid})
    assert model.stop_reason_ == "no_split" and model.n_iter_ == 0
    assert len(messages) == 1 and "the cap max_delta_step=1e-30 clamped every" in messages[0]


@pytest.mark.parametrize("growth", GROWTHS)
def test_the_trees_and_scores_are_the_fit_that_stopped_as_converged(growth, monkeypatch):
    """A cap of 6e-13: twelve trees move the scores, then the capped step's derivative falls within tol."""
    X, y = _data()
    spec = f"trees:growth={growth},max_delta_step=6e-13"
    named, messages = _fit(spec, X, y, n_iter=60)
    assert named.stop_reason_ == "no_split" and named.n_iter_ == 12
    how = r"its derivative -?[0-9.e+-]+ is within tol = 1e-12"
    assert len(messages) == 1 and re.fullmatch(CAP_WARNING.format(
        it=13, cap="6e-13", how=how, model=r"the model keeps the 12 iteration\(s\) before it"), messages[0]), messages
    monkeypatch.setattr(TreeLayout, "stalled_reason", lambda self, *args: None)      # the rule before it
    plain, messages = _fit(spec, X, y, n_iter=60)
    assert plain.stop_reason_ == "converged" and messages == []
    assert [r.to_state() for r in named.rankers_] == [r.to_state() for r in plain.rankers_]
    np.testing.assert_array_equal(named.alphas_, plain.alphas_)
    np.testing.assert_array_equal(named.objective_values_, plain.objective_values_)
    np.testing.assert_array_equal(named.decision_function(X), plain.decision_function(X))


@pytest.mark.parametrize("growth", GROWTHS)
def test_a_line_search_that_finds_no_step_along_a_capped_tree_names_the_cap(growth, monkeypatch):
    X, y = _data()
    monkeypatch.setattr(driver, "_minimize_line", lambda phi, log_value, max_step: LineSearchResult(
        0.0, 0.0, 1, "no_decrease"))
    capped, messages = _fit(f"trees:growth={growth},max_delta_step=1e-6", X, y, n_iter=5)
    assert capped.stop_reason_ == "no_split" and capped.n_iter_ == 0
    assert len(messages) == 1 and "clamped every leaf value of this tree to +-1e-06, too small a step to go on " \
        "(no step along it lowers the objective): raise max_delta_step" in messages[0], messages
    free, messages = _fit(f"trees:growth={growth}", X, y, n_iter=5)      # no cap: converged, as before
    assert free.stop_reason_ == "converged" and free.n_iter_ == 0
    assert len(messages) == 1 and messages[0].startswith("boosting added no weak ranker (stop_reason_ = 'converged')")


@pytest.mark.parametrize("growth", GROWTHS)
def test_a_cap_that_binds_nowhere_leaves_convergence_alone(growth):
    X, y = _data()
    for spec in (f"trees:growth={growth},max_delta_step=1e6", f"trees:growth={growth}"):
        model, messages = _fit(spec, X, y, n_iter=5, tol=1e6)       # every tree within tol
        assert model.stop_reason_ == "converged" and model.n_iter_ == 0
        assert len(messages) == 1 and "max_delta_step" not in messages[0]


def test_the_account_names_the_cap_only_when_it_holds_every_moving_leaf():
    cap = 1e-20
    assert capped_stall_reason(np.array([cap, -cap, cap]), cap, -3e-20, 1e-12).startswith(
        "the cap max_delta_step=1e-20 clamped every leaf value of this tree to +-1e-20")
    # a leaf at 0 (no gradient there) moves no score: the others decide
    assert "clamped every nonzero leaf value" in capped_stall_reason(np.array([cap, 0.0, -cap]), cap, -2e-20, 1e-12)
    assert "no step along it lowers the objective" in capped_stall_reason(np.array([-cap]), cap)
    # a free leaf that moves scores: the gradient itself is that small, a converged fit
    assert capped_stall_reason(np.array([cap, 0.3 * cap]), cap, -1e-20, 1e-12) is None
    assert capped_stall_reason(np.array([0.5, -0.5]), 0.0, -1e-13, 1e-12) is None         # no cap
    assert capped_stall_reason(np.zeros(3), cap, 0.0, 1e-12) is None                      # nothing moves
    assert capped_stall_reason(np.array([0.2, -0.1]), 0.7, -1e-13, 1e-12) is None         # the cap binds nowhere
