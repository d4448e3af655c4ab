""".npy headers that lie -- a shape larger than the data (36 TiB promised over 40 bytes), a shape whose product
overflows int64, negative dimensions, a header length past the file's end, odd dtypes -- in a file, gzipped, and as
an .npz member: each is one DataError naming the file and what is wrong, found before any memory is given to the
array, never a MemoryError, a NumPy traceback or a wrong read; and the files that tell the truth read bit for bit."""

import gzip
import re
import io
import struct
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from _cli_run import one_line_error, run_main
from rankcore.cli.datasets import DataError, load_data, npy_shape
from rankcore.cli.datasets import _numpy

P40 = np.arange(5, dtype="<f8").tobytes()           # 40 bytes of data
M = np.column_stack([np.arange(6.0).reshape(3, 2), [0.0, 1.0, 0.0]])


def _header(descr=None, shape=None, *, version=(1, 0), raw=None) -> bytes:
    """An .npy header, saying what it is told to (NumPy's writer refuses to lie)."""
    text = raw if raw is not None else f"{{'descr': {descr!r}, 'fortran_order': False, 'shape': {shape!r}, }}"
    body = text.encode("utf8" if version == (3, 0) else "latin1")
    length = "<H" if version == (1, 0) else "<I"
    body += b" " * (-(8 + struct.calcsize(length) + len(body) + 1) % 64) + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(length, len(body)) + body


def _npy(array) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def _npz(**members) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in members.items():
            zf.writestr(name + ".npy", content)
    return buf.getvalue()


#: name -> (the .npy bytes, words of the message)
LIES = {
    "36 TiB promised": (_header("<f8", (10**12, 5)) + P40, "promises shape (1000000000000, 5) of float64"),
    "8 GB promised": (_header("<f8", (2 * 10**8, 5)) + P40, "8,000,000,000 bytes"),
    "product overflows int64": (_header("<f8", (2**32, 2**32)) + P40, "147,573,952,589,676,412,928 bytes"),
    "negative dimension": (_header("<f8", (-1, 5)) + P40, "shape (-1, 5) is not a tuple of integers >= 0"),
    "bool dimension": (_header("<f8", (True, 5)) + P40, "shape (True, 5) is not a tuple of integers >= 0"),
    "data cut short": (_header("<f8", (2, 5)) + P40[:36], "80 bytes"),
    "header length 4 GiB": (b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**32 - 1) + b"{" + P40, "4,294,967,295"),
    "header length 50 kB": (b"\x93NUMPY\x02\x00" + struct.pack("<I", 50_000) + b" " * 50_000, "50,000 bytes long"),
    "header not a dict": (_header(raw="[1, 2, 3]") + P40, "malformed .npy header"),
    "header a call": (_header(raw="__import__('os').getcwd()") + P40, "malformed .npy header"),
    "version 9.0": (_header("<f8", (1, 5), version=(9, 0)) + P40, "version 9.0"),
    "cut in its length": (b"\x93NUMPY\x01\x00\x10", "cut short"),
    "record dtype": (_npy(np.zeros((3, 3), dtype=[("a", "<f8"), ("b", "<i4")])), "structured"),
    "sub-array dtype": (_header(("<f8", (2,)), (3,)) + bytes(48), "structured, sub-array"),
    "void dtype": (_npy(np.zeros((3, 3), dtype="V8")), "raw-bytes"),
    "non-ASCII 3.0 header": (_header(raw="{'descr': [('é', '<f8')], 'fortran_order': False, 'shape': (5,), }",
                                     version=(3, 0)) + P40, "non-ASCII"),
}


