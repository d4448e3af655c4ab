"""A fit that the cap ``max_delta_step`` ends names the cap, not convergence.

When the fit would stop as converged -- the tree's derivative within ``tol``, or no step along it lowering the
objective -- and the cap clamped every leaf value the tree moves a score by, the tree is the cap times a sign per
leaf: the cap ended the fit; so it did when it clamped some of them and the tree without the cap would have gone
on.  It stops with ``stop_reason_ = "no_split"`` and a warning naming ``max_delta_step``
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


def test_the_account_without_the_uncapped_derivative_names_only_a_cap_on_every_moving_leaf():
    cap = 1e-20
    assert capped_stall_reason(np.array([cap, -cap, cap]), cap, -3e-20, 1e-12).startswith(
        "the cap max_delta_step=1e-20 clamped every leaf value of this tree to +-1e-20")
    # a leaf at 0 (no gradient there) moves no score: the others decide
    assert "clamped every nonzero leaf value" in capped_stall_reason(np.array([cap, 0.0, -cap]), cap, -2e-20, 1e-12)
    assert "no step along it lowers the objective" in capped_stall_reason(np.array([-cap]), cap)
    # a free leaf that moves scores, the uncapped tree unknown: the gradient itself is that small, a converged fit
    assert capped_stall_reason(np.array([cap, 0.3 * cap]), cap, -1e-20, 1e-12) is None
    assert capped_stall_reason(np.array([0.5, -0.5]), 0.0, -1e-13, 1e-12) is None         # no cap
    assert capped_stall_reason(np.zeros(3), cap, 0.0, 1e-12) is None                      # nothing moves
    assert capped_stall_reason(np.array([0.2, -0.1]), 0.7, -1e-13, 1e-12) is None         # the cap binds nowhere


# --- the hostile re-check: a cap that binds on a fit that converges anyway, and the cap printed as given ---


@pytest.mark.parametrize("spec", ["trees:growth=leafwise", "trees:growth=depthwise", "trees:growth=oblivious",
                                  "trees:growth=oblivious,monotone=1/0/0/0/-1", "trees:monotone=1/0/0/0/-1"])
@pytest.mark.parametrize("tol", [10.0, 1e6])
def test_a_binding_cap_on_a_fit_that_converges_anyway_says_converged(spec, tol):
    """With a tol so large that the uncapped tree is within it too, the cap (binding on every leaf) did not end
    the fit: it converged, as without the cap, and no warning blames the cap (once "raise max_delta_step")."""
    X, y = _data()
    capped, messages = _fit(spec + ",max_delta_step=0.05", X, y, n_iter=5, tol=tol)
    free, free_messages = _fit(spec, X, y, n_iter=5, tol=tol)
    assert free.stop_reason_ == "converged" and free.n_iter_ == 0
    assert capped.stop_reason_ == "converged" and capped.n_iter_ == 0
    assert not any("max_delta_step" in m for m in messages) and messages == free_messages
    # the same cap with the usual tol is not within it: the fit goes on (a step of the cap, not a stall)
    going, messages = _fit(spec + ",max_delta_step=0.05", X, y, n_iter=5)
    assert going.n_iter_ == 5 and going.stop_reason_ == "n_iter" and messages == []


def test_the_uncapped_derivative_decides_only_on_the_tol_rule():
    cap = 0.05
    values = np.array([cap, -cap, cap])
    # the tree's own derivative and its uncapped one both within tol: converged, whatever the cap
    assert capped_stall_reason(values, cap, -0.12, 10.0, uncapped=-3.5) is None
    # the uncapped tree would not stop: the cap did
    assert capped_stall_reason(values, cap, -0.12, 1.0, uncapped=-3.5).startswith("the cap max_delta_step=0.05")
    assert capped_stall_reason(values, cap, -0.12, 1.0, uncapped=-np.inf) is not None   # a leaf without curvature
    # unknown (a layout that does not record it): the cap is named as before
    assert capped_stall_reason(values, cap, -0.12, 10.0) is not None
    # no step along it lowers J: the line search's rule, not tol's (the uncapped one is not asked)
    assert capped_stall_reason(values, cap, None, None, uncapped=-1e-30) is not None


def test_a_cap_on_some_leaves_is_named_when_the_uncapped_tree_would_go_on():
    cap = 0.05
    values = np.array([cap, -0.02, -cap, 0.0])
    assert capped_stall_reason(values, cap, -0.4, 0.5, uncapped=-0.9) == (
        "the cap max_delta_step=0.05 clamped 2 of the 3 nonzero leaf values of this tree to +-0.05, too small a "
        "step to go on (its derivative -0.4 is within tol = 0.5, without the cap it would be -0.9): raise "
        "max_delta_step, or set it to 0 (no cap)")
    assert capped_stall_reason(values, cap, -0.4, 0.5, uncapped=-0.45) is None     # converged without it too
    assert capped_stall_reason(values, cap, -0.4, 0.5) is None                      # unknown: converged
    # a leaf-wise or depth-wise tree under monotone constraints: its uncapped derivative overstates the tree
    assert capped_stall_reason(values, cap, -0.4, 0.5, uncapped=-0.9, uncapped_exact=False) is None
    assert capped_stall_reason(np.array([cap, -cap]), cap, -0.4, 0.5, uncapped=-0.9, uncapped_exact=False) \
        is not None                                     # on every moving leaf the cap is named all the same
    assert capped_stall_reason(values, cap, None, None, uncapped=-0.9) is None      # the line search's rule
    assert capped_stall_reason(np.array([0.02, -0.01]), cap, -0.4, 0.5, uncapped=-0.9) is None   # none clamped


@pytest.mark.parametrize("growth", GROWTHS)
def test_a_fit_stalled_by_a_cap_on_some_leaves_names_it(growth, monkeypatch):
    """The cap at the median |leaf value| of the first uncapped tree clamps some leaves of the first capped tree;
    a tol between that tree's derivative and its uncapped one stops the capped fit on it, naming the cap, where
    the fit without the cap goes on.  The trees, steps and scores are the converged fit's."""
    X, y = _data()
    first = rankcore.boost(learner=f"trees:growth={growth}", random_state=0, n_iter=1).fit(X, y).rankers_[0]
    leaves = np.abs(first.value[first.left < 0] if hasattr(first, "left") else first.value)
    cap = float(np.median(leaves[leaves != 0]))
    seen = []
    spied = driver._stalled_by_learner
    monkeypatch.setattr(driver, "_stalled_by_learner", lambda backend, layout, result, iteration, ranker, *args: (
        seen.append((args[0], ranker.uncapped_derivative)), spied(backend, layout, result, iteration, ranker, *args)))
    spec = f"trees:growth={growth},max_delta_step={cap!r}"
    converged, messages = _fit(spec, X, y, n_iter=3, tol=1e6)         # both within tol: converged, unnamed
    assert converged.stop_reason_ == "converged" and messages and "max_delta_step" not in messages[0]
    (derivative, uncapped), = seen
    assert 0 < abs(derivative) < abs(uncapped)
    tol = float(np.sqrt(derivative * uncapped))
    named, messages = _fit(spec, X, y, n_iter=3, tol=tol)
    assert named.stop_reason_ == "no_split" and named.n_iter_ == 0 and len(messages) == 1
    clamped = re.search(r"clamped (\d+) of the (\d+) nonzero leaf values of this tree", messages[0])
    assert clamped and 0 < int(clamped[1]) < int(clamped[2]), messages[0]
    assert f"within tol = {tol:g}, without the cap it would be {uncapped:.3g}" in messages[0]
    free, messages = _fit(f"trees:growth={growth}", X, y, n_iter=3, tol=tol)
    assert free.n_iter_ == 3 and free.stop_reason_ == "n_iter" and messages == []
    if growth != "oblivious":          # under monotone constraints the account leaves it converged
        monotone, messages = _fit(spec + ",monotone=1/0/0/0/0", X, y, n_iter=3, tol=tol)
        assert monotone.stop_reason_ in ("converged", "n_iter") and "max_delta_step" not in " ".join(messages)


