"""rankcore on a system without Linux's facilities (macOS, Windows), simulated on Linux.

No ``/proc`` or ``/sys`` (CPU load, cgroup quotas, memory), no ``os.sched_getaffinity``, no ``resource``
module: rankcore must import, count its CPUs with ``os.cpu_count`` and fit the same model.  A fresh
interpreter, since the facilities are looked up at import and cached.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs before rankcore is imported: every Linux-only facility is taken away.
PRELUDE = textwrap.dedent("""
    import builtins, io, os, pathlib, sys
    sys.modules["resource"] = None              # import resource -> ImportError, as on Windows
    del os.sched_getaffinity                    # macOS and Windows have none

    def _linux_only(path):
        text = os.fsdecode(os.fspath(path)) if isinstance(path, (str, bytes, os.PathLike)) else ""
        if text.startswith(("/proc", "/sys")):
            raise FileNotFoundError(2, "No such file or directory (simulated)", text)

    def _guarded(function):
        def guarded(path, *args, **kwargs):
            _linux_only(path)
            return function(path, *args, **kwargs)
        return guarded

    builtins.open = io.open = _guarded(builtins.open)
    os.open, os.listdir, os.stat = _guarded(os.open), _guarded(os.listdir), _guarded(os.stat)
    _read_text, _read_bytes = pathlib.Path.read_text, pathlib.Path.read_bytes
    pathlib.Path.read_text = lambda self, *a, **k: (_linux_only(self), _read_text(self, *a, **k))[1]
    pathlib.Path.read_bytes = lambda self, *a, **k: (_linux_only(self), _read_bytes(self, *a, **k))[1]
""")

FIT = textwrap.dedent("""
    import numpy as np
    import rankcore
    assert rankcore.__file__.startswith(sys.argv[1]), rankcore.__file__
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + rng.normal(size=200) > 0.5).astype(int)
    scores = rankcore.PushBoost(n_iter=10, learner="trees", random_state=0).fit(X, y).decision_function(X)
    print(repr(scores.round(12).tolist()))
""")


# Only where the facilities are gone: the CPUs are os.cpu_count's, the load and the address-space limit unknown.
CHECKS = textwrap.dedent("""
    from rankcore import _cpus, _memory
    assert _cpus.available_cpus() == (os.cpu_count() or 1), _cpus.available_cpus()
    assert _cpus.other_running_threads() is None and _memory.address_space_limit() is None
""")


def _run(prelude):
    code = "import os, sys\n" + prelude + FIT
    done = subprocess.run([sys.executable, "-c", code, str(ROOT)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_fit_without_proc_affinity_or_resource():
    assert _run(PRELUDE + CHECKS) == _run("")
