"""Under scikit-learn's metadata routing, Pipeline.score passes sample_weight=None to the last step's score."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rankcore

ESTIMATORS = [
    lambda: rankcore.boost(n_iter=5, random_state=0),
    lambda: rankcore.ExactBoost(n_rounds=2, n_runs=1, random_state=0),
    lambda: rankcore.SGDAtK(random_state=0),
    lambda: rankcore.PerceptronAtK(random_state=0),
    lambda: rankcore.KernelRanker(),
    lambda: rankcore.AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1),
]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    return X, (X[:, 0] + rng.normal(size=150) > 0).astype(int)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_a_pipelines_score_is_its_last_steps_score(make, data):
    # Pipeline.score passes sample_weight=None to its last step; a score without it fails every grid-search fold
    X, y = data
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), make()).fit(X, y)
        expected = pipe[-1].score(pipe[0].transform(X), y)
        assert pipe.score(X, y) == expected


def test_a_grid_search_over_a_pipeline_scores_every_fold(data):
    X, y = data
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(make_pipeline(StandardScaler(), rankcore.boost(n_iter=10, random_state=0)),
                              {"pushboost__price": ["pow:2", "pow:8"]}, cv=3).fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


@pytest.mark.parametrize("make", ESTIMATORS)
def test_a_weight_for_score_is_ignored_with_a_warning(make, data):
    X, y = data
    model = make().fit(X, y)
    with pytest.warns(UserWarning, match=r"^sample_weight: \w+\.score counts every row once .* the weights are "
                                         r"ignored"):
        weighted = model.score(X, y, sample_weight=np.arange(y.shape[0], dtype=float))
    assert weighted == model.score(X, y)


def test_a_weighted_grid_search_without_routing_scores_every_fold(data):
    # with metadata routing off, scikit-learn passes fit's sample_weight to score: the folds are scored (unweighted),
    # not failed, so the search does not fall back to its first candidate
    X, y = data
    w = np.random.default_rng(0).uniform(0.5, 2.0, y.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        search = GridSearchCV(rankcore.boost(n_iter=10, random_state=0), {"price": ["pow:2", "pow:8"]}, cv=3)
        search.fit(X, y, sample_weight=w)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_exactboost_score_without_labels_names_y(data):
    X, y = data
    model = rankcore.ExactBoost(n_rounds=2, n_runs=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^y: expected a 1-D array of 150 labels, got None"):
        model.score(X, None)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_the_ignored_score_weight_warning_points_at_the_callers_line_once(make, data):
    # score is decorated (it reads a snapshot of the fitted state): a fixed stacklevel pointed at rankcore's decorator,
    # so filterwarnings(module=...) and the once-per-line registry saw rankcore's file, not the caller's
    X, y = data
    model = make().fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.score(X, y, sample_weight=np.ones(y.shape[0]))
    said = [w for w in caught if str(w.message).startswith("sample_weight:")]
    assert len(said) == 1
    assert said[0].filename == __file__
    assert "its ranking metric takes no weights" in str(said[0].message)
