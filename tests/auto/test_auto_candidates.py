"""AutoRanker's built-in candidates: the trees' CatBoost-like settings (growth, leaf penalty, long schedule)."""

from dataclasses import replace

import warnings

import numpy as np
import pytest

import rankcore
from rankcore.auto._builtin import LONG_TREES, long_rate, start_curvature
from rankcore.auto._tasks import make_context
from rankcore.persistence import model_from_dict, model_to_dict


def _context(n=300, positives=60, seed=0):
    X = np.zeros((n, 3))
    y = np.zeros(n, dtype=int)
    y[:positives] = 1
    return make_context("pauc:0.1", X, y, seed, 1)


@pytest.mark.parametrize("n, positives", [(2, 1), (40, 3), (301, 150), (1000, 999)])
def test_auto_start_curvature_is_the_objectives_mean_curvature_on_any_label_order(n, positives):
    rng = np.random.default_rng(n)
    y = np.zeros(n, dtype=np.int8)
    y[rng.choice(n, positives, replace=False)] = 1
    bound = rankcore.resolve("objective", "push:exp,pow:2").bind(y)
    _, _, h = bound.value_gradient_hessian(np.zeros(n))
    assert start_curvature(n, positives) == pytest.approx(float(np.mean(h)), rel=1e-12)


def test_auto_long_rate_follows_the_clipped_power_rule():
    for n in (50, 1000, 3000, 10_000, 50_000, 10**7):
        assert long_rate(n) == pytest.approx(float(np.clip(0.05 * (n / 1e4) ** 0.3, 0.02, 0.1)))
    assert long_rate(100) == 0.02 and long_rate(10**8) == 0.1


def test_auto_trees_candidate_places_the_penalty_and_the_schedule_from_the_fold():
    candidate = rankcore.resolve("candidate", "trees:growth=oblivious,leaf_reg=12,schedule=long")
    assert candidate.spec == "trees:growth=oblivious,leaf_reg=12,schedule=long"
    context = _context()
    l2 = 12 * start_curvature(300, 60)
    assert candidate.learner_spec(context) == (f"trees:growth=oblivious,learning_rate={long_rate(300):.6g},"
                                               f"l2={l2:.6g}")
    model = candidate.build(context)
    assert model.n_iter == LONG_TREES
    # the penalty scales with the curvature of the fold's labels: more rows, smaller per-row curvature
    assert start_curvature(3000, 600) < start_curvature(300, 60)
    # the default spec is unchanged by the new parameters
    assert rankcore.resolve("candidate", "trees").learner_spec(context) == "trees"
    assert rankcore.resolve("candidate", "trees:learning_rate=0.05,schedule=long").learner_spec(context) == \
        f"trees:learning_rate={long_rate(300):.6g}"


def test_auto_trees_candidate_costs_rank_as_measured():
    cost = {s: rankcore.resolve("candidate", s).relative_cost
            for s in ("trees", "trees:growth=oblivious", "trees:schedule=long")}
    assert cost["trees"] < cost["trees:growth=oblivious"] < cost["trees:schedule=long"]


def test_auto_trees_candidate_passes_random_strength_to_the_learner():
    candidate = rankcore.resolve("candidate", "trees:random_strength=3")
    assert candidate.learner_spec(_context()) == "trees:random_strength=3"
    model = candidate.build(_context())
    assert rankcore.resolve("learner", model.learner).random_strength == 3


def test_auto_oblivious_candidate_fits_and_is_deterministic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0.5).astype(int)
    candidate = rankcore.resolve("candidate", "trees:n_iter=10,growth=oblivious,leaf_reg=12")
    a = candidate.build(make_context("pauc:0.1", X, y, 7, 1)).fit(X, y)
    b = candidate.build(make_context("pauc:0.1", X, y, 7, 1)).fit(X, y)
    np.testing.assert_array_equal(candidate.scores(a, X), candidate.scores(b, X))


