"""Other libraries' option spellings on the command line (``--n-estimators 100``): a hint naming rankcore's option.

The names come from the library's own tables (:data:`rankcore._peer_names.PEER_NAMES`, the estimators'
parameters, and :data:`rankcore._peer_names.PEER_FIT_NAMES`, ``fit``'s arguments); what those say in Python
(``n_iter=N``, ``fit(X, y, qid=...)``) is turned here into the option of the command that was run, when it has one.
"""

from __future__ import annotations

import argparse
import difflib
import re

__all__ = ["peer_option_hint", "NOT_PLURALS"]

#: rankcore's Python names whose option is not the name with dashes (``sample_weight`` is ``--weight COLUMN``).
_OPTION_OF = {"sample_weight": "--weight", "categorical_features": "--categorical", "eval_set": "--validation"}

#: How other commands (and other tools) name the output's format, for a command whose JSON is a switch.
_OUTPUT_FORMATS = ("--format", "--table-format", "--output-format")

# the Python a table's entry starts with: `name=value` (value maybe quoted), or `fit(X, y, name=...)`
_KEYWORD = re.compile(r'(?P<name>[a-z_]+)=(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s,()\[\]]+))?')
_FIT_ARGUMENT = re.compile(r"fit\(X, y, (?P<name>[a-z_]+)=")
_BOOST_PARAMETER = "a parameter of rankcore.boost(...): "

#: Other libraries' names (and rankcore's own Python's) whose plural is a command's option of another meaning:
#: LightGBM's and XGBoost's ``group`` (the sizes of consecutive queries) is no ``explain --groups`` (columns played
#: as one), so ``--group`` is not taken for it.  Each maps to its entry as the peer tables write one.
NOT_PLURALS = {
    "group": "fit(X, y, qid=...) (a query id per row; the sizes of consecutive queries, LightGBM's and XGBoost's "
             "group, are a LIBSVM file's DATA.query or DATA.group beside it)",
}


def peer_option_hint(parser: argparse.ArgumentParser, namespace: argparse.Namespace, words: list[str]) -> str:
    """The hints for the unrecognized ``words`` that are other libraries' names: ``""`` when none is.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``rankcore`` parser (its subcommands' options are what a hint may name).
    namespace : argparse.Namespace
        What was parsed (``command``, ``plugins_command``: the subcommand run, whose options are offered).
    words : list of str
        The words argparse did not recognize.

    Returns
    -------
    str
        ``" (other libraries' --n-estimators is here --n-iter N)"`` for each peer name among the words, joined.
        An option stands for the start of the table's entry; the rest of the entry (its notes), when there is one,
        follows as the Python it is.  Any other word that starts or nearly spells the command's options (an
        abbreviation, which argparse is not let to complete, or a typo) gets ``" (did you mean --test-size?)"``.
    """
    options = _command_options(parser, namespace)
    hints = {}
    for word in words:
        if word == "--":
            break                 # what follows is no option (argparse's end of options), whatever it looks like
        if not word.startswith("--") or len(word) < 4:
            continue
        flag = word.split("=", 1)[0]
        if flag in _OUTPUT_FORMATS and flag not in options and "--json" in options:
            hints.setdefault(flag, "JSON output is --json here")      # info, plugins: no table, a JSON switch
            continue
        hint = _hint_for(flag[2:].replace("-", "_").lower(), options)
        meant = _meant(flag, options)
        # a peer's name this command has no option for, that starts one of its options (evaluate's --metric):
        # the option meant, rather than the Python
        if hint is not None and (hint.startswith("here ") or not meant):
            # the plural of a name not read as it (explain's --groups, for --group): the option meant, maybe
            plural = f"did you mean {flag}s? " if flag + "s" in options else ""
            hints.setdefault(flag, f"{plural}other libraries' {flag} is {hint}")    # a flag given twice: one hint
        elif _without(flag):
            # before any near spelling: LightGBM's --max-position is no typo of --position (the click positions)
            hints.setdefault(flag, f"other libraries' {flag} has no equivalent here: {_without(flag)}")
        elif meant:
            hints.setdefault(flag, f"did you mean {' or '.join(meant)}?")
    return "".join(f" ({hint})" for hint in hints.values())


