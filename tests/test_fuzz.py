"""Fuzzing inside the suite: hostile inputs get the documented error or a valid result.

Each category is a bounded, derandomized hypothesis run (together about a
minute and a half on one core):

- the spec parser: random strings -> ``SpecError`` or a configured component;
- ``load_model``: random mutations of real model files of every estimator,
  re-signed (so only validation stands in the way) -> ``ModelFormatError`` or
  a model whose scores are finite;
- the CSV and LIBSVM readers: random bytes and lines -> ``DataError`` or a
  matrix without inf (NaN only for a missing value) with one label per row;
- the command line: random argv through ``main()`` in-process -> exit 0 or 2,
  a one-line error, never a traceback or exit 1;
- tree and head/tail ExactBoost model files: targeted edits of node indices
  (beyond int32 and int64), numbers, NaN flags, lengths and the head
  threshold, re-signed -> ``ModelFormatError``, or a model that reads exactly
  the indices and threshold the file holds (nothing wrapped) and scores finite;
- the trees' parameters on tiny, degenerate data (constant, one distinct row,
  duplicates, ties, NaN, 1e±200) -> a one-line error naming the parameter, or
  a model with finite scores that is never constant without a warning;
- fits within queries: query layouts (singletons, one query, interleaved),
  grades (one grade, binary, fractional, beyond 2^grade, negative), query
  ids (strings, NaN, huge), every per-query objective, learners, scoring,
  early stopping, an eval_set, a DataFrame with a category column and zero
  weights -> a one-line error, or a model with finite
  scores that is never constant without a warning and whose model file loads
  to the same scores;
- the estimators' parameters (ExactBoost, KernelRanker, PerceptronAtK,
  SGDAtK, PNormPush) on tiny, degenerate data -> a one-line error, or a
  model with finite scores whose model file loads to the same scores;
- the LightGBM / XGBoost adapters: specs, ``n_jobs`` and the (labels, scores,
  weights) the libraries pass -> a one-line error or finite gradients,
  curvatures and metric values; a few real trainings with both libraries.

Each test prints how many cases it tried (``pytest -s tests/test_fuzz.py``).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import io
import json
import math
import os
import tempfile
import warnings

import numpy as np
import pytest
from _model_files import KINDS, model_dict, resign, sample_matrix
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.cli.datasets import DataError, load_data
from rankcore.persistence import ModelFormatError, model_from_dict, model_to_dict
from rankcore.registry import FAMILIES
from rankcore.spec import SpecError

_BASE = settings(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                        HealthCheck.function_scoped_fixture])


def fuzz(max_examples: int) -> settings:
    """Deterministic (derandomized, no example database) and bounded."""
    return settings(_BASE, max_examples=max_examples)


def _report(category: str, tried: int) -> None:
    print(f"\nfuzz {category}: {tried} cases")


# --------------------------------------------------------------------------
# The spec parser
# --------------------------------------------------------------------------

_NAMES = sorted({name for family in FAMILIES for name in rankcore.get_registry().names(family)})
_PIECES = st.sampled_from(["", ":", ",", "=", " ", "0", "1", "-1", "1.5", "1e308", "1e-320", "nan", "inf", "-inf",
                           "true", "scale", "p", "k", "gamma", "degree", "nu", "x", "(", "'", "\\", "\x00", "é",
                           "9" * 400, "a" * 200])
_SPECS = st.one_of(
    st.text(max_size=60),
    st.builds(lambda name, parts: name + "".join(parts), st.sampled_from(_NAMES), st.lists(_PIECES, max_size=8)),
    st.builds(lambda name, args: f"{name}:{','.join(args)}", st.sampled_from(_NAMES),
              st.lists(st.one_of(_PIECES, st.text(max_size=8),
                                 st.floats().map(repr), st.integers().map(str)), min_size=1, max_size=4)),
)


def test_fuzz_spec_parser():
    tried = {"n": 0}

    @fuzz(1500)
    @given(family=st.sampled_from(list(FAMILIES)), spec=_SPECS)
    def check(family, spec):
        tried["n"] += 1
        try:
            component = rankcore.get_registry().resolve(family, spec)
        except SpecError as exc:
            message = str(exc)
            assert "\n" not in message.strip() or "\n" in spec, message
            assert len(message) < 2_000 + 2 * len(_NAMES) * 20, len(message)
            return
        # a valid component: its spec round-trips
        again = rankcore.get_registry().resolve(family, component.spec)
        assert again.spec == component.spec

    check()
    _report("spec parser", tried["n"])
    assert tried["n"] >= 1500


# --------------------------------------------------------------------------
# load_model: mutations of real model files, re-signed
# --------------------------------------------------------------------------

_JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2, 10**9, 2**63, 0.0, -0.0, 1e308, -1e308, 1e-320, 0.5, 1.5]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "os.system", "auc", "exp", "pow:4", "stumps", "rbf", "tikhonov", "nan",
                     "__import__('os')", "graded", "bipartite", "n_iter", "converged"]),
    st.just({"__float__": "nan"}), st.just({"__float__": "inf"}), st.just({"__float__": "-inf"}),
    st.just([]), st.just({}), st.just([5, 5]), st.just([1, 0]),
)


def _paths(value, prefix=()):
    """Every path to a node of a JSON tree."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, prefix + (i,))


