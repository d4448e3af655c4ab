"""Export ten binary tasks from the R packages mlbench and kernlab as a second datasets folder.

A check on data nobody here tuned on: the trees' defaults were chosen on the
shared datasets (``docs/top_of_list.md``), so this script writes ten other
public tasks in the same format (gzipped CSV, last column ``label``, and a
``MANIFEST.json``), and the comparison runs on them unchanged::

    python benchmarks/export_r_datasets.py --out /tmp/rdatasets
    RANKCORE_DATASETS=/tmp/rdatasets python benchmarks/top_of_list_comparison.py --splits 5

The data come from the Debian packages ``r-cran-mlbench`` and
``r-cran-kernlab`` (``apt-get install r-cran-mlbench r-cran-kernlab``; R
itself is not needed) and are read with the ``rdata`` package
(``pip install rdata``).  Without either, the script says what is missing and
exits with status 0.

Encoding: factor columns become their numeric levels when the levels are
numbers (BreastCancer's 1-10 scores), else their level codes; missing entries
are written as ``nan`` (BreastCancer, HouseVotes84: LightGBM, XGBoost,
scikit-learn's HistGradientBoosting and rankcore's ``trees`` route them; the
comparison records the learners that refuse NaN as failed on those two sets,
which ranks them last there). Multi-class tasks become one class against the rest
(the class named in ``TASKS``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np

R_LIBRARY = Path("/usr/lib/R/site-library")

#: name -> (package, data file, object, label column, positive class, columns to drop)
TASKS = {
    "sonar": ("mlbench", "Sonar", "Sonar", "Class", ("M",), ()),
    "breastcancer": ("mlbench", "BreastCancer", "BreastCancer", "Class", ("malignant",), ("Id",)),
    "housevotes": ("mlbench", "HouseVotes84", "HouseVotes84", "Class", ("democrat",), ()),
    "glass-1": ("mlbench", "Glass", "Glass", "Type", ("1",), ()),
    "vehicle-opel": ("mlbench", "Vehicle", "Vehicle", "Class", ("opel",), ()),
    "musk": ("kernlab", "musk", "musk", "Class", ("1",), ()),
    "satellite-damp": ("mlbench", "Satellite", "Satellite", "classes", ("damp grey soil",), ()),
    "dna-ei": ("mlbench", "DNA", "DNA", "Class", ("ei",), ()),
    "ticdata": ("kernlab", "ticdata", "ticdata", "CARAVAN", ("insurance",), ()),
    "letter-vowel": ("mlbench", "LetterRecognition", "LetterRecognition", "lettr", tuple("AEIOU"), ()),
}


def _column(series) -> np.ndarray:
    """One column as float64: numeric levels, else level codes; missing entries NaN."""
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        levels = pd.to_numeric(pd.Series(series.cat.categories), errors="coerce").to_numpy(dtype=np.float64)
        if np.isnan(levels).any():                      # named levels: their codes
            levels = np.arange(len(series.cat.categories), dtype=np.float64)
        return np.where(codes >= 0, levels[np.maximum(codes, 0)], np.nan)
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)


def load_task(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``X`` (float64, NaN for missing), 0/1 ``y`` and the feature names of one task."""
    import rdata

    package, data_file, obj, target, positive, drop = TASKS[name]
    path = R_LIBRARY / package / "data" / f"{data_file}.rda"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # "Unknown encoding. Assumed ASCII."
        frame = rdata.conversion.convert(rdata.parser.parse_file(path))[obj]
    y = frame[target].astype(str).isin(positive).to_numpy().astype(np.int8)
    features = [c for c in frame.columns if c != target and c not in drop]
    X = np.column_stack([_column(frame[c]) for c in features])
    return X, y, [str(c) for c in features]


def write_task(out: Path, name: str) -> dict:
    """Write ``<name>.csv.gz`` and return its manifest entry."""
    X, y, features = load_task(name)
    path = out / f"{name}.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(",".join(features + ["label"]) + "\n")
        for row, label in zip(X, y):
            fh.write(",".join("nan" if np.isnan(v) else repr(float(v)) for v in row) + f",{int(label)}\n")
    package, data_file, _, target, positive, _ = TASKS[name]
    return {"name": name, "file": path.name, "n_rows": int(X.shape[0]), "n_features": int(X.shape[1]),
            "n_positive": int(y.sum()), "n_missing": int(np.isnan(X).sum()),
            "source": f"R package {package} (Debian r-cran-{package}), data/{data_file}.rda",
            "label": f"{target} in {list(positive)}",
            "sha256_of_csv_gz": hashlib.sha256(path.read_bytes()).hexdigest()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder to write (created)")
    parser.add_argument("--tasks", default=None, help="comma-separated names (default: all ten)")
    args = parser.parse_args(argv)
    try:
        import rdata  # noqa: F401
    except ImportError:
        print("export_r_datasets: the rdata package is not installed (pip install rdata); nothing written")
        return 0
    missing = sorted({t[0] for t in TASKS.values() if not (R_LIBRARY / t[0] / "data").is_dir()})
    if missing:
        print(f"export_r_datasets: R package data not found in {R_LIBRARY}: {', '.join(missing)} "
              f"(apt-get install {' '.join('r-cran-' + m for m in missing)}); nothing written")
        return 0
    names = args.tasks.split(",") if args.tasks else list(TASKS)
    unknown = [n for n in names if n not in TASKS]
    if unknown:
        parser.error(f"--tasks: unknown {unknown}; expected some of {', '.join(TASKS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name in names:
        entry = write_task(out, name)
        manifest.append(entry)
        print(f"{name}: {entry['n_rows']} x {entry['n_features']}, {entry['n_positive']} positive, "
              f"{entry['n_missing']} missing")
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
