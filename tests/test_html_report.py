"""The static HTML report: its data, its command line, and what a real browser shows.

The browser tests open the report in headless Chromium with ``--dump-dom`` (the DOM after the
page's script ran) and check what is rendered against numbers computed here independently.
They are skipped when no Chromium is installed.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from pytest_codegen.reporting import html as report
from pytest_codegen.reporting.html import page
from pytest_codegen.reporting.results import load_results
from pytest_codegen.scoring.passk import summarize

KS = [1, 5, 10]
SCRIPT_PAYLOAD = "</script><script>alert(1)</script>"
MARK_PAYLOAD = "</script><script>document.documentElement.setAttribute('data-pwned','1')</script>"
IMG_PAYLOAD = "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','2')\">"
GRADED = ("passed", "failed", "error", "timeout", "crashed", "unextractable")

# --------------------------------------------------------------------------------------------
# Synthetic run
# --------------------------------------------------------------------------------------------


def _python_sample(task: int, index: int, outcome: str) -> tuple[str, str]:
    code = (
        f"def solve_{task}(values: list[int]) -> int:\n"
        f'    """Sum the values, sample {index}."""\n'
        "    total = 0  # running sum\n"
        "    for v in values:\n"
        f"        total += v * {1 if outcome == 'passed' else 2}\n"
        "    return total\n"
    )
    if outcome == "unextractable":
        return "I am not sure how to solve this.", ""
    return f"Here is the solution:\n```python\n{code}```\n", code


def _react_sample(task: int, index: int) -> tuple[str, str]:
    code = (
        "import React, { useState } from 'react';\n\n"
        f"export default function App{task}() {{\n"
        "  const [count, setCount] = useState(0); // state\n"
        f"  return <button onClick={{() => setCount(count + {index})}}>{{count}}</button>;\n"
        "}\n"
    )
    return f"```jsx\n{code}```", code


def make_records(
    problems: int = 164, samples: int = 10, react: int = 12, seed: int = 7
) -> list[dict[str, Any]]:
    """``problems`` Python problems plus ``react`` React ones, ``samples`` samples each.

    Outcomes are mixed; React/3 lacks two samples (missing, api_error), so that suite's
    pass@10 is n/a; HumanEval/7 sample 3 carries script-injection payloads.
    """
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    categories = ["strings", "math", "lists", "logic"]
    for t in range(problems):
        skill = rng.random()
        task_id = f"HumanEval/{t}"
        prompt = f'def solve_{t}(values: list[int]) -> int:\n    """Problem {t}: add up."""\n'
        for i in range(samples):
            if rng.random() < skill:
                outcome = "passed"
            else:
                outcome = rng.choice(
                    ["failed", "failed", "failed", "error", "timeout", "crashed", "unextractable"]
                )
            if t == 7 and i == 3:
                outcome = "failed"
            completion, code = _python_sample(t, i, outcome)
            error = "" if outcome == "passed" else f"{outcome}: assert solve_{t}([1, 2]) == 3"
            tests = [
                {"name": "test_basic", "status": "passed", "message": ""},
                {
                    "name": "test_edge",
                    "status": "passed" if outcome == "passed" else "failed",
                    "message": "" if outcome == "passed" else "expected 3, got 6",
                },
            ]
            if t == 7 and i == 3:
                completion = f"Sure!\n{SCRIPT_PAYLOAD}\n```python\n# {MARK_PAYLOAD}\n{code}```"
                code = f"# {MARK_PAYLOAD}\n# {SCRIPT_PAYLOAD}\n{code}"
                error = f"failed: {IMG_PAYLOAD}"
            records.append(
                {
                    "nodeid": f"suites/humaneval.jsonl::HumanEval_{t}[{i}]",
                    "suite": "humaneval",
                    "task_id": task_id,
                    "category": categories[t % len(categories)],
                    "sample_index": i,
                    "outcome": outcome,
                    "passed": outcome == "passed",
                    "duration_s": round(rng.uniform(0.01, 2.0), 3),
                    "completion": completion,
                    "code": code,
                    "error": error,
                    "model": "demo-model",
                    "mode": "python-call",
                    "tests": tests,
                    "stdout": f"ran sample {i}\n",
                    "stderr": "" if outcome == "passed" else "Traceback (most recent call last):\n",
                    "prompt": prompt + (f"# {SCRIPT_PAYLOAD}\n" if t == 7 else ""),
                }
            )
    for t in range(react):
        task_id = f"React/{t}"
        for i in range(samples):
            outcome = "passed" if rng.random() < 0.6 else rng.choice(["failed", "error"])
            if t == 3 and i >= samples - 2:
                outcome = "missing" if i == samples - 2 else "api_error"
            completion, code = _react_sample(t, i)
            if outcome in ("missing", "api_error"):
                completion, code = "", ""
            records.append(
                {
                    "nodeid": f"suites/webapp::React_{t}[{i}]",
                    "suite": "webapp",
                    "task_id": task_id,
                    "category": "forms" if t % 2 else "state",
                    "sample_index": i,
                    "outcome": outcome,
                    "passed": outcome == "passed",
                    "duration_s": round(rng.uniform(0.5, 4.0), 3),
                    "completion": completion,
                    "code": code,
                    "error": "" if outcome == "passed" else "expect(button).toHaveTextContent",
                    "model": "demo-model",
                    "mode": "jest",
                    "tests": [],
                    "stdout": "",
                    "stderr": "",
                    "prompt": f"Write a React component App{t} with a counter button.",
                }
            )
    return records


def make_meta() -> dict[str, Any]:
    return {
        "model": "demo-model",
        "started": "2025-01-02T03:04:05+00:00",
        "duration_s": 754.2,
        "k": KS,
        "pytest_version": "9.2.0",
        "plugin_version": "0.1.0",
    }


def summary_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row.to_json() for row in summarize(records, KS)]


# --------------------------------------------------------------------------------------------
# An independent pass@k, to check the numbers shown
# --------------------------------------------------------------------------------------------


def exact_pass_at_k(n: int, c: int, k: int) -> float | None:
    if n < k:
        return None
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def per_problem(records: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    result: dict[tuple[str, str], list[int]] = {}
    for r in records:
        nc = result.setdefault((r["suite"], r["task_id"]), [0, 0])
        if r["outcome"] in GRADED:
            nc[0] += 1
            nc[1] += r["outcome"] == "passed"
    return {key: (n, c) for key, (n, c) in result.items()}


def expected_mean(pairs: list[tuple[int, int]], k: int) -> float | None:
    values = [exact_pass_at_k(n, c, k) for n, c in pairs]
    if not values or any(v is None for v in values):
        return None
    return sum(values) / len(values)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Without a browser
# --------------------------------------------------------------------------------------------


def _embedded(text: str) -> dict[str, Any]:
    match = re.search(
        r'<script type="application/json" id="codegen-data">(.*?)</script>', text, re.S
    )
    assert match, "no embedded data element"
    return json.loads(match.group(1))


def test_embedded_json_cannot_close_the_script_element(tmp_path: Path) -> None:
    records = make_records(problems=10, react=0)
    out = tmp_path / "report.html"
    report.write_html(out, records, summary_of(records), make_meta())
    text = out.read_text(encoding="utf-8")

    # exactly the page's own two script elements open and close
    assert len(re.findall(r"<script\b", text, re.I)) == 2
    assert len(re.findall(r"</script", text, re.I)) == 2
    assert "<!--" not in text
    data = _embedded(text)
    sample = next(s for s in data["problems"][7]["samples"] if s["sample_index"] == 3)
    assert SCRIPT_PAYLOAD in reply_of(sample)
    assert MARK_PAYLOAD in sample["code"]
    assert IMG_PAYLOAD in sample["error"]
    assert "</script" not in page._JS.lower() and "<!--" not in page._JS


def test_report_is_self_contained(tmp_path: Path) -> None:
    records = make_records(problems=5, react=2)
    out = tmp_path / "report.html"
    report.write_html(out, records, summary_of(records), make_meta())
    text = out.read_text(encoding="utf-8")
    urls = set(re.findall(r"""(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s"'<>)]*""", text))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls  # an XML namespace, never fetched
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", text)


