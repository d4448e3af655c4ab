"""Invariants of :func:`rankcore.cli.datasets.detect_content_format` (the format of data piped in), on any bytes."""

import gzip
import io
import os
import tempfile

import numpy as np
from hypothesis import given, settings, strategies as st

from rankcore.cli.datasets import DataError, detect_content_format

_FORMATS = {None, "csv", "libsvm", "npy", "npz"}


def _detect(data: bytes):
    """The detected format of ``data`` written to a file (or the DataError's message)."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "stdin")
        with open(path, "wb") as fh:
            fh.write(data)
        try:
            return detect_content_format(path)
        except DataError as exc:
            return exc


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_a_format_none_or_a_data_error(data):
    found = _detect(data)
    assert isinstance(found, DataError) or found in _FORMATS, found


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_gzip_is_looked_through(data):
    """Gzipped bytes are detected as the bytes themselves, unless they start as gzip data again (refused)."""
    plain, packed = _detect(data), _detect(gzip.compress(data))
    if data[:2] == b"\x1f\x8b":
        assert isinstance(packed, DataError) and "compressed twice" in str(packed)
    elif isinstance(plain, DataError):
        assert isinstance(packed, DataError)
    else:
        assert packed == plain


_NAME = st.text(alphabet="abcdefgh_xyz0123456789", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(_NAME, min_size=2, max_size=6), st.sampled_from([",", "\t", ";"]),
       st.sampled_from(["", "\n", "# a comment\n", "\n\n# c\n"]), st.booleans())
def test_a_header_of_names_is_csv(names, delimiter, before, crlf):
    end = "\r\n" if crlf else "\n"
    text = before + delimiter.join(names) + end + delimiter.join("1" for _ in names) + end
    assert _detect(text.encode()) == "csv"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 50), st.floats(-1e6, 1e6, allow_nan=False)), min_size=1, max_size=5),
       st.integers(0, 4), st.one_of(st.none(), st.integers(0, 10 ** 6)))
def test_a_libsvm_row_is_libsvm(fields, label, qid):
    row = f"{label}" + (f" qid:{qid}" if qid is not None else "") + "".join(f" {j}:{v!r}" for j, v in fields)
    assert _detect((row + "\n").encode()) == "libsvm"


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5), st.integers(1, 4), st.sampled_from(["float64", "float32", "int64"]))
def test_numpy_files_are_npy_and_npz(rows, cols, dtype):
    array = np.zeros((rows, cols), dtype=dtype)
    single, archive = io.BytesIO(), io.BytesIO()
    np.save(single, array)
    np.savez(archive, X=array)
    assert _detect(single.getvalue()) == "npy"
    assert _detect(archive.getvalue()) == "npz"
    assert _detect(gzip.compress(single.getvalue())) == "npy"
