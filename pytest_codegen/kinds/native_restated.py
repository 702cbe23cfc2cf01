"""A chat model's reply that restates the prompt's whole function, fitted into the program.

The prompts of MultiPL-E and HumanEval-X end on an open function header; a completion goes on
from there. A chat model instead answers with the whole function (often with its imports, in
Java often the whole class). This plugin's rule (upstream has no chat mode): an extracted
answer that defines the prompt's function (named in its last signature) replaces the prompt's
function: the program is the prompt up to that function (its package line, imports and
includes), then the answer fitted per language (a Java class, Go's package line and imports:
:func:`go_merged`, Racket's ``#lang`` line, PHP's tags, JavaScript's exports), then the
tests. An answer that does not define the function is a body and continues the prompt, as a
completion does.
"""

from __future__ import annotations

import dataclasses
import re

# The prompt's last function header, per language: group 1 is the function's name.
_SIGNATURE = {
    "cpp": r"^[ \t]*[A-Za-z_][\w:<>, \t*&\[\]]*?[ \t*&]([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{",
    "java": r"^[ \t]*(?:[\w<>\[\],.?]+[ \t]+)+([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:throws[^{;]*)?\{",
    "go": r"^func\s+([A-Za-z_]\w*)\s*[(\[]",
    "rs": r"^[ \t]*(?:pub(?:\([\w:]+\))?\s+)?fn\s+([A-Za-z_]\w*)",
    "js": r"^[ \t]*(?:export\s+)?(?:(?:async\s+)?function\s*\*?\s*([\w$]+)"
    r"|(?:const|let|var)\s+([\w$]+)\s*(?::[^=\n]*)?=)",
    "php": r"^[ \t]*function\s+&?([A-Za-z_]\w*)\s*\(",
    "rb": r"^[ \t]*def\s+(?:self\.)?([A-Za-z_]\w*[?!]?)",
    "lua": r"^[ \t]*(?:local\s+)?function\s+([A-Za-z_][\w.:]*)\s*\(",
    "pl": r"^[ \t]*sub\s+([A-Za-z_]\w*)",
    "r": r"^[ \t]*([A-Za-z.][\w.]*)[ \t]*(?:<-|=)[ \t]*function\s*\(",
    "rkt": r"^[ \t]*\(define\s+\(([^\s()\[\]]+)",
    "ml": r"^let\s+(?:rec\s+)?([a-z_][\w']*)",
    "sh": r"^[ \t]*(?:function[ \t]+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)[ \t]*\(\s*\))",
}
_SIGNATURE["ts"] = _SIGNATURE["js"]
# A Java class declaration (an answer that is the whole class).
_JAVA_CLASS = re.compile(r"^[ \t]*(?:public\s+|final\s+|abstract\s+)*class\s+(\w+)", re.M)
# What the program cannot take of a reply. What the prompt already opens (its program's first
# line): a second one breaks the program. PHP's closing tag would turn the tests after it into
# text that is printed, not run: the program would pass whatever the answer. An ``export``
# makes a JavaScript program an ES module, where the tests' ``require`` is not defined.
_EXPORT = r"^[ \t]*export[ \t]+(?:default[ \t]+)?"
_LEFT_OUT = {
    "rkt": re.compile(r"\A\s*#lang[^\n]*\n?"),
    "php": re.compile(r"\A\s*<\?php\b[ \t]*\n?|\n?[ \t]*\?>\s*\Z"),
    "js": re.compile(
        _EXPORT + r"(?=(?:async[ \t]+)?function\b|const\b|let\b|var\b|class\b)"
        r"|^[ \t]*export[ \t]*(?:\{[^}\n]*\}|default[ \t]+[\w$]+)[ \t]*;?[ \t]*\n?",
        re.M,
    ),
}
_LEFT_OUT["ts"] = _LEFT_OUT["js"]
_GO_PACKAGE = re.compile(r"^package\s+\w+[ \t]*\n?", re.M)
_GO_IMPORTS = re.compile(
    r'^import\s*(?:\((.*?)^\)|((?:\w+\s+|\.\s+|_\s+)?"[^"\n]*"))[ \t]*\n?', re.M | re.S
)
_GO_IMPORT_PATH = re.compile(r'"([^"\n]+)"')


