"""AutoRanker on scipy.sparse X: candidates that read CSR get it as it is, the others are skipped, nothing densifies.

Every test here failed before sparse support: ``AutoRanker.fit`` refused any sparse X with a TypeError.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import rankcore.validation
from rankcore import AutoRanker
from rankcore.auto import MissingValueImputer
from rankcore.auto._candidate import NO_SPARSE
from rankcore.auto._queries import canonical_order
from rankcore.persistence import load_model, save_model
from rankcore.validation import ArgumentRefusal

TREES = ["trees:n_iter=8"]


def _data(n=300, d=12, seed=0, nan=False):
    """Nonnegative and negative values at about 15 % density, labels from two columns."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.15) * rng.normal(size=(n, d))
    X = X + 0.0                            # no -0.0: its dense bytes, which order rows, are not a CSR's
    X[:, 0] = (rng.random(n) < 0.4) * rng.random(n)
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=n) > 0.3).astype(int)
    if nan:
        X[(rng.random((n, d)) < 0.03) & (X != 0)] = np.nan
    return X, y


@pytest.fixture
def no_dense_copy(monkeypatch):
    """Any dense copy of a CSR/CSC matrix fails the test, and the dense-copy limit is 64 bytes (under two rows)."""
    def refuse(self, *args, **kwargs):
        raise AssertionError(f"a dense copy of a sparse matrix of shape {self.shape} was made")

    from scipy.sparse._compressed import _cs_matrix

    monkeypatch.setattr(_cs_matrix, "toarray", refuse)
    monkeypatch.setattr(rankcore.validation, "DENSE_BYTES_LIMIT", 64)


def test_trees_fit_on_csr_gives_the_dense_fits_scores():
    X, y = _data()
    sparse = AutoRanker(candidates=TREES + ["trees:n_iter=8,max_leaves=4"], random_state=0).fit(sp.csr_matrix(X), y)
    dense = AutoRanker(candidates=TREES + ["trees:n_iter=8,max_leaves=4"], random_state=0).fit(X, y)
    assert sparse.best_candidate_ == dense.best_candidate_
    expected = dense.decision_function(X)
    # on sparse and on dense rows, and from CSC (read as CSR)
    np.testing.assert_array_equal(sparse.decision_function(sp.csr_matrix(X)), expected)
    np.testing.assert_array_equal(sparse.decision_function(X), expected)
    np.testing.assert_array_equal(sparse.decision_function(sp.csc_matrix(X)), expected)
    assert sparse.score(sp.csr_matrix(X), y) == dense.score(X, y)
    for spec, scores in dense.cv_predictions_.items():
        np.testing.assert_array_equal(sparse.cv_predictions_[spec], scores)


def test_candidates_that_read_no_sparse_input_are_skipped_with_the_reason():
    X, y = _data()
    auto = AutoRanker(candidates=TREES + ["kernel", "exactboost"], random_state=0).fit(sp.csr_matrix(X), y)
    rows = {row.name: row for row in auto.leaderboard_}
    for spec in ("kernel", "exactboost"):
        assert rows[spec].status == "skipped"
        assert rows[spec].note == NO_SPARSE
    assert auto.best_candidate_ == TREES[0]


def test_a_list_where_no_candidate_reads_sparse_input_is_refused_naming_them():
    X, y = _data()
    with pytest.raises(ArgumentRefusal) as info:
        AutoRanker(candidates=["kernel", "exactboost"]).fit(sp.csr_matrix(X), y)
    exc = info.value
    assert exc.parameter == "candidates"
    text = str(exc)
    assert text.startswith("candidates: none applies to these data (kernel: reads no sparse input")
    assert "exactboost: reads no sparse input" in text
    assert "'trees'" in text and "'linear'" in text and "X.toarray()" in text


def test_a_fit_whose_dense_copy_is_over_the_limit_never_makes_one(no_dense_copy):
    X, y = _data(nan=True)
    Xs = sp.csr_matrix(X)
    assert X.nbytes > rankcore.validation.DENSE_BYTES_LIMIT
    auto = AutoRanker(candidates=TREES + ["linear:n_epochs=2"], random_state=0).fit(Xs, y)
    assert np.isfinite(auto.decision_function(Xs)).all()
    # (feature_contributions is left out: its output, n x (d + 1), is dense anyway, and so the trees read the rows)
    # within queries too (the canonical order of the rows reads each row's stored entries)
    qid = np.repeat(np.arange(30), 10)
    grades = np.random.default_rng(1).integers(0, 3, X.shape[0])
    within = AutoRanker(candidates=TREES, random_state=0).fit(Xs, grades, qid=qid)
    perm = np.random.default_rng(2).permutation(X.shape[0])
    again = AutoRanker(candidates=TREES, random_state=0).fit(Xs[perm], grades[perm], qid=qid[perm])
    np.testing.assert_array_equal(within.decision_function(Xs), again.decision_function(Xs))