def _meant(flag: str, options: dict[str, argparse.Action]) -> list[str]:
    """The command's long options ``flag`` may stand for: those it starts (``--test`` for ``--test-size``; at most
    three, shortest first), else the closest spelling (``--n-iters`` for ``--n-iter``); none when none is close."""
    longs = sorted((o for o in options if o.startswith("--") and o != "--debug"), key=lambda o: (len(o), o))
    started = [o for o in longs if o.startswith(flag)]
    return started[:3] if started else difflib.get_close_matches(flag, longs, n=1, cutoff=0.8)


def _command_options(parser: argparse.ArgumentParser, namespace: argparse.Namespace) -> dict[str, argparse.Action]:
    """The options of the (sub)command run, by flag: the deepest parser ``namespace`` names (``plugins new``'s
    under ``plugins``), the top-level parser's when it names none."""
    chosen = parser
    while True:
        subparsers = [a for a in chosen._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(namespace, subparsers[0].dest, None) if subparsers else None
        if name not in (subparsers[0].choices if subparsers else {}):
            return dict(chosen._option_string_actions)
        chosen = subparsers[0].choices[name]


def _without(flag: str) -> str:
    """What rankcore lacks of another library's ``--flag`` that it has no equivalent of, and the nearest setting
    (a learner's as ``--learner SPEC``, the rest in Python, as the table says it); "" for any other flag."""
    import re

    from .._peer_names import PEER_NAMES_WITHOUT

    said = PEER_NAMES_WITHOUT.get(flag[2:].replace("-", "_").lower(), "")
    return re.sub(r'(?:learner=)?"(trees:[^"]+)"', r"--learner \1", said)


def _hint_for(name: str, options: dict[str, argparse.Action]) -> str | None:
    """Where another library's ``name`` is in rankcore: ``"here --n-iter N"``, the Python form when the command has
    no option for it, or None when ``name`` is no other library's."""
    from .._peer_names import PEER_NAMES, peer_fit_hint      # a foundation module: no estimator is loaded

    # a peer's plural name in the singular (--n-estimator) is that name, as rankcore's own plurals are
    python = (PEER_NAMES.get(name) or peer_fit_hint(name) or NOT_PLURALS.get(name)
              or (None if name.endswith("s") else PEER_NAMES.get(name + "s")))
    if python is None:
        return None
    python = python.removeprefix(_BOOST_PARAMETER)
    option, rest = _as_option(python, options)
    if option is None:
        return f"rankcore's {python} in Python, which this command takes no option for"
    # the entry's notes (other objectives, what goes with it) are its Python's: shown as such
    return f"here {option}" + (f"; in Python: {python}" if rest.strip() else "")


def _as_option(python: str, options: dict[str, argparse.Action]) -> tuple[str | None, str]:
    """The command's option that does what the Python ``python`` (a table's entry) starts with, with its value
    (None when the command has none), and what follows that start in the entry."""
    fit = _FIT_ARGUMENT.match(python)
    if fit is not None:
        action = options.get(_OPTION_OF.get(fit["name"], "--" + fit["name"].replace("_", "-")))
        rest = python[python.find(")", fit.end()) + 1:]
        return (None if action is None else f"{_flag(action)} {action.metavar or fit['name'].upper()}"), rest
    keyword = _KEYWORD.match(python)
    if keyword is None:
        return None, python
    name, rest = keyword["name"], python[keyword.end():]
    value = keyword["quoted"] if keyword["quoted"] is not None else keyword["bare"]
    action = options.get(_OPTION_OF.get(name, "--" + name.replace("_", "-")))
    if action is not None:
        if value is None or value.startswith("[") or value == "...":
            return f"{_flag(action)} {action.metavar or name.upper()}", rest
        return f"{_flag(action)} {_quoted(value)}", rest
    if "--param" in options and value is not None:
        return f"--param {_quoted(f'{name}={value}')}", rest
    return None, rest


def _flag(action: argparse.Action) -> str:
    """The action's long option (``--out`` rather than ``-o``)."""
    return max(action.option_strings, key=len)


def _quoted(value: str) -> str:
    """``value`` as a shell word: quoted when it holds what a shell reads otherwise."""
    return f'"{value}"' if re.search(r"[^\w@:=.,/+-]", value) else value
