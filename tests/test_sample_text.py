"""Text from models and samples: lone surrogates and terminal escapes.

Whatever a model answers or a sample prints or raises reaches every writer (results file,
JUnit XML, HTML report, merge) and xdist's wire without an internal error or a lost sample,
kept as it is where UTF-8 can hold it (a lone surrogate becomes U+FFFD), and reaches the
terminal with its control characters shown as ``repr()`` shows them.
"""

from __future__ import annotations

import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import execnet
import pytest
from conftest import TINY, XDIST_MODES, read_results, write_replay
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_codegen.gates.tripwire import Tripwire
from pytest_codegen.models.base import Completion, Prompt
from pytest_codegen.reporting.html import render_html
from pytest_codegen.reporting.records import make_record
from pytest_codegen.reporting.results import ResultsWriter, load_results
from pytest_codegen.sample_text import encodable, encodable_data, visible

# The red-team's fake result: clears the screen, prints a green line, hides what follows.
FAKE_RESULT = "\x1b[2J\x1b[H\x1b[32m===== 164 passed in 1.00s =====\x1b[0m\x1b[8m"
CONTROLS = "NUL\x00 BEL\x07 BS\x08 CR\r DEL\x7f C1\x85\x9b end"
ATTACKS = [FAKE_RESULT, CONTROLS, "\ud800", "\udfff\ud800", "\ud83d\ude00", "</script>", "]]>"]
CANONICAL = {
    row["task_id"]: row["canonical_solution"]
    for row in map(json.loads, TINY.read_text().splitlines())
}