@dataclasses.dataclass(frozen=True)
class Restated:
    """An answer that restates the prompt's function: the prompt's part before it
    (``before``), the answer fitted to go there (``code``), and whether the answer is a
    whole Java class (which then closes what the prompt's part opened)."""

    before: str
    code: str
    whole_class: bool = False


def _signatures(language: str, text: str) -> list[re.Match[str]]:
    pattern = _SIGNATURE.get(language)
    return list(re.finditer(pattern, text, re.M)) if pattern else []


def _name(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group)


def function_of(language: str, prompt: str) -> re.Match[str] | None:
    """The prompt's last function header (None in a language without the rule)."""
    found = _signatures(language, prompt)
    return found[-1] if found else None


def restated(language: str, prompt: str, code: str) -> Restated | None:
    """``code`` fitted in place of the prompt's function when it defines it; None when it
    does not (a body, to go on from the prompt), or the language has no such rule."""
    header = function_of(language, prompt)
    if header is None:
        return None
    name = _name(header)
    if not any(_name(found) == name for found in _signatures(language, code)):
        return None
    if name != "main":
        code = without_main(language, code)
    if language in _LEFT_OUT:
        code = _LEFT_OUT[language].sub("", code)
    before = prompt[: header.start()]
    if language == "java":
        opened = list(_JAVA_CLASS.finditer(before))
        if opened and _JAVA_CLASS.search(code):  # the whole class: it replaces the prompt's
            code = _java_class_named(code, name, opened[-1][1])
            return Restated(before[: opened[-1].start()], code, whole_class=True)
    return Restated(before, code)  # Go's: see go_merged


def _java_class_named(code: str, function: str, prompts: str) -> str:
    """A whole Java class whose name is not the prompt's (``Main``, ``Solution``) renamed to
    it: the tests call the prompt's class (and the file bears its name), and a ``Main`` would
    be a second one beside HumanEval-X's tests."""
    at = next(f.start() for f in _signatures("java", code) if _name(f) == function)
    classes = [c for c in _JAVA_CLASS.finditer(code) if c.start() < at]
    own = classes[-1][1] if classes else prompts
    return code if own == prompts else re.sub(rf"\b{own}\b", prompts, code)


# A ``main`` of the answer's own (chat models add one to show the function at work), where
# the tests (or, in HumanEval-X's Rust, the prompt's declaration) define the program's main.
_MAIN = {
    "cpp": re.compile(r"^[ \t]*(?:int|void|auto)\s+main\s*\([^;{}]*\)\s*(?:->\s*\w+\s*)?\{", re.M),
    "rs": re.compile(r"^[ \t]*(?:pub\s+)?fn\s+main\s*\(\s*\)[^;{]*\{", re.M),
    "java": re.compile(
        r"^[ \t]*(?:public\s+|static\s+|final\s+)*void\s+main\s*\([^;{}]*\)\s*"
        r"(?:throws[^{;]*)?\{",
        re.M,
    ),
}
# What a brace search skips: strings, comments, and character literals (not Rust's
# lifetimes, which have no closing quote).
_SKIPPED = re.compile(
    r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|\'(?:\\.[^\'\n]{0,9}|[^\'\\\n])\'', re.S
)


def without_main(language: str, code: str) -> str:
    """``code`` without a ``main`` function of its own (C++, Rust, Java): it would be a second
    definition of the program's. Code whose ``main`` does not close is left as it is."""
    pattern = _MAIN.get(language)
    found = pattern.search(code) if pattern else None
    if found is None:
        return code
    end = closing_brace(code, found.end())
    if end is None:
        return code
    return code[: found.start()] + code[end + 1 :].lstrip("\n")


