"""rankcore.cli.datasets: reading CSV, LIBSVM, .npy and .npz files, and one clear error line for bad ones."""

import gzip
import re
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankcore.cli import datasets
from rankcore.cli.datasets import DataError, load_data
from rankcore.cli.datasets import _csv, _csv_fast, _libsvm


@pytest.fixture(params=["pandas", "numpy", "checking"])
def reader(request, monkeypatch):
    """Each CSV path: pandas' C reader, NumPy's loadtxt, or the checking parser alone."""
    if request.param == "pandas":
        pytest.importorskip("pandas")
    elif request.param == "numpy":
        monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    else:
        monkeypatch.setattr(_csv, "_csv_fast_path", lambda *a, **k: None)
    return request.param


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------


def test_csv_reads_features_label_and_names(tmp_path):
    path = write(tmp_path / "d.csv", "a,b,label\n1,2.5,0\n3,-4e-1,1\n")
    data = load_data(path)
    np.testing.assert_array_equal(data.X, [[1, 2.5], [3, -0.4]])
    np.testing.assert_array_equal(data.y, [0, 1])
    assert data.feature_names == ["a", "b"]
    assert data.label_name == "label"
    assert data.X.flags.c_contiguous and data.X.dtype == np.float64
    np.testing.assert_array_equal(data.binary_target(), [0, 1])


def test_csv_label_by_name_anywhere_and_dropped_columns(tmp_path):
    path = write(tmp_path / "d.csv", "id,target,x\nr1,yes,1\nr2,no,2\nr3,yes,3\n")
    data = load_data(path, label="target", drop=["id"])
    np.testing.assert_array_equal(data.X, [[1], [2], [3]])
    assert list(data.y) == ["yes", "no", "yes"]
    np.testing.assert_array_equal(data.binary_target(), [1, 0, 1])  # "yes" > "no"
    np.testing.assert_array_equal(data.binary_target(positive="no"), [0, 1, 0])


@pytest.mark.parametrize("sep", [",", ";", "\t"], ids=["comma", "semicolon", "tab"])
def test_csv_delimiter_is_read_off_the_header(tmp_path, sep):
    path = write(tmp_path / "d.csv", f"a{sep}b{sep}label\n1{sep}2{sep}1\n3{sep}4{sep}0\n")
    np.testing.assert_array_equal(load_data(path).X, [[1, 2], [3, 4]])


def test_csv_gzipped_and_blank_lines(tmp_path):
    path = tmp_path / "d.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\na,label\n1,0\n\n2,1\n")
    data = load_data(path)
    np.testing.assert_array_equal(data.X, [[1], [2]])
    np.testing.assert_array_equal(data.y, [0, 1])