def test_report_data_groups_problems_and_scores_them() -> None:
    records = make_records(problems=6, samples=10, react=4)
    data = report.report_data(records, summary_of(records), make_meta())
    pairs = per_problem(records)
    assert data["ks"] == KS
    assert data["totals"]["problems"] == len(pairs) == 10
    assert data["totals"]["samples"] == len(records)
    assert data["totals"]["passed"] == sum(r["outcome"] == "passed" for r in records)
    assert data["totals"]["counts"] == {
        o: Counter(r["outcome"] for r in records).get(o, 0) for o in data["outcomes"]
    }
    for p in data["problems"]:
        n, c = pairs[(p["suite"], p["task_id"])]
        assert (p["n"], p["c"]) == (n, c)
        assert [s["sample_index"] for s in p["samples"]] == list(range(10))
        for k in KS:
            expected = exact_pass_at_k(n, c, k)
            got = p["pass_at_k"][str(k)]
            assert got == pytest.approx(expected) if expected is not None else got is None
    # React/3 has 8 graded samples: pass@10 over all problems is undefined
    assert data["totals"]["pass_at_k"]["10"] is None
    assert data["totals"]["pass_at_k"]["1"] == pytest.approx(expected_mean(list(pairs.values()), 1))


def test_the_totals_score_the_problems_a_suite_row_scores() -> None:
    # A problem whose samples are all missing (a short replay file) has nothing to score: the
    # totals leave it out as the suite's row does, rather than calling every pass@k n/a.
    records = make_records(problems=6, samples=10, react=0)
    records += [
        {**records[0], "task_id": "HumanEval/unanswered", "sample_index": i, "outcome": "missing"}
        for i in range(10)
    ]
    summary = summary_of(records)
    data = report.report_data(records, summary, make_meta())
    (row,) = [row for row in summary if row["category"] is None]
    assert data["totals"]["problems"] == 7
    for k in KS:
        assert data["totals"]["pass_at_k"][str(k)] == pytest.approx(row["pass_at_k"][str(k)])
        assert data["totals"]["ci"][str(k)] == pytest.approx(row["ci"][str(k)])


