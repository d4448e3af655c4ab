"""Copies of standard input left behind by a command killed outright (SIGKILL): removed by the next command that
copies standard input, when their owner process is gone -- never a live process's copy, never another name."""

import csv
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from _cli_run import run_main
from rankcore.cli import _stdin_leftovers as leftovers

FIT = ("--n-iter", "3", "--learner", "stumps", "--quiet")
DAY = 24 * 3600
linux_proc = pytest.mark.skipif(leftovers.copy_owner().endswith("-x-x"), reason="no /proc to tell processes by")


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """A small CSV file's bytes."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("leftovers") / "d.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "y"])
        writer.writerows([round(float(v), 2) for v in rng.normal(size=2)] + [i % 2] for i in range(40))
    return path.read_bytes()


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The temporary directory of the commands run here (and of their children, through TMPDIR)."""
    path = tmp_path / "scratch"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


def _fit_from_stdin(rows, tmp_path):
    status, _, err = run_main("fit", "-", "--label", "y", *FIT, "-o", tmp_path / "m.json", "-f", stdin=rows)
    assert status == 0, err


def _dead_owner() -> str:
    """``pid-start-space`` of a process that has ended (a child asked for its own, then waited for)."""
    done = subprocess.run([sys.executable, "-c", "from rankcore.cli._stdin_leftovers import copy_owner; "
                           "print(copy_owner())"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _plant(parent, name, *, age_days=0.0):
    """A copy's directory ``name`` in ``parent`` holding a copy, last changed ``age_days`` ago."""
    path = parent / name
    path.mkdir()
    (path / "stdin.csv").write_bytes(b"a,b,y\n1,2,0\n")
    then = time.time() - age_days * DAY
    for p in (path / "stdin.csv", path):
        os.utime(p, (then, then))
    return path


def _default_handlers():
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _copying_child(scratch, tmp_path, rows):
    """A real ``rankcore fit -`` process holding its copy of standard input (its pipe held open); with its copy's
    directory."""
    proc = subprocess.Popen([sys.executable, "-m", "rankcore", "fit", "-", "--label", "y", *FIT, "-o",
                             str(tmp_path / "child.json")], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, TMPDIR=str(scratch)), preexec_fn=_default_handlers)
    proc.stdin.write(rows)
    proc.stdin.flush()
    for _ in range(3000):                           # until the copy exists (a safety bound, not a timing claim)
        mine = [n for n in os.listdir(scratch) if n.startswith(f"{leftovers.PREFIX}{proc.pid}-")]
        if mine and os.listdir(scratch / mine[0]) or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert mine, proc.stderr.read()
    return proc, scratch / mine[0]


def test_a_copy_is_named_for_its_process(rows, scratch, tmp_path, monkeypatch):
    from rankcore.cli import _stdin

    seen = []
    spool = _stdin._spool
    monkeypatch.setattr(_stdin, "_spool", lambda option, directory, fmt: seen.append(directory) or
                        spool(option, directory, fmt))
    _fit_from_stdin(rows, tmp_path)
    name = os.path.basename(seen[0])
    assert re.fullmatch(re.escape(leftovers.PREFIX + leftovers.copy_owner()) + "-[0-9a-f]{8}", name), name
    assert name.startswith(f"{leftovers.PREFIX}{os.getpid()}-")
    assert os.listdir(scratch) == []                # removed at the end of the command, as before


@linux_proc
def test_a_killed_commands_copy_is_removed_and_a_live_ones_kept(rows, scratch, tmp_path):
    dead = _plant(scratch, f"{leftovers.PREFIX}{_dead_owner()}-0123abcd")
    child, live = _copying_child(scratch, tmp_path, rows)
    try:
        _fit_from_stdin(rows, tmp_path)              # a command copying standard input cleans up first
        assert not dead.exists()
        assert live.is_dir() and os.listdir(live)   # the copy being written by a live process stays
        assert child.poll() is None
        child.kill()                                 # SIGKILL: no clean-up, the copy stays behind ...
        child.wait(timeout=300)
        assert live.is_dir()
        _fit_from_stdin(rows, tmp_path)              # ... until the next command copying standard input
        assert os.listdir(scratch) == []
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdin.close()
        child.stderr.close()


@linux_proc
def test_a_live_command_keeps_its_copy_to_the_end(rows, scratch, tmp_path):
    child, live = _copying_child(scratch, tmp_path, rows)
    try:
        _fit_from_stdin(rows, tmp_path)
        assert live.is_dir()
        child.stdin.close()                          # the child reads to the end of its stream and fits
        assert child.wait(timeout=300) == 0, child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stderr.close()
    assert (tmp_path / "child.json").exists() and os.listdir(scratch) == []


@linux_proc
def test_a_pid_reused_by_another_process_does_not_keep_a_copy(scratch):
    pid, start, space = leftovers.copy_owner().split("-")
    other = _plant(scratch, f"{leftovers.PREFIX}{pid}-{int(start) + 7}-{space}-0123abcd")   # this pid, not us
    ours = _plant(scratch, f"{leftovers.PREFIX}{pid}-{start}-{space}-4567cdef", age_days=400)
    assert leftovers.remove_leftovers(str(scratch)) == [other.name]
    assert ours.is_dir()                            # this process's own copy, however old


def test_only_this_users_directories_of_the_exact_pattern_are_removed(scratch, tmp_path, monkeypatch):
    owner = _dead_owner()
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.csv").write_bytes(b"x")
    kept = {
        "rankcore-stdin-k3j2h1_q": "dir",                 # the older mkdtemp names, which say no owner
        f"rankcore-stdin-{owner}-0123abcd.bak": "dir",    # similar names
        f"rankcore-stdin-{owner}-0123abc": "dir",
        f"rankcore-stdin-{owner}-0123ABCD": "dir",
        f"Rankcore-stdin-{owner}-0123abcd": "dir",
        f"rankcore-stdin-0-{owner.split('-', 1)[1]}-0123abcd": "dir",
        f"xrankcore-stdin-{owner}-0123abcd": "dir",
        f"rankcore-stdin-{owner}-89abcdef": "file",       # the exact pattern, but a file
        f"rankcore-stdin-{owner}-fedcba98": "link",       # the exact pattern, but a link to a directory
    }
    for name, what in kept.items():
        if what == "dir":
            _plant(scratch, name, age_days=400)
        elif what == "file":
            (scratch / name).write_bytes(b"data")
        else:
            os.symlink(target, scratch / name)
    stale = _plant(scratch, f"{leftovers.PREFIX}{owner}-0123abcd", age_days=400)
    real_uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: real_uid + 1)     # as another user sees them
    assert leftovers.remove_leftovers(str(scratch)) == []
    monkeypatch.setattr(os, "geteuid", lambda: real_uid)
    assert leftovers.remove_leftovers(str(scratch)) == [stale.name]
    assert sorted(os.listdir(scratch)) == sorted(kept)
    assert os.listdir(target) == ["keep.csv"]
    assert leftovers.remove_leftovers(str(scratch)) == []           # again (a concurrent command): harmless


