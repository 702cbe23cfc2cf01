"""Render a demo HTML report, screenshot it in headless Chromium, and time a large one.

    python benchmarks/report_screenshot.py                  # screenshots of a demo report
    python benchmarks/report_screenshot.py --timing 10000   # also time loading 10,000 samples

Writes ``report.html``, ``report.png`` (the overview, ``chromium --screenshot``) and
``report-drilldown.png`` (one problem opened through the ``#problem=`` fragment) to
``--out-dir``. ``--screenshot`` only captures the top of a page, so the drill-down, which the
page scrolls to, is captured over the DevTools protocol (``--remote-debugging-pipe``) by the
small client below. With ``--timing N`` it also writes a report of N samples and prints how
long ``chromium --dump-dom`` takes to load it and run its script, and the page's own load time
(``loadEventEnd``, which includes the script), medians of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_codegen.reporting.html import write_html  # noqa: E402
from pytest_codegen.scoring.passk import summarize  # noqa: E402

KS = [1, 5, 10]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]

PY_CATEGORIES = ["strings", "arithmetic", "lists", "sorting", "parsing", "recursion"]
FAILURES = {
    "failed": ("AssertionError: assert candidate([1, 2, 3]) == 6, got 5", "test_examples"),
    "error": ("NameError: name 'itertools' is not defined", "test_examples"),
    "timeout": ("timed out after 10.0 s", "test_large_input"),
    "crashed": ("killed by SIGKILL (out of memory)", "test_large_input"),
    "unextractable": ("no code block in the reply", ""),
}


def _python_completion(task: int, index: int, outcome: str) -> tuple[str, str]:
    body = {
        "passed": "    return sum(x for x in values if x % 2 == 0)\n",
        "failed": "    return sum(x for x in values[1:] if x % 2 == 0)\n",
        "error": "    return sum(itertools.islice(values, 0, None, 2))\n",
        "timeout": "    while True:\n        values = sorted(values)\n",
        "crashed": "    return sum([x] * 10**10 for x in values)\n",
    }.get(outcome, "")
    code = (
        f"def sum_even_{task}(values: list[int]) -> int:\n"
        f'    """Return the sum of the even numbers in ``values``."""\n'
        "    # walk the list once\n"
        f"{body}"
    )
    if outcome == "unextractable":
        return "I would need more context about the expected input format.", ""
    return f"Here is an implementation (attempt {index}):\n\n```python\n{code}```\n", code


def _react_completion(task: int, outcome: str) -> tuple[str, str]:
    label = "Submit" if outcome == "passed" else "Send"
    code = (
        "import React, { useState } from 'react';\n\n"
        f"export default function SignupForm{task}() {{\n"
        "  const [email, setEmail] = useState('');\n"
        "  const [done, setDone] = useState(false); // shown after submit\n"
        '  if (done) return <p role="status">Thanks!</p>;\n'
        "  return (\n"
        "    <form onSubmit={(e) => { e.preventDefault(); setDone(true); }}>\n"
        "      <input value={email} onChange={(e) => setEmail(e.target.value)} />\n"
        f'      <button type="submit">{label}</button>\n'
        "    </form>\n"
        "  );\n"
        "}\n"
    )
    return f"```jsx\n{code}```", code


def demo_records(
    python: int = 164, react: int = 30, samples: int = 10, seed: int = 1
) -> list[dict]:
    """A plausible run: a HumanEval-like Python suite and a React suite."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for t in range(python):
        skill = min(1.0, max(0.0, rng.gauss(0.62, 0.3)))
        category = PY_CATEGORIES[t % len(PY_CATEGORIES)]
        prompt = (
            f"def sum_even_{t}(values: list[int]) -> int:\n"
            '    """Return the sum of the even numbers in ``values``.\n\n'
            f"    >>> sum_even_{t}([1, 2, 3, 4])\n    6\n"
            '    """\n'
        )
        for i in range(samples):
            if rng.random() < skill:
                outcome = "passed"
            else:
                outcome = rng.choices(
                    ["failed", "error", "timeout", "crashed", "unextractable"], [60, 20, 10, 4, 6]
                )[0]
            completion, code = _python_completion(t, i, outcome)
            message, failing_test = FAILURES.get(outcome, ("", ""))
            tests = [
                {
                    "name": name,
                    "status": "failed" if name == failing_test else "passed",
                    "message": message if name == failing_test else "",
                }
                for name in ("test_examples", "test_empty", "test_large_input")
            ]
            if outcome == "unextractable":
                tests = []
            stderr = ""
            if outcome in ("error", "failed"):
                stderr = (
                    "Traceback (most recent call last):\n"
                    '  File "candidate.py", line 4, in sum_even\n'
                    f"{message}\n"
                )
            records.append(
                {
                    "nodeid": f"benchmarks/python/humaneval.jsonl::HumanEval_{t}[{i}]",
                    "suite": "humaneval",
                    "task_id": f"HumanEval/{t}",
                    "category": category,
                    "sample_index": i,
                    "outcome": outcome,
                    "passed": outcome == "passed",
                    "duration_s": 10.0
                    if outcome == "timeout"
                    else round(rng.uniform(0.05, 1.2), 3),
                    "completion": completion,
                    "code": code,
                    "error": message,
                    "model": "example-coder-7b",
                    "mode": "python-call",
                    "tests": tests,
                    "stdout": "",
                    "stderr": stderr,
                    "prompt": prompt,
                }
            )
    for t in range(react):
        skill = min(1.0, max(0.0, rng.gauss(0.45, 0.3)))
        for i in range(samples):
            outcome = (
                "passed" if rng.random() < skill else rng.choice(["failed", "failed", "error"])
            )
            if t == 5 and i >= samples - 2:
                outcome = "api_error"  # the provider gave up: not graded
            completion, code = _react_completion(t, outcome)
            if outcome == "api_error":
                completion = code = ""
            error = {
                "failed": "expect(screen.getByRole('button')).toHaveTextContent('Submit')",
                "error": "SyntaxError: Unexpected token (12:4)",
                "api_error": "HTTP 529 overloaded after 5 retries",
            }.get(outcome, "")
            records.append(
                {
                    "nodeid": f"benchmarks/react/webapp1k::Signup_{t}[{i}]",
                    "suite": "webapp1k",
                    "task_id": f"signup/{t}",
                    "category": ["forms", "state", "routing"][t % 3],
                    "sample_index": i,
                    "outcome": outcome,
                    "passed": outcome == "passed",
                    "duration_s": round(rng.uniform(1.5, 4.5), 3),
                    "completion": completion,
                    "code": code,
                    "error": error,
                    "model": "example-coder-7b",
                    "mode": "jest",
                    "tests": [
                        {"name": "renders the form", "status": "passed", "message": ""},
                        {
                            "name": "submits the email",
                            "status": "passed" if outcome == "passed" else "failed",
                            "message": error if outcome == "failed" else "",
                        },
                    ]
                    if outcome != "api_error"
                    else [],
                    "stdout": "",
                    "stderr": "",
                    "prompt": f"Write a React sign-up form component SignupForm{t} ...",
                }
            )
    return records


