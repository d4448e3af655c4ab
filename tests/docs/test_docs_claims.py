"""What the pages state about the code matches the code: parameter tables and command lines named in prose.

tests/docs/test_docs.py runs the code blocks and checks the synopses of ```text
blocks; these tests cover what the prose itself claims and a block cannot show:

* a family page's table of parameters has a row for every parameter of its
  estimators (a parameter added to an estimator and not to its page is
  invisible to the reader), with the default the estimator has;
* every ``rankcore COMMAND --option`` quoted in a sentence names a command
  and options that ``rankcore COMMAND --help`` lists.
"""

import argparse
import ast
import re
from pathlib import Path

import pytest

import rankcore

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
#: The pages whose table of parameters documents every parameter of these estimators.
PARAMETER_PAGES = {
    "push": ("PushBoost", "PNormPush", "RankBoost"),
    "exactboost": ("ExactBoost",),
    "kernel_ranking": ("KernelRanker",),
    "precision_at_k": ("PerceptronAtK", "SGDAtK"),
}
#: Command lines quoted on purpose although the parser refuses them (the page shows the refusal).
REFUSED_ON_PURPOSE = {"rankcore demo --test 0.3"}
_OPTION = re.compile(r"(?<![\w-])--?[a-z][\w-]*")


def _prose(text: str) -> str:
    """The page without its fenced blocks (indented ones in list items too)."""
    return re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.S | re.M)


def _table_rows(text: str) -> dict:
    """{name: default cell} of every table row whose first cell names parameters (`a`, `b`)."""
    rows = {}
    for first, second in re.findall(r"^\|([^|\n]+)\|([^|\n]*)\|", text, flags=re.M):
        names = re.findall(r"`(\w+)`", first)
        if names and re.fullmatch(r"\s*`\w+`(?:\s*,\s*`\w+`)*\s*", first):
            rows.update((name, second.strip()) for name in names)
    return rows


def _defaults_shown(cell: str) -> list:
    """The values a default cell shows in backticks (```"exp"```, ``1e-3``, ``None``; two for two estimators)."""
    values = []
    for text in re.findall(r"`([^`]+)`", cell):
        try:
            values.append(ast.literal_eval(text))
        except (ValueError, SyntaxError):
            continue
    return values


def _same(shown, value) -> bool:
    """A default shown equals the estimator's: ``4`` shows the float 4.0, but ``1`` does not show True."""
    if isinstance(value, float) and not isinstance(shown, bool):
        return isinstance(shown, (int, float)) and shown == value
    return type(shown) is type(value) and shown == value


@pytest.mark.parametrize("page, estimator", [(page, name) for page, names in PARAMETER_PAGES.items()
                                             for name in names])
def test_parameter_table_names_every_parameter(page, estimator):
    rows = _table_rows((ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8"))
    params = getattr(rankcore, estimator)().get_params(deep=False)
    missing = sorted(set(params) - set(rows))
    assert missing == [], f"docs/{page}.md: the table of parameters has no row for {estimator}'s {missing}"


@pytest.mark.parametrize("page, estimator", [(page, name) for page, names in PARAMETER_PAGES.items()
                                             for name in names])
def test_parameter_table_defaults_are_the_estimators(page, estimator):
    rows = _table_rows((ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8"))
    params = getattr(rankcore, estimator)().get_params(deep=False)
    wrong = {name: (rows[name], value) for name, value in params.items()
             if name in rows and not any(_same(shown, value) for shown in _defaults_shown(rows[name]))}
    assert wrong == {}, f"docs/{page}.md: defaults (page, {estimator}): {wrong}"


def test_trees_table_names_every_learner_parameter():
    rows = _table_rows((ROOT / "docs" / "trees.md").read_text(encoding="utf-8"))
    learner = rankcore.resolve("learner", "trees")
    missing = [p.name for p in learner.parameters if p.name not in rows]
    assert missing == [], f"docs/trees.md: the learner's table has no row for {missing}"


def _subparser(words: list):
    """The parser of ``rankcore WORD...`` and whether WORD named a command (None: it did not)."""
    from rankcore.cli import build_parser

    parser = build_parser()
    for depth, word in enumerate(words):
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions or word not in actions[0].choices:
            return parser if depth else None
        parser = actions[0].choices[word]
    return parser


def command_problems(command: str) -> list:
    """What is wrong with a ``rankcore ...`` command quoted in prose: an unknown command or options.

    ``rankcore fit|compare --learner trees`` names two commands; words in
    capitals (COMMAND, MODEL) are placeholders and ``rankcore --version``
    names the program's own option.
    """
    words = command.split()[1:]
    if not words or words[0].startswith("-") or words[0].isupper() or words[0] == "...":
        return []
    problems = []
    for name in words[0].split("|"):
        if name == "help":
            continue
        parser = _subparser([name] + words[1:])
        if parser is None:
            problems.append(f"`{command}`: no command {name!r}")
            continue
        known = {option for action in parser._actions for option in action.option_strings}
        unknown = sorted(set(_OPTION.findall(" ".join(words[1:]))) - known)
        if unknown:
            problems.append(f"`{command}`: `rankcore {name}` has no option(s) {', '.join(unknown)}")
    return problems


def test_command_problems_finds_unknown_commands_and_options():
    assert command_problems("rankcore fit DATA --qid COLUMN") == []
    assert command_problems("rankcore fit|compare --learner trees") == []
    assert command_problems("rankcore fit data.csv --no-such-option 1")
    assert command_problems("rankcore compare|fiit --learner trees")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_commands_quoted_in_prose_exist(path):
    prose = _prose(path.read_text(encoding="utf-8"))
    commands = {" ".join(c.split()) for c in re.findall(r"`(rankcore [^`]+)`", prose)} - REFUSED_ON_PURPOSE
    problems = [problem for command in sorted(commands) for problem in command_problems(command)]
    assert problems == [], f"{path.name}: " + "; ".join(problems)


def _resolves(dotted: str) -> bool:
    """Whether ``rankcore.a.b`` names something: the longest importable module, then attributes."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_resolves_tells_names_from_misspellings():
    assert _resolves("rankcore.persistence.ModelFormatError") and _resolves("rankcore.metrics.make_query_scorer")
    assert not _resolves("rankcore.NoSuchError") and not _resolves("rankcore.metrics.no_such_function")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_python_names_quoted_in_prose_exist(path):
    """A ``rankcore.x.y`` a sentence names is importable as written (a user copies it into an except clause)."""
    prose = _prose(path.read_text(encoding="utf-8"))
    names = sorted(set(re.findall(r"`(rankcore(?:\.\w+)+)", prose)))
    missing = [name for name in names if not _resolves(name)]
    assert missing == [], f"{path.name} names {missing}, which rankcore does not have"
