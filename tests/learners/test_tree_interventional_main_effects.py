"""The interventional SHAP interaction values' last step, the kernel ``main_effects``
(``_treeshap_interventional_interactions.pyx``): against the NumPy steps it replaced
(``main_effects_reference``) on random blocks with ties, NaN and edge shapes, and on whole forests (node trees
with categories and NaN sides, oblivious trees, depths 0 and 1, one row, one background row); its invariant; one
thread against two bit for bit; its refusals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from _interventional_interaction_reference import main_effects_reference
from _random_trees import node_trees, oblivious_trees
from rankcore.learners.trees import _interventional_interactions as driver
from rankcore.learners.trees import _treeshap_interventional_interactions as kernel
from rankcore.learners.trees._oblivious_ranker import ObliviousTreeRanker

D = 5
GRID = [-1.0, -0.5, 0.0, 0.5, 1.0, np.nan]
TIES = np.array([-2.0, -0.5, 0.0, 0.0, 0.25, 1.0, 3.0])


def _compare(out, m, n_threads=1):
    """The kernel and the reference on copies of ``out``: everything but the players' diagonal is the same
    division (bit for bit), the diagonal a sum in another order (to rounding); returns the kernel's."""
    got, want = out.copy(), out.copy()
    kernel.main_effects(got, float(m), n_threads)
    main_effects_reference(want, m)
    G = out.shape[1] - 1
    off = ~np.eye(G + 1, dtype=bool)
    off[G, G] = True                                        # the bias entry: left as it is
    np.testing.assert_array_equal(got[:, off], want[:, off])
    scale = np.nanmax(np.abs(want), initial=1.0)
    np.testing.assert_allclose(got[:, ~off], want[:, ~off], rtol=1e-13, atol=1e-14 * scale * max(G, 1))
    return got


@pytest.mark.parametrize("n", [0, 1, 2, 37])
@pytest.mark.parametrize("G", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("m", [1, 3, 100])
def test_the_kernel_matches_the_numpy_steps_on_random_blocks_with_ties(n, G, m):
    rng = np.random.default_rng(n * 1000 + G * 10 + m)
    out = rng.choice(TIES, size=(n, G + 1, G + 1)) * rng.choice([1.0, 1.0, 1e-3, 7.0], size=(n, 1, 1))
    out = out + np.swapaxes(out, 1, 2)                      # symmetric, as the walks leave it
    if n > 1:
        out[1] = rng.normal(size=(G + 1, G + 1)) * 100
    got = _compare(out, m)
    before = out[:, :G, :G] / m
    np.testing.assert_allclose(got[:, :G, :G].sum(axis=2), np.diagonal(before, axis1=1, axis2=2),
                               rtol=1e-12, atol=1e-12 * max(np.abs(out).max(initial=0.0), 1.0) * max(G, 1))


def test_nan_goes_where_the_numpy_steps_put_it():
    """An off-diagonal NaN spoils its row's main effect; a NaN on the diagonal only itself (the driver then
    refuses the result: nothing returns NaN silently)."""
    out = np.arange(2 * 5 * 5, dtype=float).reshape(2, 5, 5)
    out[0, 1, 2] = np.nan
    out[1, 3, 3] = np.nan
    got = _compare(out, 4)
    assert np.isnan(got[0, 1, 1]) and np.isnan(got[1, 3, 3])
    assert np.isnan(got).sum() == 3


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 9)).map(lambda s: (s[0], s[1], s[1])),
                  elements=st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5])), st.integers(1, 5))
def test_each_row_of_the_players_block_sums_to_its_value(out, m):
    """Invariant: after the step, row p of the (G, G) block sums to the divided diagonal entry φ_p."""
    G = out.shape[1] - 1
    phi = np.diagonal(out, axis1=1, axis2=2)[:, :G] / m
    got = _compare(out, m)
    np.testing.assert_allclose(got[:, :G, :G].sum(axis=2), phi, rtol=1e-12, atol=1e-12)