# ----------------------------------------------------------------------
# The default search: which candidates apply at which size
# ----------------------------------------------------------------------
LARGE_SHAPE = "trees:n_iter=300,large_data=false,min_rows=10001"
DEFAULT = ["trees", "trees:max_leaves=8", "trees:subsample=1", LARGE_SHAPE, "trees:n_iter=300,min_rows=3000", "linear",
           "kernel", "kernel:kernel=rbf", "exactboost"]
#: Up to 10,000 training rows (of a fold) the small-data shape for large data is skipped, below 3,000 the 300 trees.
SMALL = [spec for spec in DEFAULT if spec not in (LARGE_SHAPE, "trees:n_iter=300,min_rows=3000")]


def _applicable(n, d=5, nan=False):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, d))
    if nan:
        X[0, 0] = np.nan
    y = (X[:, 0] + rng.normal(size=n) > 0.8).astype(int)
    applicable, skipped = rankcore.AutoRanker()._applicable(None, X, y, 1, "pauc:0.1")
    return [candidate.spec for candidate in applicable], skipped


def test_auto_default_search_lists_the_anchor_first():
    from rankcore.auto import default_specs

    assert default_specs() == DEFAULT


@pytest.mark.parametrize("n, applicable", [
    (400, SMALL),
    (750, SMALL),                                                                 # folds of 600 rows
    (760, ["trees", "trees:max_leaves=8", "trees:subsample=1", "linear", "exactboost"]),  # kernels: > 600 fold rows
    (2500, ["trees", "trees:max_leaves=8", "trees:subsample=1", "linear", "exactboost"]),
    (2510, ["trees", "trees:max_leaves=8", "trees:subsample=1", "linear"]),  # ExactBoost: > 2,000
    (3000, ["trees", "trees:max_leaves=8", "trees:subsample=1", "linear"]),
    (3001, ["trees", "trees:max_leaves=8", "trees:subsample=1", "linear"]),
    (3740, ["trees", "trees:max_leaves=8", "trees:subsample=1", "linear"]),
    # folds of 3,000 rows, of 10,000
    (3750, ["trees", "trees:max_leaves=8", "trees:subsample=1", "trees:n_iter=300,min_rows=3000", "linear"]),
    (12_500, ["trees", "trees:max_leaves=8", "trees:subsample=1", "trees:n_iter=300,min_rows=3000", "linear"]),
    (12_510, ["trees", "trees:max_leaves=8", LARGE_SHAPE, "trees:n_iter=300,min_rows=3000", "linear"]),  # large data
])
def test_auto_default_candidates_by_size(n, applicable):
    specs, skipped = _applicable(n)
    assert specs == applicable
    if n > 750:
        assert "more than 600 training rows" in skipped["kernel"]
    if n < 3750:
        assert skipped["trees:n_iter=300,min_rows=3000"] == "fewer than 3,000 training rows"
    if n <= 12_500:
        assert skipped[LARGE_SHAPE] == "fewer than 10,001 training rows"
    else:
        # the large-data settings train on every row: the every-row trees are the default trees there
        assert skipped["trees:subsample=1"] == "fits the same model as 'trees' on these data"


def test_auto_candidates_that_fit_the_same_model_are_skipped():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0.5).astype(int)
    from rankcore.registry import resolve

    # up to 10,000 rows the large-data settings change nothing: two specs, one model
    asked = ["trees", "trees:large_data=false", "trees:max_leaves=8", "linear"]
    applicable, skipped = rankcore.AutoRanker()._applicable([resolve("candidate", s) for s in asked], X, y, 1,
                                                            "pauc:0.1")
    assert [candidate.spec for candidate in applicable] == ["trees", "trees:max_leaves=8", "linear"]
    assert skipped == {"trees:large_data=false": "fits the same model as 'trees' on these data"}


@pytest.mark.parametrize("spec, leaves, rate, subsample", [
    ("trees", 31, 0.2, 1.0),                        # the learner's large-data settings
    ("trees:large_data=false", 31, 0.1, 0.8),       # the small-data shape, still stopped early
    ("trees:large_data=false,max_leaves=15", 15, 0.1, 0.8),
])
def test_auto_trees_large_data_shape(spec, leaves, rate, subsample):
    from rankcore.registry import resolve

    rng = np.random.default_rng(1)
    n = 10_050
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 1).astype(int)
    candidate = resolve("candidate", spec)
    model = candidate.build(make_context("pauc:0.1", X, y, 3, 1))
    model.set_params(n_iter=2).fit(X, y)
    learner = resolve("learner", model.learner_spec_)
    assert (learner.max_leaves, learner.learning_rate, learner.subsample) == (leaves, rate, subsample)
    assert model.validation_metric_ == "pauc:0.1"


