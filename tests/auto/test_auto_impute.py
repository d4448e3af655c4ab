"""AutoRanker on data with missing values: the imputer in front of the candidates that refuse NaN.

``MissingValueImputer`` against a plain NumPy reference (medians of the
present values, indicators of the columns with missing training values,
all-missing columns, NaN at transform time in a column that had none);
its errors; the imputed model's file (round trip, broken records refused).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore import AutoRanker, load_model, save_model
from rankcore.auto import MissingValueImputer
from rankcore.auto._impute import imputer_and_model
from rankcore.metrics import auc
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict


def reference_impute(X_train, X):
    """Median of each column's present training values (0 if none), then one 0/1 column per column with
    missing training values -- written with plain loops."""
    X_train, X = np.asarray(X_train, float), np.asarray(X, float)
    fill, indicators = [], []
    for j in range(X_train.shape[1]):
        present = [v for v in X_train[:, j] if not np.isnan(v)]
        fill.append(float(np.median(present)) if present else 0.0)
        if len(present) < X_train.shape[0]:
            indicators.append(j)
    out = [[fill[j] if np.isnan(v) else v for j, v in enumerate(row)] + [float(np.isnan(row[j])) for j in indicators]
           for row in X]
    return np.array(out, dtype=float).reshape(X.shape[0], X.shape[1] + len(indicators))


values = st.one_of(st.just(np.nan), st.integers(-3, 3).map(float), st.floats(-1e3, 1e3))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 12), d=st.integers(1, 5))
def test_imputer_matches_the_reference(data, n, d):
    X_train = np.array(data.draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n, max_size=n)))
    X = np.array(data.draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=1, max_size=6)))
    imputer = MissingValueImputer().fit(X_train)
    np.testing.assert_array_equal(imputer.transform(X), reference_impute(X_train, X))
    assert not np.isnan(imputer.transform(X)).any()


def test_imputer_edge_columns():
    X = np.array([[np.nan, 1.0, 5.0], [np.nan, 3.0, np.nan], [np.nan, 2.0, 7.0]])
    imputer = MissingValueImputer().fit(X)
    np.testing.assert_array_equal(imputer.fill_values_, [0.0, 2.0, 6.0])     # an all-missing column: 0
    np.testing.assert_array_equal(imputer.indicator_features_, [0, 2])
    # NaN in a column that had none in training: filled, no indicator column for it
    np.testing.assert_array_equal(imputer.transform([[4.0, np.nan, np.nan]]), [[4.0, 2.0, 6.0, 0.0, 1.0]])


@pytest.mark.parametrize("make, match", [
    (lambda m: m.fit(np.zeros(3)), "2-D"),
    (lambda m: m.fit(np.zeros((0, 2))), "at least one row"),
    (lambda m: m.fit(np.array([[np.inf, 1.0]])), "inf"),
    (lambda m: m.fit(np.zeros((3, 2))).transform(np.zeros((1, 3))), "expected 2 features"),
])
def test_imputer_bad_input(make, match):
    with pytest.raises(ValueError, match=match):
        make(MissingValueImputer())


def test_imputer_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        MissingValueImputer().transform(np.zeros((1, 2)))


def _nan_data(n=140, d=4, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] - X[:, 1] + 0.6 * rng.normal(size=n) > 0.4).astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 3][X[:, 0] > 1] = np.nan          # missingness that says something about the label
    return X, y


@pytest.fixture(scope="module")
def imputed_model():
    X, y = _nan_data()
    return AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(X, y), X


def test_imputed_choice_scores_rows_with_missing_values(imputed_model):
    model, X = imputed_model
    scores = model.decision_function(X)
    assert np.isfinite(scores).all()
    # each row scored alone, rows with NaN included
    np.testing.assert_allclose(model.decision_function(X[:5]), scores[:5], rtol=1e-12)


def test_imputed_model_file_round_trip(imputed_model, tmp_path):
    model, X = imputed_model
    save_model(model, tmp_path / "auto.json")
    loaded = load_model(tmp_path / "auto.json")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def _imputed_record(data):
    best = data["state"]["best"]
    record = best["members"][0] if best["kind"] == "bag" else best
    assert record["kind"] == "imputed"
    return record


@pytest.mark.parametrize("edit, match", [
    (lambda r: r.update(fill=r["fill"][:-1]), "fill must be"),
    (lambda r: r["fill"].__setitem__(0, np.nan), "fill must be"),
    (lambda r: r.update(indicators=np.array([5], dtype=np.int64)), "indicators must be"),
    (lambda r: r.update(indicators=np.array([3, 0], dtype=np.int64)), "indicators must be"),
    (lambda r: r.update(indicators=r["indicators"].astype(np.float64)), "indicators must be"),
    (lambda r: r.update(indicators=np.array([], dtype=np.int64)), "reads"),   # the model reads more columns
    (lambda r: r.update(model={"kind": "imputed", **{k: v for k, v in r.items() if k != "kind"}}), "model must be"),
    (lambda r: r.pop("fill"), "fields"),
])
def test_broken_imputed_records_are_refused(imputed_model, edit, match):
    from _model_files import resign

    from rankcore.persistence import _decode, _encode

    def encoded(value, where):
        if isinstance(value, np.ndarray):
            return _encode(value, where)
        return {k: encoded(v, k) for k, v in value.items()} if isinstance(value, dict) else value

    data = model_to_dict(imputed_model[0])
    record = _imputed_record(data)
    plain = {k: _decode(v, k) if k in ("fill", "indicators") else v for k, v in record.items()}
    edit(plain)          # edits the decoded arrays, then the record is written back as a file holds it
    record.clear()
    record.update({k: encoded(v, k) for k, v in plain.items()})
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(resign(data))


def test_no_imputer_without_missing_values():
    X, y = _nan_data()
    X = np.nan_to_num(X)
    model = AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(X, y)
    assert all(imputer_and_model(e) is None for e in model.best_estimator_.estimators)
    assert "imputed" not in str(model_to_dict(model)["state"]["best"])


def test_imputed_candidates_can_win_where_missingness_is_the_signal():
    """Missing X[:, 3] marks half the positives: the imputer's indicator lets the linear ranker see it."""
    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 4))
    y = (rng.random(n) < 0.3).astype(int)
    X[(y == 1) & (rng.random(n) < 0.6), 3] = np.nan
    model = AutoRanker(candidates=["linear:n_epochs=2"], random_state=0, n_jobs=1).fit(X, y)
    scores = model.decision_function(X)
    missing = np.isnan(X[:, 3])
    assert scores[missing].mean() > scores[~missing].mean()
    assert auc(y, scores) > 0.7
