"""rankcore.demo.run_demo: the main job's table on the bundled breast-cancer data."""

import io

from rankcore.demo import DEMO_METRICS, run_demo


def test_run_demo_prints_the_table_and_returns_the_records():
    out = io.StringIO()
    records = run_demo(out, prices=("identity", "pow:16"), n_iter=20, n_jobs=1)
    text = out.getvalue()
    assert "wdbc" in text and "positives = malignant" in text
    lines = text.strip().splitlines()
    header = lines[-4].split()
    assert header[0] == "price" and "rmax" in header and header[-2:] == ["fit", "s"]
    assert [line.split()[0] for line in lines[-2:]] == ["identity", "pow:16"]
    assert [r["price"] for r in records] == ["identity", "pow:16"]
    for r in records:
        assert set(r["train"]) == set(r["test"]) == set(DEMO_METRICS)
        assert 0.9 < r["test"]["auc"] <= 1.0                     # wdbc is easy
        assert r["train"]["rmax"] >= 1


def test_run_demo_all_features_with_stumps():
    out = io.StringIO()
    records = run_demo(out, prices=("pow:4",), learner="stumps", columns=None, n_iter=10, metrics=("auc",),
                       n_jobs=1)
    assert "30 features" in out.getvalue() and records[0]["train"]["auc"] > 0.95
