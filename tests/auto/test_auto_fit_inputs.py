"""AutoRanker.fit's init_score, position, eval_set (eval_names, eval_metric, eval_init_score) and init_model.

Fake candidates (registered as a plugin's while a test runs) record what
each fit is given; the built-in candidates and the installed LightGBM and
XGBoost show the arguments reach them.
"""

import numpy as np
import pytest

from rankcore import AutoRanker
from rankcore.auto import Candidate, FoldBag
from rankcore.metrics import per_query
from rankcore.registry import resolve
from rankcore.persistence import model_from_dict, model_to_dict

from _candidate_plugins import registered_candidate
from _query_data import graded_queries


def resolve_metric(spec):
    return resolve("metric", spec)

#: (candidate name, the keyword arguments of one fit, the rows of X it fitted): every fit of a fake candidate.
FITS: list = []


def _data(n=200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.7).astype(int)
    return X, y


class _Recorder:
    """Scores every row by ``sign`` times feature 0 (or 0 with ``zero``); records what its fit was given."""

    def __init__(self, name, sign=1.0, zero=False):
        self.name, self.sign, self.zero = name, sign, zero

    def decision_function(self, X):
        X = np.asarray(X)
        return np.zeros(X.shape[0]) if self.zero else self.sign * X[:, 0]


class _TakesAll(_Recorder):
    def fit(self, X, y, sample_weight=None, *, qid=None, init_score=None, position=None):
        FITS.append((self.name, {"init_score": init_score, "position": position, "qid": qid}, np.array(X)))
        return self


class _TakesNothing(_Recorder):
    def fit(self, X, y, *, qid=None):
        FITS.append((self.name, {}, np.array(X)))
        return self


class _AllCandidate(Candidate):
    name = "takes-all-for-tests"
    accepts_missing = True
    ranks_within_queries = True
    relative_cost = 0.01

    def build(self, context):
        return _TakesAll(self.name)


class _ZeroCandidate(_AllCandidate):
    """Its model scores 0 everywhere: a row's validation score is its initial score alone."""

    name = "zero-for-tests"

    def build(self, context):
        return _TakesAll(self.name, zero=True)


class _ReversedCandidate(_AllCandidate):
    name = "reversed-for-tests"

    def build(self, context):
        return _TakesAll(self.name, sign=-1.0)


class _NothingCandidate(_AllCandidate):
    name = "takes-nothing-for-tests"

    def build(self, context):
        return _TakesNothing(self.name)


@pytest.fixture
def fakes():
    FITS.clear()
    with registered_candidate(_AllCandidate, "auto-all-test"), registered_candidate(_ZeroCandidate, "auto-zero"), \
            registered_candidate(_ReversedCandidate, "auto-rev"), registered_candidate(_NothingCandidate, "auto-no"):
        yield FITS
    FITS.clear()


def _fits_of(name):
    return [(kwargs, X) for who, kwargs, X in FITS if who == name]


# ----------------------------------------------------------------------
# init_score
# ----------------------------------------------------------------------
def test_init_score_reaches_every_fit_with_its_rows_and_candidates_without_it_are_skipped(fakes):
    X, y = _data()
    init = np.round(X[:, 1] * 10) + 100.0 * np.arange(X.shape[0])      # row i's initial score names row i
    model = AutoRanker(candidates=["takes-all-for-tests", "takes-nothing-for-tests", "linear"], cv=4,
                       random_state=0, n_jobs=1).fit(X, y, init_score=init)
    fits = _fits_of("takes-all-for-tests")
    assert len(fits) == 5                                    # 4 folds and the refit
    for kwargs, X_fit in fits:
        rows = np.array([np.flatnonzero((X == r).all(axis=1))[0] for r in X_fit])
        np.testing.assert_array_equal(kwargs["init_score"], init[rows])
    assert _fits_of("takes-nothing-for-tests") == []
    notes = {r.name: r.note for r in model.leaderboard_ if r.status == "skipped"}
    assert notes == {"takes-nothing-for-tests": "takes no init_score", "linear": "takes no init_score"}
    assert model.from_init_score_ is True


