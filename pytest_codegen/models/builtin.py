"""The built-in models, which look answers up instead of generating them: ``reference``,
``validate`` and ``empty`` (to check a suite) and ``replay:PATH`` (recorded completions).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from ..jsonl import JSONLinesError, read_objects
from ..outcomes import API_ERROR, MISSING
from ..problems import Problem
from .base import CONTINUATION, PROGRAM, REPLY, Completion, GenerationRequest, Model, ModelError
from .multipl_e_completions import (
    completion_files,
    completions_answers,
    is_completions_file,
    read_json,
)


class ReferenceModel(Model):
    """Answers every sample with the problem's reference solution (validates a suite)."""

    spec = "reference"

    def generate(self, request: GenerationRequest) -> list[Completion]:
        ref = request.problem.reference
        if ref is None:
            return [Completion(missing=True)] * request.n
        return [Completion(text=ref)] * request.n


class EmptyModel(Model):
    """Answers every problem with its kind's empty solution (``Kind.empty_solution``),
    graded like any model's answer: a sample passes only where the tests accept a solution
    that does nothing."""

    spec = "empty"

    def __init__(self, empty_solution: Callable[[Problem], str]) -> None:
        self.empty_solution = empty_solution

    def generate(self, request: GenerationRequest) -> list[Completion]:
        return [Completion(text=self.empty_solution(request.problem))] * request.n


class ValidateModel(EmptyModel):
    """Validates a suite: each problem's reference where it has one (it must pass, and the
    runner also grades an empty solution, which the tests must reject), else an empty
    solution (the tests must reject it; see :func:`outcomes.judge_empty_solution`)."""

    spec = "validate"

    def generate(self, request: GenerationRequest) -> list[Completion]:
        ref = request.problem.reference
        text = ref if ref is not None else self.empty_solution(request.problem)
        return [Completion(text=text)] * request.n


class ReplayModel(Model):
    """Recorded completions in the human-eval sample format, or EvalPlus's.

    One JSON object per line with ``task_id`` and ``completion`` (human-eval: the text that
    follows the prompt) or ``solution`` (EvalPlus: the whole program; it wins over a
    ``completion``, as in EvalPlus); an optional ``sample_index`` places a line, otherwise the
    i-th line of a task is its sample i. Lines with ``repair_round`` r (and a
    ``sample_index``) answer that sample's r-th error-debugging round. A line of a
    ``--codegen-results`` file holds the model's raw reply in ``completion`` and is replayed
    as its ``code_policy`` says it was graded.
    """

    def __init__(self, path: str | Path, spec: str | None = None) -> None:
        self.path = Path(path)
        self.spec = spec or f"replay:{path}"
        self.answers = load_replay(self.path)

    @property
    def task_ids(self) -> list[str]:
        """The file's task ids, each once, in the order of the file."""
        return list(dict.fromkeys(task for task, _, _ in self.answers))

    @functools.cached_property
    def sample_counts(self) -> dict[str, int]:
        """Task id -> the samples the file holds of it: one past its highest sample_index (an
        index skipped below it is a sample the file lacks)."""
        counts: dict[str, int] = {}
        for task, index, repair_round in self.answers:
            if not repair_round:
                counts[task] = max(counts.get(task, 0), index + 1)
        return counts

    def generate(self, request: GenerationRequest) -> list[Completion]:
        keys = [(request.problem.id, i, request.repair_round) for i in request.sample_indices]
        return [self.answers.get(key, Completion(missing=True)) for key in keys]


# A results file's `code_policy` -> the form that is graded that way again.
_FORM_OF_POLICY = {"extract": REPLY, "append": CONTINUATION, "whole": PROGRAM}
_UNANSWERED = (MISSING, API_ERROR)


