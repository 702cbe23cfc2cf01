"""What the kinds of programs in other languages share (MultiPL-E, HumanEval-X): a sample's
program is assembled by its kind, then built and run by the language's toolchain in the
sample's sandbox (``execution/native``), and MultiPL-E's status of the run is its outcome:
``OK`` passed, ``Exception`` failed, ``SyntaxError`` (it does not build) an error,
``Timeout`` a timeout."""

from __future__ import annotations

import signal
from typing import Any

from .. import outcomes
from ..execution.native import programs
from ..execution.native.libraries import cpp_prelude
from ..execution.native.program_run import language_limits, run_program
from ..execution.native.toolchains import ToolchainMissing, find, language
from ..outcomes import Verdict
from ..problems import Problem, SuiteError
from .protocol import PYTHON, GradingRun, Kind

OUTCOMES = {
    programs.OK: outcomes.PASSED,
    programs.EXCEPTION: outcomes.FAILED,
    programs.SYNTAX_ERROR: outcomes.ERROR,
    programs.TIMEOUT: outcomes.TIMEOUT,
}
# A body that compiles and rejects every test, per language (the function's return type is
# unknown, so it cannot return a neutral value).
EMPTY_BODY = {
    "cpp": "    __builtin_trap();\n",
    "js": '    throw new Error("empty");\n',
    "go": '    panic("empty")\n',
    "rs": "    unimplemented!()\n",
    "java": "        throw new UnsupportedOperationException();\n",
    "ts": '    throw new Error("empty");\n',
    "pl": '    die "empty";\n',
    "rb": '  raise "empty"\n',
    "php": '    throw new Exception("empty");\n',
    "lua": '  error("empty")\n',
    "r": '\n  stop("empty")\n',  # its prompt ends on the function's brace
    "rkt": '  (error "empty")',
    "ml": '  failwith "empty"\n',
    "sh": "    return 1\n",
}
# What closes a function where it is not a brace (nothing: an OCaml expression ends itself).
FUNCTION_END = {"rb": "end\n", "lua": "end\n", "rkt": ")\n", "ml": ""}


def language_key(name: str, where: str) -> str:
    found = language(name)
    if found is None:
        if name.lower() in ("python", "py"):  # graded, as HumanEval is, from a file of its own
            raise SuiteError(
                f"{where}: a {name} row among other languages' rows (Python problems are"
                " graded from a file of their own, as HumanEval is)"
            )
        raise SuiteError(f"{where}: language {name!r} is not supported")
    return found.key


def language_problem(task_id: str, suite: str, key: str, mode: str, **fields: Any) -> Problem:
    """A problem in the language ``key``, which is its category too."""
    return Problem(id=task_id, suite=suite, category=key, language=key, mode=mode, **fields)


def cut_at_stop(completion: str, stop_tokens: list[str]) -> str:
    """``completion`` up to its first stop token, as MultiPL-E cuts what a model wrote."""
    ends = [at for at in (completion.find(t) for t in stop_tokens if t) if at >= 0]
    return completion[: min(ends)] if ends else completion


def cpp_libraries(benchmark: str, start: str) -> programs.Libraries:
    """A C++ problem's libraries: the headers its programs start with (those of ``start``,
    the same for every sample of the problem), precompiled once per host."""
    headers = programs.leading_includes(start)
    prelude = cpp_prelude(programs.CPP_STD[benchmark], headers)
    return programs.Libraries(cpp_prelude=prelude, cpp_prelude_headers=headers)


class NativeProgramKind(Kind):
    """A program in another language: subclasses say how it is assembled (:meth:`program`)."""

    runtime = PYTHON  # its sandbox is the Python one
    continues_prompt = True

    def program(self, problem: Problem, code: str, run: GradingRun) -> str:
        raise NotImplementedError

    def empty_solution(self, problem: Problem) -> str:
        body = EMPTY_BODY[problem.language]
        # Where the tests do not close the prompt's function, the completion does.
        end = FUNCTION_END.get(problem.language, "}\n")
        return body if problem.tests.lstrip().startswith(end.strip()) else body + end

    def toolchain(self, problem: Problem) -> str | None:
        return find(problem.language).version

    def record_fields(self, verdict: Verdict) -> dict[str, Any]:
        # The message starts with the status; a time limit's note may follow it ("; ...").
        said = (s for s in OUTCOMES if verdict.message.startswith(s))
        status = programs.OK if verdict.passed else next(said, None)
        return {"program_status": status} if status else {}

    def libraries(self, problem: Problem) -> programs.Libraries:
        """What its programs use besides the standard library (made once per host)."""
        return programs.Libraries()

    def installed(self, problem: Problem) -> None:
        """Install what its programs need that the host's packages do not give (once per
        host, ``libraries.py``); raises :class:`ToolchainMissing` if it cannot."""

    def host_lacks(self, problem: Problem) -> str | None:
        try:
            find(problem.language)
            self.installed(problem)
        except ToolchainMissing as e:
            return str(e)
        return None

    def prepare(self, problem: Problem) -> None:
        # The first use builds them (cargo's crates, Go's build cache, a C++ prelude): minutes
        # on a slow machine, which pytest-timeout's guard of a sample's call would cut.
        find(problem.language)
        self.libraries(problem)

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        tool = find(problem.language)
        program = self.program(problem, code, run)
        done = run_program(tool, program, run.limits, run.hide, self.libraries(problem), self.name)
        if done.timed_out:
            return Verdict(
                outcomes.TIMEOUT, programs.TIMEOUT, mode=self.name, isolation=done.isolation
            )
        if done.made is None or not done.steps:
            return Verdict(outcomes.CRASHED, done.crash, mode=self.name, isolation=done.isolation)
        status = self.status(problem, done.made, done.steps)
        last = done.steps[-1]
        verdict = Verdict(OUTCOMES[status], mode=self.name, isolation=done.isolation)
        verdict.stdout = str(last.get("stdout", ""))
        verdict.stderr = "".join(str(s.get("stderr", "")) for s in done.steps)
        if status != programs.OK:
            detail = (verdict.stderr or verdict.stdout).strip().splitlines()
            exit_code = last.get("exit_code")
            said = f"exit status {exit_code}" if status == programs.EXCEPTION else ""
            out_of_time, why = self.time_decided(problem, done.made, done.steps, status)
            if why:
                verdict.out_of_time, said = out_of_time, why
            if said and exit_code == -signal.SIGXFSZ:  # the file-size limit, not its answer
                most = language_limits(run.limits, problem.language).file_size >> 20
                said += f" (SIGXFSZ: it wrote past the {most} MiB a sample's program may write)"
            verdict.message = ": ".join(
                part for part in (status, said, detail[0][:200] if detail else "") if part
            )
        return verdict

    def time_decided(
        self, problem: Problem, made: programs.Build, steps: list[dict[str, Any]], status: str
    ) -> tuple[bool | None, str]:
        """Whether a time limit decided ``status`` where its name says otherwise, and why
        (``(None, "")``: as its name says). MultiPL-E: a compiler stopped at its limit."""
        if status != programs.TIMEOUT and programs.build_ran_out_of_time(made, steps):
            return True, "its build ran out of time"
        return None, ""

    def status(self, problem: Problem, made: programs.Build, steps: list[dict[str, Any]]) -> str:
        """The run's status in MultiPL-E's words (see ``programs.status``)."""
        return programs.status(problem.language, made, steps)
