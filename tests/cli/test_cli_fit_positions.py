"""``rankcore fit DATA --qid Q --position COLUMN``: display positions of clicks on the command line."""

import contextlib
import csv
import io

import numpy as np
import pytest

import rankcore
from _cli_run import one_line_error, run_main
from rankcore.cli import build_parser
from rankcore.cli.datasets import DataError, load_data

N_ITER = "8"
FIT = ("--qid", "query", "--position", "place", "--label", "click", "--n-iter", N_ITER)
HEADER = ["query", "place", "a", "b", "c", "click"]


def logged(seed, n_queries=30):
    """Clicks logged on queries of 4..10 rows shown in a random order: the first places are clicked more."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 11, size=n_queries)
    query = np.repeat(np.arange(n_queries), sizes)
    place = np.concatenate([rng.permutation(size) for size in sizes])
    X = np.round(rng.normal(size=(query.size, 3)), 2)
    relevant = X[:, 0] > 0.3
    click = (rng.random(query.size) < np.where(relevant, 0.9, 0.15) / (place + 1) ** 0.5).astype(int)
    return query, place, X, click


def write(path, query, place, X, click, header=HEADER, order=None):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for i in range(query.size) if order is None else order:
            row = {"query": f"q{query[i]}", "place": str(place[i]), "click": str(click[i]),
                   **{name: repr(float(v)) for name, v in zip("abc", X[i])}}
            writer.writerow([row[name] for name in header])
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit_positions")
    query, place, X, click = logged(0)
    write(d / "clicks.csv", query, place, X, click, order=np.random.default_rng(1).permutation(query.size))
    vq, vp, vX, vc = logged(2, n_queries=10)
    write(d / "valid.csv", vq, vp, vX, vc)
    write(d / "valid_no_place.csv", vq, vp, vX, vc, header=["query", "a", "b", "c", "click"])
    return d


def _frame(data):
    import pandas as pd

    return pd.DataFrame(data.X, columns=data.feature_names)


def test_fit_with_positions_is_the_estimators_fit_with_position(files, tmp_path):
    status, _, err = run_main("fit", files / "clicks.csv", *FIT, "--progress", "none", "-o", tmp_path / "m.json")
    assert status == 0, err
    data = load_data(files / "clicks.csv", label="click", qid="query", position="place")
    places = np.unique(data.position)
    assert f"positions 0 to {places[-1]} ({places.size} places) (label: click)" in err
    (effects_line,) = [line for line in err.splitlines() if line.startswith("position effects (place): ")]
    assert effects_line.endswith("; the model ranks without them")
    model = rankcore.load_model(tmp_path / "m.json")
    # the position column is neither a feature nor the label
    assert list(model.feature_names_in_) == ["a", "b", "c"] and model.n_features_in_ == 3
    np.testing.assert_array_equal(model.position_ids_, places)
    assert model.position_effects_.shape == places.shape
    expected = rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0).fit(
        _frame(data), data.y, qid=data.qid, position=data.position)
    np.testing.assert_array_equal(model.decision_function(_frame(data)), expected.decision_function(_frame(data)))
    np.testing.assert_array_equal(model.position_effects_, expected.position_effects_)
    shown = effects_line[len("position effects (place): "):].split(";")[0].split(", ")
    assert [int(pair.split()[0]) for pair in shown] == places.tolist()      # ten places: every one shown
    np.testing.assert_allclose([float(pair.split()[1]) for pair in shown], model.position_effects_, atol=5e-5)
    # the positions change the model: without them it is another one
    plain = rankcore.boost(learner="trees", n_iter=int(N_ITER), random_state=0).fit(_frame(data), data.y,
                                                                                  qid=data.qid)
    assert not np.array_equal(plain.decision_function(_frame(data)), expected.decision_function(_frame(data)))


def test_quiet_prints_nothing_and_rankboost_learns_positions_too(files, tmp_path):
    status, out, err = run_main("fit", files / "clicks.csv", *FIT, "--quiet", "-o", tmp_path / "m.json")
    assert (status, out, err) == (0, "", "")
    status, _, err = run_main("fit", files / "clicks.csv", *FIT, "--model", "rankboost", "--quiet",
                              "-o", tmp_path / "r.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "r.json")
    assert type(model).__name__ == "RankBoost" and model.position_effects_ is not None


def test_many_effects_are_shown_by_their_first_and_last_places():
    from types import SimpleNamespace

    from rankcore.cli._queries import position_effects_note

    fitted = SimpleNamespace(position_ids_=np.arange(1, 13), position_effects_=np.linspace(0.5, -0.05, 12))
    assert position_effects_note(fitted, "rank") == ("position effects (rank): 1 +0.500, 2 +0.450, 3 +0.400, "
                                                     "4 +0.350, 5 +0.300, 6 +0.250, ..., 11 +0.000, 12 -0.050; "
                                                     "the model ranks without them")
    tiny = SimpleNamespace(position_ids_=np.array([0, 1]), position_effects_=np.array([5.1e-5, -2e-6]))
    assert position_effects_note(tiny, "p").startswith("position effects (p): 0 +0.000051, 1 -0.000002;")
    assert position_effects_note(SimpleNamespace(), "p") is None


def test_help_lists_the_option():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args(["fit", "--help"])
    assert "--position COLUMN" in out.getvalue()


def _with_cell(files, tmp_path, value):
    """clicks.csv with the place of its third data row (line 4) replaced by ``value``."""
    lines = (files / "clicks.csv").read_text().splitlines()
    cells = lines[3].split(",")
    cells[1] = value
    lines[3] = ",".join(cells)
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("value, message", [
    ("", "missing display position"),
    ("NA", "missing display position"),
    ("2.5", "expected the row's display position, an integer >= 0, got '2.5'"),
    ("-1", "expected the row's display position, an integer >= 0, got '-1'"),
    ("top", "expected the row's display position, an integer >= 0, got 'top'"),
    ("1_0", "expected the row's display position, an integer >= 0, got '1_0'"),
])
def test_bad_positions_name_the_line_the_column_and_the_option(files, tmp_path, value, message):
    status, _, err = run_main("fit", _with_cell(files, tmp_path, value), *FIT, "-o", tmp_path / "m.json")
    one_line_error(status, err, "bad.csv, line 4, column 'place' (--position): " + message)
    assert not (tmp_path / "m.json").exists()


def test_integral_numbers_are_positions(files, tmp_path):
    data = load_data(_with_cell(files, tmp_path, " 3.0 "), label="click", qid="query", position="place")
    assert data.position.dtype == np.int64 and data.position[2] == 3
    assert data.position_name == "place" and "place" not in data.feature_names and not data.kept


@pytest.mark.parametrize("options, message", [
    (["--qid", "query", "--position", "plce"], "no display-position column 'plce' (--position) in the header "
                                               "(columns: query, place, a, b, c, click); did you mean 'place'?"),
    (["--qid", "query", "--position", "query"], "the column 'query' cannot be both the query ids (--qid) and the "
                                                "display positions (--position)"),
    (["--qid", "query", "--position", "click"], "the display-position column 'click' (--position) is the label or "
                                                "dropped"),
    (["--qid", "query", "--position", "place", "--drop", "place"], "the display-position column 'place' "
                                                                   "(--position) is the label or dropped"),
    (["--position", "place"], "--position place: display positions are places within each query's list; name "
                              "the rows' query-id column with --qid COLUMN"),
    (["--qid", "query", "--position", "place", "--categorical", "place"], "no feature column 'place' to read "
                                                                          "by category"),
])
def test_the_column_is_checked_as_the_query_ids_are(files, tmp_path, options, message):
    status, _, err = run_main("fit", files / "clicks.csv", "--label", "click", *options, "-o", tmp_path / "m.json")
    one_line_error(status, err, message)


def test_files_without_named_columns_have_no_positions(files, tmp_path):
    svm = tmp_path / "clicks.svm"
    svm.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    status, _, err = run_main("fit", svm, "--position", "place", "-o", tmp_path / "m.json")
    one_line_error(status, err, "clicks.svm: only CSV files name a column of display positions (--position); this "
                                "is a libsvm file (LIBSVM rows have no field of display positions)")
    np.savez(tmp_path / "clicks.npz", X=np.ones((4, 2)), y=np.array([0, 1, 0, 1]))
    status, _, err = run_main("fit", tmp_path / "clicks.npz", "--position", "place", "-o", tmp_path / "m.json")
    one_line_error(status, err, "only CSV files name a column of display positions (--position); this is a npz file")


@pytest.mark.parametrize("model", ["exactboost", "sgd@k", "kernel"])
def test_a_model_that_cannot_take_positions_is_refused_before_the_data_are_read(tmp_path, model):
    status, _, err = run_main("fit", tmp_path / "absent.csv", "--qid", "query", "--position", "place",
                              "--model", model, "-o", tmp_path / "m.json")
    one_line_error(status, err, f"--position place: {model} (", "cannot learn effects of display positions (its fit "
                   "takes no position); use --model push or rankboost, or leave out --position and pass "
                   "--drop place")


def test_an_objective_without_curvature_names_the_option(files, tmp_path):
    status, _, err = run_main("fit", files / "clicks.csv", *FIT, "--loss", "hinge", "--quiet",
                              "-o", tmp_path / "m.json")
    one_line_error(status, err, "--position place: the objective 'push:hinge", "has no curvature")


def test_validation_rows_need_no_positions_and_their_column_is_not_a_feature(files, tmp_path):
    # a validation file's column of that name is left out unread: even text there is no error
    lines = (files / "valid.csv").read_text().splitlines()
    lines[1] = lines[1].replace(lines[1].split(",")[1], "top", 1)
    (tmp_path / "valid_text.csv").write_text("\n".join(lines) + "\n")
    scores = {}
    for name in ("valid.csv", "valid_no_place.csv", "valid_text.csv"):
        source = tmp_path / name if name == "valid_text.csv" else files / name
        status, _, err = run_main("fit", files / "clicks.csv", *FIT, "--validation", source, "--monitor",
                                  "ndcg@k:3", "--progress", "none", "-o", tmp_path / f"{name}.json")
        assert status == 0, err
        assert "validation ndcg@k:3" in err
        model = rankcore.load_model(tmp_path / f"{name}.json")
        assert list(model.feature_names_in_) == ["a", "b", "c"]
        scores[name] = (model.decision_function(_frame(load_data(files / "valid_no_place.csv", label="click",
                                                                  qid="query"))),
                        model.validation_scores_)
    for name in ("valid_no_place.csv", "valid_text.csv"):
        np.testing.assert_array_equal(scores[name][0], scores["valid.csv"][0])
        np.testing.assert_array_equal(scores[name][1], scores["valid.csv"][1])


def test_score_and_evaluate_take_no_positions(files, tmp_path):
    status, _, err = run_main("fit", files / "clicks.csv", *FIT, "--quiet", "-o", tmp_path / "m.json")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    # a file without the column: scored as any other
    status, out, err = run_main("score", tmp_path / "m.json", files / "valid_no_place.csv", "--qid", "query",
                                "--label", "click")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query", "score"]
    data = load_data(files / "valid_no_place.csv", label="click", qid="query")
    np.testing.assert_array_equal([float(r[1]) for r in rows[1:]], model.decision_function(_frame(data)))
    # a file with it: the column is named, with the way out
    for command in ("score", "evaluate"):
        status, _, err = run_main(command, tmp_path / "m.json", files / "valid.csv", "--qid", "query",
                                  "--label", "click")
        one_line_error(status, err, "valid.csv: the column 'place' is not a feature of the model", "--drop place",
                       "fitted with display positions and ranks without them")
    status, out, err = run_main("score", tmp_path / "m.json", files / "valid.csv", "--qid", "query", "--label",
                                "click", "--drop", "place")
    assert status == 0, err
    np.testing.assert_array_equal([float(r[1]) for r in list(csv.reader(io.StringIO(out)))[1:]],
                                  model.decision_function(_frame(data)))
    status, out, err = run_main("evaluate", tmp_path / "m.json", files / "valid.csv", "--qid", "query", "--label",
                                "click", "--drop", "place", "--metrics", "ndcg@k:5")
    assert status == 0, err
    expected = rankcore.evaluate(data.y, model.decision_function(_frame(data)), ["ndcg@k:5"], qid=data.qid)
    assert f"{expected['ndcg@k:5']:.4f}" in out


def test_an_optional_position_column_is_left_out_unread(files):
    data = load_data(files / "valid.csv", label="click", qid="query", position="place", require_position=False)
    assert data.feature_names == ["a", "b", "c"] and data.position is None
    data = load_data(files / "valid_no_place.csv", label="click", qid="query", position="place",
                     require_position=False)
    assert data.feature_names == ["a", "b", "c"] and data.position is None
    with pytest.raises(DataError, match=r"no display-position column 'place' \(--position\)"):
        load_data(files / "valid_no_place.csv", label="click", qid="query", position="place")


def test_only_fit_and_auto_take_positions_compare_says_so(files):
    status, _, err = run_main("compare", files / "clicks.csv", "--qid", "query", "--label", "click",
                              "--position", "place")
    one_line_error(status, err, "--position: only `rankcore fit DATA --qid Q --position place` (and `rankcore auto`) "
                   "learns", "`rankcore compare` takes no positions", "here it would be read as a feature",
                   "pass --drop place")


@pytest.mark.parametrize("command", ["score", "evaluate"])
def test_score_and_evaluate_refuse_positions_with_what_to_do(files, tmp_path, command):
    model = tmp_path / "m.json"
    assert run_main("fit", files / "clicks.csv", *FIT, "--quiet", "-o", model)[0] == 0
    status, _, err = run_main(command, model, files / "clicks.csv", "--qid", "query", "--label", "click",
                              "--position", "place")
    one_line_error(status, err, f"`rankcore {command}` takes no positions (the model ranks without positions)",
                   "pass --drop place")


def test_the_effects_line_says_when_there_is_one_place_and_prints_no_rounding_noise(files, tmp_path):
    from rankcore.cli._queries import position_effects_note

    class Fitted:
        position_ids_ = np.array([3])
        position_effects_ = np.array([2.7e-19])

    assert position_effects_note(Fitted(), "place") == "position effects (place): one place (3), no effect to learn"
    Fitted.position_ids_, Fitted.position_effects_ = np.arange(3), np.array([3e-12, -2e-12, 1e-13])
    assert position_effects_note(Fitted(), "place") == ("position effects (place): 0 +0.000000, 1 +0.000000, "
                                                         "2 +0.000000; the model ranks without them")


def test_fit_with_position_bias_em_fits_the_click_model_and_prints_its_propensities(files, tmp_path):
    status, _, err = run_main("fit", files / "clicks.csv", *FIT, "--param", "position_bias=em:rounds=2",
                              "--progress", "none", "-o", tmp_path / "em.json")
    assert status == 0, err
    (line,) = [line for line in err.splitlines() if line.startswith("position propensities (place): ")]
    assert line.endswith("after 2 EM rounds; the model ranks without them")
    model = rankcore.load_model(tmp_path / "em.json")
    data = load_data(files / "clicks.csv", label="click", qid="query", position="place")
    expected = rankcore.boost(learner="trees", n_iter=int(N_ITER), position_bias="em:rounds=2", random_state=0).fit(
        _frame(data), data.y, qid=data.qid, position=data.position)
    np.testing.assert_array_equal(model.decision_function(_frame(data)), expected.decision_function(_frame(data)))
    np.testing.assert_array_equal(model.position_propensities_, expected.position_propensities_)
    shown = line[len("position propensities (place): "):].split(" after ")[0].split(", ")
    np.testing.assert_allclose([float(pair.split()[1]) for pair in shown], model.position_propensities_, atol=5e-4)


def test_a_fit_whose_step_climbs_says_diverged_on_its_fit_line(files, tmp_path):
    # a learning rate far above 1: the first tree's step raises J above its start, is not taken, and the fit line
    # says why the fit stopped (before: the fit ran on while J climbed, until an overflow stopped it)
    status, out, err = run_main("fit", files / "clicks.csv", *FIT, "--learner", "trees:learning_rate=1000",
                                "--progress", "lines", "-o", tmp_path / "m.json")
    assert status == 0
    assert "rankcore: warning: boosting stopped at iteration 1 (stop_reason_ = 'diverged')" in err
    assert "learning_rate=1000" in err
    assert ("stopped: diverged (a step raised the objective above its start and was not taken: the warning says "
            "what to change) after 0 iterations") in out + err
    assert rankcore.load_model(tmp_path / "m.json").stop_reason_ == "diverged"


def test_the_fit_line_of_a_diverged_stop_leaves_the_advice_to_the_warning():
    # the warning names what to change, which depends on the path (trees' learning_rate, position_l2, an objective's
    # fixed_value); the fit line said "lower the learning rate" for every learner, stumps and features included,
    # which have none
    from types import SimpleNamespace

    from rankcore.cli._models import stop_summary

    line = stop_summary(SimpleNamespace(stop_reason_="diverged", n_iter_=3))
    assert line.startswith("stopped: diverged (") and "the warning says what to change" in line
    assert "learning rate" not in line and line.endswith("after 3 iterations")


@pytest.mark.parametrize("options", [["--qid", "query"], []])
def test_the_click_model_without_position_is_refused_naming_the_option(files, tmp_path, options):
    status, _, err = run_main("fit", files / "clicks.csv", *options, "--drop", "place", "--label", "click",
                              "--param", "position_bias=em:rounds=2", "-o", tmp_path / "em.json")
    one_line_error(status, err, "--param position_bias=em:rounds=2: the click model reads where each row was shown: "
                                "name the CSV column of display positions with --position COLUMN (and the query ids "
                                "with --qid COLUMN)")


def test_the_click_model_of_a_model_spec_without_position_is_refused_naming_the_model_option(files, tmp_path):
    # set in the --model spec, not by --param: the error named --param, an option not given
    status, _, err = run_main("fit", files / "clicks.csv", "--qid", "query", "--drop", "place", "--label", "click",
                              "--model", "push:position_bias=em", "-o", tmp_path / "em.json")
    one_line_error(status, err, "--model position_bias=em: the click model reads where each row was shown: name the "
                                "CSV column of display positions with --position COLUMN (and the query ids with --qid "
                                "COLUMN)")