def _get(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _mutate_array(record: dict, how: int, seed: int) -> dict:
    shape, data = record.get("shape"), record.get("__ndarray__")
    if not (isinstance(data, str) and isinstance(shape, list) and all(type(n) is int for n in shape)):
        return record  # already broken by an earlier mutation
    try:
        raw = bytearray(base64.b64decode(data))
    except ValueError:
        return record
    rng = np.random.default_rng(seed)
    out = dict(record)
    if how == 0 and raw:  # flip bytes: NaN, inf, huge or negated values, out-of-range indices
        for _ in range(1 + seed % 4):
            raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
    elif how == 1:  # a wrong shape
        out["shape"] = [int(s) + int(rng.integers(-1, 2)) for s in record["shape"]] or [1]
    elif how == 2:  # another dtype
        out["dtype"] = str(rng.choice(["<f8", "<f4", "<i8", "|u1", "|b1", "<c16", "object"]))
    elif how == 3 and raw:  # truncated data
        raw = raw[: int(rng.integers(len(raw)))]
    elif how == 4 and record.get("dtype") == "<f8" and raw and len(raw) % 8 == 0:  # one value made extreme
        values = np.frombuffer(bytes(raw), dtype="<f8").copy()
        values[int(rng.integers(values.size))] = rng.choice([np.nan, np.inf, -np.inf, 1e308, -1e308, 1e200, 0.0])
        raw = bytearray(values.tobytes())
    out["__ndarray__"] = base64.b64encode(bytes(raw)).decode("ascii")
    return out


_MUTATIONS = st.lists(
    st.tuples(st.sampled_from(["replace", "delete", "insert", "array", "duplicate"]),
              st.integers(min_value=0, max_value=10**6), _JSON_LEAVES, st.integers(0, 4)),
    min_size=1, max_size=3,
).filter(bool) | st.tuples(  # one value of one array made extreme: the model may stay loadable
    st.just("array"), st.integers(min_value=0, max_value=10**6), st.none(), st.just(4)).map(lambda m: [m])


def _apply(data: dict, mutations) -> dict:
    for kind, pick, leaf, how in mutations:
        leaf = copy.deepcopy(leaf)  # st.just() shares one object between examples
        paths = [p for p in _paths(data) if p and p[0] in ("params", "state", "estimator", "format_version")]
        path = paths[pick % len(paths)]
        parent, key = _get(data, path[:-1]), path[-1]
        node = parent[key]
        if kind == "array":
            arrays = [p for p in paths if isinstance(_get(data, p), dict) and "__ndarray__" in _get(data, p)]
            if arrays:
                target = arrays[pick % len(arrays)]
                _get(data, target[:-1])[target[-1]] = _mutate_array(_get(data, target), how, pick)
                continue
        if kind == "delete" and isinstance(parent, dict):
            del parent[key]
        elif kind == "insert" and isinstance(node, dict):
            node[f"extra{how}"] = leaf
        elif kind == "insert" and isinstance(node, list):
            node.insert(pick % (len(node) + 1), leaf)
        elif kind == "duplicate" and isinstance(parent, list) and parent:
            parent.append(parent[pick % len(parent)])
        else:
            parent[key] = leaf
    return data


def test_fuzz_load_model():
    tried = {"n": 0, "refused": 0, "loaded": 0}
    silent_non_finite: list[str] = []
    X = sample_matrix()

    @fuzz(2500)
    @given(kind=st.sampled_from(KINDS), mutations=_MUTATIONS)
    def check(kind, mutations):
        tried["n"] += 1
        data = resign(_apply(model_dict(kind), mutations))
        # through the file path too: JSON text, size and nesting limits
        text = json.dumps(data)
        try:
            model = model_from_dict(json.loads(text), source=kind)
        except ModelFormatError as exc:
            tried["refused"] += 1
            assert str(exc).strip() and "\n" not in str(exc), str(exc)
            return
        tried["loaded"] += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                scores = model.decision_function(X)
            except (ValueError, ArithmeticError) as exc:  # a clear refusal is fine
                assert str(exc).strip()
                return
        if not np.isfinite(np.asarray(scores, dtype=np.float64)).all():
            silent_non_finite.append(f"{kind}: {mutations!r}"[:300])

    check()
    _report("load_model", tried["n"])
    print(f"fuzz load_model: {tried['refused']} refused with ModelFormatError, {tried['loaded']} loaded; "
          f"{len(silent_non_finite)} loaded models scored non-finite values silently")
    assert tried["n"] >= 2500 and tried["refused"] > 0 and tried["loaded"] > 0
    assert not silent_non_finite, (f"{len(silent_non_finite)} models scored non-finite values silently, "
                                   f"e.g. {silent_non_finite[0]}")


# --------------------------------------------------------------------------
# The CSV and LIBSVM readers
# --------------------------------------------------------------------------

_CSV_CELLS = st.sampled_from(["0", "1", "-1", "1.5", "1e308", "-1e308", "1e309", "nan", "NA", "", "?", "x", " 2 ",
                              "0x10", "1_000", "inf", '"3"', '"a,b"', "é", "\x00", "1e-320", "2,3", ";", "\t"])
_CSV_LINES = st.lists(st.lists(_CSV_CELLS, min_size=0, max_size=5).map(",".join), min_size=0, max_size=8)
_SVM_ITEMS = st.one_of(
    st.builds(lambda i, v: f"{i}:{v}", st.sampled_from(["0", "1", "2", "3", "-1", "x", "", "10", "999999",
                                                        "1000001", "2000000000", "1e3", "qid"]),
              st.sampled_from(["1", "0", "-2.5", "nan", "inf", "1e308", "x", "", "1e-320"])),
    st.sampled_from(["#", "# c", "qid:3", ":", "::", "1", "-1", "+1"]),
)
_SVM_LINES = st.lists(st.lists(_SVM_ITEMS, min_size=0, max_size=6).map(" ".join), min_size=0, max_size=8)
_NUMBERS = st.one_of(st.integers(-5, 5).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
                     st.sampled_from(["1e308", "-0.0", "1e-320", "5e-324", "1.7976931348623157e308"]))
# Mostly well-formed files, so that the valid side of the contract is exercised too.
_GOOD_SVM_LINES = st.lists(
    st.builds(lambda label, items: " ".join([label] + [f"{i}:{v}" for i, v in sorted(items.items())]),
              st.sampled_from(["0", "1", "-1", "+1", "2.5"]),
              st.dictionaries(st.integers(0, 12), _NUMBERS, max_size=4)),
    min_size=1, max_size=6)
_GOOD_CSV = st.integers(1, 4).flatmap(lambda d: st.tuples(
    st.just(",".join([f"f{j}" for j in range(d)] + ["label"])),
    st.lists(st.lists(_NUMBERS, min_size=d + 1, max_size=d + 1).map(",".join), min_size=1, max_size=6)))


def _check_dataset(data, n_features=None):
    assert data.X.ndim == 2 and data.X.shape[0] >= 1 and data.X.shape[1] >= 1
    # finite, or NaN for a missing value (never inf); the CSV readers' agreement on which
    # cells are missing is tested in test_cli_datasets.py
    assert data.X.dtype == np.float64 and not np.isinf(data.X).any()
    assert data.y is None or data.y.shape == (data.X.shape[0],)
    if n_features is not None:
        assert data.X.shape[1] == n_features


def test_fuzz_data_readers():
    tried = {"csv": 0, "libsvm": 0, "bytes": 0, "valid": 0}

    @fuzz(1000)
    @given(fmt=st.sampled_from(["csv", "libsvm", "bytes-csv", "bytes-libsvm", "good-csv", "good-libsvm",
                                "good-csv", "good-libsvm"]),
           good_csv=_GOOD_CSV, good_svm=_GOOD_SVM_LINES,
           header=st.lists(st.sampled_from(["a", "b", "label", "", "a", "x y", '"q"', "label"]), max_size=5),
           csv_lines=_CSV_LINES, svm_lines=_SVM_LINES, raw=st.binary(max_size=200),
           n_features=st.sampled_from([None, None, 1, 3, 13]), gz=st.sampled_from([False, False, False, True]))
    def check(fmt, good_csv, good_svm, header, csv_lines, svm_lines, raw, n_features, gz):
        if fmt == "good-csv":
            tried["csv"] += 1
            payload = "\n".join([good_csv[0], *good_csv[1]]).encode("utf-8")
        elif fmt == "good-libsvm":
            tried["libsvm"] += 1
            payload = "\n".join(good_svm).encode("utf-8")
        elif fmt == "csv":
            tried["csv"] += 1
            payload = "\n".join([",".join(header), *csv_lines]).encode("utf-8")
        elif fmt == "libsvm":
            tried["libsvm"] += 1
            payload = "\n".join(svm_lines).encode("utf-8")
        else:
            tried["bytes"] += 1
            payload = raw
        suffix = ".csv" if "csv" in fmt else ".svm"
        if gz:
            import gzip

            payload, suffix = (gzip.compress(payload) if len(payload) % 5 else payload[:5]), suffix + ".gz"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "data" + suffix)
            with open(path, "wb") as fh:
                fh.write(payload)
            try:
                data = load_data(path, n_features=n_features) if "svm" in suffix else load_data(path)
            except DataError as exc:
                message = str(exc)
                assert message.startswith(path) and "\n" not in message.strip(), message
                return
        tried["valid"] += 1
        _check_dataset(data, n_features if "svm" in suffix else None)

    check()
    total = tried["csv"] + tried["libsvm"] + tried["bytes"]
    _report("data readers", total)
    print(f"fuzz data readers: {tried['csv']} CSV, {tried['libsvm']} LIBSVM, {tried['bytes']} random-byte files; "
          f"{tried['valid']} valid matrices")
    assert total >= 1000 and tried["valid"] > 0


