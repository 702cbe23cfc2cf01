"""Scores by release window (``--codegen-date-window``): LiveCodeBench's records carry their
problem's ``contest_date``; the run's summary, ``--codegen-compare`` (and the
``codegen-compare`` command, and the comparison page) break pass@k down by quarter, month or
year of it, and compare each pair again on each window's problems."""

from __future__ import annotations

import json
import subprocess
import sys

import livecodebench_data as lcb
import pytest
from conftest import XDIST_MODES, read_results
from test_html_report import dump_dom, needs_chromium, parse

from pytest_codegen.reporting.breakdowns import date_window
from pytest_codegen.reporting.comparison import compare_runs
from pytest_codegen.reporting.html.compare_page import write_compare_html

MONTHS = ["2024-01-06", "2024-02-03", "2024-03-09", "2024-04-06", "2024-05-04", "2024-06-01"]
IDS = [f"abc{300 + i}_a" for i in range(len(MONTHS))]


def grade_both(pytester, xdist, *extra):
    """careful solves all six problems; careless the first quarter's three only (it fails
    the later ones' hidden negative number)."""
    rows = [
        lcb.row(
            qid,
            [lcb.stdin_case("1\n5\n", "5\n")],
            [lcb.stdin_case("1\n-5\n", "-5\n")],
            date=f"{d}T12:00:00",
        )
        for qid, d in zip(IDS, MONTHS, strict=True)
    ]
    release = lcb.write_release(pytester.path / "release.jsonl", rows)
    answers = {
        "careful": [lcb.SUM_RIGHT] * 6,
        "careless": [lcb.SUM_RIGHT] * 3 + [lcb.SUM_POSITIVE_ONLY] * 3,
    }
    results = {}
    for model, codes in answers.items():
        replay = lcb.write_samples(
            pytester.path / f"{model}-replay.jsonl", list(zip(IDS, codes, strict=True))
        )
        results[model] = pytester.runpytest_subprocess(
            str(release),
            f"--codegen-model=replay:{replay}",
            f"--codegen-results={model}.jsonl",
            "--codegen-samples=1",
            "--codegen-k=1",
            *xdist,
            *extra,
            timeout=300,
        )
        assert results[model].ret in (0, 1), results[model].stdout.str()
    return results