def test_auto_missing_values_keep_every_candidate_the_imputer_serves():
    """The candidates that refuse NaN are fitted behind the imputer, not skipped: the search is the same
    as without missing values."""
    specs, skipped = _applicable(300, nan=True)
    assert (specs, skipped) == _applicable(300)
    assert set(skipped) == {LARGE_SHAPE, "trees:n_iter=300,min_rows=3000"}


def test_auto_default_search_on_small_data_is_deterministic():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.7 * rng.normal(size=150) > 0.6).astype(int)
    a = rankcore.AutoRanker(random_state=2, n_jobs=1).fit(X, y)
    b = rankcore.AutoRanker(random_state=2, n_jobs=1).fit(X, y)
    names = [r.name for r in a.leaderboard_]
    assert names == [r.name for r in b.leaderboard_]
    for ra, rb in zip(a.leaderboard_, b.leaderboard_):
        np.testing.assert_array_equal(ra.fold_scores, rb.fold_scores)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.cv_description_ == "5-fold stratified cross-validation"
    # the plan: every candidate on two folds, then the three leaders and the anchor on five
    folds = {r.name: r.n_folds for r in a.leaderboard_ if not r.name.startswith("blend(")}
    assert set(folds) == set(DEFAULT) and folds["trees"] == 5
    for spec in (LARGE_SHAPE, "trees:n_iter=300,min_rows=3000"):
        assert a.leaderboard_[spec].status == "skipped"
        del folds[spec]
    assert sorted(folds.values()) in ([2, 2, 2, 2, 5, 5, 5], [2, 2, 2, 5, 5, 5, 5])


def test_auto_exactboost_candidate_defaults_to_ten_runs():
    candidate = rankcore.resolve("candidate", "exactboost")
    assert candidate.n_runs == 10
    assert candidate.build(_context()).n_runs == 10
    assert rankcore.resolve("candidate", "exactboost:n_runs=50").relative_cost > candidate.relative_cost


@pytest.mark.parametrize("n, refit_stops_early", [(11_000, False), (13_000, True)])
def test_auto_refit_fits_the_model_its_folds_validated(n, refit_stops_early):
    # 11,000 rows: folds of 8,800 training rows fit without early stopping (it switches on above
    # 10,000), so the refit on all 11,000 rows must too; 13,000: folds of 10,400, early stopping in both
    rng = np.random.default_rng(4)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 1).astype(int)
    model = rankcore.AutoRanker(candidates=["trees:n_iter=3", "stumps:n_iter=3"], blend=False, random_state=0,
                                n_jobs=1).fit(X, y)
    refit = model.best_estimator_
    assert refit.early_stopping == ("auto" if refit_stops_early else False)
    assert hasattr(refit, "validation_scores_") == refit_stops_early


@pytest.mark.parametrize("n, spec", [(11_000, "trees:n_iter=3"), (13_000, "trees:large_data=false,n_iter=3")])
def test_auto_large_data_choices_save_and_load(tmp_path, n, spec):
    from rankcore.persistence import load_model, save_model

    rng = np.random.default_rng(6)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] * X[:, 1] + rng.normal(size=n) > 1).astype(int)
    model = rankcore.AutoRanker(candidates=[spec], random_state=0, n_jobs=1).fit(X, y)
    save_model(model, tmp_path / "auto.json")
    loaded = load_model(tmp_path / "auto.json")
    np.testing.assert_array_equal(loaded.decision_function(X[:500]), model.decision_function(X[:500]))
    assert loaded.best_estimator_.get_params() == model.best_estimator_.get_params()