def test_csv_without_label_when_not_required(tmp_path):
    path = write(tmp_path / "d.csv", "a,b\n1,2\n")
    data = load_data(path, require_label=False)
    assert data.y is None and data.X.shape == (1, 2)


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b,label\n1,2,0\n3,x,1\n", "d.csv, line 3, column 'b': expected a number, got 'x'"),
        ("a,b,label\n1,inf,0\n", "d.csv, line 2, column 'b': expected a finite number, got 'inf'"),
        ("a,b,label\n1,2,0\n3, -Infinity ,1\n", "d.csv, line 3, column 'b': expected a finite number, got '-Infinity'"),
        ("a,b,label\n1,2,0\n3,1\n", "d.csv, line 3: expected 3 fields as in the header, got 2"),
        ("a,b,label\n1,2,\n", "d.csv, line 2: missing label in column 'label'"),
        ("a,b,label\n1,2,0\n1,2,NA\n", "d.csv, line 3: missing label in column 'label'"),
        ("a,b,label\n1,2,0\n1,2,-nan\n", "d.csv, line 3: missing label in column 'label', got '-nan'"),
        ("a,b,label\n1,2,0\n1,2,inf\n", "d.csv, line 3: non-finite label in column 'label', got 'inf'"),
        ("a,b,label\n1,2,M\n1,2,1e999\n", "d.csv, line 3: non-finite label in column 'label', got '1e999'"),
        ("label,a,b\n0,1,2\n1,3\n", "d.csv, line 3: expected 3 fields as in the header, got 2"),
        ("a,b,y\n1,2,0\n", "d.csv: no label column 'label' in the header (columns: a, b, y)"),
        ("a,a,label\n1,2,0\n", "d.csv, line 1: the header names the column 'a' twice"),
        ("1,2,3\n4,5,6\n", "d.csv, line 1: expected a header line of column names"),
        ("a,label\n", "d.csv: no data rows after the header"),
        ("", "d.csv: the file is empty"),
        ("label\n1\n", "d.csv: no feature columns"),
        ("a,b,label\n1,2,0\n3,4,1,5\n", "d.csv, line 3: expected 3 fields as in the header, got 4"),
        ("a,b,label\n1,1e400,0\n", "d.csv, line 2, column 'b': expected a finite number, got '1e400'"),
        ("a,b,label\n1,0x10,0\n", "d.csv, line 2, column 'b': expected a number, got '0x10'"),
    ],
    ids=["not-a-number", "inf", "minus-infinity", "short-row", "missing-label", "NA-label", "nan-label",
         "inf-label", "overflow-label", "short-row-feature-last", "no-label-column",
         "duplicate-column", "no-header", "no-rows", "empty-file", "no-features", "long-row", "overflow", "hex"],
)
def test_csv_errors_name_the_file_and_line(tmp_path, text, message, reader):
    path = write(tmp_path / "d.csv", text)
    with pytest.raises(DataError) as info:
        load_data(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------
# Missing values
# --------------------------------------------------------------------------


def test_csv_missing_values_are_nan_in_every_reader(tmp_path, reader):
    # every token of MISSING_VALUES, in several cases and with spaces, in every column (the last too)
    text = ("a;b;label;c\n"
            "1;;0;NA\n"
            "na; N/A ;1;nan\n"
            "NaN;null;0;?\n"
            "NULL;None;1;-\n"
            "-nan;+NaN;0;\n"
            "7;8;1;9\n")
    data = load_data(write(tmp_path / "d.csv", text))
    expected = np.full((6, 3), np.nan)
    expected[0, 0], expected[5] = 1, [7, 8, 9]
    np.testing.assert_array_equal(data.X, expected)
    np.testing.assert_array_equal(data.y, [0, 1, 0, 1, 0, 1])
    missing = data.missing()
    assert (missing.n_values, missing.n_rows, missing.n_samples) == (14, 5, 6)
    assert missing.columns == ["a", "b", "c"] and missing.n_features == 3
    assert missing.first == f"{tmp_path / 'd.csv'}, line 2, column 'b'"
    assert missing.describe().startswith("14 missing values in 5 of 6 rows and 3 of 3 columns (a, b, c); "
                                          "the first at ")


def test_missing_value_tokens_are_documented_and_exact():
    assert datasets.MISSING_VALUES == ("", "NA", "N/A", "NaN", "null", "None", "?", "-")
    assert np.isnan(_csv._field_value(" n/A "))
    for text in ("0", "-0", "1e-320", "nan0", "--", "NAN?", "inf"):
        value = _csv._field_value(text)
        if value is None:      # text, not a number
            continue
        assert not np.isnan(value), text  # only the documented tokens (and NaN spellings) are missing


def test_complete_files_have_no_missing_values(tmp_path, reader):
    data = load_data(write(tmp_path / "d.csv", "a,label\n1,0\n2,1\n"))
    assert data.missing() is None


def test_allow_missing_false_refuses_the_first_missing_value(tmp_path, reader):
    path = write(tmp_path / "d.csv", "a,b,label\n1,2,0\n3,NA,1\n,4,0\n")
    assert np.isnan(load_data(path).X).sum() == 2
    with pytest.raises(DataError, match=r"d\.csv, line 3, column 'b': missing value; complete numeric data "
                                        r"was asked for \(allow_missing=False\)"):
        load_data(path, allow_missing=False)


def test_missing_values_in_an_unlabelled_file(tmp_path, reader):
    data = load_data(write(tmp_path / "d.csv", "a,b\n1,\n?,2\n"), require_label=False)
    np.testing.assert_array_equal(data.X, [[1, np.nan], [np.nan, 2]])
    assert data.y is None and data.missing().n_rows == 2


_CELLS = st.sampled_from(["0", "1.5", "-2", "", "NA", "na", "nan", "NaN", "?", "-", "null", "None", " NA ",
                          "N/A", "-nan", "inf", "x", "1e400"])


@given(cells=st.lists(st.lists(_CELLS, min_size=3, max_size=3), min_size=1, max_size=5),
       label_first=st.booleans())
def test_csv_readers_agree_on_missing_values(tmp_path_factory, cells, label_first):
    """pandas, NumPy and the checking parser: the same NaN cells, or the same error."""
    root = tmp_path_factory.mktemp("agree")
    rows = [(["0" if i % 2 else "1"] + row) if label_first else (row + ["0" if i % 2 else "1"])
            for i, row in enumerate(cells)]
    header = "label,a,b,c" if label_first else "a,b,c,label"
    path = write(root / "d.csv", "\n".join([header] + [",".join(r) for r in rows]) + "\n")
    outcomes = []
    for mode in ("pandas", "numpy", "checking"):
        with pytest.MonkeyPatch.context() as patch:
            if mode == "numpy":
                patch.setitem(sys.modules, "pandas", None)
            elif mode == "checking":
                patch.setattr(_csv, "_csv_fast_path", lambda *a, **k: None)
            try:
                data = load_data(path)
            except DataError as exc:
                outcomes.append(("error", str(exc)))
            else:
                assert not np.isinf(data.X).any()
                outcomes.append(("data", data.X.tobytes(), data.y.tolist()))
    assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
    expect_error = any(c.strip() in ("inf", "x", "1e400") for row in cells for c in row)
    assert (outcomes[0][0] == "error") == expect_error


def test_npy_and_npz_features_may_be_missing_but_labels_not(tmp_path):
    M = np.array([[1.0, np.nan, 0], [np.nan, 2, 1]])
    np.save(tmp_path / "d.npy", M)
    data = load_data(tmp_path / "d.npy")
    np.testing.assert_array_equal(data.X, M[:, :2])
    assert data.missing().n_values == 2
    M[1, 2] = np.nan
    np.save(tmp_path / "e.npy", M)
    with pytest.raises(DataError, match=r"e\.npy, row 1: missing label \(NaN\) in column 2"):
        load_data(tmp_path / "e.npy")
    np.savez(tmp_path / "d.npz", X=M[:, :2], y=np.array([0.0, np.nan]))
    with pytest.raises(DataError, match=r"d\.npz, row 1: missing label \(NaN\) in array 'y'"):
        load_data(tmp_path / "d.npz")
    np.savez(tmp_path / "f.npz", X=np.array([[np.inf, 1.0]]), y=np.zeros(1))
    with pytest.raises(DataError, match=r"row 0: X column 0: expected a finite number, got inf"):
        load_data(tmp_path / "f.npz")


def test_csv_third_label_is_reported_at_its_line(tmp_path):
    path = write(tmp_path / "d.csv", "a,label\n1,0\n2,1\n\n3,1\n4,2\n")
    data = load_data(path)  # reading is fine: the labels are checked when a target is needed
    with pytest.raises(DataError, match=r"d\.csv, line 6: the label column 'label' has a third value 2 "
                                        r"\(after 0 and 1\)"):
        data.binary_target()
    np.testing.assert_array_equal(data.binary_target(positive=2), [0, 0, 0, 1])  # one against the rest


def test_csv_one_class_is_an_error_for_training_only(tmp_path):
    path = write(tmp_path / "d.csv", "a,label\n1,1\n2,1\n")
    data = load_data(path)
    with pytest.raises(DataError, match="has only one value, 1; ranking needs both classes"):
        data.binary_target()
    np.testing.assert_array_equal(data.binary_target(require_both=False), [1, 1])


def test_csv_unknown_relevant_label(tmp_path):
    path = write(tmp_path / "d.csv", "a,label\n1,0\n2,1\n")
    with pytest.raises(DataError, match="the relevant label '7' does not occur"):
        load_data(path).binary_target(positive="7")


def test_csv_every_reader_gives_the_same_data(tmp_path, reader):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = rng.integers(0, 2, 300)
    lines = ["x0,x1,label,x3,x4"] + [f"{a!r},{b!r},{l},{c!r}, {d!r} "
                                     for (a, b, c, d), l in zip(X.tolist(), y.tolist())]
    lines.insert(3, "")  # a blank line: rows and lines part ways
    lines[5] = lines[5].replace(",1,", ',"1",').replace(",0,", ',"0",')  # a quoted label
    path = write(tmp_path / "d.csv", "\n".join(lines) + "\n")
    data = load_data(path)
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    assert data.where(5) == f"{path}, line 8"
    text_labels = load_data(write(tmp_path / "t.csv", "a,label\n1, yes\n2,no\n")).y
    assert list(text_labels) == ["yes", "no"]  # surrounding spaces are not part of a label


def test_fast_readers_take_clean_files_and_refuse_ragged_ones(tmp_path, reader):
    clean = write(tmp_path / "c.csv", "a,b,label\n1,2,0\n\n3,4.5,1\n")
    result = _csv._csv_fast_path(str(clean), ",", 1, 3, [0, 1], 2)
    if reader == "checking":
        assert result is None
        return
    X, labels, texts, kept = result
    assert texts == {} and kept == {}
    np.testing.assert_array_equal(X, [[1, 2], [3, 4.5]])
    assert [float(v) for v in labels] == [0, 1]
    for ragged in ("a,b,label\n1,2,0,7\n3,4,1\n", "a,b,label\n1,2,0\n3,4,1,7\n", "a,b,label\n1,2\n3,4,1\n"):
        path = write(tmp_path / "r.csv", ragged)
        assert _csv._csv_fast_path(str(path), ",", 1, 3, [0, 1], 2) is None, ragged
    short_feature = write(tmp_path / "f.csv", "label,a,b\n0,1,2\n1,3\n")
    assert _csv._csv_fast_path(str(short_feature), ",", 1, 3, [1, 2], 0) is None
    # pandas reads missing values itself (NumPy's loadtxt only spellings of NaN), in the last column
    # too once the delimiter count shows no row is short
    missing = write(tmp_path / "m.csv", "a,b,label\n1,,0\nNA,nan,1\n")
    last_missing = write(tmp_path / "l.csv", "label,a,b\n0,1,2\n1,3,\n")
    for path, where, expected in ((missing, ([0, 1], 2), [[1, np.nan], [np.nan, np.nan]]),
                                  (last_missing, ([1, 2], 0), [[1, 2], [3, np.nan]])):
        result = _csv._csv_fast_path(str(path), ",", 1, 3, *where)
        if reader == "pandas":
            np.testing.assert_array_equal(result[0], expected)
        else:
            assert result is None
    # a quote in the file: the delimiter count cannot vouch for the rows, the checking parser reads it
    quoted = write(tmp_path / "q.csv", 'label,a,b\n0,"1",2\n1,3,\n')
    assert _csv._csv_fast_path(str(quoted), ",", 1, 3, [1, 2], 0) is None
    quoted_header = write(tmp_path / "h.csv", '"label","a","b"\n0,1,2\n1,3,\n')
    assert (_csv._csv_fast_path(str(quoted_header), ",", 1, 3, [1, 2], 0) is None) == (reader != "pandas")


def _complete_by_csv_module(text, n_fields):
    """Reference for _rows_complete: every non-blank row of the csv module has n_fields fields."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text, newline="")))[1:]
    return all(len(row) == n_fields for row in rows if row and not (len(row) == 1 and not row[0].strip()))


_LINE_PIECES = st.sampled_from(["1", "", "NA", ",", ",,", "a,b", " ", "\r", '"x,y"', "é"])


@given(lines=st.lists(st.lists(_LINE_PIECES, max_size=4).map("".join), max_size=8),
       ending=st.sampled_from(["\n", "\r\n"]), last_newline=st.booleans(), gz=st.booleans(),
       block_size=st.sampled_from([1, 3, 7, 1 << 16]))
def test_rows_complete_never_vouches_for_a_short_or_long_row(tmp_path_factory, lines, ending, last_newline, gz,
                                                              block_size):
    text = ending.join(["a,b,c"] + lines) + (ending if last_newline else "")
    path = tmp_path_factory.mktemp("rows") / "d.csv"
    payload = text.encode("utf-8")
    path.write_bytes(gzip.compress(payload) if gz else payload)
    got = _csv_fast._rows_complete(str(path), ",", 1, 3, block_size=block_size)
    expected = _complete_by_csv_module(text, 3)
    if got:
        assert expected, text
    plain = not any(c in text for c in '"\r') or (ending == "\r\n" and '"' not in text
                                                  and text.count("\r") == text.count("\r\n"))
    if plain and not any(line.strip() == "" and line for line in lines):
        assert got == expected, text  # without quotes, lone CRs or whitespace-only lines: exact


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6),
                  elements=st.floats(allow_nan=False, allow_infinity=False, width=64)))
def test_csv_round_trips_every_finite_float(tmp_path_factory, X):
    path = tmp_path_factory.mktemp("rt") / "d.csv"
    header = ",".join(f"f{j}" for j in range(X.shape[1]))
    body = "\n".join(",".join(repr(float(v)) for v in row) for row in X)
    path.write_text(header + "\n" + body + "\n")
    np.testing.assert_array_equal(load_data(path, require_label=False).X, X)


# --------------------------------------------------------------------------
# LIBSVM
# --------------------------------------------------------------------------


def test_libsvm_one_based_with_comments_and_qid(tmp_path):
    path = write(tmp_path / "d.svm", "# a comment\n+1 qid:3 1:0.5 3:2\n-1 qid:1 2:1 # trailing\n\n")
    data = load_data(path)
    np.testing.assert_array_equal(data.X, [[0.5, 0, 2], [0, 1, 0]])
    np.testing.assert_array_equal(data.qid, [3, 1])
    np.testing.assert_array_equal(data.y, [1, -1])
    np.testing.assert_array_equal(data.binary_target(), [1, 0])
    assert data.feature_names == ["f1", "f2", "f3"]


def test_libsvm_zero_based_and_padding(tmp_path):
    path = write(tmp_path / "d.svmlight", "1 0:1 2:3\n0 1:2\n")
    np.testing.assert_array_equal(load_data(path).X, [[1, 0, 3], [0, 2, 0]])
    np.testing.assert_array_equal(load_data(path, n_features=5).X[:, 3:], 0)


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 1:2\nx 1:1\n", "d.svm, line 2: expected a numeric label first, got 'x'"),
        ("1 1:2\n0 1:x\n", "d.svm, line 2: malformed feature '1:x'"),
        ("1 1:2 abc\n", "d.svm, line 1: malformed feature 'abc' (expected index:value)"),
        ("1 3:2 2:1\n", "d.svm, line 1: feature indices must increase, got 2 after 3"),
        ("1 1:nan\n", "d.svm, line 1: feature 1: expected a finite number"),
        ("# only a comment\n", "d.svm: no data rows"),
    ],
    ids=["label", "value", "no-colon", "order", "nan", "empty"],
)
def test_libsvm_errors_name_the_line(tmp_path, text, message):
    with pytest.raises(DataError) as info:
        load_data(write(tmp_path / "d.svm", text))
    assert message in str(info.value)


def test_libsvm_more_features_than_the_model(tmp_path):
    with pytest.raises(DataError, match="feature index 7 is beyond the model's 3 features"):
        load_data(write(tmp_path / "d.svm", "1 7:1\n"), n_features=3)


# --------------------------------------------------------------------------
# NumPy files
# --------------------------------------------------------------------------


def test_npy_label_is_the_last_column_by_default(tmp_path):
    M = np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0]])
    np.save(tmp_path / "d.npy", M)
    data = load_data(tmp_path / "d.npy")
    np.testing.assert_array_equal(data.X, M[:, :2])
    np.testing.assert_array_equal(data.y, [0, 1])
    first = load_data(tmp_path / "d.npy", label="0")
    np.testing.assert_array_equal(first.y, [1, 3])
    np.testing.assert_array_equal(first.X, M[:, 1:])
    # scoring: the label column is dropped only when there is one column too many
    assert load_data(tmp_path / "d.npy", require_label=False, n_features=2).X.shape == (2, 2)
    assert load_data(tmp_path / "d.npy", require_label=False, n_features=3).y is None


def test_npz_arrays_and_feature_names(tmp_path):
    np.savez(tmp_path / "d.npz", X=np.eye(3), y=np.array(["a", "b", "a"]), feature_names=np.array(["p", "q", "r"]))
    data = load_data(tmp_path / "d.npz")
    assert data.feature_names == ["p", "q", "r"]
    np.testing.assert_array_equal(data.binary_target(), [0, 1, 0])
    np.savez(tmp_path / "e.npz", X=np.eye(2), target=np.array([0, 1]))
    np.testing.assert_array_equal(load_data(tmp_path / "e.npz", label="target").y, [0, 1])


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"y": np.zeros(2)}, "no array 'X' (arrays: y)"),
        ({"X": np.eye(2)}, "no label array 'y' (arrays: X)"),
        ({"X": np.eye(2), "y": np.zeros(3)}, "X has 2 rows but the label array 'y' has 3"),
        ({"X": np.array([[1.0, -np.inf]]), "y": np.zeros(1)}, "row 0: X column 1: expected a finite number"),
        ({"X": np.array(["a", "b"]), "y": np.zeros(2)}, "X must hold numbers"),
        ({"X": np.eye(2), "y": np.zeros((2, 2))}, "the label array 'y' must be 1-D"),
    ],
    ids=["no-X", "no-y", "lengths", "nan", "strings", "y-2d"],
)
def test_npz_errors(tmp_path, arrays, message):
    np.savez(tmp_path / "d.npz", **arrays)
    with pytest.raises(DataError) as info:
        load_data(tmp_path / "d.npz")
    assert message in str(info.value)
    assert str(tmp_path / "d.npz") in str(info.value)


def test_a_scipy_sparse_npz_file_is_named_with_what_to_write_instead(tmp_path):
    import scipy.sparse as sp

    sp.save_npz(tmp_path / "fingerprints.npz", sp.random(5, 8, density=0.3, format="csr", random_state=0))
    with pytest.raises(DataError) as info:
        load_data(tmp_path / "fingerprints.npz")
    message = str(info.value)
    assert "no array 'X'" in message and "scipy.sparse.save_npz" in message
    assert "dump_svmlight_file" in message


def test_npy_with_pickled_objects_is_refused(tmp_path):
    np.save(tmp_path / "d.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(DataError, match="pickled Python objects"):
        load_data(tmp_path / "d.npy")


# --------------------------------------------------------------------------
# Files in general
# --------------------------------------------------------------------------


def test_missing_file_and_unknown_extension(tmp_path):
    with pytest.raises(DataError, match=r"nope\.csv: no such file"):
        load_data(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="cannot tell the format from the name"):
        load_data(write(tmp_path / "d.xlsx", "x"))
    np.testing.assert_array_equal(load_data(write(tmp_path / "d.data", "a,label\n1,0\n"), fmt="csv").X, [[1]])


def test_binary_file_named_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"a,label\n\xff\xfe\x00\x01,1\n")
    with pytest.raises(DataError, match="not UTF-8 text"):
        load_data(path)


def test_feature_count_must_match_the_model(tmp_path):
    path = write(tmp_path / "d.csv", "a,b,label\n1,2,0\n")
    with pytest.raises(DataError, match="2 feature column\\(s\\), but the model was fitted on 3"):
        load_data(path, n_features=3)


# --------------------------------------------------------------------------
# LIBSVM width bounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize("index", [2_000_000_000, 5_000_000, 1_000_001])
def test_libsvm_index_beyond_the_limit_is_refused_without_allocating(tmp_path, index):
    path = write(tmp_path / "wide.svm", f"1 {index}:1\n0 1:1\n")
    with pytest.raises(DataError, match=rf"line 1: feature index {index} is beyond the limit of 1000000 features"):
        load_data(path)
    assert datasets.MAX_LIBSVM_FEATURES == 1_000_000


def test_libsvm_dense_matrix_budget(tmp_path, monkeypatch):
    path = write(tmp_path / "d.svm", "1 1:1 10:2\n0 2:1\n1 3:1\n")
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 479)
    with pytest.raises(DataError, match=r"3 rows x 10 features make a dense matrix of 240 bytes"):
        load_data(path)
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 480)
    assert load_data(path).X.shape == (3, 10)


def test_libsvm_wide_file_is_exit_2_from_the_cli(tmp_path, capsys):
    from rankcore.cli import main

    path = write(tmp_path / "wide.svm", "1 2000000000:1\n")
    assert main(["fit", str(path), "--out", str(tmp_path / "m.json"), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "beyond the limit" in err


def test_each_reader_module_stays_small():
    from pathlib import Path

    folder = Path(datasets.__file__).parent
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in folder.glob("*.py")}
    assert {"_csv.py", "_csv_fast.py", "_libsvm.py", "_numpy.py"} <= set(sizes)
    assert max(sizes.values()) < 400, sizes


@pytest.mark.parametrize("spelling", ["", "NA", "na", " NA ", "nan", "NaN", "-nan", "+nan", "-NaN", "N/A", "?"])
def test_every_spelling_of_a_missing_value_reads_as_the_same_nan(tmp_path, reader, spelling):
    """An empty cell, NA, nan, -nan...: one and the same NaN, by every reader (no sign bit from ``-nan``)."""
    path = write(tmp_path / "m.csv", f"a,b,label\n1.5,{spelling},0\n{spelling},2,1\n3,4,0\n")
    X = load_data(path).X
    assert np.isnan(X[0, 1]) and np.isnan(X[1, 0]) and not np.isnan(X[2]).any()
    assert X.tobytes() == np.array([[1.5, np.nan], [np.nan, 2.0], [3.0, 4.0]]).tobytes()


@pytest.mark.parametrize("cell", ["", "?", "NA", "inf", "unknown"])
def test_a_label_the_command_does_not_need_is_left_unread(tmp_path, cell):
    # rows to score often carry an empty label column, which `score` does not need
    path = write(tmp_path / "new.csv", f"a,b,label\n1,5,{cell}\n2,6,{cell}\n")
    for drop in ((), ("label",)):
        data = load_data(path, require_label=False, drop=drop)
        assert data.y is None and data.feature_names == ["a", "b"]
        np.testing.assert_array_equal(data.X, [[1, 5], [2, 6]])
    if cell in ("", "?", "NA"):
        with pytest.raises(DataError, match="line 2: missing label in column 'label'"):
            load_data(path)


def test_npy_and_npz_labels_the_command_does_not_need_are_left_unread(tmp_path):
    np.save(tmp_path / "d.npy", np.array([[1.0, 2.0, np.nan], [3.0, 4.0, np.nan]]))
    data = load_data(tmp_path / "d.npy", require_label=False, n_features=2)
    assert data.y is None and data.X.shape == (2, 2)
    np.savez(tmp_path / "d.npz", X=np.ones((2, 2)), y=np.array([np.nan, 1.0]))
    assert load_data(tmp_path / "d.npz", require_label=False).y is None
    with pytest.raises(DataError, match="missing label"):
        load_data(tmp_path / "d.npz")


@pytest.mark.parametrize("names, message", [(["a", "a"], "'a' twice"), (["a", " "], "' ' (empty)")])
def test_npz_feature_names_must_be_distinct_and_named(tmp_path, names, message):
    np.savez(tmp_path / "d.npz", X=np.ones((2, 2)), y=np.array([0.0, 1.0]), feature_names=np.array(names))
    expected = f"d.npz: feature_names must be distinct, non-empty names, got {message}"
    with pytest.raises(DataError, match=re.escape(expected)):
        load_data(tmp_path / "d.npz")


@pytest.mark.parametrize("reader", ["pandas", "checking"])
def test_a_label_with_an_underscore_is_text_in_every_reader(tmp_path, reader):
    # Python's float reads "1_0" as 10 and pandas as text; a missing value elsewhere in the file sends it to the
    # checking reader, which must read the label as pandas does
    body = "a,label\n1,1_0\n2,9\n3,9\n4,1_0\n"
    if reader == "checking":
        body = body.replace("2,9", " NA ,9")
    data = load_data(write(tmp_path / "u.csv", body))
    assert data.y.dtype == object and list(data.y) == ["1_0", "9", "9", "1_0"]


@pytest.mark.parametrize("label", ["\u0661", "\u0967"], ids=["arabic-indic", "devanagari"])
def test_a_label_of_other_digits_is_text_in_every_reader(tmp_path, label):
    for body in (f"a,label\n1,{label}\n2,5\n3,5\n4,{label}\n", f"a,label\n1,{label}\n NA ,5\n3,5\n4,{label}\n"):
        data = load_data(write(tmp_path / "u.csv", body))
        assert data.y.dtype == object and list(data.y) == [label, "5", "5", label]


def test_a_missing_file_without_extension_is_said_missing_not_of_unknown_format(tmp_path):
    # LightGBM's example is named rank.train (its format read off its first row); when the name is wrong the
    # error must say the file is not there, and point at a gzipped copy beside it
    with pytest.raises(DataError, match=r"rank\.train: no such file$"):
        load_data(tmp_path / "rank.train")
    with gzip.open(tmp_path / "rank.train.gz", "wt") as fh:
        fh.write("1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    with pytest.raises(DataError, match=r"rank\.train: no such file; .*rank\.train\.gz is there: name it"):
        load_data(tmp_path / "rank.train")
    assert load_data(tmp_path / "rank.train.gz").X.shape == (2, 1)
    with pytest.raises(DataError, match=r"nope\.csv: no such file$"):
        load_data(tmp_path / "nope.csv")
