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
    one_line_error(status, err, "--init-model: the model was fitted with --init-score, so its scores are a "
                   "correction to the rows' initial scores: pass --init-score COLUMN (and the --validation file's "
                   "--init-score column)")
    assert not (tmp_path / "n.json").exists()


@pytest.mark.parametrize("options, message", [
    (("--drop", "prior,query", "--label", "grade", "--positive", "3", "--learner", "trees"),
     "--init-model: the model was fitted within queries (qid), so its scores order the rows of each query, from "
     "relevance grades; continue it with --qid"),
    ((*QUERIES, "--learner", "trees"), "more.csv: the column 'prior' is not a feature of the model "),
    ((*QUERIES, "--drop", "prior", "--learner", "stumps"),
     "--init-model: the model's weak rankers are oblivious trees, this fit grows stumps, and weak rankers of another "
     "kind cannot live in one model; continue it with --learner 'trees:growth=oblivious'"),
    ((*QUERIES, "--learner", "trees", "--init-score", "prior"),
     "--init-model: --init-score is refused: the model was fitted without initial scores"),
    ((*QUERIES, "--drop", "prior", "--model", "exactboost"),
     "--init-model: exactboost (ExactBoost) cannot continue a model (its fit takes no init_model)"),
])
def test_what_cannot_be_continued_is_one_error_naming_the_option(files, tmp_path, options, message):
    status, _, err = run_main("fit", files / "more.csv", *options, "--init-model", files / "first.json",
                              "--quiet", "-o", tmp_path / "m.json")
    one_line_error(status, err, message)
    assert not (tmp_path / "m.json").exists()


def test_a_stream_learner_is_pointed_to_partial_fit_not_to_another_model(files, tmp_path):
    # sgd@k was told to "use --model push", which starts another model instead of continuing its own
    status, _, err = run_main("fit", files / "more.csv", "--drop", "prior,query", "--label", "grade", "--positive",
                              "3", "--model", "sgd@k", "--init-model", files / "first.json", "--quiet",
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, "--init-model: sgd@k (SGDAtK) cannot continue a model (its fit takes no init_model); "
                   "a saved SGDAtK model learns from more rows in Python, with "
                   "rankcore.load_model(MODEL).partial_fit(X, y)")
    assert "--model push" not in err and not (tmp_path / "m.json").exists()


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


