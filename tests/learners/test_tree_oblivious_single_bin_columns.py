"""Oblivious trees leave out the columns with one bin (no edge, no NaN), and grow the trees of every column.

A column whose rows all code to one bin splits no level, so the layout does
not store it; each kept feature's split noise is keyed by its column of X,
so the trees are those grown with every column stored -- bit for bit, by
either route (the native grower and the multi-pass protocol), on dense and
sparse input.  Reference: the same fit with the leaving-out switched off.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import _learner
from rankcore.learners.trees._binning import tree_edges, unsplittable_columns
from rankcore.learners.trees._grow_oblivious import ObliviousGrower
from rankcore.learners.trees._oblivious_kernels import level_best
from rankcore.registry import resolve
from _tree_references import route_statistics
from test_tree_oblivious_grow import _both_routes


def _plain_unsplittable(X):
    """Columns with at most one distinct value and no NaN (implicit zeros of a sparse matrix count as 0)."""
    dense = X.toarray() if sp.issparse(X) else X
    out = []
    for j in range(dense.shape[1]):
        col = dense[:, j]
        if not np.isnan(col).any() and np.unique(col).shape[0] <= 1:
            out.append(j)
    return np.array(out, dtype=np.intp)


def _with_constants(seed=0, n=400):
    """Informative and noise columns, with constant columns between them: 0, 7.5, -1 and one constant but NaN once."""
    rng = np.random.default_rng(seed)
    informative = rng.normal(size=(n, 4))
    informative[:, 1] = np.round(informative[:, 1], 1)               # ties
    X = np.column_stack([
        np.zeros(n), informative[:, 0], np.full(n, 7.5), informative[:, 1], informative[:, 2],
        np.full(n, -1.0), rng.normal(size=n), np.zeros(n), informative[:, 3], np.full(n, 2.0),
    ])
    X[rng.integers(n), 9] = np.nan                                   # one bin and a NaN: a split is possible
    relevance = np.sin(informative[:, 0]) + informative[:, 1] * informative[:, 2] + 0.5 * informative[:, 3]
    y = np.digitize(relevance + rng.normal(scale=0.3, size=n), [0.0, 1.0]).astype(float)
    qid = np.repeat(np.arange(n // 20), 20)
    return X, y, qid


CONSTANT = [0, 2, 5, 7]          # the columns of _with_constants left out (column 9 holds a NaN)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 50), st.integers(1, 10))
def test_unsplittable_columns_match_plain_counts(seed, n, d):
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < rng.uniform(0, 1), rng.integers(-2, 3, (n, d)).astype(float), 0.0)
    for j in range(d):                                               # about a third of the columns constant
        if rng.random() < 0.35:
            X[:, j] = rng.choice([0.0, 1.0, -3.5])
    X[rng.random((n, d)) < 0.03] = np.nan
    edges = tree_edges(X, 255, None, None, None)
    np.testing.assert_array_equal(unsplittable_columns(X, edges), _plain_unsplittable(X))
    S = sp.csr_matrix(np.nan_to_num(X, nan=5.0))
    S.data[rng.random(S.data.shape[0]) < 0.2] = 0.0                  # stored zeros are zeros
    edges = tree_edges(S, 255, None, None, None)
    np.testing.assert_array_equal(unsplittable_columns(S, edges), _plain_unsplittable(S))


def test_the_layout_stores_the_other_columns_only_for_oblivious_trees():
    X, _, _ = _with_constants()
    oblivious = resolve("learner", "trees:growth=oblivious").prepare(X, random_state=0)
    np.testing.assert_array_equal(oblivious.columns, [j for j in range(X.shape[1]) if j not in CONSTANT])
    # the other growths leave out what they always did: columns nonzero on too few rows (the zero columns)
    leafwise = resolve("learner", "trees").prepare(X, random_state=0)
    np.testing.assert_array_equal(leafwise.columns, [j for j in range(X.shape[1]) if j not in (0, 7)])
    # nothing to leave out (or nothing left): every column stored, as before
    assert resolve("learner", "trees:growth=oblivious").prepare(X[:, [1, 3]], random_state=0).columns is None
    assert resolve("learner", "trees:growth=oblivious").prepare(X[:, CONSTANT], random_state=0).columns is None


def _without_leaving_out(monkeypatch):
    monkeypatch.setattr(_learner, "unsplittable_columns", lambda X, edges: np.empty(0, dtype=np.intp))


@pytest.mark.parametrize("spec", [None, "trees:growth=oblivious,random_strength=2,max_depth=4,subsample=0.7"])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_per_query_fit_is_the_fit_of_every_column_bit_for_bit(monkeypatch, spec, sparse, exact_threads):
    exact_threads(2)
    X, y, qid = _with_constants()
    if sparse:
        X = sp.csr_matrix(np.nan_to_num(X, nan=0.0))
    params = {"learner": "trees" if spec is None else spec}
    scores = {}
    for n_jobs in (1, 2):
        model = rankcore.boost(n_iter=15, n_jobs=n_jobs, random_state=4, **params).fit(X, y, qid=qid)
        scores["left out", n_jobs] = model.decision_function(X)
    used = {int(j) for r in model.rankers_ for j in np.asarray(r.feature)}
    assert used and not used & set(CONSTANT)
    with monkeypatch.context() as m:
        _without_leaving_out(m)
        for n_jobs in (1, 2):
            model = rankcore.boost(n_iter=15, n_jobs=n_jobs, random_state=4, **params).fit(X, y, qid=qid)
            scores["stored", n_jobs] = model.decision_function(X)
    for n_jobs in (1, 2):
        assert scores["left out", n_jobs].tobytes() == scores["stored", n_jobs].tobytes()
    assert scores["left out", 1].tobytes() == scores["left out", 2].tobytes()


@pytest.mark.parametrize("spec", ["trees:growth=oblivious,random_strength=1",
                                  "trees:growth=oblivious,max_depth=5,random_strength=3,subsample=0.6"])
def test_both_routes_key_the_noise_by_column(spec):
    X, _, _ = _with_constants(seed=2)
    gradients, curvatures = route_statistics(X.shape[0], 4, "hessian")
    pairs = _both_routes(spec, X, gradients, curvatures)
    assert any(a[0] is not None for a, _ in pairs)
    for a, b in pairs:
        assert a == b


def test_level_best_keys_the_noise_as_asked():
    rng = np.random.default_rng(0)
    d, nb = 12, 3
    n_edges = np.full(d, nb, dtype=np.intp)
    base = np.arange(d, dtype=np.intp) * (nb + 2)
    mask = np.ones(d, dtype=np.uint8)
    chosen_by_j, chosen_by_key = set(), set()
    for level in range(40):
        gains = rng.uniform(1.0, 1.2, (int(base[-1]) + nb + 2, 2))    # near-equal features: the noise decides
        plain = level_best(gains, base, n_edges, mask, 1e-9, 5.0, 11, level)
        assert level_best(gains, base, n_edges, mask, 1e-9, 5.0, 11, level, np.arange(d)) == plain
        keyed = level_best(gains, base, n_edges, mask, 1e-9, 5.0, 11, level, np.arange(d) * 3 + 1)
        chosen_by_j.add(plain[0])
        chosen_by_key.add((level, keyed[0] != plain[0]))
    assert len(chosen_by_j) > 3 and any(moved for _, moved in chosen_by_key)   # other keys, other draws
    with pytest.raises(ValueError, match="noise_key"):
        level_best(gains, base, n_edges, mask, 1e-9, 5.0, 11, 0, np.arange(d - 1))


def test_the_grower_refuses_bad_keys():
    layout = resolve("learner", "trees:growth=oblivious").prepare(_with_constants()[0], random_state=0)
    grower = ObliviousGrower(layout.slots, 3, 1.0, 0.0, 0.0, 1e-9, 1.0)
    grower.set_noise_key(None)
    grower.set_noise_key(layout.columns)
    for bad in (layout.columns[:-1], -layout.columns - 1, np.zeros((2, layout.n_features))):
        with pytest.raises(ValueError, match="set_noise_key"):
            grower.set_noise_key(bad)


def test_a_tree_splitting_a_left_out_column_is_named():
    X, _, _ = _with_constants()
    layout = resolve("learner", "trees:growth=oblivious").prepare(X, random_state=0)
    np.testing.assert_array_equal(layout.feature_of(np.array([1, 3, -1])), [0, 1, -1])
    with pytest.raises(ValueError, match="column 2, which this layout does not store .one value on every row"):
        layout.feature_of(np.array([1, 2]), "the saved tree")


def test_left_out_features_leave_their_bundles():
    edges = [np.array([float(j)]) for j in range(7)]
    kept = np.array([0, 1, 4, 5, 6])
    out_edges, bundles, n_sparse = _learner._without_features(kept, edges, [[0, 3], [2], [5, 6]], 2)
    assert [e.tolist() for e in out_edges] == [[0.0], [1.0], [4.0], [5.0], [6.0]]
    assert bundles == [[0], [3, 4]] and n_sparse == 1              # the emptied sparse bundle counts off
    assert _learner._without_features(kept, edges, [], 0)[1:] == ([], 0)
