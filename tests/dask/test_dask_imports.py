"""``rankcore.dask`` loads its public names on first use: a worker running a task of the package imports no more.

Run in a fresh interpreter: the test session has imported everything already.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_one_worker_fit_task_does_not_import_dask_dataframe():
    # a worker unpickling rankcore.dask._placement._fit_here imports the package rankcore.dask first
    code = ("import sys, rankcore.dask, rankcore.dask._placement; "
            "print(sorted(m for m in ('dask.dataframe', 'rankcore.auto', 'rankcore.dask._estimators') "
            "if m in sys.modules))")
    assert _run(code) == "[]"


def test_the_public_names_load_on_first_use():
    code = ("import rankcore.dask as rd; from rankcore.dask import DaskPushBoost, evaluate; "
            "print(DaskPushBoost.__module__, evaluate.__module__, sorted(rd.__all__) == sorted(dir(rd)) or "
            "set(rd.__all__) <= set(dir(rd)))\n"
            "try:\n    rd.NoSuchName\nexcept AttributeError as exc:\n    print(exc)")
    lines = _run(code).splitlines()
    assert lines[0] == "rankcore.dask._estimators rankcore.dask._metrics True"
    assert lines[1] == "module 'rankcore.dask' has no attribute 'NoSuchName'"
