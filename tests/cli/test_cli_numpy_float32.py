"""A float32 ``.npy``/``.npz`` file is read as float32: no float64 copy of the features (twice the file's size in
memory, and every copy the fit makes of it twice as large), and the model fitted on it is the one a float64 file
of the same values gives, bit for bit."""

import tracemalloc

import numpy as np
import pytest

from _cli_run import run_main
from rankcore.cli.datasets import load_data

FIT = ("--n-iter", "5", "--learner", "trees:max_leaves=4", "--random-state", "0", "--quiet")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same rows as float32 and float64 .npy (label last) and .npz files."""
    d = tmp_path_factory.mktemp("np32")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 5)).astype(np.float32)
    X[7, 2] = np.nan
    y = (X[:, 0] + rng.normal(size=400) > 0.5).astype(np.float32)
    for dtype in (np.float32, np.float64):
        tag = np.dtype(dtype).name
        np.save(d / f"{tag}.npy", np.column_stack([X, y]).astype(dtype))
        np.savez(d / f"{tag}.npz", X=X.astype(dtype), y=y.astype(dtype))
    return d


@pytest.mark.parametrize("suffix", ["npy", "npz"])
def test_float32_features_are_read_as_float32(files, suffix):
    d32, d64 = load_data(files / f"float32.{suffix}"), load_data(files / f"float64.{suffix}")
    assert d32.X.dtype == np.float32 and d32.X.flags.c_contiguous
    assert np.array_equal(d32.X.astype(np.float64), d64.X, equal_nan=True)
    assert np.array_equal(d32.y, d64.y)
    if suffix == "npy":                # the label column is read as float64, as before
        assert d32.y.dtype == np.float64


def test_reading_a_float32_npy_makes_no_float64_copy(tmp_path):
    X = np.random.default_rng(0).normal(size=(20_000, 20)).astype(np.float32)
    np.save(tmp_path / "big.npy", np.column_stack([X, (X[:, 0] > 0).astype(np.float32)]))
    tracemalloc.start()
    try:
        data = load_data(tmp_path / "big.npy")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the array read (once) plus its label column; a float64 copy beside it would be three times the array
    assert peak < 1.5 * X.nbytes, f"{peak / X.nbytes:.2f} times the features' bytes"
    assert data.X.dtype == np.float32


def test_a_float32_file_fits_the_model_a_float64_file_fits(files, tmp_path):
    import rankcore

    scores = []
    rows = load_data(files / "float64.npy").X
    for tag in ("float32", "float64"):
        out = tmp_path / f"{tag}.json"
        code, _, err = run_main("fit", str(files / f"{tag}.npy"), *FIT, "--out", str(out))
        assert code == 0, err
        scores.append(rankcore.load_model(out).decision_function(rows))
    assert scores[0].tobytes() == scores[1].tobytes()
