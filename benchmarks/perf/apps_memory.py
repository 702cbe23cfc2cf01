"""Peak memory of grading a large APPS test file: a synthetic file of N problems (300 by
default) whose ``input_output`` is each about 1 MB (one test case whose expected output is
random text, as APPS's largest rows hold megabytes of cases), graded with the empty model,
plain and with ``-n 2``. Each pytest process (the controller, each xdist worker) writes its
own peak resident size (``ru_maxrss`` of itself, not of the sandboxes it starts) when it
ends, through a small plugin loaded with ``-p``.

With ``--against DIR`` it also grades the file with another checkout (e.g.
``git worktree add /tmp/before HEAD~3``) and prints both.

    python benchmarks/perf/apps_memory.py [--problems 300] [--io-mb 1] [--against DIR]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from plugin_run import PYTEST

REPO = Path(__file__).resolve().parents[2]

# Loaded into every pytest process with -p: its own peak RSS, in MB, to a file of its name.
PROBE = """
import os, resource

def pytest_unconfigure(config):
    name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with open(os.path.join(os.environ["APPS_MEMORY_OUT"], name), "w") as fh:
        fh.write(f"{peak_mb:.1f}")
"""


def write_apps_file(path: Path, problems: int, io_bytes: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for i in range(problems):
            noise = base64.b64encode(os.urandom(io_bytes * 3 // 4)).decode()
            row = {
                "problem_id": i,
                "question": f"Print the answer to problem {i}.",
                "solutions": json.dumps(["print(input())\n"]),
                "input_output": json.dumps({"inputs": ["1\n"], "outputs": [noise]}),
                "difficulty": "interview",
                "url": f"https://example.org/{i}",
                "starter_code": "",
            }
            fh.write(json.dumps(row) + "\n")
    return path


def peaks_mb(checkout: Path, data: Path, problems: int, xdist: list[str]) -> dict[str, float]:
    """Each pytest process's peak RSS (MB) grading ``data`` with the plugin of ``checkout``;
    checks that every problem's sample was graded (each fails: the empty program prints
    nothing)."""
    with tempfile.TemporaryDirectory(prefix="apps-memory-run-") as tmp:
        out = Path(tmp)
        (out / "apps_memory_probe.py").write_text(PROBE)
        env = {
            **os.environ,
            "PYTHONPATH": f"{checkout}{os.pathsep}{out}",
            "APPS_MEMORY_OUT": str(out),
            "PYTEST_CODEGEN_CACHE": str(out / "cache"),
        }
        command = [sys.executable, *PYTEST, "-p", "apps_memory_probe", "-q", str(data)]
        command += ["--codegen-model=empty", "--codegen-samples=1", *xdist]
        said = subprocess.run(command, cwd=out, env=env, capture_output=True, text=True)
        if f"{problems} failed" not in said.stdout:
            raise SystemExit(f"{checkout}: the run did not grade every problem:\n{said.stdout}")
        return {
            p.name: float(p.read_text())
            for p in sorted(out.iterdir())
            if p.is_file() and not p.suffix
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=300)
    parser.add_argument("--io-mb", type=float, default=1.0)
    parser.add_argument("--against", type=Path)
    args = parser.parse_args()
    checkouts = {"this checkout": REPO}
    if args.against:
        checkouts[str(args.against)] = args.against.resolve()
    with tempfile.TemporaryDirectory(prefix="apps-memory-") as tmp:
        data = write_apps_file(Path(tmp) / "test.jsonl", args.problems, int(args.io_mb * 2**20))
        print(f"{args.problems} problems; APPS file {data.stat().st_size / 2**20:.0f} MB")
        for name, checkout in checkouts.items():
            for label, xdist in (("plain", []), ("-n 2", ["-n", "2"])):
                peaks = peaks_mb(checkout, data, args.problems, xdist)
                shown = ", ".join(f"{who} {mb:.1f} MB" for who, mb in peaks.items())
                print(f"{name:30s} {label:6s} peak RSS: {shown}")


if __name__ == "__main__":
    main()
