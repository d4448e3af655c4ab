"""Bytes after a NumPy array (two arrays saved to one file, two ``.npy.gz`` files joined with ``cat``, two
``.npz`` archives joined): refused naming the file and how many bytes follow, never read as the first array alone;
the files without them still read bit for bit, never unpickled, with one copy of the array in memory."""

import gzip
import io
import tracemalloc
import zipfile

import numpy as np
import pytest

from _cli_run import one_line_error, run_main
from rankcore.cli.datasets import DataError, load_data
from rankcore.cli.datasets._numpy import _load_numpy

FIT = ("--n-iter", "3", "--learner", "trees:max_leaves=4", "--quiet")   # trees: the rows hold a NaN


def _npy(array, **kw) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, **kw)
    return buf.getvalue()


def _npz(*, compressed=False, **arrays) -> bytes:
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def _zip(members: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buf.getvalue()


def _rows(seed):
    """Rows with NaN, -0.0, a subnormal and ties, and a 0/1 label column last."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(30, 3)), 1)
    X[2, 1], X[4, 0], X[6, 2] = np.nan, -0.0, 5e-324
    return np.column_stack([X, (X[:, 0] > 0).astype(float)])


A, B = _rows(0), _rows(1)
NPY_A, NPY_B = _npy(A), _npy(B)
NPZ_A, NPZ_B = _npz(X=A[:, :3], y=A[:, 3]), _npz(X=B[:, :3], y=B[:, 3])
GZ = dict(mtime=0)

#: name -> (content, bytes said to follow (in the message), words of the message)
BAD = {
    "two arrays.npy": (NPY_A + NPY_B, f"{len(NPY_B):,} bytes follow the array in the file", "another array"),
    "one byte.npy": (NPY_A + b"\n", "1 byte follows the array in the file", "concatenated"),
    "two members.npy.gz": (gzip.compress(NPY_A, **GZ) + gzip.compress(NPY_B, **GZ),
                           f"{len(NPY_B):,} bytes follow the array in the decompressed data", "another array"),
    "garbage inside.npy.gz": (gzip.compress(NPY_A + b"garbage", **GZ),
                              "7 bytes follow the array in the decompressed data", "concatenated"),
    "two archives.npz": (NPZ_A + NPZ_B, f"{len(NPZ_A):,} bytes before its first array", "joined"),
    "two members.npz.gz": (gzip.compress(NPZ_A, **GZ) + gzip.compress(NPZ_B, **GZ),
                           f"{len(NPZ_A):,} bytes before its first array", "joined"),
    "garbage after.npz": (NPZ_A + b"\0" * 100, "100 bytes after its end", "joined"),
    "member with more.npz": (_zip({"X.npy": _npy(A[:, :3]) + _npy(B[:, :3]), "y.npy": _npy(A[:, 3])}),
                             f"{len(_npy(B[:, :3])):,} bytes follow the array 'X' in the archive", "another array"),
    "label with more.npz": (_zip({"X.npy": _npy(A[:, :3]), "y.npy": _npy(A[:, 3]) + b"abc"}),
                            "3 bytes follow the array 'y' in the archive", "concatenated"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bytes_after_the_array_are_refused_naming_the_file(tmp_path, name):
    content, said, cause = BAD[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataError) as caught:
        load_data(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and said in message and cause in message, message
    status, _, err = run_main("fit", path, *FIT, "-o", tmp_path / "m.json")
    one_line_error(status, err, name, said)
    fmt = name.split(".")[1]
    status, _, err = run_main("fit", "-", "--format", fmt, *FIT, "-o", tmp_path / "m.json", stdin=content)
    one_line_error(status, err, "standard input: ", said)
    status, _, err = run_main("fit", "-", *FIT, "-o", tmp_path / "m.json", stdin=content)    # format detected
    one_line_error(status, err, "standard input: ", said)
    assert not (tmp_path / "m.json").exists()


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


GOOD = {
    "a.npy": NPY_A,
    "a.npy.gz": gzip.compress(NPY_A, **GZ),
    "fortran.npy": _npy(np.asfortranarray(A)),
    "float32.npy.gz": gzip.compress(_npy(A.astype(np.float32)), **GZ),
    "ints.npy": _npy(np.arange(60, dtype=np.int16).reshape(20, 3) % 2),
    "version 2.npy": None,
    "a.npz": NPZ_A,
    "a.npz.gz": gzip.compress(NPZ_A, **GZ),
    "compressed.npz": _npz(compressed=True, X=A[:, :3], y=A[:, 3], feature_names=np.array(["a", "b", "c"])),
}


def _version_2() -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, A, version=(2, 0))
    return buf.getvalue()


@pytest.mark.parametrize("name", sorted(GOOD))
def test_files_without_more_bytes_read_bit_for_bit(tmp_path, name):
    content = GOOD[name] if GOOD[name] is not None else _version_2()
    path = tmp_path / name
    path.write_bytes(content)
    expected = np.load(io.BytesIO(gzip.decompress(content) if name.endswith(".gz") else content))
    if isinstance(expected, np.ndarray):
        read = _load_numpy(str(path))
        assert _same(read, expected) and read.flags.f_contiguous == expected.flags.f_contiguous
        data = load_data(path)
        kept = np.float32 if expected.dtype == np.float32 else np.float64      # float32 is read as float32
        assert _same(data.X, np.ascontiguousarray(expected[:, :-1], dtype=kept))
        assert _same(data.y, expected[:, -1].astype(np.float64))
    else:
        data = load_data(path)
        assert _same(data.X, expected["X"]) and _same(data.y, expected["y"])
        with np.load(path if not name.endswith(".gz") else io.BytesIO(gzip.decompress(content))) as archive:
            assert data.feature_names == ([str(v) for v in archive["feature_names"]]
                                          if "feature_names" in archive.files else ["x0", "x1", "x2"])
    piped = run_main("fit", "-", *FIT, "-o", tmp_path / "p.json", stdin=content)
    filed = run_main("fit", path, *FIT, "-o", tmp_path / "f.json")
    assert piped[0] == filed[0] == 0, (piped, filed)
    assert (tmp_path / "p.json").read_bytes() == (tmp_path / "f.json").read_bytes()


def test_pickles_followed_by_bytes_are_refused_as_pickles_without_unpickling(tmp_path):
    planted = tmp_path / "planted"

    class Planted:
        def __reduce__(self):
            return (open, (str(planted), "w"))

    buf = io.BytesIO()
    np.save(buf, np.array([Planted()], dtype=object), allow_pickle=True)
    cases = {"o.npy": buf.getvalue() + NPY_B, "o.npy.gz": gzip.compress(buf.getvalue() + b"x", **GZ),
             "o.npz": _zip({"X.npy": buf.getvalue() + b"x", "y.npy": _npy(A[:, 3])})}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(DataError, match="allow_pickle=False|pickled Python objects"):
            load_data(tmp_path / name)
    assert not planted.exists()


@pytest.mark.parametrize("name", ["t.npy", "t.npy.gz"])
def test_a_truncated_array_is_refused_as_unreadable_not_as_a_pickle(tmp_path, name):
    buf = io.BytesIO()
    np.save(buf, A)
    content = buf.getvalue()[:-40]                  # the header promises more data than follows
    (tmp_path / name).write_bytes(gzip.compress(content) if name.endswith(".gz") else content)
    with pytest.raises(DataError, match="a file cut short") as info:
        load_data(tmp_path / name)
    assert "pickle" not in str(info.value) and name in str(info.value)


@pytest.mark.parametrize("name", ["a.npy", "a.npy.gz"])
def test_the_array_is_read_into_one_copy(tmp_path, name):
    """The peak memory of reading an array of 8 MB: the array, and blocks of a MiB -- not the stream twice."""
    big = np.random.default_rng(0).normal(size=(50_000, 20))
    content = _npy(big)
    path = tmp_path / name
    path.write_bytes(gzip.compress(content, compresslevel=1) if name.endswith(".gz") else content)
    tracemalloc.start()
    try:
        read = _load_numpy(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert _same(read, big)
    assert peak < big.nbytes + (3 << 20), (peak, big.nbytes)
