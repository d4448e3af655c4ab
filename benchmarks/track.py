"""Performance tracking by same-run ratios: compare a benchmark run with a baseline, flag regressions.

Wall-clock times on a shared machine move by 2x with the load; the ratio of
our kernel to its alternative *timed in the same run* barely moves.  So a run
is judged by its ratios only:

* the pytest-benchmark suite (``pytest benchmarks/ --benchmark-only``) saves
  every run as JSON under ``benchmarks/.results/<machine>/`` (machine info,
  commit, every benchmark's ``extra_info``; see ``benchmarks/conftest.py``);
* ``python -m benchmarks.track check`` times the kernels that matter beside
  their alternatives (:mod:`kernel_ratios`, about a minute at most), saves the
  run there too and compares it with ``benchmarks/baseline.json``;
* ``python -m benchmarks.track compare`` compares the latest saved run with a
  baseline (a file, or ``previous``: the run before the latest).

A ratio is a number in a benchmark's ``extra_info`` whose key says which way
is better: ``speedup*`` and ``vs_reference`` -- higher is better (how many
times faster ours is); keys starting with ``ratio`` or holding ``_over_`` or
``" / "`` -- lower is better (ours divided by the alternative).  ``goal_*``
keys are targets, not measurements.  A ratio *regresses* when it got worse by
more than the tolerance: by a factor above ``1 + tolerance`` (default 0.5,
i.e. 1.5x worse).  The command prints a table and exits 1 on a regression,
2 when there is nothing to compare, 0 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS_DIR = HERE / ".results"
BASELINE = HERE / "baseline.json"
DEFAULT_TOLERANCE = 0.5

__all__ = ["Ratio", "Row", "ratio_direction", "ratios_of", "compare_runs", "render_table", "find_runs",
           "load_run", "save_run", "run_document", "main"]


# --------------------------------------------------------------------------
# Ratios out of a run
# --------------------------------------------------------------------------


def ratio_direction(key: str) -> str | None:
    """``"higher"`` or ``"lower"`` (which way is better) for a ratio key of ``extra_info``, None if not a ratio."""
    if key.startswith("goal_"):
        return None
    if key.startswith("speedup") or key == "vs_reference":
        return "higher"
    if key.startswith("ratio") or "_over_" in key or " / " in key:
        return "lower"
    return None


@dataclass(frozen=True)
class Ratio:
    name: str       # "<benchmark fullname> <key>"
    value: float
    better: str     # "higher" or "lower"


def _short(fullname: str) -> str:
    """``benchmarks/bench_push.py::test_x[n=1]`` -> ``bench_push.py::test_x[n=1]``."""
    head, sep, tail = fullname.partition("::")
    return (head.rsplit("/", 1)[-1] + sep + tail) if sep else fullname


def ratios_of(run: dict) -> dict[str, Ratio]:
    """Every finite same-run ratio recorded in a run's benchmarks' ``extra_info``."""
    out = {}
    for bench in run.get("benchmarks", []):
        base = _short(str(bench.get("fullname") or bench.get("name")))
        for key, value in (bench.get("extra_info") or {}).items():
            better = ratio_direction(str(key))
            if better is None or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not math.isfinite(value) or value <= 0:
                continue
            name = f"{base} {key}"
            out[name] = Ratio(name, float(value), better)
    return out


# --------------------------------------------------------------------------
# Comparing two runs
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    better: str
    baseline: float | None
    latest: float | None
    worse_by: float | None   # > 1: got worse by this factor; < 1: got better
    status: str              # "ok", "REGRESSED", "improved", "new", "not run"


def compare_runs(baseline: dict, latest: dict, tolerance: float = DEFAULT_TOLERANCE) -> list[Row]:
    """One row per ratio of either run, sorted by name; ``status`` says whether it regressed.

    For a higher-is-better ratio ``worse_by = baseline / latest``, for a
    lower-is-better one ``latest / baseline``; REGRESSED when
    ``worse_by > 1 + tolerance``, improved when ``worse_by < 1 / (1 + tolerance)``.
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance >= 0:
        raise ValueError(f"tolerance: expected a number >= 0, got {tolerance!r}")
    before, after = ratios_of(baseline), ratios_of(latest)
    rows = []
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name), after.get(name)
        if b is None:
            rows.append(Row(name, a.better, None, a.value, None, "new"))
            continue
        if a is None:
            rows.append(Row(name, b.better, b.value, None, None, "not run"))
            continue
        worse_by = b.value / a.value if b.better == "higher" else a.value / b.value
        if worse_by > 1 + tolerance:
            status = "REGRESSED"
        elif worse_by < 1 / (1 + tolerance):
            status = "improved"
        else:
            status = "ok"
        rows.append(Row(name, b.better, b.value, a.value, worse_by, status))
    return rows