# --------------------------------------------------------------------------
# The command line, in-process
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """A tiny labelled CSV, one with missing values, a LIBSVM file, a broken file and a saved model."""
    from rankcore.cli import main

    root = tmp_path_factory.mktemp("cli-fuzz")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)
    with open(root / "d.csv", "w") as fh:
        fh.write("a,b,c,label\n")
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(",".join(map(repr, row)) + f",{label}\n")
    with open(root / "d.svm", "w") as fh:
        for row, label in zip(X.tolist(), y.tolist()):
            fh.write(f"{label} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n")
    (root / "bad.csv").write_text("a,label\n1,0\nx,1\n")
    with open(root / "nan.csv", "w") as fh:  # missing values: used by the trees learner, refused by the others
        fh.write("a,b,c,label\n")
        for i, (row, label) in enumerate(zip(X.tolist(), y.tolist())):
            cells = ["NA" if (i + j) % 7 == 0 else repr(v) for j, v in enumerate(row)]
            fh.write(",".join(cells) + f",{label}\n")
    (root / "deep.json").write_text("[" * 5000 + "]" * 5000)
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["fit", str(root / "d.csv"), "--n-iter", "3", "--out", str(root / "m.json"), "-q"]) == 0
    return root


_SUBCOMMANDS = ["fit", "score", "evaluate", "compare", "plugins", "demo", "nope", "--version", "--help", ""]
_VALUES = ["d.csv", "d.svm", "bad.csv", "nan.csv", "trees", "m.json", "deep.json", "missing.csv", "/dev/null", ".",
           "-", "",
           "0", "1", "2", "-1", "0.5", "1.5", "nan", "inf", "1e308", "x", "label", "a", "auc", "prec@k:5",
           "prec@k:nan", "pow:4", "pow:1e300", "exp", "stumps", "rbf:1e-320", "poly:degree=1e9", "iterated:1e308",
           "push", "exactboost", "rankboost", "sgd@k", "perceptron@k", "kernel", "json", "text", "markdown",
           "out.json", "out.csv", "r.html", "figs", "k=1", "n_jobs=0", "random_state=x", "x" * 300]
