"""The ``rankcore`` command line (also ``python -m rankcore``).

Each subcommand lives in its own module exposing ``add_parser(subparsers)``
and ``run(args) -> int``.  Errors in the user's input (bad files, bad spec
strings, bad values, a missing optional dependency) print one line
``rankcore: error: ...`` and exit with status 2; ``--debug`` shows the
traceback instead.  Anything else is a bug: one line saying so, status 1.
Warnings (a model that could not split, a clipped lambda) print one line
``rankcore: warning: ...`` each.

Exit status: 0 success, 1 internal error, 2 usage or input error, 130
interrupted, 128 + the signal for SIGTERM or SIGHUP while a copy of standard
input exists (see :mod:`rankcore.cli._stdin`).  See ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import importlib
import os
import re
import sys
import warnings

__all__ = ["main", "build_parser", "release_held_warnings", "undecoded_bytes", "surrogates_as_bytes"]

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS = ("fit", "score", "explain", "evaluate", "compare", "auto", "export", "info", "plugins", "demo")

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2


class CommandError(Exception):
    """An error in the user's input, reported as one line with exit status 2."""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help, with each paragraph of a description or epilog wrapped to the terminal's width.

    The commands' descriptions are paragraphs written as one long line (or wrapped for a wider screen): printed raw,
    an 80-column terminal broke them inside words.  Indented lines -- examples, tables of models -- are kept as
    written, so that a command line can still be copied whole.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines: list[str] = []
        paragraph: list[str] = []
        for line in [*text.splitlines(), ""]:
            running = bool(line.strip()) and not line[0].isspace()
            heading = running and _HEADING.fullmatch(line.rstrip()) is not None
            if running and not heading and not (paragraph and _BULLET.match(line)):
                paragraph.append(line.strip())          # a line of running text: one paragraph with the next
                continue
            lines.extend(_wrapped(paragraph, width, indent))
            # a list item (`- `, `* `) starts a paragraph of its own, not joined to the text above it; a heading
            # (`examples:`) is a line of its own
            paragraph = [line.strip()] if running and not heading else []
            if not running or heading:
                lines.append(indent + line.rstrip() if line.strip() else "")
        return "\n".join(lines[:-1])


#: A list item of a description: ``- `` or ``* `` at the start of a line (``--option`` is running text).
_BULLET = re.compile(r"[-*] ")
#: A heading of a description or epilog: a few words and a colon alone on their line (``examples:``).
_HEADING = re.compile(r"[A-Za-z][\w ()-]{0,30}:")


