"""Read the fenced code blocks of a Markdown page and check what they claim.

Used by tests/docs/test_docs.py, which runs every block of README.md and docs/*.md.

How a page is read
------------------
Every fenced block (```lang ... ```, indented ones in list items too) is a
:class:`Block`.  An HTML comment ``<!-- docs-test: ... -->`` on the line
before the fence (blank lines allowed between) says what the block is:

``<!-- docs-test: skip REASON -->``
    Not run in the test suite (it needs the network, the shared datasets, a
    long run...); the reason is required and the tests list every skip.
``<!-- docs-test: output -->``
    The output of the previous runnable block: compared with what that block
    printed (:func:`compare_output`).
``<!-- docs-test: exit N -->``
    A ```bash block whose commands are expected to fail with exit status N
    (an error message shown on purpose).
``<!-- docs-test: file PATH -->``
    The block is the file PATH of the repository (or excerpts of it,
    separated by lines ``...``): compared with the file, not run.

Without a directive, ```python blocks run (statement by statement, so that an
error names the Markdown line), ```bash blocks run each ``rankcore ...`` line
in-process through ``rankcore.cli.main``, and ```text blocks are displays
(a synopsis ``rankcore CMD [...]`` has its options checked against the
parser).  Any other language, or a ```bash line that is not a ``rankcore``
command, must carry a directive.

Expected output
---------------
A ```python statement whose last line ends with a comment ``# -> TEXT`` (or
``# what it is -> TEXT``) must print TEXT; an ``output`` block holds the whole output of the block before it.
Both are compared by :func:`compare_output`: whitespace runs are one space,
``...`` stands for any text, and a number matches any number that rounds to
it at the precision printed (``0.0918`` matches 0.09176; ``147`` only 147).
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "read_blocks", "compare_output", "inline_expectations", "run_python", "bash_commands",
           "DIRECTIVES", "CI_TEST_COMMAND"]

#: The directives a ``<!-- docs-test: ... -->`` comment may give.
DIRECTIVES = ("skip", "output", "exit", "file")
#: The README's marker of the command CI runs (``.ci/run`` extracts it); such a block is not run again.
CI_TEST_COMMAND = "<!-- ci:test-command -->"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[ \t]*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<word>[\w-]+)\s*(?P<arg>.*?)\s*-->\s*$")
_EXPECT = re.compile(r"#[^#]*?->\s?(?P<text>.*)$")
_NUMBER = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
_TOKEN = re.compile(rf"(?P<ellipsis>\.\.\.)|(?P<number>(?<![\w.]){_NUMBER}(?![\w]))|(?P<space>\s+)|(?P<other>.)", re.S)


@dataclass
class Block:
    """One fenced block of a page.

    Attributes
    ----------
    path : Path
    line : int
        1-based line of the opening fence.
    lang : str
        The info string (``python``, ``bash``, ``text``, ...; ``""`` if none).
    code : str
        The block's text, dedented to the fence's indentation.
    directive : str or None
        The ``docs-test`` word (``skip``, ``output``, ``exit``, ``file``), or
        ``"skip"`` for the README's CI test command.
    argument : str
        The rest of the directive (the reason, the path, the exit status).
    """

    path: Path
    line: int
    lang: str
    code: str
    directive: str | None = None
    argument: str = ""

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def read_blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown page, in order, with its directive."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, start = match.group("indent"), i
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        if i == len(lines):
            raise AssertionError(f"{path.name}:{start + 1}: the code block is never closed")
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line for line in lines[start + 1:i])
        block = Block(path, start + 1, match.group("lang"), textwrap.dedent(body) + "\n")
        _attach_directive(block, lines, start)
        blocks.append(block)
        i += 1
    return blocks


def _attach_directive(block: Block, lines: list[str], fence: int) -> None:
    j = fence - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0:
        return
    if lines[j].strip() == CI_TEST_COMMAND:
        block.directive, block.argument = "skip", "the README's test command: CI runs it (.ci/run)"
        return
    match = _DIRECTIVE.match(lines[j])
    if match:
        word = match.group("word")
        if word not in DIRECTIVES:
            raise AssertionError(f"{block.where}: unknown docs-test directive {word!r}; expected one of {DIRECTIVES}")
        block.directive, block.argument = word, match.group("arg")
        if word == "skip" and not block.argument:
            raise AssertionError(f"{block.where}: a skipped block needs a reason: <!-- docs-test: skip REASON -->")


# --------------------------------------------------------------------------
# Comparing output
# --------------------------------------------------------------------------


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for match in _TOKEN.finditer(text.strip()):
        kind = match.lastgroup
        value = " " if kind == "space" else match.group()
        if out and kind == "other" and out[-1][0] == "other":
            out[-1] = ("other", out[-1][1] + value)
        else:
            out.append((kind, value))
    return out


def _tolerance(number: str) -> float:
    """Half a unit of the last printed digit of ``number``."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.partition(".")[2]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals) * (1 + 1e-9)


