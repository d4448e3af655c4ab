"""``rankcore export --feature-names``, a model without trees, and outputs that are streams (a FIFO, a link to one:
what ``/dev/stdout`` and ``>(...)`` are) -- written into without --force, never replaced.  Stand-ins in
``tmp_path`` only, never the real ``/dev`` nodes."""

import json
import os
import stat
import threading
import warnings

import numpy as np
import pytest

import rankcore
from rankcore.cli import main
from rankcore.persistence import save_model

fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


def _model(tmp_path, learner="trees:max_leaves=4", name="m.json"):
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(200, 3)), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # a fit that stops before its first tree warns
        model = rankcore.boost(learner=learner, n_iter=4, random_state=0).fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    save_model(model, tmp_path / name)
    return model


def _read_in_thread(path, into):
    def read():
        with open(path, encoding="utf-8") as fh:
            into.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _splits(text):
    found, stack = set(), list(json.loads(text))
    while stack:
        node = stack.pop()
        found.update([node["split"]] if "split" in node else [])
        stack.extend(node.get("children", ()))
    return found


@fifos
@pytest.mark.parametrize("through_a_link", [False, True], ids=["fifo", "link-to-fifo"])
def test_export_writes_into_a_fifo_without_force(tmp_path, capsys, through_a_link):
    model = _model(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = fifo
    if through_a_link:
        out = tmp_path / "fd63"
        out.symlink_to(fifo)
    got = []
    reader = _read_in_thread(fifo, got)
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-json", "-o", str(out)]) == 0
    reader.join(timeout=30)
    assert got == [model.to_xgboost_json()]
    assert "wrote 4 trees" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.path.islink(out) == through_a_link


@fifos
def test_fit_out_into_a_fifo(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    np.save(tmp_path / "d.npy", np.column_stack([X, (X[:, 0] > 0).astype(float)]))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = _read_in_thread(fifo, got)
    assert main(["fit", str(tmp_path / "d.npy"), "--learner", "stumps", "--n-iter", "2", "-q", "--out", str(fifo)]) == 0
    reader.join(timeout=30)
    assert json.loads(got[0])["format"] == "rankcore-model" and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_export_through_a_link_to_a_file_needs_force_and_keeps_the_link(tmp_path, capsys):
    model = _model(tmp_path)
    (tmp_path / "served").mkdir()
    served = tmp_path / "served" / "model.txt"
    served.write_text("the old model")
    link = tmp_path / "current.txt"
    link.symlink_to(served)
    assert main(["export", str(tmp_path / "m.json"), "-o", str(link)]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "m.json"), "-o", str(link), "--force", "-q"]) == 0
    assert link.is_symlink() and served.read_text(encoding="utf-8") == model.to_lightgbm()


@pytest.mark.parametrize("fmt", ["xgboost-json", "lightgbm"])
def test_feature_names_comma_separated_or_from_a_file(tmp_path, capsys, fmt):
    model = _model(tmp_path)
    names = ["title_bm25", "body bm25", "price"]
    method = model.to_xgboost_json if fmt == "xgboost-json" else model.to_lightgbm
    assert main(["export", str(tmp_path / "m.json"), "--format", fmt, "-o", "-",
                 "--feature-names", "title_bm25, body bm25 ,price"]) == 0
    assert capsys.readouterr().out == method(feature_names=names)
    (tmp_path / "names.txt").write_text("title_bm25\r\nbody bm25\nprice\n\n", encoding="utf-8")
    assert main(["export", str(tmp_path / "m.json"), "--format", fmt, "-o", "-",
                 "--feature-names", f"@{tmp_path / 'names.txt'}"]) == 0
    assert capsys.readouterr().out == method(feature_names=names)


def test_feature_names_name_the_splits(tmp_path, capsys):
    _model(tmp_path)
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-json", "-o", "-",
                 "--feature-names", "a,b,c"]) == 0
    assert _splits(capsys.readouterr().out) == {"a", "b"}


@pytest.mark.parametrize("option, fragment", [
    ("a,b", "--feature-names: expected 3 names (one per feature), got 2"),
    ("a,,c", "--feature-names: name 2 is empty"),
    ("a,b,a", "--feature-names: columns 0 and 2 are both named 'a'"),
    ("@missing.txt", "--feature-names: cannot read the file of names 'missing.txt': No such file or directory"),
])
def test_feature_names_errors_name_the_option(tmp_path, capsys, monkeypatch, option, fragment):
    _model(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.json"
    assert main(["export", "m.json", "--format", "xgboost-json", "-o", str(out), "--feature-names", option]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rankcore: error: ") and fragment in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_a_model_without_trees_is_written_as_one_leaf_with_a_warning(tmp_path, capsys):
    _model(tmp_path, learner="trees:min_samples_leaf=150", name="constant.json")
    assert main(["export", str(tmp_path / "constant.json"), "--format", "xgboost-json", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == [{"nodeid": 0, "leaf": 0.0}]
    assert "rankcore: warning: " in captured.err and "constant.json: " in captured.err
    assert "the model has no trees" in captured.err


def test_a_file_of_feature_names_with_a_byte_order_mark(tmp_path, capsys):
    # Notepad's and Excel's "CSV UTF-8" start the file with U+FEFF: not a part of the first name
    _model(tmp_path)
    (tmp_path / "names.txt").write_bytes(b"\xef\xbb\xbfbm25\nprice\nage\n")
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-json", "--feature-names",
                 f"@{tmp_path / 'names.txt'}", "-o", str(tmp_path / "x.json"), "-q"]) == 0
    splits = _splits((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert splits and splits <= {"bm25", "price", "age"}



def test_the_help_says_a_libsvm_model_keeps_its_index_names(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a LIBSVM file's indices f1, f2, ... (f0, ... if 0-based)" in text
    rng = np.random.default_rng(0)
    with open(tmp_path / "q.svm", "w") as f:                      # a 1-based file: its columns are f1, f2, f3
        for i in range(120):
            x = rng.normal(size=3)
            f.write(f"{int(x[0] > 0)} " + " ".join(f"{k + 1}:{v:.3f}" for k, v in enumerate(x)) + "\n")
    assert main(["fit", str(tmp_path / "q.svm"), "--learner", "trees", "--n-iter", "3", "-q",
                 "-o", str(tmp_path / "m.json")]) == 0
    assert main(["export", str(tmp_path / "m.json"), "--format", "xgboost-json", "-o", str(tmp_path / "x.json"),
                 "-q"]) == 0
    assert _splits((tmp_path / "x.json").read_text(encoding="utf-8")) <= {"f1", "f2", "f3"}