@pytest.mark.parametrize("cap", ["1.2345678901e-15", "2.2250738585072014e-308", "7.000000000000001e-20"])
def test_the_cap_is_printed_with_every_digit(cap):
    """The warning names the cap the user gave, not six digits of it (2.22507e-308 would read as a subnormal)."""
    X, y = _data()
    model, messages = _fit(f"trees:max_delta_step={cap}", X, y, n_iter=4)
    assert model.stop_reason_ == "no_split" and len(messages) == 1
    assert f"the cap max_delta_step={float(cap)!r} clamped every leaf value of this tree to +-{float(cap)!r}," \
        in messages[0], messages[0]
    assert capped_stall_reason(np.array([float(cap)]), float(cap)).startswith(
        f"the cap max_delta_step={float(cap)!r} clamped")


def _leaf_sums(ranker, X, g, h):
    """Σg and Σh over the rows of each leaf (cell) of ``ranker``, in NumPy, for the leaves holding rows."""
    leaf = rankcore.learners.trees.Trees.leaves([ranker], X)[:, 0]
    size = ranker.value.shape[0]
    held = np.unique(leaf)
    return np.bincount(leaf, g, minlength=size)[held], np.bincount(leaf, h, minlength=size)[held]


@pytest.mark.parametrize("spec", [
    "trees:growth=leafwise,max_leaves=8,min_samples_leaf=5,subsample=1,l2=0.5",
    "trees:growth=depthwise,max_depth=3,min_samples_leaf=5,subsample=1,l2=0.5",
    "trees:growth=oblivious,max_depth=3,min_samples_leaf=1,min_child_weight=0,subsample=1,l2=0.5",
])
@pytest.mark.parametrize("batched", [False, True])
def test_a_capped_tree_records_its_uncapped_derivative_on_both_routes(spec, batched):
    """−Σ G²/(H + λ) over the tree's leaves, G and H summed in NumPy over each leaf's rows, on the native grower
    and the multi-pass search alike; a tree without a cap records none."""
    from _tree_references import route_statistics
    from _tree_routes import both_routes

    X, _ = _data(1, n=300)
    gradients, curvatures = route_statistics(X.shape[0], 3, "hessian")
    gradients = [4 * g for g in gradients]                   # Newton values beyond the cap in places
    pairs = both_routes(spec + ",max_delta_step=0.2", X, gradients, curvatures, batched=batched)
    for (native, protocol), g, h in zip(pairs, gradients, curvatures):
        G, H = _leaf_sums(native.ranker, X, g, h)
        expected = -float(np.sum(G * G / (H + 0.5)))
        assert native.ranker.uncapped_derivative == pytest.approx(expected, rel=1e-9)
        assert protocol.ranker.uncapped_derivative == pytest.approx(expected, rel=1e-9)
        assert abs(expected) > abs(native.derivative)          # the cap binds: the clamped step is smaller
    (free, protocol_free), = both_routes(spec, X, gradients[:1], curvatures[:1], batched=batched)
    assert not hasattr(free.ranker, "uncapped_derivative") and not hasattr(protocol_free.ranker,
                                                                            "uncapped_derivative")


@pytest.mark.parametrize("spec", [
    "trees:growth=leafwise,max_leaves=8,min_samples_leaf=5",
    "trees:growth=depthwise,max_depth=3,min_samples_leaf=5,l2=0.5",
    "trees:growth=oblivious,max_depth=3,min_samples_leaf=5,subsample=0.7",
    "trees:growth=oblivious,max_depth=3,min_samples_leaf=5,monotone=1/-1/0/0/0",
])
def test_a_cap_that_binds_nowhere_records_the_trees_own_derivative(spec):
    """Where the cap clamps no leaf, the uncapped derivative is the tree's derivative (an oblivious tree's under
    monotone constraints: its leaves projected onto the order, as the tree's own), on both routes."""
    from _tree_references import route_statistics
    from _tree_routes import both_routes

    X, _ = _data(2, n=300)
    gradients, curvatures = route_statistics(X.shape[0], 3, "hessian")
    for native, protocol in both_routes(spec + ",max_delta_step=1e300", X, gradients, curvatures):
        for candidate in (native, protocol):
            assert candidate.ranker.uncapped_derivative == pytest.approx(candidate.derivative, rel=1e-12)