def load_replay(path: Path) -> dict[tuple[str, int, int], Completion]:
    """Read a samples file into ``{(task_id, sample_index, repair_round): completion}``
    (``repair_round`` 0 for first answers), each completion of the form its field gives.
    A LiveCodeBench output file (``*_eval_all.json``) is read as it is, and so are MultiPL-E's
    completion files (one, or a directory of them: ``multipl_e_completions``)."""
    if path.is_dir():
        return completions_answers(completion_files(path))
    if path.name.endswith(".json.gz") or (
        path.name.endswith(".json") and is_completions_file(read_json(path))
    ):
        return completions_answers([path])
    if path.name.endswith(".json"):
        return livecodebench_answers(path)
    answers: dict[tuple[str, int, int], Completion] = {}
    firsts: dict[str, int] = {}  # first answers seen per task: the default sample_index
    try:
        for where, row in read_objects(path):
            field = "solution" if "solution" in row else "completion"
            if "task_id" not in row or field not in row:
                raise ModelError(
                    f"{where}: a sample needs 'task_id' and 'completion' (or 'solution')"
                )
            if "outcome" in row and (row[field] is None or row["outcome"] in _UNANSWERED):
                continue  # a results line of a sample that never had an answer
            if not isinstance(row[field], str):
                raise ModelError(f"{where}: '{field}' must be a string")
            # A results file's line says why its answer stopped: a replay keeps it.
            finish = row.get("finish_reason")
            answer = Completion(
                text=row[field],
                form=_form(row, field, where),
                finish_reason=finish if isinstance(finish, str) else None,
            )
            task = str(row["task_id"])
            repair_round = row.get("repair_round", 0)
            if not _non_negative_int(repair_round):
                raise ModelError(f"{where}: 'repair_round' must be a non-negative integer")
            if repair_round and "sample_index" not in row:
                raise ModelError(f"{where}: a repair answer needs its 'sample_index'")
            index = row.get("sample_index", firsts.get(task, 0))
            if not _non_negative_int(index):
                raise ModelError(f"{where}: 'sample_index' must be a non-negative integer")
            if (task, index, repair_round) in answers:
                what = f"repair round {repair_round} of sample" if repair_round else "sample"
                raise ModelError(f"{where}: duplicate {what} {index} of {row['task_id']!r}")
            answers[(task, index, repair_round)] = answer
            if not repair_round:
                firsts[task] = firsts.get(task, 0) + 1
    except JSONLinesError as e:
        raise ModelError(str(e)) from None
    except UnicodeDecodeError as e:  # a ValueError, which says neither file nor line
        raise ModelError(f"cannot read replay file {path}: not UTF-8 ({e.reason})") from None
    except (OSError, EOFError) as e:
        raise ModelError(
            f"cannot read replay file {path}: {getattr(e, 'strerror', None) or e}"
        ) from None
    return answers


def livecodebench_answers(path: Path) -> dict[tuple[str, int, int], Completion]:
    """The samples of a LiveCodeBench output file (``*_eval_all.json``: a JSON list, one
    object a problem with its ``question_id`` and ``code_list``, the code it graded): each
    program as written, sample i the i-th of its problem's list."""
    import json

    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ModelError(f"cannot read replay file {path}: {e}") from None
    if not isinstance(rows, list):
        raise ModelError(f"{path}: expected a LiveCodeBench output file (a JSON list)")
    answers: dict[tuple[str, int, int], Completion] = {}
    entries: dict[str, int] = {}  # the entry of each question_id
    for i, row in enumerate(rows):
        codes = row.get("code_list") if isinstance(row, dict) else None
        if not isinstance(codes, list) or "question_id" not in row:
            raise ModelError(f"{path}: entry {i} has no question_id and code_list")
        task = str(row["question_id"])
        if task in entries:  # its samples would replace the first entry's, unsaid
            raise ModelError(
                f"{path}: entry {i}: duplicate question_id {task!r} (entry {entries[task]})"
            )
        entries[task] = i
        for index, code in enumerate(codes):
            if not isinstance(code, str):
                raise ModelError(f"{path}: entry {i}: code_list[{index}] is not a string")
            answers[(task, index, 0)] = Completion(text=code, form=PROGRAM)
    return answers


def _form(row: dict[str, object], field: str, where: str) -> str:
    """What the answer in ``row[field]`` is (see models.base)."""
    if field == "solution":
        return PROGRAM
    if "outcome" not in row:
        return CONTINUATION  # the human-eval sample format
    # A results line: its completion is the raw reply, graded as its code_policy says (files
    # written before there was one extracted every reply).
    policy = row.get("code_policy", "extract")
    if not isinstance(policy, str) or policy not in _FORM_OF_POLICY:
        raise ModelError(f"{where}: unknown 'code_policy' {policy!r}")
    return _FORM_OF_POLICY[policy]


def _non_negative_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
