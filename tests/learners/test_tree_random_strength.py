"""``trees:random_strength``: noise on each node's choice of feature, against NumPy references.

The kernels choose argmax_j best_j + r·m·z_j over the features whose best gain passes the no-split
threshold (m: the lower median of those gains, z_j: a deviate keyed by the tree's seed, the node and
j), then that feature's first candidate within the tie tolerance of its best.  Checked here: the
deviates, the choice against a reference built from ``feature_gains``, the oblivious level's choice,
and the estimator's behaviour.  Whole noisy trees against the NumPy reference builders are in
test_learners_trees.py and test_tree_oblivious.py; both routes and every thread count, bit for bit,
in test_tree_grow.py (its GRID holds noisy specs).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _oblivious_kernels as oblivious_kernels
from rankcore.learners.trees import _split
from rankcore.learners.trees._block import slot_layout
from rankcore.learners.trees._ranker import TIE_TOLERANCE
from rankcore.registry import SpecError, resolve
from test_learners_trees import _reference_best_split
from test_tree_grow import _data


# ----------------------------------------------------------------------
# The deviates
# ----------------------------------------------------------------------
def test_deviates_are_standard_normal_and_keyed_by_seed_node_and_feature():
    z = np.concatenate([_split.split_noise_deviates(seed, node, 500) for seed in (0, 1, 2**61 + 5)
                        for node in range(20)])
    assert np.all(np.isfinite(z))
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03
    assert abs(np.mean(z > 1.959964) - 0.025) < 0.006                    # the tails too
    a = _split.split_noise_deviates(7, 3, 50)
    np.testing.assert_array_equal(a, _split.split_noise_deviates(7, 3, 50))      # a function of its key
    np.testing.assert_array_equal(a[:20], _split.split_noise_deviates(7, 3, 20))  # feature by feature
    assert not np.any(a == _split.split_noise_deviates(8, 3, 50))
    assert not np.any(a == _split.split_noise_deviates(7, 4, 50))
    # neighbouring keys are not correlated (the hash mixes every input bit)
    b = _split.split_noise_deviates(7, 5, 2000)
    c = _split.split_noise_deviates(7, 6, 2000)
    assert abs(np.corrcoef(b, c)[0, 1]) < 0.1


def _mix_array(z):
    """splitmix64's finalizer of z + golden ratio on a uint64 array (wrapping arithmetic)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _quantile_index(seed, node, d):
    """The table index each of a node's d features draws (the hash's top 12 bits), in NumPy."""
    key = _mix_array(np.array([seed], dtype=np.uint64) ^ _mix_array(np.array([node], dtype=np.uint64)))
    return (_mix_array(key + np.arange(d, dtype=np.uint64)) >> np.uint64(52)).astype(np.intp)


def test_noise_quantiles_are_the_normal_quantiles_of_the_midpoints():
    from scipy.special import ndtri

    q = _split.noise_quantiles()
    assert q.dtype == np.float64 and q.shape == (4096,)
    np.testing.assert_allclose(q, ndtri((np.arange(4096) + 0.5) / 4096), rtol=1e-12, atol=1e-15)
    assert np.all(np.diff(q) > 0)                      # no two quantiles tie
    np.testing.assert_array_equal(q, -q[::-1])         # Φ⁻¹(1 − p) = −Φ⁻¹(p), exactly


def test_the_noise_table_holds_every_quantile_at_its_index():
    q = _split.noise_quantiles()
    d = 60_000                                          # enough draws to reach each of the 4,096 entries
    idx = _quantile_index(11, 5, d)
    assert np.unique(idx).size == 4096
    z = _split.split_noise_deviates(11, 5, d)
    np.testing.assert_array_equal(z, q[idx])
    _split._fill_noise_table()                          # refilling changes nothing
    np.testing.assert_array_equal(_split.split_noise_deviates(11, 5, d), z)
    assert _split.split_noise_deviates(11, 5, 0).shape == (0,)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), node=st.integers(0, 2**40), d=st.integers(0, 70))