def reply_of(sample: dict[str, Any]) -> str:
    """The model's raw reply from a report sample (see ``completion_around``)."""
    if sample["completion"] is not None:
        return sample["completion"]
    before, after = sample["completion_around"] or ("", "")
    return before + sample["code"] + after


def test_replies_are_stored_once_and_rebuilt_exactly() -> None:
    records = make_records(problems=8, react=3)
    data = report.report_data(records, summary_of(records), make_meta())
    samples = {(p["task_id"], s["sample_index"]): s for p in data["problems"] for s in p["samples"]}
    shared = 0
    for record in records:
        sample = samples[(record["task_id"], record["sample_index"])]
        assert reply_of(sample) == record["completion"]
        assert sample["code"] == record["code"]
        shared += sample["completion"] is None
    assert shared > len(records) // 2  # most replies contain their code verbatim


def test_non_finite_numbers_and_odd_values_are_made_json_safe(tmp_path: Path) -> None:
    records = make_records(problems=2, react=0)
    records[0]["duration_s"] = float("nan")
    records[1]["tests"] = [{"name": 3, "status": None, "message": b"bytes"}]
    meta = make_meta() | {"duration_s": float("inf"), "extra": {1, 2}}
    out = tmp_path / "report.html"
    report.write_html(out, records, summary_of(records), meta)
    data = _embedded(out.read_text(encoding="utf-8"))
    assert data["problems"][0]["samples"][0]["duration_s"] is None
    assert data["meta"]["duration_s"] is None
    assert data["problems"][0]["samples"][1]["tests"][0]["name"] == "3"


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    lines = [json.dumps(r) for r in records]
    lines.insert(3, "")  # blank lines are allowed
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_load_results_reads_jsonl_and_names_bad_lines(tmp_path: Path) -> None:
    records = make_records(problems=3, react=1)
    good = tmp_path / "results.jsonl"
    _write_jsonl(good, records)
    assert load_results(good) == records

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(records[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:2"):
        load_results(bad)


def test_cli_scores_records_with_the_unbiased_estimator(tmp_path: Path) -> None:
    records = make_records(problems=20, react=6)
    results = tmp_path / "results.jsonl"
    _write_jsonl(results, records)
    out = tmp_path / "out" / "report.html"
    assert report.main([str(results), "-o", str(out)]) == 0
    data = _embedded(out.read_text(encoding="utf-8"))
    assert data["meta"]["model"] == "demo-model"
    assert data["meta"]["k"] == KS

    pairs = per_problem(records)
    rows = {(r["suite"], r["category"]): r for r in data["summary"]}
    groups: dict[tuple[str, str | None], list[tuple[int, int]]] = {}
    category = {(r["suite"], r["task_id"]): r["category"] for r in records}
    for (suite, task), nc in pairs.items():
        groups.setdefault((suite, None), []).append(nc)
        groups.setdefault((suite, category[(suite, task)]), []).append(nc)
    assert set(rows) == set(groups)
    for key, members in groups.items():
        row = rows[key]
        assert row["problems"] == len(members)
        for k in KS:
            expected = expected_mean(members, k)
            got = row["pass_at_k"][str(k)]
            assert (got is None) == (expected is None), (key, k)
            if expected is not None:
                assert got == pytest.approx(expected, abs=1e-12)
    # missing and api_error samples are not counted in n: React/3 has n=8, so n/a at k=10
    assert rows[("webapp", None)]["pass_at_k"]["10"] is None
    assert rows[("webapp", None)]["pass_at_k"]["5"] is not None


def test_cli_default_output_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    results = tmp_path / "run.jsonl"
    _write_jsonl(results, make_records(problems=2, react=0))
    assert report.main([str(results), "-k", "1,2"]) == 0
    data = _embedded((tmp_path / "run.html").read_text(encoding="utf-8"))
    assert data["ks"] == [1, 2]
    assert report.main([str(tmp_path / "absent.jsonl")]) == 1
    assert "error:" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# In a browser
# --------------------------------------------------------------------------------------------


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


CHROMIUM = _chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed (e.g. `apt-get install chromium`)",
)


def dump_dom(url: str, workdir: Path, budget_ms: int = 10_000) -> str:
    """The DOM of ``url`` after its scripts ran, serialised by headless Chromium.

    A page whose script opens a dialog (an injected ``alert``) never finishes: the timeout
    then fails the test.
    """
    assert CHROMIUM is not None
    profile = workdir / f"profile-{time.monotonic_ns()}"
    profile.mkdir(parents=True)
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--virtual-time-budget={budget_ms}",
        "--dump-dom",
        url,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "<body" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag = tag
        self.attrs = attrs
        self.parent = parent
        self.children: list[Node | str] = []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs: str | None) -> list[Node]:
        """Descendants with ``tag`` whose attributes match (``None``: only present;
        ``class_``: one of the classes)."""
        found = []
        for node in self.iter():
            if tag is not None and node.tag != tag:
                continue
            ok = True
            for name, want in attrs.items():
                if name == "class_":
                    ok = want in node.attrs.get("class", "").split()
                else:
                    name = name.replace("_", "-")
                    ok = name in node.attrs and (want is None or node.attrs[name] == want)
                if not ok:
                    break
            if ok:
                found.append(node)
        return found

    def find(self, tag: str | None = None, **attrs: str | None) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag or '*'}> with {attrs}"
        return found[0]


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


class DomBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(dom: str) -> Node:
    builder = DomBuilder()
    builder.feed(dom)
    builder.close()
    return builder.root


def percent(text: str) -> float:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)%\s*", text)
    assert match, f"not a percentage: {text!r}"
    return float(match.group(1)) / 100


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workdir = tmp_path_factory.mktemp("html-report")
    records = make_records()
    summary = summary_of(records)
    path = workdir / "report.html"
    report.write_html(path, records, summary, make_meta())
    return {"records": records, "summary": summary, "path": path, "workdir": workdir}


def _open(demo: dict[str, Any], fragment: str = "") -> Node:
    url = demo["path"].as_uri() + (f"#{fragment}" if fragment else "")
    dom = parse(dump_dom(url, demo["workdir"]))
    html_el = dom.find("html")
    assert "data-error" not in html_el.attrs, html_el.attrs.get("data-error")
    assert dom.find("body").attrs.get("data-ready") == "1", "the report script did not finish"
    return dom


@needs_chromium
def test_browser_shows_totals_and_pass_at_k(demo: dict[str, Any]) -> None:
    records, summary = demo["records"], demo["summary"]
    dom = _open(demo)
    pairs = per_problem(records)
    counts = Counter(r["outcome"] for r in records)

    assert dom.find(id="model").text() == "demo-model"
    cards = {c.attrs["data-stat"]: c for c in dom.find_all(class_="card")}
    assert cards["problems"].find(class_="value").text() == "176"
    assert cards["samples"].find(class_="value").text() == f"{len(records):,}"
    assert cards["passed"].find(class_="value").text() == f"{counts['passed']:,}"
    for k in KS:
        expected = expected_mean(list(pairs.values()), k)
        shown = cards[f"pass@{k}"].find(class_="value").text()
        if expected is None:
            assert shown == "n/a"
        else:
            assert percent(shown) == pytest.approx(expected, abs=0.0005 + 1e-9)
    assert cards["pass@10"].find(class_="value").text() == "n/a"  # React/3 has 8 samples
    legend = {
        s.attrs["data-outcome"]: s for s in cards["outcomes"].find_all("span", data_count=None)
    }
    for outcome in ("passed", "failed", "error", "timeout", "crashed", "unextractable"):
        assert legend[outcome].find("b").text() == f"{counts[outcome]:,}"
    assert legend["missing"].find("b").text() == "1"
    assert legend["api_error"].find("b").text() == "1"

    table = dom.find(id="summary-table")
    rows = table.find_all("tr", data_suite=None)
    assert len(rows) == len(summary)
    for tr, row in zip(rows, summary, strict=True):
        assert tr.attrs["data-suite"] == row["suite"]
        assert tr.attrs.get("data-category") == row["category"]
        assert tr.find(data_col="problems").text() == f"{row['problems']:,}"
        assert tr.find(data_col="samples").text() == f"{row['samples']:,}"
        for k in KS:
            cell = tr.find("td", data_k=str(k))
            value = row["pass_at_k"][str(k)]
            if value is None:
                assert cell.text() == "n/a"
            else:
                shown = cell.find("span", class_="pk").find("span").text()
                assert percent(shown) == pytest.approx(value, abs=0.0005 + 1e-9)
                assert float(cell.attrs["data-value"]) == pytest.approx(value)
                # the 95% interval beside it: its ends, and its half-width in points
                low, high = row["ci"][str(k)]
                ci = cell.find("span", class_="ci")
                ends = [float(x) for x in ci.attrs["data-ci"].split()]
                assert ends == pytest.approx([low, high])
                if abs((value - low) - (high - value)) < 5e-4:
                    assert float(ci.text().lstrip("± ")) == pytest.approx(
                        (high - low) * 50, abs=0.05 + 1e-9
                    )
                else:  # cut at 0 or 1: its ends
                    ends = [float(x) / 100 for x in ci.text().split("–")]
                    assert ends == pytest.approx([low, high], abs=0.0005 + 1e-9)
    # the whole-suite rows agree with pass@k computed here from the raw records
    for suite in ("humaneval", "webapp"):
        members = [nc for (s, _), nc in pairs.items() if s == suite]
        tr = table.find("tr", data_suite=suite, class_="suite-row")
        for k in KS:
            expected = expected_mean(members, k)
            cell = tr.find("td", data_k=str(k))
            if expected is None:
                assert cell.text() == "n/a"
            else:
                assert float(cell.attrs["data-value"]) == pytest.approx(expected)


