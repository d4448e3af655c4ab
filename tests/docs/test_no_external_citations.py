"""The repository cites papers and its own docs, never documents it does not contain.

The mathematics lives in ``docs/theory/``; code and docs point there (page and
section) and cite papers by authors, title and year.  No file may refer to a
specification or to paper extracts kept outside the repository, or to a path
outside it.  The one allowed exception is code, not text: the benchmarks'
datasets folder defaults to a folder beside the repository when
``RANKCORE_DATASETS`` is not set (``benchmarks/_data.py``), written as path
parts.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("rankcore", "docs", "benchmarks", "studies", "tools", "plugins", "tests", "README.md", "CHANGELOG.md",
           "setup.py", "pyproject.toml", "MANIFEST.in")
TEXT_SUFFIXES = {".py", ".pyx", ".pxd", ".pxi", ".md", ".txt", ".toml", ".cfg", ".in", ".rst", ".json", ".yml",
                 ".yaml", ".ini", ""}
# built from pieces, so that this file does not match itself
FORBIDDEN = [re.escape("SPEC" + " §"), re.escape("SPEC" + ".md"), "seed" + r" 00\d", re.escape(".." + "/shared"),
             re.escape("/work" + "/shared")]
PATTERN = re.compile("|".join(FORBIDDEN))


def _files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *SCANNED],
                                cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\n")
        paths = [ROOT / p for p in listed if p]
    except (OSError, subprocess.CalledProcessError):          # not a git checkout: walk the folders
        paths = []
        for name in SCANNED:
            top = ROOT / name
            if top.is_file():
                paths.append(top)
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("build", "__pycache__")]
                paths += [Path(folder) / f for f in files]
    return [p for p in paths if p.is_file() and p.suffix in TEXT_SUFFIXES and p.name not in PATTERN_FILES]


#: Tests that spell the forbidden patterns in order to look for them.
PATTERN_FILES = {Path(__file__).name, "test_docs.py"}


def test_the_scan_reads_the_repository():
    files = _files()
    names = {p.relative_to(ROOT).as_posix() for p in files}
    assert "README.md" in names and "rankcore/push/_driver.py" in names and "docs/theory/push.md" in names


def _texts():
    """(path, text) of every scanned text file that is UTF-8."""
    for path in _files():
        try:
            yield path, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def test_no_file_cites_documents_outside_the_repository():
    found = []
    for path, text in _texts():
        for number, line in enumerate(text.splitlines(), start=1):
            if PATTERN.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == [], "cite docs/theory/<page>.md#<section> or the paper instead:\n" + "\n".join(found)


@pytest.mark.parametrize("page", ["push", "precision_at_k", "kernel_ranking", "exactboost", "metrics"])
def test_every_docs_theory_link_in_the_code_names_an_existing_section(page):
    """``docs/theory/<page>.md#<section>`` in code, docs and tests: the page exists and has that heading."""
    path = ROOT / "docs" / "theory" / f"{page}.md"
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)}
    link = re.compile(rf"theory/{page}\.md#([\w-]+)")
    bad = [f"{f.relative_to(ROOT)}: #{a}" for f, text in _texts() for a in link.findall(text) if a not in anchors]
    assert bad == []


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")