def test_a_date_falls_in_its_window():
    assert date_window("2024-08-31T23:59:59", "quarter") == "2024-Q3"
    assert date_window("2024-10-01", "quarter") == "2024-Q4"
    assert date_window("2024-08-31", "month") == "2024-08"
    assert date_window("2024-08-31", "year") == "2024"
    assert date_window("last May", "quarter") == ""
    assert date_window("2024-13-01", "month") == ""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_records_carry_the_contest_date_and_the_summary_breaks_down_by_quarter(pytester, xdist):
    results = grade_both(pytester, xdist)
    records = read_results(pytester.path / "careless.jsonl")
    assert sorted(r["contest_date"] for r in records) == [f"{d}T12:00:00" for d in MONTHS]
    lines = results["careless"].stdout.lines
    head = lines.index(
        "by quarter (release): pass@k ± its 95% interval over the quarter's problems"
    )
    assert lines[head + 1].split() == ["quarter", "problems", "pass@k"]
    assert lines[head + 2].split() == ["2024-Q1", "3", "1.000", "±", "0.000"]
    assert lines[head + 3].split() == ["2024-Q2", "3", "0.000", "±", "0.000"]
    # One run: no pairs to compare.
    assert not [ln for ln in lines if ln.startswith("pairs by quarter")]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_comparison_breaks_down_by_window_with_each_windows_pairs(pytester, xdist):
    grade_both(pytester, xdist)
    result = pytester.runpytest_subprocess(
        "--codegen-compare",
        "careful.jsonl",
        "careless.jsonl",
        "--codegen-compare-out=cmp.json",
        "--codegen-html=cmp.html",
        *xdist,
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    data = json.loads((pytester.path / "cmp.json").read_text())
    windows = [p for p in data["breakdowns"] if p["facet"] == "quarter"]
    assert [(p["value"], p["problems"]) for p in windows] == [("2024-Q1", 3), ("2024-Q2", 3)]
    scores = {
        (p["value"], r["name"]): r["pass@k"]["1"]["value"] for p in windows for r in p["runs"]
    }
    assert scores == {
        ("2024-Q1", "careful.jsonl"): 1.0,
        ("2024-Q1", "careless.jsonl"): 1.0,
        ("2024-Q2", "careful.jsonl"): 1.0,
        ("2024-Q2", "careless.jsonl"): 0.0,
    }
    (before,), (after,) = windows[0]["pairs"], windows[1]["pairs"]
    assert (before["a"], before["b"], before["diff"]) == ("careful.jsonl", "careless.jsonl", 0.0)
    assert before["p"] == 1.0 and not before["significant"]
    # After the cutoff: three discordant problems, all one way; McNemar's exact p = 2 / 2^3.
    assert after["diff"] == 1.0
    assert after["test"] == "McNemar exact"
    assert after["p"] == pytest.approx(0.25)
    assert not after["significant"]
    # The other facets' parts carry no pairs.
    assert all(p["pairs"] == [] for p in data["breakdowns"] if p["facet"] != "quarter")

    lines = result.stdout.lines
    assert "by quarter (release): pass@k ± its 95% interval over the quarter's problems" in lines
    head = lines.index(
        "pairs by quarter (release) at pass@1 (Holm's correction within each quarter)"
    )
    assert lines[head + 2].split()[:4] == ["2024-Q1", "careful.jsonl", "careless.jsonl", "+0.000"]
    assert lines[head + 3].split()[:4] == ["2024-Q2", "careful.jsonl", "careless.jsonl", "+1.000"]

    page = (pytester.path / "cmp.html").read_text()
    embedded = page[page.index('id="codegen-data"') :]
    assert '"facet": "quarter"' in embedded or '"facet":"quarter"' in embedded


def test_the_window_option_and_the_command(pytester):
    grade_both(pytester, [])
    by_month = pytester.runpytest_subprocess(
        "--codegen-compare",
        "careful.jsonl",
        "careless.jsonl",
        "--codegen-date-window=month",
        "--codegen-compare-out=month.json",
    )
    assert by_month.ret == 0, by_month.stdout.str()
    parts = json.loads((pytester.path / "month.json").read_text())["breakdowns"]
    assert [p["value"] for p in parts if p["facet"] == "month"] == [d[:7] for d in MONTHS]
    # The command prints and writes the same comparison.
    command = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_codegen.reporting.compare_command",
            "careful.jsonl",
            "careless.jsonl",
            "--codegen-date-window=month",
            "--codegen-compare-out=month-command.json",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
    )
    assert command.returncode == 0, command.stderr
    assert json.loads((pytester.path / "month-command.json").read_text()) == json.loads(
        (pytester.path / "month.json").read_text()
    )
    off = pytester.runpytest_subprocess(
        "--codegen-compare",
        "careful.jsonl",
        "careless.jsonl",
        "--codegen-date-window=off",
        "--codegen-compare-out=off.json",
    )
    assert off.ret == 0
    facets = {
        p["facet"] for p in json.loads((pytester.path / "off.json").read_text())["breakdowns"]
    }
    assert facets <= {"category", "difficulty"}
    bad = pytester.runpytest_subprocess(
        "--codegen-compare", "careful.jsonl", "careless.jsonl", "--codegen-date-window=week"
    )
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "--codegen-date-window: invalid value 'week'" in bad.stderr.str()
    bad_command = subprocess.run(
        [sys.executable, "-m", "pytest_codegen.reporting.compare_command", "careful.jsonl",
         "careless.jsonl", "--codegen-date-window=week"],
        cwd=pytester.path, capture_output=True, text=True,
    )  # fmt: skip
    assert bad_command.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--codegen-date-window" in bad_command.stderr


