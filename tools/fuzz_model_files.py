"""Fuzz model files: hostile edits of every estimator's saved state, loaded and used in a subprocess.

Each case is a model file of a small fitted estimator whose decoded state (or parameters) was changed at
random, then re-signed as a deliberate editor would.  A worker process loads it and calls
``decision_function``, ``predict``, ``feature_contributions`` and the exports; a crash (a signal), a hang,
a non-finite score or an exception other than ``ValueError``/``TypeError``/``ModelFormatError`` is a
defect.  The worker runs in its own process so that a segfault is caught by its return code.

Usage::

    python tools/fuzz_model_files.py --seed 0 --cases 200 [--kinds PushBoost-trees,...] [--timeout 20]

Prints one line per defect and the outcome counts per kind.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time

import numpy as np

#: Replacement values for a scalar or a list element: odd types, out-of-range and non-finite numbers.
_ODD = [None, True, "x", "", [], {}, -1, 0, 1, 2, 3, 2 ** 31, 2 ** 31 - 1, -2 ** 31, 2 ** 63 - 1, -2 ** 63,
        10 ** 12, 1e300, -1e300, 0.5, {"__float__": "nan"}, {"__float__": "inf"}, {"__float__": "-inf"}, [1, 2]]
_ARRAY_VALUES = [np.nan, np.inf, -np.inf, -1, -2, 2 ** 31, 2 ** 31 - 1, 2 ** 62, 10 ** 12, 1e300, 0, 1, 255, -128]


def _data(kind: str):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    if "cat" in kind:
        X[:, 2] = rng.integers(0, 6, size=60)
        return X, (np.isin(X[:, 2], [1, 4]) | (X[:, 0] > 1)).astype(int)
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    return X, y


def _fitted(kind: str):
    """A small fitted estimator of ``kind``."""
    import rankcore
    from rankcore.auto import AutoRanker
    from rankcore.exactboost import ExactBoost
    from rankcore.precision_at_k import PerceptronAtK, SGDAtK
    from rankcore.push import PNormPush, PushBoost, RankBoost
    from rankcore.rkhs import KernelRanker

    X, y = _data(kind)
    trees = "trees:max_leaves=4,min_samples_leaf=3,subsample=1"
    makers = {
        "PushBoost-stumps": lambda: PushBoost(n_iter=3, random_state=0),
        "PNormPush-thresholds": lambda: PNormPush(learner="thresholds", n_iter=3, random_state=0),
        "RankBoost-features": lambda: RankBoost(learner="features", n_iter=3, random_state=0),
        "PushBoost-leafwise": lambda: PushBoost(learner=trees, n_iter=3, random_state=0),
        "PushBoost-depthwise": lambda: PushBoost(learner=trees + ",growth=depthwise", n_iter=3, random_state=0),
        "PushBoost-oblivious": lambda: PushBoost(learner="trees:growth=oblivious,max_depth=2,min_samples_leaf=3",
                                                 n_iter=3, random_state=0),
        "PushBoost-cat": lambda: PushBoost(learner=trees + ",categorical=2", n_iter=3, random_state=0),
        "PushBoost-monotone": lambda: PushBoost(learner=trees + ",monotone=1/0/-1/0", n_iter=3, random_state=0),
        "PerceptronAtK": lambda: PerceptronAtK(k=5, n_epochs=2, batch_size=20, random_state=0),
        "SGDAtK": lambda: SGDAtK(k=5, n_epochs=2, batch_size=20, random_state=0),
        "ExactBoost": lambda: ExactBoost(n_runs=2, n_rounds=3, random_state=0),
        "ExactBoost-prec": lambda: ExactBoost(metric="prec@k:5", n_runs=2, n_rounds=3, random_state=0),
        "AutoRanker": lambda: AutoRanker(candidates=["trees:n_iter=3", "linear:n_epochs=2", "kernel"],
                                         random_state=0, n_jobs=1),
        "AutoRanker-trees": lambda: AutoRanker(candidates=["trees:n_iter=3", "stumps:n_iter=3"], random_state=0,
                                               n_jobs=1, blend=False),
        "CentroidRanker": lambda: _plugin_estimator(),
    }
    for name in ("tikhonov", "iterated", "cutoff", "landweber", "showalter"):
        makers[f"KernelRanker-{name}"] = (lambda name=name: KernelRanker(filter=name, lam=0.1, random_state=0))
    if kind == "PushBoost-qid":
        qid = np.repeat(np.arange(6), 10)
        return rankcore.boost(learner=trees, n_iter=3, random_state=0).fit(X, y, qid=qid), X
    if kind == "PushBoost-init":
        first = PushBoost(learner=trees, n_iter=2, random_state=0).fit(X, y)
        return PushBoost(learner=trees, n_iter=2, random_state=0).fit(X, y, init_model=first), X
    return makers[kind]().fit(X, y), X


def _plugin_estimator():
    from rankcore.persistence import ESTIMATORS

    return ESTIMATORS.estimator_class("CentroidRanker")()


KINDS = ("PushBoost-stumps", "PNormPush-thresholds", "RankBoost-features", "PushBoost-leafwise",
         "PushBoost-depthwise", "PushBoost-oblivious", "PushBoost-cat",
         "PushBoost-monotone", "PushBoost-qid", "PushBoost-init", "PerceptronAtK", "SGDAtK", "ExactBoost",
         "ExactBoost-prec", "AutoRanker", "AutoRanker-trees", "CentroidRanker",
         "KernelRanker-tikhonov", "KernelRanker-iterated", "KernelRanker-cutoff", "KernelRanker-landweber",
         "KernelRanker-showalter")


# --------------------------------------------------------------------------
# Mutations of the decoded state
# --------------------------------------------------------------------------


def _paths(value, path=()):
    """Every (path, value) below ``value``: dict keys and list indices."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, path + (i,))


