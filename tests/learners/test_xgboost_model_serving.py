"""``to_xgboost_model`` as a user serves it: feature names XGBoost matches a DataFrame by (non-ASCII ones, ones it
refuses), sparse rows (absent entries are missing to XGBoost), ``pred_contribs`` / ``pred_interactions`` from the
written covers (NaN without covers), initial scores as ``base_margin``, and the command line's refusal of a name."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rankcore
from rankcore.learners import ThresholdRanker, xgboost_model_string
from rankcore.learners.trees._ranker import TreeRanker
from rankcore.persistence import save_model
from _cli_run import one_line_error, run_main
from _export_data import grid_data

xgboost = pytest.importorskip("xgboost")


def _booster(text):
    return xgboost.Booster(model_file=bytearray(text, "utf-8"))


@pytest.mark.parametrize("columns", [["prix (€)", "größe", "x,y", "名前"], ["a", "b\N{LINE SEPARATOR}", "c", "d"]])
def test_non_ascii_names_match_the_frame(columns):
    X, y = grid_data()
    frame = pd.DataFrame(X, columns=columns)
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(frame, y)
    text = model.to_xgboost_model()
    assert json.loads(text)["learner"]["feature_names"] == columns
    booster = _booster(text)
    assert booster.feature_names == columns           # not the \\u escapes XGBoost's reader keeps as they are
    margin = booster.predict(xgboost.DMatrix(frame.astype(np.float32)), output_margin=True)
    np.testing.assert_allclose(margin, model.decision_function(frame.astype(np.float32)), rtol=0, atol=1e-6)


@pytest.mark.parametrize("name, shown", [("a<b", "'<'"), ("c[1]", "'['"), ("x]", "']'"), ("tab\tx", r"'\t'"),
                                         ("bell\bx", r"'\x08'")])
def test_names_xgboost_does_not_take_are_refused(name, shown):
    X, y = grid_data()
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(
        pd.DataFrame(X, columns=["u", name, "v", "w"]), y)
    with pytest.raises(ValueError, match="pass feature_names") as info:
        model.to_xgboost_model()
    assert str(info.value).startswith(f"feature_names: column 1's name {name!r} holds {shown}, which XGBoost")
    text = model.to_xgboost_model(feature_names=["u", "n", "v", "w"])       # the way out the message gives
    assert _booster(text).feature_names == ["u", "n", "v", "w"]


def test_cli_refuses_a_name_naming_its_option(tmp_path):
    X, y = grid_data()
    save_model(rankcore.boost(learner="trees:max_leaves=4", n_iter=2, random_state=0).fit(
        pd.DataFrame(X, columns=["u", "a<b", "v", "w"]), y), tmp_path / "m.json")
    out = tmp_path / "m.xgb.json"
    status, _, err = run_main("export", tmp_path / "m.json", "--format", "xgboost-model", "-o", out)
    one_line_error(status, err, "m.json: feature_names: column 1's name 'a<b' holds '<'", "pass --feature-names")
    status, _, err = run_main("export", tmp_path / "m.json", "--format", "xgboost-model", "-o", out,
                              "--feature-names", "u,b[1],v,w")
    one_line_error(status, err, "--feature-names: column 1's name 'b[1]' holds '['")
    assert not out.exists()
    assert run_main("export", tmp_path / "m.json", "--format", "xgboost-model", "-o", out, "-q",
                    "--feature-names", "u,ab,v,w")[0] == 0


def test_sparse_rows_absent_entries_are_missing_to_xgboost():
    # x <= −1 goes left, NaN left too: 0 goes right in rankcore, an absent entry (missing) left in XGBoost
    tree = TreeRanker([0, -1, -1], [-1.0, 0.0, 0.0], [1, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                      [1.0, 0.0, 0.0])
    booster = _booster(xgboost_model_string([tree], [1.0], 2))
    rows = sp.csr_matrix(np.array([[0.0, 1.0], [-2.0, 0.0], [0.0, 0.0], [3.0, 0.0]], dtype=np.float32))
    expected = tree.predict(rows.toarray())
    np.testing.assert_array_equal(expected, [2.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(booster.predict(xgboost.DMatrix(rows.toarray()), output_margin=True), expected)
    sparse = booster.predict(xgboost.DMatrix(rows), output_margin=True)
    np.testing.assert_array_equal(sparse, [1.0, 1.0, 1.0, 2.0])       # why the docs say: give XGBoost dense rows


@pytest.mark.parametrize("learner", ["trees:max_leaves=6,min_samples_leaf=5", "trees:growth=oblivious,max_depth=3",
                                     "trees:max_leaves=6,subsample=0.7"])
def test_contributions_from_the_written_covers(learner):
    X, y = grid_data()
    model = rankcore.boost(learner=learner, n_iter=5, random_state=0).fit(X, y)
    booster, X32 = _booster(model.to_xgboost_model()), X.astype(np.float32)
    contributions = booster.predict(xgboost.DMatrix(X32), pred_contribs=True)
    np.testing.assert_allclose(contributions, model.feature_contributions(X32), rtol=0, atol=1e-5)
    interactions = booster.predict(xgboost.DMatrix(X32[:50]), pred_interactions=True)
    np.testing.assert_allclose(interactions, model.feature_interactions(X32[:50]), rtol=0, atol=1e-5)


def test_contributions_without_covers_are_nan():
    """Stumps and trees without covers write sum_hessian 0: XGBoost's TreeSHAP divides by it (documented)."""
    rows = np.array([[0.0], [1.0]], dtype=np.float32)
    bare = TreeRanker([0, -1, -1], [0.5, 0.0, 0.0], [0, 0, 0], [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0],
                      [1.0, 0.0, 0.0])
    for ranker in (ThresholdRanker(0, 0.5), bare):
        text = xgboost_model_string([ranker], [1.0], 1)
        assert set(json.loads(text)["learner"]["gradient_booster"]["model"]["trees"][0]["sum_hessian"]) == {0.0}
        booster = _booster(text)
        np.testing.assert_array_equal(booster.predict(xgboost.DMatrix(rows), output_margin=True),
                                      ranker.predict(rows.astype(np.float64)))
        assert np.isnan(booster.predict(xgboost.DMatrix(rows), pred_contribs=True)).any()


def test_initial_scores_as_base_margin():
    X, y = grid_data()
    init = np.random.default_rng(1).normal(size=len(y))
    model = rankcore.boost(learner="trees:max_leaves=4", n_iter=3, random_state=0).fit(X, y, init_score=init)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = model.to_xgboost_model()
    assert any("base_margin" in str(w.message) for w in caught)
    X32 = X.astype(np.float32)
    booster = _booster(text)
    with_init = booster.predict(xgboost.DMatrix(X32, base_margin=init), output_margin=True)
    np.testing.assert_allclose(with_init, model.decision_function(X32) + init, rtol=0, atol=1e-5)
    np.testing.assert_array_equal(booster.predict(xgboost.DMatrix(X32)),                 # no transform
                                  booster.predict(xgboost.DMatrix(X32), output_margin=True))
