"""The rules of today's models, against fake provider servers on 127.0.0.1 that enforce them
as the real APIs answer: known rules stop the run before any request (or are applied, where
that changes nothing about sampling), unknown ones are learned from the first refusal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import TINY, XDIST_MODES, read_results
from fake_providers import FakeProviders, Recorded, Reply, connect
from fake_rules import Refusal

from pytest_codegen.generation.engine import GenerationEngine
from pytest_codegen.generation.jobs import Job
from pytest_codegen.models.base import GenerationRequest, ModelError, Prompt, SamplingParams
from pytest_codegen.models.http import HTTPModel
from pytest_codegen.models.rules import FAMILIES, check_params, fit_preset
from pytest_codegen.models.specs import PRESETS, WEBAPP1K_PARAMS, build_model
from pytest_codegen.problems import Problem

PROBLEMS = [json.loads(line) for line in TINY.read_text().splitlines()]


def problem(i: int) -> Problem:
    return Problem(
        id=f"P/{i}", suite="t", category="c", language="python", mode="python-call",
        prompt=f"write f{i}", tests="",
    )  # fmt: skip


def request(n: int = 1, params: SamplingParams | None = None) -> GenerationRequest:
    return GenerationRequest(
        problem(0), Prompt("write f"), tuple(range(n)), params or SamplingParams()
    )


@pytest.fixture
def fake() -> Iterator[FakeProviders]:
    with FakeProviders(openai_key=None, anthropic_key=None, gemini_key=None) as server:
        yield server


# --------------------------------------------------------------------------- known: at start


def test_openai_reasoning_model_refuses_temperature_before_any_request(fake):
    with pytest.raises(ModelError) as info:
        connect(fake, "openai:gpt-5", defaults=SamplingParams(temperature=0.2))
    assert str(info.value) == (
        "openai:gpt-5 does not take --codegen-temperature=0.2: OpenAI reasoning models (o1, "
        "o3, o4-mini, gpt-5, gpt-5-mini, gpt-5-nano) accept temperature and top_p only at "
        "their default of 1, and no penalties; it accepts --codegen-temperature only as 1, "
        "--codegen-top-p only as 1, --codegen-max-tokens, --codegen-seed"
    )
    assert fake.count() == 0


def test_openai_reasoning_model_refuses_penalties_before_any_request(fake):
    with pytest.raises(ModelError, match="o3-mini does not take --codegen-presence-penalty=0.5"):
        connect(fake, "openai:o3-mini", defaults=SamplingParams(presence_penalty=0.5))
    assert fake.count() == 0


def test_openai_reasoning_model_takes_what_it_accepts(fake):
    m = connect(fake, "openai:o4-mini", defaults=SamplingParams(temperature=1, max_tokens=64))
    out = m.generate(request(n=2))
    assert [c.error for c in out] == [None, None] and fake.count() == 1
    body = fake.requests[0].body
    assert body["max_completion_tokens"] == 64 and "max_tokens" not in body
    # A neutral penalty (the API's default) is never sent to a model that refuses penalties.
    connect(fake, "openai:gpt-5", defaults=SamplingParams(presence_penalty=0)).generate(request())
    assert "presence_penalty" not in fake.requests[1].body and fake.requests[1].error is None


def test_later_gpt5_and_chat_models_are_not_held_to_the_reasoning_rule(fake):
    for name in ("gpt-5.1", "gpt-5-chat-latest", "gpt-4o", "o"):
        connect(fake, f"openai:{name}", defaults=SamplingParams(temperature=0.2))
    assert fake.count() == 0


def test_deepseek_reasoner_would_ignore_sampling_so_it_stops_at_start(fake):
    with pytest.raises(ModelError, match="DeepSeek's reasoner accepts .* but ignores them"):
        connect(fake, "deepseek:deepseek-reasoner", defaults=SamplingParams(top_p=0.9))
    assert fake.count() == 0
    connect(fake, "deepseek:deepseek-chat", defaults=SamplingParams(top_p=0.9))


def test_claude_45_refuses_temperature_with_top_p_before_any_request(fake):
    params = SamplingParams(temperature=0.2, top_p=0.8)
    with pytest.raises(ModelError) as info:
        connect(fake, "anthropic:claude-sonnet-4-5-20250929", defaults=params)
    assert "--codegen-temperature=0.2 with --codegen-top-p=0.8" in str(info.value)
    assert "it accepts --codegen-temperature or --codegen-top-p, --codegen-top-k" in str(info.value)
    assert fake.count() == 0
    connect(fake, "anthropic:claude-sonnet-4-20250514", defaults=params)  # 4.0 takes both
    connect(fake, "anthropic:claude-3-7-sonnet-latest", defaults=params)


def test_claude_opus_47_refuses_sampling_parameters_before_any_request(fake):
    with pytest.raises(ModelError) as info:
        connect(fake, "anthropic:claude-opus-4-7", defaults=SamplingParams(top_k=40))
    assert "claude-opus-4-7 does not take --codegen-top-k=40" in str(info.value)
    assert str(info.value).endswith("it accepts --codegen-max-tokens")
    assert fake.count() == 0
    out = connect(fake, "anthropic:claude-opus-4-7").generate(request())
    assert out[0].error is None and fake.count() == 1


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_flag_the_model_cannot_take_stops_the_run_with_one_line(pytester, tiny, fake, xdist):
    result = pytester.runpytest_subprocess(
        "--codegen-model=openai:gpt-5",
        f"--codegen-base-url={fake.openai_url}",
        "--codegen-temperature=0.2",
        str(tiny),
        *xdist,
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [
        "ERROR: --codegen-model openai:gpt-5: openai:gpt-5 does not take "
        "--codegen-temperature=0.2: OpenAI reasoning models (o1, o3, o4-mini, gpt-5, "
        "gpt-5-mini, gpt-5-nano) accept temperature and top_p only at their default of 1, "
        "and no penalties; it accepts --codegen-temperature only as 1, --codegen-top-p only "
        "as 1, --codegen-max-tokens, --codegen-seed"
    ]
    assert fake.count() == 0


# --------------------------------------------------------------------------- known: applied


def test_gemini_3_gets_one_sample_per_request_and_says_so(fake):
    m = connect(fake, "gemini:gemini-3-pro-preview")
    out = m.generate(request(n=10))
    assert fake.count() == 10 and all(r.error is None for r in fake.requests)
    assert all(r.n == 1 and "generationConfig" not in r.body for r in fake.requests)
    assert len(out) == 10 and all(c.error is None for c in out)  # no sample lost
    assert m.notes == [
        "gemini:gemini-3-pro-preview: one sample per request (Gemini 3 models reject "
        "candidateCount above 1)"
    ]
    assert connect(fake, "gemini:gemini-2.5-pro").max_n == 8  # older models keep candidateCount


def solve(req: Recorded, index: int) -> str:
    text = json.dumps(req.body)
    for p in PROBLEMS:
        if json.dumps(p["prompt"])[1:-1] in text:
            return f"```python\n{p['prompt']}{p['canonical_solution']}```\n"
    return "no"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_gemini_3_samples_all_graded_and_the_summary_says_why(pytester, tiny, fake, xdist):
    fake.reply = solve
    result = pytester.runpytest_subprocess(
        "--codegen-model=gemini:gemini-3-flash-preview",
        f"--codegen-base-url={fake.gemini_url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        "--codegen-samples=3",
        "--codegen-k=1,3",
        str(tiny),
        *xdist,
    )
    result.assert_outcomes(passed=9)
    assert fake.count() == 9 and all(r.n == 1 and r.error is None for r in fake.requests)
    lines = [line for line in result.stdout.lines if "one sample per request" in line]
    assert lines == [
        "generation: gemini:gemini-3-flash-preview: one sample per request (Gemini 3 models "
        "reject candidateCount above 1)"
    ]


def test_a_preset_leaves_out_what_its_model_refuses_and_says_so(fake):
    m = build_model(
        "claude",
        base_url=fake.anthropic_url,
        params=SamplingParams(),
        models_table=["claude = anthropic:claude-sonnet-4-5 preset=webapp1k"],
        base_dir=Path.cwd(),
    )
    assert isinstance(m, HTTPModel)
    out = m.generate(request())
    assert out[0].error is None and fake.count() == 1 and fake.requests[0].error is None
    assert fake.requests[0].body["temperature"] == 0.2 and "top_p" not in fake.requests[0].body
    assert m.notes == [
        "anthropic:claude-sonnet-4-5: preset webapp1k: top_p left out (Claude 4.5 and newer "
        "reject temperature and top_p in one request)"
    ]


def test_no_preset_produces_a_combination_a_known_model_refuses():
    for family in FAMILIES:
        for name in family.examples:
            for preset_name, preset in PRESETS.items():
                fitted, _ = fit_preset(family.provider, name, preset_name, preset)
                check_params(family.provider, name, fitted)  # raises if it would be refused
                assert fitted.as_dict(), (name, preset_name)  # and something of it is left
    assert fit_preset("fireworks", "llama", "webapp1k", WEBAPP1K_PARAMS) == (WEBAPP1K_PARAMS, [])


# --------------------------------------------------------------------------- learned: one request


def jobs(problems: int, samples: int, params: SamplingParams) -> list[Job]:
    return [
        Job(problem(i), Prompt(f"write f{i}"), s, params)
        for i in range(problems)
        for s in range(samples)
    ]


def test_a_refused_parameter_is_learned_from_the_first_answer(fake, tmp_path):
    fake.refusals.append(
        Refusal("gpt-6", "temperature", "Unsupported parameter: 'temperature' is not supported")
    )
    m = connect(fake, "openai:gpt-6", defaults=SamplingParams(temperature=0.2))
    work = jobs(problems=6, samples=2, params=SamplingParams())
    with GenerationEngine(m, cache_dir=tmp_path, concurrency=8) as engine:
        engine.prefetch(work)
        out = [engine.get(job) for job in work]
        stats = engine.stats()
    assert fake.count() == 1  # not one per request in flight
    assert all(c.error for c in out)
    assert sum(c.error.startswith("HTTP 400 from openai: Unsupported parameter") for c in out) == 2
    assert m.stopped is not None and m.stopped.startswith(
        "openai:gpt-6 refused temperature (--codegen-temperature): HTTP 400"
    )
    assert stats["requests"] == 1 and stats["errors"] == 12
    assert stats["notes"] == [f"no further requests: {m.stopped}"]


def test_completions_received_before_a_learned_refusal_are_kept(fake, tmp_path):
    m = connect(fake, "openai:gpt-6", defaults=SamplingParams(temperature=0.2))
    work = jobs(problems=4, samples=1, params=SamplingParams())
    with GenerationEngine(m, cache_dir=tmp_path, concurrency=1) as engine:
        first = [engine.get(job) for job in work[:2]]
        fake.refusals.append(Refusal("gpt-6", "temperature", "temperature is not supported"))
        rest = [engine.get(job) for job in work[2:]]
    assert [c.error for c in first] == [None, None]
    assert rest[0].error == "HTTP 400 from openai: temperature is not supported"
    assert rest[1].error and rest[1].error.startswith("not requested: openai:gpt-6 refused")
    assert fake.count() == 3
    with GenerationEngine(m, cache_dir=tmp_path) as engine:  # kept: from the cache
        again = [engine.get(job) for job in work[:2]]
    assert [c.text for c in again] == [c.text for c in first] and fake.count() == 3


def test_several_samples_per_request_refused_is_learned_without_losing_a_sample(fake):
    fake.refusals.append(
        Refusal(
            "gemini-exp", "candidateCount", "Multiple candidates is not enabled", lambda n: n > 1
        )
    )
    m = connect(fake, "gemini:gemini-exp")
    out = m.generate(request(n=4))
    assert [r.n for r in fake.requests] == [4, 1, 1, 1, 1]
    assert [r.error is None for r in fake.requests] == [False, True, True, True, True]
    assert len(out) == 4 and all(c.error is None for c in out)
    assert m.max_n == 1 and m.stopped is None
    assert m.notes == [
        "gemini:gemini-exp: one sample per request (it refused several: HTTP 400 from gemini: "
        "Multiple candidates is not enabled)"
    ]


def test_a_learned_refusal_is_one_summary_line_and_one_request(pytester, tiny, fake):
    fake.refusals.append(Refusal("tiny-coder", "top_p", "top_p: Extra inputs are not permitted"))
    result = pytester.runpytest_subprocess(
        "--codegen-model=vllm:tiny-coder",
        f"--codegen-base-url={fake.openai_url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        "--codegen-results=r.jsonl",
        "--codegen-top-p=0.9",
        "--codegen-samples=2",
        str(tiny),
    )
    assert fake.count() == 1
    assert {r["outcome"] for r in read_results(pytester.path / "r.jsonl")} == {"api_error"}
    lines = [line for line in result.stdout.lines if "no further requests" in line]
    assert lines == [
        "generation: no further requests: vllm:tiny-coder refused top_p (--codegen-top-p): "
        "HTTP 400 from vllm: top_p: Extra inputs are not permitted"
    ]


def test_reasoning_and_usage_survive_a_learned_one_sample_per_request(fake):
    fake.reply = lambda req, i: Reply(f"answer {i}", reasoning="plan")
    fake.refusals.append(
        Refusal(
            "gemini-exp", "candidateCount", "Multiple candidates is not enabled", lambda n: n > 1
        )
    )
    out = connect(fake, "gemini:gemini-exp").generate(request(n=2))
    assert [(c.text, c.reasoning, c.completion_tokens) for c in out] == [
        ("answer 0", "plan", 2),
        ("answer 0", "plan", 2),
    ]
