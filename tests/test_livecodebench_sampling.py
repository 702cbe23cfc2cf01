"""LiveCodeBench's sampling defaults (n = 10, T = 0.2): used for its problems where the user
set neither ``--codegen-samples`` nor ``--codegen-temperature`` (flag or ini key), per kind in
a run that mixes suites, and said in the records and the summary; generated through a real
HTTP model server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES, read_results, run_vllm
from fake_providers import FakeProviders
from livecodebench_data import PAIR_RIGHT, PAIR_ROW, SUM_RIGHT, SUM_ROW, write_release

from pytest_codegen.kinds.livecodebench import LiveCodeBenchKind
from pytest_codegen.kinds.protocol import Kind
from pytest_codegen.models.base import SamplingDefaults, SamplingParams

LINE = (
    "sampling of test: 10 samples a problem and temperature 0.2 (LiveCodeBench's defaults; "
    "--codegen-samples and --codegen-temperature set others)"
)


def reply(request, index: int) -> str:
    text = request.user_text
    if "### Question:" in text:  # LiveCodeBench's prompt
        code = PAIR_RIGHT if "1234" in text else SUM_RIGHT
        return f"```python\n{code}```"
    return "    return None\n"


def temperatures(server) -> dict[str, set]:
    """The temperature each suite's requests sent (None: not sent), and how many samples."""
    sent: dict[str, set] = {"livecodebench": set(), "tiny": set()}
    for request in server.requests:
        suite = "livecodebench" if "### Question:" in request.user_text else "tiny"
        sent[suite].add(request.body.get("temperature"))
    return sent


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_release_file_samples_as_livecodebench_does_beside_another_suite(pytester, tiny, xdist):
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    with FakeProviders(reply=reply, openai_key=None) as server:
        result = run_vllm(pytester, server, "test.jsonl", str(tiny), *xdist)
        assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
        # Each kind samples by its own defaults: LiveCodeBench's at T = 0.2, the tiny
        # suite's at the provider's default (no temperature sent).
        assert temperatures(server) == {"livecodebench": {0.2}, "tiny": {None}}
    records = read_results(pytester.path / "r.jsonl")
    per_problem: dict[str, int] = {}
    for record in records:
        per_problem[record["task_id"]] = per_problem.get(record["task_id"], 0) + 1
    tiny_ids = {r["task_id"] for r in records if r["suite"] == "tiny"}
    assert per_problem == {"abc001_a": 10, "1234": 10, **dict.fromkeys(tiny_ids, 1)}
    params = {
        (r["suite"], r["run"]["params"].get("temperature"), r["run"]["params"]["samples"])
        for r in records
    }
    assert params == {("test", 0.2, 10), ("tiny", None, 1)}
    assert {r["outcome"] for r in records if r["suite"] == "test"} == {"passed"}
    lines = result.stdout.lines
    assert LINE in lines
    assert not [ln for ln in lines if ln.startswith("sampling of tiny")]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_users_samples_and_temperature_win(pytester, xdist):
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    with FakeProviders(reply=reply, openai_key=None) as server:
        result = run_vllm(
            pytester,
            server,
            "test.jsonl",
            "--codegen-samples=2",
            "--codegen-temperature=0.7",
            *xdist,
        )
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
        assert temperatures(server)["livecodebench"] == {0.7}
    records = read_results(pytester.path / "r.jsonl")
    assert sorted(r["nodeid"] for r in records) == [
        "test.jsonl::1234[s0]",
        "test.jsonl::1234[s1]",
        "test.jsonl::abc001_a[s0]",
        "test.jsonl::abc001_a[s1]",
    ]
    assert {
        (r["run"]["params"]["temperature"], r["run"]["params"]["samples"]) for r in records
    } == {(0.7, 2)}
    assert not [ln for ln in result.stdout.lines if ln.startswith("sampling of")]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_ini_key_wins_for_what_it_sets_only(pytester, xdist):
    """``codegen_samples`` in the ini file sets the samples; the temperature stays the
    benchmark's."""
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    pytester.makeini("[pytest]\ncodegen_samples = 3\n")
    with FakeProviders(reply=reply, openai_key=None) as server:
        result = run_vllm(pytester, server, "test.jsonl", *xdist)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
        assert temperatures(server)["livecodebench"] == {0.2}
    records = read_results(pytester.path / "r.jsonl")
    assert len(records) == 6
    assert (
        "sampling of test: temperature 0.2 (LiveCodeBench's default; --codegen-temperature "
        "sets another)"
    ) in result.stdout.lines


