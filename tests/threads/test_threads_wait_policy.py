"""``import rankcore`` loads the OpenMP runtime with sleeping waiting threads, unless the user chose a policy.

Each case runs in a fresh interpreter: the runtime reads its wait policy once,
when it loads.  ``OMP_DISPLAY_ENV=VERBOSE`` makes GNU libgomp print what it
read: how many times a waiting thread polls before it sleeps
(``GOMP_SPINCOUNT``; 0 under the passive policy, 300,000 by default).
"""

import os
import re
import subprocess
import sys

import pytest

from rankcore._wait_policy import USER_SETTINGS

# prints the environment's variable after the import, and what a child process inherits
_CODE = """
import os, subprocess, sys
import rankcore
print("parent:", os.environ.get("OMP_WAIT_POLICY"))
child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('OMP_WAIT_POLICY'))"],
                       capture_output=True, text=True, check=True)
print("child:", child.stdout.strip())
"""


def _import_rankcore(**env):
    """The spin count libgomp read, and the script's output."""
    clean = {k: v for k, v in os.environ.items() if k not in USER_SETTINGS and k != "OMP_DISPLAY_ENV"}
    out = subprocess.run([sys.executable, "-c", _CODE], env={**clean, "OMP_DISPLAY_ENV": "VERBOSE", **env},
                         capture_output=True, text=True, check=True)
    shown = re.search(r"GOMP_SPINCOUNT = '(\d+)'", out.stderr)
    if shown is None:
        pytest.skip("the OpenMP runtime is not GNU libgomp: it does not display its spin count")
    return int(shown.group(1)), out.stdout.splitlines()


def test_wait_policy_passive_by_default():
    spins, stdout = _import_rankcore()
    assert spins == 0
    # the variable was set only while the runtime loaded: the user's environment and children are untouched
    assert stdout == ["parent: None", "child: None"]


def test_wait_policy_active_of_the_user_is_kept():
    spins, stdout = _import_rankcore(OMP_WAIT_POLICY="active")
    assert spins > 300_000
    assert stdout == ["parent: active", "child: active"]


def test_wait_policy_spin_count_of_the_user_is_kept():
    spins, stdout = _import_rankcore(GOMP_SPINCOUNT="10000")
    assert spins == 10_000
    assert stdout == ["parent: None", "child: None"]
