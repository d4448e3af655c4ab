"""The top-of-the-list comparison's bookkeeping (studies/top_of_list_comparison.py).

``--merge`` joins the raw per-split results of several runs into one report:
it must give the report of one run over the same sets, and refuse what it
cannot join (a set in two files, different learners, different split counts).
``--threads`` must reach every learner as its own thread parameter.
"""

import importlib.util
import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "studies" / "top_of_list_comparison.py"

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="needs the source checkout's studies/")


@pytest.fixture(scope="module")
def tol():
    spec = importlib.util.spec_from_file_location("rankcore_studies_top_of_list", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _raw(sets, learners=("a", "b"), splits=2, offset=0.0):
    metrics = ("prec@1%", "prec@5%", "pauc@0.1", "auc")
    results = {d: {n: {m: [0.1 * (i + 1) + offset + 0.01 * s for s in range(splits)] for m in metrics}
                   for i, n in enumerate(learners)} for d in sets}
    results[sets[0]][learners[0]]["auc"][0] = math.nan  # a failed split
    times = {d: {n: [0.5 + 0.1 * s + i for s in range(splits)] for i, n in enumerate(learners)} for d in sets}
    return {"results": results, "times": times, "notes": [f"{sets[0]}: a note"], "unavailable": {}, "splits": splits}


def _write(path, raw):
    path.write_text(json.dumps(raw))
    return str(path)


def test_merge_gives_the_report_of_one_run(tol, tmp_path):
    one = _raw(["x", "y", "z"])
    first = {k: ({d: v for d, v in one[k].items() if d in ("x", "y")} if k in ("results", "times") else one[k])
             for k in one}
    second = {k: ({d: v for d, v in one[k].items() if d == "z"} if k in ("results", "times") else one[k])
              for k in one}
    second["notes"] = []
    results, times, notes, splits = tol.merge_raw([_write(tmp_path / "1.json", first),
                                                   _write(tmp_path / "2.json", second)])
    assert list(results) == ["x", "y", "z"] and splits == 2
    assert notes == ["1.json: x: a note"]
    expected = tol.report(one["results"], one["times"], {}, [], 2)
    assert tol.report(results, times, {}, [], 2) == expected


def test_merge_through_the_command_line(tol, tmp_path, capsys):
    a = _write(tmp_path / "a.json", _raw(["x"]))
    b = _write(tmp_path / "b.json", _raw(["y"], offset=0.05))
    out = tmp_path / "report.md"
    assert tol.main(["--merge", f"{a},{b}", "--out", str(out)]) == 0
    text = out.read_text()
    assert "2 datasets, 2 stratified 70/30 splits" in text and "| y |" in text


@pytest.mark.parametrize("change, message", [
    (lambda raw: raw, "in more than one file"),
    (lambda raw: {**raw, "results": {"w": {"a": raw["results"]["x"]["a"]}}, "times": {"w": raw["times"]["x"]}},
     "has learners"),
    (lambda raw: {**_raw(["w"], splits=3)}, "different numbers of splits"),
])
def test_merge_refuses_what_it_cannot_join(tol, tmp_path, change, message):
    raw = _raw(["x"])
    a = _write(tmp_path / "a.json", raw)
    b = _write(tmp_path / "b.json", change(raw))
    with pytest.raises(ValueError, match=message):
        tol.merge_raw([a, b])


def test_threads_reach_every_learner(tol):
    learners = tol._learners(threads=1)
    made = {name: factory(0) for name, factory in learners.items()
            if callable(factory) and not getattr(factory, "needs_budget", False)}
    assert made["rankcore-trees"].n_jobs == 1 and made["exactboost"].n_jobs == 1
    assert made["auto"].n_jobs == 1
    for name in ("lightgbm", "xgboost"):
        if name in made:
            assert made[name].get_params()["n_jobs"] == 1
    if "catboost" in made:
        assert made["catboost"].get_params()["thread_count"] == 1
    if callable(learners.get("flaml")):
        assert learners["flaml"](0, 2.0).jobs == {"n_jobs": 1}
    default = tol._learners()
    assert default["rankcore-trees"](0).n_jobs is None


def test_head_to_head_counts_wins_ties_losses_and_failures(tol):
    nan = math.nan
    metrics = ("prec@1%", "prec@5%", "pauc@0.1", "auc")

    def sets(rows):
        return {f"s{i}": {n: {m: list(v) for m in metrics} for n, v in row.items()} for i, row in enumerate(rows)}

    results = sets([
        {"a": [0.5, 0.7], "b": [0.4, 0.6], "c": [0.6, 0.6]},      # a wins b, a ties c (same mean)
        {"a": [0.2, 0.2], "b": [0.3, 0.3], "c": [nan, nan]},      # a loses to b, c failed: a wins
        {"a": [nan, 0.9], "b": [0.9, 0.9], "c": [0.1, 0.2]},      # a failed split: its mean over the other
    ])
    counts = tol.head_to_head(results, ["a", "b", "c"], "auc")
    assert counts == {"b": (1, 1, 1), "c": (2, 1, 0)}
    lines = tol.head_to_head_section(results, ["a", "b", "c"])
    text = "\n".join(lines)
    assert "## a against each other learner" in text
    assert "| b | 1/1/1 | " in text and "| c | 2/1/0 | " in text
    assert tol.head_to_head_section(results, ["a"]) == []
    assert "## a against each other learner" in tol.report(
        results, {d: {n: [1.0] for n in "abc"} for d in results}, {}, [], 2)


def test_a_learner_failed_everywhere_is_reported_without_warnings(tol):
    """FLAML refuses NaN on every split of a set: its cells say "failed", it ranks last, and nothing warns."""
    import warnings

    raw = _raw(["x", "y"], learners=("a", "b", "c"))
    for m in raw["results"]["y"]["c"]:
        raw["results"]["y"]["c"][m] = [math.nan, math.nan]
    assert math.isnan(tol.split_mean([math.nan, math.nan]))
    assert tol.split_mean([0.2, math.nan, 0.4]) == pytest.approx(0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = tol.report(raw["results"], raw["times"], {}, [], 2)
        ranks = tol.average_ranks(raw["results"], ["a", "b", "c"], "pauc@0.1")
    row = next(line for line in text.splitlines() if line.startswith("| y |"))
    assert row.endswith("| failed |") and "nan" not in row
    assert ranks["c"] == pytest.approx((1 + 3) / 2)   # best on x, last on y
    assert "| c | " in text and "(1 sets)" in text
