"""Polars and Arrow tables read as the pandas frames they stand for: names, categories by value, nulls, refusals.

The Polars tests skip without Polars (an optional extra); the Arrow ones need PyArrow (which pandas brings).
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import rankcore
from rankcore import metrics
from rankcore._frames import as_pandas_frame
from rankcore.metrics._queries import check_qid

N = 240
COLOURS = np.array(["red", "green", "blue", "white"])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    a, b, level = rng.normal(size=N), rng.normal(size=N), rng.integers(0, 4, N)
    y = ((a + (level == 2) + 0.3 * rng.normal(size=N)) > 0.6).astype(int)
    return a, b, COLOURS[level], y


def trees(**params):
    return rankcore.boost(learner="trees", n_iter=12, random_state=0, **params)


def pandas_scores(a, b, colours, y):
    frame = pd.DataFrame({"a": a, "b": b, "colour": pd.Categorical(colours)})
    return trees().fit(frame, y).decision_function(frame)


# -- Polars ---------------------------------------------------------------------------------------------------------

def test_a_polars_categorical_column_is_matched_by_value_as_a_pandas_one(data):
    pl = pytest.importorskip("polars")
    a, b, colours, y = data
    model = trees().fit(pl.DataFrame({"a": a, "b": b, "colour": pl.Series(colours, dtype=pl.Categorical)}), y)
    expected = pandas_scores(a, b, colours, y)
    # scored with the categories in another order (an Enum declared backwards): the codes differ, the values not
    backwards = pl.Enum(list(COLOURS[::-1]))
    later = pl.DataFrame({"a": a, "b": b, "colour": pl.Series(colours, dtype=backwards)})
    np.testing.assert_array_equal(model.decision_function(later), expected)
    # a frame of rows holding two of the colours only
    rows = np.flatnonzero(np.isin(colours, ["blue", "white"]))
    np.testing.assert_array_equal(model.decision_function(later[rows]), expected[rows])
    assert [list(c) if c is not None else None for c in model.categories_] == [None, None, sorted(COLOURS)]


def test_a_polars_enum_keeps_its_declared_order(data):
    pl = pytest.importorskip("polars")
    a, b, colours, y = data
    order = ["white", "red", "blue", "green"]
    model = trees().fit(pl.DataFrame({"a": a, "b": b, "colour": pl.Series(colours, dtype=pl.Enum(order))}), y)
    frame = pd.DataFrame({"a": a, "b": b, "colour": pd.Categorical(colours, categories=order)})
    np.testing.assert_array_equal(model.decision_function(frame), trees().fit(frame, y).decision_function(frame))
    assert list(model.categories_[2]) == order


@pytest.mark.parametrize("column, what", [
    ("day", "dates"), ("stamp", "dates"), ("wait", "durations"), ("name", "text")])
def test_polars_dates_durations_and_text_are_refused_by_name(data, column, what):
    # NumPy reads a Polars frame of mixed kinds as floats: dates became day counts, durations microseconds
    pl = pytest.importorskip("polars")
    a, b, colours, y = data
    days = pl.Series(np.arange(N))
    extra = {"day": pl.date(2024, 1, 1) + pl.duration(days=days), "stamp": pl.datetime(2024, 1, 1) +
             pl.duration(hours=days), "wait": pl.duration(seconds=days), "name": pl.lit(pl.Series(colours))}[column]
    frame = pl.DataFrame({"a": a, "b": b}).with_columns(extra.alias(column))
    with pytest.raises(TypeError, match=rf"^X: column '{column}' holds {what}"):
        trees().fit(frame, y)
    with pytest.raises(TypeError, match=rf"^X: column '{column}' holds {what}"):
        rankcore.AutoRanker(candidates=["trees"], random_state=0).fit(frame, y)


def test_a_polars_lazyframe_is_refused_with_what_to_do(data):
    pl = pytest.importorskip("polars")
    a, b, _, y = data
    with pytest.raises(ValueError, match=r"^X: .*LazyFrame.*\.collect\(\)"):
        trees().fit(pl.DataFrame({"a": a, "b": b}).lazy(), y)


def test_polars_nulls_are_pandas_missing_values(data):
    pl = pytest.importorskip("polars")
    a, b, colours, y = data
    gaps = np.arange(N) % 9 == 0
    count = np.arange(N) % 7
    flag = colours == "blue"
    frame = pl.DataFrame({"a": np.where(gaps, np.nan, a),                              # NaN ...
                          "b": pl.Series(b).scatter(np.flatnonzero(gaps[::-1]), None),  # ... and nulls
                          "n": pl.Series(count).scatter(np.flatnonzero(gaps), None),
                          "f": pl.Series(flag).scatter(np.flatnonzero(gaps), None)})
    expected = pd.DataFrame({"a": np.where(gaps, np.nan, a), "b": np.where(gaps[::-1], np.nan, b),
                             "n": pd.array(np.where(gaps, None, count), dtype="Int64"),
                             "f": pd.array(np.where(gaps, None, flag), dtype="boolean")})
    np.testing.assert_array_equal(trees().fit(frame, y).decision_function(frame),
                                  trees().fit(expected, y).decision_function(expected))


def test_polars_ids_beyond_2_53_as_categorical_features_are_refused(data):
    # they went through float64, two ids read as one, where a pandas Int64 column was refused
    pl = pytest.importorskip("polars")
    a, _, colours, y = data
    ids = pl.Series((colours == "red").astype(np.int64) + 2**60).scatter([0], None)
    with pytest.raises(ValueError, match=r"column 'id' holds the integer \d+, beyond ±2\*\*53"):
        trees(categorical_features=["id"]).fit(pl.DataFrame({"a": a, "id": ids}), y)


def test_polars_frames_reach_auto_ranker_explanations_and_files(data, tmp_path):
    pl = pytest.importorskip("polars")
    from rankcore.persistence import load_model, save_model

    a, b, colours, y = data
    fit_frame = pl.DataFrame({"a": a, "b": b, "colour": pl.Series(colours, dtype=pl.Categorical)})
    later = fit_frame.with_columns(pl.col("colour").cast(pl.String).cast(pl.Enum(list(COLOURS[::-1]))))
    frame = pd.DataFrame({"a": a, "b": b, "colour": pd.Categorical(colours)})
    auto = rankcore.AutoRanker(candidates=["trees"], random_state=0)
    np.testing.assert_array_equal(auto.fit(fit_frame, y).decision_function(later),
                                  rankcore.AutoRanker(candidates=["trees"], random_state=0).fit(frame, y)
                                  .decision_function(frame))
    model = trees().fit(fit_frame, pl.Series(y))
    np.testing.assert_array_equal(model.feature_contributions(later),
                                  trees().fit(frame, y).feature_contributions(frame))
    save_model(model, tmp_path / "model.json")
    np.testing.assert_array_equal(load_model(tmp_path / "model.json").decision_function(later),
                                  model.decision_function(fit_frame))


def test_importing_and_fitting_rankcore_does_not_import_polars():
    code = ("import sys, numpy as np, rankcore\n"
            "rankcore.boost(learner='trees', n_iter=2).fit(np.eye(20, 3), np.arange(20) % 2)\n"
            "assert 'polars' not in sys.modules, 'polars imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- Arrow ----------------------------------------------------------------------------------------------------------

def test_an_arrow_query_id_array_orders_the_queries_as_numpy_does():
    # an Arrow array iterated into Arrow scalars, which sort by their text: query 100 came before query 2
    pa = pytest.importorskip("pyarrow")
    ids = np.array([10, 10, 2, 2, 9, 9, 100, 100])
    for given in (pa.array(ids), pa.chunked_array([ids[:3], ids[3:]])):
        queries, expected = check_qid(given, 8), check_qid(ids, 8)
        np.testing.assert_array_equal(queries.codes, expected.codes)
        assert queries.labels.tolist() == [2, 9, 10, 100]


def test_an_arrow_query_id_array_gives_the_numpy_fit_and_metrics():
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    qid = np.repeat(np.arange(30) * 7 % 13 + np.repeat([0, 100], 15), 10)    # 13 before 100, 2 after 100
    y = np.clip(np.round(X[:, 0] + rng.normal(size=300) * 0.3), 0, 2).astype(int)
    scores = trees().fit(X, y, qid=qid).decision_function(X)
    np.testing.assert_array_equal(trees().fit(X, pa.array(y), qid=pa.array(qid)).decision_function(X), scores)
    assert metrics.evaluate(y, scores, ["ndcg@5", "map"], qid=pa.chunked_array([qid])) == \
        metrics.evaluate(y, scores, ["ndcg@5", "map"], qid=qid)


def test_arrow_dictionary_columns_are_matched_by_value(data):
    pa = pytest.importorskip("pyarrow")
    a, b, colours, y = data
    table = pa.table({"a": a, "b": b, "colour": pa.array(colours).dictionary_encode()})
    model = trees().fit(table, y)
    expected = pandas_scores(a, b, colours, y)
    np.testing.assert_array_equal(model.decision_function(table), expected)
    # the dictionary in the order of the rows read backwards: other codes for the same values
    backwards = pa.table({"a": a[::-1], "b": b[::-1], "colour": pa.array(colours[::-1]).dictionary_encode()})
    np.testing.assert_array_equal(model.decision_function(backwards), expected[::-1])


def test_an_arrow_boolean_column_with_nulls_is_pandas_nullable_boolean(data):
    pa = pytest.importorskip("pyarrow")
    a, _, colours, y = data
    flag = [None if j % 11 == 0 else bool(c == "blue") for j, c in enumerate(colours)]
    table = pa.table({"a": a, "f": pa.array(flag, type=pa.bool_())})
    frame = pd.DataFrame({"a": a, "f": pd.array(flag, dtype="boolean")})
    np.testing.assert_array_equal(trees().fit(table, y).decision_function(table),
                                  trees().fit(frame, y).decision_function(frame))


def test_anything_but_a_polars_or_arrow_table_is_passed_through():
    frame = pd.DataFrame({"a": [1.0, 2.0]})
    for value in (frame, frame.to_numpy(), [[1.0], [2.0]], None):
        assert as_pandas_frame(value) is value


def test_permutation_importance_shuffles_a_polars_frame_by_name(data):
    # the frame went through NumPy: its columns read by position under the model's names, its categories as text
    pl = pytest.importorskip("polars")
    a, b, colours, y = data
    frame = pd.DataFrame({"a": a, "b": b, "colour": pd.Categorical(colours)})
    model = trees().fit(frame, y)
    given = pl.DataFrame({"a": a, "b": b, "colour": pl.Series(colours, dtype=pl.Categorical)})
    expected = rankcore.permutation_importance(model, frame, y, n_repeats=2, random_state=0)
    got = rankcore.permutation_importance(model, given, pl.Series(y), n_repeats=2, random_state=0)
    np.testing.assert_array_equal(got.importances, expected.importances)
    with pytest.raises(ValueError, match="order"):
        rankcore.permutation_importance(trees().fit(frame[["a", "b"]], y), given.select("b", "a"), y, n_repeats=2)


def test_a_polars_float_frame_is_read_with_a_single_copy():
    """(Before: two NumPy copies per call -- pandas gathered the columns into a column-major block, which the
    estimator's check copied again into rows -- twice the data beside the frame; a NumPy array takes none.)"""
    pl = pytest.importorskip("polars")
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 20))
    X[3, 4] = np.nan
    frame = pl.DataFrame(X, schema=[f"f{j}" for j in range(20)])
    frame = frame.with_columns(frame.get_column("f7").scatter([5], None))
    model = trees().fit(pd.DataFrame(X[:400], columns=frame.columns), (X[:400, 0] > 0).astype(int))
    read = np.asarray(as_pandas_frame(frame))
    assert read.flags.c_contiguous and read.dtype == np.float64
    expected = X.copy()
    expected[5, 7] = np.nan                                        # the null: a missing value, as NaN is
    np.testing.assert_array_equal(read, expected)
    tracemalloc.start()
    try:
        scores = model.decision_function(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * X.nbytes                                   # the one copy is Polars' own (to_numpy)
    np.testing.assert_array_equal(scores, model.decision_function(pd.DataFrame(expected, columns=frame.columns)))


def test_a_polars_series_is_refused_as_1d_in_decision_function_too(data):
    """(Before: scikit-learn's "X does not contain any features, but PushBoost is expecting 2 features".)"""
    pl = pytest.importorskip("polars")
    a, b, _, y = data
    model = trees().fit(pl.DataFrame({"a": a, "b": b}), y)
    with pytest.raises(ValueError, match=r"^X: expected a 2-D array \(n_samples, n_features\), got shape \(240,\)"):
        model.decision_function(pl.Series("a", a))


@pytest.mark.parametrize("column", ["struct", "array"])
def test_a_polars_struct_or_array_column_is_refused_by_name(data, column):
    """(Before: pandas' "Per-column arrays must each be 1-dimensional", naming neither X nor the column.)"""
    pl = pytest.importorskip("polars")
    a, _, _, y = data
    nested = (pl.Series([{"x": v} for v in a]) if column == "struct"
              else pl.Series([[v, v] for v in a], dtype=pl.Array(pl.Float64, 2)))
    with pytest.raises(TypeError, match=r"^X: column 'n' holds (dict|list) values"):
        trees().fit(pl.DataFrame({"a": a, "n": nested}), y)


def test_an_arrow_table_as_eval_set_is_read_by_its_column_names(data):
    """(Before: its ``columns`` -- the columns' data -- were read as names: "its columns must be X's in fit
    (missing 'a', 'b'; not in fit '[[0.12, ...'" for the fit's very columns.)"""
    pa = pytest.importorskip("pyarrow")
    a, b, _, y = data
    model = trees().fit(pd.DataFrame({"a": a, "b": b}), y, eval_set=[(pa.table({"a": a, "b": b}), y)])
    reference = trees().fit(pd.DataFrame({"a": a, "b": b}), y, eval_set=[(pd.DataFrame({"a": a, "b": b}), y)])
    assert repr(model.evals_result_) == repr(reference.evals_result_)
    with pytest.raises(ValueError, match=r"^eval_set X: its columns are X's in fit in another order"):
        trees().fit(pd.DataFrame({"a": a, "b": b}), y, eval_set=[(pa.table({"b": b, "a": a}), y)])