def test_auto_early_stopping_as_validated():
    from rankcore.auto._builtin import early_stopping_as_validated

    context = _context(n=20_000, positives=5_000)
    assert early_stopping_as_validated(context) == "auto"                                   # a fold's fit
    assert early_stopping_as_validated(replace(context, validated_rows=10_000)) is False
    assert early_stopping_as_validated(replace(context, validated_rows=10_001)) == "auto"
    assert early_stopping_as_validated(replace(context, n_rows=9_000, validated_rows=7_200)) == "auto"


def test_auto_trees_min_rows_skips_below_it():
    context = _context(n=2_999, positives=500)
    candidate = rankcore.resolve("candidate", "trees:n_iter=300,min_rows=3000")
    assert candidate.skip_reason(context) == "fewer than 3,000 training rows"
    assert candidate.skip_reason(replace(context, n_rows=3_000)) is None


@pytest.mark.parametrize("n, same", [(10_050, True), (2_000, False)])
def test_auto_fit_identity_means_the_same_fit(n, same):
    # the claim behind skipping a candidate: equal identities fit equal models (and unequal ones may not)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] * X[:, 2] + rng.normal(size=n) > 0.8).astype(int)
    context = make_context("pauc:0.1", X, y, 5, 1)
    a, b = (rankcore.resolve("candidate", spec) for spec in ("trees:n_iter=4", "trees:n_iter=4,subsample=1"))
    assert (a.fit_identity(context) == b.fit_identity(context)) is same
    fits = [candidate.build(context).fit(X, y).decision_function(X) for candidate in (a, b)]
    assert np.array_equal(fits[0], fits[1]) is same


def _named_frame():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return pd.DataFrame(X, columns=["age", "income", "height", "weight"]), y


@pytest.mark.filterwarnings("ignore:candidate 'trees.*in no group:UserWarning")
def test_auto_trees_candidate_naming_columns_takes_their_indices_at_fit():
    """``interactions`` by name: the search fits the candidate with the columns' indices, shown as given."""
    frame, y = _named_frame()
    named, by_index = "trees:n_iter=5,interactions=income+age/weight", "trees:n_iter=5,interactions=0+1/3"
    model = rankcore.AutoRanker(candidates=[named, "linear"], cv=2, bag_folds=False, random_state=0,
                                n_jobs=1).fit(frame, y)
    same = rankcore.AutoRanker(candidates=[by_index, "linear"], cv=2, bag_folds=False, random_state=0,
                               n_jobs=1).fit(frame, y)
    assert [row.name for row in model.leaderboard_] == [row.name.replace(by_index, named)
                                                       for row in same.leaderboard_]
    assert named in [row.name for row in model.leaderboard_] and named in model.cv_predictions_
    for a, b in zip(model.leaderboard_, same.leaderboard_):
        np.testing.assert_array_equal(a.fold_scores, b.fold_scores)
    np.testing.assert_array_equal(model.decision_function(frame), same.decision_function(frame))
    alone = rankcore.AutoRanker(candidates=[named], cv=2, bag_folds=False, random_state=0, n_jobs=1).fit(frame, y)
    assert alone.best_candidate_ == named
    assert alone.best_estimator_.learner_spec_.endswith("interactions=0+1/3")      # the member holds indices
    loaded = model_from_dict(model_to_dict(alone))
    assert loaded.best_candidate_ == named
    np.testing.assert_array_equal(loaded.decision_function(frame), alone.decision_function(frame))


@pytest.mark.parametrize("spec", ["trees:n_iter=5,interactions=income+age", "trees:n_iter=5,interactions=1+0"])
def test_auto_trees_candidate_warns_of_columns_in_no_group_by_their_names(spec):
    """The members fit on arrays, whose warning names columns by index: the user's warning and the leaderboard's
    note name the candidate as asked for and X's columns by name, once for the refit."""
    frame, y = _named_frame()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.AutoRanker(candidates=[spec], cv=2, bag_folds=False, random_state=0, n_jobs=1).fit(frame, y)
    said = [str(w.message) for w in caught if "in no group" in str(w.message)]
    expected = (f"candidate {spec!r} puts the feature columns height (column 2), weight (column 3) in no group, "
                "so no tree splits them")
    assert said == [expected]
    assert caught[0].filename == __file__                       # shown at the caller's line, as the member's is
    assert model.leaderboard_[spec].note.endswith(f"fold 1 warned: UserWarning: {expected}")
    with warnings.catch_warnings(record=True) as caught:        # an array: the columns by index, as the learner's
        warnings.simplefilter("always")
        rankcore.AutoRanker(candidates=["trees:n_iter=5,interactions=1+0"], cv=2, bag_folds=False, random_state=0,
                            n_jobs=1).fit(frame.to_numpy(), y)
    assert [str(w.message) for w in caught if "in no group" in str(w.message)] == [
        "interactions='0+1' (learner 'trees') puts the feature columns 2, 3 in no group, so no tree splits them "
        "(interactions counts the feature columns from 0)"]


