"""Documentation stays true: every code block of README.md and docs/*.md runs, every output shown is printed.

A page's blocks run in order, in one namespace and one scratch directory, so
a page can write a data file in Python and use it on the command line.  How
blocks are read and marked (``<!-- docs-test: skip REASON -->``,
``<!-- docs-test: output -->``, ``# -> TEXT``, ...) is described in
tests/_docs_blocks.py and in the README's Development section.  The
command lines run in this process through ``rankcore.cli.main``, the console
script's function (tests/cli/test_cli_commands.py runs the installed entry point).
"""

import contextlib
import inspect
import io
import re
import sys
from pathlib import Path

import pytest

from _docs_blocks import (
    Block,
    bash_commands,
    compare_output,
    read_blocks,
    run_python,
)
from rankcore import hookspecs

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
#: Terminal width the command lines see (their tables fit it).
COLUMNS = 100


def _all_blocks():
    return [block for page in PAGES for block in read_blocks(page)]


def _run_bash(block: Block) -> str:
    from rankcore.cli import main

    expected_status = int(block.argument) if block.directive == "exit" else 0
    printed = []
    for argv in bash_commands(block):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv[1:])
        command = " ".join(argv)
        assert status == expected_status, (
            f"{block.where}: `{command}` exited with {status}, expected {expected_status}:\n{err.getvalue()}")
        printed.append(out.getvalue() + err.getvalue())
    return "".join(printed)


def _check_file(block: Block) -> None:
    """The block is the repository file it names, or excerpts of it separated by lines '...'.

    An excerpt may be shown with less indentation than in the file (a method
    of a class, shown on its own).
    """
    import textwrap

    target = ROOT / block.argument
    assert target.is_file(), f"{block.where}: {block.argument} does not exist"
    text = target.read_text(encoding="utf-8")
    position = 0
    for part in re.split(r"^\s*(?:#\s*)?\.\.\.\s*$", block.code, flags=re.M):
        part = part.strip("\n")
        if not part:
            continue
        found = [(i, len(p)) for p in (textwrap.indent(part, " " * n) for n in (0, 4, 8))
                 if (i := text.find(p, position)) >= 0]
        assert found, f"{block.where}: this excerpt is not in {block.argument} (in this order):\n{part}"
        position = sum(min(found))


def _subcommand(parser, words):
    """The parser of ``rankcore WORD [WORD...]``: descend while the words name subcommands."""
    import argparse

    for word in words:
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions or word not in actions[0].choices:
            break
        parser = actions[0].choices[word]
    return parser


def _check_command_text(block: Block) -> None:
    """Command lines shown as text parse; a synopsis ``rankcore CMD [--option ...]`` names real options."""
    import shlex

    from rankcore.cli import build_parser

    # a command starts a line; indented lines continue it
    commands = re.findall(r"^rankcore .*(?:\n[ \t]+.*)*", block.code, flags=re.M)
    for command in commands:
        words = command.split()
        if "[" in command:                                   # a synopsis
            sub = _subcommand(build_parser(), words[1:])
            known = {option for action in sub._actions for option in action.option_strings}
            unknown = sorted(set(re.findall(r"(?<![\w-])--?[a-z][\w-]*", command)) - known)
            assert not unknown, f"{block.where}: `{' '.join(words[:3])}` has no option(s) {', '.join(unknown)}"
            continue
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                build_parser().parse_args(shlex.split(command, comments=True)[1:])
        except SystemExit:
            raise AssertionError(f"{block.where}: `{command}` does not parse: {err.getvalue().strip()}") from None


