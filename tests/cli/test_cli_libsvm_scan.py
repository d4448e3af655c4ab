"""The compiled LIBSVM scan returns exactly what the checking parser returns, or nothing (then the checking parser
reads the file or names its fault)."""

import gzip

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankcore.cli.datasets import DataError, load_data
from rankcore.cli.datasets._libsvm import MAX_LIBSVM_FEATURES, _parse_checking, _scan
from rankcore.cli.datasets._libsvm_scan import scan_clean

NUMBERS = st.one_of(
    st.integers(-5, 5).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["+1", "-1", "1e0", "0.5e-3", ".5", "7.", "+.5", "-0", "00", "1E+2", "1e400", "-1e400", "4.9e-324",
                     "1e-400", "1_0", "nan", "inf", "-inf", "x", "0x10", "1,5", "", "e5", "1e", "1e+", ".", "+",
                     "\u0661", "1.5\u00a0"]),
)
SEPARATORS = [" ", "\t", "  ", " \t", "\x0b", "\x1c", "\u00a0"]


@st.composite
def libsvm_texts(draw):
    """A LIBSVM text: mostly clean rows, some with the faults (and the odd but valid forms) real files have."""
    with_qid = draw(st.sampled_from(["all", "none", "some"]))
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["row"] * 7 + ["blank", "comment", "spaces"]))
        if kind == "blank":
            lines.append("")
            continue
        if kind == "comment":
            lines.append(draw(st.sampled_from(["", "  ", "\t"])) + "# " + draw(st.text(alphabet="abc #:1 \u00e9",
                                                                                         max_size=8)))
            continue
        if kind == "spaces":
            lines.append(draw(st.sampled_from([" ", "\t", "  \t "])))
            continue
        fields = [draw(NUMBERS)]
        if with_qid == "all" or (with_qid == "some" and draw(st.booleans())):
            fields.append("qid:" + draw(st.sampled_from(["1", "2", "17", "-3", "+4", "0", "007", "a", "1.5", "",
                                                         "-", "1234567890123456789", "99999999999999999"])))
        indices = sorted(draw(st.sets(st.integers(0, 12), max_size=6)))
        if draw(st.integers(0, 9)) == 0 and indices:
            indices = indices[::-1] + indices[:1]                # out of order or repeated
        for index in indices:
            shown = draw(st.sampled_from([str(index)] * 8 + [f"0{index}", f"+{index}"]))
            fields.append(f"{shown}:{draw(NUMBERS)}")
        if draw(st.integers(0, 9)) == 0:
            fields.append(draw(st.sampled_from(["abc", "1:2:3", "qid:4", ":1", "-1:2", "2::1", "2000001:1", "3:"])))
        separator = draw(st.sampled_from(SEPARATORS[:4] * 6 + SEPARATORS[4:]))
        line = draw(st.sampled_from(["", " ", "\t"])) + separator.join(fields)
        if draw(st.booleans()):
            line += draw(st.sampled_from([" ", "", "\t"])) + "#docid = " + draw(st.text(alphabet="GX0-9 =:.#\u00e9",
                                                                                         max_size=10))
        lines.append(line + draw(st.sampled_from(["", "", " ", "\t"])))
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    bom = draw(st.sampled_from(["", "", "", "\ufeff"]))
    return bom + ending.join(lines) + draw(st.sampled_from(["", ending]))


CLEAN_NUMBERS = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: f"{v:.6f}"),
    st.floats(0, 1, allow_nan=False).map(lambda v: f"{v:.3e}"),
    st.sampled_from(["+1", "-1", ".5", "7.", "+.5", "-0", "00", "1E+2", "4.9e-324", "1e-400"]),
)


