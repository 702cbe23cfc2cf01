"""The build's input: code fragments, each a target function or method and its context.

``--codegen-build`` accepts:

* a ``.py`` file or a directory of them. Targets are chosen by a glob of qualified names
  after ``::`` (``pkg/io.py::Reader.*``), or else by the default rule: a module-level function
  or a method of a module-level class that is public (no leading ``_``), documented (has a
  docstring) and has at least :data:`MIN_BODY_LINES` lines of code after its docstring; test
  files (``test_*.py``, ``*_test.py``, ``conftest.py``, anything under ``tests/``) and test
  functions are skipped. The enclosing file is the context.
* CodeBenchGen's own input: a JSON list (or JSONL) of ``{"context", "func_name", "idx"}``.
* CodeSearchNet-style rows: ``code``, ``func_name``, ``path``/``repo``, ``docstring`` (the
  function's code is its own context).

A fragment that cannot be used (the file does not parse, the name is not found, a row lacks a
field) is a :class:`Fragment` with ``error`` set: its item fails with that one line while the
rest of the build goes on.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import hashlib
import io
import json
import re
import tokenize
from pathlib import Path
from typing import Any

from ..jsonl import loads, not_valid_json, unencodable_field
from ..kinds.execcsn_program import FunctionNode, definition_taken
from ..problems import sanitize_node_name

#: Lines of code a target needs after its docstring to be chosen by the default rule.
MIN_BODY_LINES = 4
_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclasses.dataclass(frozen=True)
class Fragment:
    """One target to turn into an example.

    ``id`` names the fragment in the suite (``pkg.io.Reader.read``, or the row's ``idx``);
    ``name`` is its pytest item name; ``func_name`` is ``func`` or ``Class.method``;
    ``source`` the target's own code (hashed for provenance); ``error`` says why the fragment
    cannot be built, if it cannot.
    """

    id: str
    name: str
    func_name: str
    context: str
    source: str = ""
    path: str = ""
    line: int = 0
    repo: str = ""
    docstring: str = ""
    error: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    @property
    def short_name(self) -> str:
        return self.func_name.rsplit(".", 1)[-1]


def split_spec(spec: str) -> tuple[str, str | None]:
    """``PATH[::GLOB]`` -> ``(PATH, GLOB or None)``."""
    path, sep, pattern = spec.partition("::")
    return path, (pattern or None) if sep else None


def is_test_file(path: Path) -> bool:
    name = path.name
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or "tests" in path.parts[:-1]
    )


def is_json_input(path: Path) -> bool:
    return path.name.endswith((".json", ".jsonl"))


# -- Python files


def find_definitions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """``(qualified name, node)`` of module-level functions and methods of module-level
    classes, in file order."""
    found: list[tuple[str, Any]] = []
    for node in tree.body:
        if isinstance(node, _FUNC_TYPES):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            found += [(f"{node.name}.{s.name}", s) for s in node.body if isinstance(s, _FUNC_TYPES)]
    return found


def chosen_by_default(qualname: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The default rule: public, documented, more than a few lines, not a test."""
    short = qualname.rsplit(".", 1)[-1]
    if short.startswith("_") or short.startswith("test") or qualname.startswith("Test"):
        return False
    docstring = ast.get_docstring(node)
    if not docstring:
        return False
    body = node.body[1:]  # after the docstring
    if not body:
        return False
    assert body[-1].end_lineno is not None
    return body[-1].end_lineno - body[0].lineno + 1 >= MIN_BODY_LINES


_SOURCE_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_CODING = re.compile(r"^([ \t\f]*#.*?coding[:=][ \t]*)[-\w.]+", re.MULTILINE)  # PEP 263


def source_lines(text: str) -> list[str]:
    """``text``'s lines as Python numbers them, ends kept: at ``\n``, ``\r\n`` and ``\r`` only.
    ``str.splitlines()`` also ends a line at a form feed or U+2028, which Python reads as part
    of one: a function after such a line was sliced from the wrong lines."""
    return _SOURCE_LINE.findall(text)


def read_source(path: Path) -> str:
    """A ``.py`` file's text as Python reads it: in the encoding its BOM or coding line names
    (UTF-8 otherwise; :class:`SyntaxError` for one it does not know). The text goes on as
    UTF-8, so a coding line naming another encoding is made to say ``utf-8``."""
    raw = path.read_bytes()
    encoding = tokenize.detect_encoding(io.BytesIO(raw).readline)[0]  # errors name no file
    text = path.read_text(encoding=encoding)  # utf-8-sig drops the BOM
    if encoding in ("utf-8", "utf-8-sig"):
        return text
    head = "".join(source_lines(text)[:2])  # where Python looks for the coding line
    return _CODING.sub(r"\1utf-8", head, count=1) + text[len(head) :]


def _at_line(error: SyntaxError) -> str:
    return f"{error.msg} at line {error.lineno}" if error.lineno else str(error.msg)


def fragments_of_file(
    path: Path, root: Path, pattern: str | None, alone: bool = True
) -> list[Fragment]:
    """The fragments of one ``.py`` file (``root``: what module names are relative to). A
    ``pattern`` it has no match for is an error of the file when the input is this file
    ``alone``; of a directory's files, some need not hold what it names."""
    shown = _shown(path)
    path, root = path.resolve(), root.resolve()
    module = ".".join(path.relative_to(root).with_suffix("").parts) if root != path else path.stem
    try:
        text = read_source(path)
        tree = ast.parse(text, filename=str(path))
    except (OSError, UnicodeDecodeError) as e:
        return [_broken(path.stem, f"{shown}: cannot read ({getattr(e, 'strerror', None) or e})")]
    except SyntaxError as e:
        return [_broken(path.stem, f"{shown}: does not parse ({_at_line(e)})")]
    lines = source_lines(text)
    fragments: list[Fragment] = []
    definitions: dict[str, list[FunctionNode]] = {}
    for qualname, node in find_definitions(tree):
        definitions.setdefault(qualname, []).append(node)
    for qualname, nodes in definitions.items():
        # A name defined more than once (a property's setter, overloads): the def grading
        # takes from the example's code is the one masked, so the one judged here.
        node = definition_taken(text, nodes)
        if pattern is not None:
            if not fnmatch.fnmatchcase(qualname, pattern):
                continue
        elif not chosen_by_default(qualname, node):
            continue
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        assert node.end_lineno is not None
        fragments.append(
            Fragment(
                id=f"{module}.{qualname}",
                name=qualname,
                func_name=qualname,
                context=text,
                source="".join(lines[first - 1 : node.end_lineno]),
                path=shown,
                line=node.lineno,
                docstring=ast.get_docstring(node) or "",
            )
        )
    if pattern is not None and not fragments and alone:
        return [_broken(pattern, f"{shown}: no function or method matches {pattern!r}")]
    return fragments


def _broken(name: str, error: str) -> Fragment:
    return Fragment(id=name, name=sanitize_node_name(name), func_name="", context="", error=error)


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# -- JSON / JSONL rows


def fragments_of_rows(path: Path) -> list[Fragment]:
    """The fragments of a CodeBenchGen or CodeSearchNet-style JSON list or JSONL file."""
    shown = _shown(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return [_broken(path.stem, f"{shown}: cannot read ({getattr(e, 'strerror', None) or e})")]
    rows: list[tuple[int, Any]]
    try:
        data = loads(text)
        rows = list(enumerate(data if isinstance(data, list) else [data]))
    except json.JSONDecodeError as e:
        if text.lstrip().startswith("["):  # a JSON list, not JSONL: one error, not one a line
            where = f"{shown}: line {e.lineno}"
            return [_broken(path.stem, f"{where}: {not_valid_json(e, 'file')}")]
        rows = []
        for lineno, raw in enumerate(text.split("\n"), 1):  # not at U+2028: JSON allows it
            if not raw.strip():
                continue
            try:
                rows.append((len(rows), loads(raw)))
            except json.JSONDecodeError as e:
                rows.append((len(rows), f"line {lineno}: {not_valid_json(e)}"))
    out: list[Fragment] = []
    seen: set[str] = set()
    ids: dict[str, int] = {}  # the suite's ids must be unique too: the first row has its id
    for index, row in rows:
        fragment = _fragment_of_row(row, index, shown)
        if not fragment.error and ids.setdefault(fragment.id, index) != index:
            where = f"{shown}: row {index}: duplicate idx {fragment.id!r}"
            fragment = _broken(fragment.id, f"{where} (also row {ids[fragment.id]})")
        if fragment.name in seen:  # node names must be unique in the file
            fragment = dataclasses.replace(fragment, name=f"{fragment.name}_{index}")
        seen.add(fragment.name)
        out.append(fragment)
    return out


def _fragment_of_row(row: Any, index: int, shown: str) -> Fragment:
    where = f"{shown}: row {index}"
    if isinstance(row, str):
        return _broken(f"row{index}", f"{shown}: {row}")
    if not isinstance(row, dict):
        return _broken(f"row{index}", f"{where}: a row must be a JSON object")
    unencodable = unencodable_field(row)  # no prompt, program or id can be made of it
    if unencodable is not None:
        return _broken(f"row{index}", f"{where}: {unencodable}")
    func_name = row.get("func_name")
    context = row.get("context") if "context" in row else row.get("code")
    raw_id = row.get("idx", index)
    fid = str(raw_id)
    if not isinstance(func_name, str) or not func_name.strip():
        return _broken(fid, f"{where}: missing field 'func_name'")
    if not isinstance(context, str) or not context.strip():
        field = "context" if "context" in row or "code" not in row else "code"
        return _broken(fid, f"{where}: missing field {field!r}")
    func_name = func_name.strip()
    name = sanitize_node_name(fid)
    try:
        tree = ast.parse(context)
    except SyntaxError as e:
        return _broken(fid, f"{where}: {func_name} does not parse ({e.msg} at line {e.lineno})")
    node = find_target(tree, func_name, context)
    if node is None:
        return _broken(fid, f"{where}: {func_name} is not found in its context")
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    assert node.end_lineno is not None
    source = "".join(source_lines(context)[first - 1 : node.end_lineno])
    return Fragment(
        id=fid,
        name=name,
        func_name=func_name,
        context=context,
        source=source,
        path=str(row.get("path") or shown),
        line=node.lineno,
        repo=str(row.get("repo") or row.get("repo_name") or ""),
        docstring=str(row.get("docstring") or ast.get_docstring(node) or ""),
    )


def find_target(tree: ast.Module, func_name: str, text: str) -> FunctionNode | None:
    """The ``def`` of ``func`` (module level) or ``Class.method`` (in a module-level class;
    CodeSearchNet names a method by its class only) in ``tree``, parsed from ``text``; of
    several, the one grading takes (:func:`definition_taken`)."""
    parts = func_name.split(".")
    nodes = [
        node
        for qualname, node in find_definitions(tree)
        if qualname == func_name or (len(parts) > 2 and qualname == ".".join(parts[-2:]))
    ]
    return definition_taken(text, nodes) if nodes else None


# -- everything a --codegen-build value names


def input_files(spec: str, base: Path) -> list[Path]:
    """The ``.py``, ``.json`` and ``.jsonl`` files ``spec`` names (a file, a directory, a
    glob), sorted; may be empty."""
    path_text, _ = split_spec(spec)
    path = Path(path_text)
    path = path if path.is_absolute() else base / path
    if any(c in path_text for c in "*?["):
        files = sorted(p for p in Path(path.anchor).glob(str(path.relative_to(path.anchor))))
    elif path.is_dir():
        files = sorted(path.rglob("*.py"))
    else:
        files = [path] if path.exists() else []
    top = path if path.is_dir() else path.parent
    return [
        f
        for f in files
        if f.is_file()
        and (is_json_input(f) or (f.suffix == ".py" and (f == path or not _test_under(f, top))))
    ]


def _test_under(file: Path, top: Path) -> bool:
    try:
        return is_test_file(file.relative_to(top))
    except ValueError:
        return is_test_file(Path(file.name))


def fragments_in(file: Path, root: Path, pattern: str | None, alone: bool = True) -> list[Fragment]:
    """The fragments ``file`` holds (``root``: the directory given, for module names;
    ``alone``: whether it is the whole input)."""
    if is_json_input(file):
        return fragments_of_rows(file)
    return fragments_of_file(file, root, pattern, alone)