def _wrapped(paragraph: list[str], width: int, indent: str) -> list[str]:
    """The lines of ``paragraph`` (lines of running text) joined and wrapped to ``width``; a list item's lines are
    indented under its text."""
    import textwrap

    if not paragraph:
        return []
    hanging = "  " if _BULLET.match(paragraph[0]) else ""
    return textwrap.wrap(" ".join(paragraph), max(width, 20), initial_indent=indent,
                         subsequent_indent=indent + hanging, break_on_hyphens=False, break_long_words=False)


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors kept to one clean line like rankcore's own, and no abbreviated options.

    argparse takes a prefix of a long option as that option: ``demo --test 0.3`` would be ``--test-size 0.3``, and
    another library's ``--eta`` (a learning rate) ``--eta0``, a parameter of another meaning.  Every parser here,
    the subcommands' too (argparse builds them with this class), reads whole option names only; an unrecognized
    one gets a hint naming the option meant (:func:`._peer_options.peer_option_hint`).
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        if kwargs.get("formatter_class") is argparse.RawDescriptionHelpFormatter:
            kwargs["formatter_class"] = _HelpFormatter
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        # an epilog may be a callable, formatted only when the help is shown (see ``models_epilog``)
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()

    def parse_known_args(self, args=None, namespace=None):
        # `--margin -inf` as `--margin=-inf` (see ._negative_values: why a rewrite of the words); a subcommand's
        # parser gets words already rewritten, and the rewrite leaves them as they are
        from ._negative_values import join_negative_values

        words = join_negative_values(sys.argv[1:] if args is None else [str(w) for w in args])
        # a bare `--` ends the options: the words after it are positional (a file named `--metric`), kept as given
        end = words.index("--") if "--" in words else len(words)
        words = [*map(self._plural_meant, words[:end]), *words[end:]]
        self._words = words             # for error(): an unknown option behind argparse's complaint
        unknown = self._unknown_before_command()
        if unknown and self._command_named() is not None:
            # said before the subcommand parses the rest: its own complaint (`fit` missing DATA, which `--famil`
            # did not take) would hide the option argparse leaves for this parser's "unrecognized arguments"
            # (without a subcommand's name argparse's own complaint stands: "invalid choice: 'fti'")
            self.error(f"unrecognized arguments: {' '.join(unknown)}{self._hint_before_command(unknown)}")
        namespace, extras = super().parse_known_args(words, namespace)
        fill = getattr(namespace, "_fill_positionals", None)
        return namespace, (extras if fill is None else fill(namespace, extras))

    def _hint_before_command(self, unknown: list[str]) -> str:
        """The hints for options given before the subcommand that this parser does not know: an option of the
        subcommand named is said to go after it, any other gets the subcommand's hint (a peer's name, a typo)."""
        from ._peer_options import peer_option_hint

        subparsers = next(a for a in self._actions if isinstance(a, argparse._SubParsersAction))
        name = self._command_named()
        theirs = subparsers.choices[name]._option_string_actions
        misplaced = [w for w in unknown if w.split("=", 1)[0] in theirs]
        hint = peer_option_hint(self, argparse.Namespace(**{subparsers.dest: name}),
                                [w for w in unknown if w not in misplaced])
        if misplaced:
            hint += f" ({', '.join(misplaced)}: an option of {name}, given after it)"
        return hint

    def _plural_meant(self, word: str) -> str:
        # options are never abbreviated, but a plural option's singular (--metric, --feature-name, --within-query)
        # names the same thing, so it is read as the plural -- except where the singular is another library's word
        # of another meaning (--group: LightGBM's query sizes, no --groups).  A word ending in s is no singular:
        # --los would be an abbreviation of --loss, --progres of --progress
        from ._peer_options import NOT_PLURALS

        flag, equals, value = word.partition("=")
        if (not flag.startswith("--") or flag.endswith("s") or flag in self._option_string_actions
                or flag[2:].replace("-", "_") in NOT_PLURALS):
            return word
        plurals = [flag + "s"] + ([flag[:-1] + "ies"] if flag.endswith("y") else [])
        for plural in plurals:
            if plural in self._option_string_actions:
                return plural + equals + value
        return word

    def parse_args(self, args=None, namespace=None):
        # argparse's own, with a hint where an unrecognized option is another library's name (--n-estimators)
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            from ._peer_options import peer_option_hint

            self.error(f"unrecognized arguments: {' '.join(extras)}{peer_option_hint(self, namespace, extras)}"
                       f"{self._dash_names_hint(extras[:extras.index('--')] if '--' in extras else extras)}")
        return namespace

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {_clean(self._unknown_option_first(message))}"
                              f"{self._output_format_hint(message)}{self._dash_name_hint(message)}\n")

    def _dash_name_hint(self, message: str) -> str:
        """A hint where a word that starts with ``-`` was taken for an option: a file name (``score m.json
        -day.csv``: "the following arguments are required: DATA") or an option's value (``--out -x.csv``: "expected
        one argument", said of the word that follows the option, not of any other)."""
        words = getattr(self, "_words", [])
        words = words[:words.index("--")] if "--" in words else words
        expected = re.match(r"argument (\S+): expected one argument", message)
        if expected is not None:
            flags = expected[1].split("/")
            following = [words[i + 1] for i, w in enumerate(words[:-1]) if w in flags]
            taken = [w for w in following if self._read_as_option(w)]
            if not taken:
                return ""
            return (f" ({taken[-1]!r} was read as an option: write {flags[0]}={taken[-1]}, or a file's name as "
                    f"./{taken[-1]})")
        if message.startswith("the following arguments are required"):
            return self._dash_names_hint(words)
        return ""

    def _dash_names_hint(self, words: list[str]) -> str:
        """The hint for the first of ``words`` that reads as a file name starting with ``-`` (a ``.`` in it, or a
        file of that name) but was taken for an option; ``""`` when none does."""
        named = [w for w in words if self._read_as_option(w) and "=" not in w and ("." in w or os.path.exists(w))]
        if named:
            return f" ({named[0]!r} was read as an option: write a file name that starts with '-' as ./{named[0]})"
        # `-often.csv` is `-o ften.csv` to argparse: said as it was read, true whatever was meant
        attached = [w for w in words if len(w) > 2 and w.startswith("-") and not w.startswith("--")
                    and getattr(self._option_string_actions.get(w[:2]), "nargs", 0) != 0]
        if not attached:
            return ""
        word = attached[0]
        return f" ({word!r} was read as {word[:2]} {word[2:]}: write a file name that starts with '-' as ./{word})"

    def _read_as_option(self, word: str) -> bool:
        """Whether ``word`` starts with one ``-`` that no option of this parser explains: not a known short option,
        alone or with its value attached (``-oout.csv`` is ``-o out.csv``), and no number (``-1.5``)."""
        return (len(word) > 1 and word.startswith("-") and not word.startswith("--")
                and word[:2] not in self._option_string_actions and not _is_number(word))

    def _output_format_hint(self, message: str) -> str:
        """A hint where ``--format``, the data file's format, was given an output's (``evaluate --format json``,
        as other tools name their output's format): the option meant is ``--table-format``."""
        given = message.partition("argument --format: invalid choice: ")[2].split(" ", 1)[0].strip("'\"")
        table = self._option_string_actions.get("--table-format")
        if not given or table is None or given not in (table.choices or ()):
            return ""
        return f" (--format is the data file's; the output table's is --table-format {given})"

    def _unknown_option_first(self, message: str) -> str:
        """``message``, or when the words parsed hold an option this parser does not know that nearly spells one of
        its own, that option with its hint: argparse's complaint is then its consequence.

        An unknown option's value is read as a positional word: ``plugins --famil price`` complained that
        ``price`` is no subcommand, ``plugins new --dri x ...`` that ``x`` is no family, without a word about the
        option.  Only words before a subcommand's name are this parser's (the rest are the subcommand's).
        """
        from ._peer_options import peer_option_hint

        if message.startswith("unrecognized arguments"):
            return message          # parse_args's own, with its hint
        unknown = self._unknown_before_command()
        hint = peer_option_hint(self, argparse.Namespace(), unknown) if unknown else ""
        return f"unrecognized arguments: {' '.join(unknown)}{hint}" if hint else message

    def _command_named(self) -> str | None:
        """The first of the words parsed (before ``--``) that names one of this parser's subcommands, or None."""
        words = getattr(self, "_words", [])
        words = words[:words.index("--")] if "--" in words else words
        commands = [a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        return next((w for w in words if any(w in choices for choices in commands)), None)

    def _unknown_before_command(self) -> list[str]:
        """The options among the words parsed, before a subcommand's name (after it they are the subcommand's) and
        before ``--``, that this parser does not know."""
        words = getattr(self, "_words", [])
        words = words[:words.index("--")] if "--" in words else words
        commands = [a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        ends = [i for i, w in enumerate(words) if any(w in choices for choices in commands)]
        # short ones too: `rankcore -q fit ...` is a misplaced -q, as `--quiet` is (none reads as a number here)
        return [w for w in words[:ends[0] if ends else len(words)]
                if w.startswith("-") and len(w) > 1 and not _is_number(w)
                and w.split("=", 1)[0] not in self._option_string_actions]


def _is_number(word: str) -> bool:
    """Whether ``word`` reads as a number (``-1.5``: a value, not a file name taken for an option)."""
    try:
        float(word)
    except ValueError:
        return False
    return True


def version_line(version: str) -> str:
    """What ``rankcore --version`` prints: ``rankcore X.Y.Z``, and in a build without OpenMP, that its kernels run
    on one thread -- nothing else tells its user that ``n_jobs`` gains nothing (a warning at each fit that asks
    for threads would repeat it at every call of a script)."""
    from .._openmp import built_with_openmp

    if built_with_openmp():
        return f"rankcore {version}"
    return f"rankcore {version} (built without OpenMP: every kernel runs on one thread, whatever n_jobs asks)"


class _PrintVersion(argparse.Action):
    """``--version``: the line as it is -- argparse's own action wraps it to the terminal's width, which would cut
    one line in two for a script that reads it."""

    def __init__(self, option_strings, version, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)
        self.version = version

    def __call__(self, parser, namespace, values, option_string=None):
        print(self.version)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The ``rankcore`` command's parser: every subcommand and its options (what ``rankcore --help`` prints)."""
    from .. import __version__

    parser = _Parser(
        prog="rankcore",
        description="Learn rankings that are right at the top of the list.",
        epilog="`rankcore COMMAND --help` (or `rankcore help COMMAND`) lists a command's options.",
    )
    parser.add_argument("--version", action=_PrintVersion, version=version_line(__version__))
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f".{name}", __name__)
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rankcore`` console script; returns the exit status."""
    from ._terminal import plain_streams

    with plain_streams():       # no UnicodeEncodeError under an ASCII locale; the caller's streams as they were after
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    """:func:`main` with its streams set to write what they cannot encode in ASCII words."""
    parser = build_parser()
    args = parser.parse_args(_help_asked(parser, sys.argv[1:] if argv is None else [str(w) for w in argv]))
    args._argv = list(sys.argv[1:] if argv is None else argv)  # recorded in reports
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return EXIT_USAGE
    from ._stdin import stdin_inputs

    # a data file `-`: standard input, copied once.  The copy outlives the command by the message that ends it, so
    # that the message can name it "standard input" (the names of copies go with them: none is left to rename a
    # path of a later command in this process)
    with contextlib.ExitStack() as copies:
        return _run_command(args, lambda: copies.enter_context(stdin_inputs(args)))


def _help_asked(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """``help COMMAND`` as ``COMMAND --help`` (``help`` alone, or ``help help``: the command list; ``help plugins
    new``: that subcommand's), as git and pip read it.  Options before ``help`` (``--debug``) are kept where they
    are; a word that names no subcommand is refused, as ``COMMAND --help`` would drop it without a word."""
    start = next((i for i, w in enumerate(words) if not w.startswith("-")), len(words))
    if words[start:start + 1] != ["help"]:
        return words
    rest = [w for w in words[start + 1:] if w != "help"]
    named = [w for w in rest if not w.startswith("-")]
    chosen = parser
    for depth, name in enumerate(named):
        choices = [a.choices for a in chosen._actions if isinstance(a, argparse._SubParsersAction)]
        if depth and (not choices or name not in choices[0]):
            parser.error(f"help takes one command's name, got {' '.join(named)!r}")
        chosen = choices[0].get(name, chosen) if choices else chosen
    return [*words[:start], *rest, "--help"]


def _run_command(args, read_stdin) -> int:
    """Run the parsed command (after ``read_stdin()``), printing a failure as one line; the exit status."""
    # this call's own held warnings: a main() run in another thread of the process holds (and clears) its own
    token = _HELD.set([])
    try:
        return _run_holding(args, read_stdin)
    finally:
        _HELD.reset(token)


def _run_holding(args, read_stdin) -> int:
    """:func:`_run_command` within its own list of held warnings."""
    try:
        read_stdin()
        with warnings.catch_warnings():
            if not args.debug:      # one line each, like the errors (--debug: Python's form, with the place)
                warnings.showwarning = _show_warning
            status = int(args._run(args) or EXIT_OK)
            release_held_warnings()
            return status
    except BrokenPipeError:
        # the reader went away (`rankcore score ... | head`): not an error; keep Python
        # from complaining again when it flushes stdout at exit.  The fits were accepted (`compare ... | head`
        # stopped reading their table): their held warnings go to stderr, which may still be read
        try:
            release_held_warnings()
        except OSError:         # stderr went away too (`2>&1 | head`)
            _held().clear()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except (CommandError, ValueError, TypeError, OSError, ImportError, ArithmeticError) as exc:
        # user input: files, values, specs, parameters, a missing optional extra, numeric blow-ups
        _held().clear()         # a held warning was about a fit the refusal undid
        if args.debug:
            raise
        plugin = _raising_plugin(exc)
        if plugin is not None and not isinstance(exc, (CommandError, ValueError, OSError)):
            # not the user's input: a plugin's code failed (a ValueError is how a plugin refuses input)
            return _plugin_failed(plugin, exc)
        print(f"rankcore: error: {f'{plugin}: ' if plugin else ''}{_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _held().clear()
        print("rankcore: interrupted", file=sys.stderr)
        return 130
    except MemoryError as exc:
        # the machine's limit (a container's, `ulimit -v`), not a bug: said as the input error it is, like a full
        # disk, with what was asked for (numpy names the array it could not allocate)
        if args.debug:
            raise
        asked = _one_line(exc) if str(exc) else ""
        plugin = _raising_plugin(exc)       # a plugin's allocation (or its bug): named, as its other errors are
        print(f"rankcore: error: {f'{plugin}: ' if plugin else ''}out of memory{': ' + asked if asked else ''}; "
              "use fewer rows or features, or settings that need less memory", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug in rankcore (or in a plugin's code): still no traceback unless asked
        if args.debug:
            raise
        plugin = _raising_plugin(exc)
        if plugin is not None:
            return _plugin_failed(plugin, exc)
        print(f"rankcore: internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(run again with --debug for the traceback, and please report it)", file=sys.stderr)
        return EXIT_INTERNAL


def _plugin_failed(plugin: str, exc: BaseException) -> int:
    """Say that ``plugin``'s code raised ``exc`` (a bug for its authors, not an input error); the exit status."""
    print(f"rankcore: error in a plugin: {plugin} raised {type(exc).__name__}: {_one_line(exc)} "
          "(run again with --debug for the traceback, and report it to the plugin's authors)", file=sys.stderr)
    return EXIT_INTERNAL


def _raising_plugin(exc: BaseException) -> str | None:
    """Who, among the registered plugins, raised ``exc``: the component whose method is the innermost plugin frame
    (``"metric 'name' (distribution)"``), or the plugin module's distribution; None when no plugin code ran."""
    registry = sys.modules.get("rankcore.registry")
    built = None if registry is None else registry.built_registry()
    if built is None:
        return None                                   # no registry built: no plugin's code ran
    entries = [e for e in built.all_entries() if e.distribution != registry.BUILTIN_PROVIDER]
    by_class = {e.cls: e for e in entries}
    by_module = {e.cls.__module__: e for e in entries}
    found = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self", frame.f_locals.get("cls"))
        entry = by_class.get(owner if isinstance(owner, type) else type(owner))
        if entry is not None:
            found = f"{entry.family} {entry.name!r} ({entry.distribution})"
        elif frame.f_globals.get("__name__") in by_module:
            module = frame.f_globals["__name__"]
            found = f"the module {module} ({by_module[module].distribution})"
        tb = tb.tb_next
    return found


#: Warnings held back until the fit they are about has been accepted (:func:`release_held_warnings`): a list of
#: each running command's own (None outside a command: nothing is held then).
_HELD: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("rankcore_cli_held_warnings", default=None)


def _held() -> list[str]:
    """The running command's held warnings (an empty list, not kept, outside a command)."""
    held = _HELD.get()
    return [] if held is None else held


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Print a warning raised during a command as one line ``rankcore: warning: ...`` on stderr.

    A category column folded at fit (:class:`rankcore._categories.CategoryFoldWarning`) is held until the fit
    returns: a fit refused after its columns were encoded (weights, validation data) folded nothing, and the
    refusal alone is said.
    """
    from .._categories import CategoryFoldWarning
    from ._stdin import shown

    said = f"rankcore: warning: {_clean(shown(str(message)))}"
    held = _HELD.get()
    if file is None and held is not None and isinstance(category, type) and issubclass(category, CategoryFoldWarning):
        held.append(said)
        return
    print(said, file=sys.stderr if file is None else file)


def release_held_warnings() -> None:
    """Print the warnings held while a fit ran (:func:`_show_warning`): called once the fit has been accepted."""
    held = _held()
    for said in held:
        print(said, file=sys.stderr)
    held.clear()


def _one_line(exc: BaseException) -> str:
    from ._stdin import shown

    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return _clean(shown(text))           # data read from `-` is "standard input", not its temporary copy


def _clean(text: str) -> str:
    """One printable line: whitespace runs collapsed, control characters escaped, long words cut."""
    from ..spec import abbreviate

    text = " ".join(text.split())
    text = undecoded_bytes("".join(c if c.isprintable() else _escaped(c) for c in text))
    return abbreviate(text)  # a 1 MB argument is not echoed whole


def undecoded_bytes(text: str) -> str:
    """``text`` with each byte that was not UTF-8 (a file name's, read as a surrogate) written ``\\xe9``.

    A message that quotes a name with ``repr`` (``--out: 'o\\udce9.csv' already exists``) holds the surrogate
    already escaped, ``\\udce9``: that escape is rewritten too (an even run of backslashes before it is a
    backslash of the name, escaped, and the rest is the name's own text)."""
    return _ESCAPED_SURROGATE.sub(r"\1\\x\2", surrogates_as_bytes(text))


def surrogates_as_bytes(text: str) -> str:
    """``text`` with each surrogate U+DC80..U+DCFF (a byte of a file name that was not UTF-8) written ``\\xe9``,
    the rest unchanged: for a value written as it is (a JSON string), whose text ``\\udce9`` is its own, not an
    escape that :func:`undecoded_bytes` would rewrite."""
    return "".join(_escaped(c) if "\udc80" <= c <= "\udcff" else c for c in text)


#: ``\udc80`` to ``\udcff`` as ``repr`` writes a surrogate, not preceded by an odd run of backslashes.
_ESCAPED_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


def _escaped(char: str) -> str:
    """A character that cannot be printed, escaped; a byte of a file name that is not UTF-8 (which Python reads as
    a surrogate, U+DC80 to U+DCFF) as that byte, ``\\xe9``, not as the surrogate's ``\\udce9``."""
    if "\udc80" <= char <= "\udcff":
        return f"\\x{ord(char) - 0xDC00:02x}"
    return repr(char)[1:-1]
