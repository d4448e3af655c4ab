"""The refusals that became ``ArgumentRefusal`` (an objective's of ``sample_weight``, the checks of X itself) carry
their fields in the words of before, and the layers that said a check's refusal again as a plain ``ValueError``
(a Dask chunk's clicks, queries and grades; AutoRanker's check of its eval_set) keep its class and fields."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rankcore
from rankcore.validation import ArgumentRefusal, check_matrix
from _refusals import refused


def _refusal(call, parameter: str) -> ArgumentRefusal:
    return refused(call, parameter=parameter, round_trip=True)


X = np.random.default_rng(0).normal(size=(60, 3))
y = (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("objective", ["prec@k-avg:0.1", "prec@k-max:0.1"])
def test_an_objective_that_takes_no_weights_refuses_sample_weight(objective):
    """Before: a plain ValueError (met through XGBoost's and LightGBM's objectives, which hand it weights); the
    command line's ``--weight`` could not tell it from another error."""
    from rankcore.objectives import Objective
    from rankcore.registry import resolve

    bound = resolve("objective", objective)
    for call in (lambda: bound.check_target(y.astype(float), np.ones(60)),
                 lambda: Objective.bind(bound, y.astype(float), np.ones(60))):     # the base class's binding
        exc = _refusal(call, "sample_weight")
        assert str(exc) == f"objective {objective!r} does not support sample_weight; fit without it"
        assert exc.detail == str(exc) and exc.reason == "value"


def _malformed() -> sp.csr_matrix:
    M = sp.csr_matrix(np.where(X > 0, X, 0.0))
    M.indices[3] = 9
    return M


@pytest.mark.parametrize("name", ["X", "eval_set X"])
def test_a_malformed_sparse_matrix_is_a_refusal_of_x(name):
    """Before: a plain ValueError naming X in its text only."""
    exc = _refusal(lambda: check_matrix(_malformed(), name=name), name)
    assert str(exc).startswith(f"{name}: malformed sparse CSR matrix of shape (60, 3): every column index must lie "
                               "in [0, 3), got 9 in row ")
    assert exc.detail == str(exc)[len(name) + 2:]


def test_index_arrays_of_another_dtype_are_a_refusal_of_x():
    M = _malformed()
    M.indices = M.indices.astype(float)
    exc = _refusal(lambda: check_matrix(M), "X")
    assert "X: malformed sparse CSR matrix of shape (60, 3): indices must be a 1-D array of integers" in str(exc)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_a_fitted_models_category_columns_are_refusals_of_x():
    frame = pd.DataFrame({"colour": pd.Categorical(np.where(X[:, 1] > 0, "red", "blue")), "x": X[:, 0]})
    model = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(frame, y)
    exc = _refusal(lambda: model.decision_function(frame.assign(colour=frame["colour"].astype(str))), "X")
    assert str(exc).startswith("X: column 'colour' was a pandas 'category' column in fit but is ")
    exc = _refusal(lambda: model.decision_function(frame.to_numpy()), "X")
    assert str(exc).startswith("X: the model was fitted on a DataFrame with the category column(s) 'colour'; ")


def test_ids_beyond_float64_split_by_category_are_a_refusal_of_x():
    ids = np.arange(60, dtype=np.int64) % 3 + 2 ** 60
    frame = np.column_stack([ids, np.arange(60)])
    exc = _refusal(lambda: rankcore.boost(learner="trees", n_iter=2, categorical_features=[0]).fit(frame, y), "X")
    assert str(exc).startswith(f"X: column 0 holds the integer {2 ** 60 + 2}, beyond ±2**53, where float64 ")


# --- the layers that say a refusal again ---


def _refusing(parameter: str):
    def check(*args, **kwargs):
        raise ArgumentRefusal.said(parameter, "expected something else, got this")
    return check


def test_autorankers_eval_set_check_keeps_a_refusals_class(monkeypatch):
    """Before: ``raise ValueError(f"{rows.label}: {exc}")`` made a refusal of the labels a plain ValueError."""
    import rankcore.auto._fit_data as fit_data

    class Refusing:
        def __init__(self, *args, **kwargs):
            pass

        values = staticmethod(_refusing("eval_set y"))

    class Rows:
        label = "eval_set 'validation'"
        y = np.zeros(4)

        def labels(self):
            return self.y

    monkeypatch.setattr(fit_data, "PerQueryMean", Refusing)
    exc = _refusal(lambda: fit_data.check_metric_on_set(None, Rows(), default=0.0), "eval_set y")
    assert str(exc) == "eval_set 'validation': eval_set y: expected something else, got this"
    assert exc.detail == "expected something else, got this"
    monkeypatch.setattr(Refusing, "values", staticmethod(lambda *a: (_ for _ in ()).throw(ValueError("plain"))))
    with pytest.raises(ValueError) as caught:
        fit_data.check_metric_on_set(None, Rows(), default=0.0)
    assert type(caught.value) is ValueError and str(caught.value) == "eval_set 'validation': plain"


def test_a_dask_chunks_checks_keep_a_refusals_class(monkeypatch):
    """Before: the chunk's words were added by ``raise ValueError(...)``, which dropped the class and fields."""
    pytest.importorskip("dask")
    import rankcore.dask._click_model as click_model
    import rankcore.dask._queries as queries

    monkeypatch.setattr(click_model, "check_clicks", _refusing("y"))
    exc = _refusal(lambda: click_model._chunk_clicks(np.zeros(4), 90, 1), "y")
    assert str(exc) == "y: expected something else, got this (chunk 1, whose first row is row 90 of X)"
    assert exc.detail == "expected something else, got this (chunk 1, whose first row is row 90 of X)"
    monkeypatch.setattr(queries, "check_qid", _refusing("qid"))
    exc = _refusal(lambda: queries._chunk_survey(2, 150, np.zeros(4), np.zeros(4), 3.0, "lambdarank"), "qid")
    assert str(exc) == "qid: expected something else, got this (chunk 2, whose first row is row 150 of X)"
    monkeypatch.setattr(click_model, "check_clicks", lambda *a, **k: (_ for _ in ()).throw(ValueError("y: plain")))
    with pytest.raises(ValueError) as caught:
        click_model._chunk_clicks(np.zeros(4), 90, 1)
    assert type(caught.value) is ValueError
    assert str(caught.value) == "y: plain (chunk 1, whose first row is row 90 of X)"