def test_init_score_candidates_are_chosen_by_initial_plus_model_scores(fakes):
    """A model scoring 0 is validated at the initial scores alone; its decision_function is its own 0."""
    X, y = _data()
    init = np.random.default_rng(3).normal(size=X.shape[0])
    model = AutoRanker(candidates=["zero-for-tests"], cv=4, random_state=0, n_jobs=1).fit(X, y, init_score=init)
    np.testing.assert_array_equal(model.cv_predictions_["zero-for-tests"], init)
    np.testing.assert_array_equal(model.decision_function(X), np.zeros(X.shape[0]))
    assert model.score(X, y, init_score=init) == pytest.approx(resolve_metric("pauc:0.1")(y, init))
    assert model.score(X, y) == pytest.approx(resolve_metric("pauc:0.1")(y, np.zeros(X.shape[0])))


def test_init_score_keeps_a_single_model_without_blend_or_fold_bag():
    X, y = _data()
    init = X[:, 1].copy()
    model = AutoRanker(candidates=["trees:n_iter=8", "stumps:n_iter=10"], random_state=0, n_jobs=1).fit(
        X, y, init_score=init)
    assert not isinstance(model.best_estimator_, FoldBag) and "+" not in model.best_candidate_
    assert "from init_score" in model.selection_reason_
    assert model.best_estimator_.from_init_score_ is True          # the push refit itself started there
    plain = AutoRanker(candidates=["trees:n_iter=8", "stumps:n_iter=10"], random_state=0, n_jobs=1).fit(X, y)
    assert isinstance(plain.best_estimator_, FoldBag) and not hasattr(plain, "from_init_score_")


def test_init_score_model_saves_and_loads():
    X, y = _data()
    init = X[:, 1].copy()
    model = AutoRanker(candidates=["trees:n_iter=8"], random_state=0, n_jobs=1).fit(X, y, init_score=init)
    loaded = model_from_dict(model_to_dict(model))
    assert loaded.from_init_score_ is True
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert not hasattr(model_from_dict(model_to_dict(AutoRanker(candidates=["trees:n_iter=8"], random_state=0,
                                                                n_jobs=1).fit(X, y))), "from_init_score_")


@pytest.mark.parametrize("package, keyword", [("lightgbm", "init_score"), ("xgboost", "base_margin")])
def test_init_score_reaches_lightgbm_and_xgboost(monkeypatch, package, keyword):
    lib = pytest.importorskip(package)
    cls = lib.LGBMClassifier if package == "lightgbm" else lib.XGBClassifier
    seen = []
    original = cls.fit

    def recording_fit(self, X, y, **kwargs):
        seen.append((np.array(X), kwargs.get(keyword)))
        return original(self, X, y, **kwargs)

    monkeypatch.setattr(cls, "fit", recording_fit)
    X, y = _data()
    init = 3.0 * X[:, 1]
    model = AutoRanker(candidates=[package], cv=3, bag_folds=False, random_state=0, n_jobs=1).fit(
        X, y, init_score=init)
    assert len(seen) == 4
    for X_fit, given in seen:
        rows = np.array([np.flatnonzero((X == r).all(axis=1))[0] for r in X_fit])
        np.testing.assert_array_equal(given, init[rows])
    # the model is the correction alone: it works against the misleading feature 1 the initial scores put first
    assert np.corrcoef(model.decision_function(X), init)[0, 1] < -0.3


