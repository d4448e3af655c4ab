"""The push objective: log-space value and gradient, exp path vs pairwise path, blocks, extremes."""

import math

import numpy as np
import pytest

from rankcore.objectives import PushObjective, RowBlock
from rankcore.objectives._exp_push import BoundExpPush
from rankcore.objectives._push import BoundPairwisePush
from rankcore.registry import resolve
from rankcore.spec import SpecError
from rankcore.testing import check_component

SPECS = ["push:exp,identity", "push:exp,pow:4", "push:exp,pow:64", "push:exp,exp:0.3", "push:logistic,pow:2",
         "push:hinge,identity", "push:hinge,pow:3", "push:sqhinge,exp:0.2"]


def _data(seed=0, n=40):
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, n // 3, replace=False)] = 1
    return y, rng.normal(size=n), rng.uniform(0.5, 2.0, n), rng.uniform(0, 1, n)


def _explicit(objective, y, f, w):
    """log Σ_k v_k g(Σ_i w_i ℓ(f_i − f_k)) with every pair formed (small data)."""
    loss, price = objective.loss_component, objective.price_component
    pos, neg = y == 1, y == 0
    z = f[pos][None, :] - f[neg][:, None]
    L = (w[pos][None, :] * loss.value(z)).sum(axis=1)
    with np.errstate(divide="ignore"):
        return float(np.logaddexp.reduce(np.log(w[neg]) + price.log_value(np.log(L))))


@pytest.mark.parametrize("spec", SPECS)
def test_value_matches_explicit_pairs(spec):
    objective = resolve("objective", spec)
    y, f, w, _ = _data()
    assert objective.bind(y, w).value(f) == pytest.approx(_explicit(objective, y, f, w), rel=1e-12)
    assert objective(y, f, w) == pytest.approx(_explicit(objective, y, f, w), rel=1e-12)


@pytest.mark.parametrize("spec", [s for s in SPECS if ":exp," in s])
def test_exp_log_space_path_equals_pairwise_path(spec):
    objective = resolve("objective", spec)
    y, f, w, h = _data(1)
    fast = objective.bind(y, w)
    slow = BoundPairwisePush(objective, y, w, objective.loss_component, objective.price_component)
    assert isinstance(fast, BoundExpPush)
    v1, g1 = fast.value_and_gradient(f)
    v2, g2 = slow.value_and_gradient(f)
    assert v1 == pytest.approx(v2, rel=1e-13)
    np.testing.assert_allclose(g1, g2, rtol=1e-11, atol=1e-15)
    for alpha in (0.0, 0.7, -1.3):
        a, b = fast.line(f, h)(alpha), slow.line(f, h)(alpha)
        assert a.value == pytest.approx(b.value, rel=1e-13)
        assert a.d1 == pytest.approx(b.d1, rel=1e-10, abs=1e-14)
        assert a.d2 == pytest.approx(b.d2, rel=1e-9, abs=1e-12)


def test_pow64_stays_finite_at_extreme_scores():
    """Scores that would overflow exp(64·f) in linear space give a finite log objective and gradient."""
    objective = resolve("objective", "push:exp,pow:64")
    y, _, _, _ = _data(2)
    f = np.where(y == 0, 50.0, -50.0) + np.linspace(0, 1, y.shape[0])
    value, grad = objective.bind(y).value_and_gradient(f)
    assert math.isfinite(value) and value > 700                    # R itself is e^{>700}: not representable
    assert np.isfinite(grad).all()
    assert abs(grad.sum()) < 1e-10 * np.abs(grad).max()          # shift invariance: Σ ∂J/∂f = 0


def test_gradient_sums_to_zero_for_every_push_objective():
    y, f, w, _ = _data(3)
    for spec in SPECS:
        grad = resolve("objective", spec).bind(y, w).value_and_gradient(f)[1]
        assert abs(grad.sum()) <= 1e-12 * np.abs(grad).sum(), spec


def test_hinge_objective_reaches_zero():
    """Positives above every negative by more than the margin: R = 0, J = −inf, zero gradient, flat line."""
    objective = resolve("objective", "push:hinge,pow:2")
    y = np.array([1, 1, 0, 0], dtype=np.int8)
    f = np.array([5.0, 6.0, 0.0, 1.0])
    value, grad = objective.bind(y).value_and_gradient(f)
    assert value == -math.inf
    np.testing.assert_array_equal(grad, 0.0)
    point = objective.bind(y).line(f, np.array([1.0, 0.0, 0.0, 0.0]))(0.5)
    assert point.value == -math.inf and point.d1 == 0.0


