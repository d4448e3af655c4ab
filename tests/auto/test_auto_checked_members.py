"""The trees, stumps, ExactBoost and LightGBM members of AutoRanker score the rows it checked without checking them
again (rows with NaN too, for the members that take missing values): the same scores, bit for bit, and the same
refusals as their public ``decision_function``."""
import warnings

import numpy as np
import pytest

from rankcore import _frames
from rankcore.auto import AutoRanker
from rankcore.auto._candidate import candidate_scores, checked_rows, checked_scores, nan_rows
from rankcore.exactboost import _estimator as exactboost_estimator
from rankcore.push import _boost_base

FAMILIES = ["trees", "stumps", "exactboost", "lightgbm"]
#: the members scoring NaN themselves (the others refuse it, or are fitted behind the imputer)
TAKES_NAN = {"trees", "lightgbm"}


def _data(nan: bool = False):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(160, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=160) > 0.9).astype(int)
    if nan:
        X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def _fit(family: str, X, y):
    if family == "lightgbm":
        pytest.importorskip("lightgbm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return AutoRanker(candidates=[family], n_jobs=1, random_state=0).fit(X, y)


@pytest.fixture(scope="module", params=FAMILIES)
def fitted(request):
    X, y = _data()
    return request.param, X, _fit(request.param, X, y)


def _members(model):
    inner = getattr(model, "estimators", None)
    return [m for e in inner for m in _members(e)] if inner is not None else [model]


def _outcome(call):
    """The scores of ``call()``, or its exception's type and message."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc), str(exc)


def _same(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return a == b


def _rows(X, seed: int, with_nan: bool):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 7, 100]))
    rows = rng.normal(scale=2.0, size=(n, X.shape[1]))
    if with_nan:
        rows[rng.random(rows.shape) < 0.2] = np.nan
        rows[0, 0] = np.nan
    return rows


def _counted(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_the_checked_path_gives_the_public_paths_scores_and_refusals(fitted):
    family, X, auto = fitted
    best = auto.best_estimator_
    for seed in range(6):
        for with_nan in (False, True):
            rows = _rows(X, seed, with_nan)
            assert checked_rows(rows) == (not with_nan) and nan_rows(rows)
            public = _outcome(lambda: candidate_scores(best, rows))
            checked = _outcome(lambda: candidate_scores(best, rows, checked=True, nan=with_nan))
            assert _same(checked, public), (family, seed, with_nan, checked, public)
            assert _same(_outcome(lambda: auto.decision_function(rows)), public)
            # a member that takes no NaN refuses it as before; one that does scores it
            assert isinstance(public, np.ndarray) == (not with_nan or family in TAKES_NAN)


def test_each_member_checks_the_rows_no_more(fitted, monkeypatch):
    family, X, auto = fitted
    assert len(_members(auto.best_estimator_)) >= 2
    checks = [_counted(monkeypatch, module, "validate_columns") for module in (_boost_base, exactboost_estimator)]
    if family == "lightgbm":
        import lightgbm

        checks.append(_counted(monkeypatch, lightgbm.LGBMModel, "predict"))
    rows = np.ascontiguousarray(X[:1])
    nan_row = rows.copy()
    nan_row[0, 2] = np.nan
    for _ in range(2):
        auto.decision_function(rows)
        if family in TAKES_NAN:
            auto.decision_function(nan_row)
    # before, each member ran scikit-learn's checks and its own (LightGBM: its wrapper's) on every call
    assert [len(c) for c in checks] == [0] * len(checks)


def test_the_counted_function_is_the_one_the_modules_call():
    assert _boost_base.validate_columns is _frames.validate_columns is exactboost_estimator.validate_columns


@pytest.mark.parametrize("family", ["trees", "lightgbm"])
def test_a_fit_with_nan_scores_nan_rows_the_same_way(family):
    X, y = _data(nan=True)
    auto = _fit(family, X, y)
    for seed in range(3):
        rows = _rows(X, seed, True)
        np.testing.assert_array_equal(auto.decision_function(rows), candidate_scores(auto.best_estimator_, rows))


def test_rows_with_inf_are_not_checked_rows_and_get_autorankers_refusal(fitted):
    family, X, auto = fitted
    rows = np.ascontiguousarray(X[:3])
    rows[1, 1] = np.inf
    rows[2, 2] = np.nan
    assert not checked_rows(rows) and not nan_rows(rows)
    with pytest.raises(ValueError, match="X: expected numbers or NaN, got infinite values at row 1, column 1"):
        auto.decision_function(rows)


def test_category_columns_and_sparse_rows_score_as_the_public_path():
    pd = pytest.importorskip("pandas")
    sparse = pytest.importorskip("scipy.sparse")
    X, y = _data()
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["k"] = pd.Categorical(np.random.default_rng(0).choice(["u", "v", "w"], size=X.shape[0]))
    auto = _fit("trees", frame, y)
    rows = frame.iloc[:9]
    encoded = auto._prediction_rows(rows)
    # the trees read the category column by their categories: the checked path hands them to the public one
    assert checked_rows(encoded)
    np.testing.assert_array_equal(auto.decision_function(rows), candidate_scores(auto.best_estimator_, encoded))
    np.testing.assert_array_equal(checked_scores(auto.best_estimator_, encoded),
                                  candidate_scores(auto.best_estimator_, encoded))
    # codes no frame gives (between, below, beyond the categories): the members read them as their public path does
    odd = encoded.copy()
    odd[:6, -1] = [0.0, 1.0, 2.0, 2.5, -1.0, 99.0]
    for member in _members(auto.best_estimator_):
        assert _same(_outcome(lambda: checked_scores(member, odd)), _outcome(lambda: member.decision_function(odd)))
    plain = _fit("trees", X, y)
    rows = sparse.csr_matrix(np.where(np.abs(X[:20]) < 0.7, 0.0, X[:20]))
    np.testing.assert_array_equal(plain.decision_function(rows), candidate_scores(plain.best_estimator_, rows))
