"""SGD@k / Perceptron@k: k for the whole training set, its translation to batches, the defaults' pieces."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from rankcore import PerceptronAtK, SGDAtK, load_model, save_model
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict
from rankcore.precision_at_k import _sgd_fast, batch_k


def reference_batch_k(k_total: int, n: int, b: int) -> int:
    """round-half-up(k·b/n) clipped to [1, b], in exact integer arithmetic."""
    return min(b, max(1, (2 * k_total * b + n) // (2 * n)))


def _data(seed=0, n=300, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] - X[:, 1] + rng.standard_normal(n) > 1.2).astype(int)
    return X, y


# ---------------------------------------------------------------------------
# the translation rule
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k, n, b, expected",
    [
        (50, 1000, 100, 5), (0.05, 1000, 100, 5), (1, 1000, 100, 1), (1000, 1000, 100, 100),
        (15, 1000, 100, 2),      # 1.5 rounds up
        (14, 1000, 100, 1),      # 1.4 rounds down
        (50, 1030, 30, 1),       # the last, short batch: 1.456 -> 1
        (7, 20, 20, 7),          # one batch: k itself
    ],
)
def test_batch_k_examples(k, n, b, expected):
    assert batch_k(k, n, b) == expected
    kappa = k if k < 1 else k / n
    assert _sgd_fast.resolve_batch_k(0, kappa, b) == expected


@given(n=st.integers(1, 5000), data=st.data())
def test_batch_k_equals_integer_reference(n, data):
    k = data.draw(st.integers(1, n))
    b = data.draw(st.integers(1, n))
    expected = reference_batch_k(k, n, b)
    assert batch_k(k, n, b) == expected
    assert _sgd_fast.resolve_batch_k(0, k / n, b) == expected


def test_count_k_is_for_the_whole_training_set():
    X, y = _data(n=1000)
    common = dict(batch_size=100, n_epochs=3, random_state=0)
    by_count = SGDAtK(k=50, **common).fit(X, y)
    by_fraction = SGDAtK(k=0.05, **common).fit(X, y)
    per_batch = SGDAtK(k=0.5, k_per_batch=5, **common).fit(X, y)   # 5 of every 100-row batch
    np.testing.assert_array_equal(by_count.coef_, by_fraction.coef_)
    np.testing.assert_array_equal(by_count.coef_, per_batch.coef_)
    other = SGDAtK(k=200, **common).fit(X, y)
    assert not np.allclose(other.coef_, by_count.coef_)


def test_count_k_uses_the_fraction_on_short_batches():
    X, y = _data(n=1030)
    common = dict(batch_size=100, n_epochs=2, random_state=3)
    by_count = PerceptronAtK(k=50, **common).fit(X, y)
    fraction = PerceptronAtK(k_per_batch=50 / 1030, **common).fit(X, y)
    every_batch_5 = PerceptronAtK(k_per_batch=5, **common).fit(X, y)   # also 5 on the 30-row batch
    np.testing.assert_array_equal(by_count.coef_, fraction.coef_)
    assert not np.array_equal(by_count.coef_, every_batch_5.coef_)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(k=float("nan")), ValueError, r"k: expected a count in \[1, 40\] or a fraction in \(0, 1\), got nan"),
        (dict(k=1.5), ValueError, r"k: expected a whole count in \[1, 40\] or a fraction in \(0, 1\), got 1.5"),
        (dict(k=0), ValueError, r"k: expected a count in \[1, 40\]"),
        (dict(k=-3), ValueError, r"k: expected a count in \[1, 40\]"),
        (dict(k=-0.2), ValueError, r"k: expected a count in \[1, 40\] or a fraction in \(0, 1\)"),
        (dict(k=41), ValueError, r"k: expected a count in \[1, 40\] \(the number of examples\), got 41"),
        (dict(k="5%"), ValueError, r"k: expected an integer count or a fraction in \(0, 1\) of the training rows"),
        (dict(k=True), ValueError, r"k: expected an integer count"),
        (dict(k_per_batch=float("nan")), ValueError, r"k_per_batch: expected a count"),
        (dict(k_per_batch=2.5), ValueError, r"k_per_batch: expected a whole count"),
        (dict(k_per_batch=0), ValueError, r"k_per_batch: expected a count"),
        (dict(k_per_batch=11, batch_size=10), ValueError,
         r"k_per_batch: a count must not exceed the batch size \(10 rows\), got 11"),
        (dict(k_per_batch="3"), ValueError, r"k_per_batch: expected None, an integer count or a fraction"),
        (dict(init="lsq"), ValueError, r"init: expected 'logistic' or 'zero', got 'lsq'"),
        (dict(average="yes"), ValueError, r"average: expected True or False"),
        (dict(standardize=1), ValueError, r"standardize: expected True or False"),
    ],
)
def test_bad_k_and_new_parameters(params, error, match):
    X, y = _data(n=40)
    with pytest.raises(error, match=match):
        SGDAtK(**params).fit(X, y)


def test_k_errors_name_the_perceptron_too():
    X, y = _data(n=40)
    with pytest.raises(ValueError, match=r"k: expected a count in \[1, 40\]"):
        PerceptronAtK(k=100).fit(X, y)


# ---------------------------------------------------------------------------
# standardization, warm start, averaging, determinism
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
def test_same_seed_same_model_other_seed_other_model(cls):
    X, y = _data()
    a = cls(random_state=5).fit(X, y)
    b = cls(random_state=5).fit(X, y)
    c = cls(random_state=6).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.iterate_, b.iterate_)
    assert not np.array_equal(a.iterate_, c.iterate_)


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
def test_standardization_makes_the_fit_unit_free(cls):
    X, y = _data()
    scale = np.array([1000.0, 0.001, 3.0, 1.0, 50.0])
    shift = np.array([5.0, -2.0, 100.0, 0.0, 1e4])
    a = cls(random_state=0).fit(X, y)
    b = cls(random_state=0).fit(X * scale + shift, y)
    np.testing.assert_allclose(b.coef_ * scale, a.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b.feature_mean_, shift + a.feature_mean_ * scale, rtol=1e-9, atol=1e-9)
    # scores differ by a constant only: the same ranking
    diff = b.decision_function(X * scale + shift) - a.decision_function(X)
    np.testing.assert_allclose(diff, diff[0], atol=1e-6 * np.abs(diff).max() + 1e-9)


def test_sparse_input_is_scaled_and_centred_implicitly():
    """The kernels centre sparse rows without densifying them: the true mean is the model's."""
    X, y = _data()
    X[np.abs(X) < 0.8] = 0.0
    Xs = sp.csr_matrix(X * np.array([10.0, 1.0, 1.0, 0.1, 1.0]))
    model = SGDAtK(random_state=0).fit(Xs, y)
    np.testing.assert_allclose(model.feature_mean_, Xs.toarray().mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(model.feature_scale_, Xs.toarray().std(axis=0), rtol=1e-10)
    np.testing.assert_allclose(model.decision_function(Xs), Xs @ model.coef_)


def test_logistic_warm_start_is_the_starting_point():
    X, y = _data()
    model = SGDAtK(eta0=1e-12, n_epochs=1, random_state=0).fit(X, y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    # the warm start solves this problem to a tight tolerance (rankcore.precision_at_k._warm_start)
    start = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(Z, y).coef_.ravel()
    np.testing.assert_allclose(model.average_, start, rtol=1e-6, atol=1e-9)
    zero = SGDAtK(init="zero", eta0=1e-12, n_epochs=1, random_state=0).fit(X, y)
    assert np.abs(zero.average_).max() < 1e-9


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
def test_average_is_the_mean_of_the_iterates_after_each_batch(cls):
    X, y = _data(n=200)
    model = cls(average=True, standardize=False, batch_size=None, k=0.1)
    iterates = []
    for start in range(0, 200, 40):   # five partial_fit calls, one batch each
        model.partial_fit(X[start:start + 40], y[start:start + 40])
        iterates.append(model.iterate_.copy())
    assert model.n_averaged_ == 5
    np.testing.assert_allclose(model.coef_, np.mean(iterates, axis=0), rtol=1e-12, atol=1e-12)
    last = cls(average=False, standardize=False, batch_size=None, k=0.1)
    for start in range(0, 200, 40):
        last.partial_fit(X[start:start + 40], y[start:start + 40])
    np.testing.assert_allclose(last.coef_, iterates[-1], rtol=1e-12)
    assert last.n_averaged_ == 0


# ---------------------------------------------------------------------------
# persistence of the new fitted attributes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [PerceptronAtK, SGDAtK])
def test_round_trip_keeps_the_new_state_and_goes_on_learning(tmp_path, cls):
    X, y = _data()
    model = cls(k=15, random_state=0).fit(X * 7.0 + 3.0, y)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    for name in ("coef_", "iterate_", "average_", "feature_mean_", "feature_scale_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    assert loaded.n_averaged_ == model.n_averaged_ > 0
    model.partial_fit(X[:60] * 7.0 + 3.0, y[:60])
    loaded.partial_fit(X[:60] * 7.0 + 3.0, y[:60])
    np.testing.assert_array_equal(loaded.coef_, model.coef_)


def _resigned(data):
    from rankcore.persistence import _checksum

    data["sha256"] = _checksum({k: v for k, v in data.items() if k != "sha256"})
    return data


def _encoded(value):
    from rankcore.persistence import _encode

    return _encode(np.asarray(value, dtype=np.float64), "state")


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda d, m: d["state"].update(feature_scale_=_encoded(np.zeros(5))), "feature_scale_ must be positive"),
        (lambda d, m: d["state"].update(iterate_=_encoded(np.ones(3))), "iterate_ must be a finite 1-D array of 5"),
        (lambda d, m: d["state"].update(average_=_encoded(m.average_ * 2)), "coef_ must equal average_"),
        (lambda d, m: d["state"].update(n_averaged_=10**9), "n_averaged_ = 1000000000 exceeds"),
        (lambda d, m: d["state"].update(n_averaged_=-1), r"n_averaged_ must be an integer in \[0, "),
        (lambda d, m: d["state"].pop("feature_mean_"), r"missing \['feature_mean_'\]"),
    ],
)
def test_load_validates_the_new_state(edit, match):
    X, y = _data()
    model = SGDAtK(random_state=0).fit(X, y)
    data = model_to_dict(model)
    edit(data, model)
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(_resigned(data))