def test_deviates_are_the_table_entries_the_hash_picks(seed, node, d):
    np.testing.assert_array_equal(_split.split_noise_deviates(seed, node, d),
                                  _split.noise_quantiles()[_quantile_index(seed, node, d)])


# ----------------------------------------------------------------------
# A node's choice
# ----------------------------------------------------------------------
def _histogram(seed, d=12, n=400):
    """A node's histogram of d features (d > 31: the median is taken over 31 of them)."""
    rng = np.random.default_rng(seed)
    n_edges = rng.integers(0, 9, size=d).astype(np.intp)
    codes = np.column_stack([rng.integers(0, e + 2, n) for e in n_edges]).astype(np.int64)
    g = rng.normal(size=n) + 0.3 * (codes[:, 0] > 2) + 0.2 * (codes[:, -1] > 1)
    g = np.round(g, 1)                                     # exact ties between candidates
    h = rng.uniform(0.5, 1.5, n)
    slots = slot_layout(n_edges)
    hist = np.zeros((slots.n_slots, 3))
    for j in range(d):
        np.add.at(hist, slots.base[j] + codes[:, j], np.column_stack([g, h, np.ones(n)]))
    mask = (rng.random(d) < 0.85).astype(np.uint8)
    return hist, slots, n_edges, mask


def _reference_noisy_feature(hist, slots, mask, params, r, seed, node):
    """The feature the noisy choice must take, from each feature's best gain (``feature_gains``) in NumPy."""
    gains = _split.feature_gains(hist.copy(), slots, mask, *params)
    best, parent = gains
    scale = max(best[mask.astype(bool)].max(initial=-1.0), parent.max(initial=0.0))
    can = mask.astype(bool) & (best > TIE_TOLERANCE * scale)
    if not can.any():
        return None, best
    values = best[can]
    if values.size > 31:                                   # 31 of them, evenly spaced in feature order
        values = values[(np.arange(31) * values.size) // 31]
    median = np.sort(values)[(values.size - 1) // 2]
    z = _split.split_noise_deviates(seed, node, len(best))
    noisy = np.where(can, best + r * median * z, -np.inf)
    return int(np.argmax(noisy)), best


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), r=st.sampled_from([0.3, 1.0, 4.0, 50.0]), noise_seed=st.integers(0, 2**62),
       node=st.integers(0, 200), params=st.sampled_from([(1.0, 0.0, 0.0), (15.0, 2.0, 1.0)]),
       d=st.sampled_from([1, 5, 12, 31, 32, 70]))
def test_noisy_choice_matches_the_numpy_reference(seed, r, noise_seed, node, params, d):
    hist, slots, n_edges, mask = _histogram(seed, d=d)
    out = np.empty(10)
    found = _split.best_split(hist, slots, mask, *params, TIE_TOLERANCE, out, 1, random_strength=r,
                                   noise_seed=noise_seed, node=node)
    feature, best = _reference_noisy_feature(hist, slots, mask, params, r, noise_seed, node)
    assert found == (feature is not None)
    if feature is None:
        return
    assert int(out[1]) == feature
    assert out[0] == pytest.approx(best[feature], rel=1e-12)           # the recorded gain is the true one
    # ... and the split is that feature's first candidate within the tolerance of its own best
    only = np.zeros_like(mask)
    only[feature] = 1
    ref = _reference_best_split(hist, n_edges, only, *params)
    assert (int(out[1]), int(out[2]), bool(out[3])) == ref[1:]
    # threads do not matter
    out2 = np.empty(10)
    _split.best_split(hist, slots, mask, *params, TIE_TOLERANCE, out2, 2, random_strength=r,
                           noise_seed=noise_seed, node=node)
    np.testing.assert_array_equal(out, out2)