@pytest.mark.parametrize("where", ["no /proc", "another pid space"])
def test_where_the_owner_cannot_be_told_only_old_copies_are_removed(scratch, where):
    pid = _dead_owner().split("-")[0]
    tokens = "x-x" if where == "no /proc" else "1234-0123456789ab"
    young = _plant(scratch, f"{leftovers.PREFIX}{pid}-{tokens}-0000aaaa", age_days=29)
    old = _plant(scratch, f"{leftovers.PREFIX}{pid}-{tokens}-0000bbbb", age_days=31)
    touched = _plant(scratch, f"{leftovers.PREFIX}{pid}-{tokens}-0000cccc", age_days=31)
    os.utime(touched / "stdin.csv")                  # a copy written lately: its directory's age is not its age
    assert leftovers.remove_leftovers(str(scratch)) == [old.name]
    assert young.is_dir() and touched.is_dir()
    later = time.time() + 2 * DAY
    assert sorted(leftovers.remove_leftovers(str(scratch), now=later)) == [young.name]
    assert leftovers.remove_leftovers(str(scratch), now=later + 31 * DAY) == [touched.name]


def test_without_proc_copies_are_named_without_tokens_and_judged_by_age(scratch, monkeypatch):
    monkeypatch.setattr(leftovers, "_BOOT_ID", str(scratch / "no-such-file"))
    assert leftovers.copy_owner() == f"{os.getpid()}-x-x"
    assert leftovers.process_start(2 ** 31) is None
    made = leftovers.make_copy_directory(str(scratch))
    assert os.path.basename(made).startswith(f"{leftovers.PREFIX}{os.getpid()}-x-x-")
    assert oct(os.stat(made).st_mode & 0o777) == oct(0o700)
    assert leftovers.remove_leftovers(str(scratch)) == []
    assert leftovers.remove_leftovers(str(scratch), now=time.time() + 31 * DAY) == [os.path.basename(made)]


