"""Command-line flags and ini keys of the ``codegen`` group, resolved once into :class:`Settings`.

Every option is declared once in :data:`~.options.OPTIONS`: it becomes a ``--codegen-NAME``
flag and a ``codegen_NAME`` ini key sharing one help text. The flag wins over the ini key; a
bad value raises ``pytest.UsageError`` naming where it came from.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .models.base import SamplingDefaults, SamplingParams
from .options import OPTIONS, Option


@dataclasses.dataclass(frozen=True)
class Settings:
    """The ``codegen`` options of one run, validated."""

    model: str | None
    suite: tuple[str, ...]
    samples: int
    k: tuple[int, ...]
    timeout: float
    memory: int
    results: Path | None
    system_prompt: str | None
    params: SamplingParams
    base_url: str | None
    concurrency: int
    requests_per_minute: float | None
    tokens_per_minute: float | None
    prices: dict[str, tuple[float, float]]
    prompt_template: dict[str | None, str]
    repair_rounds: int
    cache: Path | None
    regenerate: bool
    node: str | None
    models: tuple[str, ...]
    fail_under: tuple[Any, ...]
    fail_on_attempts: bool
    baseline: Path | None
    html: Path | None
    tripwire: int
    check_references: bool
    reruns: int
    cpu_pinning: str
    stderr_rule: str = "harness"
    request_timeout: float = 120.0
    max_retry_wait: float = 300.0
    # The options with a value given by flag or ini key, not left at their defaults (a
    # suite's own limits give way only to the user's); on/off flags are not listed.
    explicit: frozenset[str] = frozenset()
    extract: str = "auto"
    build: str | None = None  # --codegen-build: the input of a benchmark build (builder/)
    build_out: str | None = None
    list_models: bool = False  # handled before configure (plugin.pytest_cmdline_main)
    shard: tuple[int, int] | None = None  # --codegen-shard I/N
    merge: tuple[str, ...] = ()  # --codegen-merge: results files reported as one run
    compare: tuple[str, ...] = ()  # --codegen-compare: results files compared run by run
    compare_out: str | None = None  # --codegen-compare-out: the comparison as JSON
    data_dir: Path | None = None  # --codegen-data-dir: named suites' data placed by hand
    timeout_rule: str = "reference"  # --codegen-timeout-rule (see execution.time_limits)
    resume: bool = False  # --codegen-resume: finish the run the results file records
    # Selection by what a problem is (see collect.facets): LiveCodeBench's fields.
    contest_after: str | None = None
    contest_before: str | None = None
    release: int | None = None
    platform: tuple[str, ...] = ()
    difficulty: tuple[str, ...] = ()
    date_window: str = "quarter"  # --codegen-date-window (see reporting.breakdowns)
    # Where a relative path in the model spec (replay:PATH) is taken from: the ini file's
    # directory for the ini key codegen_model; None: where pytest runs.
    model_base: Path | None = None
    # Where the model spec came from, as a usage error names it: the flag, or the ini key
    # and its file.
    model_source: str = "--codegen-model"

    @property
    def active(self) -> bool:
        """Benchmark items are collected only when a model is given (or results merged or
        compared)."""
        return self.model is not None or bool(self.merge) or bool(self.compare)

    @property
    def gated(self) -> bool:
        """The scores decide the exit status (``--codegen-fail-under``, ``--codegen-baseline``)."""
        return bool(self.fail_under) or self.baseline is not None

    def samples_for(self, defaults: SamplingDefaults) -> int:
        """Samples per problem of a kind with these ``defaults``: the user's
        ``--codegen-samples`` (flag or ini key) if given, else the kind's, else 1."""
        if "samples" in self.explicit or defaults.samples is None:
            return self.samples
        return defaults.samples

    def params_for(
        self, defaults: SamplingDefaults, model_defaults: SamplingParams | None = None
    ) -> SamplingParams:
        """The sampling parameters of a kind with these ``defaults``: the user's, with the
        kind's temperature where neither the user (flag, ini key) nor the model's own
        parameters (an alias's, a named model's) set one."""
        if (
            defaults.temperature is None
            or "temperature" in self.explicit
            or (model_defaults is not None and model_defaults.temperature is not None)
        ):
            return self.params
        return dataclasses.replace(self.params, temperature=defaults.temperature)

    def defaulted(self, defaults: SamplingDefaults) -> tuple[str, ...]:
        """What of ``defaults`` the user left to them: "samples", "temperature"."""
        return tuple(
            name
            for name in ("samples", "temperature")
            if getattr(defaults, name) is not None and name not in self.explicit
        )


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("codegen", "grading generated code (pytest-codegen)")
    for opt in OPTIONS:
        if opt.flag:
            group.addoption(opt.flag_name, action="store_true", default=None, help=opt.help)
            parser.addini(opt.ini_name, opt.help, type="bool", default=opt.default)
        elif opt.multiple:
            group.addoption(
                opt.flag_name, action="append", default=None, metavar=opt.metavar, help=opt.help
            )
            parser.addini(opt.ini_name, opt.help, type="linelist", default=[])
        else:
            group.addoption(opt.flag_name, default=None, metavar=opt.metavar, help=opt.help)
            parser.addini(opt.ini_name, opt.help, type="string", default=None)


