"""The ``rankcore`` command line (also ``python -m rankcore``).

Each subcommand lives in its own module exposing ``add_parser(subparsers)``
and ``run(args) -> int``.  Errors in the user's input (bad files, bad spec
strings, bad values) print one line ``rankcore: error: ...`` and exit with
status 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["main", "build_parser"]

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS = ("demo", "plugins")

EXIT_OK = 0
EXIT_USAGE = 2


class CommandError(Exception):
    """An error in the user's input, reported as one line with exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="rankcore",
        description="Learn rankings that are right at the top of the list.",
    )
    parser.add_argument("--version", action="version", version=f"rankcore {__version__}")
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
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args._run(args) or EXIT_OK)
    except (CommandError, ValueError, TypeError, OSError) as exc:
        if args.debug:
            raise
        print(f"rankcore: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("rankcore: interrupted", file=sys.stderr)
        return 130