def _forms(content: bytes):
    """(file name, its bytes, how messages name the array) for an .npy content: as .npy, .npy.gz, and as X or y
    of an .npz, .npz.gz."""
    good_y, good_x = _npy(np.array([0.0, 1.0, 0.0])), _npy(M[:, :2])
    yield "a.npy", content, ""
    yield "a.npy.gz", gzip.compress(content, mtime=0), ""
    yield "x.npz", _npz(X=content, y=good_y), "array 'X' of the archive: "
    yield "y.npz.gz", gzip.compress(_npz(X=good_x, y=content), mtime=0), "array 'y' of the archive: "


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_lying_header_is_one_error_naming_the_file_before_any_allocation(tmp_path, lie):
    content, words = LIES[lie]
    for name, data, where in _forms(content):
        path = tmp_path / name
        path.write_bytes(data)
        tracemalloc.start()
        try:
            with pytest.raises(DataError) as caught:
                load_data(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        message = str(caught.value)
        assert message.startswith(f"{path}: {where}") and words in message, message
        assert peak < (4 << 20), (name, peak)               # nothing near what the header promises
    status, _, err = run_main("fit", tmp_path / "a.npy", "--n-iter", "2", "-o", tmp_path / "m.json")
    one_line_error(status, err, "a.npy")


def test_gzip_data_too_small_for_its_header_says_so(tmp_path):
    path = tmp_path / "a.npy.gz"
    path.write_bytes(gzip.compress(LIES["36 TiB promised"][0]))
    with pytest.raises(DataError, match=r"more than \d+ bytes of gzip data can hold"):
        load_data(path)


def test_gzip_data_that_ends_early_says_how_far_it_got(tmp_path):
    path = tmp_path / "a.npy.gz"
    path.write_bytes(gzip.compress(_header("<f8", (2, 5)) + P40[:36]))
    with pytest.raises(DataError, match="the data ends after 36 of the 80 bytes"):
        load_data(path)


@pytest.mark.parametrize("name", ["a.npy", "a.npy.gz", "x.npz", "y.npz.gz"])
def test_the_shape_hint_of_a_lying_header_is_none(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(dict((n, d) for n, d, _ in _forms(LIES["header length 4 GiB"][0]))[name])
    assert npy_shape(str(path)) is None


def test_the_shape_hint_reads_every_header_version(tmp_path):
    for version in [(1, 0), (2, 0), (3, 0)]:
        path = tmp_path / f"v{version[0]}.npy"
        path.write_bytes(_header("<f8", (3, 3), version=version) + M.tobytes())
        assert npy_shape(str(path)) == (3, 3)
        assert load_data(path).X.tolist() == M[:, :2].tolist()


#: dtypes -> whether X holding them is read (as float64, the same numbers)
DTYPES = {"float16": True, "bool": True, ">f8": True, ">i4": True, "<u8": True, "int8": True,
          "complex128": False, "datetime64[s]": False, "timedelta64[s]": False, "S5": False, "U5": False}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_odd_dtypes_read_right_or_are_refused_by_name(tmp_path, dtype):
    array = M.astype(dtype)
    archive = _npz(X=_npy(array), y=_npy(M[:, 2]))
    files = {"a.npy": _npy(array), "a.npy.gz": gzip.compress(_npy(array)), "a.npz": archive,
             "a.npz.gz": gzip.compress(archive)}
    for name, content in files.items():
        path = tmp_path / name
        path.write_bytes(content)
        if DTYPES[dtype]:
            expected = array.astype(np.float64)
            assert load_data(path).X.tolist() == (expected[:, :2] if ".npy" in name else expected).tolist()
        else:
            with pytest.raises(DataError, match=f"must hold numbers, got dtype {re.escape(str(array.dtype))}"):
                load_data(path)


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (3,), (2, 2, 2), ()])
def test_arrays_without_rows_or_columns_or_of_another_rank_are_refused(tmp_path, shape):
    expected = {(3, 0): "has no columns", (0, 3): "has no rows"}.get(shape, f"got shape {shape}")
    (tmp_path / "a.npy").write_bytes(_npy(np.zeros(shape)))
    (tmp_path / "a.npz").write_bytes(_npz(X=_npy(np.zeros(shape)), y=_npy(np.zeros(3))))
    for name in ["a.npy", "a.npz"]:
        with pytest.raises(DataError, match=re.escape(expected)):
            load_data(tmp_path / name)