def test_models_saved_before_the_new_state_still_load():
    X, y = _data()
    model = SGDAtK(average=False, standardize=False, init="zero", eta0=1.0, random_state=0).fit(X, y)
    data = model_to_dict(model)
    for name in ("iterate_", "average_", "feature_mean_", "feature_scale_", "n_averaged_"):
        data["state"].pop(name)
    loaded = model_from_dict(_resigned(data))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.feature_scale_, 1.0)


@pytest.mark.parametrize("n, b, error, says", [
    (10, 0, ValueError, "batch: expected an integer number of rows >= 1, got 0"),
    (10, -5, ValueError, "batch: expected an integer number of rows >= 1, got -5"),
    (0, 5, ValueError, "n: expected an integer number of rows >= 1, got 0"),
    (10, 2.5, TypeError, "batch: expected an integer number of rows >= 1, got float"),
    (10, True, TypeError, "batch: expected an integer number of rows >= 1, got bool"),
    ("10", 5, TypeError, "n: expected an integer number of rows >= 1, got str"),
])
def test_batch_k_refuses_bad_row_counts(n, b, error, says):
    # a batch of 0 rows used to get k = 0, a negative batch a negative k, and n="10" a raw comparison error
    with pytest.raises(error, match=says) as info:
        batch_k(3, n, b)
    assert info.value.parameter == says.split(":")[0]
