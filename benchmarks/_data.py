"""Finding and reading the shared real datasets for benchmarks and reproductions.

The datasets are not part of the repository.  They are looked up in the folder
named by the environment variable ``RANKCORE_DATASETS``; without it, in the
default folder :func:`datasets_dir` names (the only place that default is
written).  Scripts call
:func:`load_dataset` and skip (pytest) or exit cleanly (scripts) with
:class:`DatasetUnavailable` when a file is missing.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "RANKCORE_DATASETS"


class DatasetUnavailable(RuntimeError):
    """The datasets folder or the requested file is not there."""


def datasets_dir() -> Path:
    """The datasets folder (it may not exist)."""
    configured = os.environ.get(ENV_VAR)
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "datasets"


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Read ``<name>.csv.gz``: returns ``X`` (float64), ``y`` (int8) and the feature names.

    The last column is the 0/1 label, as documented in the datasets' README.
    """
    path = datasets_dir() / f"{name}.csv.gz"
    if not path.is_file():
        raise DatasetUnavailable(f"dataset {name!r} not found at {path} (set {ENV_VAR} to the datasets folder)")
    with gzip.open(path, "rt") as fh:
        header = fh.readline().strip().split(",")
        data = np.loadtxt(fh, delimiter=",", ndmin=2)
    X = np.ascontiguousarray(data[:, :-1], dtype=np.float64)
    y = data[:, -1].astype(np.int8)
    return X, y, header[:-1]


def require_dataset(name: str):
    """pytest helper: load a dataset or skip the calling test cleanly."""
    import pytest

    try:
        return load_dataset(name)
    except DatasetUnavailable as exc:
        pytest.skip(str(exc))