_OPTIONS = ["--label", "--positive", "--drop", "--format", "--model", "--loss", "--price", "--learner",
            "--objective", "--metric", "--metrics", "--monitor", "--kernel", "--filter", "--lam", "--gamma", "--k",
            "--param", "--random-state", "--n-jobs", "--n-iter", "--n-runs", "--out", "--out-dir", "--report",
            "--save-models", "--test", "--test-size", "--validation", "--table-format", "--family", "--max-fp",
            "--plot-objective", "--image-format"]
_FLAGS = ["--force", "-q", "--quiet", "--no-plots", "--json", "--with-label", "--rank", "--all-features",
          "--progress", "--debug-not", "--"]
_TOKENS = st.one_of(st.sampled_from(_VALUES), st.sampled_from(_OPTIONS), st.sampled_from(_FLAGS),
                    st.text(max_size=12))
_SLOW = {"--n-iter", "--n-runs"}


def _safe(argv: list[str]) -> list[str]:
    """Keep fits tiny: every iteration count is small, demo and compare draw nothing."""
    out = []
    for i, token in enumerate(argv):
        if i and argv[i - 1] in _SLOW and token.lstrip("-").replace(".", "").isdigit() and float(token) > 5:
            token = "3"
        out.append(token)
    if out and out[0] in ("fit", "compare", "demo"):
        out += ["--n-iter", "3"]
    if out and out[0] in ("compare", "demo"):
        out += ["--no-plots"]
    return out


def test_fuzz_cli_arguments(cli_files, monkeypatch):
    from rankcore.cli import main

    monkeypatch.chdir(cli_files)
    tried = {"n": 0, "ok": 0, "error": 0}

    @fuzz(1200)
    @given(command=st.sampled_from(_SUBCOMMANDS), tokens=st.lists(_TOKENS, max_size=6))
    def check(command, tokens):
        tried["n"] += 1
        argv = _safe([command, *tokens] if command else tokens)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                status = exc.code if isinstance(exc.code, int) else 2
        text = err.getvalue()
        assert status in (0, 2), (argv, status, text[-500:])
        assert "Traceback" not in text and "internal error" not in text, (argv, text[-500:])
        if status == 2:
            tried["error"] += 1
            lines = text.strip().split("\n")  # terminal lines: only "\n" ends one
            error_lines = [line for line in lines if "error:" in line]
            assert len(error_lines) == 1 or not text.strip(), (argv, text[-500:])
            if error_lines:
                assert error_lines[0] == lines[-1], (argv, text[-500:])
                assert error_lines[0].isprintable(), (argv, error_lines[0])
                assert len(error_lines[0]) < 1_000, (argv, len(error_lines[0]))
        else:
            tried["ok"] += 1
        for name in ("d.csv", "d.svm", "m.json"):  # inputs are never overwritten
            assert os.path.getsize(name) > 0

    check()
    _report("CLI arguments", tried["n"])
    print(f"fuzz CLI arguments: exit 0 in {tried['ok']}, exit 2 in {tried['error']}")
    assert tried["n"] >= 1200 and tried["error"] > 0 and tried["ok"] > 0


# --------------------------------------------------------------------------
# Tree and head/tail ExactBoost model files: indices and the gate
# --------------------------------------------------------------------------

_INDEX_VALUES = [-(2**63), -(2**32) - 1, -2, -1, 0, 1, 2, 3, 6, 7, 2**31 - 1, 2**31, 2**32, 2**32 + 3, 2**33,
                 2**62, 2**63, 2**64 + 1, 10**30]
_FLOAT_VALUES = [{"__float__": "nan"}, {"__float__": "inf"}, {"__float__": "-inf"}, -1e308, 1e308, 5e-324, -0.0,
                 0.5, -0.5, 1e15, -1e15, 3]
_TREE_INT_FIELDS = ("feature", "left", "right")
_TREE_FLOAT_FIELDS = ("threshold", "value", "gain")


