"""The same fit in two fresh processes writes the same model files, whatever the threads and the hash seed.

Each process fits the documented cases (trees on one list and within queries,
the push with stumps at p = 1 and p = 16, SGD@k, the kernel ranker,
ExactBoost) with ``n_jobs`` left at None and prints the sha256 of every saved
file; one process runs on one OpenMP thread, the other on two, each with its
own ``PYTHONHASHSEED`` and NumPy global seed.
"""

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rankcore

SCRIPT = textwrap.dedent("""
    import hashlib, json, sys
    import numpy as np
    import rankcore
    from rankcore import _cpus

    _cpus.LOAD_AWARE = False          # two threads really run, even on a busy machine
    np.random.seed(int(sys.argv[2]))  # the global generator must not matter
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 4))
    y = (X[:, 0] + rng.normal(size=240) > 0.8).astype(int)
    qid = np.repeat(np.arange(12), 20)
    grades = np.clip(np.round(X[:, 1] + rng.normal(size=240)), 0, 3).astype(int)
    models = {
        "trees": (rankcore.boost(learner="trees", n_iter=8, random_state=0), y, None),
        "trees_qid": (rankcore.boost(learner="trees", n_iter=8, random_state=0), grades, list(qid)),
        "push_p1": (rankcore.boost(price="pow:1", n_iter=15, random_state=0), y, None),
        "push_p16": (rankcore.boost(price="pow:16", n_iter=15, random_state=0), y, None),
        "sgd": (rankcore.SGDAtK(random_state=0), y, None),
        "kernel": (rankcore.KernelRanker(random_state=0), y, None),
        "exactboost": (rankcore.ExactBoost(n_runs=3, random_state=0), y, None),
    }
    digests = {}
    for name, (model, labels, queries) in models.items():
        model.fit(X, labels) if queries is None else model.fit(X, labels, qid=queries)
        path = f"{sys.argv[1]}/{name}.json"
        rankcore.save_model(model, path)
        with open(path, "rb") as file:
            digests[name] = hashlib.sha256(file.read()).hexdigest()
        scores = rankcore.load_model(path).decision_function(X)
        digests[name + " scores"] = hashlib.sha256(scores.tobytes()).hexdigest()
    print(json.dumps(digests))
""")


def _run(folder: Path, threads: int, hash_seed: str, global_seed: int) -> dict:
    folder.mkdir()
    root = os.path.dirname(os.path.dirname(os.path.abspath(rankcore.__file__)))
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONHASHSEED=hash_seed,
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), str(global_seed)], env=env, cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform == "win32", reason="OMP_NUM_THREADS and fork-free subprocesses as on Linux")
def test_two_processes_two_thread_counts_same_files(tmp_path):
    one = _run(tmp_path / "one", 1, "0", 0)
    two = _run(tmp_path / "two", 2, "12345", 99)
    assert one == two
    assert len(one) == 14
    assert hashlib.sha256(b"").hexdigest() not in one.values()
