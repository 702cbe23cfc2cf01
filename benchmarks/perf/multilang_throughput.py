"""Throughput of grading programs in other languages: pytest-codegen (``-n 2``, every sample
in its sandbox; the crates, Go modules, Go build cache and C++'s precompiled headers made once
per host) vs the official harnesses' way on the same samples and machine, in the same run: one
process per sample that compiles and runs it unconfined, two at a time.

- HumanEval-X, as CodeGeeX's ``execution.py``: ``g++`` then ``./a.out``, ``node``, ``go test``
  in a module, ``cargo check`` then ``cargo test`` in one cargo project, ``javac`` then
  ``java``. The problems are ``fixtures/humaneval_x`` (two a language) unless ``--data-dir``
  holds HumanEval-X's files (then the first ``--problems`` of each).
- MultiPL-E, as its ``eval_<lang>.py``: ``g++ -std=c++17`` then the binary, ``rustc`` then the
  binary, ``javac`` then ``java -ea``, ``go test``, ``tsc --target esnext`` then ``node``; the
  problem is ``fixtures/multipl_e``'s add.

Each problem is answered ``--samples`` times with its right answer, each copy a different
program (a comment that names the sample), so nothing is reused from one sample to the next
but what each side reuses by design. Prints per language each side's wall time and samples/s,
the ratio (official time / ours: above 1, ours is faster), the CPU time of each side's
processes per sample, how many passed on each side, and where a sample's time goes: on our
side the build step, the run step and the rest (the sandbox: a process of the zygote, its
confinement, the supervisor) and the start of pytest and its workers (the wall time less
the samples' own, shared by two workers); on the official side its build, its run and their
CPU. Both breakdowns time the first ``--single`` samples one at
a time, the sides alternating (timed two at a time, the official steps would count the wait
for a core as their own time): the last figure, a sample's time on the official side over
ours, is the ratio a run tends to as it grows, once the start is shared by many samples.
With ``--repeat N`` both sides run N times, alternating which goes first; the figures are
medians, with the range of the run-by-run ratios.

    python benchmarks/perf/multilang_throughput.py [--samples 10] [--languages cpp,go,...]
        [--repeat 3] [--single 5] [--data-dir ../shared/data/humaneval-x --problems 20]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from plugin_run import PYTEST

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from humaneval_throughput import byte_compile_plugin, children_cpu, per_run_ratios  # noqa: E402

from pytest_codegen.execution.native import libraries  # noqa: E402
from pytest_codegen.execution.native.program_run import run_program  # noqa: E402
from pytest_codegen.execution.native.toolchains import find, tool_env  # noqa: E402
from pytest_codegen.execution.python.sandbox import Limits  # noqa: E402
from pytest_codegen.kinds.humaneval_x import HumanEvalXKind, assemble, load_humaneval_x  # noqa: E402
from pytest_codegen.kinds.multipl_e import MultiPLEKind, load_multipl_e  # noqa: E402
from pytest_codegen.kinds.native_program import cut_at_stop  # noqa: E402

# name -> (benchmark, our language key, HumanEval-X's file language)
LANGUAGES = {
    "cpp": ("humaneval-x", "cpp", "cpp"),
    "js": ("humaneval-x", "js", "js"),
    "go": ("humaneval-x", "go", "go"),
    "rust": ("humaneval-x", "rs", "rust"),
    "java": ("humaneval-x", "java", "java"),
    "mple-cpp": ("multipl-e", "cpp", ""),
    "mple-rs": ("multipl-e", "rs", ""),
    "mple-java": ("multipl-e", "java", ""),
    "mple-go": ("multipl-e", "go", ""),
    "mple-ts": ("multipl-e", "ts", ""),
}
# Right answers to fixtures/multipl_e/add.jsonl.
MULTIPL_E_RIGHT = {
    "cpp": "    return x + y;\n}\n",
    "rs": "    x + y\n}\n",
    "java": "        return x + y;\n    }\n",
    "go": "    return x + y\n",
    "ts": "  return x + y;\n}\n",
}
ADD = ROOT / "fixtures" / "multipl_e" / "add.jsonl"


class Clock:
    """Seconds spent per step name, summed over samples."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.spent[name] = self.spent.get(name, 0.0) + seconds