def test_a_sparse_fit_within_queries_matches_the_dense_fit():
    X, y = _data()
    rng = np.random.default_rng(3)
    qid, grades = np.repeat(np.arange(30), 10), rng.integers(0, 3, X.shape[0])
    perm = rng.permutation(X.shape[0])
    sparse = AutoRanker(candidates=TREES, random_state=0).fit(sp.csr_matrix(X[perm]), grades[perm], qid=qid[perm])
    dense = AutoRanker(candidates=TREES, random_state=0).fit(X, grades, qid=qid)
    np.testing.assert_array_equal(sparse.decision_function(X), dense.decision_function(X))
    assert sparse.score(sp.csr_matrix(X), grades, qid=qid) == dense.score(X, grades, qid=qid)


def test_sample_weight_and_eval_set_on_sparse_x_match_the_dense_fit():
    X, y = _data()
    w = np.random.default_rng(4).random(X.shape[0]) + 0.1
    sparse = AutoRanker(candidates=TREES, random_state=0).fit(sp.csr_matrix(X), y, sample_weight=w)
    dense = AutoRanker(candidates=TREES, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(sparse.decision_function(X), dense.decision_function(X))
    Xs = sp.csr_matrix(X)
    dense = AutoRanker(candidates=TREES, random_state=0).fit(X[:200], y[:200], eval_set=(X[200:], y[200:]))
    for X_val in (Xs[200:], X[200:]):
        sparse = AutoRanker(candidates=TREES, random_state=0).fit(Xs[:200], y[:200], eval_set=(X_val, y[200:]))
        np.testing.assert_array_equal(sparse.decision_function(X), dense.decision_function(X))
        assert sparse.evals_result_ == dense.evals_result_
    # a dense fit watching a sparse set
    mixed = AutoRanker(candidates=TREES, random_state=0).fit(X[:200], y[:200], eval_set=(Xs[200:], y[200:]))
    np.testing.assert_array_equal(mixed.decision_function(X), dense.decision_function(X))


def test_blend_fold_bag_contributions_and_model_file_of_a_sparse_fit(tmp_path):
    X, y = _data(nan=True)
    Xs = sp.csr_matrix(X)
    auto = AutoRanker(candidates=TREES + ["linear:n_epochs=2"], random_state=0).fit(Xs, y)
    path = tmp_path / "auto.json"
    save_model(auto, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(Xs), auto.decision_function(Xs))
    # the linear member's dot products on dense rows round in another order
    np.testing.assert_allclose(loaded.decision_function(X), auto.decision_function(Xs), rtol=1e-12, atol=1e-12)
    trees = AutoRanker(candidates=TREES, random_state=0).fit(Xs, y)
    dense = AutoRanker(candidates=TREES, random_state=0).fit(X, y)
    np.testing.assert_array_equal(trees.feature_contributions(Xs[:20]), dense.feature_contributions(X[:20]))


def test_the_linear_candidate_reads_csr_behind_a_sparse_imputer():
    X, y = _data(nan=True)
    sparse = AutoRanker(candidates=["linear:n_epochs=2"], random_state=0).fit(sp.csr_matrix(X), y)
    dense = AutoRanker(candidates=["linear:n_epochs=2"], random_state=0).fit(X, y)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X), rtol=1e-6, atol=1e-7)


def test_the_imputer_keeps_csr_sparse_and_fills_as_the_dense_one():
    X, _ = _data(n=101, nan=True)
    X[:, 3] = np.nan                       # a column with no value: filled with 0
    X[:, 4] = -1.0                         # negative values sort before the absent zeros
    X[::3, 4] = 0.0
    Xs = sp.csr_matrix(X)
    dense, sparse = MissingValueImputer().fit(X), MissingValueImputer().fit(Xs)
    np.testing.assert_array_equal(sparse.fill_values_, dense.fill_values_)
    np.testing.assert_array_equal(sparse.indicator_features_, dense.indicator_features_)
    out = sparse.transform(Xs)
    assert sp.issparse(out) and out.format == "csr"
    np.testing.assert_array_equal(out.toarray(), dense.transform(X))


def test_sparse_canonical_order_is_the_dense_order():
    X, _ = _data(n=120)
    X[10] = X[11]                          # identical rows keep their input order
    rng = np.random.default_rng(5)
    codes, grades = rng.integers(0, 6, X.shape[0]), rng.integers(0, 2, X.shape[0]).astype(float)
    np.testing.assert_array_equal(canonical_order(sp.csr_matrix(X), grades, codes), canonical_order(X, grades, codes))


def test_a_sparse_pandas_frame_is_read_as_its_csr_matrix():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X), columns=[f"c{j}" for j in range(X.shape[1])])
    sparse = AutoRanker(candidates=TREES + ["kernel"], random_state=0).fit(frame, y)
    dense = AutoRanker(candidates=TREES, random_state=0).fit(pd.DataFrame(X, columns=frame.columns), y)
    assert {row.name: row.note for row in sparse.leaderboard_}["kernel"] == NO_SPARSE
    np.testing.assert_array_equal(sparse.decision_function(frame), dense.decision_function(frame.sparse.to_dense()))


