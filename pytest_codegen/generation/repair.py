"""Error-debugging rounds (CodeBenchGen's execute-and-debug step, on the grading side): a
failed sample's code and test log go back to the model until a round passes or the rounds run
out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import outcomes
from ..problems import Problem
from ..reporting.records import generation_fields, short_error
from .prompts import repair_prompt

if TYPE_CHECKING:
    from ..collect.items import SampleItem
    from ..runner import SampleRunner


def _test_log(verdict: Any) -> str:
    """What a repair prompt shows of a failed verdict: its headline and the sample's stderr."""
    return "\n".join(part for part in (verdict.message, verdict.stderr) if part)


def repair(runner: SampleRunner, item: SampleItem, verdict: Any) -> None:
    """Error-debugging rounds: ask again with the failed code and its test log until a
    round passes. The sample's own verdict (and pass@k) stays that of its first answer;
    the rounds are kept in its record for the per-round pass@1."""
    assert item.completion is not None and item.record is not None
    problem: Problem = item.problem
    model = item.funcargs["codegen_model"]
    first = runner.generation.job(problem, item.sample_index).prompt
    kind = runner.executor.kinds.of(problem)
    code, rounds = item.code or item.completion.text, []
    for repair_round in range(1, runner.settings.repair_rounds + 1):
        prompt = repair_prompt(problem, first, code, _test_log(verdict), kind)
        job = runner.generation.job(problem, item.sample_index, prompt, repair_round)
        completion = runner.generation.request(model, job)
        entry: dict[str, Any] = {"round": repair_round, **generation_fields(completion)}
        if completion.missing or completion.error:
            entry.update(
                outcome=outcomes.MISSING if completion.missing else outcomes.API_ERROR,
                error=completion.error or "no such sample",
            )
            rounds.append(entry)
            break  # nothing to grade: the sample stays as it was
        code, verdict = runner.execute(item, completion.text, completion.form)
        entry.update(
            outcome=verdict.outcome,
            completion=completion.text,
            code=code,
            code_policy=runner.executor.code_policy(problem, completion.form),
            error=short_error(verdict.message),
        )
        rounds.append(entry)
        item.add_report_section("call", f"repair round {repair_round}: {verdict.outcome}", code)
        if verdict.passed:
            break
    item.record["repairs"] = rounds
    runner.recorder.add_cost(item.record, rounds)
