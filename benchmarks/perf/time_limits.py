"""What derived time limits cost: a run that calibrates every problem's reference on this host,
then one that reuses the calibration, next to the flat rule (no calibration), in the same run.

Each repeat grades ``--suite`` (humaneval or react) with ``--codegen-model=reference -n 2``
three times, alternating: ``--codegen-timeout-rule=flat``; ``reference`` with an empty
calibration (a cache root of its own that links the default one's other entries, so the Node
toolchain is not built again); ``reference`` again, reusing it. Prints the median wall time of
each with its ratio to flat, and the limits the calibration gave (how many from the floor, the
reference's factor or the cap; the median reference time).

    python benchmarks/perf/time_limits.py [--suite humaneval] [--repeat 3]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plugin_run import PYTEST

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pytest_codegen.cachedir import default_cache_root  # noqa: E402


def cache_without_calibration(where: Path) -> Path:
    """A cache root linking every entry of the default one but its calibrations."""
    root = where / "cache"
    root.mkdir()
    default = default_cache_root()
    for entry in default.iterdir() if default.is_dir() else []:
        if entry.name != "calibration" and not entry.name.endswith(".lock"):
            (root / entry.name).symlink_to(entry)
    return root


def run(suite: str, rule: str, cache: Path, results: Path) -> float:
    env = {**os.environ, "PYTEST_CODEGEN_CACHE": str(cache)}
    command = [sys.executable, *PYTEST, "-q", "-p", "no:randomly"]
    command += [f"--codegen-suite={suite}", "--codegen-model=reference", "-n", "2"]
    command += [f"--codegen-timeout-rule={rule}", f"--codegen-results={results}"]
    started = time.monotonic()
    proc = subprocess.run(command, env=env, cwd=results.parent, capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="humaneval", choices=("humaneval", "react"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    walls: dict[str, list[float]] = collections.defaultdict(list)
    limits: list[dict] = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            where = Path(tmp)
            cache = cache_without_calibration(where)
            for label, rule in (
                ("flat", "flat"),
                ("calibrating", "reference"),
                ("cached", "reference"),
            ):
                walls[label].append(run(args.suite, rule, cache, where / f"{label}.jsonl"))
            records = (where / "calibrating.jsonl").read_text().splitlines()
            limits = [json.loads(line)["time_limit"] for line in records]
    flat = statistics.median(walls["flat"])
    print(f"{args.suite}, reference model, -n 2, median of {args.repeat} alternating repeats:")
    for label, times in walls.items():
        median = statistics.median(times)
        print(f"  {label:12} {median:6.2f} s  ({median / flat:.2f} x flat)")
    sources = collections.Counter(limit["source"] for limit in limits)
    references = [limit["reference_s"] for limit in limits if "reference_s" in limit]
    print(
        f"limits of {len(limits)} samples: "
        + ", ".join(f"{n} from the {source}" for source, n in sorted(sources.items()))
        + (f"; median reference time {statistics.median(references):.3f} s" if references else "")
    )


if __name__ == "__main__":
    main()
