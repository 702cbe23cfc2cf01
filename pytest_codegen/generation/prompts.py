"""What a model is asked: the first prompt, user templates and repair prompts.

Each suite format's own prompt is built by its loader and kept as ``problem.prompt``:
WebApp1K's ``Generate {file} to pass the tests below: ... RETURN CODE ONLY.``, CodeBenchGen's
Exec-CSN instruction around the file context, HumanEval's signature and docstring. A user
template (``--codegen-prompt-template``) rewrites it with named fields; a failed sample's
repair round (``--codegen-repair-rounds``) asks again with the failed code and its test log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..kinds.protocol import Kind
from ..models.base import Prompt
from ..problems import Problem

# Fields a template may use. Only these braces are filled: code in a template (JavaScript,
# dict literals) keeps its own braces untouched.
FIELDS = ("prompt", "task_id", "category", "suite", "language", "file", "tests", "entry_point")
_FIELD = re.compile(r"\{(" + "|".join(FIELDS) + r")\}")

# The test log a repair prompt quotes: its end, where the failing check is.
REPAIR_LOG_CHARS = 3000


def fields_of(problem: Problem, kind: Kind | None = None) -> dict[str, str]:
    """A prompt template's fields for ``problem``, whose kind is ``kind`` (default: the
    built-in kind of its mode)."""
    return {
        "prompt": problem.prompt,
        "task_id": problem.id,
        "category": problem.category,
        "suite": problem.suite,
        "language": problem.language,
        "tests": problem.tests,
        **kind_or_builtin(problem, kind).template_fields(problem),
    }


def kind_or_builtin(problem: Problem, kind: Kind | None) -> Kind:
    if kind is not None:
        return kind
    # The built-in kinds bring their graders: off the path of option parsing, which reads
    # templates here in every pytest run.
    from ..kinds.registry import builtin_kinds

    return builtin_kinds().named(problem.mode) or Kind()


def fill(template: str, fields: Mapping[str, str]) -> str:
    return _FIELD.sub(lambda m: fields[m.group(1)], template)


def read_templates(specs: Iterable[str], *, base: Path) -> dict[str | None, str]:
    """``[SUITE=]PATH`` entries as ``{suite or None: template text}``; ``ValueError`` says
    which entry is wrong."""
    templates: dict[str | None, str] = {}
    for spec in specs:
        suite, eq, path_text = spec.partition("=")
        if not eq:
            suite, path_text = "", spec
        suite = suite.strip() or None
        path = Path(path_text.strip()).expanduser()
        path = path if path.is_absolute() else base / path
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(
                f"cannot read prompt template {path}: {getattr(e, 'strerror', None) or e}"
            ) from None
        if not _FIELD.search(text):
            raise ValueError(
                f"prompt template {path} uses none of the fields "
                f"{', '.join('{' + f + '}' for f in FIELDS)}"
            )
        if suite in templates:
            raise ValueError(f"two prompt templates for {suite or 'every suite'}")
        templates[suite] = text
    return templates


def build_prompt(
    problem: Problem,
    system: str | None = None,
    templates: Mapping[str | None, str] | None = None,
    kind: Kind | None = None,
) -> Prompt:
    """The prompt for ``problem``: the suite's own text, or a user template filled in."""
    template = (templates or {}).get(problem.suite, (templates or {}).get(None))
    text = problem.prompt if template is None else fill(template, fields_of(problem, kind))
    if system is None:
        system = kind_or_builtin(problem, kind).system_message(problem)
    return Prompt(text=text, system=system)


def repair_prompt(
    problem: Problem, first: Prompt, failed_code: str, log: str, kind: Kind | None = None
) -> Prompt:
    """The prompt of an error-debugging round.

    A kind may word it as its benchmark does (React problems: WebApp1K's retry prompt, word
    for word). Otherwise the first prompt stays and the failed code and log are added, so a
    completion-style task still reads as one.
    """
    log = log.strip()
    if len(log) > REPAIR_LOG_CHARS:
        log = "[...]\n" + log[-REPAIR_LOG_CHARS:]
    text = kind_or_builtin(problem, kind).repair_text(problem, failed_code, log)
    if text is None:
        text = (
            f"{first.text}\n\nThis earlier answer failed the tests:\n"
            f"```{problem.language}\n{failed_code.rstrip()}\n```\n"
            f"Below is the test log\n{log}\n"
            "Write the code again to pass the tests. RETURN CODE ONLY."
        )
    return Prompt(text=text, system=first.system)