rows = st.lists(st.sampled_from(GRID + [2.0]), min_size=D, max_size=D)
shallow = st.one_of(node_trees(D, max_depth=0), node_trees(D, max_depth=1), oblivious_trees(D, max_depth=1))


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.lists(st.one_of(shallow, node_trees(D)), min_size=1, max_size=3),
                 st.lists(st.one_of(oblivious_trees(D, max_depth=1), oblivious_trees(D)), min_size=1, max_size=3)),
       st.lists(rows, min_size=1, max_size=3), st.lists(rows, min_size=1, max_size=3), st.booleans(),
       st.sampled_from([1, 2]))
def test_forests_with_the_kernel_match_the_numpy_steps(forest, xs, zs, grouped, n_threads):
    """Whole forests (node trees with categorical splits and NaN sides, oblivious ones, one-leaf and one-split
    trees, one row, one background row, players grouped or not) through the driver: the kernel's matrices
    against those the NumPy steps give from the same walks."""
    X, Z = np.array(xs, dtype=float), np.array(zs, dtype=float)
    alphas = np.linspace(0.5, 1.5, len(forest))
    player = np.array([0, 1, 0, 2, 1]) if grouped else None
    got = driver.forest_interventional_interactions(forest, alphas, X, Z, n_threads, player=player)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(driver, "_main_effects", lambda out, m, n_threads: main_effects_reference(out, m))
        want = driver.forest_interventional_interactions(forest, alphas, X, Z, n_threads, player=player)
    G = got.shape[1] - 1
    off = ~np.eye(G + 1, dtype=bool)
    np.testing.assert_array_equal(got[:, off], want[:, off])
    np.testing.assert_allclose(np.diagonal(got, axis1=1, axis2=2), np.diagonal(want, axis1=1, axis2=2),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got, np.swapaxes(got, 1, 2))


def test_threads_do_not_change_a_bit(exact_threads):
    """Really two threads, with work over the kernel's 2^20 entries (``threads_for``): the kernel alone and a
    forest of 30 features through the driver."""
    exact_threads(2)
    rng = np.random.default_rng(5)
    out = rng.choice(TIES, size=(2700, 21, 21)) + rng.normal(size=(2700, 21, 21))      # 2700 · 20² > 2^20
    one, two = out.copy(), out.copy()
    kernel.main_effects(one, 7.0, 1)
    kernel.main_effects(two, 7.0, 2)
    np.testing.assert_array_equal(two, one)
    d = 30
    forest = [ObliviousTreeRanker(rng.integers(0, d, 6), rng.choice([-0.5, 0.0, 0.5], 6), rng.integers(0, 2, 6),
                                  rng.normal(size=64), [0.0] * 6) for _ in range(20)]
    X = np.round(rng.normal(size=(1200, d)) * 2) / 2              # 1200 · 30² > 2^20
    X[rng.random(X.shape) < 0.1] = np.nan
    alphas = rng.uniform(0.5, 1.5, len(forest))
    single = driver.forest_interventional_interactions(forest, alphas, X, X[:15], 1)
    np.testing.assert_array_equal(driver.forest_interventional_interactions(forest, alphas, X, X[:15], 2), single)


def test_the_kernel_refuses_bad_arguments():
    with pytest.raises(ValueError, match=r"main_effects: out must have shape \(n, G \+ 1, G \+ 1\), got \(2, 3, 4\)"):
        kernel.main_effects(np.zeros((2, 3, 4)), 1.0)
    with pytest.raises(ValueError, match=r"main_effects: out must have shape \(n, G \+ 1, G \+ 1\), got \(2, 0, 0\)"):
        kernel.main_effects(np.zeros((2, 0, 0)), 1.0)
    for m in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="main_effects: m must be a positive count of background rows"):
            kernel.main_effects(np.zeros((2, 3, 3)), m)
