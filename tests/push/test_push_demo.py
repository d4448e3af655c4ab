"""rankcore.demo.run_demo: the main job's table on the bundled breast-cancer data."""

import io

from rankcore.demo import DEMO_METRICS, run_demo


def test_run_demo_prints_the_table_and_returns_the_records():
    out = io.StringIO()
    records = run_demo(out, prices=("identity", "pow:16"), n_iter=20, n_jobs=1)
    text = out.getvalue()
    assert "wdbc" in text and "positives = malignant" in " ".join(text.split())
    lines = text.splitlines()
    top = lines.index(next(line for line in lines if line.startswith("price")))
    header, sub = lines[top].split(), lines[top + 1].split()
    assert header == ["price", *DEMO_METRICS, "fit"] and sub == ["train", "test"] * len(DEMO_METRICS) + ["s"]
    assert [line.split()[0] for line in lines[top + 2:top + 4]] == ["identity", "pow:16"]
    # the legend says what each column means; pAUC is scaled so that 1 is perfect
    assert "pauc:0.1,mcclish: area under the ROC curve up to 10 % false positives, McClish-scaled: 1 is perfect" \
        in " ".join(line.strip() for line in lines)
    assert records[0]["test"]["pauc:0.1,mcclish"] > 0.5
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