def _edit_tree(data: dict, kind: str, pick: int, value) -> None:
    """One targeted edit of a tree record (an index, a number, a flag or a length) or of the head threshold."""
    state = data["state"]
    if kind == "ExactBoost-head-tail":
        if pick % 2 == 0 and isinstance(value, (int, float, dict)):
            state["head_threshold"] = value
        else:  # one stump value made extreme (features, thresholds, a, b), head or tail
            key = "stumps" if pick % 4 == 1 else "tail_stumps"
            state[key] = _mutate_array(state[key], 4 if pick % 3 else 0, pick)
        return
    trees = [r for r in state["rankers"] if isinstance(r, dict) and r.get("kind") == "tree"]
    if not trees:
        return
    tree = trees[pick % len(trees)]
    fields = _TREE_INT_FIELDS + _TREE_FLOAT_FIELDS + ("nan_left", "length")
    field = fields[(pick // 7) % len(fields)]
    if field == "length":
        column = tree[_TREE_INT_FIELDS[pick % 3]]
        if isinstance(column, list):
            column.pop() if pick % 2 and column else column.append(value)
        return
    column = tree.get(field)
    if isinstance(column, list) and column:
        column[(pick // 3) % len(column)] = value


def test_fuzz_tree_and_head_tail_model_files():
    """Indices beyond int32 and gates outside the head scores are refused; what loads reads what the file says."""
    tried = {"n": 0, "refused": 0, "loaded": 0}
    X = sample_matrix()

    @fuzz(800)
    @given(kind=st.sampled_from(["PushBoost-trees", "ExactBoost-head-tail"]),
           edits=st.lists(st.tuples(st.integers(0, 10**6),
                                    st.one_of(st.sampled_from(_INDEX_VALUES), st.sampled_from(_FLOAT_VALUES),
                                              st.sampled_from([True, False, None, "x", 2, -1]))),
                          min_size=1, max_size=3),
           generic=st.one_of(st.none(), _MUTATIONS))
    def check(kind, edits, generic):
        tried["n"] += 1
        data = model_dict(kind)
        for pick, value in edits:
            _edit_tree(data, kind, pick, copy.deepcopy(value))
        if generic is not None:
            data = _apply(data, generic)
        data = resign(data)
        try:
            model = model_from_dict(json.loads(json.dumps(data)), source=kind)
        except ModelFormatError as exc:
            tried["refused"] += 1
            assert str(exc).strip() and "\n" not in str(exc), str(exc)
            return
        tried["loaded"] += 1
        state = data["state"]
        if kind == "PushBoost-trees":   # no index wrapped on its way into the int32 arrays
            for record, ranker in zip(state["rankers"], model.rankers_):
                internal = [i for i, child in enumerate(record["left"]) if child >= 0]
                assert [record["feature"][i] for i in internal] == ranker.feature[internal].tolist(), record
                assert record["left"] == ranker.left.tolist() and record["right"] == ranker.right.tolist()
        else:                           # the gate is a head score some row can reach
            from rankcore.exactboost._estimator import _step_table

            head = _step_table(model.stumps_, model.run_lengths_)
            assert model.head_threshold_ == state["head_threshold"]
            assert head.min_score() - 1e-9 <= model.head_threshold_ <= head.max_score() + 1e-9
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                scores = model.decision_function(X)
            except (ValueError, ArithmeticError) as exc:   # a clear refusal of non-finite scores is fine
                assert str(exc).strip()
                return
        assert np.isfinite(scores).all()      # (finite but huge leaf values are a valid, if odd, model)

    check()
    _report("tree and head/tail model files", tried["n"])
    print(f"fuzz tree/head-tail files: {tried['refused']} refused, {tried['loaded']} loaded")
    assert tried["n"] >= 800 and tried["refused"] > 0 and tried["loaded"] > 0


# --------------------------------------------------------------------------
# The trees' parameters on tiny data: a model or a clear error, never a silent constant model
# --------------------------------------------------------------------------

_TREE_PARAMS = {
    "max_leaves": [1, 2, 3, 31, 1000, 2**31, 10**30],
    "learning_rate": [0, 1e-300, 1e-12, 0.1, 1, 1e12, 1e308, "nan", "inf", -1],
    "max_depth": [-2, -1, 0, 1, 2, 50, 2**40],
    "growth": ["leafwise", "depthwise", "x"],
    "min_samples_leaf": [0, 1, 2, 5, 20, 10**9, 10**30],
    "min_child_weight": [0, 1e-300, 1e-3, 1, 1e3, 1e300, -1, "inf"],
    "l2": [0, 1e-300, 1, 1e10, 1e300, 1e308, -1, "nan"],
    "subsample": [0, 1e-300, 1e-9, 0.01, 0.5, 0.8, 1, 1.5],
    "colsample": [0, 1e-9, 0.3, 1, 2],
    "max_bins": [1, 2, 3, 255, 256],
    "bin_subsample": [0, 1, 2, 3, 10**9],
}


def _tiny_data(n: int, d: int, shape: str, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if shape == "constant":
        X[:] = 1.0
    elif shape == "one-distinct-row":
        X[:] = 1.0
        X[-1] = 2.0
    elif shape == "duplicates":
        X = np.repeat(X[: max(1, n // 2)], 2, axis=0)[:n]
        X = np.vstack([X, X[: n - X.shape[0]]]) if X.shape[0] < n else X
    elif shape == "ties":
        X = np.round(X)
    elif shape == "nan":
        X[rng.random(X.shape) < 0.3] = np.nan
    elif shape == "huge":
        X *= 1e200
    elif shape == "tiny":
        X *= 1e-200
    y = (rng.random(n) < 0.4).astype(int)
    y[0], y[-1] = 0, 1                 # both classes
    return X, y


def test_fuzz_tree_parameters_on_tiny_data():
    from rankcore.push import PushBoost

    tried = {"n": 0, "error": 0, "model": 0, "constant": 0}

    @fuzz(400)
    @given(params=st.dictionaries(st.sampled_from(sorted(_TREE_PARAMS)), st.integers(0, 10), max_size=4),
           n=st.sampled_from([2, 3, 5, 10, 40]), d=st.integers(1, 3),
           shape=st.sampled_from(["normal", "constant", "one-distinct-row", "duplicates", "ties", "nan", "huge",
                                  "tiny"]),
           seed=st.integers(0, 3), splittable=st.booleans())
    def check(params, n, d, shape, seed, splittable):
        tried["n"] += 1
        values = {name: _TREE_PARAMS[name][i % len(_TREE_PARAMS[name])] for name, i in params.items()}
        if splittable:           # half the cases start from settings that can split tiny data
            values = {"min_samples_leaf": 1, "subsample": 1, **values}
        spec = "trees" + (":" if values else "") + ",".join(f"{name}={v}" for name, v in sorted(values.items()))
        X, y = _tiny_data(n, d, shape, seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                model = PushBoost(learner=spec, n_iter=3, random_state=seed).fit(X, y)
                scores = model.decision_function(X)
            except (ValueError, TypeError, ArithmeticError) as exc:
                tried["error"] += 1
                message = str(exc)
                assert message.strip() and "\n" not in message.strip(), (spec, message)
                assert "Traceback" not in message and "C long" not in message, (spec, message)
                if isinstance(exc, SpecError):      # names the parameter at fault
                    assert any(name in message for name in values), (spec, message)
                return
        tried["model"] += 1
        assert np.isfinite(scores).all(), (spec, shape)
        assert model.stop_reason_ in ("n_iter", "converged", "no_split", "overflow"), model.stop_reason_
        if np.ptp(scores) == 0:       # a constant model: never silent
            tried["constant"] += 1
            assert any(issubclass(w.category, (UserWarning, RuntimeWarning)) for w in caught), (spec, shape, n)
        if model.stop_reason_ == "no_split":
            assert any("no_split" in str(w.message) for w in caught), (spec, shape)

    check()
    _report("tree parameters on tiny data", tried["n"])
    print(f"fuzz tree parameters: {tried['error']} clear errors, {tried['model']} models "
          f"({tried['constant']} constant, each with a warning)")
    assert tried["n"] >= 400 and tried["error"] > 0 and tried["model"] > 0 and tried["constant"] > 0


# --------------------------------------------------------------------------
# Fits within queries: query layouts, grades, objectives, learners and options
# --------------------------------------------------------------------------

_QUERY_OBJECTIVES = [None, "lambdarank", "lambdarank:truncation=1", "yetirank", "xendcg", "mp-squared",
                     "push:exp,pow:4", "push:exp,pow:64", "push:exp,identity,gain_weighted=true,query_rmse=2",
                     "push:logistic,identity"]
_QUERY_LEARNERS = ["trees", "trees:growth=depthwise", "trees:max_leaves=4,min_samples_leaf=1", "stumps",
                   "trees:subsample=1,line_search=true"]
_QUERY_SCORING = [None, "ndcg@k:1", "ndcg@k:5", "map", "mrr", "objective"]


def _query_data(n_queries: int, longest: int, grades: str, ids: str, seed: int):
    """(X, y, qid): ``n_queries`` queries of 1 to ``longest`` rows, interleaved, grades and ids of the named kind."""
    rng = np.random.default_rng(seed)
    qid = rng.permutation(np.repeat(np.arange(n_queries), rng.integers(1, longest + 1, n_queries)))
    X = rng.normal(size=(qid.shape[0], 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=qid.shape[0]) + 1), 0, 4)
    if grades == "one grade":
        y[:] = 2.0
    elif grades == "binary":
        y = (y > 1).astype(int)
    elif grades == "fractional":
        y = y * 0.75
    elif grades == "beyond 2^grade":
        y[0] = 2000.0
    elif grades == "negative":
        y[-1] = -1.0
    if ids == "str":
        qid = np.array([f"q{v}" for v in qid])
    elif ids == "float with NaN":
        qid = qid.astype(float)
        qid[rng.integers(qid.shape[0])] = np.nan
    elif ids == "huge ints":
        qid = qid.astype(np.int64) * 10**15
    return X, y, qid


def test_fuzz_fits_within_queries():
    tried = {"n": 0, "error": 0, "model": 0, "constant": 0}
    errors = {}

    @fuzz(400)
    @given(n_queries=st.sampled_from([12, 5, 2, 1]), longest=st.sampled_from([12, 6, 3, 1]),
           grades=st.sampled_from(["graded"] * 4 + ["one grade", "binary", "fractional", "beyond 2^grade",
                                                    "negative"]),
           ids=st.sampled_from(["int"] * 4 + ["str", "float with NaN", "huge ints"]),
           objective=st.sampled_from(_QUERY_OBJECTIVES), learner=st.sampled_from(_QUERY_LEARNERS),
           n_iter=st.sampled_from([1, 4, 40]), scoring=st.sampled_from(_QUERY_SCORING),
           early_stopping=st.sampled_from([False, True]), weighted=st.booleans(), validation=st.booleans(),
           frame=st.booleans(), seed=st.integers(0, 3))
    def check(n_queries, longest, grades, ids, objective, learner, n_iter, scoring, early_stopping, weighted,
              validation, frame, seed):
        tried["n"] += 1
        X, y, qid = _query_data(n_queries, longest, grades, ids, seed)
        weight = np.random.default_rng(seed).choice([0.0, 1.0, 2.5], qid.shape[0]) if weighted else None
        eval_set = _query_data(5, 6, "graded", "int", seed + 10) if validation else None
        if frame:          # a category column: the default's trees grow depth-wise, the stumps refuse its strings
            pd = pytest.importorskip("pandas")
            colour = pd.Categorical(np.where(X[:, 1] > 0, "red", "blue"))
            X = pd.DataFrame({"a": X[:, 0], "b": X[:, 2], "colour": colour})
            if eval_set is not None:
                Xv = eval_set[0]
                eval_set = (pd.DataFrame({"a": Xv[:, 0], "b": Xv[:, 2],
                                          "colour": pd.Categorical(np.where(Xv[:, 1] > 0, "red", "blue"))}),
                            *eval_set[1:])
        model = rankcore.boost(objective=objective, learner=learner, n_iter=n_iter, scoring=scoring,
                               early_stopping=early_stopping, random_state=seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                model.fit(X, y, qid=qid, sample_weight=weight, eval_set=eval_set)
                scores = model.decision_function(X)
            except (ValueError, TypeError) as exc:
                tried["error"] += 1
                message = str(exc)
                errors[message.split(":")[0][:40]] = errors.get(message.split(":")[0][:40], 0) + 1
                assert message.strip() and "\n" not in message.strip(), message
                assert "Traceback" not in message, message
                return
        tried["model"] += 1
        assert np.isfinite(scores).all(), (objective, learner, grades)
        if np.ptp(scores) == 0:       # a constant model: never silent
            tried["constant"] += 1
            assert any(issubclass(w.category, (UserWarning, RuntimeWarning)) for w in caught), (objective, learner)
        try:
            value = model.score(X, y, qid=qid)
        except ValueError as exc:     # no query the metric counts (one row each, say): named, one line
            assert "\n" not in str(exc).strip(), str(exc)
        else:
            assert np.isfinite(value), (objective, learner)
        # the model file holds exactly this model, and its own checks accept it
        loaded = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
        np.testing.assert_array_equal(loaded.decision_function(X), scores)
        assert (loaded.n_queries_, loaded.n_queries_without_pairs_) == (model.n_queries_,
                                                                         model.n_queries_without_pairs_)

    check()
    _report("fits within queries", tried["n"])
    print(f"fuzz fits within queries: {tried['error']} clear errors, {tried['model']} models "
          f"({tried['constant']} constant, each with a warning); errors by what they name: {errors}")
    assert tried["n"] >= 400 and tried["error"] > 0 and tried["model"] > 0


# --------------------------------------------------------------------------
# The estimators' parameters on tiny data, and their model files
# --------------------------------------------------------------------------

_ESTIMATOR_PARAMS = {
    "ExactBoost": dict(depth=[1, 2, 6, 0], feature_subsample=[0.01, 1.0, 0.0], head=["auto", 0, 1, 5, 1000],
                       margin=[0, 0.05, -1], margin_mode=["constant", "adaptive", "x"], max_bins=[None, 1, 2, 255],
                       max_boxes=[1, 128, 0], max_thresholds=[None, 1, 0], subsample=[0.01, 1.0, 0],
                       metric=["auc", "ks", "prec@k:2", "prec@k:0.5", "pauc:0.1", "rmax", "nope"],
                       tie_break=["auto", "none", "x"], tie_break_weight=[0, 1, -1]),
    "KernelRanker": dict(kernel=["rbf", "linear", "poly:2", "x"], filter=["tikhonov", "landweber", "cutoff",
                                                                          "iterated:3"],
                         lam=[1e-3, 0, 1e9, -1, "holdout", "apriori"], lam_grid=[None, [1e-3, 1e-1], []],
                         holdout_size=[0.5, 0.01, 0], max_iter=[1, 0], n_components=[1, 2, 0],
                         solver=["auto", "exact", "x"], metric=["misrank", "auc", "prec@k:2"], refit=[True, False],
                         apriori_sizes=[(4, 6), (20, 30), (1,), ()]),
    "PerceptronAtK": dict(k=[0.05, 1, 2, 0, 100], batch_size=[1, 2, 64, 0], n_epochs=[1, 3, 0],
                          variant=["avg", "max", "ramp", "struct", "x"], k_per_batch=[None, 1, 0.5, 0],
                          average=[True, False], standardize=[True, False]),
    "SGDAtK": dict(k=[0.05, 1, 2, 0], batch_size=[1, 2, 512], n_epochs=[1, 3], surrogate=["avg", "max", "ramp", "x"],
                   alpha=[0, 1e-3, 1e9, -1], eta0=[0.03, 1e9, 0], init=["logistic", "zeros", "x"],
                   radius=[None, 1, 0]),
    "PNormPush": dict(p=[1, 4, 64, 0], learner=["stumps", "trees", "trees:max_depth=1", "linear"],
                      early_stopping=[False, True, "auto"], scoring=[None, "auc", "objective", "prec@k:1"]),
}
_ESTIMATOR_DEFAULTS = {"ExactBoost": dict(n_runs=3, n_rounds=3), "PNormPush": dict(n_iter=6)}


def test_fuzz_estimator_parameters_on_tiny_data():
    """Each estimator's parameters on tiny, degenerate data: a one-line error, or a model with finite scores
    whose model file loads to the same scores (a fit that passes must give a file that passes)."""
    tried = {"n": 0, "error": 0, "model": 0}

    @fuzz(300)
    @given(kind=st.sampled_from(sorted(_ESTIMATOR_PARAMS)), choice=st.data(),
           n=st.sampled_from([2, 3, 5, 10, 40]), d=st.integers(1, 3),
           shape=st.sampled_from(["normal", "constant", "one-distinct-row", "duplicates", "ties", "huge", "tiny"]),
           seed=st.integers(0, 3))
    def check(kind, choice, n, d, shape, seed):
        tried["n"] += 1
        grid = _ESTIMATOR_PARAMS[kind]
        names = choice.draw(st.lists(st.sampled_from(sorted(grid)), max_size=3, unique=True))
        params = {**_ESTIMATOR_DEFAULTS.get(kind, {}),
                  **{name: choice.draw(st.sampled_from(grid[name])) for name in names}}
        X, y = _tiny_data(n, d, shape, seed)
        model = getattr(rankcore, kind)(random_state=seed, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    model.fit(X, y)
                scores = model.decision_function(X)
            except (ValueError, TypeError, ArithmeticError) as exc:
                tried["error"] += 1
                message = str(exc)
                assert message.strip() and "\n" not in message.strip(), (kind, params, message)
                return
            tried["model"] += 1
            assert np.isfinite(scores).all(), (kind, params, shape)
            loaded = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
            np.testing.assert_array_equal(loaded.decision_function(X), scores)

    check()
    _report("estimator parameters on tiny data", tried["n"])
    print(f"fuzz estimator parameters: {tried['error']} clear errors, {tried['model']} models")
    assert tried["n"] >= 300 and tried["error"] > 0 and tried["model"] > 0


# --------------------------------------------------------------------------
# The LightGBM / XGBoost adapters: parameters and the calls the libraries make
# --------------------------------------------------------------------------

_GBDT_OBJECTIVES = ["push:exp,pow:4", "push:logistic,pow:2", "push:hinge,identity", "prec@k-avg:2", "prec@k-avg:0.5",
                    "prec@k-max:1", "mp-squared", "nope", "", "push:exp,pow:1e300", "prec@k-avg:1e300"]
_GBDT_METRICS = ["auc", "prec@k:2", "prec@k:0.5", "pauc:0.1", "rmax", "misrank", "roc", "height", "nope",
                 "prec@k:1e300", "pnorm:64"]
_GOOD_SEEDS = [0, 1, None, 2**32 - 1]
_N_JOBS = [None, 1, 2, -1, 0, 1.5, "x"]


def _gbdt_call_args(n: int, how: int, seed: int):
    rng = np.random.default_rng(seed)
    labels = (rng.random(n) < 0.5).astype(float)
    labels[0], labels[-1] = 0.0, 1.0
    preds = rng.normal(size=n)
    weight = None
    if how == 1:
        labels = np.full(n, 3.0)                  # one class
    elif how == 2:
        labels[0] = np.nan
    elif how == 3:
        labels[1 % n] = 7.0                       # a third value (or a grade)
    elif how == 4:
        preds[0] = np.inf
    elif how == 5:
        preds = np.zeros(n + 1)
    elif how == 6:
        preds = preds[:, None]                    # the column XGBoost sometimes passes
    elif how == 7:
        preds = np.zeros((n, 2))
    elif how == 8:
        weight = np.ones(n)
    elif how == 9:
        weight = -np.ones(n)
    elif how == 10:
        weight = np.ones(n + 2)
    elif how == 11:
        weight = np.array([])
    elif how == 12:
        preds = np.zeros(n)                       # every row tied: the tie-break offset's case
    return labels, preds, weight


def test_fuzz_gbdt_adapters():
    from rankcore.gbdt import lightgbm_metric, lightgbm_objective, xgboost_metric, xgboost_objective

    tried = {"n": 0, "error": 0, "ok": 0}

    @fuzz(500)
    @given(library=st.sampled_from(["lightgbm", "xgboost"]), what=st.sampled_from(["objective", "metric"]),
           objective=st.sampled_from(_GBDT_OBJECTIVES), metric=st.sampled_from(_GBDT_METRICS),
           random_state=st.sampled_from(_GOOD_SEEDS), n_jobs=st.sampled_from(_N_JOBS),
           n=st.sampled_from([2, 3, 10, 50]), how=st.integers(0, 12), seed=st.integers(0, 3))
    def check(library, what, objective, metric, random_state, n_jobs, n, how, seed):
        tried["n"] += 1
        labels, preds, weight = _gbdt_call_args(n, how, seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if what == "objective":
                    make = lightgbm_objective if library == "lightgbm" else xgboost_objective
                    adapter = make(objective, random_state=random_state, n_jobs=n_jobs)
                    grad, hess = adapter(labels, preds, weight)       # the scikit-learn API's call
                else:
                    make = lightgbm_metric if library == "lightgbm" else xgboost_metric
                    adapter = make(metric)
                    out = adapter(labels, preds, weight)
        except (ValueError, TypeError, ArithmeticError) as exc:
            tried["error"] += 1
            message = str(exc)
            assert message.strip() and "\n" not in message.strip(), message
            assert "C long" not in message and "invalid literal" not in message, message
            return
        tried["ok"] += 1
        if what == "objective":
            grad, hess = np.asarray(grad), np.asarray(hess)
            assert grad.shape == hess.shape == (n,)
            assert np.isfinite(grad).all() and np.isfinite(hess).all() and (hess >= 0).all()
        else:
            value = out[1] if isinstance(out, tuple) else out
            assert isinstance(value, float) and math.isfinite(value), out

    check()
    _report("gbdt adapters", tried["n"])
    print(f"fuzz gbdt adapters: {tried['error']} clear errors, {tried['ok']} results")
    assert tried["n"] >= 500 and tried["error"] > 0 and tried["ok"] > 0


def test_fuzz_gbdt_adapters_train_with_the_real_libraries():
    """A few real trainings: the adapters inside LightGBM and XGBoost give finite scores or a clear error."""
    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    from rankcore.gbdt import lightgbm_metric, lightgbm_objective, xgboost_metric, xgboost_objective

    tried = {"n": 0, "error": 0, "ok": 0}

    @fuzz(40)
    @given(library=st.sampled_from(["lightgbm", "xgboost"]), objective=st.sampled_from(_GBDT_OBJECTIVES[:7]),
           metric=st.sampled_from(_GBDT_METRICS[:6]), n=st.sampled_from([4, 30]), shape=st.sampled_from(
               ["normal", "constant", "ties", "huge"]), seed=st.integers(0, 3))
    def check(library, objective, metric, n, shape, seed):
        tried["n"] += 1
        if library == "lightgbm" and shape == "constant":
            shape = "ties"            # LightGBM itself refuses data without a usable feature (a C++ fatal)
        X, y = _tiny_data(n, 2, shape, seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if library == "lightgbm":
                    data = lgb.Dataset(X, label=y, params={"verbose": -1, "min_data_in_leaf": 1,
                                                           "min_data_in_bin": 1})
                    booster = lgb.train({"objective": lightgbm_objective(objective), "verbose": -1,
                                         "min_data_in_leaf": 1, "num_threads": 1}, data, num_boost_round=2,
                                        valid_sets=[data], feval=lightgbm_metric(metric))
                    scores = booster.predict(X)
                else:
                    data = xgb.DMatrix(X, label=y)
                    booster = xgb.train({"disable_default_eval_metric": 1, "nthread": 1}, data, num_boost_round=2,
                                        obj=xgboost_objective(objective), custom_metric=xgboost_metric(metric),
                                        evals=[(data, "train")], verbose_eval=False)
                    scores = booster.predict(data, output_margin=True)
        except (ValueError, TypeError, ArithmeticError) as exc:
            tried["error"] += 1
            assert str(exc).strip(), exc
            return
        tried["ok"] += 1
        assert np.isfinite(np.asarray(scores, dtype=np.float64)).all()

    check()
    _report("gbdt adapters in real trainings", tried["n"])
    assert tried["n"] >= 40 and tried["ok"] > 0


_BAD_SEEDS = ["x", -1, 1.5, True]


@pytest.mark.parametrize("random_state", _BAD_SEEDS, ids=repr)
@pytest.mark.parametrize("make", ["lightgbm_objective", "xgboost_objective"])
def test_fuzz_gbdt_random_state_is_refused_at_construction_naming_it(make, random_state):
    """The one-style parameter validation: 'x', -1 and 1.5 are refused at construction, naming
    ``random_state``."""
    import rankcore.gbdt

    factory = getattr(rankcore.gbdt, make)
    with pytest.raises((ValueError, TypeError), match="random_state"):
        factory("prec@k-avg:2", random_state=random_state)
