"""``feature_contributions(X, background=Z)`` against the Shapley values of the whole model's game.

Independent of ``_interventional_reference`` (which scores each tree's own hybrids): here v(S) is the mean over
the background of ``decision_function`` of the rows with x's values on S and z's elsewhere, for every subset S
of all the model's features (d <= 6), so whatever the estimator adds or routes -- learning rates, an init model's
trees, categories, NaN, CSR rows, float32, a DataFrame's category columns -- is in the game.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import rankcore
from _shapley_brute import brute_force
from rankcore import PNormPush, PushBoost, RankBoost

TOL = dict(rtol=1e-9, atol=1e-12)


def _data(seed=0, n=400, d=5, nan=0.12):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 2) / 2
    X[rng.random(X.shape) < nan] = np.nan
    z = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    return X, (z + 0.5 * rng.normal(size=n) > 0).astype(int)


def _assert_brute(model, X, Z, rows=4, score=None):
    score = score or model.decision_function
    phi = model.feature_contributions(X[:rows], background=Z)
    for i in range(rows):
        np.testing.assert_allclose(phi[i], brute_force(score, X[i], Z), **TOL)
    np.testing.assert_allclose(phi.sum(axis=1), score(X[:rows]), **TOL)


MODELS = {
    "leafwise": lambda X, y: PushBoost(learner="trees:max_leaves=8", n_iter=5, random_state=0).fit(X, y),
    "depthwise": lambda X, y: PushBoost(learner="trees:growth=depthwise,max_depth=3,learning_rate=0.3", n_iter=5,
                                        random_state=0).fit(X, y),
    "monotone": lambda X, y: PushBoost(learner="trees:max_leaves=6,monotone=1/-1/0/0/0", n_iter=4,
                                       random_state=0).fit(X, y),
    "interactions": lambda X, y: PushBoost(learner="trees:max_leaves=6,interactions=0+1+2/3+4", n_iter=4,
                                           random_state=0).fit(X, y),
    "categorical": lambda X, y: PushBoost(learner="trees:max_leaves=8,categorical=3", n_iter=5,
                                          random_state=0).fit(np.column_stack([X[:, :3], np.abs(X[:, 3]) * 2,
                                                                               X[:, 4]]), y),
    "oblivious": lambda X, y: PushBoost(learner="trees:growth=oblivious,max_depth=4", n_iter=5,
                                        random_state=0).fit(X, y),
    "pnormpush": lambda X, y: PNormPush(learner="trees:max_leaves=6", n_iter=4, random_state=0).fit(X, y),
    "rankboost": lambda X, y: RankBoost(learner="trees:max_leaves=6", n_iter=4, random_state=0).fit(X, y),
    "init_model": lambda X, y: PushBoost(learner="trees:max_leaves=6", n_iter=3, random_state=1).fit(
        X, y, init_model=PushBoost(learner="trees:max_leaves=6", n_iter=3, random_state=0).fit(X, y)),
    "init_score": lambda X, y: PushBoost(learner="trees:max_leaves=6", n_iter=4, random_state=0).fit(
        X, y, init_score=np.linspace(-1, 1, X.shape[0])),
}


@pytest.mark.parametrize("kind", list(MODELS))
def test_the_values_are_those_of_the_whole_models_game(kind):
    X, y = _data()
    if kind == "categorical":
        X = np.column_stack([X[:, :3], np.abs(X[:, 3]) * 2, X[:, 4]])
        X[:2, 3] = [11.0, np.nan]                    # an unseen category and a missing one, explained
    model = MODELS[kind](X, y)
    Z = np.vstack([X[300:307], X[300]])              # NaN, ties and a duplicated row in the background
    _assert_brute(model, X, Z)


@pytest.mark.parametrize("objective", ["lambdarank", "xendcg"])
@pytest.mark.parametrize("learner", ["trees:max_leaves=6", "trees:growth=oblivious,max_depth=3", "trees"])
def test_per_query_objectives(objective, learner):
    X, _ = _data(seed=1)
    grades = np.random.default_rng(1).integers(0, 4, X.shape[0]).astype(float)
    model = rankcore.boost(objective=objective, learner=learner, n_iter=4, random_state=0).fit(
        X, grades, qid=np.repeat(np.arange(40), 10))
    _assert_brute(model, X, X[350:356])


def test_csr_rows_and_background_of_a_bundled_sparse_fit():
    rng = np.random.default_rng(2)
    X = sp.random(500, 6, density=0.15, random_state=2, format="csr")
    X.data = np.round(X.data * 4)
    dense = X.toarray()
    y = (dense[:, 0] + dense[:, 1] + 0.3 * rng.normal(size=500) > 0.5).astype(int)
    model = PushBoost(learner="trees:max_leaves=8,min_samples_leaf=3", n_iter=5, random_state=0).fit(X, y)
    phi = model.feature_contributions(X[:4], background=X[100:110])
    np.testing.assert_array_equal(phi, model.feature_contributions(dense[:4], background=dense[100:110]))
    for i in range(4):
        np.testing.assert_allclose(phi[i], brute_force(model.decision_function, dense[i], dense[100:110]), **TOL)


def test_float32_rows_are_read_as_prediction_reads_them():
    X, y = _data(seed=3)
    X32 = X.astype(np.float32)
    model = PushBoost(learner="trees:max_leaves=8", n_iter=5, random_state=0).fit(X32, y)
    _assert_brute(model, X32, X32[300:306], score=lambda rows: model.decision_function(rows.astype(np.float32)))


def test_a_dataframe_with_category_columns():
    pd = pytest.importorskip("pandas")
    X, y = _data(seed=4, d=4)
    codes = np.where(np.isnan(X[:, 3]), -1, np.abs(X[:, 3]) * 2).astype(int)
    labels = np.array(["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"])
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2],
                          "g": pd.Categorical(np.where(codes < 0, None, labels[np.minimum(codes, 9)]))})
    model = PushBoost(learner="trees:max_leaves=8", n_iter=5, random_state=0).fit(frame, y)
    categories = list(frame["g"].cat.categories)

    def score(rows):                                  # hybrids of codes, read back as the frame's categories
        out = pd.DataFrame(rows[:, :3], columns=["a", "b", "c"])
        out["g"] = pd.Categorical.from_codes(np.nan_to_num(rows[:, 3], nan=-1).astype(int), categories=categories)
        return model.decision_function(out)

    as_codes = np.column_stack([X[:, :3], frame["g"].cat.codes.to_numpy().astype(float)])
    as_codes[as_codes[:, 3] < 0, 3] = np.nan
    phi = model.feature_contributions(frame.iloc[:4], background=frame.iloc[300:306])
    for i in range(4):
        np.testing.assert_allclose(phi[i], brute_force(score, as_codes[i], as_codes[300:306]), **TOL)


@pytest.mark.parametrize("learner", ["trees:max_leaves=16", "trees:growth=oblivious,max_depth=5"])
def test_background_order_duplicates_and_constant_columns(learner):
    X, y = _data(seed=5, n=500, d=6)
    model = PushBoost(learner=learner, n_iter=20, random_state=0).fit(X, y)
    Z = X[400:440]
    phi = model.feature_contributions(X[:60], background=Z)
    shuffled = model.feature_contributions(X[:60], background=Z[np.random.default_rng(0).permutation(40)])
    np.testing.assert_allclose(shuffled, phi, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.feature_contributions(X[:60], background=np.repeat(Z[:1], 5, axis=0)),
                               model.feature_contributions(X[:60], background=Z[:1]), rtol=0, atol=1e-12)
    twice = model.feature_contributions(X[:60], background=np.vstack([Z, Z]))
    np.testing.assert_allclose(twice, phi, rtol=0, atol=1e-12)
    constant = Z.copy()
    constant[:, 3], constant[:, 5] = 0.25, np.nan
    values = model.feature_contributions(X[:60], background=constant)
    np.testing.assert_allclose(values.sum(axis=1), model.decision_function(X[:60]), **TOL)
