"""The training scores of an oblivious tree just grown: ``oblivious_columns`` beside its alternatives, in one run.

Every tree of the per-query default updates the training scores with its leaf
values: each row's leaf index is read from the tree's D code columns
(``_oblivious_kernels.oblivious_columns``, column-major codes, blocks of rows
built a level at a time).  Timed beside the same leaf values from row-major
codes (``oblivious_codes``, the other layout the trees keep) and from the
NumPy bit index (the tests' reference), least of interleaved calls, one
thread, depth 6, on LightGBM's LTR example's size (3,773 rows, 206 code
columns) and on 200,000 rows × 137 columns.  ``ratio``: the alternative's time
over the kernel's (how many times faster the kernel is).
"""

from __future__ import annotations

import numpy as np
import pytest

from bench_metrics import _interleaved as _least      # least time of each call, the calls taking turns
from rankcore.learners.trees import _oblivious_kernels as kernels

SUMMARY: list[str] = []          # printed at the end by conftest._print_summary
SUMMARY_TITLE = "oblivious tree scores"
SHAPES = {"ltr": (3_773, 206), "large": (200_000, 137)}
DEPTH = 6


def _numpy_scores(codes, column, go_left, value):
    leaf = np.zeros(codes.shape[0], dtype=np.int64)
    for level in range(column.shape[0]):
        leaf |= (1 - go_left[level, codes[:, column[level]]]).astype(np.int64) << level
    return value[leaf]


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.benchmark(group="oblivious tree scores")
def test_oblivious_columns_against_row_major_and_numpy(benchmark, shape):
    n, n_cols = SHAPES[shape]
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 256, size=(n, n_cols)).astype(np.uint8)
    codes_t = np.ascontiguousarray(codes.T)
    column = rng.choice(n_cols, DEPTH, replace=False).astype(np.int32)
    go_left = (rng.random((DEPTH, 256)) < 0.5).astype(np.uint8)
    value = rng.normal(size=2 ** DEPTH)
    out, row_out = np.empty(n), np.empty(n)
    kernels.oblivious_columns(codes_t, column, go_left, value, out, 1)
    np.testing.assert_array_equal(out, _numpy_scores(codes, column, go_left, value))
    best = _least({"columns": lambda: kernels.oblivious_columns(codes_t, column, go_left, value, out, 1),
                   "row-major": lambda: kernels.oblivious_codes(codes, column, go_left, value, row_out, 1),
                   "numpy": lambda: _numpy_scores(codes, column, go_left, value)}, 100)
    ratios = {name: best[name] / best["columns"] for name in ("row-major", "numpy")}
    benchmark.extra_info.update(rows=n, columns=n_cols, **{f"{k}_s": v for k, v in best.items()},
                                **{f"ratio_{k}": v for k, v in ratios.items()})
    SUMMARY.append(f"{shape} ({n:,} × {n_cols}): columns {best['columns'] * 1e6:8.1f} µs, row-major "
                   f"{best['row-major'] * 1e6:8.1f} µs ({ratios['row-major']:.2f}×), numpy "
                   f"{best['numpy'] * 1e6:8.1f} µs ({ratios['numpy']:.2f}×)")
    benchmark.pedantic(kernels.oblivious_columns, args=(codes_t, column, go_left, value, out, 1), rounds=20,
                       iterations=5)