def test_auto_trees_candidate_warning_made_an_error_by_the_caller_is_raised_not_a_failed_refit():
    """Under the caller's ``simplefilter("error")`` the named warning leaves fit as the exception asked for; it is
    not taken for a failure of the chosen model's refit (which would silently choose another candidate)."""
    frame, y = _named_frame()
    spec = "trees:n_iter=5,interactions=income+age"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=r"^candidate 'trees:n_iter=5,interactions=income\+age' puts the "
                                              r"feature columns height \(column 2\), weight \(column 3\) in no group"):
            rankcore.AutoRanker(candidates=[spec], cv=2, bag_folds=False, random_state=0, n_jobs=1).fit(frame, y)


def test_auto_trees_candidate_naming_columns_it_cannot_find_is_refused():
    frame, y = _named_frame()
    spec = "trees:n_iter=5,interactions=income+age/weight"
    with pytest.raises(ValueError, match=r"^candidates: 'trees:interactions=incme': interactions: 'incme' is not a "
                                         r"column of X \(the closest: 'income'\)"):
        rankcore.AutoRanker(candidates=["trees:interactions=incme"], cv=2).fit(frame, y)
    with pytest.raises(ValueError, match=r"^candidates: 'trees:n_iter=5,interactions=income\+age/weight': "
                                         r"interactions: the columns 'age', 'income', 'weight' are given by name, "
                                         r"but X has no column names"):
        rankcore.AutoRanker(candidates=[spec], cv=2).fit(frame.to_numpy(), y)     # an array: no names to map
    with pytest.raises(ValueError, match=r"^candidates: 'trees:interactions=age\+zzz'.*'zzz' is not a column "
                                         r"of X \(its columns: 'age', 'income', 'height', 'weight'\)"):
        rankcore.AutoRanker(candidates=["linear", "trees:interactions=age+zzz"], cv=2).fit(frame, y)


@pytest.mark.parametrize("spec", ["stumps:n_iter=1e308", "trees:n_iter=9223372036854775808",
                                  "linear:n_epochs=2147483648"])
def test_auto_candidate_iterations_beyond_a_c_int_are_refused_by_name(spec):
    # these ran the candidate's fit for ever (every iteration count is a C int in LightGBM and XGBoost too)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    name, _, option = spec.partition(":")
    with pytest.raises(ValueError, match=rf"candidate '{name}': {option.split('=')[0]} must be an integer >= \d and "
                                         r"<= 2147483647"):
        rankcore.AutoRanker(candidates=[spec], cv=2, random_state=0).fit(X, y)


def test_the_refits_warnings_keep_matching_a_filter_by_module():
    # the refit's warnings, held to name X's columns, were said again by their file's path alone: a user's
    # filterwarnings(module=...) that silences them escaped (and a file of no module must still be said)
    import re
    from types import SimpleNamespace

    from rankcore.auto._candidate import warnings_named_by

    candidate = SimpleNamespace(named_warning=lambda text: text.replace("column 2", "column 'age'"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning, module=re.escape(__name__))
        with warnings_named_by(candidate):
            warnings.warn("column 2 is constant", UserWarning)
            warnings.warn_explicit("column 2 is constant", UserWarning, "<a notebook cell>", 1)
    assert [(str(w.message), w.filename) for w in caught] == [("column 'age' is constant", "<a notebook cell>")]