def official_one(
    benchmark: str, lang: str, program: str, work: Path, shared: dict[str, Path], clock: Clock
) -> bool:
    """One sample the official way: a fresh folder, compile, run; whether it passed."""
    env = tool_env()

    def run(argv: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess[bytes]:
        began, cpu = time.monotonic(), children_cpu()
        try:
            return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:  # a failed sample, as upstream counts it
            return subprocess.CompletedProcess(argv, -1, b"", b"timed out")
        finally:
            clock.add(what, time.monotonic() - began)
            clock.add("cpu", children_cpu() - cpu)

    folder = Path(tempfile.mkdtemp(dir=work))
    humaneval_x = benchmark == "humaneval-x"
    try:
        if lang == "cpp":
            (folder / "test.cpp").write_text(program)
            std = "-std=c++11" if humaneval_x else "-std=c++17"
            ssl = ["-lcrypto", "-lssl"] if "openssl/" in program else []
            if run(["g++", std, "test.cpp", *ssl], folder, "build").returncode:
                return False
            return run(["./a.out"], folder, "run").returncode == 0
        if lang == "js":
            (folder / "test.js").write_text(program)
            env["NODE_PATH"] = str(shared["node_modules"])
            done = run(["node", "test.js"], folder, "run")
            return not done.stderr and not done.stdout
        if lang == "go":
            if humaneval_x:
                module = shared["go"]
                for name in ("go.mod", "go.sum"):
                    shutil.copy(module / name, folder / name)
                env.update(GOMODCACHE=str(module / "mod"), GOFLAGS="-mod=mod", GOPROXY="off")
            (folder / "main_test.go").write_text(program)
            done = run(["go", "test", "main_test.go"], folder, "build and run")
            return done.returncode == 0 and b"FAIL" not in done.stdout
        if lang == "rs" and humaneval_x:
            project = shared["rust"]
            name = folder.name.lower().replace("-", "_")
            bin_dir = project / "src" / "bin"
            bin_dir.mkdir(parents=True, exist_ok=True)
            (bin_dir / f"{name}.rs").write_text(program)
            try:
                if run(["cargo", "check", "--bin", name], project, "build").returncode:
                    return False
                return run(["cargo", "test", "--bin", name], project, "run").returncode == 0
            finally:
                (bin_dir / f"{name}.rs").unlink()
        if lang == "rs":
            (folder / "main.rs").write_text(program)
            if run(["rustc", "main.rs", "-o", "main"], folder, "build").returncode:
                return False
            return run(["./main"], folder, "run").returncode == 0
        if lang == "ts":
            (folder / "main.ts").write_text(program)
            tsc = [shared["node"], str(shared["tsc"]), "--target", "esnext", "main.ts"]
            if run(tsc, folder, "build").returncode:
                return False
            return run([shared["node"], "main.js"], folder, "run").returncode == 0
        if lang == "java":
            main = "Main" if humaneval_x else "Problem"
            (folder / f"{main}.java").write_text(program)
            classpath = [str(folder), *([str(shared["jar"])] if "jar" in shared else [])]
            javac = ["javac", "-cp", ":".join(classpath), f"{main}.java"]
            if run(javac, folder, "build").returncode:
                return False
            asserts = [] if humaneval_x else ["-ea"]
            java = ["java", *asserts, "-cp", ":".join(classpath), main]
            return run(java, folder, "run").returncode == 0
        raise ValueError(lang)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shared_libraries(benchmark: str, lang: str, work: Path) -> dict[str, Path]:
    shared: dict[str, Path] = {}
    if lang == "js":
        shared["node_modules"] = Path(libraries.node_modules())
    if lang == "go" and benchmark == "humaneval-x":
        shared["go"] = Path(libraries.go_modules()[0])
    if lang == "java" and benchmark == "multipl-e":
        shared["jar"] = Path(libraries.javatuples())
    if lang == "ts":  # the same compiler, as upstream's npx finds it installed
        shared["tsc"] = Path(libraries.typescript()[0]) / "lib" / "tsc.js"
        shared["node"] = Path(find("ts").tools["node"])
    if lang == "rs" and benchmark == "humaneval-x":
        # One cargo project for all samples, its crates built before timing, as upstream's.
        project = work / "rust-project"
        project.mkdir(exist_ok=True)
        (project / "Cargo.toml").write_text(libraries.cargo_manifest("rust"))
        (project / "src").mkdir(exist_ok=True)
        (project / "src" / "main.rs").write_text("fn main() {}\n")
        subprocess.run(["cargo", "build"], cwd=project, env=tool_env(), capture_output=True)
        shared["rust"] = project
    return shared


def official(
    benchmark: str, lang: str, programs: list[str], work: Path, shared: dict[str, Path]
) -> tuple[float, float, int]:
    """Wall time and CPU time of grading ``programs`` two at a time, and how many passed."""
    started, cpu = time.monotonic(), children_cpu()
    with ThreadPoolExecutor(2) as pool:
        passed = sum(
            pool.map(lambda p: official_one(benchmark, lang, p, work, shared, Clock()), programs)
        )
    return time.monotonic() - started, children_cpu() - cpu, passed


def ours(suite: Path, replay: Path, samples: int, work: Path) -> tuple[float, float, int, float]:
    """Wall time and CPU time of ``pytest -n 2``, samples passed, and the samples' own time
    summed."""
    results = work / "ours.jsonl"
    results.unlink(missing_ok=True)
    started, cpu = time.monotonic(), children_cpu()
    subprocess.run(
        [
            sys.executable,
            *PYTEST,
            "-q",
            "-n",
            "2",
            f"--codegen-model=replay:{replay}",
            f"--codegen-samples={samples}",
            str(suite),
            f"--codegen-results={results}",
        ],
        cwd=work,
        capture_output=True,
        timeout=3600,
    )
    wall, cpu = time.monotonic() - started, children_cpu() - cpu
    records = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return wall, cpu, sum(r["passed"] for r in records), sum(r["duration_s"] for r in records)


def one_at_a_time(
    benchmark: str, lang: str, sampled: list, work: Path, shared: dict[str, Path]
) -> tuple[Clock, Clock]:
    """Where a sample's time goes, ``sampled`` one at a time, the two sides alternating: our
    build step, run step and the rest, in this process; the official build, run and CPU."""
    kind = kind_of(benchmark)
    tool = find(lang)
    clock, official_clock = Clock(), Clock()
    limits = Limits(timeout_s=60.0, memory_mb=2048)
    # Untimed: the first sandbox of this process starts its launcher, which every later
    # sample finds running (a worker's first sample pays it once, not every sample).
    problem, answer = sampled[0]
    first = program_of(benchmark, problem, answer) + "\n"
    run_program(tool, first, limits, (), kind.libraries(problem), benchmark)
    for problem, answer in sampled:
        program = program_of(benchmark, problem, answer)
        official_one(benchmark, lang, program, work, shared, official_clock)
        began = time.monotonic()
        done = run_program(tool, program, limits, (), kind.libraries(problem), benchmark)
        total = time.monotonic() - began
        steps = [float(s.get("seconds", 0.0)) for s in done.steps]
        names = ["build", "run"] if done.made is not None and done.made.compiled else []
        names = names or ["build and run"]
        for name, seconds in zip(names, steps, strict=False):
            clock.add(name, seconds)
        clock.add("sandbox", total - sum(steps))
    return clock, official_clock


def kind_of(benchmark: str):
    return HumanEvalXKind() if benchmark == "humaneval-x" else MultiPLEKind()


def program_of(benchmark: str, problem, answer: str) -> str:
    if benchmark == "humaneval-x":
        return assemble(problem, answer)
    stops = list(problem.extra.get("stop_tokens", []))
    return problem.prompt + cut_at_stop(answer, stops) + "\n" + problem.tests


def samples_of(benchmark: str, lang: str, file_lang: str, args, work: Path):
    """(suite file, problems, one answer per sample, its task id)."""
    if benchmark == "humaneval-x":
        source = args.data_dir / f"humaneval_{file_lang}.jsonl.gz" if args.data_dir else None
        if source is not None and source.exists():
            with gzip.open(source, "rt") as fh:
                rows = [line for line in fh if line.strip()][: args.problems]
        else:
            fixture = ROOT / "fixtures" / "humaneval_x" / f"humaneval_{file_lang}.jsonl"
            rows = [line for line in fixture.read_text().splitlines(keepends=True) if line.strip()]
        suite = work / f"humaneval_{file_lang}.jsonl"
        suite.write_text("".join(rows))
        problems = load_humaneval_x(suite, suite.stem)
        answers = {p.id: p.reference or "" for p in problems}
    else:
        (row,) = [x for x in ADD.read_text().splitlines() if f'"HumanEval_53_add_{lang}"' in x]
        suite = work / f"add_{lang}.jsonl"
        suite.write_text(row + "\n")
        problems = load_multipl_e(suite, suite.stem)
        answers = {problems[0].id: MULTIPL_E_RIGHT[lang]}
    sampled = []
    for index in range(args.samples):
        for problem in problems:
            # A different program each time: a comment first in the body (before any stop
            # token), where it changes nothing.
            sampled.append((problem, f"    // sample {index}\n" + answers[problem.id]))
    return suite, sampled


def per_sample(clock: Clock, n: int) -> str:
    return ", ".join(f"{name} {seconds / n:.3f}" for name, seconds in clock.spent.items())


def wall_of(clock: Clock) -> float:
    return sum(seconds for name, seconds in clock.spent.items() if name != "cpu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=10, help="answers to each problem")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each side, alternating")
    parser.add_argument("--single", type=int, default=5, help="samples timed one at a time")
    args = parser.parse_args()
    unknown = sorted(set(args.languages.split(",")) - set(LANGUAGES))
    if unknown:
        parser.error(f"--languages: no {', '.join(unknown)} (one of {', '.join(LANGUAGES)})")
    # Installed packages come byte-compiled; a checkout with PYTHONDONTWRITEBYTECODE would
    # have every pytest process compile the plugin again.
    byte_compile_plugin()
    print(
        f"{'language':10} {'samples':>7} {'ours s':>7} {'ours/s':>7} {'official s':>10}"
        f" {'official/s':>10} {'ratio':>6}  CPU ms a sample (ours, official)"
        "  passed (ours, official)"
    )
    breakdowns = []
    for name in args.languages.split(","):
        benchmark, lang, file_lang = LANGUAGES[name]
        find(lang)
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            suite, sampled = samples_of(benchmark, lang, file_lang, args, work)
            replay = work / "replay.jsonl"
            counts: dict[str, int] = {}
            lines = []
            for problem, answer in sampled:
                index = counts[problem.id] = counts.get(problem.id, -1) + 1
                record = {"task_id": problem.id, "sample_index": index, "completion": answer}
                lines.append(json.dumps(record) + "\n")
            replay.write_text("".join(lines))
            n = len(sampled)
            # Untimed: what is made once per host (crates, modules, Go's replay of go test).
            kind_of(benchmark).libraries(sampled[0][0])
            shared = shared_libraries(benchmark, lang, work)
            programs = [program_of(benchmark, p, a) for p, a in sampled]
            # Untimed: the first program warms the user's build caches (Go's standard
            # library), as upstream's have been warmed by the programs before.
            official_one(benchmark, lang, programs[0], work, shared, Clock())
            runs: dict[str, list] = {"ours": [], "official": []}
            for index in range(args.repeat):
                for side in ("ours", "official")[:: 1 if index % 2 == 0 else -1]:
                    if side == "ours":
                        runs[side].append(ours(suite, replay, args.samples, work))
                    else:
                        runs[side].append(official(benchmark, lang, programs, work, shared))
            steps, official_clock = one_at_a_time(
                benchmark, lang, sampled[: args.single], work, shared
            )
        ours_s = statistics.median(r[0] for r in runs["ours"])
        official_s = statistics.median(r[0] for r in runs["official"])
        cpu_ms = [1000 * statistics.median(r[1] for r in runs[side]) / n for side in runs]
        passed = [sorted({r[2] for r in runs[side]}) for side in runs]
        walls = [r[0] for r in runs["official"]], [r[0] for r in runs["ours"]]
        print(
            f"{name:10} {n:7} {ours_s:7.1f} {n / ours_s:7.2f} {official_s:10.1f}"
            f" {n / official_s:10.2f} {official_s / ours_s:6.2f}{per_run_ratios(*walls)}"
            f"  {cpu_ms[0]:.0f}, {cpu_ms[1]:.0f}  {passed[0]}, {passed[1]}",
            flush=True,
        )
        ours_busy = statistics.median(r[3] for r in runs["ours"])
        start = max(ours_s - ours_busy / 2, 0.0)
        single = min(args.single, n)
        breakdowns.append(
            f"{name:10} ours: pytest and workers' start {start:.1f} s in all; a sample"
            f" (s, one at a time): {per_sample(steps, single)}  |  official, a sample"
            f" (s, one at a time): {per_sample(official_clock, single)}  |  a sample's"
            f" time, official / ours: {wall_of(official_clock) / wall_of(steps):.2f}"
        )
    print("\nwhere the time goes")
    for line in breakdowns:
        print(line)


if __name__ == "__main__":
    main()
