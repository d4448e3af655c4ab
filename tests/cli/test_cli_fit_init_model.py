"""``rankcore fit DATA --init-model MODEL``: continue a saved model with more weak rankers (the estimator's
``fit(..., init_model=...)``)."""

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from _init_score_data import N_ITER, ranked, read, write

QUERIES = ("--qid", "query", "--label", "grade")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_init_model")
    write(d / "train.csv", *ranked(0))
    write(d / "more.csv", *ranked(2))
    write(d / "valid.csv", *ranked(1, n_queries=8))
    status, _, err = run_main("fit", d / "train.csv", *QUERIES, "--drop", "prior", "--learner", "trees",
                              "--n-iter", N_ITER, "--quiet", "-o", d / "first.json")
    assert status == 0, err
    status, _, err = run_main("fit", d / "train.csv", *QUERIES, "--init-score", "prior", "--learner", "trees",
                              "--n-iter", N_ITER, "--quiet", "-o", d / "from_prior.json")
    assert status == 0, err
    return d


def _boost(n_iter=int(N_ITER)):
    return rankcore.boost(learner="trees", n_iter=n_iter, random_state=0)


def test_fit_continues_the_model_as_the_estimators_fit_with_init_model(files, tmp_path):
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--drop", "prior", "--learner", "trees",
                              "--n-iter", "5", "--validation", files / "valid.csv", "--progress", "none",
                              "-o", tmp_path / "m.json")
    assert status == 0, err
    assert f"continued {files / 'first.json'}" not in err
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--drop", "prior", "--learner", "trees",
                              "--n-iter", "5", "--validation", files / "valid.csv", "--progress", "none",
                              "--init-model", files / "first.json", "-o", tmp_path / "m.json", "--force")
    assert status == 0, err
    assert f"continued {files / 'first.json'}: {N_ITER} weak rankers of it, then 5 new ones" in err
    model = rankcore.load_model(tmp_path / "m.json")
    assert (model.n_iter_, model.init_iterations_) == (int(N_ITER) + 5, int(N_ITER))
    X, y, qid, _ = read(files / "more.csv")
    X_val, y_val, qid_val, _ = read(files / "valid.csv")
    first = rankcore.load_model(files / "first.json")
    expected = _boost(5).set_params(scoring="ndcg@k:10").fit(X, y, qid=qid, init_model=first,
                                                             eval_set=(X_val, y_val, qid_val))
    for frame in (X, X_val):
        np.testing.assert_allclose(model.decision_function(frame), expected.decision_function(frame), rtol=0,
                                   atol=1e-12)
    np.testing.assert_allclose(model.validation_scores_, expected.validation_scores_, rtol=0, atol=1e-12)
    # the reported score is the whole model's
    final = rankcore.evaluate(y_val, expected.decision_function(X_val), ["ndcg@k:10"], qid=qid_val)["ndcg@k:10"]
    assert f"validation ndcg@k:10 {final:.4f}]" in err


def test_a_model_fitted_from_initial_scores_continues_with_them(files, tmp_path):
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--init-score", "prior", "--learner", "trees",
                              "--n-iter", "3", "--quiet", "--init-model", files / "from_prior.json",
                              "-o", tmp_path / "m.json")
    assert (status, err) == (0, "")
    model = rankcore.load_model(tmp_path / "m.json")
    assert model.from_init_score_ and model.n_iter_ == int(N_ITER) + 3
    X, y, qid, prior = read(files / "more.csv")
    expected = _boost(3).fit(X, y, qid=qid, init_score=prior, init_model=rankcore.load_model(files / "from_prior.json"))
    np.testing.assert_allclose(model.decision_function(X), expected.decision_function(X), rtol=0, atol=1e-12)
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--drop", "prior", "--learner", "trees",
                              "--quiet", "--init-model", files / "from_prior.json", "-o", tmp_path / "n.json")
    one_line_error(status, err, "--init-model: the model was fitted from init_score (from_init_score_)")
    assert not (tmp_path / "n.json").exists()


@pytest.mark.parametrize("options, message", [
    (("--drop", "prior,query", "--label", "grade", "--positive", "3", "--learner", "trees"),
     "--init-model: the model was fitted within queries (qid), so its scores order the rows of each query, from "
     "relevance grades; continue it with --qid"),
    ((*QUERIES, "--learner", "trees"), "--init-model: the model was fitted on 3 features, X has 4"),
    ((*QUERIES, "--drop", "prior", "--learner", "stumps"),
     "--init-model: the model's weak rankers (learner 'trees:"),
    ((*QUERIES, "--learner", "trees", "--init-score", "prior"),
     "--init-model: init_score is refused: the model was fitted without initial scores"),
    ((*QUERIES, "--drop", "prior", "--model", "exactboost"),
     "--init-model: exactboost (ExactBoost) cannot continue a model (its fit takes no init_model)"),
])
def test_what_cannot_be_continued_is_one_error_naming_the_option(files, tmp_path, options, message):
    status, _, err = run_main("fit", files / "more.csv", *options, "--init-model", files / "first.json",
                              "--quiet", "-o", tmp_path / "m.json")
    one_line_error(status, err, message)
    assert not (tmp_path / "m.json").exists()


def test_the_model_file_must_be_readable_and_is_never_overwritten(files, tmp_path):
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--drop", "prior",
                              "--init-model", tmp_path / "nosuch.json", "-o", tmp_path / "m.json")
    one_line_error(status, err, "--init-model: cannot read the model file", "nosuch.json: No such file or directory")
    (tmp_path / "bad.json").write_text("{}")
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--drop", "prior",
                              "--init-model", tmp_path / "bad.json", "-o", tmp_path / "m.json")
    one_line_error(status, err, "--init-model: cannot read the model file", "not a rankcore model")
    copy = tmp_path / "first.json"
    copy.write_bytes((files / "first.json").read_bytes())
    status, _, err = run_main("fit", files / "more.csv", *QUERIES, "--drop", "prior", "--learner", "trees",
                              "--init-model", copy, "-o", copy, "--force")
    one_line_error(status, err, f"--out: {str(copy)!r} is the input --init-model; write the output to another file")
    assert copy.read_bytes() == (files / "first.json").read_bytes()
