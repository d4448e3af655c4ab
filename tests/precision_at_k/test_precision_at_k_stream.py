"""SGD@k / Perceptron@k as online learners: a stream of ``partial_fit`` calls (hourly batches of events)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from rankcore import ArgumentRefusal, PerceptronAtK, SGDAtK, load_model, save_model
from rankcore.metrics import prec_at_k
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict

LEARNERS = [PerceptronAtK, SGDAtK]


def _hour(rng, n=300, d=4):
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 1.5).astype(int)
    return X, y


def _stream(cls, first_constant: bool, n_calls=10, sparse=False, seed=0):
    """A stream whose column 3 is noise of scale 1e6 -- constant (0) in the first call when ``first_constant``."""
    rng = np.random.default_rng(seed)
    model = cls(random_state=0)
    for call in range(n_calls):
        X, y = _hour(rng)
        X[:, 3] = 0.0 if (first_constant and call == 0) else rng.standard_normal(X.shape[0]) * 1e6
        model.partial_fit(sp.csr_matrix(X) if sparse else X, y)
    return model


def _held_out(seed=99):
    X, y = _hour(np.random.default_rng(seed), n=4000)
    X[:, 3] = np.random.default_rng(seed + 1).standard_normal(X.shape[0]) * 1e6
    return X, y


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("cls", LEARNERS)
def test_a_column_constant_in_the_first_call_is_scaled_when_it_varies(cls, sparse):
    # the first call fixed the standardization and left a constant column at scale 1: when it later varied on a
    # scale of 1e6 its steps were a million times too large and the model ranked no better than chance
    X, y = _held_out()
    late = _stream(cls, first_constant=True, sparse=sparse)
    early = _stream(cls, first_constant=False, sparse=sparse)
    top = int(0.05 * X.shape[0])
    assert prec_at_k(y, late.decision_function(X), top) > prec_at_k(y, early.decision_function(X), top) - 0.1
    assert prec_at_k(y, late.decision_function(X), top) > 0.5
    assert 5e5 < late.feature_scale_[3] < 2e6
    assert late.unscaled_features_.size == 0


@pytest.mark.parametrize("cls", LEARNERS)
def test_scaling_a_column_late_changes_no_score(cls):
    # a change of units of the column's weight, not a step: coef_ stays as it was
    rng = np.random.default_rng(1)
    X, y = _hour(rng)
    X[:, 2] = 5.0
    model = cls(random_state=0).partial_fit(X, y)
    np.testing.assert_array_equal(model.unscaled_features_, [2])
    before = model.coef_.copy()
    X2, _ = _hour(rng)
    model._scale_new_columns(X2)
    np.testing.assert_allclose(model.coef_, before, rtol=1e-15, atol=0)
    np.testing.assert_allclose(model.feature_scale_[2], X2[:, 2].std(), rtol=1e-12)
    assert model.unscaled_features_.size == 0


@pytest.mark.parametrize("cls", LEARNERS)
def test_saving_mid_stream_keeps_the_columns_still_unscaled(tmp_path, cls):
    rng = np.random.default_rng(2)
    hours = [_hour(rng) for _ in range(4)]
    for call, (X, _) in enumerate(hours):
        X[:, 1] = 3.0 if call < 2 else X[:, 1] * 1e4
    kept = cls(random_state=0)
    saved = cls(random_state=0)
    for call, (X, y) in enumerate(hours):
        kept.partial_fit(X, y)
        saved.partial_fit(X, y)
        if call == 1:
            save_model(saved, tmp_path / "m.json")
            saved = load_model(tmp_path / "m.json")
            np.testing.assert_array_equal(saved.unscaled_features_, [1])
    for name in ("coef_", "iterate_", "average_", "feature_mean_", "feature_scale_", "unscaled_features_"):
        np.testing.assert_array_equal(getattr(saved, name), getattr(kept, name))


@pytest.mark.parametrize("columns, match", [
    ([7], r"unscaled_features_ must hold increasing column indices in \[0, 4\)"),
    ([0], "unscaled_features_ must name columns of feature_scale_ 1"),
    ([2, 2], "increasing column indices"),
])
def test_load_checks_the_unscaled_columns(columns, match):
    from rankcore.persistence import _checksum, _encode

    X, y = _hour(np.random.default_rng(3))
    X[:, 2] = 1.0
    data = model_to_dict(SGDAtK(random_state=0).partial_fit(X, y))
    data["state"]["unscaled_features_"] = _encode(np.asarray(columns, dtype=np.int64), "state")
    data["sha256"] = _checksum({k: v for k, v in data.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match=match):
        model_from_dict(data)


@pytest.mark.parametrize("cls", LEARNERS)
def test_standardize_cannot_be_turned_off_mid_stream(cls):
    # set_params(standardize=False) between calls added raw rows to weights in standardized units: prec@k of the
    # held-out rows fell from about 0.8 to 0.1, without a word
    rng = np.random.default_rng(4)
    X, y = _hour(rng)
    X[:, 1] = X[:, 1] * 1e4 + 5e4
    model = cls(random_state=0).partial_fit(X, y)
    coef = model.coef_
    model.set_params(standardize=False)
    with pytest.raises(ArgumentRefusal, match="standardize: the model was fitted with standardize=True") as info:
        model.partial_fit(X, y)
    assert info.value.parameter == "standardize"
    assert model.coef_ is coef                       # the refused call changed nothing
    # the other way round standardized nothing while the parameter said it did: refused as well
    turned_on = cls(standardize=False, random_state=0).partial_fit(X, y).set_params(standardize=True)
    with pytest.raises(ArgumentRefusal, match="standardize: the model was fitted with standardize=False"):
        turned_on.partial_fit(X, y)
    turned_on.set_params(standardize=False).partial_fit(X, y)
    # a model fitted with it whose first call had every column constant at 0 is not taken for one fitted without
    X0 = np.zeros_like(X)
    cls(random_state=0).partial_fit(X0, y).partial_fit(X, y)


@pytest.mark.parametrize("cls", LEARNERS)
def test_a_count_k_above_a_calls_rows_is_refused_in_words_of_a_stream(cls):
    rng = np.random.default_rng(5)
    model = cls(k=50, random_state=0).partial_fit(*_hour(rng))
    X, y = _hour(rng, n=30)
    with pytest.raises(ArgumentRefusal, match="k: a count is the top of the rows of each partial_fit call, and "
                                              r"this call has 30 row\(s\), fewer than k = 50; give k as a fraction"):
        model.partial_fit(X, y)
    cls(k=0.05, random_state=0).partial_fit(*_hour(rng)).partial_fit(X, y)     # a fraction fits any call


@pytest.mark.parametrize("cls", LEARNERS)
def test_a_count_k_is_not_checked_against_the_rows_when_k_per_batch_sets_the_top(cls):
    # k_per_batch is the top of each batch: k then only scores, so a call of fewer rows than k is not refused
    rng = np.random.default_rng(7)
    first, (X, y) = _hour(rng), _hour(rng, n=30)
    model = cls(k=50, k_per_batch=5, random_state=0).partial_fit(*first).partial_fit(X, y)
    same = cls(k=0.05, k_per_batch=5, random_state=0).partial_fit(*first).partial_fit(X, y)
    np.testing.assert_array_equal(model.coef_, same.coef_)
    fitted = cls(k=50, k_per_batch=5, n_epochs=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fitted.coef_, cls(k=0.5, k_per_batch=5, n_epochs=2, random_state=0).fit(X, y).coef_)
    with pytest.raises(ValueError, match="k: expected a whole count"):      # its form is still checked
        cls(k=2.5, k_per_batch=5).partial_fit(X, y)


@pytest.mark.parametrize("cls", LEARNERS)
def test_one_call_is_fit_with_one_unshuffled_epoch_and_save_load_continues_bit_for_bit(tmp_path, cls):
    # what docs/precision_at_k.md says of streams
    rng = np.random.default_rng(6)
    hours = [_hour(rng, n=int(n)) for n in rng.integers(40, 400, size=8)]
    one = cls(random_state=0).partial_fit(*hours[0])
    np.testing.assert_array_equal(one.coef_, cls(n_epochs=1, shuffle=False, random_state=0).fit(*hours[0]).coef_)
    kept, saved = cls(random_state=0), cls(random_state=0)
    for call, (X, y) in enumerate(hours):
        batch = X.astype(np.float32) if call % 2 else sp.csr_matrix(X)      # storages and dtypes mixed
        kept.partial_fit(batch, y)
        saved.partial_fit(batch, y)
        if call == 4:
            save_model(saved, tmp_path / "m.json")
            saved = load_model(tmp_path / "m.json")
    for name in ("coef_", "iterate_", "average_", "mistakes_per_epoch_"):
        np.testing.assert_array_equal(getattr(saved, name), getattr(kept, name))
    assert saved.t_ == kept.t_ and saved.n_iter_ == kept.n_iter_ == 8


@pytest.mark.parametrize("cls", LEARNERS)
def test_labels_of_a_file_fitted_with_positive_0_are_refused_not_read_upside_down(tmp_path, cls):
    # `rankcore fit --positive 0` on a {0, 1} file: classes_ [0, 1] with 1 for the file's 0, relevant_label_ 0
    from rankcore._state_fields import labels_coded

    rng = np.random.default_rng(8)
    X, y = _hour(rng)
    file_labels = 1 - y                                 # the file's 0 is the relevant label
    model = cls(random_state=0).fit(X, y)
    model.relevant_label_, model.other_label_ = 0, 1
    save_model(model, tmp_path / "m.json")
    model = load_model(tmp_path / "m.json")
    for call in (lambda: model.partial_fit(X, file_labels), lambda: model.score(X, file_labels)):
        with pytest.raises(ArgumentRefusal, match=r"y: .* coded 1 for 0 \(relevant_label_, ranked first\)"):
            call()
    with labels_coded():                                # the command line's own, coded labels pass
        assert model.score(X, y) == cls(random_state=0).fit(X, y).score(X, y)
    # a file whose labels match the codes (--positive 1), or are texts, reads as before
    model.relevant_label_, model.other_label_ = 1, 0
    model.partial_fit(X, y)
    model.relevant_label_, model.other_label_ = "active", "inactive"
    model.score(X, y)


@pytest.mark.parametrize("cls", LEARNERS)
def test_a_file_written_before_unscaled_features_existed_still_scales_its_constant_columns(cls):
    # before, such a file loaded with no column left to scale: column 3 (constant in the first call, 1e6 later)
    # kept scale 1 and its weight ran away (|coef_3| ~ 1e3 instead of ~1e-6)
    from _model_files import tampered

    first = _stream(cls, first_constant=True, n_calls=1)
    older = model_from_dict(tampered(first, lambda state: state.pop("unscaled_features_")))
    np.testing.assert_array_equal(older.unscaled_features_, first.unscaled_features_)
    rng = np.random.default_rng(12)
    for _ in range(3):
        X, y = _hour(rng)
        X[:, 3] = rng.standard_normal(X.shape[0]) * 1e6
        first.partial_fit(X, y)
        older.partial_fit(X, y)
    np.testing.assert_array_equal(older.coef_, first.coef_)
    assert older.feature_scale_[3] > 1e5
