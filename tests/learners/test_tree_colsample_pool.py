"""``colsample`` draws each tree's features among those that can split (``_feature_draw``).

A feature with no bin edge and no NaN (a constant column: all ones, a fixed year) codes every row to one bin; a
tree that drew only such features could not split, and that one tree ended the whole fit with a constant model.
The draw's pool now leaves them out, for every growth, in memory and through ``prepare_distributed`` alike;
layouts without such features draw exactly as before (checked against the former rule, written out in Python).
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import rankcore
from rankcore.learners import InMemoryRows
from rankcore.learners.trees._feature_draw import feature_draw
from rankcore.learners.trees._interactions import InteractionGroups
from rankcore.registry import resolve

# a fit whose interaction groups leave columns out warns once, naming them (tested in test_tree_interactions.py)
pytestmark = pytest.mark.filterwarnings("ignore:interactions=.*in no group:UserWarning")


def _data(seed=0, n=500):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 2] = 7.0                                   # constant, nonzero: stored, no bin edge
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    return X, y


def _former_draw(rng, colsample, n_features, groups):
    """The draw before the pool left out unsplittable features (the reference)."""
    mask = np.ones(n_features, dtype=np.uint8)
    pool = n_features if groups is None else np.flatnonzero(groups.grouped)
    size = pool if groups is None else pool.shape[0]
    if colsample < 1.0 and size > 1:
        k = max(1, int(math.ceil(colsample * size)))
        mask[:] = 0
        mask[rng.choice(pool, size=k, replace=False)] = 1
    return mask


@pytest.mark.parametrize("spec", ["trees:colsample=0.25", "trees:colsample=0.5,interactions=2/3",
                                  "trees:colsample=0.25,growth=depthwise", "trees:colsample=0.3,growth=oblivious",
                                  "trees:colsample=0.5,interactions=0+2/2+3,growth=oblivious"])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_constant_column_never_ends_the_fit(spec, sparse):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # no "no_split" warning
        warnings.filterwarnings("ignore", "interactions=.*in no group", UserWarning)    # the groups leave some out
        model = rankcore.boost(learner=spec, n_iter=30, random_state=0).fit(sp.csr_matrix(X) if sparse else X, y)
    assert model.n_iter_ == 30 and model.stop_reason_ == "n_iter"
    assert all(2 not in set(np.asarray(r.feature).tolist()) for r in model.rankers_)


@pytest.mark.parametrize("spec", ["trees:colsample=0.5", "trees:colsample=0.6,growth=depthwise,subsample=0.7",
                                  "trees:colsample=0.5,growth=oblivious,max_depth=3"])
def test_a_constant_column_changes_no_draw(spec):
    """The pool is the columns that can split, in column order: X with a constant column grows the trees of X
    without it (the same columns drawn from the same generator, the same splits)."""
    X, y = _data(1)
    X[:, 1] = np.where(np.arange(X.shape[0]) % 3 == 0, np.nan, 1.0)      # no bin edge, but NaN: it can split
    a = rankcore.boost(learner=spec, n_iter=12, random_state=3).fit(X, y)
    b = rankcore.boost(learner=spec, n_iter=12, random_state=3).fit(np.delete(X, 2, axis=1), y)
    assert a.n_iter_ == b.n_iter_ == 12
    for ra, rb in zip(a.rankers_, b.rankers_):
        fa, fb = np.asarray(ra.feature), np.asarray(rb.feature)
        internal = fa >= 0
        np.testing.assert_array_equal(fa[internal], np.where(fb[internal] >= 2, fb[internal] + 1, fb[internal]))
        np.testing.assert_array_equal(ra.threshold, rb.threshold)
        # (the code columns differ -- the constant one is stored -- so sums may round differently)
        np.testing.assert_allclose(ra.value, rb.value, rtol=1e-12, atol=1e-15)
    assert any(1 in set(np.asarray(r.feature).tolist()) for r in a.rankers_)     # the NaN column stays drawable


@pytest.mark.parametrize("groups", [None, [[0, 1], [3]], [[2], [0, 4, 5]]])
@pytest.mark.parametrize("colsample", [0.1, 0.5, 0.9, 1.0])
def test_the_draw_without_unsplittable_features_is_the_former_draw(groups, colsample):
    d = 6
    parsed = None if groups is None else InteractionGroups([np.array(g) for g in groups], d)
    ours, theirs = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(40):
        np.testing.assert_array_equal(feature_draw(ours, colsample, d, parsed, None),
                                      _former_draw(theirs, colsample, d, parsed))
    assert ours.integers(0, 2**62) == theirs.integers(0, 2**62)        # the generators stay in step


@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
def test_the_draw_leaves_out_the_features_that_cannot_split(growth):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 8))
    X[:, 1] = 3.0                                   # constant
    X[:, 4] = 0.0                                   # all zero (leaf-wise and depth-wise: not stored)
    X[:, 6] = np.where(rng.random(400) < 0.2, np.nan, -1.0)         # one value and NaN: can split
    layout = resolve("learner", f"trees:colsample=0.3,growth={growth}").prepare(X, random_state=0)
    drawn = set()
    for _ in range(60):
        _, mask = layout._draw_tree()
        columns = set(layout.column_of(np.flatnonzero(mask)).tolist())
        assert len(columns) == 2                    # ceil(0.3 * 6): six columns can split
        drawn |= columns
    assert drawn == {0, 2, 3, 5, 6, 7}


@pytest.mark.parametrize("spec", ["trees:colsample=0.4", "trees:colsample=0.4,growth=oblivious",
                                  "trees:colsample=0.4,min_samples_leaf=5,interactions=0+1+2/3+4+5+6"])
@pytest.mark.parametrize("weighted", [False, True])
def test_prepare_distributed_draws_the_columns_prepare_draws(spec, weighted):
    """The multi-pass (Dask) preparation stores every column; its pool holds the columns ``prepare``'s does."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 7))
    X[:, 1] = 2.0                                   # constant
    X[:, 3] = 0.0                                   # all zero
    X[:3, 5], X[3:, 5] = 1.0, 0.0                   # nonzero on 3 rows: a bin edge, too few rows to split
    X[:, 6] = np.where(np.arange(300) % 4 == 0, np.nan, 5.0)        # one value and NaN
    w = rng.uniform(0.5, 2.0, 300) if weighted else None
    learner = resolve("learner", spec)
    direct = learner.prepare(X, sample_weight=w, random_state=7)
    through = learner.prepare_distributed(InMemoryRows(X, w), random_state=7)
    for _ in range(30):
        a, b = direct._draw_tree()[1], through._draw_tree()[1]
        np.testing.assert_array_equal(direct.column_of(np.flatnonzero(a)), through.column_of(np.flatnonzero(b)))


def test_no_colsample_keeps_every_layout_as_it_was():
    X, _ = _data()
    for growth in ("leafwise", "oblivious"):
        learner = resolve("learner", f"trees:growth={growth}")
        assert learner.prepare(X).splittable is None
        assert learner.prepare_distributed(InMemoryRows(X)).splittable is None
