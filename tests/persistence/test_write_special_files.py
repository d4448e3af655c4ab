"""``write_text_atomically`` (model files, exports) on targets that are not plain files: streams are written
into, never replaced; symlinks stay.  Stand-ins in ``tmp_path`` only -- never the real ``/dev`` nodes."""

import os
import stat
import threading

import pytest

from rankcore.persistence import write_text_atomically, writes_in_place

TEXT = "[\n  { \"nodeid\": 0, \"leaf\": 0.5 }\n]\n"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


class Reader:
    """A thread reading a FIFO to its end (a writer's open blocks until a reader opens)."""

    def __init__(self, path):
        self.text = None
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path):
        with open(path, encoding="utf-8") as fh:
            self.text = fh.read()

    def result(self):
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the FIFO was never written and closed"
        return self.text


def _kind(path):
    mode = os.lstat(path).st_mode
    return "link" if stat.S_ISLNK(mode) else "fifo" if stat.S_ISFIFO(mode) else "file" if stat.S_ISREG(mode) else "?"


def test_a_fifo_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert writes_in_place(fifo)
    reader = Reader(fifo)
    write_text_atomically(TEXT, fifo)
    assert reader.result() == TEXT
    assert _kind(fifo) == "fifo"
    assert sorted(os.listdir(tmp_path)) == ["pipe"]            # no temporary file beside it


def test_a_symlink_to_a_fifo_is_written_through_and_kept(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.json"
    link.symlink_to(fifo)
    assert writes_in_place(link)
    reader = Reader(fifo)
    write_text_atomically(TEXT, link)
    assert reader.result() == TEXT
    assert _kind(link) == "link" and _kind(fifo) == "fifo"


def test_a_symlink_to_a_regular_file_is_kept_and_the_file_replaced(tmp_path):
    (tmp_path / "models").mkdir()
    target = tmp_path / "models" / "v2.json"
    target.write_text("the old model")
    first = tmp_path / "current.json"
    first.symlink_to(os.path.join("models", "v2.json"))            # relative links, two of them
    second = tmp_path / "serve.json"
    second.symlink_to("current.json")
    assert not writes_in_place(second)
    write_text_atomically(TEXT, second)
    assert target.read_text(encoding="utf-8") == TEXT
    assert _kind(first) == "link" and _kind(second) == "link" and _kind(target) == "file"
    assert sorted(os.listdir(tmp_path / "models")) == ["v2.json"]


def test_a_dangling_symlink_is_kept_and_its_file_created(tmp_path):
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "new.json")
    write_text_atomically(TEXT, link)
    assert _kind(link) == "link" and (tmp_path / "new.json").read_text(encoding="utf-8") == TEXT


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd (Linux)")
def test_an_open_descriptors_entry_is_appended_to_not_replaced(tmp_path):
    """``-o /dev/stdout > out.json`` (or ``>>``): the descriptor's file gets the text; the shell's file stays."""
    out = tmp_path / "out.json"
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("earlier output\n")
        handle.flush()
        link = tmp_path / "stdout"                     # what /dev/stdout is: a link to /proc/self/fd/1
        link.symlink_to(f"/proc/self/fd/{handle.fileno()}")
        inode = os.stat(out).st_ino
        assert writes_in_place(link) and writes_in_place(f"/proc/self/fd/{handle.fileno()}")
        write_text_atomically(TEXT, link)
    assert out.read_text(encoding="utf-8") == "earlier output\n" + TEXT
    assert os.stat(out).st_ino == inode and _kind(link) == "link"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to own a link as another user")
def test_a_link_planted_by_another_user_in_a_sticky_directory_is_not_followed(tmp_path):
    """As the kernel's protected_symlinks refuses for open(): the link is replaced, the file it names is kept."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    planted = shared / "model.json"
    planted.symlink_to(victim)
    os.lchown(planted, 54321, 54321)
    write_text_atomically(TEXT, planted)
    assert victim.read_text() == "precious"
    assert _kind(planted) == "file" and planted.read_text(encoding="utf-8") == TEXT


def test_what_writes_in_place(tmp_path):
    plain = tmp_path / "a.json"
    assert not writes_in_place(plain)                 # nothing there yet
    plain.write_text("x")
    assert not writes_in_place(plain)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert not writes_in_place(loop)
    with pytest.raises(OSError, match="loop"):
        write_text_atomically(TEXT, loop)
    with pytest.raises(IsADirectoryError, match=str(tmp_path.name)):
        write_text_atomically(TEXT, tmp_path)
