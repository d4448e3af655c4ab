"""``KernelRanker``'s default ``memory_budget`` is half the memory the process may use: in a container with a
memory limit, or under ``ulimit -v``, an m x m array sized by the host's memory would end the process (the
out-of-memory killer) or fail (``MemoryError``)."""

import subprocess
import sys

import pytest

from rankcore import _memory
from rankcore.rkhs._plan import default_memory_budget

GiB = 1 << 30


def fake_cgroups(tmp_path, proc_lines: str, files: dict):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "proc_cgroup").write_text(proc_lines)
    for name, text in files.items():
        path = tmp_path / "root" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "root", tmp_path / "proc_cgroup"


def test_cgroup_v2_smallest_limit_of_the_levels(tmp_path):
    root, proc = fake_cgroups(tmp_path, "0::/box/job\n",
                              {"box/job/memory.max": "max\n", "box/memory.max": f"{2 * GiB}\n", "memory.max": "max"})
    assert _memory.cgroup_memory_limit(root, proc) == 2 * GiB


def test_cgroup_v1_memory_controller_and_no_limit(tmp_path):
    root, proc = fake_cgroups(tmp_path, "5:cpu:/\n4:memory:/api/abc\n",
                              {"memory/api/abc/memory.limit_in_bytes": "9223372036854771712\n",
                               "memory/memory.limit_in_bytes": f"{GiB}\n"})
    assert _memory.cgroup_memory_limit(root, proc) == GiB
    root, proc = fake_cgroups(tmp_path / "none", "4:memory:/\n",
                              {"memory/memory.limit_in_bytes": "9223372036854771712\n"})
    assert _memory.cgroup_memory_limit(root, proc) is None
    assert _memory.cgroup_memory_limit(tmp_path / "missing", tmp_path / "missing_file") is None


def test_default_budget_is_half_a_container_limit(monkeypatch):
    monkeypatch.setattr(_memory, "cgroup_memory_limit", lambda: 2 * GiB)
    monkeypatch.setattr(_memory, "physical_memory", lambda: 64 * GiB)
    monkeypatch.setattr(_memory, "address_space_limit", lambda: None)
    assert default_memory_budget() == GiB


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ulimit -v (RLIMIT_AS) as Linux enforces it")
def test_default_budget_under_ulimit_v_is_half_of_it():
    limit = 3 * GiB
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (%d, resource.RLIM_INFINITY)); "
            "from rankcore.rkhs._plan import default_memory_budget; print(default_memory_budget())") % limit
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) <= limit // 2