@pytest.mark.parametrize("init, message", [
    (np.ones(199), r"init_score: expected one score per row \(200 rows\)"),
    (np.r_[np.nan, np.ones(199)], "init_score: every initial score must be finite, row 0"),
    (np.ones((200, 2)), "init_score: expected one score per row"),
])
def test_bad_init_score_is_refused_naming_it(init, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        AutoRanker(candidates=["trees:n_iter=5"], random_state=0).fit(X, y, init_score=init)


def test_no_candidate_takes_init_score_names_it(fakes):
    X, y = _data()
    with pytest.raises(ValueError, match="none applies.*linear: takes no init_score"):
        AutoRanker(candidates=["linear", "kernel"], random_state=0).fit(X, y, init_score=X[:, 0])


# ----------------------------------------------------------------------
# position
# ----------------------------------------------------------------------
def test_position_reaches_each_fit_within_queries_and_others_are_skipped(fakes):
    X, y, qid = graded_queries(seed=1, n_queries=30)
    position = np.abs(np.round(X[:, 2] * 3)).astype(int)          # a row's position is readable from the row
    model = AutoRanker(candidates=["takes-all-for-tests", "takes-nothing-for-tests", "trees:n_iter=5"], cv=3,
                       bag_folds=False, random_state=0, n_jobs=1).fit(X, y, qid=qid, position=position)
    fits = _fits_of("takes-all-for-tests")
    assert len(fits) == 4
    for kwargs, X_fit in fits:
        np.testing.assert_array_equal(kwargs["position"], np.abs(np.round(X_fit[:, 2] * 3)).astype(int))
    assert model.leaderboard_["takes-nothing-for-tests"].note == "takes no position"
    trees = AutoRanker(candidates=["trees:n_iter=5,min_samples_leaf=3"], bag_folds=False, random_state=0,
                       n_jobs=1).fit(X, y, qid=qid, position=position)
    assert trees.best_estimator_.position_effects_.shape == (np.unique(position).shape[0],)


@pytest.mark.parametrize("position, kwargs, message", [
    (np.zeros(200, int), {}, "position: display positions are places within each query's list; pass qid"),
    (-np.ones(200, int), {"qid": np.repeat(np.arange(20), 10)}, "position: display positions are integers >= 0"),
    (np.zeros(199, int), {"qid": np.repeat(np.arange(20), 10)}, r"position: expected one display position per row"),
])
def test_bad_position_is_refused_naming_it(position, kwargs, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        AutoRanker(candidates=["trees:n_iter=5"], random_state=0).fit(X, y, position=position, **kwargs)


# ----------------------------------------------------------------------
# eval_set: the choice on the user's validation data
# ----------------------------------------------------------------------
def test_eval_set_chooses_on_the_users_set_and_keeps_the_models_fitted_on_x(fakes):
    """Labels reversed in the validation set: cross-validation keeps the anchor, the set chooses its reverse."""
    X, y = _data()
    X_val, y_val = _data(n=150, seed=1)
    y_val = 1 - y_val
    specs = ["takes-all-for-tests", "reversed-for-tests"]
    by_cv = AutoRanker(candidates=specs, blend=False, random_state=0, n_jobs=1).fit(X, y)
    assert by_cv.best_candidate_ == "takes-all-for-tests"
    FITS.clear()
    model = AutoRanker(candidates=specs, blend=False, random_state=0, n_jobs=1).fit(X, y, eval_set=(X_val, y_val))
    assert model.best_candidate_ == "reversed-for-tests"
    assert model.cv_description_ == "the eval_set 'validation_0' (150 rows)"
    assert [X_fit.shape[0] for _, _, X_fit in FITS] == [200, 200]             # each candidate once, on X: no refit
    np.testing.assert_array_equal(FITS[1][2], X)
    assert model.cv_predictions_["reversed-for-tests"].shape == (150,)
    pauc = resolve_metric("pauc:0.1")
    assert model.evals_result_ == {"validation_0": {"pauc:0.1": {"takes-all-for-tests": pauc(y_val, X_val[:, 0]),
                                                                  "reversed-for-tests": pauc(y_val, -X_val[:, 0])}}}


def test_eval_set_list_watches_the_last_set_that_is_not_x_and_records_eval_metric(fakes):
    X, y = _data()
    X_val, y_val = _data(n=150, seed=1)
    model = AutoRanker(candidates=["takes-all-for-tests", "reversed-for-tests"], random_state=0, n_jobs=1).fit(
        X, y, eval_set=[(X_val, 1 - y_val), (X, y)], eval_names=["valid", "train"], eval_metric=["auc", "pauc:0.1"])
    assert model.best_candidate_ == "reversed-for-tests"             # the training rows themselves are not watched
    assert list(model.evals_result_) == ["valid", "train"]
    assert list(model.evals_result_["train"]) == ["pauc:0.1", "auc"]
    auc = resolve_metric("auc")
    assert model.evals_result_["train"]["auc"]["takes-all-for-tests"] == pytest.approx(auc(y, X[:, 0]))


def test_eval_set_with_eval_init_score_scores_each_set_at_its_initial_scores(fakes):
    X, y = _data()
    X_val, y_val = _data(n=150, seed=1)
    init, init_val = X[:, 1].copy(), np.random.default_rng(5).normal(size=150)
    model = AutoRanker(candidates=["zero-for-tests"], random_state=0, n_jobs=1).fit(
        X, y, init_score=init, eval_set=(X_val, y_val), eval_init_score=init_val)
    np.testing.assert_array_equal(model.cv_predictions_["zero-for-tests"], init_val)
    np.testing.assert_array_equal(_fits_of("zero-for-tests")[0][0]["init_score"], init)


def test_eval_set_within_queries_chooses_per_query_in_the_sets_order():
    X, y, qid = graded_queries(seed=2, n_queries=30)
    X_val, y_val, qid_val = graded_queries(seed=3, n_queries=12)
    specs = ["trees:n_iter=5,min_samples_leaf=3", "stumps:n_iter=10"]
    model = AutoRanker(candidates=specs, random_state=0, n_jobs=1).fit(
        X, y, qid=qid, eval_set=(X_val, y_val, qid_val))
    assert model.cv_description_.startswith("the eval_set 'validation_0' (")
    for spec in specs:
        scores = model.cv_predictions_[spec]
        value = per_query(y_val, scores, "ndcg@k:10", qid=qid_val).mean
        assert model.evals_result_["validation_0"]["ndcg@k:10"][spec] == pytest.approx(value)
    best = model.evals_result_["validation_0"]["ndcg@k:10"][model.best_candidate_]
    assert best == pytest.approx(model.score(X_val, y_val, qid=qid_val))


@pytest.mark.parametrize("kwargs, message", [
    ({"eval_set": (np.ones((5, 3)), np.r_[0, 1, 0, 1, 0])}, "eval_set: X_val: X has 3 features"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0])}, r"eval_set: expected y_val of one label per row of X_val \(5\)"),
    ({"eval_set": (np.ones((5, 4)), np.zeros(5))}, "eval_set: y_val holds one class only"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 7])}, "eval_set: y_val holds labels other than"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0], np.zeros(5))}, "eval_set: a set with query ids"),
    ({"eval_set": [(np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), (np.ones((5, 4)),)]}, r"eval_set\[1\]: expected a tuple"),
    ({"eval_names": ["a"]}, "eval_names: given without eval_set"),
    ({"eval_metric": "auc"}, "eval_metric: given without eval_set"),
    ({"eval_init_score": np.zeros(5)}, "eval_init_score: given without eval_set"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), "eval_names": ["a", "b"]}, "eval_names: expected 1"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), "init_score": np.zeros(200)},
     "eval_init_score: the fit starts from init_score.*eval_set has none"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), "eval_init_score": np.zeros(5)},
     "eval_init_score: given without init_score"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), "eval_init_score": np.zeros(4), "init_score": np.zeros(200)},
     r"eval_init_score: expected one score per row \(5 rows\)"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), "eval_metric": "no-such-metric"}, "eval_metric"),
    ({"eval_set": (np.ones((5, 4)), np.r_[0, 1, 0, 1, 0]), "eval_metric": "prec@k:50"},
     "eval_metric: the metric 'prec@k:50' cannot score eval_set"),
])
def test_bad_eval_arguments_are_refused_naming_them(kwargs, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        AutoRanker(candidates=["trees:n_iter=5"], random_state=0).fit(X, y, **kwargs)


def test_eval_set_that_is_only_x_is_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="eval_set: every set is the training data itself"):
        AutoRanker(candidates=["trees:n_iter=5"], random_state=0).fit(X, y, eval_set=[(X, y)])


