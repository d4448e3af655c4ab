"""Ctrl-C reaches the long kernels (ExactBoost's runs, the bootstrap's replicates) while they run.

Each ran all its runs or replicates in one parallel loop without looking for a signal: a KeyboardInterrupt
waited for the end (18 s of a 32 s fit). The child interrupts itself 0.2 s into a kernel sized for seconds
and says where the KeyboardInterrupt was raised: inside the kernel, not after it returned.
"""

import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import signal, sys, threading, time, traceback, _thread
    # a runner that starts its jobs in the background (``cmd &`` without job control) hands them SIGINT ignored,
    # and ``interrupt_main`` then does nothing: Ctrl-C's own handler, as a terminal's process has it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    import rankcore
    from rankcore.metrics import confidence_interval

    from rankcore.exactboost import _bnb, _runs
    from rankcore.metrics import _resampling

    kind = sys.argv[1]
    rng = np.random.default_rng(0)
    module, name = (_bnb, "fit_runs") if kind == "exact" else (_resampling, "bootstrap_groups")
    kernel = getattr(module, name)

    def interrupted_kernel(*args, **kwargs):    # the interrupt comes 0.2 s into the kernel itself
        threading.Thread(target=lambda: (time.sleep(0.2), _thread.interrupt_main()), daemon=True).start()
        return kernel(*args, **kwargs)

    setattr(module, name, interrupted_kernel)
    if kind == "exact":
        X = rng.normal(size=(30000, 30))
        y = (X[:, 0] + rng.normal(size=30000) > 1).astype(int)
        run = lambda: rankcore.ExactBoost(n_runs=400, n_rounds=60, random_state=0, n_jobs=2).fit(X, y)
    else:
        s = rng.normal(size=1_000_000)
        y = (s + rng.normal(size=1_000_000) > 1).astype(int)
        run = lambda: confidence_interval(y, s, "pauc:0.1", n_boot=20000, random_state=0, n_jobs=2)
    try:
        run()
        print("finished")
    except KeyboardInterrupt:
        print("interrupted in", [frame.name for frame in traceback.extract_tb(sys.exc_info()[2])][-1])
""")


@pytest.mark.parametrize("kind, kernel", [("exact", "_bnb.fit_runs"), ("bootstrap", "bootstrap_groups")])
def test_a_long_kernel_stops_on_ctrl_c(kind, kernel):
    done = subprocess.run([sys.executable, "-c", CHILD, kind], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().startswith("interrupted in ") and done.stdout.strip().endswith(kernel), (
        done.stdout + done.stderr[-2000:])
