"""A LIBSVM file's dense matrix is bounded by the memory available, not a fixed cell count; Python-only spellings
of numbers (``1_000``, other scripts' digits) are refused as the CSV reader refuses them."""

import os
import subprocess
import sys
import textwrap

import pytest

from _cli_run import one_line_error, run_main
from rankcore.cli.datasets import DataError, load_data
from rankcore import _memory
from rankcore.cli.datasets import _libsvm


def write(path, text):
    path.write_text(text)
    return path


@pytest.fixture
def small_file(tmp_path):
    # 3 rows x 10 features: a dense matrix of 240 bytes
    return write(tmp_path / "d.svm", "1 qid:1 1:1 10:2\n0 qid:1 2:1\n1 qid:2 3:1\n")


def test_a_matrix_within_the_share_of_available_memory_is_read(small_file, monkeypatch):
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 480)
    assert load_data(small_file).X.shape == (3, 10)


def test_a_matrix_beyond_the_share_of_available_memory_is_refused_with_the_bytes(small_file, monkeypatch):
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 479)
    with pytest.raises(DataError) as info:
        load_data(small_file)
    message = str(info.value)
    assert "3 rows x 10 features make a dense matrix of 240 bytes (240 bytes)" in message
    assert "50% of the 479 bytes of memory available" in message
    assert "sklearn.datasets.load_svmlight_file" in message and "--drop" in message


def test_more_than_the_old_fixed_cap_is_read_when_memory_allows(monkeypatch):
    # 2**27 cells (1 GiB) was refused whatever the machine had; np.zeros asks the system for zeroed pages, which
    # are not touched here, so the 1 GiB matrix costs no memory in the test
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 4 << 30)
    X = _libsvm._dense("big.svm", 1 << 14, (1 << 13) + 1)
    assert X.shape == (1 << 14, (1 << 13) + 1) and X.nbytes > 1 << 30
    del X
    with pytest.raises(DataError, match="more than 50% of the 4.29 GB of memory available"):
        _libsvm._dense("big.svm", 1 << 14, 1 << 15)


def test_without_a_memory_reading_the_fallback_limit_holds(small_file, monkeypatch):
    monkeypatch.setattr(_libsvm, "available_memory", lambda: None)
    monkeypatch.setattr(_libsvm, "FALLBACK_DENSE_BYTES", 239)
    with pytest.raises(DataError, match=r"240 bytes .*more than the 239 bytes allowed where the memory available "
                                        r"cannot be read"):
        load_data(small_file)
    monkeypatch.setattr(_libsvm, "FALLBACK_DENSE_BYTES", 240)
    assert load_data(small_file).X.shape == (3, 10)


@pytest.mark.parametrize("text, expected", [
    ("MemTotal:       24683772 kB\nMemFree: 1 kB\nMemAvailable:   23065716 kB\n", 23065716 * 1024),
    ("MemTotal:       24683772 kB\nMemFree: 1 kB\n", None),      # kernels before 3.14 have no MemAvailable
    ("MemAvailable: lots\n", None),
])
def test_available_memory_reads_meminfo(tmp_path, monkeypatch, text, expected):
    monkeypatch.setattr(_memory, "_MEMINFO", str(write(tmp_path / "meminfo", text)))
    assert _memory.meminfo_available() == expected


def test_available_memory_without_meminfo(tmp_path, monkeypatch):
    monkeypatch.setattr(_memory, "_MEMINFO", str(tmp_path / "none"))
    assert _memory.meminfo_available() is None


def test_available_memory_is_bounded_by_the_containers_limit(monkeypatch):
    """(A container's limit bounds what the host's counters say is free.)"""
    monkeypatch.setattr(_memory, "meminfo_available", lambda: 20 << 30)
    monkeypatch.setattr(_memory, "cgroup_memory_limit", lambda: 2 << 30)
    monkeypatch.setattr(_memory, "address_space_limit", lambda: None)
    assert _memory.available_memory() == 2 << 30
    monkeypatch.setattr(_memory, "cgroup_memory_limit", lambda: None)
    assert _memory.available_memory() == 20 << 30


