"""The four steps of CodeBenchGen for one fragment (Xiao et al., section 3 and appendix A.1).

1. ``sandbox``: the model rewrites the context so the target runs alone; checked by AST
   (:func:`~.checks.check_sandboxed`), asked again up to :data:`ATTEMPTS` times.
2. ``tests``: the model adds ``test_<name>()`` (3+ asserts, calls the target, a ``__main__``
   call); checked, asked again up to :data:`ATTEMPTS` times.
3. ``debug``: the program runs in the sandbox; on failure the model gets the whole program
   and the log and returns a revision, up to :data:`DEBUG_ROUNDS` rounds. A revision that
   drops a test or shrinks far below its input is rejected (that round is spent).
4. ``post``: instructions (Functionality / Inputs / Outputs), augmented tests (k=5 at
   T=0.3, top_p=0.7, the first set the target passes, run on its own), the ``final``
   filtering pass (the example run twice in fresh sandboxes: a failure or a different outcome
   the second time drops it), the empty-body check (tests an empty target passes are
   vacuous) and the mutants' kill rate.

A run of any step that is caught tampering with its grading (a test that forges its own pass,
say for any answer but the target's) drops the example at once: such tests would pass
whatever a graded model answers.

The pipeline needs two services (:class:`Services`): asking the model (each request names
its stage) and running a program whose target is masked. It returns a JSON-safe result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..kinds.execcsn import empty_function
from ..kinds.execcsn_program import MASK
from ..models.base import Completion, SamplingParams
from ..outcomes import TAMPERED, Verdict
from . import checks, stage_prompts
from .checks import CheckFailed
from .inputs import Fragment
from .mutants import KINDS as MUTANT_KINDS
from .mutants import mutants_of

ATTEMPTS = 3  # regenerations of steps 1 and 2
DEBUG_ROUNDS = 3
AUGMENT_SAMPLES = 5
AUGMENT_PARAMS = SamplingParams(temperature=0.3, top_p=0.7)
KEPT, REJECTED, API_ERROR = "kept", "rejected", "api_error"
# The most a fragment can take: its program runs (execute and debug, each augmented set,
# the final pair, the empty body, the mutants) and its model requests (every attempt).
MAX_RUNS = 1 + DEBUG_ROUNDS + AUGMENT_SAMPLES + 2 + 1 + len(MUTANT_KINDS)
MAX_REQUESTS = 3 * ATTEMPTS + DEBUG_ROUNDS + AUGMENT_SAMPLES  # 3 *: sandbox, tests, instruction
_INSTRUCTION = re.compile(
    r"Functionality:\s*(?P<f>.+?)\s*Inputs:\s*(?P<i>.+?)\s*Outputs:\s*(?P<o>.+?)\s*(?:```|\Z)",
    re.DOTALL,
)


class Services(Protocol):
    def ask(
        self, stage: str, text: str, index: int, params: SamplingParams | None = None
    ) -> Completion: ...

    def ask_many(
        self, stage: str, text: str, n: int, params: SamplingParams | None = None
    ) -> list[Completion]: ...

    def run(self, masked_program: str, function: str) -> Verdict: ...


class Rejected(Exception):
    def __init__(self, stage: str, reason: str) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage, self.reason = stage, reason


class BuildAPIError(Exception):
    def __init__(self, stage: str, message: str) -> None:
        super().__init__(f"{stage}: {message}")
        self.stage, self.message = stage, message


class Pipeline:
    """Builds one fragment; :meth:`build` returns its result (see :func:`new_result`)."""

    def __init__(
        self, fragment: Fragment, services: Services, templates: Mapping[str | None, str]
    ) -> None:
        self.fragment = fragment
        self.services = services
        self.templates = templates
        self.result = new_result(fragment)

    # -- the model, through the services, with usage counted per stage

    def _prompt(self, stage: str, text: str, program: str) -> str:
        fields = {
            "task_id": self.fragment.id,
            "entry_point": self.fragment.func_name,
            "file": self.fragment.path,
            "tests": program,
        }
        return stage_prompts.render(stage, text, self.templates, fields)

    def _count(self, stage: str, completion: Completion) -> None:
        usage = self.result["usage"].setdefault(
            stage, {"answers": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0}
        )
        usage["answers"] += 1
        usage["cached"] += int(completion.cached)
        usage["prompt_tokens"] += completion.prompt_tokens or 0
        usage["completion_tokens"] += completion.completion_tokens or 0
        if completion.error or completion.missing:
            raise BuildAPIError(stage, completion.error or "the model has no answer")

    def ask(self, stage: str, text: str, index: int) -> str:
        completion = self.services.ask(stage, text, index)
        self._count(stage, completion)
        return completion.text

    def _regenerate(self, stage: str, text: str, check: Callable[[str], None]) -> str:
        last = ""
        for attempt in range(ATTEMPTS):
            code = checks.code_of(self.ask(stage, text, attempt))
            try:
                check(code)
                return code
            except CheckFailed as e:
                last = str(e)
                self._log(stage, f"attempt {attempt + 1}: {last}")
        raise Rejected(stage, f"{last} (after {ATTEMPTS} attempts)")

    def _log(self, stage: str, message: str) -> None:
        self.result["log"].append(f"{stage}: {message}")

    # -- running

    def run(self, program: str, stage: str) -> Verdict:
        """``program`` run with its own target."""
        masked = checks.mask_target(program, self.fragment)
        return self.run_masked(masked, checks.target_source(program, self.fragment), stage)

    def run_masked(self, masked: str, function: str, stage: str) -> Verdict:
        """``function`` at the mask of ``masked``, run; tampering rejects the example."""
        verdict = self.services.run(masked, function)
        if verdict.outcome == TAMPERED:
            raise Rejected(stage, f"its tests tamper with their grading ({_headline(verdict)})")
        return verdict

    # -- the steps

    def build(self) -> dict[str, Any]:
        f = self.fragment
        try:
            if f.error:
                raise Rejected("input", f.error)
            if MASK in f.context:  # grading would put the answer at the first one
                raise Rejected("input", f"{f.path}: it holds the text {MASK}, the suite's mask")
            sandboxed = self._regenerate(
                "sandbox",
                self._prompt(
                    "sandbox", stage_prompts.sandbox_prompt(f.func_name, f.context), f.context
                ),
                lambda code: checks.check_sandboxed(code, f),
            )
            with_tests = self._regenerate(
                "tests",
                self._prompt(
                    "tests", stage_prompts.tests_prompt(f.func_name, sandboxed), sandboxed
                ),
                lambda code: checks.check_with_tests(code, f, sandboxed),
            )
            program = self._execute_and_debug(with_tests)
            self._post_process(program)
            self.result["outcome"] = KEPT
        except Rejected as r:
            self.result.update(outcome=REJECTED, stage=r.stage, reason=r.reason)
        except BuildAPIError as e:
            self.result.update(outcome=API_ERROR, stage=e.stage, reason=e.message)
        return self.result

    def _execute_and_debug(self, program: str) -> str:
        verdict = self.run(program, "debug")
        if verdict.passed:
            self.result["passed_round"] = 0
            return program
        rule = ""
        for round_ in range(1, DEBUG_ROUNDS + 1):
            self._log("debug", f"round {round_}: {_headline(verdict)}")
            text = stage_prompts.debug_prompt(self.fragment.func_name, program, _log_of(verdict))
            revised = checks.code_of(
                self.ask("debug", self._prompt("debug", text, program), round_)
            )
            try:
                checks.check_revision(revised, self.fragment, program)
            except CheckFailed as e:
                rule = str(e)
                self._log("debug", f"round {round_}: revision rejected: {rule}")
                continue
            rule = ""
            program, verdict = revised, self.run(revised, "debug")
            if verdict.passed:
                self.result["passed_round"] = round_
                return program
        if rule:
            raise Rejected("debug", f"revision rejected: {rule} (round {DEBUG_ROUNDS})")
        raise Rejected(
            "debug", f"still fails after {DEBUG_ROUNDS} debug rounds ({_headline(verdict)})"
        )

    def _post_process(self, program: str) -> None:
        f = self.fragment
        context = checks.without_tests(program)
        instruction = self._instruction(context)
        augmented = self._augment(program, context)
        graded = program
        if augmented is not None:
            name = augmented[1]
            graded = (
                f"{program.rstrip()}\n\n\n{augmented[0].rstrip()}\n\n\n"
                f'if __name__ == "__main__":\n    {name}()\n'
            )
        masked = checks.mask_target(graded, f)
        target = checks.target_source(graded, f)
        self._final_filter(masked, target)
        empty = self.run_masked(masked, empty_function(f.func_name), "post")
        if empty.passed:
            raise Rejected("post", "vacuous: the tests pass with an empty body of the target")
        killed, survived = 0, []
        kinds = mutants_of(target)
        for kind, source in kinds:
            if self.run_masked(masked, source, "post").passed:
                survived.append(kind)
            else:
                killed += 1
        self.result["mutants"] = {"total": len(kinds), "killed": killed, "survived": survived}
        self.result["augmented"] = augmented is not None
        self.result["example"] = {
            "program": program,
            "graded": graded,
            "masked": masked,
            "context": checks.with_placeholder(context, f),
            "instruction": instruction,
            "test_code": _from_test(program, f.short_name),
            "aug_test_code": augmented[0] if augmented else None,
            "requirements": checks.third_party_imports(graded),
        }

    def _instruction(self, context: str) -> str:
        f = self.fragment
        text = self._prompt(
            "instruction", stage_prompts.instruction_prompt(f.func_name, context), context
        )
        for attempt in range(ATTEMPTS):
            match = _INSTRUCTION.search(self.ask("instruction", text, attempt))
            if match:
                return (
                    f"Functionality: {' '.join(match['f'].split())}\n"
                    f"Inputs: {' '.join(match['i'].split())}\n"
                    f"Outputs: {' '.join(match['o'].split())}"
                )
        raise Rejected(
            "post", f"no instruction in the Functionality/Inputs/Outputs form ({ATTEMPTS} attempts)"
        )

    def _augment(self, program: str, context: str) -> tuple[str, str] | None:
        """The first sampled test set the target passes, run on its own; None if none does."""
        f = self.fragment
        text = self._prompt("augment", stage_prompts.augment_prompt(f.func_name, program), program)
        completions = self.services.ask_many("augment", text, AUGMENT_SAMPLES, AUGMENT_PARAMS)
        for completion in completions:
            self._count("augment", completion)
        for i, completion in enumerate(completions):
            code = checks.code_of(completion.text)
            try:
                test = checks.check_augmented(code, f)
            except CheckFailed as e:
                self._log("augment", f"sample {i}: {e}")
                continue
            source = "\n".join(checks.code_lines(code)[test.lineno - 1 : test.end_lineno]) + "\n"
            main = f'if __name__ == "__main__":\n    {test.name}()\n'
            alone = f"{context.rstrip()}\n\n\n{source}\n\n{main}"
            verdict = self.run(alone, "post")
            if verdict.passed:
                return source, test.name
            self._log("augment", f"sample {i}: the target fails it ({_headline(verdict)})")
        return None

    def _final_filter(self, masked: str, target: str) -> None:
        first = self.run_masked(masked, target, "final")
        second = self.run_masked(masked, target, "final")
        if not first.passed:
            raise Rejected("final", f"fails in a fresh sandbox ({_headline(first)})")
        if not second.passed:
            raise Rejected(
                "final", f"a different outcome the second time (passed, then {_headline(second)})"
            )


def new_result(fragment: Fragment) -> dict[str, Any]:
    """The JSON-safe result of building ``fragment``; filled in by the pipeline."""
    return {
        "id": fragment.id,
        "func_name": fragment.func_name,
        "path": fragment.path,
        "line": fragment.line,
        "repo": fragment.repo,
        "sha256": fragment.sha256 if fragment.source else "",
        "outcome": REJECTED,
        "stage": "",
        "reason": "",
        "passed_round": None,
        "usage": {},
        "log": [],
        "mutants": None,
        "augmented": False,
        "example": None,
    }


def _headline(verdict: Verdict) -> str:
    message = verdict.message.strip().splitlines()[0] if verdict.message.strip() else ""
    return f"{verdict.outcome}: {message}"[:300].rstrip(": ")


def _log_of(verdict: Verdict) -> str:
    """What the debug prompt quotes: the traceback (stderr), else the outcome."""
    return verdict.stderr.strip() or _headline(verdict)


def _from_test(program: str, short: str) -> str:
    """The original test and what follows it (Exec-CSN's ``test_code``)."""
    at = program.find(f"def test_{short}(")
    return program[at:] if at >= 0 else ""