def regressions(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.status == "REGRESSED"]


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}"


def render_table(rows: list[Row], tolerance: float) -> str:
    """A plain-text table: ratio, which way is better, baseline, latest, change, status."""
    header = ["ratio", "better", "baseline", "latest", "worse by", "status"]
    body = [[r.name, r.better, _number(r.baseline), _number(r.latest),
             "-" if r.worse_by is None else f"{r.worse_by:.2f}x", r.status] for r in rows]
    widths = [max(len(str(row[i])) for row in [header] + body) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for row in body:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    compared = [r for r in rows if r.worse_by is not None]
    bad = regressions(rows)
    lines.append("")
    lines.append(f"{len(compared)} ratios compared, {len(bad)} regressed beyond the tolerance "
                 f"({tolerance:g}: worse by more than {1 + tolerance:.2f}x)")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Runs on disk
# --------------------------------------------------------------------------


def find_runs(results_dir: Path = RESULTS_DIR) -> list[Path]:
    """Saved runs, oldest first (by modification time, then name)."""
    if not Path(results_dir).is_dir():
        return []
    paths = [p for p in Path(results_dir).rglob("*.json") if p.is_file()]
    return sorted(paths, key=lambda p: (p.stat().st_mtime, p.name))


def load_run(path: str | os.PathLike) -> dict:
    with open(path, encoding="utf-8") as fh:
        run = json.load(fh)
    if not isinstance(run, dict) or not isinstance(run.get("benchmarks"), list):
        raise ValueError(f"{path}: not a benchmark run (expected a JSON object with a 'benchmarks' list)")
    return run


def _machine_and_commit() -> tuple[dict, dict]:
    try:
        from pytest_benchmark.utils import get_commit_info
        from pytest_benchmark.plugin import pytest_benchmark_generate_machine_info

        return pytest_benchmark_generate_machine_info(), get_commit_info()
    except Exception:  # pytest-benchmark missing or changed: the essentials by hand
        return ({"node": platform.node(), "processor": platform.processor(), "machine": platform.machine(),
                 "python_version": platform.python_version(), "system": platform.system(),
                 "cpu_count": os.cpu_count()}, {})


def run_document(benchmarks: list[dict], *, kind: str) -> dict:
    """A run in pytest-benchmark's JSON layout (machine_info, commit_info, datetime, benchmarks)."""
    machine, commit = _machine_and_commit()
    return {
        "machine_info": machine,
        "commit_info": commit,
        "datetime": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "version": "rankcore-track-1",
        "rankcore": {"kind": kind},
        "benchmarks": benchmarks,
    }


def save_run(run: dict, results_dir: Path = RESULTS_DIR, *, stem: str = "ratio-check") -> Path:
    """Write a run under ``results_dir/<machine>/<counter>_<stem>.json``; returns the path."""
    try:
        from pytest_benchmark.utils import get_machine_id

        machine = get_machine_id()  # the folder pytest-benchmark's autosave uses
    except ImportError:
        machine = f"{platform.system()}-{platform.python_implementation()}-{platform.python_version()[:4]}"
    folder = Path(results_dir) / machine
    folder.mkdir(parents=True, exist_ok=True)
    counter = 1 + max((int(p.name.split("_", 1)[0]) for p in folder.glob("*.json")
                       if p.name.split("_", 1)[0].isdigit()), default=0)
    commit = (run.get("commit_info") or {}).get("id") or "nocommit"
    path = folder / f"{counter:04d}_{stem}_{str(commit)[:8]}.json"
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(run, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return path


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


def _compare_and_report(baseline: dict, latest: dict, tolerance: float, out) -> int:
    rows = compare_runs(baseline, latest, tolerance)
    if not any(r.worse_by is not None for r in rows):
        print("nothing to compare: the two runs have no ratio in common (benchmarks/baseline.json holds "
              "`track check`'s kernel ratios: compare a suite run with `--baseline previous`)", file=out)
        return 2
    print(render_table(rows, tolerance), file=out)
    return 1 if regressions(rows) else 0


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.track", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    compare = sub.add_parser("compare", help="compare the latest saved run with a baseline by same-run ratios")
    compare.add_argument("--baseline", default=str(BASELINE),
                         help="a run's JSON, or 'previous' for the run before the latest (default %(default)s)")
    compare.add_argument("--latest", help="a run's JSON (default: the newest under --results)")
    compare.add_argument("--results", default=str(RESULTS_DIR), help="folder of saved runs (default %(default)s)")
    compare.add_argument("--tolerance", type=_tolerance, default=DEFAULT_TOLERANCE,
                         help="a ratio regresses when worse by more than 1 + TOLERANCE times (default %(default)s)")
    check = sub.add_parser("check", help="time the kernels that matter beside their alternatives, save the run "
                                         "and compare it with the baseline")
    check.add_argument("--baseline", default=str(BASELINE), help="default %(default)s")
    check.add_argument("--results", default=str(RESULTS_DIR), help="where the run is saved (default %(default)s)")
    check.add_argument("--tolerance", type=_tolerance, default=DEFAULT_TOLERANCE, help="default %(default)s")
    check.add_argument("--kernels", default="auc,push_iteration,stumps_search",
                       help="comma-separated subset (default %(default)s)")
    check.add_argument("--no-save", action="store_true", help="do not save the run")
    promote = sub.add_parser("promote", help="make a saved run the baseline")
    promote.add_argument("run", nargs="?", help="a run's JSON (default: the newest under --results)")
    promote.add_argument("--results", default=str(RESULTS_DIR), help="default %(default)s")
    promote.add_argument("--baseline", default=str(BASELINE), help="the file written (default %(default)s)")
    return parser


def main(argv: list[str] | None = None, out=None) -> int:
    out = sys.stdout if out is None else out
    args = _parser().parse_args(argv)
    try:
        return _run_command(args, out)
    except (OSError, ValueError) as exc:      # a run file missing or not a run, an unknown kernel: one line, exit 2
        print(f"track {args.command}: {exc}", file=sys.stderr)
        return 2


def _run_command(args, out) -> int:
    if args.command == "check":
        import kernel_ratios  # noqa: PLC0415 (benchmarks/ is on sys.path, see the bottom of this file)

        kernels = [k for k in args.kernels.split(",") if k]
        run = run_document(kernel_ratios.measure(kernels), kind="ratio-check")
        if not args.no_save:
            print(f"saved {save_run(run, Path(args.results))}", file=out)
        if not Path(args.baseline).is_file():
            print(f"no baseline at {args.baseline}: make this run the baseline with "
                  f"`python -m benchmarks.track promote`", file=out)
            return 2
        return _compare_and_report(load_run(args.baseline), run, args.tolerance, out)
    runs = find_runs(Path(args.results))
    if args.command == "promote":
        source = Path(args.run) if args.run else (runs[-1] if runs else None)
        if source is None:
            print(f"no saved run under {args.results}", file=out)
            return 2
        run = load_run(source)
        with open(args.baseline, "w", encoding="utf-8") as fh:
            json.dump(run, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"{source} is now the baseline {args.baseline}", file=out)
        return 0
    latest_path = Path(args.latest) if args.latest else (runs[-1] if runs else None)
    if latest_path is None:
        print(f"no saved run under {args.results}: run `pytest benchmarks/ --benchmark-only` "
              f"or `python -m benchmarks.track check` first", file=out)
        return 2
    latest = load_run(latest_path)
    if args.baseline == "previous":
        # the latest earlier run of the same kind that timed some of the same ratios (a run of another benchmark
        # file in between has none in common, and comparing with it would flag nothing)
        kind, mine = _kind(latest), set(ratios_of(latest))
        earlier = [p for p in runs if p.resolve() != latest_path.resolve() and _kind(load_run(p)) == kind]
        shared = [p for p in earlier if mine & set(ratios_of(load_run(p)))]
        if not shared:
            print(f"no earlier run of the same kind ({kind[0]}, profile {kind[1]}) timed any of the latest run's "
                  "ratios", file=out)
            return 2
        baseline_path = shared[-1]
    else:
        baseline_path = Path(args.baseline)
    print(f"baseline: {baseline_path}\nlatest:   {latest_path}\n", file=out)
    return _compare_and_report(load_run(baseline_path), latest, args.tolerance, out)


def _kind(run: dict) -> tuple[str, str | None]:
    """What made a run: ("ratio-check", None) or ("pytest-benchmark", profile); ratios compare within one kind."""
    info = run.get("rankcore") or {}
    return str(info.get("kind", "pytest-benchmark")), info.get("profile")


sys.path.insert(0, str(HERE))  # `import kernel_ratios`, `import bench_push` as the benchmarks' conftest does

if __name__ == "__main__":
    sys.exit(main())