def test_no_noise_and_vanishing_noise_choose_the_best_split():
    for seed in range(6):
        hist, slots, _, mask = _histogram(seed)
        plain, tiny = np.empty(10), np.empty(10)
        a = _split.best_split(hist, slots, mask, 1.0, 0.0, 0.0, TIE_TOLERANCE, plain, 1)
        b = _split.best_split(hist, slots, mask, 1.0, 0.0, 0.0, TIE_TOLERANCE, tiny, 1,
                                   random_strength=1e-14, noise_seed=seed, node=3)
        assert a == b
        np.testing.assert_array_equal(plain, tiny)


def test_strong_noise_spreads_the_choice_over_the_features():
    hist, slots, _, mask = _histogram(0, d=12)
    chosen = set()
    for node in range(200):
        out = np.empty(10)
        assert _split.best_split(hist, slots, mask, 1.0, 0.0, 0.0, TIE_TOLERANCE, out, 1,
                                      random_strength=100.0, noise_seed=1, node=node)
        chosen.add(int(out[1]))
    assert len(chosen) >= 4
    assert chosen <= set(np.flatnonzero(mask))


def test_negative_strength_is_refused_by_the_kernels():
    hist, slots, _, mask = _histogram(0)
    with pytest.raises(ValueError, match="random_strength"):
        _split.best_split(hist, slots, mask, 1.0, 0.0, 0.0, TIE_TOLERANCE, np.empty(10), 1,
                               random_strength=-1.0)
    with pytest.raises(ValueError, match="random_strength"):
        oblivious_kernels.level_best(np.ones((4, 2)), np.zeros(1, np.intp), np.full(1, 2, np.intp),
                                     np.ones(1, np.uint8), TIE_TOLERANCE, -0.5)


# ----------------------------------------------------------------------
# An oblivious level's choice
# ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), r=st.sampled_from([0.5, 2.0, 30.0]), noise_seed=st.integers(0, 2**62),
       level=st.integers(0, 16))
