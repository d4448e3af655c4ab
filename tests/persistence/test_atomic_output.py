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


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664, 0o444])
def test_a_replaced_file_keeps_its_permission_bits(tmp_path, mode):
    # a private (0600) output rewritten must not come back world-readable as 0666 & ~umask
    target = tmp_path / "scores.csv"
    target.write_text("earlier\n")
    os.chmod(target, mode)
    with atomic_output(target) as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n" and (os.stat(target).st_mode & 0o7777) == mode


def test_a_replaced_file_through_a_link_keeps_the_mode_of_the_file_it_leads_to(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("earlier\n")
    os.chmod(real, 0o600)
    (tmp_path / "link.csv").symlink_to(real)
    with atomic_output(tmp_path / "link.csv") as fh:
        fh.write("new\n")
    assert real.read_text() == "new\n" and (os.stat(real).st_mode & 0o7777) == 0o600


def test_a_new_file_gets_the_usual_mode_and_set_id_bits_are_not_copied(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    with atomic_output(tmp_path / "new.csv") as fh:
        fh.write("new\n")
    assert os.stat(tmp_path / "new.csv").st_mode & 0o7777 == 0o666 & ~umask
    os.chmod(tmp_path / "new.csv", 0o4755)
    with atomic_output(tmp_path / "new.csv") as fh:
        fh.write("again\n")
    assert os.stat(tmp_path / "new.csv").st_mode & 0o7777 == 0o755


def test_a_new_file_follows_the_umask_of_the_time_of_writing(tmp_path):
    # the umask was read once at import: a program that set a stricter one afterwards (0077, for private outputs)
    # still had its new files written 0644
    umask = os.umask(0o077)
    try:
        with atomic_output(tmp_path / "private.csv") as fh:
            fh.write("new\n")
    finally:
        os.umask(umask)
    assert os.stat(tmp_path / "private.csv").st_mode & 0o7777 == 0o600


@pytest.mark.parametrize("name", ["s" * 250 + ".csv", "\u00e9" * 120 + ".csv"], ids=["ascii", "two-byte"])
def test_a_name_near_the_file_systems_limit_is_written(tmp_path, name):
    # the temporary name (".NAME.XXXXXXXX.tmp") passed the 255 bytes a name may have where NAME itself did not
    target = tmp_path / name
    with atomic_output(target) as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n" and os.listdir(tmp_path) == [target.name]
