"""The documentation's shape holds: guides stay short, links resolve, no citation a reader cannot open.

The family pages in ``docs/`` are guides (what a learner is for, when to pick
it, an example, its cost and one table of how it does); the measurements
behind their figures are records in ``docs/studies/``, produced by the
scripts in ``studies/``; ``benchmarks/`` holds the pytest-benchmark suite
alone.  These tests keep it so: the longest guides under 500 lines, every
relative link and anchor resolving, every study script documented, no
tracker issue number cited, and every CHANGELOG entry short.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "studies" / "README.md",
         *sorted(DOCS.glob("*.md")), *sorted((DOCS / "studies").glob("*.md"))]
#: The guides that once held their studies' every table, and the guides split by topic to stay short.
SHORT_GUIDES = ("push", "exactboost", "auto", "top_of_list", "ranking_within_queries", "query_objectives",
               "query_positions_and_init", "trees", "tree_explanations", "tree_data", "tree_constraints", "plugins",
               "plugin_estimators", "plugin_objectives", "plugin_hooks", "cli", "cli_data", "cli_queries",
               "cli_explain", "cli_compare", "cli_export", "dask", "dask_trees", "dask_queries", "dask_metrics",
               "metrics", "metrics_queries", "metrics_intervals", "kernel_ranking", "kernel_ranking_filters",
               "kernel_ranking_solvers", "precision_at_k", "precision_at_k_surrogates")
#: Guides whose figures come from a record in docs/studies/.
GUIDES_WITH_RECORDS = ("push", "trees", "exactboost", "precision_at_k", "kernel_ranking", "auto", "top_of_list",
                       "benchmarks", "gbdt", "ranking_within_queries", "query_objectives", "query_positions_and_init",
                       "tree_data", "dask_trees", "kernel_ranking_solvers", "precision_at_k_surrogates")
#: benchmarks/ modules that are not ``bench_*`` files: the suite's support and tracking.
BENCHMARK_SUPPORT = {"conftest.py", "_data.py", "_lightgbm.py", "_ratios.py", "_shapes.py", "dask_synthetic.py",
                     "kernel_ratios.py", "track.py", "_queries.py", "_query_cv.py", "_query_models.py",
                     "_background_models.py"}
#: "issue 14", "issues 14, 15", "issue #3": the tracker is not part of the repository.
ISSUE_CITATION = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: markup and punctuation dropped, lower case, spaces as hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _without_code(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _anchors(path: Path) -> set:
    found = set()
    for heading in re.findall(r"^#+ (.+)$", _without_code(path.read_text(encoding="utf-8")), re.M):
        anchor, n = _anchor(heading), 0
        while (f"{anchor}-{n}" if n else anchor) in found:
            n += 1
        found.add(f"{anchor}-{n}" if n else anchor)
    return found


def test_anchor_follows_github():
    assert _anchor("Large data: `early_stopping=\"auto\"`") == "large-data-early_stoppingauto"
    assert _anchor("CatBoost's defaults, one idea at a time") == "catboosts-defaults-one-idea-at-a-time"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(path):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _without_code(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        destination = (path.parent / name) if name else path
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in _anchors(destination):
            broken.append(f"{target}: no such heading")
    assert broken == []


@pytest.mark.parametrize("name", SHORT_GUIDES)
def test_guides_stay_short(name):
    lines = (DOCS / f"{name}.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 500, f"docs/{name}.md has {lines} lines: move study records to docs/studies/"


@pytest.mark.parametrize("name", GUIDES_WITH_RECORDS)
def test_guides_link_their_study(name):
    assert "](studies/" in (DOCS / f"{name}.md").read_text(encoding="utf-8")


def test_study_records_are_not_run_as_pages():
    """tests/docs/test_docs.py runs docs/*.md only: a record shows commands and tables as they were run."""
    import test_docs

    assert not any("studies" in page.parts for page in test_docs.PAGES)


def test_benchmarks_hold_only_the_suite():
    others = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")
                    if not p.name.startswith("bench_") and p.name not in BENCHMARK_SUPPORT)
    assert others == [], "studies and reproductions belong in studies/"


def test_every_study_script_is_documented():
    readme = (ROOT / "studies" / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in (ROOT / "studies").glob("*.py") if f"`{p.name}`" not in readme]
    assert missing == []


def _cited_issues(paths):
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if ISSUE_CITATION.search(line):
                yield f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"


def test_no_tracker_issue_is_cited():
    paths = [p for p in PAGES if p.exists()]
    for folder in ("benchmarks", "studies", "tools"):
        paths += sorted((ROOT / folder).glob("*.py"))
    for folder in ("rankcore", "tests", "plugins"):
        paths += sorted(p for suffix in ("*.py", "*.pyx", "*.pxd", "*.pxi", "*.md")
                        for p in (ROOT / folder).rglob(suffix) if "build" not in p.parts)
    paths = [p for p in paths if p.name != Path(__file__).name]
    assert list(_cited_issues(paths)) == [], "cite the docs, a paper or the code instead"


def _changelog_entries() -> list:
    """[first line, number of lines] of every entry: a line "- ..." and its indented continuation."""
    entries, entry = [], None
    for number, line in enumerate((ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("- "):
            entry = [number, 1]
            entries.append(entry)
        elif entry is not None and line.startswith("  ") and line.strip():
            entry[1] += 1
        else:
            entry = None
    return entries


def test_changelog_entries_are_short():
    long = [f"line {start}: {length} lines" for start, length in _changelog_entries() if length > 5]
    assert long == [], "an entry says what changed for a user in one to three lines"