def test_oblivious_level_choice_matches_numpy(seed, r, noise_seed, level):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 41))                          # beyond 31: the median of 31 of them
    n_edges = rng.integers(0, 6, size=d).astype(np.intp)
    base = np.r_[0, np.cumsum(n_edges + 2)[:-1]].astype(np.intp)
    S = int((n_edges + 2).sum())
    gains = np.where(rng.random((S, 2)) < 0.3, 0.0, np.round(rng.gamma(1.0, 1.0, (S, 2)), 2))
    if rng.random() < 0.2:                                # a gain that overflowed (a gradient sum past the limit)
        gains[rng.integers(S), rng.integers(2)] = np.inf
    mask = rng.integers(0, 2, size=d).astype(np.uint8)
    got = oblivious_kernels.level_best(gains, base, n_edges, mask, TIE_TOLERANCE, r, noise_seed, level)
    cands = {j: [(b, side, gains[base[j] + b, side]) for b in range(n_edges[j] + 1) for side in range(2)]
             for j in range(d) if mask[j]}
    feature_top = {j: max(g for _, _, g in c) for j, c in cands.items()}
    top = max(feature_top.values(), default=0.0)
    if not 0 < top < np.inf:                              # nothing gains, or an overflowed gain: no candidate
        assert got is None
        return
    can = [j for j in sorted(cands) if feature_top[j] > TIE_TOLERANCE * top]
    sample = can if len(can) <= 31 else [can[(i * len(can)) // 31] for i in range(31)]
    median = sorted(feature_top[j] for j in sample)[(len(sample) - 1) // 2]
    z = _split.split_noise_deviates(noise_seed, level, d)
    chosen = max(can, key=lambda j: (feature_top[j] + r * median * z[j], -j))
    fb = feature_top[chosen]
    b, side, g = next(c for c in cands[chosen] if c[2] >= fb - TIE_TOLERANCE * fb)
    assert got == (chosen, b, side == 0, g)
    if r and len(can) == 1:
        assert got[0] == can[0]


@pytest.mark.parametrize("r", [0.0, 1.0, 30.0])
def test_an_oblivious_level_whose_gain_overflowed_has_no_candidate(r):
    # a node's gradient sum past sqrt(DBL_MAX) squares to +inf: no feature passes inf's tie threshold, so with
    # noise none was chosen and the kernel read the feature before the first (a level on feature -1); now the
    # level has no candidate, as with r = 0 and in the node-wise split (the driver then checks the gain sums)
    n_edges = np.array([2, 3], dtype=np.intp)
    base = np.array([0, 4], dtype=np.intp)
    gains = np.zeros((9, 2))
    gains[1, 0], gains[5, 1], gains[6, 0] = 3.0, np.inf, 2.0
    mask = np.ones(2, np.uint8)
    assert oblivious_kernels.level_best(gains, base, n_edges, mask, TIE_TOLERANCE, r, 7, 0) is None
    gains[5, 1] = 1e300                                   # finite: the usual choice
    assert oblivious_kernels.level_best(gains, base, n_edges, mask, TIE_TOLERANCE, r, 7, 0)[:3] == (1, 1, False)


# ----------------------------------------------------------------------
# Whole trees: both routes, threads, the estimator
# ----------------------------------------------------------------------
# Both routes and every thread count give the same noisy trees bit for bit: the noisy specs are in
# test_tree_grow.py's GRID, its thread test and its boosting test.


def test_noisy_oblivious_fits_do_not_depend_on_threads(exact_threads):
    exact_threads(3)
    X = _data(9, n=20_000, d=12)
    rng = np.random.default_rng(3)
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=X.shape[0]) > 0.8).astype(int)
    fits = [rankcore.boost(learner="trees:growth=oblivious,random_strength=2", n_iter=6, random_state=0,
                           early_stopping=False, n_jobs=t).fit(X, y) for t in (1, 2, 3)]
    states = [[r.to_state() for r in f.rankers_] for f in fits]
    assert states[0] == states[1] == states[2]


def _xy(seed=0, n=600, d=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 1.0).astype(int)
    return X, y


@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
def test_noise_changes_the_trees_deterministically(growth):
    X, y = _xy()
    spec = f"trees:growth={growth}"

    def fit(extra, seed=0):
        return rankcore.boost(learner=spec + extra, n_iter=20, random_state=seed).fit(X, y)

    plain, noisy, again, other = fit(""), fit(",random_strength=2"), fit(",random_strength=2"), \
        fit(",random_strength=2", seed=1)
    assert [r.to_state() for r in noisy.rankers_] == [r.to_state() for r in again.rankers_]
    assert [r.to_state() for r in noisy.rankers_] != [r.to_state() for r in plain.rankers_]
    assert [r.to_state() for r in noisy.rankers_] != [r.to_state() for r in other.rankers_]
    # still a ranker: the signal's features are found
    assert rankcore.metrics.auc(y, noisy.decision_function(X)) > 0.8


def test_no_noise_by_default():
    X, y = _xy(1)
    a = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(X, y)
    b = rankcore.boost(learner="trees:random_strength=0", n_iter=10, random_state=0).fit(X, y)
    assert [r.to_state() for r in a.rankers_] == [r.to_state() for r in b.rankers_]
    assert resolve("learner", "trees").random_strength == 0


def test_python_deviates_equal_the_kernels():
    """The plain-Python hash and Box-Muller of the references give the kernels' deviates exactly."""
    from _tree_references import split_noise_reference

    for seed, node in [(0, 0), (1, 7), (2**62 - 1, 12345), (987654321, 3)]:
        got = _split.split_noise_deviates(seed, node, 40)
        assert got.tolist() == [split_noise_reference(seed, node, j) for j in range(40)]


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "x"])
def test_bad_strength_is_refused_by_name(bad):
    with pytest.raises((SpecError, ValueError), match="random_strength"):
        resolve("learner", f"trees:random_strength={bad}")


def test_saved_noisy_model_round_trips(tmp_path):
    X, y = _xy(2)
    model = rankcore.boost(learner="trees:random_strength=1.5", n_iter=8, random_state=3).fit(X, y)
    path = tmp_path / "model.json"
    rankcore.save_model(model, path)
    loaded = rankcore.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert "random_strength=1.5" in str(loaded.get_params()["learner"])
