"""The example third-party plugin, installed as its own distribution, is found by name."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rankcore
from _plugin_install import installed_plugin

PLUGIN_DIR = Path(__file__).resolve().parents[2] / "plugins" / "rankcore-example-plugin"
DIST = "rankcore-example-plugin"


@pytest.fixture(scope="session")
def example_plugin_installed():
    """Install the plugin into the test environment (offline: no deps, no build isolation)."""
    yield from installed_plugin(PLUGIN_DIR, DIST)


def _in_fresh_interpreter(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_plugin_components_found_without_import(example_plugin_installed):
    # A fresh interpreter that never imports the plugin's package by name.
    out = _in_fresh_interpreter(
        "import json, rankcore\n"
        "reg = rankcore.get_registry()\n"
        "print(json.dumps({f: {n: reg.entry(f, n).distribution for n in reg.names(f)} for f in ('price', 'metric')}))\n"
    )
    found = json.loads(out)
    assert found["metric"]["binary_ndcg@k"] == f"{DIST} 0.1.0"
    assert found["price"]["cubic"] == f"{DIST} 0.1.0"
    assert all(dist == "rankcore" for name, dist in found["metric"].items() if name != "binary_ndcg@k")
    assert all(dist == "rankcore" for name, dist in found["price"].items() if name != "cubic")


def test_plugin_price_configured_by_spec(example_plugin_installed):
    price = rankcore.resolve("price", "cubic:0.5")
    r = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(price.value(r), r + 0.5 * r**3 / 3)
    np.testing.assert_allclose(price.derivative(r), 1 + 0.5 * r**2)
    # log forms stay finite where the plain ones overflow
    assert np.isfinite(price.log_value(np.array([800.0]))).all()
    with pytest.raises(rankcore.SpecError, match=r"c must be a number >= 0, got '-1'"):
        rankcore.resolve("price", "cubic:-1")


def test_plugin_metric_used_by_name(example_plugin_installed):
    y = np.array([1, 0, 1, 0, 0, 1])
    scores = np.array([0.9, 0.8, 0.7, 0.7, 0.1, 0.0])
    value = rankcore.evaluate(y, scores, ["binary_ndcg@k:3"])["binary_ndcg@k:3"]
    # ranks 1..3: pos, neg, then a tie (pos, neg) over ranks 3..4 -> half credit at rank 3
    ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert value == pytest.approx((1 + 0.5 / np.log2(4)) / ideal)
    entries = {(r["family"], r["name"]): r["distribution"] for r in rankcore.list_plugins()}
    assert entries[("metric", "binary_ndcg@k")] == f"{DIST} 0.1.0"


def test_plugin_metric_scores_a_query_shorter_than_k_on_all_its_items(example_plugin_installed):
    # a count beyond the list was refused for each such query, which per_query then left out of the mean
    y = np.array([1, 0, 0, 1, 0, 1, 0, 0, 0, 1])
    scores = np.array([0.1, 0.9, 0.3, 0.8, 0.7, 0.6, 0.5, 0.4, 0.2, 0.0])
    qid = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1])                  # 3 and 7 items
    found = rankcore.metrics.per_query(y, scores, "binary_ndcg@k:5", qid=qid)
    assert found.n_left_out == 0 and found.values.shape == (2,)
    whole = rankcore.evaluate(y[:3], scores[:3], ["binary_ndcg@k:3"])["binary_ndcg@k:3"]
    assert found.values[0] == pytest.approx(whole)
    assert rankcore.evaluate(y[3:], scores[3:], ["binary_ndcg@k:5"])["binary_ndcg@k:5"] == pytest.approx(
        found.values[1])


def test_plugin_shown_by_command_line(example_plugin_installed):
    done = subprocess.run([sys.executable, "-m", "rankcore", "plugins", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)["components"]
    assert {"family": "metric", "name": "binary_ndcg@k", "distribution": f"{DIST} 0.1.0"}.items() <= next(
        r for r in records if r["name"] == "binary_ndcg@k"
    ).items()
