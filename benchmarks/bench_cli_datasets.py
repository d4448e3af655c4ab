"""Reading data files: rankcore.cli.datasets.load_data against NumPy's and pandas' CSV readers, and against
scikit-learn's ``load_svmlight_file`` on a LETOR-like LIBSVM file (``test_libsvm_reader_ratios``).

Run::

    RANKCORE_BENCH_PROFILE=full pytest benchmarks/bench_cli_datasets.py --benchmark-only -s

``load_data`` reads a clean CSV with pandas' C parser (when pandas is
installed; NumPy's ``loadtxt`` otherwise) and falls back to a checking parser
-- the ``csv`` module, line numbers kept -- only when something is wrong, so
that the error can name the line.  This measures, on one generated file
(fast: 20,000 rows; full: 500,000 rows; 20 float features and a 0/1 label):
``load_data``, ``load_data`` without pandas, the checking parser alone, a bare
``np.loadtxt`` of the whole file, and a bare ``pandas.read_csv``; then
``load_data`` on the same file with 1% of the feature values missing (empty
fields and ``NA``, read as NaN by pandas), and with the missing values in the
last column too (an empty last field cannot be told from a short row by
pandas, so that file goes through the checking parser).  Ratios to
``np.loadtxt`` are printed and stored in ``benchmark.extra_info``; nothing is
asserted.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from rankcore.cli import datasets
from rankcore.cli.datasets import _csv

ROWS = {"fast": 20_000, "full": 500_000}
N_FEATURES = 20


@pytest.fixture(scope="module")
def csv_file(profile, tmp_path_factory):
    rng = np.random.default_rng(0)
    n = ROWS[profile]
    X = rng.normal(size=(n, N_FEATURES))
    y = (rng.random(n) < 0.1).astype(int)
    path = tmp_path_factory.mktemp("bench") / "data.csv"
    header = ",".join(f"x{j}" for j in range(N_FEATURES)) + ",label"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g")
    return path


def _with_missing(path, *, label_first: bool):
    """The same rows with 1% of the feature values missing; the label first puts some in the last column."""
    rng = np.random.default_rng(1)
    with open(path) as fh:
        header, *rows = fh.read().splitlines()
    out = path.with_name(f"missing_{'label_first' if label_first else 'label_last'}.csv")
    lines = []
    for i, line in enumerate([header] + rows):
        cells = line.split(",")
        if i:
            for j in np.flatnonzero(rng.random(N_FEATURES) < 0.01):
                cells[j] = "" if j % 2 else "NA"
        if label_first:
            cells = cells[-1:] + cells[:-1]
        lines.append(",".join(cells))
    out.write_text("\n".join(lines) + "\n")
    return out


def _checking_parser(path):
    original = _csv._csv_fast_path
    _csv._csv_fast_path = lambda *a, **k: None
    try:
        return datasets.load_data(path)
    finally:
        _csv._csv_fast_path = original


def _without_pandas(path):
    import sys

    saved = sys.modules.get("pandas")
    sys.modules["pandas"] = None  # `import pandas` now fails: the NumPy reader is used
    try:
        return datasets.load_data(path)
    finally:
        if saved is None:
            del sys.modules["pandas"]
        else:
            sys.modules["pandas"] = saved


def _loadtxt(path):
    return np.loadtxt(path, delimiter=",", skiprows=1)


def _pandas(path):
    import pandas as pd

    return pd.read_csv(path)


def _best_of(func, path, rounds):
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        func(path)
        best = min(best, time.perf_counter() - start)
    return best


def test_load_data_csv(benchmark, csv_file):
    data = benchmark(datasets.load_data, csv_file)
    assert data.X.shape[1] == N_FEATURES


def test_checking_parser_csv(benchmark, csv_file):
    benchmark.pedantic(_checking_parser, args=(csv_file,), rounds=3, iterations=1)


def test_loadtxt_csv(benchmark, csv_file):
    benchmark(_loadtxt, csv_file)


def test_csv_reader_ratios(benchmark, csv_file, profile):
    """The readers timed interleaved in one test; ratios to a bare np.loadtxt."""
    rounds = 3 if profile == "full" else 5
    timings = {
        "np.loadtxt": _best_of(_loadtxt, csv_file, rounds),
        "load_data": _best_of(datasets.load_data, csv_file, rounds),
        "load_data, no pandas": _best_of(_without_pandas, csv_file, rounds),
        "checking parser": _best_of(_checking_parser, csv_file, max(1, rounds - 2)),
    }
    try:
        import pandas  # noqa: F401

        timings["pandas.read_csv"] = _best_of(_pandas, csv_file, rounds)
    except ImportError:
        pass
    missing = _with_missing(csv_file, label_first=False)
    timings["load_data, 1% missing"] = _best_of(datasets.load_data, missing, rounds)
    missing_last = _with_missing(csv_file, label_first=True)
    timings["load_data, 1% missing, some in the last column"] = _best_of(datasets.load_data, missing_last,
                                                                        max(1, rounds - 2))
    _report(benchmark, f"CSV of {ROWS[profile]} rows x {N_FEATURES + 1} columns:", timings, "np.loadtxt")


def _report(benchmark, title: str, timings: dict, base_name: str) -> None:
    """Print each reader's best time and its ratio to ``base_name``'s, and keep both in ``extra_info``."""
    base = timings[base_name]
    width = max(len(name) for name in timings) + 2
    lines = [title]
    for name, seconds in timings.items():
        benchmark.extra_info[f"{name} seconds"] = seconds
        benchmark.extra_info[f"{name} / {base_name}"] = seconds / base
        lines.append(f"  {name:<{width}} {seconds * 1e3:9.1f} ms   {seconds / base:5.2f}x {base_name}")
    print("\n" + "\n".join(lines))
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)


@pytest.fixture(scope="module")
def libsvm_file(profile, tmp_path_factory):
    """LETOR-like rows: a grade, a query id, every feature written (``1:`` to ``46:``), a comment."""
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(2)
    n = ROWS[profile] // 2
    X = rng.random((n, 46)).round(6)
    y = rng.integers(0, 3, n)
    path = tmp_path_factory.mktemp("bench") / "train.txt"
    dump_svmlight_file(X, y, str(path), query_id=np.arange(n) // 40, zero_based=False, comment="docid")
    return path


def _libsvm_checking(path):
    from rankcore.cli.datasets._libsvm import _parse_checking

    return _parse_checking(str(path))


def _sklearn_svmlight(path):
    from sklearn.datasets import load_svmlight_file

    return load_svmlight_file(str(path), query_id=True)


def test_libsvm_reader_ratios(benchmark, libsvm_file, profile):
    """``load_data`` on a clean LIBSVM file (the compiled scan, ``_libsvm_scan``) against the line-by-line checking
    parser it leaves faulty files to, and a bare ``load_svmlight_file``, interleaved; ratios to the last."""
    rounds = 3 if profile == "full" else 5
    timings = {
        "load_svmlight_file": _best_of(_sklearn_svmlight, libsvm_file, rounds),
        "load_data": _best_of(datasets.load_data, libsvm_file, rounds),
        "checking parser": _best_of(_libsvm_checking, libsvm_file, max(1, rounds - 2)),
    }
    _report(benchmark, f"LIBSVM of {ROWS[profile] // 2} rows x 46 features:", timings, "load_svmlight_file")
