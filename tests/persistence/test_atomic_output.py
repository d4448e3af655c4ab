"""``atomic_output``: an output a reader sees whole or not at all, whatever stops the writer."""

import os

import numpy as np
import pytest

from rankcore.persistence import atomic_output


class Stop(Exception):
    pass


@pytest.mark.parametrize("exc", [Stop, KeyboardInterrupt])
def test_an_exception_in_the_block_keeps_the_earlier_file(tmp_path, exc):
    target = tmp_path / "out.csv"
    target.write_text("earlier\n")
    with pytest.raises(exc):
        with atomic_output(target) as fh:
            fh.write("half of the new")
            raise exc()
    assert target.read_text() == "earlier\n" and os.listdir(tmp_path) == ["out.csv"]


def test_an_exception_in_the_block_creates_no_file(tmp_path):
    with pytest.raises(Stop):
        with atomic_output(tmp_path / "new.bin", binary=True) as fh:
            fh.write(b"\x00")
            raise Stop()
    assert os.listdir(tmp_path) == []


def test_a_complete_block_replaces_the_file_through_a_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("earlier, longer text\n")
    (tmp_path / "link.txt").symlink_to(real)
    with atomic_output(tmp_path / "link.txt", newline="") as fh:
        fh.write("new\r\n")
    assert real.read_bytes() == b"new\r\n" and (tmp_path / "link.txt").is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["link.txt", "real.txt"]


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        with atomic_output(tmp_path / "nowhere" / "f.txt") as fh:
            fh.write("x")


@pytest.mark.skipif(not os.access("/dev/full", os.W_OK), reason="needs a writable /dev/full")
def test_a_full_device_is_named():
    with pytest.raises(OSError, match="/dev/full"):
        with atomic_output("/dev/full") as fh:
            fh.write("x" * 100_000)


def test_save_figure_that_fails_keeps_the_earlier_figure(tmp_path, monkeypatch):
    from rankcore import plotting

    target = tmp_path / "roc.svg"
    target.write_text("<svg>earlier</svg>")
    fig = plotting.roc_data({"m": (np.array([0, 1, 1, 0]), np.array([0.1, 0.9, 0.4, 0.3]))})

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="roc.svg"):
        plotting.save_figure(fig, target)
    assert target.read_text() == "<svg>earlier</svg>" and os.listdir(tmp_path) == ["roc.svg"]


def test_an_empty_path_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    import rankcore

    monkeypatch.chdir(tmp_path)
    model = rankcore.PushBoost(n_iter=2, random_state=0).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="path: expected a file name"):
        rankcore.save_model(model, "")
    assert os.listdir(tmp_path) == []