@st.composite
def clean_texts(draw):
    """Texts in the scan's strict form (every row read by it)."""
    with_qid = draw(st.booleans())
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for row in range(draw(st.integers(1, 10))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", " ", "# a comment", "\t#"])))
        fields = [draw(CLEAN_NUMBERS)]
        if with_qid:
            fields.append(f"qid:{draw(st.integers(-10**17, 10**17))}")
        fields += [f"{i}:{draw(CLEAN_NUMBERS)}" for i in sorted(draw(st.sets(st.integers(0, 60), max_size=8)))]
        line = draw(st.sampled_from([" ", "\t"])).join(fields)
        if draw(st.booleans()):
            line += " #docid = GX" + draw(st.text(alphabet="0123456789-=.# ", max_size=12))
        lines.append(line)
    return ending.join(lines) + draw(st.sampled_from(["", ending]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=clean_texts())
def test_clean_texts_are_read_by_the_scan_exactly(tmp_path, text):
    path = tmp_path / "d.svm"
    path.write_bytes(text.encode())
    fast = _scan(str(path))
    assert fast is not None, repr(text)
    slow = _parse_checking(str(path))
    assert_same(fast, slow)
    assert np.asarray(fast[5]).tobytes() == np.asarray(slow[5], dtype=np.float64).tobytes()


def checking(path):
    try:
        return _parse_checking(str(path))
    except DataError:
        return None


def assert_same(got, expected):
    for a, b in zip(got, expected):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape
        if a.size:
            np.testing.assert_array_equal(a.astype(b.dtype) if b.dtype.kind != "O" else a, b)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=libsvm_texts(), gz=st.booleans())
def test_the_scan_agrees_with_the_checking_parser_or_steps_aside(tmp_path, text, gz):
    path = tmp_path / ("d.svm.gz" if gz else "d.svm")
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    fast, slow = _scan(str(path)), checking(path)
    if fast is None:
        return
    assert slow is not None, repr(text)
    assert_same(fast, slow)
    # bit for bit: the same doubles, not merely close ones
    assert np.asarray(fast[0]).tobytes() == np.asarray(slow[0], dtype=np.float64).tobytes()
    assert np.asarray(fast[5]).tobytes() == np.asarray(slow[5], dtype=np.float64).tobytes()


@pytest.mark.parametrize("text", [
    "1 qid:1 1:0.5 3:2 # c\n0 qid:1 2:1\n\n# comment\n2 qid:2 1:-1e-3 2:7 3:0\n",
    "1 0:1 5:2\r\n0 1:1\r\n",
    "\ufeff1 1:1\n0 2:2",
    "1\n0 3:1\n",
    "  \t# only a comment first\n-1 qid:-3 1:4.9e-324 2:1.7976931348623157e308\n",
    "2 qid:10 1:0.031310 2:0.666667 #docid = GX008-86-4444840 inc = 1 prob = 0.086622\n",
], ids=["qid-comments", "crlf", "bom-no-newline", "label-only", "extremes", "letor"])
def test_clean_files_take_the_scan(tmp_path, text):
    path = tmp_path / "d.svm"
    path.write_bytes(text.encode())
    fast = _scan(str(path))
    assert fast is not None
    assert_same(fast, _parse_checking(str(path)))


@pytest.mark.parametrize("text", [
    "1 1:1\r0 2:1\n",              # a lone carriage return ends a line for Python, not for the scan
    "1 1:1_0\n",                   # Python's float reads underscores
    "1 +1:1\n",                    # and int a sign
    "1 1:1 qid:3\n",               # qid: after the features
    "1 1:1\x0b2:1\n",              # other whitespace
    "1 1:1 # caf\u00e9\n",         # non-ASCII in a comment
    "1 1:1\x00\n",                 # a NUL byte
    "",                            # no row
], ids=["lone-cr", "underscore", "signed-index", "late-qid", "vtab", "utf8-comment", "nul", "empty"])
def test_what_the_scan_does_not_vouch_for_goes_to_the_checking_parser(tmp_path, text):
    path = tmp_path / "d.svm"
    path.write_bytes(text.encode())
    assert _scan(str(path)) is None
    try:
        expected = _parse_checking(str(path))
    except DataError:
        with pytest.raises(DataError):
            load_data(path)
        return
    assert load_data(path).X.shape[0] == len(expected[0])


@pytest.mark.parametrize("text, message", [
    ("1 qid:1 1:1\n0 2:1\n", "line 2: the row has no qid:"),
    ("1 1:nan\n", "line 1: feature 1: expected a finite number"),
    ("1 1:1e400\n", "line 1: feature 1: expected a finite number"),
    ("inf 1:1\n", "line 1: expected a finite label"),
    ("1 2:1 1:1\n", "line 1: feature indices must increase"),
    (f"1 {MAX_LIBSVM_FEATURES + 1}:1\n", f"line 1: feature index {MAX_LIBSVM_FEATURES + 1} is beyond the limit"),
    ("1 1:1\n\n0 1:x\n", "line 3: malformed feature '1:x'"),
], ids=["qid-dropped", "nan", "overflow", "inf-label", "order", "limit", "value"])
def test_faults_are_named_by_line(tmp_path, text, message):
    path = tmp_path / "d.svm"
    path.write_bytes(text.encode())
    assert _scan(str(path)) is None
    with pytest.raises(DataError, match=message):
        load_data(path)


def test_the_scan_needs_its_sentinel():
    assert scan_clean(b"1 1:1\n", MAX_LIBSVM_FEATURES) is None
    assert scan_clean(b"1 1:1\n\0", MAX_LIBSVM_FEATURES) is not None
    assert scan_clean(b"1 7:1\n\0", 6) is None