def test_blocks_equal_one_block_including_a_block_without_positives():
    objective = resolve("objective", "push:exp,pow:4")
    y, f, w, h = _data(4, n=60)
    order = np.argsort(y, kind="stable")
    y, f, w, h = y[order], f[order], w[order], h[order]
    bound = objective.bind(y, w)
    cuts = [0, 10, 11, 44, 60]
    blocks = [RowBlock(y[a:b], w[a:b], f[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    assert blocks[0].y.sum() == 0
    G = bound.reduce(blocks)
    value, grad = bound.value_and_gradient(f)
    assert bound.finish(G).value == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(np.concatenate([bound.block_gradient(b, G) for b in blocks]), grad, rtol=1e-13)


def test_stages_after_step_equal_a_fresh_reduction():
    objective = resolve("objective", "push:exp,pow:3")
    y, f, w, h = _data(5)
    h = np.round(h)
    bound = objective.bind(y, w)
    block = RowBlock(y, w, f)
    G = bound.reduce([block])
    grad = bound.block_gradient(block, G)
    values = np.array([0.0, 1.0])
    from_grad = bound.block_line_summary(block, h, values, G, gradient=grad)
    from_scores = bound.block_line_summary(block, h, values, G)
    np.testing.assert_allclose(from_grad, from_scores, rtol=1e-13)
    G_next = bound.stages_after_step(from_grad, values, G, 0.8)
    fresh = bound.reduce([RowBlock(y, w, f + 0.8 * h)])
    np.testing.assert_allclose(G_next[0][[0, 3]], fresh[0][[0, 3]], rtol=1e-13)


def test_stages_after_a_step_the_summary_cannot_describe_are_summed_again():
    """A summary built from the gradient loses the rows whose weight underflowed; a step that moves the
    exponents apart by more than EXACT_SHIFT could make them dominate, so the next stages come from the rows."""
    from rankcore.objectives._exp_push import EXACT_SHIFT

    objective = resolve("objective", "push:exp,pow:2")
    y = np.array([1, 1, 1, 0, 0, 0], dtype=np.int8)
    f = np.array([900.0, 905.0, 910.0, 0.0, 1.0, -900.0])        # separated: the last negative's weight underflows
    w = np.ones(6)
    h = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])                  # ... and the direction raises it alone
    bound = objective.bind(y, w)
    block = RowBlock(y, w, f)
    G = bound.reduce([block])
    values = np.array([0.0, 1.0])
    summary = bound.block_line_summary(block, h, values, G, gradient=bound.block_gradient(block, G))
    assert summary[1, 1] == -np.inf                                # that row is lost to the summary
    small = 0.5 * EXACT_SHIFT / 2.0                                 # d·r·α·spread below the bound: read from it
    np.testing.assert_allclose(bound.stages_after_step(summary, values, G, small)[0][[0, 3]],
                               bound.reduce([RowBlock(y, w, f + small * h)])[0][[0, 3]], rtol=1e-12)
    large = 1000.0                                                  # the row now leads the negatives
    assert bound.stages_after_step(summary, values, G, large) is None
    fresh = bound.reduce([RowBlock(y, w, f + large * h)])
    assert fresh[0][3] == pytest.approx(2.0 * 100.0, rel=1e-9)      # LSE of 2·f over the negatives: 2·(−900 + 1000)


def test_a_line_read_from_the_gradient_is_built_again_from_the_scores_for_a_long_step():
    """The line the summary of the gradient gives misses a row whose weight underflowed: along a long step it
    claims a lower objective than the true one. ``CheckedLine`` keeps a minimizer within the summary's exact
    range and searches a longer one again on the line built from the scores."""
    from rankcore.objectives import CheckedLine

    objective = resolve("objective", "push:exp,pow:2")
    y = np.array([1, 1, 1, 0, 0, 0], dtype=np.int8)
    f = np.array([900.0, 905.0, 910.0, 0.0, 1.0, -900.0])
    w = np.ones(6)
    h = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    bound = objective.bind(y, w)
    block = RowBlock(y, w, f)
    G = bound.reduce([block])
    values = np.array([0.0, 1.0])
    lossy = bound.line_from_summary(bound.block_line_summary(block, h, values, G,
                                                             gradient=bound.block_gradient(block, G)), values, G)
    exact = bound.line_from_summary(bound.block_line_summary(block, h, values, G), values, G)

    def true_value(alpha):
        return bound.finish(bound.reduce([RowBlock(y, w, f + alpha * h)])).value

    assert lossy(1000.0).value < true_value(1000.0) - 100        # the lossy line is far below the truth there
    assert exact(1000.0).value == pytest.approx(true_value(1000.0), rel=1e-12)
    limit = bound.gradient_summary_step_limit(values)
    assert limit == pytest.approx(600.0 / 2.0)                   # EXACT_SHIFT / (d · r · spread)
    built = []
    checked = CheckedLine(lossy, limit, lambda: built.append(1) or exact)
    assert checked(0.5 * limit).value == lossy(0.5 * limit).value and not built
    assert checked(1000.0).value == exact(1000.0).value and built == [1]
    # here the step raises the lower-weight row, so any step raises φ: the true search takes none
    result = CheckedLine(lossy, limit, lambda: exact).minimize(1e4)
    assert result.value <= bound.finish(G).value
    assert result.value == pytest.approx(true_value(result.alpha), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("learner", ["stumps", "trees:max_depth=1,min_samples_leaf=1,subsample=1"])
@pytest.mark.parametrize("p", [1, 4, 64])
def test_boosting_on_tiny_separable_data_never_raises_the_objective(learner, p):
    """Ten rows the stumps separate: the searches reach the driver's cap, where the line read from the gradient
    misses rows whose weight underflowed and can claim a decrease the step does not make (here at p = 4)."""
    import warnings

    import rankcore

    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 3))
    y = (rng.random(10) < 0.4).astype(int)
    y[0], y[-1] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rankcore.PNormPush(p=p, learner=learner, n_iter=20, random_state=0).fit(X, y)
    values = model.objective_values_
    assert np.all(np.diff(values) <= 1e-9 * np.maximum(1.0, np.abs(values[1:])))