def test_eval_set_within_queries_needs_query_ids_and_counted_queries():
    X, y, qid = graded_queries(seed=2, n_queries=20)
    X_val, y_val, qid_val = graded_queries(seed=3, n_queries=6)
    auto = AutoRanker(candidates=["trees:n_iter=5"], random_state=0)
    with pytest.raises(ValueError, match=r"eval_set: a fit within queries is validated per query: pass \(X_val"):
        auto.fit(X, y, qid=qid, eval_set=(X_val, y_val))
    with pytest.raises(ValueError, match="eval_set: the metric 'ndcg@k:10' counts none of its queries"):
        auto.fit(X, y, qid=qid, eval_set=(X_val, np.zeros_like(y_val), qid_val))
    with pytest.raises(ValueError, match="eval_set qid_val"):
        auto.fit(X, y, qid=qid, eval_set=(X_val, y_val, qid_val[:-1]))


# ----------------------------------------------------------------------
# init_model
# ----------------------------------------------------------------------
def test_init_model_is_refused_with_what_to_do_instead():
    X, y = _data()
    fitted = AutoRanker(candidates=["trees:n_iter=5"], random_state=0, n_jobs=1).fit(X, y)
    with pytest.raises(ValueError, match=r"init_model: AutoRanker does not continue a fitted model.*"
                                         r"init_score=model.decision_function\(X\)"):
        AutoRanker(candidates=["trees:n_iter=5"], random_state=0).fit(X, y, init_model=fitted)