def _pattern(tokens: list[tuple[str, str]]) -> re.Pattern:
    parts = []
    for i, (kind, value) in enumerate(tokens):
        if kind == "ellipsis":
            parts.append("(.*?)")
        elif kind == "number":
            parts.append(rf"(?<![\w.])({_NUMBER})(?![\w])")
        elif kind == "space":  # optional next to "...", which may stand for nothing
            beside = {tokens[j][0] for j in (i - 1, i + 1) if 0 <= j < len(tokens)}
            parts.append(r"\s*" if "ellipsis" in beside else r"\s+")
        else:
            parts.append(re.escape(value))
    return re.compile("".join(parts), re.S)


def compare_output(expected: str, actual: str) -> str | None:
    """None when ``actual`` shows what ``expected`` says; otherwise what differs.

    Whitespace runs compare as one space, ``...`` matches any text, and each
    number of ``expected`` matches a number of ``actual`` that is within half
    a unit of its last printed digit (``0.0918`` matches 0.09176, ``147``
    matches only 147, ``1.0e-3`` matches 0.00104).
    """
    tokens = _tokens(expected)
    match = _pattern(tokens).fullmatch(actual.strip())
    if match is None:
        return f"the text differs:\n--- documented\n{expected.strip()}\n--- printed\n{actual.strip()}"
    groups = iter(match.groups())
    wrong = []
    for kind, value in tokens:
        if kind == "ellipsis":
            next(groups)
        elif kind == "number":
            got = next(groups)
            if abs(float(got) - float(value)) > _tolerance(value):
                wrong.append(f"{value} (printed {got})")
    if wrong:
        return (f"numbers differ: {', '.join(wrong)}\n--- documented\n{expected.strip()}\n"
                f"--- printed\n{actual.strip()}")
    return None


# --------------------------------------------------------------------------
# Running Python blocks
# --------------------------------------------------------------------------


def inline_expectations(code: str) -> dict[int, str]:
    """``{line: text}`` for each ``# -> text`` comment (1-based lines of the block)."""
    out = {}
    for number, line in enumerate(code.splitlines(), start=1):
        if "#" not in line:
            continue
        # only a real comment (not a '#' inside a string) counts: tokenize the line's tail
        match = _EXPECT.search(line)
        if match and _is_comment(line, match.start()):
            out[number] = match.group("text").rstrip()
    return out


def _is_comment(line: str, position: int) -> bool:
    quote = None
    for i, char in enumerate(line[:position]):
        if quote:
            if char == quote and line[i - 1] != "\\":
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return False
    return quote is None


def run_python(block: Block, namespace: dict) -> str:
    """Run a python block statement by statement in ``namespace``; return everything it printed.

    Line numbers in tracebacks are the page's.  A statement ending in
    ``# -> TEXT`` must print TEXT (:func:`compare_output`).
    """
    tree = ast.parse(block.code, filename=str(block.path))
    expected = inline_expectations(block.code)
    tops = {stmt.end_lineno: stmt for stmt in tree.body}
    stray = sorted(set(expected) - set(tops))
    if stray:
        raise AssertionError(f"{block.path.name}:{block.line + stray[0]}: '# ->' must end a top-level statement")
    ast.increment_lineno(tree, block.line)
    printed = io.StringIO()
    for stmt in tree.body:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(ast.Module([stmt], []), str(block.path), "exec"), namespace)
        printed.write(buffer.getvalue())
        text = expected.get(stmt.end_lineno - block.line)
        if text is not None:
            problem = compare_output(text, buffer.getvalue())
            if problem:
                raise AssertionError(f"{block.path.name}:{stmt.end_lineno}: {problem}")
    return printed.getvalue()


# --------------------------------------------------------------------------
# Bash blocks
# --------------------------------------------------------------------------


def bash_commands(block: Block) -> list[list[str]]:
    """The argument vectors of a bash block's commands (continuation lines joined, comments dropped).

    Raises AssertionError for a command that is not ``rankcore ...`` or uses
    shell syntax (pipes, redirections, variables): mark such a block
    ``<!-- docs-test: skip REASON -->``.
    """
    commands = []
    text = block.code.replace("\\\n", " ")
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        argv = shlex.split(line, comments=True)
        if not argv:
            continue
        if argv[0] != "rankcore" or any(t in ("|", ">", ">>", "<", "&&", ";") or "$" in t for t in argv):
            raise AssertionError(
                f"{block.where}: `{line.strip()}` is not a plain rankcore command the tests can run; "
                "mark the block <!-- docs-test: skip REASON --> if it cannot run in CI")
        commands.append(argv)
    return commands
