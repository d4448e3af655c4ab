"""``rankcore plugins``: every registered component and who provided it; ``plugins new``: start a plugin."""

from __future__ import annotations

import argparse
import json


def add_parser(subparsers):
    from ._plugin_template import template_families

    families = template_families()
    parser = subparsers.add_parser(
        "plugins",
        help="list every registered component with the distribution that provided it; start a plugin",
        description="List every registered loss, price, learner, objective, metric, filter, kernel and estimator, "
        "with the distribution that provided it and any plugin that failed to load.  "
        "`rankcore plugins new FAMILY NAME` writes a new plugin package.",
        epilog="examples:\n  rankcore plugins --family price\n  rankcore plugins new price quadratic --dir ~/src",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--family", help="only this family (loss, price, learner, objective, metric, filter, kernel, "
                                         "candidate, estimator)")
    parser.add_argument("--json", action="store_true", help="print JSON records instead of a table")
    parser.add_argument("--quiet", "-q", action="store_true", help="no status messages")
    actions = parser.add_subparsers(dest="plugins_command", metavar="new")
    new = actions.add_parser(
        "new",
        help="write a ready-to-install plugin package for one component",
        description="Write the package rankcore-NAME: pyproject.toml with the entry point, the component class "
        "(a working example of the family, to edit), the hook that registers it, and tests that run rankcore's "
        "contract checks on it.  `pip install -e .` in it, then `pytest`.",
    )
    new.add_argument("new_family", metavar="FAMILY", choices=families, help=f"one of {', '.join(families)}")
    new.add_argument("new_name", metavar="NAME",
                     help="the component's name, as in a spec (e.g. quadratic, list-recall@k)")
    new.add_argument("--dir", default=".", metavar="DIR", help="where to create the package folder (default: here)")
    # suppressed default: `plugins -q new ...` stays quiet (a default here would undo the -q given before `new`)
    new.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS,
                     help="no status messages (the package's folder alone, on standard output)")
    return parser


def run(args) -> int:
    if getattr(args, "plugins_command", None) == "new":
        return _new(args)
    return _list(args)


def _new(args) -> int:
    from ._common import info
    from ._plugin_template import PluginNames, write_plugin

    root = write_plugin(args.new_family, args.new_name, args.dir)
    names = PluginNames.of(args.new_family, args.new_name)
    print(root)
    # a status line like every command's: silenced by -q, a folder's bytes that are not UTF-8 said as \xe9
    info(args, f"wrote the {names.family} {names.name!r} as the package {names.dist} in {root}: edit "
               f"{names.module}/{names.family}.py, then `pip install -e .` and `pytest` there")
    return 0


def _list(args) -> int:
    import warnings

    from ..registry import FAMILIES, registry
    from ._common import json_value
    from ._terminal import plain_text, terminal_width, wrap_table, wrap_text

    if args.family is not None and args.family not in FAMILIES:
        raise ValueError(f"--family: expected one of {', '.join(FAMILIES)}, got {args.family!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # problems are printed below instead
        reg = registry()
    entries = [e for e in reg.all_entries() if args.family in (None, e.family)]
    if args.json:
        records = [
            {"family": e.family, "name": e.name, "spec": e.parameters, "aliases": list(e.aliases),
             "distribution": e.distribution, "plugin": e.plugin, "summary": plain_text(e.summary)}
            for e in entries
        ]
        problems = [{"distribution": p.distribution, "plugin": p.plugin, "message": p.message} for p in reg.problems]
        from ._outputs import print_result

        print_result(json.dumps(json_value({"components": records, "problems": problems}), indent=1), "json")
        return 0
    width = terminal_width()
    rows = [(e.family, e.parameters + (f" (alias {', '.join(e.aliases)})" if e.aliases else ""),
             e.distribution, plain_text(e.summary)) for e in entries]
    for line in wrap_table(("FAMILY", "SPEC", "PROVIDED BY", "SUMMARY"), rows, width=width, wrap=(1, 2, 3)):
        print(line)
    for problem in reg.problems:  # one paragraph each, continuation lines indented
        first, *rest = wrap_text(f"PROBLEM: {problem}", width)
        print(first)
        for line in wrap_text(" ".join(rest), width - 2) if rest else ():
            print(f"  {line}")
    return 0