@needs_chromium
def test_browser_draws_both_charts(demo: dict[str, Any]) -> None:
    summary = demo["summary"]
    dom = _open(demo)
    passk = dom.find(id="chart-passk").find("svg")
    points = passk.find_all("circle")
    defined = [
        (r["suite"], k)
        for r in summary
        if r["category"] is None
        for k in KS
        if r["pass_at_k"][str(k)] is not None
    ]
    assert len(points) == len(defined) == 5  # webapp has no pass@10
    assert len(passk.find_all("path")) == 2

    bars = dom.find(id="chart-outcomes").find("svg")
    categories = [r for r in summary if r["category"] is not None]
    groups = bars.find_all("g", data_category=None)
    assert len(groups) == len(categories)
    for g, row in zip(groups, categories, strict=True):
        drawn = {
            r.attrs["data-outcome"]: int(r.attrs["data-count"])
            for r in g.find_all("rect")
            if "data-outcome" in r.attrs
        }
        assert drawn == {o: c for o, c in row["counts"].items() if c}


@needs_chromium
def test_browser_paginates_the_problem_list(demo: dict[str, Any]) -> None:
    dom = _open(demo)
    rows = dom.find(id="problem-list").find_all(class_="prob")
    assert len(rows) == 50  # only the first page is in the DOM
    assert not dom.find_all(class_="drill")  # no drill-down is built before it is opened
    info = dom.find(id="pager").find(class_="info")
    assert info.text() == "Showing 1–50 of 176 · page 1 of 4"
    assert [r.attrs["data-task"] for r in rows[:3]] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]

    last = _open(demo, "page=4")
    rows = last.find(id="problem-list").find_all(class_="prob")
    assert len(rows) == 176 - 150
    assert rows[-1].attrs["data-task"] == "React/11"


