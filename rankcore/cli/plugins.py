"""``rankcore plugins``: every registered component and who provided it."""

from __future__ import annotations

import json


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "plugins",
        help="list every registered component with the distribution that provided it",
        description="List every registered loss, price, learner, objective, metric, filter and kernel, "
        "with the distribution that provided it and any plugin that failed to load.",
    )
    parser.add_argument("--family", help="only this family (loss, price, learner, objective, metric, filter, kernel, candidate)")
    parser.add_argument("--json", action="store_true", help="print JSON records instead of a table")
    return parser


def run(args) -> int:
    import warnings

    from ..registry import FAMILIES, registry

    if args.family is not None and args.family not in FAMILIES:
        raise ValueError(f"--family: expected one of {', '.join(FAMILIES)}, got {args.family!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # problems are printed below instead
        reg = registry()
    entries = [e for e in reg.all_entries() if args.family in (None, e.family)]
    if args.json:
        records = [
            {"family": e.family, "name": e.name, "spec": e.parameters, "aliases": list(e.aliases),
             "distribution": e.distribution, "plugin": e.plugin, "summary": e.summary}
            for e in entries
        ]
        problems = [{"distribution": p.distribution, "plugin": p.plugin, "message": p.message} for p in reg.problems]
        print(json.dumps({"components": records, "problems": problems}, indent=1))
        return 0
    rows = [("FAMILY", "SPEC", "PROVIDED BY", "SUMMARY")]
    rows += [(e.family, e.parameters + (f" (alias {', '.join(e.aliases)})" if e.aliases else ""),
              e.distribution, e.summary) for e in entries]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  ".join(row[i].ljust(widths[i]) for i in range(3)) + "  " + row[3])
    for problem in reg.problems:
        print(f"PROBLEM: {problem}")
    return 0