def run_page(path: Path, namespace: dict) -> int:
    """Run every block of one page; returns how many blocks ran or were compared."""
    checked, last_output, last_runnable = 0, None, None
    for block in read_blocks(path):
        if block.directive == "skip":
            continue
        if block.directive == "output":
            assert last_output is not None, f"{block.where}: an output block must follow a block that runs"
            problem = compare_output(block.code, last_output)
            assert problem is None, f"{block.where} (output of {last_runnable.where}): {problem}"
        elif block.directive == "file":
            _check_file(block)
        elif block.lang == "python":
            last_output, last_runnable = run_python(block, namespace), block
        elif block.lang in ("bash", "sh", "console", "shell"):
            last_output, last_runnable = _run_bash(block), block
        elif block.lang == "text":
            _check_command_text(block)
            continue
        else:
            raise AssertionError(f"{block.where}: a ```{block.lang or '(no language)'} block must be marked "
                                 "<!-- docs-test: skip REASON --> or <!-- docs-test: file PATH -->")
        checked += 1
    return checked


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_doc_examples_run(path, tmp_path, monkeypatch):
    """Run a page's examples in order, in one namespace, in a scratch directory; compare shown outputs."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    monkeypatch.setattr(sys, "path", list(sys.path))       # a page may import a package it wrote
    namespace = {"__name__": f"docs_{path.stem}"}
    try:
        run_page(path, namespace)
    finally:                                               # ... which later tests must not find
        roots = (str(tmp_path), str(tmp_path.resolve()))
        scratch = [name for name, module in list(sys.modules.items())
                   if str(getattr(module, "__file__", None) or "").startswith(roots)]
        for name in scratch:
            del sys.modules[name]


def test_few_blocks_are_skipped_and_each_says_why():
    blocks = _all_blocks()
    skipped = [b for b in blocks if b.directive == "skip"]
    runnable = [b for b in blocks if b.lang in ("python", "bash")]
    assert all(b.argument for b in skipped)
    assert len(skipped) <= 0.2 * len(runnable), (
        "too many skipped blocks:\n" + "\n".join(f"{b.where}: {b.argument}" for b in skipped))


def test_every_shown_output_is_compared():
    """A ```text block right after "prints" is marked as output, so that it is compared."""
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for block in read_blocks(page):
            if block.lang != "text" or block.directive:
                continue
            before = " ".join(lines[max(0, block.line - 4):block.line - 1]).lower()
            assert not re.search(r"\bprints?\b[^.]*:\s*$", before), (
                f"{block.where}: this looks like printed output; mark it <!-- docs-test: output -->")


#: Citations of documents users do not have: the project's internal specification, seed papers by
#: file number, the shared folder of the development machines.
_OUTSIDE = re.compile(r"SPEC(?:\.md)?`? *§|`SPEC\.md`|\bseed 0\d\d\b|\.\./shared|/work/shared|\bshared datasets\b")
#: Pages whose citations another branch still has to replace (strict xfail fails as soon as a page is clean).
_CLEANED_ELSEWHERE: set = set()


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.xfail(strict=True, reason="cleaned on the seams branch"))
    if p.name in _CLEANED_ELSEWHERE else p for p in PAGES], ids=lambda p: p.name)
def test_pages_cite_no_document_outside_the_repository(path):
    text = path.read_text(encoding="utf-8")
    found = [(text[:m.start()].count("\n") + 1, m.group()) for m in _OUTSIDE.finditer(text)]
    assert not found, f"{path.name} cites documents users do not have (cite papers by authors, title, year): {found}"


def _hooks():
    return [(name, func) for name, func in inspect.getmembers(hookspecs, inspect.isfunction)
            if name.startswith("rankcore_")]


@pytest.mark.parametrize("name, func", _hooks(), ids=[n for n, _ in _hooks()])
def test_every_hook_documented_with_its_signature(name, func):
    guide = (ROOT / "docs" / "plugin_hooks.md").read_text(encoding="utf-8")
    signature = f"{name}{inspect.signature(func)}"
    assert f"### {signature}" in guide, f"docs/plugin_hooks.md must document `### {signature}`"


def test_docs_name_only_registered_hooks():
    guide = (ROOT / "docs" / "plugin_hooks.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^### (rankcore_\w+)\(", guide, re.M))
    assert documented == {name for name, _ in _hooks()}
