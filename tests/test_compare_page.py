"""The comparison page, opened in headless Chromium: it shows what the comparison computed
(the leaderboard with interval bars, the matrix of differences, the flips with code side by
side), offline, and code that looks like markup stays text."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_html_report import dump_dom, needs_chromium, parse, percent

from pytest_codegen.reporting.comparison import compare_runs
from pytest_codegen.reporting.html.compare_page import render_compare_html, write_compare_html

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
SKILL = {"strong": 0.9, "close": 0.85, "middling": 0.5, "weak": 0.2}


def runs(samples: int = 1) -> list[tuple[str, list[dict[str, Any]]]]:
    rng = random.Random(11)
    made = []
    for model, p in SKILL.items():
        recs = []
        for i in range(80):
            for s in range(samples):
                ok = rng.random() < p
                recs.append(
                    {
                        "nodeid": f"s.jsonl::p{i:02}[s{s}]",
                        "suite": "s",
                        "task_id": f"p{i:02}",
                        "category": "s",
                        "sample_index": s,
                        "outcome": "passed" if ok else "failed",
                        "model": model,
                        "code": f"def f():  # {model}\n    return {i}\n" if ok else HOSTILE,
                        "error": "" if ok else "AssertionError: wrong",
                    }
                )
        made.append((f"{model}.jsonl", recs))
    return made


def test_the_page_is_one_self_contained_file():
    page = render_compare_html(compare_runs(runs(), [1]))
    assert "</script><script>alert" not in page
    assert "<img src=x" not in page
    for remote in ("http://", "https://", "<link", "<script src", "<img", "@import"):
        assert remote not in page.replace("http://www.w3.org/2000/svg", "")


@needs_chromium
def test_the_page_in_a_browser_shows_the_comparison(tmp_path):
    comparison = compare_runs(runs(), [1])
    path = tmp_path / "compare.html"
    write_compare_html(path, comparison)
    dom = parse(dump_dom(path.as_uri(), tmp_path))
    assert dom.find("body").attrs.get("data-ready") == "1"
    assert "data-error" not in dom.find("html").attrs

    board = dom.find(id="board").find("tbody").find_all("tr")
    by_score = sorted(comparison.runs, key=lambda r: -(r.pass_at_k[1] or 0))
    assert [tr.attrs["data-run"] for tr in board] == [r.name for r in by_score]
    for tr, run in zip(board, by_score, strict=True):
        assert percent(tr.find("td", data_k="1").text()) == pytest.approx(
            run.pass_at_k[1], abs=6e-4
        )
        bar = tr.find("line", class_="ci")
        assert float(bar.attrs["data-low"]) == pytest.approx(run.ci[1][0])
        assert float(bar.attrs["data-high"]) == pytest.approx(run.ci[1][1])

    cells = dom.find(id="matrix").find_all("td", data_a=None)
    assert len(cells) == 4 * 3  # every ordered pair, the diagonal left out
    for pair in comparison.pairs:
        cell = dom.find(id="matrix").find("td", data_a=pair.a, data_b=pair.b)
        mirror = dom.find(id="matrix").find("td", data_a=pair.b, data_b=pair.a)
        assert float(cell.attrs["data-diff"]) == pytest.approx(pair.diff)
        assert float(mirror.attrs["data-diff"]) == pytest.approx(-pair.diff)
        assert cell.attrs["data-significant"] == ("1" if pair.significant else "0")
        assert cell.text().endswith("*") == pair.significant
    assert any(p.significant for p in comparison.pairs)
    assert not all(p.significant for p in comparison.pairs)

    first = comparison.pairs[0]
    flips = dom.find(id="flips").find_all("details", class_="flip")
    assert [f.attrs["data-task"] for f in flips] == [f.task_id for f in first.flips]
    opened = flips[0]
    sides = opened.find_all("div", class_="side")
    assert [s.attrs["data-run"] for s in sides] == [first.a, first.b]
    codes = [s.find("code").text() for s in sides]
    winner = 0 if first.flips[0].score_a > first.flips[0].score_b else 1
    assert codes[winner].startswith("def f():")
    assert codes[1 - winner] == HOSTILE  # shown as text, never run
    assert not dom.find_all("img")


@needs_chromium
def test_the_page_shows_each_category_and_the_pairs_at_every_k(tmp_path):
    made = runs(samples=2)
    for _, recs in made:
        for rec in recs:
            rec["category"] = "even" if int(rec["task_id"][1:]) % 2 == 0 else "odd"
    comparison = compare_runs(made, [1, 2])
    path = tmp_path / "compare.html"
    write_compare_html(path, comparison)
    dom = parse(dump_dom(path.as_uri(), tmp_path))
    assert "data-error" not in dom.find("html").attrs

    table = dom.find(id="breakdowns").find("table", data_facet="category")
    rows = table.find("tbody").find_all("tr")
    assert [(r.attrs["data-value"], r.attrs["data-k"]) for r in rows] == [
        ("even", "1"),
        ("even", "2"),
        ("odd", "1"),
        ("odd", "2"),
    ]
    for part in comparison.breakdowns:
        for k in (1, 2):
            row = table.find("tr", data_value=part.value, data_k=str(k))
            for run in comparison.runs:
                cell = row.find("td", data_run=run.name)
                score = part.scores[run.name][k]
                assert score is not None
                assert float(cell.attrs["data-score"]) == pytest.approx(score[0])
                bar = cell.find("line", class_="ci")
                assert float(bar.attrs["data-low"]) == pytest.approx(score[1][0])

    at2 = dom.find(id="pairs-by-k").find("table", data_k="2").find("tbody").find_all("tr")
    assert len(at2) == len(comparison.by_k[2]) == 6
    for tr, pair in zip(at2, comparison.by_k[2], strict=True):
        assert tr.attrs["data-pair"] == f"{pair.a} {pair.b}"
        assert float(tr.attrs["data-diff"]) == pytest.approx(pair.diff)
        assert tr.attrs["data-significant"] == ("1" if pair.significant else "0")