@linux_proc
def test_process_start_reads_past_a_command_name_with_spaces_and_parentheses(tmp_path):
    odd = tmp_path / "a) (b c"
    os.symlink(sys.executable, odd)
    child = subprocess.Popen([str(odd), "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        with open(f"/proc/{child.pid}/stat", "rb") as fh:
            match = re.fullmatch(rb"(\d+) \((.*)\) (.*)", fh.read().strip(), re.S)
        assert match.group(2) == b"a) (b c"
        assert leftovers.process_start(child.pid) == match.group(3).split()[19].decode()
        assert int(leftovers.process_start(child.pid)) >= int(leftovers.process_start(os.getpid()))
    finally:
        child.stdin.close()
        child.wait()
    assert leftovers.process_start(child.pid) is None


def test_a_directory_that_cannot_be_listed_or_removed_is_no_error(scratch, monkeypatch):
    assert leftovers.remove_leftovers(str(scratch / "no-such-directory")) == []
    stale = _plant(scratch, f"{leftovers.PREFIX}{_dead_owner()}-0123abcd", age_days=400)

    def refused(path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(leftovers.os, "rmdir", refused)
    assert leftovers.remove_leftovers(str(scratch)) == [] and stale.is_dir()


def test_a_leftover_holding_a_directory_is_left_whole_and_links_inside_are_never_followed(scratch, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("precious")
    owner = _dead_owner()
    plain = _plant(scratch, f"{leftovers.PREFIX}{owner}-0000000a")
    os.symlink(precious, plain / "link")                # a link inside: removed itself, its target never reached
    (plain / "stdin.csv").chmod(0o444)                  # a read-only copy is removed as well
    nested = _plant(scratch, f"{leftovers.PREFIX}{owner}-0000000b")
    (nested / "sub").mkdir()                            # no copy holds a directory: not ours, kept whole
    (nested / "sub" / "data.txt").write_text("x")
    os.symlink(precious, scratch / f"{leftovers.PREFIX}{owner}-0000000c")   # a link of the pattern's name: kept
    assert leftovers.remove_leftovers(str(scratch)) == [plain.name]
    assert (nested / "sub" / "data.txt").read_text() == "x" and (nested / "stdin.csv").exists()
    assert os.path.islink(scratch / f"{leftovers.PREFIX}{owner}-0000000c")
    assert (precious / "keep.txt").read_text() == "precious"


@linux_proc
def test_leftovers_are_removed_even_when_the_commands_own_directory_cannot_be_made(rows, scratch, tmp_path,
                                                                                    monkeypatch):
    # a disk filled by leftovers: this command's directory fails, but the room is freed for the next
    from rankcore.cli import _stdin

    dead = _plant(scratch, f"{leftovers.PREFIX}{_dead_owner()}-0000000d")

    def full(parent):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_stdin, "make_copy_directory", full)
    status, _, err = run_main("fit", "-", "--label", "y", *FIT, "-o", tmp_path / "m.json", "-f", stdin=rows)
    assert status != 0 and "No space left on device" in err
    assert not dead.exists()