def demo_meta() -> dict[str, Any]:
    return {
        "model": "example-coder-7b",
        "started": "2025-03-14T09:26:53+00:00",
        "duration_s": 1843.5,
        "k": KS,
        "pytest_version": "9.2.0",
        "plugin_version": "0.1.0",
    }


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("chromium not found (apt-get install chromium)")


def run_chromium(args: list[str], url: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="codegen-chromium-") as profile:
        cmd = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)


class DevTools:
    """A minimal DevTools-protocol client over ``--remote-debugging-pipe`` (stdlib only).

    Chromium reads NUL-terminated JSON commands from fd 3 and writes replies and events to
    fd 4. One page target is attached in flat mode; ``call`` sends a command to it.
    """

    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="codegen-chromium-")
        to_browser, self._out = os.pipe()
        self._in, from_browser = os.pipe()

        def child() -> None:  # put the pipe ends at fds 3 and 4, inheritable
            a, b = os.dup(to_browser), os.dup(from_browser)
            os.dup2(a, 3)
            os.dup2(b, 4)

        cmd = [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={self._profile.name}",
            f"--window-size={width},{height}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        self._proc = subprocess.Popen(
            cmd,
            preexec_fn=child,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        target = self._send("Target.createTarget", None, url="about:blank")["targetId"]
        self._session = self._send("Target.attachToTarget", None, targetId=target, flatten=True)[
            "sessionId"
        ]
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.enable")

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _send(self, method: str, session: str | None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self._send(method, self._session, **params)

    def wait_for(self, event: str, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, message in enumerate(self._events):
                if message.get("method") == event and message.get("sessionId") == self._session:
                    return self._events.pop(i)
            self._events.append(self._message())
        raise TimeoutError(event)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def open(self, url: str, report: bool = True) -> None:
        """Navigate and wait for the load event (and, for a report, its ``data-ready`` mark)."""
        self._events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        if report and self.evaluate("document.body.getAttribute('data-ready')") != "1":
            error = self.evaluate("document.documentElement.getAttribute('data-error')")
            raise RuntimeError(f"the report script did not finish: {error}")

    def screenshot(self, png: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        png.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self._send("Browser.close", None)
        except (RuntimeError, OSError):
            pass
        try:
            self._proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._in)
        os.close(self._out)
        self._profile.cleanup()

    def __enter__(self) -> DevTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def screenshot(url: str, png: Path, size: str = "1400,1000") -> None:
    run_chromium(
        [f"--screenshot={png}", f"--window-size={size}", "--virtual-time-budget=5000"], url
    )


def write_report(path: Path, records: list[dict]) -> None:
    summary = [row.to_json() for row in summarize(records, KS)]
    write_html(path, records, summary, demo_meta())


def time_load(out_dir: Path, samples: int, repeat: int) -> None:
    problems = samples // 10
    records = demo_records(python=problems - problems // 10, react=problems // 10, samples=10)
    path = out_dir / f"report-{len(records)}.html"
    started = time.perf_counter()
    write_report(path, records)
    written = time.perf_counter() - started
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        proc = run_chromium(["--virtual-time-budget=10000", "--dump-dom"], path.as_uri())
        times.append(time.perf_counter() - started)
        if 'data-ready="1"' not in proc.stdout:
            raise SystemExit(f"the report script did not finish:\n{proc.stderr[-2000:]}")
    started = time.perf_counter()
    run_chromium(["--virtual-time-budget=10000", "--dump-dom"], "about:blank")
    blank = time.perf_counter() - started
    in_page = []
    with DevTools() as browser:
        for _ in range(repeat):
            browser.open("about:blank", report=False)
            browser.open(path.as_uri())
            in_page.append(
                browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
                / 1000
            )
    size_mb = path.stat().st_size / 1e6
    print(
        f"{len(records):,} samples ({problems:,} problems): wrote {size_mb:.1f} MB in "
        f"{written:.2f}s\n"
        f"  chromium --dump-dom (process start to DOM dump): median "
        f"{statistics.median(times):.2f}s (runs: {', '.join(f'{t:.2f}' for t in times)}; "
        f"about:blank takes {blank:.2f}s)\n"
        f"  in the page, navigation start to load end (script included): median "
        f"{statistics.median(in_page):.2f}s (runs: {', '.join(f'{t:.2f}' for t in in_page)})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "pytest-codegen-report-demo",
        help="where the report and screenshots go",
    )
    parser.add_argument("--timing", type=int, metavar="N", help="also time a report of N samples")
    parser.add_argument("--repeat", type=int, default=3, help="timing runs (median is reported)")
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)

    records = demo_records()
    html = args.out_dir / "report.html"
    write_report(html, records)
    overview = args.out_dir / "report.png"
    screenshot(html.as_uri(), overview)
    failing = next(r["task_id"] for r in records if r["outcome"] == "failed")
    drill = args.out_dir / "report-drilldown.png"
    with DevTools(1400, 1000) as browser:
        browser.open(f"{html.as_uri()}#problem={failing}")
        browser.screenshot(drill)
    print(f"report:     {html}")
    print(f"screenshot: {overview}")
    print(f"drill-down: {drill}  (#problem={failing})")
    if args.timing:
        time_load(args.out_dir, args.timing, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
