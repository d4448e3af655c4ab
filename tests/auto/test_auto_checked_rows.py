"""AutoRanker checks the rows of a call once: the members of its bag or blend score them without checking again."""
import warnings

import numpy as np
import pytest
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import rankcore
from rankcore import _frames
from rankcore.auto import AutoRanker


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=160) > 0.9).astype(int)
    return X, y


@pytest.fixture(scope="module", params=["linear", "kernel"])
def fitted(request):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = AutoRanker(candidates=[request.param], n_jobs=1, random_state=0).fit(X, y)
    return X, auto


def _members(model):
    inner = getattr(model, "estimators", None)
    return [m for e in inner for m in _members(e)] if inner is not None else [model]


def _counted(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_the_rows_are_checked_once_per_call_not_once_per_member(fitted, monkeypatch):
    from rankcore.auto import _estimator
    from rankcore.precision_at_k import _linear
    from rankcore.rkhs import _estimator as kernel_estimator

    X, auto = fitted
    assert len(_members(auto.best_estimator_)) >= 2
    checks = [_counted(monkeypatch, module, "validate_columns") for module in (_estimator, _linear, kernel_estimator)]
    scaled = _counted(monkeypatch, StandardScaler, "transform")
    for _ in range(3):
        auto.decision_function(X[:1])
    # before, each member ran scikit-learn's checks and its own again: 1 + one per member (and per scaler) a call
    assert [len(c) for c in checks] == [3, 0, 0]
    assert scaled == []


def test_the_members_path_gives_the_same_scores_bit_for_bit(fitted):
    X, auto = fitted
    for rows in (X[:1], X[:7], X, np.asfortranarray(X[:20]), X[:20].astype(np.float32)):
        np.testing.assert_array_equal(auto.decision_function(rows),
                                      auto.best_estimator_.decision_function(np.asarray(rows, dtype=np.float64)))


def test_a_blend_of_bags_gives_the_same_scores_bit_for_bit(monkeypatch):
    from rankcore.auto._blend import RankAverage
    from rankcore.auto._candidate import checked_scores
    from rankcore.rkhs import _estimator as kernel_estimator

    X, y = _data()
    bags = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for spec in ("linear", "kernel"):
            bags.append(AutoRanker(candidates=[spec], n_jobs=1, random_state=0).fit(X, y).best_estimator_)
    blend = RankAverage(["linear", "kernel"], bags, [np.sort(b.decision_function(X)) for b in bags])
    expected = blend.decision_function(X[:9])
    checks = _counted(monkeypatch, kernel_estimator, "validate_columns")
    np.testing.assert_array_equal(checked_scores(blend, np.ascontiguousarray(X[:9])), expected)
    assert checks == []


def test_rows_with_nan_still_get_the_members_own_refusal(fitted):
    X, auto = fitted
    rows = X[:3].copy()
    rows[1, 2] = np.nan
    # the kernel ranker and the linear one take no NaN: their own refusal, as before
    with pytest.raises(ValueError, match="X"):
        auto.decision_function(rows)


def test_a_scaler_pipeline_transform_is_the_scalers_own():
    from rankcore.auto._candidate import checked_scores

    rng = np.random.default_rng(1)
    X = rng.normal(loc=3.0, scale=[1e-3, 1.0, 1e3], size=(50, 3))
    y = (X[:, 0] > 3.0).astype(int)
    for scaler in (StandardScaler(), StandardScaler(with_mean=False), StandardScaler(with_std=False)):
        model = Pipeline([("s", scaler), ("m", rankcore.SGDAtK(random_state=0, n_epochs=2))]).fit(X, y)
        np.testing.assert_array_equal(checked_scores(model, np.ascontiguousarray(X)), model.decision_function(X))


def test_feature_name_warnings_come_once_from_the_users_call():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = (X["a"] + rng.normal(size=120) > 0.7).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = AutoRanker(candidates=["linear", "kernel"], n_jobs=1, random_state=0).fit(X, y)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        auto.decision_function(X.to_numpy()[:2])
    named = [w for w in seen if "feature names" in str(w.message)]
    assert len(named) == 1, [str(w.message) for w in seen]


def test_validate_columns_is_the_function_the_modules_call():
    # the counter above patches each module's name: it must be the shared function, not a copy of its own
    from rankcore.precision_at_k import _linear
    from rankcore.rkhs import _estimator as kernel_estimator

    assert _linear.validate_columns is _frames.validate_columns is kernel_estimator.validate_columns


def test_a_model_behind_the_imputer_takes_the_path_and_scores_nan_rows_as_before(monkeypatch):
    from rankcore.rkhs import _estimator as kernel_estimator

    X, y = _data()
    X = X.copy()
    X[::7, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = AutoRanker(candidates=["kernel"], n_jobs=1, random_state=0).fit(X, y)
    checks = _counted(monkeypatch, kernel_estimator, "validate_columns")
    finite = np.ascontiguousarray(X[1:5])
    np.testing.assert_array_equal(auto.decision_function(finite), auto.best_estimator_.decision_function(finite))
    assert len(checks) == len(_members(auto.best_estimator_))      # only the public call's, of each member
    checks.clear()
    auto.decision_function(finite)
    assert checks == []
    # rows with NaN go the public way, each member's imputer filling them
    np.testing.assert_array_equal(auto.decision_function(X[:8]), auto.best_estimator_.decision_function(X[:8]))


def _outcome(call):
    """(the exception's type and message, or the scores; the warnings' messages) of ``call()``."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001 - compared
            result = (type(exc), str(exc))
    return result, [str(w.message) for w in seen]


def test_a_row_the_scaler_takes_beyond_float64_gets_the_models_own_refusal():
    # a candidate's Pipeline(StandardScaler, model): a finite row divided by a tiny spread overflows to infinity,
    # which the model's public path refuses as X's (a ValueError), not as its scores' overflow
    from rankcore.auto._candidate import candidate_scores

    X, y = _data()
    X = X * np.array([1e-3, 1.0, 1.0, 1.0, 1.0])
    model = Pipeline([("s", StandardScaler()), ("m", rankcore.SGDAtK(random_state=0, n_epochs=2))]).fit(X, y)
    row = np.ascontiguousarray(X[:2])
    row[0, 0] = 1e306
    public = _outcome(lambda: candidate_scores(model, row))
    assert public[0][0] is rankcore.ArgumentRefusal
    assert _outcome(lambda: candidate_scores(model, row, checked=True)) == public


def test_checking_the_rows_builds_no_mask_of_them_and_answers_as_before():
    """Before: np.isfinite(X).all() built an n x d boolean mask on every call (here 1 MB)."""
    import tracemalloc

    from rankcore.auto._candidate import checked_rows

    X = np.ones((2000, 500))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        assert checked_rows(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < X.size // 4, peak             # the mask alone is X.size bytes
    huge = np.full((40, 3), 1e308)              # finite entries whose sum overflows to inf: still checked rows
    assert checked_rows(huge) and checked_rows(np.zeros((0, 3)))
    for bad in (np.nan, np.inf, -np.inf):
        for X_bad in (huge.copy(), np.ones((3000, 30))):
            X_bad[-1, -1] = bad
            assert not checked_rows(X_bad)
        mixed = np.ones((3, 2))
        mixed[0, 0], mixed[2, 1] = np.inf, -np.inf      # inf - inf is nan: not finite either
        assert not checked_rows(mixed)