def raw_controls(text: str) -> list[str]:
    """The characters of ``text`` a terminal would act on, or that are not text: control
    characters other than newline and tab, and surrogates."""
    return [c for c in text if unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\t"]


# Any text, lone surrogates included, with the attacks mixed in.
any_text = st.text(st.characters(exclude_categories=()))
hostile_text = st.lists(st.one_of(any_text, st.sampled_from(ATTACKS)), max_size=6).map("".join)


# --------------------------------------------------------------------------------------------
# The two functions
# --------------------------------------------------------------------------------------------


def test_a_lone_surrogate_becomes_the_replacement_character():
    assert encodable("a\ud800b") == "a\ufffdb"
    assert encodable("\udfff\ud800") == "\ufffd\ufffd"  # low then high: no pair
    assert encodable("\ud83d\ude00") == "\U0001f600"  # a pair side by side: its character
    assert encodable("plain \x1b[0m é 😀") == "plain \x1b[0m é 😀"


@given(hostile_text)
def test_encodable_text_is_utf8_and_otherwise_unchanged(text):
    kept = encodable(text)
    kept.encode("utf-8")
    assert encodable(kept) == kept
    if not any(unicodedata.category(c) == "Cs" for c in text):
        assert kept is text


def test_visible_escapes_controls_as_repr_does_but_keeps_newlines_and_tabs():
    assert visible(FAKE_RESULT) == (
        "\\x1b[2J\\x1b[H\\x1b[32m===== 164 passed in 1.00s =====\\x1b[0m\\x1b[8m"
    )
    assert visible(CONTROLS) == "NUL\\x00 BEL\\x07 BS\\x08 CR\\r DEL\\x7f C1\\x85\\x9b end"
    assert visible("def f():\n\treturn 1\n") == "def f():\n\treturn 1\n"
    assert visible("\ud800 \u202e é 😀") == "\\ud800 \\u202e é 😀"


@given(hostile_text)
def test_visible_text_has_no_control_character_but_newline_and_tab(text):
    shown = visible(text)
    assert raw_controls(shown) == []
    assert shown.replace("\n", "").replace("\t", "").isprintable()
    assert visible(shown) == shown
    if not set(text) & set("\\'\"\n\t"):
        assert shown == repr(text)[1:-1]


def test_model_answers_and_prompts_are_encodable_when_made():
    completion = Completion(text="    # \ud800\n", reasoning="\udc80", error="\ud800")
    assert (completion.text, completion.reasoning, completion.error) == (
        "    # \ufffd\n",
        "\ufffd",
        "\ufffd",
    )
    assert Completion.from_json(completion.to_json()) == completion
    prompt = Prompt("failed with \ud800", system="\ud800")
    assert (prompt.text, prompt.system) == ("failed with \ufffd", "\ufffd")


def test_the_tripwire_diagnosis_shows_a_sample_error_visibly():
    tripwire = Tripwire(first_n=1)
    reason = tripwire.observe({"suite": "s", "outcome": "crashed", "error": FAKE_RESULT})
    assert reason is not None and raw_controls(reason) == []
    assert "\\x1b[2J" in reason


# --------------------------------------------------------------------------------------------
# A record through the writers, in this process
# --------------------------------------------------------------------------------------------


def _record(completion: str, output: str) -> dict:
    problem = SimpleNamespace(suite="s", id="s/1", category="c", mode="python-call", extra={})
    verdict = SimpleNamespace(
        mode="python-call",
        isolation="rlimits",
        time_limit=None,
        tests=[{"name": output, "status": "failed", "message": output}],
        stdout=output,
        stderr=output,
    )
    return make_record(
        nodeid="s.jsonl::s_1[s0]",
        problem=problem,
        sample_index=0,
        outcome="error",
        model="m",
        completion=Completion(text=completion),
        code=output,
        error=output,
        verdict=verdict,
    )


@settings(max_examples=50)
@given(completion=hostile_text, output=hostile_text)
def test_a_record_crosses_the_wire_and_every_writer(tmp_path_factory, completion, output):
    record = encodable_data(_record(completion, output))
    assert execnet.loads(execnet.dumps(record)) == record  # xdist's serializer
    assert record["completion"] == encodable(completion)
    assert record["stdout"] == encodable(output) == record["tests"][0]["message"]
    path = tmp_path_factory.mktemp("w") / "r.jsonl"
    writer = ResultsWriter(path)
    writer.write(record)
    writer.close()
    assert len(path.read_bytes().decode("utf-8").splitlines()) == 1  # NEL, U+2028 escaped
    assert load_results(path) == [record]
    page = render_html([record], [], {"model": "m", "k": [1]})
    data = _embedded(page)
    (sample,) = data["problems"][0]["samples"]
    assert sample["error"] == record["error"]


def test_a_results_file_with_a_lone_surrogate_escape_is_read_as_written(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"nodeid": "a", "outcome": "failed", "error": "\\ud800 \\ud83d\\ude00"}\n'
        '{"nodeid": "b", "outcome": "failed", "run": {"\\uDC80": ["\\uDBFF"]}}\n'
        '{"nodeid": "c", "outcome": "failed", "error": "\\\\ud800 is text"}\n'
    )
    assert load_results(path) == [
        {"nodeid": "a", "outcome": "failed", "error": "\ufffd 😀"},
        {"nodeid": "b", "outcome": "failed", "run": {"\ufffd": ["\ufffd"]}},
        {"nodeid": "c", "outcome": "failed", "error": "\\ud800 is text"},
    ]


def _embedded(page: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="codegen-data">(.*?)</script>', page, re.S
    )
    assert match
    return json.loads(match.group(1))


def _reply(sample: dict) -> str:
    if sample["completion"] is not None:
        return sample["completion"]
    before, after = sample["completion_around"] or ("", "")
    return before + sample["code"] + after


# --------------------------------------------------------------------------------------------
# The red-team's reproductions, with and without xdist
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_lone_surrogate_in_a_completion_is_graded_and_written(pytester, xdist):
    replay = write_replay(
        pytester.path / "replay.jsonl",
        [{"task_id": "HumanEval/0", "completion": "    # \ud800\n    return True\n"}],
    )
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "humaneval::HumanEval_0",
        "humaneval::HumanEval_1",
        "humaneval::HumanEval_2",
        "--codegen-results=r.jsonl",
        "--junitxml=j.xml",
        "--codegen-html=h.html",
        *xdist,
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "INTERNALERROR" not in out
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert set(records) == {"HumanEval/0", "HumanEval/1", "HumanEval/2"}
    first = records["HumanEval/0"]
    # Graded as the text was recorded: the comment holds U+FFFD, `return True` is wrong.
    assert first["completion"] == "    # \ufffd\n    return True\n"
    assert "    # \ufffd\n" in first["code"]
    assert first["outcome"] == "failed"
    assert records["HumanEval/1"]["outcome"] == records["HumanEval/2"]["outcome"] == "missing"
    cases = ET.parse(pytester.path / "j.xml").getroot().iter("testcase")
    ids = {p.get("value") for c in cases for p in c.iter("property") if "task_id" in p.get("name")}
    assert ids == set(records)
    data = _embedded((pytester.path / "h.html").read_text(encoding="utf-8"))
    (problem,) = [p for p in data["problems"] if p["task_id"] == "HumanEval/0"]
    assert _reply(problem["samples"][0]) == first["completion"]


