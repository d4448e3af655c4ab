"""The command line's leftover loose ends: signed NaN in a text column, abbreviated long options, a few typos among
numbers written with a comma, the sparse file's note under ``--model auto``, the stop lines of every refit and the
LIBSVM parser's index width."""

import argparse

import numpy as np
import pytest
from _cli_run import run_main, usage_error, write_binary_csv, write_kept_sparse_libsvm

import rankcore.cli.datasets._csv as csv_module
from rankcore.cli import build_parser
from rankcore.cli.datasets import DataError, load_data


@pytest.fixture(scope="module")
def binary_csv(tmp_path_factory):
    return write_binary_csv(tmp_path_factory.mktemp("leftover") / "d.csv")


# signed NaN in a text column -------------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", ["-NaN", "+nan", " NaN ", "nan", " -nan ", "+NAN"])
@pytest.mark.parametrize("categorical", [["color"], "auto"])
def test_signed_nan_in_a_text_column_is_missing_on_both_routes(tmp_path, monkeypatch, spelling, categorical):
    path = tmp_path / "c.csv"
    path.write_text(f"x,color,label\n1,red,0\n2,blue,1\n3,{spelling},0\n4,red,1\n")
    fast = load_data(path, categorical=categorical)
    monkeypatch.setattr(csv_module, "_csv_fast_path", lambda *args: None)      # the checking parser
    checking = load_data(path, categorical=categorical)
    for data in (fast, checking):
        assert list(data.categories["color"]) == ["blue", "red"]
        np.testing.assert_array_equal(data.X[:, 1], [1, 0, np.nan, 1])
        assert data.missing().columns == ["color"]


# abbreviated long options ----------------------------------------------------------------------------------------

