"""The command line: build the report from a results file after the run.

``python -m pytest_codegen.reporting.html results.jsonl -o report.html`` runs :func:`main`.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...scoring.passk import summarize
from ..breakdowns import WINDOWS
from ..results import load_sample_records
from .data import DEFAULT_KS, shown_text
from .page import write_html


def _plugin_version() -> str:
    try:
        from importlib.metadata import version

        return version("pytest-codegen")
    except Exception:
        return ""


def _pytest_version() -> str:
    try:
        import pytest

        return str(pytest.__version__)
    except Exception:
        return ""


def _parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"k values must be positive integers, got {text!r}")
    return ks


def build_from_results(
    results: str | Path,
    output: str | Path,
    ks: Sequence[int] = DEFAULT_KS,
    model: str | None = None,
    date_window: str = "quarter",
) -> dict[str, Any]:
    """Read a results JSONL, score it and write the report; returns the meta used."""
    results = Path(results)
    records = load_sample_records(results)
    summary = [row.to_json() for row in summarize(records, ks)]
    models = sorted({shown_text(r.get("model")) for r in records if r.get("model")})
    started = _dt.datetime.fromtimestamp(results.stat().st_mtime, tz=_dt.timezone.utc)
    meta: dict[str, Any] = {
        "model": model or ", ".join(models) or "unknown model",
        "started": None,
        "duration_s": None,
        "k": list(ks),
        "date_window": date_window,
        "pytest_version": _pytest_version(),
        "plugin_version": _plugin_version(),
        "source": str(results),
        "source_modified": started.isoformat(timespec="seconds"),
    }
    write_html(Path(output), records, summary, meta)
    return meta


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_codegen.reporting.html",
        description="Build a self-contained HTML report from a pytest-codegen results JSONL file.",
    )
    parser.add_argument("results", type=Path, help="results file, one JSON record per line")
    parser.add_argument(
        "-o", "--output", type=Path, help="HTML file to write (default: RESULTS with .html)"
    )
    parser.add_argument(
        "-k", "--k", type=_parse_ks, default=list(DEFAULT_KS), help="pass@k values (1,5,10)"
    )
    parser.add_argument("--model", help="model name for the header (default: from the records)")
    parser.add_argument(
        "--date-window",
        choices=(*WINDOWS, "off"),
        default="quarter",
        help="pass@k by release window of contest_date, as --codegen-date-window (quarter)",
    )
    args = parser.parse_args(argv)
    output = args.output or args.results.with_suffix(".html")
    try:
        build_from_results(args.results, output, args.k, args.model, args.date_window)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyError as exc:
        print(f"error: {args.results}: a record has no {exc} field", file=sys.stderr)
        return 1
    print(f"wrote {output}")
    return 0