# ----------------------------------------------------------------------------------------------------------------
# The relevant label, a model without weak rankers, category columns
# ----------------------------------------------------------------------------------------------------------------
def _labelled(path, labels=("B", "M"), seed=0, n=300):
    """A CSV file of one list: features a..d, the label B (high a) or M."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["label"] = np.where(X[:, 0] + rng.normal(scale=0.7, size=n) > 0.5, labels[0], labels[1])
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("labels, positive, default", [(("B", "M"), "B", "'M'"), ((0, 1), "0", "1")])
def test_a_continuation_ranks_the_models_relevant_label_first(tmp_path, labels, positive, default):
    data = _labelled(tmp_path / "d.csv", labels)
    status, _, err = run_main("fit", data, "--positive", positive, "--n-iter", "3", "--quiet",
                              "-o", tmp_path / "a.json")
    assert status == 0, err
    assert str(rankcore.load_model(tmp_path / "a.json").relevant_label_) in (positive, f"{positive}.0")
    status, _, err = run_main("fit", data, "--n-iter", "3", "--quiet", "--init-model", tmp_path / "a.json",
                              "-o", tmp_path / "b.json")
    one_line_error(status, err, f"--init-model: {tmp_path / 'a.json'} ranks the label", f"first, this fit the "
                   f"label {default}", f"give --positive {positive}")
    assert not (tmp_path / "b.json").exists()
    status, _, err = run_main("fit", data, "--positive", positive, "--n-iter", "3", "--quiet",
                              "--init-model", tmp_path / "a.json", "-o", tmp_path / "b.json")
    assert (status, err) == (0, "")
    more = rankcore.load_model(tmp_path / "b.json")
    assert (more.n_iter_, more.init_iterations_, str(more.relevant_label_)) == \
        (6, 3, str(rankcore.load_model(tmp_path / "a.json").relevant_label_))


def test_a_model_file_without_its_relevant_label_ranks_classes_1_first_else_a_warning(tmp_path):
    data = _labelled(tmp_path / "d.csv", (1, 0))
    X = np.loadtxt(data, delimiter=",", skiprows=1)
    rankcore.save_model(rankcore.boost(n_iter=2, random_state=0).fit(X[:, :4], X[:, 4]), tmp_path / "py.json")
    status, _, err = run_main("fit", data, "--n-iter", "2", "--quiet", "--init-model", tmp_path / "py.json",
                              "-o", tmp_path / "a.json")
    assert (status, err) == (0, "")                # it ranks classes_[1] = 1 first, as this fit does
    status, _, err = run_main("fit", data, "--positive", "0", "--n-iter", "2", "--quiet",
                              "--init-model", tmp_path / "py.json", "-o", tmp_path / "b.json")
    # a model of classes_ [0, 1] without the label recorded may be a file of an earlier `rankcore fit --positive 0`
    assert status == 0 and err.startswith(f"rankcore: warning: --init-model: {tmp_path / 'py.json'} does not record "
                                          "which label it ranks first"), err
    assert "this fit ranks 0 first" in err


def test_a_model_without_weak_rankers_is_continued(tmp_path):
    data = _labelled(tmp_path / "d.csv", (1, 0))
    X = np.loadtxt(data, delimiter=",", skiprows=1)
    with pytest.warns(UserWarning):
        empty = rankcore.boost(n_iter=3, tol=1e9, random_state=0).fit(X[:, :4], X[:, 4])
    assert empty.n_iter_ == 0
    rankcore.save_model(empty, tmp_path / "empty.json")
    status, _, err = run_main("fit", data, "--n-iter", "3", "--init-model", tmp_path / "empty.json",
                              "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert f"continued {tmp_path / 'empty.json'}: 0 weak rankers of it, then 3 new ones" in err
    assert rankcore.load_model(tmp_path / "m.json").init_iterations_ == 0


def _stores(path, stores, seed=0, n=400):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    frame["qid"] = np.sort(rng.integers(0, 30, n))
    frame["store"] = rng.choice(stores, size=n)
    frame["grade"] = np.clip(np.round(frame["a"] + (frame["store"] == 2) + 1), 0, 3).astype(int)
    frame.to_csv(path, index=False)
    return frame


def test_category_columns_are_read_by_the_models_categories(tmp_path):
    pd = pytest.importorskip("pandas")
    day1 = _stores(tmp_path / "day1.csv", [1, 2, 3])
    _stores(tmp_path / "day2.csv", [1, 2], seed=1)           # store 3 sold nothing that day
    X = day1[["a", "b", "c", "store"]].astype({"store": "category"})   # integer categories, fitted in Python
    rankcore.save_model(rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(X, day1["grade"],
                                                                                      qid=day1["qid"]),
                        tmp_path / "py.json")
    options = ("--qid", "qid", "--label", "grade", "--learner", "trees", "--n-iter", "2", "--quiet")
    status, _, err = run_main("fit", tmp_path / "day1.csv", *options, "--categorical", "store",
                              "--init-model", tmp_path / "py.json", "-o", tmp_path / "a.json")
    assert (status, err) == (0, "")
    np.testing.assert_array_equal(rankcore.load_model(tmp_path / "a.json").categories_[3], [1, 2, 3])
    # a day without store 3, and no --categorical: the model's columns and categories
    status, _, err = run_main("fit", tmp_path / "day2.csv", *options, "--init-model", tmp_path / "a.json",
                              "-o", tmp_path / "b.json")
    assert (status, err) == (0, "")
    more = rankcore.load_model(tmp_path / "b.json")
    assert more.n_iter_ == 6
    day2 = pd.read_csv(tmp_path / "day2.csv")
    frame = day2[["a", "b", "c", "store"]].astype({"store": pd.CategoricalDtype([1, 2, 3])})
    expected = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(
        frame, day2["grade"], qid=day2["qid"], init_model=rankcore.load_model(tmp_path / "a.json"))
    np.testing.assert_allclose(more.decision_function(frame), expected.decision_function(frame), rtol=0, atol=1e-12)
    # a store the model never saw is a missing value, as when the model scores it, and said
    day3 = _stores(tmp_path / "day3.csv", [1, 4], seed=2)
    status, _, err = run_main("fit", tmp_path / "day3.csv", *options, "--init-model", tmp_path / "a.json",
                              "-o", tmp_path / "c.json")
    assert status == 0, err
    rows = int((day3["store"] == 4).sum())
    assert err.count("column 'store' holds 1 category the model") == 1 and f"(4; {rows} rows)" in err
    np.testing.assert_array_equal(rankcore.load_model(tmp_path / "c.json").categories_[3], [1, 2, 3])


def test_a_text_column_with_new_values_continues(tmp_path):
    pd = pytest.importorskip("pandas")
    n = 300

    def day(path, shops, seed):
        r = np.random.default_rng(seed)
        frame = pd.DataFrame({"a": r.normal(size=n), "qid": np.sort(r.integers(0, 30, n)),
                              "shop": r.choice(shops, size=n)})
        frame["grade"] = np.clip(np.round(frame["a"] + (frame["shop"] == "north") + 1), 0, 3).astype(int)
        frame.to_csv(path, index=False)
        return frame

    day(tmp_path / "day1.csv", ["north", "south", "east"], 0)
    day2 = day(tmp_path / "day2.csv", ["north", "west", "harbour"], 1)
    options = ("--qid", "qid", "--label", "grade", "--learner", "trees", "--n-iter", "2", "--quiet")
    status, _, err = run_main("fit", tmp_path / "day1.csv", *options, "--categorical", "shop",
                              "-o", tmp_path / "a.json")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "day2.csv", *options, "--init-model", tmp_path / "a.json",
                              "-o", tmp_path / "b.json")
    assert status == 0, err
    assert err.count("column 'shop' holds 2 categories the model") == 1
    first, more = rankcore.load_model(tmp_path / "a.json"), rankcore.load_model(tmp_path / "b.json")
    assert list(more.categories_[1]) == list(first.categories_[1]) and more.n_iter_ == 4
    frame = day2[["a", "shop"]].astype({"shop": "category"})
    with pytest.warns(UserWarning, match="column 'shop' holds 2 categories"):      # the library says it alike
        expected = rankcore.boost(learner="trees", n_iter=2, random_state=0).fit(frame, day2["grade"],
                                                                                 qid=day2["qid"], init_model=first)
    np.testing.assert_allclose(more.decision_function(frame), expected.decision_function(frame), rtol=0, atol=1e-12)


def test_refusals_name_the_options_and_columns(tmp_path):
    _stores(tmp_path / "day1.csv", [1, 2, 3])
    options = ("--qid", "qid", "--label", "grade", "--learner", "trees", "--n-iter", "2", "--quiet")
    status, _, err = run_main("fit", tmp_path / "day1.csv", *options, "--categorical", "store",
                              "-o", tmp_path / "a.json")
    assert status == 0, err
    status, _, err = run_main("fit", tmp_path / "day1.csv", *options, "--categorical", "store,a",
                              "--init-model", tmp_path / "a.json", "-o", tmp_path / "b.json")
    one_line_error(status, err, "--init-model: the model splits the columns ['store'] by category groups, this fit "
                   "['a', 'store']; give the model's --categorical columns")
    status, _, err = run_main("fit", tmp_path / "day1.csv", "--qid", "qid", "--label", "grade", "--learner",
                              "trees:growth=depthwise,monotone=1/0/0/0", "--n-iter", "2", "--quiet",
                              "--categorical", "store", "--init-model", tmp_path / "a.json", "-o", tmp_path / "b.json")
    one_line_error(status, err, "--init-model: the model was fitted with no monotone constraints, this fit's learner "
                   "has monotone=1/0/0/0; the model file's learner would claim")