def _set(root, path, new):
    for key in path[:-1]:
        root = root[key]
    root[path[-1]] = new


def _mutated_array(rng, arr):
    choice = rng.integers(9)
    flat = arr.reshape(-1).copy()
    if choice == 0 and flat.size:                           # one element to an odd value
        value = _ARRAY_VALUES[rng.integers(len(_ARRAY_VALUES))]
        with np.errstate(all="ignore"):
            try:
                flat[rng.integers(flat.size)] = value
            except (OverflowError, ValueError):
                flat = flat.astype(np.float64)
                flat[rng.integers(flat.size)] = value
        return flat.reshape(arr.shape)
    if choice == 1:                                         # shorter
        return arr[: max(0, arr.shape[0] - 1 - rng.integers(3))] if arr.ndim else arr
    if choice == 2 and arr.ndim:                            # longer
        return np.concatenate([arr, arr[:1] if arr.shape[0] else np.zeros((1,) + arr.shape[1:], arr.dtype)])
    if choice == 3:                                         # another dtype
        dtypes = [np.float64, np.int64, np.int32, np.uint8, np.bool_, np.float32, np.int8]
        with np.errstate(all="ignore"):
            return arr.astype(dtypes[rng.integers(len(dtypes))])
    if choice == 4:                                         # flattened or given an axis
        return flat if arr.ndim != 1 else flat[:, None]
    if choice == 5 and flat.size:                           # every element to an odd value
        value = _ARRAY_VALUES[rng.integers(len(_ARRAY_VALUES))]
        with np.errstate(all="ignore"):
            return np.full(arr.shape, value).astype(arr.dtype) if rng.integers(2) else np.full(arr.shape, value)
    if choice == 6 and flat.size:                           # shuffled (cycles in child indices)
        return rng.permutation(flat).reshape(arr.shape)
    if choice == 7:
        return np.zeros((0,) + arr.shape[1:], arr.dtype)
    if choice == 8 and flat.size and arr.dtype.kind in "iu":  # off by a small amount
        with np.errstate(all="ignore"):
            flat[rng.integers(flat.size)] += rng.integers(-3, 4)
        return flat.reshape(arr.shape)
    return arr


def _mutate_value(rng, value):
    if isinstance(value, np.ndarray):
        return _mutated_array(rng, value)
    if isinstance(value, list) and value and rng.integers(2):
        out = list(value)
        op = rng.integers(3)
        if op == 0:
            out.pop(rng.integers(len(out)))
        elif op == 1:
            out.append(copy.deepcopy(out[rng.integers(len(out))]))
        else:
            out = out[::-1]
        return out
    if isinstance(value, dict) and value and rng.integers(2):
        out = dict(value)
        out.pop(list(out)[rng.integers(len(out))])
        return out
    if isinstance(value, (int, float)) and not isinstance(value, bool) and rng.integers(2):
        return value * [-1, 2, 10 ** 6, 0][int(rng.integers(4))] + int(rng.integers(-2, 3))
    return copy.deepcopy(_ODD[rng.integers(len(_ODD))])


def mutate(rng, data: dict) -> dict:
    """A copy of model file ``data`` with one to three random edits of its state (or params), re-signed."""
    from rankcore.persistence import _checksum, _decode, _encode

    data = copy.deepcopy(data)
    section = "params" if rng.random() < 0.1 else "state"
    state = _decode(data[section], section)
    for _ in range(1 + (rng.integers(3) if rng.random() < 0.3 else 0)):
        paths = [p for p, _ in _paths(state) if p]
        if not paths:
            break
        path = paths[rng.integers(len(paths))]
        value = state
        for key in path:
            value = value[key]
        _set(state, path, _mutate_value(rng, value))
    try:
        data[section] = _encode(state, section)
    except (TypeError, ValueError):
        return data
    return _signed(data, _checksum)