@needs_chromium
def test_the_page_shows_each_windows_scores_and_pairs(tmp_path):
    made = []
    for model, solved in (("early.jsonl", range(0, 9)), ("late.jsonl", range(3, 12))):
        made.append(
            (
                model,
                [
                    {
                        "nodeid": f"s.jsonl::p{i:02}[s0]",
                        "suite": "s",
                        "task_id": f"p{i:02}",
                        "category": "atcoder",
                        "contest_date": f"2024-{1 + i:02d}-01T00:00:00",
                        "sample_index": 0,
                        "outcome": "passed" if i in solved else "failed",
                        "model": model,
                    }
                    for i in range(12)
                ],
            )
        )
    comparison = compare_runs(made, [1])
    path = tmp_path / "compare.html"
    write_compare_html(path, comparison)
    dom = parse(dump_dom(path.as_uri(), tmp_path))
    assert "data-error" not in dom.find("html").attrs
    scores = dom.find(id="breakdowns").find("table", data_facet="quarter")
    values = [r.attrs["data-value"] for r in scores.find("tbody").find_all("tr")]
    assert values == ["2024-Q1", "2024-Q2", "2024-Q3", "2024-Q4"]
    pairs = dom.find(id="breakdowns").find("table", class_="window-pairs")
    rows = pairs.find("tbody").find_all("tr")
    # early solves Q1 alone, late Q4 alone; both Q2 and Q3.
    assert [(r.attrs["data-value"], float(r.attrs["data-diff"])) for r in rows] == [
        ("2024-Q1", 1.0),
        ("2024-Q2", 0.0),
        ("2024-Q3", 0.0),
        ("2024-Q4", -1.0),
    ]
    assert {r.attrs["data-pair"] for r in rows} == {"early.jsonl late.jsonl"}


def _window_rows(dom) -> list[tuple[str, str, str]]:
    table = dom.find(id="windows").find("table", data_facet="quarter")
    return [
        (
            tr.attrs["data-window"],
            tr.find_all("td")[1].text(),
            tr.find_all("td")[3].attrs["data-value"],
        )
        for tr in table.find("tbody").find_all("tr")
    ]


@needs_chromium
@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_run_report_shows_pass_at_k_by_release_window(pytester, xdist):
    results = grade_both(pytester, xdist, "--codegen-html=report.html")
    dom = parse(dump_dom((pytester.path / "report.html").as_uri(), pytester.path))
    assert "data-error" not in dom.find("html").attrs
    assert "hidden" not in dom.find(id="windows-panel").attrs
    # careless ran last: the same windows and scores as its summary's table.
    assert _window_rows(dom) == [("2024-Q1", "3", "1"), ("2024-Q2", "3", "0")]
    lines = results["careless"].stdout.lines
    head = lines.index(
        "by quarter (release): pass@k ± its 95% interval over the quarter's problems"
    )
    assert [ln.split()[:3] for ln in lines[head + 2 : head + 4]] == [
        ["2024-Q1", "3", "1.000"],
        ["2024-Q2", "3", "0.000"],
    ]


@needs_chromium
def test_the_report_follows_the_window_option_and_has_none_without_dates(pytester, tmp_path):
    grade_both(pytester, [], "--codegen-html=report.html", "--codegen-date-window=month")
    dom = parse(dump_dom((pytester.path / "report.html").as_uri(), pytester.path))
    table = dom.find(id="windows").find("table", data_facet="month")
    months = [tr.attrs["data-window"] for tr in table.find("tbody").find_all("tr")]
    assert months == [d[:7] for d in MONTHS]

    # Built from a results file after the fact, by month too; "off" and a suite without
    # contest dates have no window panel.
    build = [sys.executable, "-m", "pytest_codegen.reporting.html", "careless.jsonl", "-k", "1"]
    for window, expect in (("month", months), ("off", None)):
        out = tmp_path / f"{window}.html"
        done = subprocess.run(
            [*build, "-o", str(out), "--date-window", window],
            cwd=pytester.path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        dom = parse(dump_dom(out.as_uri(), tmp_path))
        if expect is None:
            assert "hidden" in dom.find(id="windows-panel").attrs
        else:
            rows = dom.find(id="windows").find("table", data_facet="month").find("tbody")
            assert [tr.attrs["data-window"] for tr in rows.find_all("tr")] == expect