def test_collection_counts_the_kinds_samples(pytester, tiny):
    write_release(pytester.path / "test.jsonl", [SUM_ROW, PAIR_ROW])
    collected = pytester.runpytest_subprocess(
        "test.jsonl", str(tiny), "--codegen-model=empty", "--co"
    )
    tiny_problems = len(tiny.read_text().splitlines())
    collected.stdout.fnmatch_lines([f"*{20 + tiny_problems} tests collected*"])
    pasted = pytester.runpytest_subprocess("test.jsonl::1234[s9]", "--codegen-model=empty", "--co")
    pasted.stdout.fnmatch_lines(["*1 test collected*"])


def test_settings_resolve_a_kinds_defaults_below_the_users_and_the_models():
    from pytest_codegen.settings import Settings

    defaults = LiveCodeBenchKind.sampling_defaults
    assert defaults == SamplingDefaults(samples=10, temperature=0.2, source="LiveCodeBench's")
    assert Kind.sampling_defaults == SamplingDefaults()  # a kind states none unless it says
    base = dict(
        model="m", suite=(), k=(1,), timeout=10.0, memory=1, results=None, system_prompt=None,
        base_url=None, concurrency=1, requests_per_minute=None, tokens_per_minute=None,
        prices={}, prompt_template={}, repair_rounds=0, cache=None, regenerate=False,
        node=None, models=(), fail_under=(), fail_on_attempts=False, baseline=None, html=None,
        tripwire=0, check_references=False, reruns=0, cpu_pinning="auto",
    )  # fmt: skip
    unset = Settings(samples=1, params=SamplingParams(), **base)  # type: ignore[arg-type]
    assert unset.samples_for(defaults) == 10
    assert unset.params_for(defaults).temperature == 0.2
    # A model alias's own temperature is the user's choice too.
    assert unset.params_for(defaults, SamplingParams(temperature=0.9)).temperature is None
    assert unset.samples_for(SamplingDefaults()) == 1
    chosen = Settings(
        samples=4,
        params=SamplingParams(temperature=0.0),
        explicit=frozenset({"samples", "temperature"}),
        **base,  # type: ignore[arg-type]
    )
    assert chosen.samples_for(defaults) == 4
    assert chosen.params_for(defaults).temperature == 0.0
    assert chosen.defaulted(defaults) == ()
    assert unset.defaulted(defaults) == ("samples", "temperature")


def test_a_remote_worker_knows_the_controllers_model_parameters():
    """On a remote host the controller's model generates: the worker is told its own
    parameters, so a kind's temperature gives way to an alias's there too."""
    from types import SimpleNamespace

    from pytest_codegen.generation.remote import worker_model
    from pytest_codegen.keys import CHANNEL_KEY, MODEL_DEFAULTS_KEY, MODEL_SPEC_KEY

    workerinput = {
        CHANNEL_KEY: None,
        MODEL_SPEC_KEY: "vllm:m",
        MODEL_DEFAULTS_KEY: {"temperature": 0.9},
    }
    model = worker_model(SimpleNamespace(workerinput=workerinput))  # type: ignore[arg-type]
    assert model is not None and model.defaults == SamplingParams(temperature=0.9)  # type: ignore[attr-defined]
    del workerinput[MODEL_DEFAULTS_KEY]  # none sent: the model states none
    assert worker_model(SimpleNamespace(workerinput=workerinput)).defaults == SamplingParams()  # type: ignore[arg-type, union-attr]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_resume_of_samples_past_livecodebench_s_default_count_is_refused(pytester, xdist):
    # Records that state no settings (an earlier version's) of 12 samples a problem, resumed
    # without --codegen-samples: LiveCodeBench's 10 a problem were graded, and the 2 past
    # them counted in the run's pass@k, 12 samples a problem for a run of 10.
    write_release(pytester.path / "test.jsonl", [SUM_ROW])
    with FakeProviders(reply=reply, openai_key=None) as server:
        run_vllm(pytester, server, "test.jsonl", "--codegen-samples=12").assert_outcomes(passed=12)
        path = pytester.path / "r.jsonl"
        records = read_results(path)
        for record in records:
            del record["run"]
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        asked = len(server.requests)
        result = run_vllm(pytester, server, "test.jsonl", "--codegen-resume", *xdist)
        assert len(server.requests) == asked
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --codegen-resume: r.jsonl holds sample test.jsonl::abc001_a[[]s1?[]], past"
            " the 10 samples a problem this run grades (LiveCodeBench's default): resume with"
            " the --codegen-samples it was graded with, or give a new --codegen-results file"
        ]
    )
    assert len(read_results(path)) == 12
