"""``rankcore explain --background FILE`` with DATA's own options: a background of features alone, in any format.

DATA is a CSV file with an explicit ``--label`` and ``--drop``ped columns; the background need not have them,
and a LIBSVM, .npz or .npy background has no column those names could name.  Each is compared with the library's
values against the same rows.
"""

import csv
import io

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file

import rankcore
from _cli_run import run_main

FEATURES = ["a", "b", "c"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """d.csv (a query id, three features, a weight column dropped, a label), a model of trees fitted on it, and
    the features of every 7th row as a CSV file with or without the label, LIBSVM, .npz (with and without a label
    array) and .npy (with and without the label column)."""
    d = tmp_path_factory.mktemp("background-formats")
    rng = np.random.default_rng(5)
    n = 140
    X = np.round(rng.normal(size=(n, 3)), 2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    frame = pd.DataFrame({"q": np.repeat(np.arange(14), 10), **dict(zip(FEATURES, X.T)), "w": rng.random(n),
                          "label": y})
    frame.to_csv(d / "d.csv", index=False)
    sample = frame.iloc[::7]
    sample.to_csv(d / "sample.csv", index=False)
    sample[FEATURES].to_csv(d / "features.csv", index=False)
    Z = sample[FEATURES].to_numpy()
    dump_svmlight_file(Z, sample["label"].to_numpy(), str(d / "sample.svm"))
    np.savez(d / "features.npz", X=Z)
    np.savez(d / "labelled.npz", X=Z, label=sample["label"].to_numpy())
    np.save(d / "features.npy", Z)
    np.save(d / "labelled.npy", np.column_stack([Z, sample["label"].to_numpy()]))
    status, _, err = run_main("fit", d / "d.csv", "--qid", "q", "--drop", "w", "--label", "label", "--learner",
                              "trees:max_leaves=5,min_samples_leaf=5", "--n-iter", "6", "--quiet", "--out",
                              d / "trees.json")
    assert status == 0, err
    return d


@pytest.mark.parametrize("background", ["sample.csv", "features.csv", "sample.svm", "features.npz", "labelled.npz",
                                        "features.npy", "labelled.npy"])
def test_a_background_without_datas_label_and_dropped_columns_is_read(files, background):
    status, out, err = run_main("explain", files / "trees.json", files / "d.csv", "--qid", "q", "--label", "label",
                                "--drop", "w", "--background", files / background, "--table-format", "csv")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:5] == ["row", "q", "rank", "score", "expected"]
    values = np.array([[float(v) for v in r[3:]] for r in rows[1:]])
    model = rankcore.load_model(files / "trees.json")
    X = pd.read_csv(files / "d.csv")[FEATURES].iloc[np.array([int(r[0]) for r in rows[1:]]) - 1]
    phi = model.feature_contributions(X, background=pd.read_csv(files / "features.csv"))
    np.testing.assert_allclose(values[:, 1], phi[:, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(values[:, 2:], phi[:, :-1], rtol=0, atol=1e-12)


def test_an_npz_label_array_named_by_label_is_set_aside(files):
    """``--label KEY`` of an .npz file that has that array: its rows are scored (the array left unread), not
    refused as lacking it."""
    status, out, err = run_main("score", files / "trees.json", files / "labelled.npz", "--label", "label")
    assert status == 0, err


@pytest.mark.parametrize("options", [("--label", "label", "--drop", "q,w"), ("--label", "label", "--qid", "q",
                                                                              "--drop", "w")])
def test_a_csv_background_beside_libsvm_data_takes_the_options_naming_its_columns(files, tmp_path, options):
    # --label, --qid and --drop named the CSV background's columns, and the LIBSVM DATA refused each of them:
    # no way to leave the label and the query ids of a sample of the training file out of the background
    frame = pd.read_csv(files / "d.csv")
    with open(tmp_path / "d.svm", "w") as fh:
        for _, row in frame.iterrows():
            fh.write(f"{int(row['label'])} qid:{int(row['q'])} "
                     + " ".join(f"{j + 1}:{float(row[name])!r}" for j, name in enumerate(FEATURES)) + "\n")
    outputs = []
    for data, extra in ((files / "d.csv", ("--qid", "q", "--label", "label", "--drop", "w")),
                        (tmp_path / "d.svm", options)):
        status, out, err = run_main("explain", files / "trees.json", data, *extra, "--background",
                                    files / "sample.csv", "--table-format", "csv")
        assert status == 0, err
        outputs.append([r[:1] + r[2:] for r in csv.reader(io.StringIO(out))])
    assert outputs[0] == outputs[1] and len(outputs[0]) > 10 and any(float(r[-1]) != 0 for r in outputs[0][1:])
