"""``--out`` that cannot be written is reported as ``--out``, never as the temporary file behind it."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest

from rankcore.cli import main
from rankcore.persistence import save_model
from rankcore.push import PushBoost


@pytest.fixture()
def data_csv(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.rand(40, 2)
    y = (X[:, 0] > 0.5).astype(int)
    path = tmp_path / "d.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="a,b,label", comments="")
    return path


def _refuse_temporary_files(monkeypatch):
    """Creating the temporary file fails as in a folder one may list but not write (a read-only mount, or as root in
    /proc)."""
    import rankcore._atomic_files

    def temporary_beside(directory, base, private):
        name = os.path.join(directory, f".{base}.x1y2z3.tmp")
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)

    monkeypatch.setattr(rankcore._atomic_files, "_temporary_beside", temporary_beside)


@pytest.mark.parametrize("command", [["fit", "--model", "push", "--n-iter", "3"],
                                     ["auto", "--candidates", "linear:n_epochs=2", "--no-blend"]])
def test_out_into_an_unwritable_folder_names_out(data_csv, tmp_path, monkeypatch, capsys, command):
    _refuse_temporary_files(monkeypatch)
    target = tmp_path / "m.json"
    status = main([command[0], str(data_csv), *command[1:], "--out", str(target), "-q"])
    err = capsys.readouterr().err
    assert status == 2
    assert f"rankcore: error: --out: cannot write {str(target)!r}: Permission denied" in err
    assert ".tmp" not in err and not target.exists()


def test_save_model_names_the_path_not_the_temporary_file(tmp_path, monkeypatch):
    model = PushBoost(n_iter=2, random_state=0).fit(np.eye(4), [0, 1, 0, 1])
    _refuse_temporary_files(monkeypatch)
    with pytest.raises(PermissionError) as info:
        save_model(model, tmp_path / "m.json")
    assert info.value.filename == str(tmp_path / "m.json")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes in any folder")
def test_out_into_a_read_only_folder_names_out(data_csv, tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        status = main(["fit", str(data_csv), "--model", "push", "--n-iter", "3", "--out", str(folder / "m.json")])
    finally:
        folder.chmod(0o755)
    assert status == 2 and "--out" in capsys.readouterr().err
