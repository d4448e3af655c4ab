"""``trees:max_delta_step`` under hostile use: what a fit that a cap stops says, and values no float holds.

Checked here: the account of a root that the cap leaves unsplit (every gaining split has both sides beyond one
bound: cross-entropy from far initial scores) names ``max_delta_step``, not ``min_samples_leaf``, on both growth
routes; the cap-aware ``free_split_gain`` against the split kernel on random histograms (a capped split gains
without the row and curvature minimums exactly when the kernel finds one); a cap below the smallest normal number
named as the reason no tree moves a score; numbers beyond float's range refused by name.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import rankcore
from rankcore.learners.trees import Trees, _split
from rankcore.learners.trees._block import slot_layout
from rankcore.learners.trees._no_split import free_split_gain
from rankcore.registry import SpecError

TIE = 1e-9


def _far_cross_entropy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    return X, 1 / (1 + np.exp(-X[:, 0])), np.full(400, -8.0)


@pytest.mark.parametrize("spec", ["trees:max_depth=3", "trees:growth=depthwise,max_depth=3",
                                  "trees:max_depth=3,monotone=1/0/0/0", "trees:growth=oblivious,max_depth=3"])
@pytest.mark.parametrize("n_jobs", [1, None])
def test_a_root_the_cap_leaves_unsplit_is_blamed_on_the_cap(spec, n_jobs):
    """From scores far below the labels every leaf's Newton value is beyond +cap: no split changes a score, and
    the warning names the cap, not "lower min_samples_leaf and min_child_weight", which cannot help."""
    X, soft, init = _far_cross_entropy()
    with pytest.warns(UserWarning, match=r"both sides.*max_delta_step=0\.01") as caught:
        model = rankcore.boost(objective="cross-entropy", learner=spec + ",max_delta_step=0.01,line_search=false",
                               n_iter=3, random_state=0, n_jobs=n_jobs).fit(X, soft, init_score=init)
    assert model.stop_reason_ == "no_split"
    assert not any("min_samples_leaf" in str(w.message) for w in caught)
    # without the cap the same data splits (the cap, not the data, stops it): a tree is grown, whose uncapped Newton
    # step (leaves near 1/σ(−8)) raises J far above its start, so it is refused as "diverged" -- what the cap is for
    with pytest.warns(ConvergenceWarning, match=r"iteration 1 \(stop_reason_ = 'diverged'\)") as caught:
        free = rankcore.boost(objective="cross-entropy", learner=spec + ",line_search=false", n_iter=1,
                              random_state=0, n_jobs=n_jobs).fit(X, soft, init_score=init)
    assert free.stop_reason_ == "diverged" and len(caught) == 1


def _histogram(rng, n_edges):
    hist = np.zeros((n_edges + 2, 3))
    hist[:, 0] = np.round(rng.normal(loc=rng.choice([0.0, 4.0, -4.0]), scale=3.0, size=n_edges + 2), 1)
    hist[:, 1] = rng.uniform(0.2, 2.0, n_edges + 2)
    hist[:, 2] = rng.integers(1, 4, n_edges + 2)
    hist[rng.random(n_edges + 2) < 0.2] = 0.0
    hist[-1] = 0.0                      # no NaN rows: free_split_gain sends them right, the kernel tries both sides
    return hist


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.05, 3.0), st.sampled_from([0.0, 1.0]))
def test_the_capped_free_gain_agrees_with_the_kernel(seed, cap, l2):
    """Without min_samples_leaf and min_child_weight, the kernel finds a capped split exactly when
    ``free_split_gain(..., cap)`` says one gains (away from ties at the tolerance)."""
    rng = np.random.default_rng(seed)
    n_edges = 6
    hist = _histogram(rng, n_edges)
    slots = slot_layout(np.array([n_edges]))
    out = np.empty(10)
    found = _split.best_split(hist, slots, np.ones(1, dtype=np.uint8), 1e-300, 0.0, l2, TIE, out, cap=cap)
    if found and out[0] <= 1e-6 * (1 + abs(out[0])):
        return                                          # a gain at rounding size: either answer is right
    assert free_split_gain([hist], np.ones(1, dtype=np.uint8), l2, TIE, cap) == bool(found)
    if found:                                           # a capped gain is an uncapped one too
        assert free_split_gain([hist], np.ones(1, dtype=np.uint8), l2, TIE)


@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
@pytest.mark.parametrize("cap", ["5e-324", "1e-310"])
def test_a_subnormal_cap_is_named_as_why_no_tree_moves_a_score(growth, cap):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0.3).astype(int)
    with pytest.warns(UserWarning, match=r"max_delta_step=.*below the smallest normal number") as caught:
        model = rankcore.boost(learner=f"trees:growth={growth},max_delta_step={cap}", n_iter=3,
                               random_state=0).fit(X, y)
    assert model.n_iter_ == 0 and model.stop_reason_ == "no_split"
    assert not any("lower l2" in str(w.message) for w in caught)


@pytest.mark.parametrize("value", [10**400, Fraction(10**400), -(10**400), 10**5000],
                         ids=["int", "fraction", "neg", "huge"])
def test_numbers_beyond_floats_are_refused_by_name(value):
    """Integers beyond a float (and past Python's 4,300 digits) get the parameter's error, not Python's."""
    with pytest.raises(SpecError, match="max_delta_step must be"):
        Trees(max_delta_step=value)
    # set_params keeps the value (a search scores it as its error_score); fit refuses it by its nested name
    model = rankcore.PushBoost(learner=Trees()).set_params(learner__max_delta_step=value)
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(SpecError, match="^learner__max_delta_step=.*max_delta_step must be"):
        model.fit(X, (X[:, 0] > 0).astype(int))
