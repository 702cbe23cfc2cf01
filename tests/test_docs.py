"""The documentation site builds with warnings as errors, and its reference matches the code:
every option, hook, record field, model and benchmark by name the code has is on its page,
and the page has none the code lacks. The README's copies of generated tables are the
generator's output, its links lead to pages that exist, and its test command is CI's."""

from __future__ import annotations

import html
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from docs_pages import DOCS, README, ROOT, build_site, pages, table_rows

pytest.importorskip("sphinx", reason="the docs extra is not installed")
pytest.importorskip("myst_parser", reason="the docs extra is not installed")

sys.path.insert(0, str(DOCS / "_ext"))
import codegen_reference  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = build_site(out)
    assert built.returncode == 0, built.stderr
    return out


def first_words(rows: list[list[str]], column: int = 0) -> list[str]:
    return [row[column].split()[0] for row in rows]


def test_the_site_builds_without_warnings_and_has_its_search_page(site):
    assert (site / "index.html").is_file()
    assert (site / "search.html").is_file() and (site / "searchindex.js").is_file()
    index = (site / "index.html").read_text(encoding="utf-8")
    for section in ("Tutorials", "How-to guides", "Reference", "Explanation"):
        assert f'<span class="caption-text">{section}</span>' in index


def test_the_options_page_lists_every_option_of_the_code_and_no_other(site):
    from pytest_codegen.options import OPTIONS

    # One row an option: its flag, ini key and default in the first cell, its help beside.
    rows = table_rows(site / "reference" / "options.html", "codegen-options")
    assert first_words(rows) == [o.flag_name for o in OPTIONS]
    ini_keys = [[w for w in row[0].split() if w.startswith("codegen_")] for row in rows]
    assert ini_keys == [[o.ini_name] for o in OPTIONS]
    assert all("default:" in row[0] for row in rows)
    # Each with its help text, as --help prints it: written once, in OPTIONS.
    for option, row in zip(OPTIONS, rows, strict=True):
        assert row[1].startswith(" ".join(option.help.split())), option.flag_name


def test_the_hooks_page_documents_every_hookspec_and_no_other(site):
    from pytest_codegen import hookspecs

    manager = pytest.PytestPluginManager()
    manager.add_hookspecs(hookspecs)
    in_code = sorted(name for name in dir(manager.hook) if name.startswith("pytest_codegen_"))
    page = (site / "reference" / "hooks.html").read_text(encoding="utf-8")
    documented = re.findall(r'id="pytest_codegen\.hookspecs\.(\w+)"', page)
    assert sorted(documented) == in_code
    tabled = first_words(table_rows(site / "reference" / "hooks.html", "codegen-hooks"))
    assert sorted(tabled) == in_code
    # Each with its docstring's example (highlighted: read as text).
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    for name in in_code:
        assert f"def {name}(" in text, name


def test_the_results_and_summary_pages_describe_every_record_field_and_outcome(site):
    from pytest_codegen import outcomes
    from pytest_codegen.reporting.records import SampleRecord

    rows = table_rows(site / "reference" / "results.html", "codegen-record")
    fields = SampleRecord.__required_keys__ | SampleRecord.__optional_keys__
    assert sorted(first_words(rows)) == sorted(fields)
    undescribed = [row[0] for row in rows if len(row) < 4 or not row[3].strip()]
    assert undescribed == []
    always = {row[0] for row in rows if row[2] == "always"}
    assert always == set(SampleRecord.__required_keys__)
    from pytest_codegen.reporting.terminal import COLUMNS

    columns = table_rows(site / "reference" / "summary.html", "codegen-columns")
    assert [row[:2] for row in columns] == [[c, o] for o, c in COLUMNS]
    outcome_rows = table_rows(site / "reference" / "results.html", "codegen-outcomes")
    assert first_words(outcome_rows) == list(outcomes.ALL)
    assert all(row[2].strip() for row in outcome_rows)