def _signed(value, checksum):
    """``value`` with every model file in it (the members of an AutoRanker's bag) signed again, inner first."""
    if isinstance(value, list):
        return [_signed(v, checksum) for v in value]
    if not isinstance(value, dict):
        return value
    value = {k: _signed(v, checksum) for k, v in value.items()}
    if value.get("format") == "rankcore-model" and "sha256" in value:
        value.pop("sha256")
        value["sha256"] = checksum(value)
    return value


_TARGETED = [np.nan, np.inf, -np.inf, 1e308, -1e308, -1, -2, 0, 1, 2 ** 31, 2 ** 31 - 1, 2 ** 63 - 1, 10 ** 12,
             None, "x", True, [], {}]


def _targeted_edits(state):
    """Every single edit of a fixed list: each scalar and the first, second and last element of each sequence."""
    for path, value in list(_paths(state)):
        if not path:
            continue
        if isinstance(value, (np.ndarray, list)):
            n = len(value) if isinstance(value, list) else (value.shape[0] if value.ndim else 0)
            for i in sorted({0, 1, n - 1} & set(range(n))):
                for new in _TARGETED:
                    yield path, ("item", i, new)
            yield path, ("whole", value[:-1] if n else value)
            yield path, ("whole", np.zeros(10 ** 3) if isinstance(value, np.ndarray) else [0] * 1000)
        else:
            for new in _TARGETED:
                yield path, ("whole", new)
        if isinstance(value, dict):
            for key in value:
                yield path, ("drop", key, None)


def targeted(data: dict, section: str = "state"):
    """Model files of ``data`` each with one targeted edit of its state, re-signed."""
    from rankcore.persistence import _checksum, _decode, _encode

    base = _decode(data[section], section)
    for path, edit in _targeted_edits(base):
        state = copy.deepcopy(base)
        holder = state
        for key in path[:-1]:
            holder = holder[key]
        value = holder[path[-1]]
        if edit[0] == "whole":
            holder[path[-1]] = copy.deepcopy(edit[1])
        elif edit[0] == "drop":
            del value[edit[1]]
        else:
            _, i, new = edit
            if isinstance(value, np.ndarray):
                value = value.astype(object) if value.ndim == 1 and not isinstance(new, (int, float)) else value
                try:
                    with np.errstate(all="ignore"):
                        value[i] = new
                except (OverflowError, ValueError, TypeError):
                    value = value.astype(np.float64 if isinstance(new, float) else object)
                    try:
                        value[i] = new
                    except (ValueError, TypeError):     # a row of a matrix given a list: not an edit
                        continue
                if value.dtype == object:
                    value = value.tolist()
            else:
                value[i] = copy.deepcopy(new)
            holder[path[-1]] = value
        out = copy.deepcopy(data)
        try:
            out[section] = _encode(state, section)
        except (TypeError, ValueError):
            continue
        yield f"{'.'.join(map(str, path))} {str(edit)[:60]}", _signed(out, _checksum)


# --------------------------------------------------------------------------
# The worker: one process running many cases, reporting each
# --------------------------------------------------------------------------

#: A non-finite number written into an export (LightGBM's text writes nan/inf, JSON NaN/Infinity).
_NON_FINITE = re.compile(r"(?<![\w.])-?(nan|inf|infinity)(?![\w.])", re.IGNORECASE)
_ALLOWED = ("ModelFormatError", "ValueError", "TypeError")


def _use(model, X) -> str:
    """Score, predict, explain and export; the first non-finite score or refusal says the outcome."""
    import warnings

    from rankcore.persistence import ModelFormatError

    outcome = "ok"
    steps = [("decision_function", lambda: model.decision_function(X))]
    if hasattr(model, "predict"):                   # a ranker has none (its AttributeError says so)
        steps.append(("predict", lambda: model.predict(X)))
    if hasattr(model, "feature_contributions"):
        steps.append(("feature_contributions", lambda: model.feature_contributions(X[:5])))
    for name in ("to_lightgbm", "to_xgboost_json"):
        if hasattr(model, name):
            steps.append((name, getattr(model, name)))
    for name, step in steps:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = step()
        except (ModelFormatError, ValueError, TypeError, NotImplementedError, FloatingPointError) as exc:
            # FloatingPointError: scores that overflow, as decision_function documents
            outcome = f"refused-at-{name}: {str(exc)[:150]}" if outcome == "ok" else outcome
            continue
        if name in ("decision_function", "feature_contributions") and not np.isfinite(np.asarray(value)).all():
            return f"DEFECT nonfinite {name}"
        if isinstance(value, str) and _NON_FINITE.search(value):
            return f"DEFECT non-finite-in-export {name}: {_NON_FINITE.search(value).group(0)}"
    return outcome