def closing_brace(code: str, start: int) -> int | None:
    """The index of the brace that closes the one opened just before ``start``."""
    depth, at = 1, start
    while at < len(code):
        skipped = _SKIPPED.match(code, at)
        if skipped:
            at = skipped.end()
            continue
        if code[at] == "{":
            depth += 1
        elif code[at] == "}":
            depth -= 1
            if depth == 0:
                return at
        at += 1
    return None


def go_imports(text: str) -> list[str]:
    """The import specs of Go source ``text`` (``"fmt"``, ``m "math"``), in their order."""
    specs: list[str] = []
    for match in _GO_IMPORTS.finditer(text):
        grouped, single = match.groups()
        lines = grouped.splitlines() if grouped is not None else [single]
        specs += [line.strip() for line in lines if _GO_IMPORT_PATH.search(line)]
    return specs


def go_merged(before: str, code: str, given: str = "") -> tuple[str, str]:
    """``(before, code)`` with the answer's ``package`` line dropped and its imports that
    ``before`` and ``given`` (set-up the program also has) lack put after ``before``'s: Go
    rejects a second package clause and an import of a package twice."""
    have = {_GO_IMPORT_PATH.search(s)[1] for s in go_imports(before + given)}  # type: ignore[index]
    wanted = [s for s in go_imports(code) if _GO_IMPORT_PATH.search(s)[1] not in have]  # type: ignore[index]
    body = _GO_IMPORTS.sub("", _GO_PACKAGE.sub("", code, count=1)).lstrip("\n")
    if wanted:
        before += (
            "import (\n" + "".join(f"    {spec}\n" for spec in dict.fromkeys(wanted)) + ")\n\n"
        )
    return before, body


_RUST_USE = re.compile(r"^[ \t]*use\s+([^;]+);[ \t]*\n?", re.M)


def _rust_use_leaves(tree: str, prefix: str = "") -> list[tuple[str, str]]:
    """``(spec, name)`` of each item a Rust use tree imports (``std::cmp::max`` -> ``max``;
    ``a::{self as b}`` -> ``a as b``); a glob's name is empty, as it shadows nothing."""
    tree = " ".join(tree.split())
    if "{" in tree:
        head, inner = tree.split("{", 1)
        parts, depth, start = [], 0, 0
        inner = inner[: inner.rfind("}")]
        for at, char in enumerate(inner + ","):
            depth += {"{": 1, "}": -1}.get(char, 0)
            if char == "," and depth == 0:
                parts.append(inner[start:at])
                start = at + 1
        head = prefix + head.strip()
        return [leaf for part in parts if part.strip() for leaf in _rust_use_leaves(part, head)]
    path, _, alias = (prefix + tree.strip()).partition(" as ")
    path = path.strip().removesuffix("::self")
    name = alias.strip() or path.rsplit("::", 1)[-1]
    spec = f"{path} as {alias.strip()}" if alias else path
    return [(spec, "" if name == "*" else name)]


def rust_without_declared_uses(code: str, declaration: str) -> str:
    """``code`` without the items of its ``use`` lines that ``declaration`` (HumanEval-X's
    Rust set-up, before it in the program) already imports: rustc rejects a name imported
    twice (E0252)."""
    declared = {
        name for tree in _RUST_USE.findall(declaration) for _, name in _rust_use_leaves(tree)
    }

    def kept(use: re.Match[str]) -> str:
        leaves = _rust_use_leaves(use[1])
        wanted = [spec for spec, name in leaves if name not in declared or not name]
        if len(wanted) == len(leaves):
            return use[0]
        return "".join(f"use {spec};\n" for spec in wanted)

    return _RUST_USE.sub(kept, code)


def without_closer(tests: str, closer: str) -> str:
    """MultiPL-E's tests, which start by closing the prompt's function, without that closer
    (a restated function closes itself)."""
    stripped, closer = tests.lstrip(), closer.strip()
    if closer and stripped.startswith(closer):
        return stripped[len(closer) :]
    return tests


def without_class_end(code: str) -> str:
    """A whole Java class without its last brace, so that the tests (which close the
    prompt's class) go inside it."""
    end = code.rstrip().rfind("}")
    return code[:end] if end >= 0 else code