def _tiny_replay(path: Path, add_completion: str) -> Path:
    """tiny/add answered with ``add_completion``, the other problems with their solutions."""
    rows = [{"task_id": "tiny/add", "completion": add_completion}]
    rows += [{"task_id": t, "completion": c} for t, c in CANONICAL.items() if t != "tiny/add"]
    return write_replay(path, rows)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_sample_raising_a_lone_surrogate_is_scored_as_an_error(pytester, tiny, xdist):
    replay = _tiny_replay(pytester.path / "replay.jsonl", "    raise ValueError(chr(0xD800))\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", str(tiny), "--codegen-results=r.jsonl", *xdist
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "INTERNALERROR" not in out
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {t: r["outcome"] for t, r in records.items()} == {
        "tiny/add": "error",
        "tiny/reverse_words": "passed",
        "tiny/Counter": "passed",
    }
    assert records["tiny/add"]["error"] == "the code raised ValueError: \ufffd"
    assert "ValueError: \ufffd" in records["tiny/add"]["stderr"]
    # Counted: two of three problems solved, not three of three.
    result.stdout.fnmatch_lines(["tiny * 3 * 3 * 2 * 0 * 1 * 0.667 *"])
    result.stdout.fnmatch_lines(["error: the code raised ValueError: \\ud800"])


def _raising(message: str, printed: str) -> str:
    return f"    print({printed!r}, flush=True)\n    raise ValueError({message!r})\n"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_terminal_escapes_from_a_sample_are_shown_as_text(pytester, tiny, xdist):
    replay = _tiny_replay(pytester.path / "replay.jsonl", _raising(FAKE_RESULT, CONTROLS))
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(tiny),
        "--codegen-results=r.jsonl",
        "-rA",
        *xdist,
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert raw_controls(out) == []
    headline = "error: the code raised ValueError: " + visible(FAKE_RESULT)
    lines = result.stdout.lines
    assert headline in lines  # the failure headline
    assert "ValueError: " + visible(FAKE_RESULT) in lines  # the sample traceback section
    assert visible(CONTROLS) in lines  # the sample output section
    assert f"    raise ValueError({FAKE_RESULT!r})" in lines  # the generated code section
    (summary,) = [ln for ln in lines if ln.startswith("FAILED tiny.jsonl::tiny_add[s0]")]
    assert summary.startswith("FAILED tiny.jsonl::tiny_add[s0] - error: the code raised")
    # The record keeps the text as the sample wrote it.
    (add,) = [r for r in read_results(pytester.path / "r.jsonl") if r["task_id"] == "tiny/add"]
    assert add["error"] == "the code raised ValueError: " + FAKE_RESULT
    assert add["stdout"] == CONTROLS + "\n"


def test_a_gated_failure_shows_its_reason_as_text(pytester, tiny):
    replay = _tiny_replay(pytester.path / "replay.jsonl", _raising(FAKE_RESULT, CONTROLS))
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", str(tiny), "--codegen-fail-under=pass@1=0.5", "-rA"
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out[-3000:]
    result.assert_outcomes(passed=2, xfailed=1)
    assert raw_controls(out) == []
    assert any(ln.startswith("XFAIL tiny.jsonl::tiny_add[s0] - error:") for ln in out.splitlines())


# A plugin's error, not a sample's verdict: its full traceback quotes a lone surrogate.
PLUGIN_ERROR_CONFTEST = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if item.nodeid.endswith("tiny_add[s0]"):
        raise RuntimeError("a plugin error quoting " + chr(0xD800))
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_traceback_quoting_a_lone_surrogate_crosses_to_the_controller(pytester, tiny, xdist):
    pytester.makeconftest(PLUGIN_ERROR_CONFTEST)
    replay = _tiny_replay(pytester.path / "replay.jsonl", CANONICAL["tiny/add"])
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", str(tiny), "--codegen-results=r.jsonl", *xdist
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "INTERNALERROR" not in out
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert records["tiny/add"]["outcome"] == "crashed"
    assert records["tiny/add"]["error"].startswith("grading did not complete: ")
    result.stdout.fnmatch_lines(["*RuntimeError: a plugin error quoting*"])


# A worker (or the only process) stops with an internal error before one sample reports.
INTERNAL_ERROR_CONFTEST = """
def pytest_runtest_logstart(nodeid):
    if nodeid.endswith("tiny_reverse_words[s1]"):
        raise RuntimeError("an internal error")
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_samples_that_never_reported_keep_their_task_id_and_fail_the_run(pytester, tiny, xdist):
    pytester.makeconftest(INTERNAL_ERROR_CONFTEST)
    replay = _tiny_replay(pytester.path / "replay.jsonl", CANONICAL["tiny/add"])
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(tiny),
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    records = {r["nodeid"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert len(records) == 6
    lost = records["tiny.jsonl::tiny_reverse_words[s1]"]
    assert lost["outcome"] == "missing"
    assert (lost["task_id"], lost["suite"], lost["category"]) == (
        "tiny/reverse_words",
        "tiny",
        "text",
    )
    assert {r["task_id"] for r in records.values()} <= set(CANONICAL)
    # Every sample that did report passed: the lost one must not leave the run passing.
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR, result.stdout.str()[-3000:]


# --------------------------------------------------------------------------------------------
# Any text, end to end: completion -> record -> results file -> JUnit -> HTML -> merge
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
@settings(
    max_examples=4,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=hostile_text)
@example(text=FAKE_RESULT + CONTROLS + "\ud800")
def test_any_text_survives_the_run_the_reports_and_a_merge(pytester, tiny, xdist, text):
    """Sample 0 answers with the text itself; sample 1 prints it and raises it."""
    answers = [text, _raising(text, text)]
    replay = write_replay(
        pytester.path / "replay.jsonl",
        [
            {"task_id": "tiny/add", "sample_index": i, "completion": a}
            for i, a in enumerate(answers)
        ],
    )
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "tiny.jsonl::tiny_add",
        "--codegen-samples=2",
        "--codegen-results=r.jsonl",
        "--junitxml=j.xml",
        "--codegen-html=h.html",
        "-rA",
        *xdist,
    )
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "INTERNALERROR" not in out
    assert raw_controls(result.stdout.str()) == []
    (pytester.path / "r.jsonl").read_bytes().decode("utf-8")
    records = sorted(read_results(pytester.path / "r.jsonl"), key=lambda r: r["sample_index"])
    assert [r["completion"] for r in records] == [encodable(a) for a in answers]
    assert [r["task_id"] for r in records] == ["tiny/add"] * 2
    assert records[1]["outcome"] != "passed" and "missing" not in {r["outcome"] for r in records}

    cases = list(ET.parse(pytester.path / "j.xml").getroot().iter("testcase"))
    assert len(cases) == 2
    data = _embedded((pytester.path / "h.html").read_text(encoding="utf-8"))
    samples = sorted(data["problems"][0]["samples"], key=lambda s: s["sample_index"])
    assert [_reply(s) for s in samples] == [r["completion"] for r in records]

    merged = pytester.runpytest_subprocess(
        "--codegen-merge=r.jsonl", "--codegen-results=m.jsonl", "--codegen-html=m.html"
    )
    assert merged.ret == pytest.ExitCode.TESTS_FAILED, merged.stdout.str()[-3000:]
    assert raw_controls(merged.stdout.str()) == []
    assert read_results(pytester.path / "m.jsonl") == read_results(pytester.path / "r.jsonl")
    data = _embedded((pytester.path / "m.html").read_text(encoding="utf-8"))
    assert data["problems"][0]["task_id"] == "tiny/add"
