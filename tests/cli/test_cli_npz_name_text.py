"""An .npz file's ``feature_names`` that are not UTF-8 text are refused naming the file and the name, never decoded
into other names nor left to fail as a raw codec error when the model file is written."""

import numpy as np
import pytest

from _cli_run import run_main
from rankcore.cli.datasets import DataError, load_data, npz_feature_names


def _save(path, names):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    np.savez(path, X=X, y=(X[:, 0] > 0).astype(int), feature_names=names)


@pytest.mark.parametrize("names, said", [
    (np.array([b"a\xff", b"b"]), r"feature_names[0] b'a\xff' is not UTF-8 text"),     # before: read as 'a\ufffd'
    (np.array([b"\xff", b"\xfe"]), r"feature_names[0] b'\xff' is not UTF-8 text"),    # before: "'\ufffd' twice"
    (np.array(["a", "b\udcff"]), "feature_names[1]"),                                  # before: a raw codec error
])
def test_names_not_utf8_are_refused_naming_the_file(tmp_path, names, said):
    path = tmp_path / "d.npz"
    _save(path, names)
    with pytest.raises(DataError) as info:
        load_data(str(path))
    assert str(path) in str(info.value) and said in str(info.value)
    assert npz_feature_names(str(path)) == []       # --drop's look-up leaves the refusal to the read


def test_fit_says_the_file_not_a_codec_error(tmp_path):
    path = tmp_path / "d.npz"
    _save(path, np.array(["a", "b\udcff"]))
    status, _, err = run_main("fit", path, "--out", tmp_path / "m.json", "--progress", "none")
    assert status != 0
    assert "d.npz: feature_names[1]" in err and "codec" not in err
    assert not (tmp_path / "m.json").exists()


def test_utf8_bytes_names_are_read_as_text(tmp_path):
    path = tmp_path / "d.npz"
    _save(path, np.array(["âge".encode(), b"b"]))
    assert load_data(str(path)).feature_names == ["âge", "b"]
