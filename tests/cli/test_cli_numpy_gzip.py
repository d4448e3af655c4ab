"""Gzipped NumPy files (``.npy.gz``, ``.npz.gz``, or gzip data piped in): read as the uncompressed files are, bit
for bit, never unpickled, and damaged gzip data refused naming it."""

import gzip
import pickle

import numpy as np
import pytest

from _cli_run import one_line_error, run_main
from rankcore.cli.datasets import DataError, load_data, npy_shape, npz_array_names, npz_feature_names

FIT = ("--n-iter", "5", "--learner", "trees:max_leaves=4", "--quiet")   # trees: the rows hold a NaN


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """d.npy and d.npz with NaN, -0.0, subnormals and ties, and both gzipped."""
    d = tmp_path_factory.mktemp("npgz")
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(90, 4)), 2)
    X[3, 1], X[5, 2], X[7, 0], X[8, 3] = np.nan, -0.0, 5e-324, 1e308
    y = (X[:, 0] > 0).astype(float)
    np.save(d / "d.npy", np.column_stack([X, y]))
    np.savez(d / "d.npz", X=X, y=y, feature_names=np.array(["a", "b", "c", "e"]))
    for name in ("d.npy", "d.npz"):
        (d / (name + ".gz")).write_bytes(gzip.compress((d / name).read_bytes(), mtime=0))
    return d


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("name", ["d.npy", "d.npz"])
def test_a_gzipped_file_reads_as_the_file_bit_for_bit(files, name):
    plain, gzipped = load_data(files / name), load_data(files / (name + ".gz"))
    assert _same(plain.X, gzipped.X) and _same(plain.y, gzipped.y)
    assert plain.feature_names == gzipped.feature_names and plain.label_name == gzipped.label_name
    assert np.isnan(gzipped.X[3, 1]) and np.signbit(gzipped.X[5, 2]) and gzipped.X[7, 0] == 5e-324


@pytest.mark.parametrize("name", ["d.npy", "d.npz"])
def test_fit_and_score_on_a_gzipped_file_are_those_of_the_file(files, tmp_path, name):
    outputs = []
    for i, (data, stdin) in enumerate(((files / name, None), (files / (name + ".gz"), None),
                                       ("-", (files / (name + ".gz")).read_bytes()))):
        status, _, err = run_main("fit", data, *FIT, "-o", tmp_path / f"m{i}.json", stdin=stdin)
        assert status == 0, err
        scored = run_main("score", tmp_path / f"m{i}.json", data, stdin=stdin)
        assert scored[0] == 0, scored[2]
        outputs.append(((tmp_path / f"m{i}.json").read_bytes(), scored[1]))
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_the_header_and_names_of_gzipped_files_are_read(files):
    assert npy_shape(files / "d.npy.gz") == npy_shape(files / "d.npy") == (90, 5)
    assert npz_array_names(files / "d.npz.gz") == ["X", "y", "feature_names"]
    assert npz_feature_names(files / "d.npz.gz") == ["a", "b", "c", "e"]
    dropped = load_data(files / "d.npz.gz", drop=["b"])            # --drop by an .npz.gz file's feature_names
    assert dropped.feature_names == ["a", "c", "e"] and _same(dropped.X, load_data(files / "d.npz", drop=["b"]).X)


def _damaged(whole: bytes) -> dict[str, bytes]:
    bad_crc = bytearray(whole)
    bad_crc[-6] ^= 0xFF                                  # the CRC-32 of the content, in the gzip trailer
    return {"cut short": whole[: len(whole) // 2], "bad checksum": bytes(bad_crc), "no end": whole[:-8]}


@pytest.mark.parametrize("name", ["d.npy", "d.npz"])
def test_damaged_gzip_data_is_refused_naming_it(files, tmp_path, name):
    for what, data in _damaged((files / (name + ".gz")).read_bytes()).items():
        path = tmp_path / (name + ".gz")
        path.write_bytes(data)
        with pytest.raises(DataError, match="damaged gzip data"):
            load_data(path)
        for argv, stdin in (([path], None), (["-"], data)):
            status, _, err = run_main("fit", *argv, *FIT, "-o", tmp_path / "m.json", stdin=stdin)
            one_line_error(status, err, "damaged gzip data")
        assert not (tmp_path / "m.json").exists(), what


def test_gzip_data_gzipped_twice_is_refused(files, tmp_path):
    path = tmp_path / "d.npy.gz"
    path.write_bytes(gzip.compress((files / "d.npy.gz").read_bytes()))
    with pytest.raises(DataError, match="gzip data inside gzip data"):
        load_data(path)


class _Planted:
    """Unpickled, it writes a file: a pickle that must never be loaded."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_gzipped_pickles_are_refused_without_unpickling(tmp_path):
    planted = tmp_path / "planted"
    np.save(tmp_path / "o.npy", np.array([_Planted(planted)], dtype=object), allow_pickle=True)
    np.savez(tmp_path / "o.npz", X=np.array([[_Planted(planted)]], dtype=object), y=np.zeros(1))
    raw = pickle.dumps(_Planted(planted))
    cases = {"o.npy.gz": ((tmp_path / "o.npy").read_bytes(), "pickled Python objects"),
             "o.npz.gz": ((tmp_path / "o.npz").read_bytes(), "pickled Python objects"),  # as o.npz is refused
             "p.npy.gz": (raw, "not a NumPy file")}
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(gzip.compress(content))
        with pytest.raises(DataError, match=message):
            load_data(path)
        status, _, err = run_main("fit", "-", "--format", name.split(".")[1], *FIT, "-o", tmp_path / "m.json",
                                  stdin=path.read_bytes())
        one_line_error(status, err, "standard input", message)
    assert not planted.exists()