def _parsers(parser):
    """``parser`` and every subcommand's parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_no_parser_takes_an_abbreviation():
    parsers = list(_parsers(build_parser()))
    assert len(parsers) >= 10 and all(not p.allow_abbrev for p in parsers)


@pytest.mark.parametrize("words, hint", [
    (["demo", "--test", "0.3", "--out-dir", "OUT"], "--test 0.3 (did you mean --test-size?)"),
    (["demo", "--test=0.3", "--out-dir", "OUT"], "--test=0.3 (did you mean --test-size?)"),
    (["fit", "DATA", "--mod", "rankboost", "-o", "OUT/m.json"], "--mod rankboost (did you mean --model?)"),
    (["fit", "DATA", "--n-iters", "3", "-o", "OUT/m.json"], "--n-iters 3 (did you mean --n-iter?)"),
    (["--vers"], "--vers (did you mean --version?)"),
    # no abbreviation passes as a singular: --los and --progres end in s, no plural's singular
    (["fit", "DATA", "--los", "logistic", "-o", "OUT/m.json"], "--los logistic (did you mean --loss?)"),
    (["fit", "DATA", "--progres", "none", "-o", "OUT/m.json"], "--progres none (did you mean --progress?)"),
    (["fit", "DATA", "--n-estimator", "5", "-o", "OUT/m.json"],
     "--n-estimator 5 (other libraries' --n-estimator is here --n-iter N)"),
])
def test_an_abbreviated_option_is_refused_with_the_option_meant(binary_csv, tmp_path, capsys, words, hint):
    # `demo --test 0.3` was argparse's abbreviation of --test-size, silently
    words = [w.replace("DATA", str(binary_csv)).replace("OUT", str(tmp_path)) for w in words]
    line = usage_error(capsys, *words).strip().splitlines()[-1]
    assert line == f"rankcore: error: unrecognized arguments: {hint}", line
    assert not any(tmp_path.iterdir())


def test_an_unknown_option_far_from_any_gets_no_hint(binary_csv, capsys):
    line = usage_error(capsys, "fit", str(binary_csv), "--zzz").strip().splitlines()[-1]
    assert line == "rankcore: error: unrecognized arguments: --zzz", line


# a few typos among numbers written with a comma ------------------------------------------------------------------

def _comma_numbers(path, typos, rows=300, distinct=150):
    """A ';'-separated file whose column ``price`` holds ``distinct`` numbers written with a comma, in ``rows`` rows,
    but for the words ``typos`` (row index -> word)."""
    lines = ["price;x;label"]
    for i in range(rows):
        lines.append(f"{typos.get(i, f'{i % distinct},{i % 7}5')};{i};{i % 2}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("route", ["fast", "checking"])
def test_two_typos_among_150_distinct_comma_numbers_are_refused_and_named(tmp_path, monkeypatch, route):
    # one distinct value in a hundred was the limit: two typos among 150 distinct numbers split the column by
    # category without a word
    if route == "checking":
        monkeypatch.setattr(csv_module, "_csv_fast_path", lambda *args: None)
    path = _comma_numbers(tmp_path / "p.csv", {17: "oops", 211: "n.a.", 250: "n.a."})
    with pytest.raises(DataError, match=r"p\.csv, line 2, column 'price': '0,05' is a number written with a comma.*"
                                        r"its other values are numbers but 'oops' at line 19 and 'n\.a\.' at lines "
                                        r"213, 252 \(missing values or typos\?\)"):
        load_data(path, categorical="auto")


def test_many_rows_of_one_word_are_named_with_the_first_lines(tmp_path):
    path = _comma_numbers(tmp_path / "p.csv", {i: "absent" for i in range(3, 15, 2)} | {40: "oops"})
    with pytest.raises(DataError, match=r"but 'absent' at lines 5, 7, 9 and 3 more and 'oops' at line 42 "):
        load_data(path, categorical="auto")


def test_words_in_many_rows_make_a_column_of_text(tmp_path):
    # words in more than one row in twenty: a column of names, some of which look like numbers
    path = _comma_numbers(tmp_path / "p.csv", {i: f"w{i // 10 % 4}" for i in range(0, 300, 10)})
    data = load_data(path, categorical="auto")
    assert list(data.categories) == ["price"] and {"w0", "w1", "w2", "w3"} <= set(data.categories["price"])


# the candidates skipped for a file kept sparse -------------------------------------------------------------------

def test_auto_says_in_command_line_words_which_candidates_a_sparse_file_skips(tmp_path, monkeypatch):
    # the note was the Python API's: "reads no sparse input (X is a scipy.sparse matrix)"
    train = write_kept_sparse_libsvm(tmp_path, monkeypatch)
    status, printed, err = run_main("auto", train, "--candidates", "linear,exactboost", "--cv", "2", "--no-blend",
                                    "--out", tmp_path / "m.json", "--progress", "none")
    assert status == 0, err
    assert "scipy" not in printed + err
    assert "exactboost" in printed and "reads dense rows only, and the file is kept sparse" in printed
    assert ("skipped exactboost: it reads dense rows only, and " f"{train} is kept sparse for its size (120 rows x 20 "
            "features would take 0.0192 MB dense); to search it, list only such candidates (--candidates "
            "exactboost): the file is then read dense") in err


# the stop lines of every refit -----------------------------------------------------------------------------------

def _boost(reason, n_iter):
    import rankcore

    model = rankcore.PushBoost()
    model.stop_reason_, model.n_iter_ = reason, n_iter
    return model


def test_auto_says_why_an_imputer_wrapped_refit_and_the_bagged_fold_fits_stopped():
    # a candidate behind its missing-value imputer (a Pipeline) and the fold fits bagged with the refit: no line
    import types

    from sklearn.pipeline import make_pipeline

    from rankcore.auto import FoldBag, MissingValueImputer, RankAverage
    from rankcore.cli.auto import stop_lines

    def imputed(model):
        return make_pipeline(MissingValueImputer(), model)

    bag = FoldBag("stumps", [imputed(_boost("early_stopping", 31)), imputed(_boost("no_split", 4)),
                             imputed(_boost("n_iter", 100)), imputed(_boost("no_split", 4)),
                             imputed(_boost("early_stopping", 12))], np.zeros(5), np.ones(5))
    blend = RankAverage(["stumps", "linear"], [bag, imputed(_boost("no_split", 1))], [np.zeros(2), np.zeros(2)])
    auto = types.SimpleNamespace(best_estimator_=blend, best_candidate_="blend(stumps+linear)")
    lines = stop_lines(auto)
    assert lines[0] == "refit of stumps: stopped: early_stopping, kept the best 31 iterations"
    assert lines[1].startswith("fold fits of stumps (bagged with the refit): folds 1, 3: stopped: no_split")
    assert lines[1].endswith("after 4 iterations; fold 4: stopped: early_stopping, kept the best 12 iterations")
    assert lines[2].startswith("refit of linear: stopped: no_split") and lines[2].endswith(" after 1 iteration")
    assert len(lines) == 3
    auto.best_estimator_, auto.best_candidate_ = imputed(_boost("n_iter", 100)), "stumps"
    assert stop_lines(auto) == []


# the LIBSVM scan's index width -----------------------------------------------------------------------------------

def _libsvm_text(n_rows=400, n_features=30, seed=3, density=0.2):
    rng = np.random.default_rng(seed)
    lines = []
    for r in range(n_rows):
        index = np.flatnonzero(rng.random(n_features) < density) + 1
        lines.append(f"{r % 2} qid:{r // 20} " + " ".join(f"{i}:{rng.normal():.4f}" for i in index))
    return "\n".join(lines) + "\n"


def test_the_scan_stores_int32_indices_while_they_fit_and_int64_beyond():
    from rankcore.cli.datasets._libsvm import MAX_LIBSVM_FEATURES
    from rankcore.cli.datasets._libsvm_scan import scan_clean

    text = bytearray(_libsvm_text().encode()) + b"\0"
    narrow = scan_clean(text, MAX_LIBSVM_FEATURES)
    wide = scan_clean(text, MAX_LIBSVM_FEATURES, 100)            # as past 2**31 - 1 values
    assert narrow[3].dtype == narrow[4].dtype == np.int32
    assert wide[3].dtype == wide[4].dtype == np.int64
    for a, b in zip(narrow, wide):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("how", ["dense", "sparse", "by names", "drop", "checking parser"])
def test_int32_and_int64_indices_read_the_same_data(tmp_path, monkeypatch, how):
    from rankcore.cli.datasets import _libsvm

    text = _libsvm_text()
    path = tmp_path / "d.svm"
    path.write_text(text.replace(" 5:", "\t5:") if how == "checking parser" else text)   # a tab: line by line
    if how == "sparse":
        monkeypatch.setattr(_libsvm, "SPARSE_FROM_BYTES", 0)
    options = {"by names": {"feature_names": [f"f{k}" for k in range(1, 31)]}, "drop": {"drop": ["f3"]}}.get(how, {})
    narrow = load_data(path, **options)
    monkeypatch.setattr(_libsvm, "_NARROW_LIMIT", 10)
    wide = load_data(path, **options)
    for data in (narrow, wide):
        assert data.feature_names == narrow.feature_names and data.X.shape[0] == 400
    if how == "sparse":
        assert narrow.X.format == wide.X.format == "csr"
        np.testing.assert_array_equal(narrow.X.indices, wide.X.indices)
        np.testing.assert_array_equal(narrow.X.indptr, wide.X.indptr)
    np.testing.assert_array_equal(narrow.X.toarray() if how == "sparse" else narrow.X,
                                  wide.X.toarray() if how == "sparse" else wide.X)
    np.testing.assert_array_equal(narrow.y, wide.y)
    np.testing.assert_array_equal(narrow.qid, wide.qid)


def test_the_scan_takes_16_bytes_a_value():
    # int64 row and column indices took 24 bytes a value: most of the memory a large file's read takes
    import tracemalloc

    from rankcore.cli.datasets._libsvm import MAX_LIBSVM_FEATURES
    from rankcore.cli.datasets._libsvm_scan import scan_clean

    text = bytearray(_libsvm_text(n_rows=3000, n_features=200, density=0.6).encode()) + b"\0"
    tracemalloc.start()
    try:
        parsed = scan_clean(text, MAX_LIBSVM_FEATURES)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    n_values, n_rows = parsed[5].size, parsed[0].size
    assert n_values > 300_000
    assert peak < 17 * n_values + 24 * n_rows + 100_000, (peak, n_values)