def test_the_refusal_is_one_line_from_the_cli(small_file, tmp_path, monkeypatch):
    monkeypatch.setattr(_libsvm, "available_memory", lambda: 100)
    status, _, err = run_main("fit", small_file, "--out", tmp_path / "m.json", "-q")
    one_line_error(status, err, "make a dense matrix of 240 bytes", "memory available")


@pytest.mark.parametrize("row, field", [
    ("1 1:1_000 2:1", "1:1_000"),             # Python's float() reads 1000
    ("1 1_0:1 2:1", "1_0:1"),                 # Python's int() reads index 10
    ("1_0 1:1", "1_0"),                       # a label
    ("1 qid:1_2 1:1", "qid:1_2"),             # a query id
    ("1 1:\u0663 2:1", "1:\u0663"),           # Arabic-Indic three
    ("1 1:\uff11 2:1", "1:\uff11"),           # a fullwidth one
])
def test_python_only_numbers_are_refused_naming_the_line(tmp_path, row, field):
    path = tmp_path / "u.svm"
    path.write_text(f"0 1:2 2:3\n{row}\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"u\.svm, line 2: {field!r} holds an underscore or a character beyond "
                                        r"ASCII"):
        load_data(path)


def test_an_underscore_in_a_comment_is_no_number(tmp_path):
    path = write(tmp_path / "c.svm", "0 1:2 # row_id=7 caf\u00e9\n1 1:1_0 # fixed below\n")
    with pytest.raises(DataError, match="line 2: '1:1_0'"):
        load_data(path)
    path = write(tmp_path / "c.svm", "0 1:2 # row_id=7 caf\u00e9\n1 1:10\n")
    assert load_data(path).X[:, 0].tolist() == [2.0, 10.0]


def _reference_dense(text):
    """The matrix of a 1-based file of ``label index:value ...`` rows, in plain Python."""
    rows = [line.split() for line in text.splitlines()]
    width = max(int(item.split(":")[0]) for row in rows for item in row[1:])
    out = [[0.0] * width for _ in rows]
    for i, row in enumerate(rows):
        for item in row[1:]:
            index, value = item.split(":")
            out[i][int(index) - 1] = float(value)
    return out


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 20])
@pytest.mark.parametrize("gz", [False, True])
def test_the_matrix_filled_block_by_block_is_the_files(tmp_path, monkeypatch, block, gz):
    import gzip

    text = "1 1:0.5 3:2\n0 2:-1 4:7 5:1e3\n1 5:0.25\n0 1:3 2:4 3:5 4:6 5:8\n"
    path = tmp_path / ("b.svm.gz" if gz else "b.svm")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    monkeypatch.setattr(_libsvm, "_SCATTER_BLOCK", block)
    assert load_data(path, fmt="libsvm").X.tolist() == _reference_dense(text)
    assert bytes(_libsvm._file_bytes(str(path))) == text.encode() + b"\0"


def test_ulimit_v_counts_the_address_space_already_held(monkeypatch):
    """(``ulimit -v`` bounds the whole address space: the interpreter and its libraries hold part of it already.)"""
    monkeypatch.setattr(_memory, "meminfo_available", lambda: 20 << 30)
    monkeypatch.setattr(_memory, "cgroup_memory_limit", lambda: None)
    monkeypatch.setattr(_memory, "address_space_limit", lambda: 4 << 30)
    monkeypatch.setattr(_memory, "address_space_in_use", lambda: 3 << 30)
    assert _memory.available_memory() == 1 << 30
    monkeypatch.setattr(_memory, "address_space_in_use", lambda: 5 << 30)
    assert _memory.available_memory() == 0


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="no /proc/self/statm")
def test_under_a_real_ulimit_v_the_memory_available_is_what_is_left(tmp_path):
    code = textwrap.dedent("""
        import resource
        from rankcore import _memory
        held = _memory.address_space_in_use()
        resource.setrlimit(resource.RLIMIT_AS, (held + (256 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
        print(_memory.available_memory(), held)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    available, held = (int(v) for v in done.stdout.split())
    assert held > 0 and available <= 256 << 20