@needs_chromium
def test_browser_filters_and_sorts(demo: dict[str, Any]) -> None:
    pairs = per_problem(demo["records"])
    never = sum(1 for n, c in pairs.values() if n and c == 0)
    dom = _open(demo, "show=never")
    assert dom.find(id="problem-list").attrs["data-count"] == str(never)

    failing = sum(1 for n, c in pairs.values() if c < n)
    dom = _open(demo, "show=failing&suite=webapp&size=100")
    expected = sum(1 for (s, _), (n, c) in pairs.items() if s == "webapp" and c < n)
    assert dom.find(id="problem-list").attrs["data-count"] == str(expected)
    assert expected < failing

    dom = _open(demo, "sort=rate-asc&size=200")
    rates = [float(r.attrs["data-rate"]) for r in dom.find_all(class_="prob")]
    assert len(rates) == 176
    assert rates == sorted(rates)

    dom = _open(demo, "q=humaneval/16")  # HumanEval/16 and HumanEval/160..163
    tasks = [r.attrs["data-task"] for r in dom.find_all(class_="prob")]
    assert tasks == ["HumanEval/16"] + [f"HumanEval/{i}" for i in range(160, 164)]

    dom = _open(demo, "category=forms")
    tasks = {r.attrs["data-task"] for r in dom.find_all(class_="prob")}
    assert tasks == {f"React/{i}" for i in range(1, 12, 2)}