def test_a_dense_only_model_scores_small_sparse_rows_and_refuses_large_ones(monkeypatch):
    X, y = _data(n=150)
    auto = AutoRanker(candidates=["kernel"], random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.decision_function(sp.csr_matrix(X)), auto.decision_function(X))
    monkeypatch.setattr(rankcore.validation, "DENSE_BYTES_LIMIT", 1024)
    with pytest.raises(TypeError, match=r"^X: the chosen model 'kernel' reads dense rows only"):
        auto.decision_function(sp.csr_matrix(X))


def test_a_plugin_candidate_reads_no_sparse_input_unless_it_declares_it_as_a_bool():
    from rankcore.auto import Candidate

    declared = type("_SparseDeclared", (Candidate,), {"name": "sparse-declared", "accepts_sparse": "yes"})
    assert declared.declaration_problem() == "_SparseDeclared.accepts_sparse must be True or False, got 'yes'"
    assert Candidate.accepts_sparse is False


def test_sparse_canonical_order_makes_blocks_dense_not_each_query(monkeypatch):
    """The order made each (query, grade) group dense on its own: a Python step per group, 5 s for 60,000 groups
    (25 times the dense order's time); now consecutive groups are made dense a block at a time, in the same order.
    A group over the dense-copy limit is still ordered by its stored entries, inside the same pass."""
    from scipy.sparse._compressed import _cs_matrix

    X, _ = _data(n=2000)
    rng = np.random.default_rng(6)
    codes, grades = rng.integers(0, 400, X.shape[0]), rng.integers(0, 3, X.shape[0]).astype(float)
    codes[:40], grades[:40] = 1000, 1.0    # one group of 40 rows: over the limit set below
    X[1] = X[2]
    calls = []
    toarray = _cs_matrix.toarray
    monkeypatch.setattr(_cs_matrix, "toarray",
                        lambda self, *a, **k: calls.append(self.shape[0]) or toarray(self, *a, **k))
    monkeypatch.setattr(rankcore.validation, "DENSE_BYTES_LIMIT", 30 * X.shape[1] * 8)
    sparse = canonical_order(sp.csr_matrix(X), grades, codes)
    assert 1 <= len(calls) <= 100 and max(calls) <= 30
    expected = canonical_order(X, grades, codes)
    big = np.isin(expected, np.arange(40))
    np.testing.assert_array_equal(sparse[~big], expected[~big])
    assert sorted(sparse[big]) == list(range(40))
    perm = rng.permutation(X.shape[0])      # the large group's entries order: independent of the input order
    again = perm[canonical_order(sp.csr_matrix(X[perm]), grades[perm], codes[perm])]
    np.testing.assert_array_equal(X[again], X[sparse])      # rows 1 and 2, identical, may swap


def test_small_sparse_data_notes_name_the_blend_that_is_fitted():
    """On at most 120 rows of sparse X the default search's blend is ``linear`` alone (kernel and exactboost read no
    sparse input), but the skipped candidates' note said it "keeps the blend of linear, kernel, exactboost"."""
    X, y = _data(n=100)
    auto = AutoRanker(random_state=0).fit(sp.csr_matrix(X), y)
    rows = {row.name: row for row in auto.leaderboard_}
    assert rows["kernel"].note == NO_SPARSE and rows["exactboost"].note == NO_SPARSE
    assert rows["trees"].note == "small data (at most 120 rows): the default search keeps the blend of linear"
    dense = AutoRanker(random_state=0).fit(X, y)          # dense X: the three members, as before
    assert {row.name: row for row in dense.leaderboard_}["trees"].note.endswith(
        "keeps the blend of linear, kernel, exactboost")


@pytest.mark.parametrize("candidates, reads", [("auto", True), (["linear"], True), (["kernel", "trees"], True),
                                               (["exactboost"], False), (["kernel", "stumps:n_iter=5"], False)])
def test_the_sparse_tag_says_whether_a_candidate_asked_for_reads_sparse_input(candidates, reads):
    """The sparse tag was True for every AutoRanker, though fit refuses sparse X when no candidate listed reads it:
    scikit-learn's machinery (check_estimator, meta-estimators) then sent sparse input to a fit that refuses it."""
    auto = AutoRanker(candidates=candidates, random_state=0)
    assert auto.__sklearn_tags__().input_tags.sparse is reads
    if not reads:
        X, y = _data(n=60)
        with pytest.raises(ArgumentRefusal, match="candidates"):
            auto.fit(sp.csr_matrix(X), y)


def test_tags_are_the_parameters_not_the_chosen_models():
    """The tags were the parameters' before fit, but allow_nan became the chosen model's after it (kernel: False),
    so a fitted AutoRanker and its clone disagreed; scikit-learn reads a meta-estimator's tags from its parameters."""
    from sklearn.base import clone

    X, y = _data(n=80)
    auto = AutoRanker(candidates=["kernel", "linear"], random_state=0)
    before = auto.__sklearn_tags__().input_tags
    auto.fit(X, y)
    after = auto.__sklearn_tags__().input_tags
    assert (after.sparse, after.allow_nan) == (before.sparse, before.allow_nan) == (True, True)
    assert clone(auto).__sklearn_tags__().input_tags == after
    assert np.isfinite(auto.decision_function(sp.csr_matrix(X))).all()      # sparse=True holds after fit too