def test_the_models_and_benchmarks_pages_list_the_catalogues(site):
    from pytest_codegen.collect.builtin_suites import builtin_suites
    from pytest_codegen.datasets.catalog import named_datasets
    from pytest_codegen.models.names import NAMED_MODELS

    models = table_rows(site / "reference" / "models.html", "codegen-models")
    assert [row[0].split()[:2] for row in models] == [[n, m.spec] for n, m in NAMED_MODELS.items()]
    benchmarks = table_rows(site / "reference" / "benchmarks.html", "codegen-benchmarks")
    assert first_words(benchmarks) == [*builtin_suites(), *named_datasets()]


def test_the_providers_page_lists_every_provider_and_model_family(site):
    from pytest_codegen.models.providers import PROVIDERS
    from pytest_codegen.models.rules import FAMILIES

    page = site / "howto" / "providers.html"
    assert first_words(table_rows(page, "codegen-providers")) == list(PROVIDERS)
    families = table_rows(page, "codegen-families")
    assert [row[0] for row in families] == [f.provider for f in FAMILIES]
    assert all(row[1].startswith(f.name) for row, f in zip(families, FAMILIES, strict=True))


def test_the_module_map_lists_every_module_with_its_docstring(site):
    rows = table_rows(site / "project" / "development.html", "codegen-modules")
    modules = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in (ROOT / "pytest_codegen").rglob("*.py")
    }
    assert sorted(first_words(rows)) == sorted(modules)
    assert [row[0] for row in rows if not row[1].strip()] == []


def test_every_page_is_in_the_navigation(site):
    # A page left out of every toctree would be built but unreachable (Sphinx warns, and the
    # build above fails on warnings): here, also every top-level topic page of docs/.
    index = (site / "index.html").read_text(encoding="utf-8")
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(DOCS).with_suffix(".html").as_posix()
        if "_build" in page.parts or rel == "index.html":
            continue
        assert f'href="{rel}"' in index, rel


def test_a_topic_page_at_the_top_of_docs_is_in_the_navigation_by_itself(tmp_path):
    # Pages written beside a feature (docs/<topic>.md) need no edit of the index.
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs, ignore=shutil.ignore_patterns("_build"))
    (docs / "a-new-topic.md").write_text("# A new topic\n\nWhat it is.\n")
    built = build_site(tmp_path / "html", docs)
    assert built.returncode == 0, built.stderr
    index = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert 'href="a-new-topic.html"' in index


def test_the_readme_tables_are_what_the_code_gives():
    text = README.read_text(encoding="utf-8")
    for name, make in codegen_reference.README_TABLES.items():
        assert codegen_reference.readme_block(name, text) == make(), (
            f"README's {name} table is stale: python docs/_ext/codegen_reference.py --readme"
        )


def test_the_readme_is_short_and_links_only_to_pages_that_exist():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", text)
    assert links and [link for link in links if not (ROOT / link).exists()] == []


def test_the_readme_test_command_is_what_ci_runs():
    readme = README.read_text(encoding="utf-8").splitlines()
    command = next(line for line in readme if "'.[dev]'" in line)
    steps = [step.strip() for step in command.split("&&")]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    # CI runs the README's command as it is written (then builds the docs).
    assert command.strip() in [line.strip() for line in ci], ci
    assert shlex.split(steps[-1]) == [".venv/bin/python", "-m", "pytest", "-n", "2"]


# "`--codegen-concurrency` (100 by default)", "(120 s)", "(default `1,5,10`"
DOCUMENTED_DEFAULT = re.compile(
    r"`(--codegen-[a-z-]+)` \((?:default `([^`]+)`|([0-9][0-9.]*)(?: s)?(?: by default)?[);])"
)


def test_the_defaults_the_pages_state_are_the_options_defaults():
    from pytest_codegen.options import OPTIONS

    defaults = {option.flag_name: option.default for option in OPTIONS}
    stated: dict[tuple[str, str], str] = {}
    for page in pages():
        for match in DOCUMENTED_DEFAULT.finditer(page.read_text(encoding="utf-8")):
            flag, text = match[1], match[2] or match[3]
            stated[(flag, text)] = page.relative_to(ROOT).as_posix()
    assert len({flag for flag, _ in stated}) >= 4  # the pattern still finds what the pages say
    for (flag, text), page in sorted(stated.items()):
        default = defaults[flag]
        if isinstance(default, tuple):
            assert text == ",".join(map(str, default)), (page, flag, text, default)
        else:
            assert float(text) == float(default), (page, flag, text, default)