@needs_chromium
def test_browser_drill_down_opens_from_the_fragment(demo: dict[str, Any]) -> None:
    dom = _open(demo, "problem=HumanEval/7&sample=3")
    html_el = dom.find("html")
    # none of the payloads ran: not in the data element, not in the drill-down
    assert "data-pwned" not in html_el.attrs

    opened = dom.find_all(class_="prob", data_task=None)
    opened = [r for r in opened if "open" in r.attrs["class"].split()]
    assert [r.attrs["data-task"] for r in opened] == ["HumanEval/7"]
    drill = opened[0].find(class_="drill")
    prompt = drill.find(class_="prompt").text()
    assert "def solve_7(values: list[int]) -> int:" in prompt
    assert SCRIPT_PAYLOAD in prompt  # shown as text
    tabs = drill.find_all("button", class_="tab")
    assert len(tabs) == 10

    records = [r for r in demo["records"] if r["task_id"] == "HumanEval/7"]
    assert [t.attrs["data-outcome"] for t in tabs] == [r["outcome"] for r in records]
    sample = drill.find(class_="sample")
    assert sample.attrs["data-index"] == "3"
    assert sample.find(class_="badge").text() == "failed"
    code = sample.find("pre", class_="code")
    assert MARK_PAYLOAD in code.text() and SCRIPT_PAYLOAD in code.text()
    assert code.find_all("span", class_="tk-kw")  # highlighted: def, for, return, ...
    assert code.find_all("span", class_="tk-com")
    assert not code.find_all("script") and not dom.find_all("img")
    assert IMG_PAYLOAD in sample.find(class_="errmsg").text()
    tests = {
        tr.find(class_="tname").text(): tr.attrs["data-status"]
        for tr in sample.find_all("tr", data_status=None)
    }
    assert tests == {"test_basic": "passed", "test_edge": "failed"}
    assert "Traceback" in sample.find("pre", class_="out").text()


@needs_chromium
def test_browser_check_detects_an_unescaped_breakout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control: without the escaping, the payload does run, and the check above sees it.

    (The ``alert(1)`` payload is left out here: a dialog that runs blocks headless Chromium.)
    """
    monkeypatch.setattr(page, "_JSON_ESCAPES", {})
    records = make_records(problems=10, react=0)
    for record in records:
        for key in ("completion", "code", "prompt"):
            record[key] = record[key].replace(SCRIPT_PAYLOAD, "")
    path = tmp_path / "unsafe.html"
    report.write_html(path, records, summary_of(records), make_meta())
    dom = parse(dump_dom(path.as_uri(), tmp_path))
    assert dom.find("html").attrs.get("data-pwned") == "1"


@needs_chromium
def test_browser_drill_down_defaults_and_jsx(demo: dict[str, Any]) -> None:
    records = [r for r in demo["records"] if r["task_id"] == "React/3"]
    first_bad = next(r["sample_index"] for r in records if r["outcome"] in ("failed", "error"))
    dom = _open(demo, "problem=React/3")
    sample = dom.find(class_="drill").find(class_="sample")
    assert sample.attrs["data-index"] == str(first_bad)  # the first graded failure is shown
    code = sample.find("pre", class_="code")
    assert "lang-js" in code.attrs["class"]
    assert code.find_all("span", class_="tk-tag")
    # the problem is on page 4 of the default view, which the fragment opened
    assert dom.find(id="pager").find(class_="info").attrs["data-page"] == "4"


@needs_chromium
def test_browser_shows_the_raw_reply_when_no_code_was_extracted(demo: dict[str, Any]) -> None:
    record = next(r for r in demo["records"] if r["outcome"] == "unextractable")
    fragment = f"problem={record['task_id']}&sample={record['sample_index']}"
    sample = _open(demo, fragment).find(class_="drill").find(class_="sample")
    assert sample.attrs["data-index"] == str(record["sample_index"])
    assert sample.find(class_="badge").text() == "unextractable"
    assert "No code could be extracted" in sample.text()
    raw = sample.find("details", class_="raw-open")
    assert "open" in raw.attrs
    assert raw.find("pre", class_="code").text() == record["completion"]


@needs_chromium
def test_browser_loads_ten_thousand_samples(tmp_path: Path) -> None:
    records = make_records(problems=990, samples=10, react=10, seed=3)
    assert len(records) == 10_000
    path = tmp_path / "big.html"
    report.write_html(path, records, summary_of(records), make_meta())
    dom = parse(dump_dom(path.as_uri() + "#problem=HumanEval/500", tmp_path))
    assert dom.find("body").attrs.get("data-ready") == "1"
    assert dom.find(data_stat="samples").find(class_="value").text() == "10,000"
    assert len(dom.find_all(class_="prob")) == 50
    assert len(dom.find_all(class_="drill")) == 1
