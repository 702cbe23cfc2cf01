"""``codegen-compare a.jsonl b.jsonl ...``: the comparison of ``pytest --codegen-compare``
without pytest's start-up (no plugins loaded, nothing collected): the same files read and
checked, the same terminal lines, JSON and page, from the same code (:mod:`.compare_run`).
It takes the options of a comparing pytest run by the same names, with the same help."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..options import OPTIONS
from ..output_paths import refused_line
from .compare_run import FLAG, comparison_lines, read_runs, write_comparison
from .comparison import compare_runs

PROG = "codegen-compare"
# pytest's exit status for a usage error, so scripts see the same status either way.
USAGE_ERROR = 4
TAKEN = ("k", "compare_out", "html", "date_window")


def parser() -> argparse.ArgumentParser:
    described = {option.name: option for option in OPTIONS}
    made = argparse.ArgumentParser(
        prog=PROG,
        description="Compare the runs of two or more --codegen-results files "
        "(as pytest --codegen-compare does).",
    )
    made.add_argument("files", nargs="*", metavar="FILE", help="results files, two or more")
    for name in TAKEN:
        option = described[name]
        made.add_argument(
            option.flag_name,
            dest=name,
            help=option.help,
            metavar=option.metavar,
            default=None,
        )
    return made


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    described = {option.name: option for option in OPTIONS}
    values: dict[str, Any] = {}
    for name in ("k", "date_window"):
        option, raw = described[name], getattr(args, name)
        try:
            values[name] = option.default if raw is None else option.parse(raw)
        except ValueError as e:
            print(f"ERROR: {option.flag_name}: {e}", file=sys.stderr)
            return USAGE_ERROR
    base = Path.cwd()
    try:
        runs = read_runs(base, list(args.files), FLAG)
    except ValueError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return USAGE_ERROR
    comparison = compare_runs(runs, values["k"], date_window=values["date_window"])
    print(f"codegen: comparison of {len(runs)} runs")
    for line in comparison_lines(comparison):
        print(line)
    unwritten = write_comparison(comparison, base, args.compare_out, args.html)
    if args.compare_out and "compare_out" not in unwritten:
        print(f"comparison (JSON): {args.compare_out}")
    if args.html is not None and "html" not in unwritten:
        print(f"comparison page: {args.html}")
    for name, (path, reason) in unwritten.items():
        line = refused_line(described[name].flag_name, path, base, reason)
        print(f"ERROR: {line}", file=sys.stderr)
    return USAGE_ERROR if unwritten else 0


if __name__ == "__main__":
    sys.exit(main())