@pytest.mark.parametrize("dtype", ["<U0", "|S0"])
def test_zero_width_text_reads_as_empty_text_not_as_memory_never_written(tmp_path, dtype):
    path = tmp_path / "a.npy"
    path.write_bytes(_header(dtype, (4,)))
    read = _numpy._load_numpy(str(path))
    assert read.dtype == np.dtype(dtype) and read.tolist() == [read.dtype.type()] * 4


def test_feature_names_saved_as_bytes_are_read_as_text(tmp_path):
    path = tmp_path / "a.npz"
    path.write_bytes(_npz(X=_npy(M[:, :2]), y=_npy(M[:, 2]), feature_names=_npy(np.array([b"age", b"bmi"]))))
    assert load_data(path).feature_names == ["age", "bmi"]
    assert _numpy.npz_feature_names(str(path)) == ["age", "bmi"]


@pytest.mark.parametrize("d", [2, 3, 7])
def test_the_label_column_is_taken_out_in_place_as_np_delete_would(monkeypatch, d):
    monkeypatch.setattr(_numpy, "_DROP_BLOCK", 5 * d)         # blocks of 5 rows: many blocks, and a short last one
    rng = np.random.default_rng(d)
    for index in range(d):
        M2 = rng.normal(size=(23, d))
        expected = np.delete(M2, index, axis=1)
        out = _numpy._drop_column(M2, index)
        assert out.flags.c_contiguous and np.array_equal(out, expected)


def _load_with_peak(path):
    """(``load_data(path)``, the peak of memory traced while it ran)."""
    tracemalloc.start()
    try:
        data = load_data(path)
        return data, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", ["a.npy", "a.npy.gz"])
def test_an_npy_file_with_its_label_is_read_into_about_one_copy(tmp_path, name):
    """The array (8 MB), its label column and the check for infinities (a byte a value), and no more: copying the
    features out of the array (a fancy index, then made contiguous) would hold three copies."""
    big = np.random.default_rng(0).normal(size=(50_000, 20))
    path = tmp_path / name
    path.write_bytes(gzip.compress(_npy(big), compresslevel=1) if name.endswith(".gz") else _npy(big))
    data, peak = _load_with_peak(path)
    assert np.array_equal(data.X, big[:, :-1]) and np.array_equal(data.y, big[:, -1])
    assert data.X.flags.c_contiguous
    assert peak < 1.3 * big.nbytes, (peak, big.nbytes)


def test_an_npz_gz_archive_is_read_into_about_one_copy_and_its_spool_closed(tmp_path):
    """An .npz.gz is decompressed to a temporary file, not to memory: the peak is about X and y, where a copy of
    the archive in memory doubled it; the file is closed (so deleted) with the archive."""
    big = np.random.default_rng(1).normal(size=(50_000, 20))
    path = tmp_path / "a.npz.gz"
    path.write_bytes(gzip.compress(_npz(X=_npy(big[:, :-1]), y=_npy(big[:, -1])), compresslevel=1))
    fds = len(list(Path("/proc/self/fd").iterdir())) if Path("/proc/self/fd").is_dir() else None
    data, peak = _load_with_peak(path)
    assert np.array_equal(data.X, big[:, :-1]) and np.array_equal(data.y, big[:, -1])
    assert peak < 1.3 * big.nbytes, (peak, big.nbytes)
    if fds is not None:
        assert len(list(Path("/proc/self/fd").iterdir())) == fds


def test_damaged_gzip_data_of_an_archive_is_named_and_its_spool_closed(tmp_path):
    path = tmp_path / "a.npz.gz"
    content = gzip.compress(_npz(X=_npy(M[:, :2]), y=_npy(M[:, 2])))
    path.write_bytes(content[:-12])                 # cut short: no checksum
    with pytest.raises(DataError, match="damaged gzip data"):
        load_data(path)