def worker(cases_path: str) -> None:
    import resource
    import traceback

    from rankcore.persistence import ModelFormatError, model_from_dict

    # a declared length of 10^12 must be refused, not allocated: cap the address space
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    start = int(sys.argv[sys.argv.index("--start") + 1])
    with open(cases_path) as fh:
        cases = [json.loads(line) for line in fh]
    X_by_kind = {}
    for i in range(start, len(cases)):
        kind, data = cases[i]["kind"], cases[i]["data"]
        print(f"start {i}", flush=True)
        X = X_by_kind.setdefault(kind, _data(kind)[0])
        try:
            model = model_from_dict(data)
        except ModelFormatError:
            outcome = "refused"
        except Exception as exc:  # noqa: BLE001 -- the point is to see them all
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            outcome = f"DEFECT load {type(exc).__name__}: {str(exc)[:120]} @{os.path.basename(tb.filename)}:{tb.lineno}"
        else:
            try:
                outcome = _use(model, X)
            except Exception as exc:  # noqa: BLE001
                tb = traceback.extract_tb(exc.__traceback__)[-1]
                outcome = (f"DEFECT use {type(exc).__name__}: {str(exc)[:120]} "
                           f"@{os.path.basename(tb.filename)}:{tb.lineno}")
        print(f"done {i} {outcome}", flush=True)


def _run(cases_path: str, n: int, timeout: float) -> dict[int, str]:
    """Run every case in workers, restarting after a crash or a hang; the outcome of each."""
    outcomes: dict[int, str] = {}
    start = 0
    while start < n:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", cases_path, "--start", str(start)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        current = start
        last = time.monotonic()
        while True:
            if not sel.select(timeout=1.0):
                if time.monotonic() - last > timeout:
                    proc.kill()
                    proc.wait()
                    outcomes[current] = "DEFECT hang"
                    break
                continue
            line = proc.stdout.readline()
            if not line:
                rc = proc.wait()
                if current not in outcomes:
                    outcomes[current] = f"DEFECT crash rc={rc}" + (f" signal={-rc}" if rc < 0 else "")
                break
            last = time.monotonic()
            word, index, *rest = line.rstrip("\n").split(" ", 2)
            current = int(index)
            if word == "done":
                outcomes[current] = rest[0]
        proc.stdout.close()
        start = max(outcomes) + 1 if outcomes else start + 1
    return outcomes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=100, help="cases per kind")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds without progress that is a hang")
    parser.add_argument("--targeted", action="store_true", help="the single edits of a fixed list, not random")
    parser.add_argument("--verbose", action="store_true", help="show the refusals after a load")
    parser.add_argument("--worker")
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    rng = np.random.default_rng(args.seed)
    kinds = args.kinds.split(",")
    fd, path = tempfile.mkstemp(prefix="fuzz_model_files_", suffix=".jsonl")
    os.close(fd)
    try:
        return _fuzz(args, rng, kinds, path)
    finally:
        os.unlink(path)


def _fuzz(args, rng, kinds, path) -> int:
    """Write the cases to ``path``, run them and report: 1 when there is a defect."""
    from rankcore.persistence import model_to_dict

    n = 0
    with open(path, "w") as fh:
        for kind in kinds:
            base = json.loads(json.dumps(model_to_dict(_fitted(kind)[0])))
            if args.targeted:
                cases = targeted(base)
            else:
                cases = ((None, mutate(rng, base)) for _ in range(args.cases))
            for label, data in cases:
                fh.write(json.dumps({"kind": kind, "label": label, "data": data}) + "\n")
                n += 1
    outcomes = _run(path, n, args.timeout)
    counts = collections.defaultdict(collections.Counter)
    defects = collections.Counter()
    with open(path) as fh:
        for i, line in enumerate(fh):
            case = json.loads(line)
            shown = case["kind"] if case["label"] is None else f"{case['kind']} [{case['label']}]"
            outcome = outcomes.get(i, "not-run")
            counts[case["kind"]][outcome.split(" ")[0].split(":")[0]] += 1
            if (args.verbose and outcome.startswith("refused-at")) or outcome.startswith("DEFECT"):
                defects[(case["kind"], outcome)] += outcome.startswith("DEFECT")
                if defects[(case["kind"], outcome)] <= 1:
                    print(f"case {i} {shown}: {outcome}")
    for kind in kinds:
        print(kind, dict(counts[kind]))
    return 1 if sum(defects.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