def _raw_value(config: pytest.Config, opt: Option) -> tuple[Any, str]:
    """The value of an option and a phrase naming where it came from."""
    cli = config.getoption(opt.flag_name)
    if cli is not None:
        return cli, f"{opt.flag_name}"
    ini = config.getini(opt.ini_name)
    overrides = config.getoption("override_ini") or ()
    if any(o.split("=", 1)[0] == opt.ini_name for o in overrides):
        source = f"-o {opt.ini_name}"  # on the command line, not in the ini file
    elif config.inipath:
        source = f"ini key {opt.ini_name} in {config.inipath}"
    else:
        source = opt.ini_name
    if opt.multiple:
        return list(ini), source
    if ini is None or ini == "":
        return None, source
    return ini, source


def _relative_base(config: pytest.Config, source: str) -> Path:
    """Where relative paths of an option are resolved: the ini file's directory for an ini
    key (also one set with ``-o``), the invocation directory for a flag."""
    if source.startswith(("ini key", "-o ")) and config.inipath is not None:
        return Path(config.inipath).parent
    return Path(config.invocation_params.dir)


#: The options whose values (each entry of a repeatable one) name files or directories, taken
#: from where pytest runs; ``data_dir``, ``prompt_template`` and ``model`` are resolved apart.
PATH_OPTIONS = (
    "results",
    "cache",
    "node",
    "baseline",
    "html",
    "build",
    "build_out",
    "merge",
    "compare",
    "compare_out",
)


def _from_here(config: pytest.Config, source: str, name: str, text: str) -> str:
    """An entry of the path option ``name`` made a path from where pytest runs: a leading
    ``~`` is the user's home directory (as in pytest's ``--junitxml``; no shell expands it
    after ``=`` or in an ini file); an ini key's relative path is taken from the ini file's
    directory (and stays relative where that lies below where pytest runs), a flag's is as
    given. Of ``build``'s ``PATH::GLOB`` the path is what precedes ``::``; a ``node`` with no
    directory is a command, looked up on PATH."""
    path, sep, rest = text.partition("::") if name == "build" else (text, "", "")
    path = os.path.expanduser(path)
    base, here = _relative_base(config, source), Path(config.invocation_params.dir)
    given = Path(path)
    if base == here or given.is_absolute() or (name == "node" and given.name == path):
        return path + sep + rest
    full = base / given
    return str(full.relative_to(here) if full.is_relative_to(here) else full) + sep + rest


def resolve(config: pytest.Config) -> Settings:
    """Read and validate every ``codegen`` option; raises ``UsageError`` on a bad value."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    explicit: set[str] = set()
    for opt in OPTIONS:
        raw, sources[opt.name] = _raw_value(config, opt)
        given = raw if opt.multiple else [raw]
        if sources[opt.name] == opt.flag_name and not opt.flag and opt.name != "system_prompt":
            if any(not str(value).strip() for value in given):
                # An empty flag value (a variable that expanded to nothing) would mean "." for
                # a path, and no suite at all, silently. (An empty system prompt is one.)
                what = opt.metavar or "a value"
                raise pytest.UsageError(f"{opt.flag_name}: empty value (give {what})")
        if not opt.flag and raw is not None and raw != []:  # (a bool ini key always reads)
            explicit.add(opt.name)
        if opt.flag:
            values[opt.name] = bool(raw) if raw is not None else bool(opt.default)
            continue
        if opt.multiple:
            values[opt.name] = tuple(str(v).strip() for v in raw if str(v).strip())
            continue
        if raw is None:
            values[opt.name] = opt.default
            continue
        try:
            values[opt.name] = opt.parse(str(raw).strip())
        except ValueError as e:
            raise pytest.UsageError(
                f"{sources[opt.name]}: invalid value {raw!r} ({str(e) or 'not a valid value'})"
            ) from None
    if values["suite"] and sources["suite"] != "--codegen-suite":
        if config.args_source == pytest.Config.ArgsSource.ARGS:
            # As pytest's testpaths: an ini file's suites give way to the paths and ids given
            # on the command line (a pasted id reruns that sample, not the whole suite).
            values["suite"] = ()
    params = SamplingParams(
        **{f.name: values.pop(f.name) for f in dataclasses.fields(SamplingParams)}
    )
    for name in PATH_OPTIONS:
        value, source = values[name], sources[name]
        if isinstance(value, tuple):
            values[name] = tuple(_from_here(config, source, name, entry) for entry in value)
        elif value is not None:
            values[name] = _from_here(config, source, name, value)
    if values["model"] is not None:
        values["model_base"] = _relative_base(config, sources["model"])
        values["model_source"] = sources["model"]
    for path_opt in ("results", "cache", "baseline", "html"):
        if values[path_opt] is not None:
            values[path_opt] = Path(values[path_opt])
    if values["data_dir"] is not None:
        data_dir = _from_here(config, sources["data_dir"], "data_dir", values["data_dir"])
        values["data_dir"] = Path(config.invocation_params.dir) / data_dir
    from .gates.thresholds import parse_threshold, required_ks
    from .generation.cost import parse_prices
    from .generation.prompts import read_templates

    # Repeatable options whose entries are parsed together: (entries, where they came from).
    tables: dict[str, Callable[[tuple[str, ...], str], Any]] = {
        "prices": lambda entries, source: parse_prices(entries),
        "prompt_template": lambda entries, source: read_templates(
            entries, base=_relative_base(config, source)
        ),
        "fail_under": lambda entries, source: tuple(parse_threshold(t) for t in entries),
    }
    for name, parse in tables.items():
        try:
            values[name] = parse(values[name], sources[name])
        except ValueError as e:
            raise pytest.UsageError(f"{sources[name]}: {e}") from None
    # Every gated k must be scored, even one not in --codegen-k.
    values["k"] = tuple(sorted(set(values["k"]) | set(required_ks(values["fail_under"]))))
    return Settings(params=params, explicit=frozenset(explicit), **values)