def test_boosting_on_separable_rows_keeps_finite_gradients():
    """Steps reach the driver's cap on separable rows; every gradient the trees see stays finite."""
    import warnings

    import rankcore
    from rankcore.push import _backend

    seen = []
    original = _backend.InMemoryBackend.gradient_and_curvature

    def recording(self, state):
        grads, hess = original(self, state)
        seen.append(all(np.isfinite(g).all() for g in grads) and all(np.isfinite(c).all() for c in hess))
        return grads, hess

    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] + 0.1 * X[:, 1] > 0).astype(int)
    _backend.InMemoryBackend.gradient_and_curvature = recording
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("error", RuntimeWarning)
            model = rankcore.boost(learner="trees", random_state=0, n_jobs=1).fit(X, y)
    finally:
        _backend.InMemoryBackend.gradient_and_curvature = original
    assert max(model.alphas_) >= 999.0 and seen and all(seen)
    assert np.isfinite(model.decision_function(X)).all()


def test_sample_weights_are_multiplicities():
    objective = resolve("objective", "push:hinge,pow:2")
    y, f, _, _ = _data(6, n=12)
    counts = np.array([1, 2, 3] * 4, dtype=float)
    rep = np.repeat(np.arange(12), counts.astype(int))
    assert objective(y, f, counts) == pytest.approx(objective(y[rep], f[rep]), rel=1e-12)


def test_push_objective_specs_and_errors():
    obj = resolve("objective", "push:exp,pow:4.0")
    assert obj.spec == "push:exp,pow:4"
    assert obj.loss_component.name == "exp" and obj.price_component.p == 4.0
    assert resolve("objective", "push") == PushObjective(loss="exp", price="identity")
    with pytest.raises(SpecError, match="unknown loss 'nope'"):
        resolve("objective", "push:nope,pow:2")
    with pytest.raises(SpecError, match=r"p must be a number >= 1"):
        resolve("objective", "push:exp,pow:0.5")
    with pytest.raises(ValueError, match="needs positive total weight in both classes"):
        obj.check_target(np.array([1, 1, 0], dtype=np.int8), np.array([1.0, 1.0, 0.0]))


@pytest.mark.parametrize("spec", PushObjective.examples)
def test_push_objective_contract(spec):
    check_component("objective", spec)
