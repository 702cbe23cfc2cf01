"""What makes two runs' results comparable, and the check that refuses to merge or compare
results that are not.

Every record carries ``run`` (stamped where the sample was graded, so a remote host's own
Python and Node are what it says): the harness version, Python version, Node version (React
samples), the compiler or interpreter of a program in another language (MultiPL-E,
HumanEval-X: the first line it prints of its version), the model's sampling parameters with
what else shapes its answers, the timeout policy and the other limits. With the record's own
``model``, ``suite`` and ``data`` (the suite's data: name, version, sha256, where the loader
states it) that is a run's identity.

Per record rather than a header line: a results file is written line by line as samples are
graded, shards are concatenated and filtered with ordinary tools (``cat``, ``grep``, ``jq``),
and replay files and other readers of results lines need no change; a line stays
self-describing wherever it goes. Files written before these fields, or records without them
(a sample that never reported), are not held to them: a field is compared only where both
sides state it.
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .. import __version__
from ..execution.time_limits import FACTOR
from ..models.base import SamplingDefaults, merge_params
from ..settings import Settings

NO_DEFAULTS = SamplingDefaults()
# Fields of a run's identity, as said in a refusal, in the order they are listed.
LABELS = {
    "harness": "harness version",
    "python": "Python version",
    "node": "Node version",
    "toolchain": "toolchain",
    "model": "model",
    "params": "model parameters",
    "timeout": "timeout policy",
    "limits": "limits",
}
# What of a version must agree: Python's minor release and Node's major one (a patch release
# does not change what a sample computes, and a baseline would not outlive one).
_VERSION_PARTS = {"python": 2, "node": 1}


def run_identity(
    settings: Settings, model: Any = None, defaults: SamplingDefaults = NO_DEFAULTS
) -> dict[str, Any]:
    """This process's part of each record's ``run`` (``node`` is added per React sample);
    ``model``: the model built from ``--codegen-model``, whose own parameters (an alias's, a
    built-in name's) count with the flags'; ``defaults``: the sampling defaults of the
    record's kind, which count where the user set neither."""
    own = getattr(model, "defaults", None)
    params: dict[str, Any] = merge_params(own, settings.params_for(defaults, own)).as_dict()
    params["samples"] = settings.samples_for(defaults)
    replayed = getattr(model, "sample_counts", None)  # a samples file's (collect.sample_counts)
    if replayed and "samples" not in settings.explicit:
        params["samples"] = max(replayed.values())
    params["extract"] = settings.extract
    if settings.system_prompt is not None:
        params["system_prompt"] = _digest(settings.system_prompt)
    if settings.prompt_template:
        params["prompt_template"] = _digest(
            sorted((k or "", v) for k, v in settings.prompt_template.items())
        )
    if settings.repair_rounds:
        params["repair_rounds"] = settings.repair_rounds
    timeout: dict[str, Any] = {"rule": settings.timeout_rule}
    if settings.timeout_rule == "reference":
        timeout["factor"] = FACTOR
    timeout["cap_s"] = settings.timeout if "timeout" in settings.explicit else "suite default"
    memory = settings.memory if "memory" in settings.explicit else "suite default"
    return {
        "harness": __version__,
        "python": platform.python_version(),
        "params": params,
        "timeout": timeout,
        "limits": {"memory_mb": memory, "stderr_rule": settings.stderr_rule},
    }


def identity(records: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """Each identity field the records state, with every value they give it (as shown)."""
    found: dict[str, set[str]] = {}
    last: tuple[Any, ...] | None = None
    for record in records:
        run = record.get("run")
        # A run's records state the same identity line after line: compared as parsed (a
        # dict comparison), not shown again.
        stated = (run, record.get("model"), record.get("data"), record.get("suite"))
        if stated == last:
            continue
        last = stated
        fields = dict(run) if isinstance(run, Mapping) else {}
        if record.get("model"):
            fields["model"] = record["model"]
        for name in LABELS:
            if fields.get(name) not in (None, ""):
                found.setdefault(name, set()).add(_shown(name, fields[name]))
        if record.get("data") is not None:
            found.setdefault(f"data of {record.get('suite')}", set()).add(
                _shown("data", record["data"])
            )
    return found


def differences(
    ours: Mapping[str, set[str]], theirs: Mapping[str, set[str]], ignore: Iterable[str] = ()
) -> list[str]:
    """What differs between two identities, each as ``label (ours vs theirs)``; a field
    only one side states is not compared."""
    return [
        f"{LABELS.get(name, name)} ({_values(ours[name])} vs {_values(theirs[name])})"
        for name in sorted(set(ours) & set(theirs) - set(ignore), key=_rank)
        if ours[name] != theirs[name]
    ]


def first_difference(files: Iterable[tuple[str, list[dict[str, Any]]]]) -> str | None:
    """For results files to be merged: what the first file that differs from those before it
    differs in (one line), or None when they all agree."""
    stated: dict[str, tuple[set[str], str]] = {}  # field -> (values, the file that stated them)
    for name, records in files:
        ours = identity(records)
        clashes = [
            f"{LABELS.get(field, field)} ({_values(ours[field])} vs {_values(stated[field][0])}"
            f" in {stated[field][1]})"
            for field in sorted(ours, key=_rank)
            if field in stated and stated[field][0] != ours[field]
        ]
        if clashes:
            return f"{name} is not comparable with the files before it: " + "; ".join(clashes)
        for field, values in ours.items():
            stated.setdefault(field, (values, name))
    return None


def _rank(field: str) -> tuple[int, str]:
    """Fields in the order of LABELS, then the suites' data by name."""
    order = list(LABELS)
    return (order.index(field) if field in order else len(order), field)


def _shown(field: str, value: Any) -> str:
    if isinstance(value, Mapping):
        return " ".join(f"{k}={value[k]}" for k in sorted(value))
    text = str(value)
    parts = _VERSION_PARTS.get(field)
    return ".".join(text.split(".")[:parts]) if parts else text


def _values(values: set[str]) -> str:
    return " | ".join(sorted(values))


def _digest(value: Any) -> str:
    """A short hash of a text the identity must not spell out (a system prompt, templates)."""
    return "sha256:" + hashlib.sha256(json.dumps(value).encode()).hexdigest()[:12]


def unlike_resumed(
    results: Path | None, ours: dict[str, set[str]], resumed: list[dict[str, Any]]
) -> str | None:
    """The one line that refuses to continue the ``resumed`` records of ``results``, if they
    differ from ``ours``: one run's samples must all be graded alike."""
    unlike = differences(ours, identity(resumed)) if resumed else []
    if not unlike:
        return None
    return (
        f"--codegen-resume: {results} was graded under other settings than this run: "
        + "; ".join(unlike)
    )


def unlike_baseline(
    baseline: Path | None,
    ours: dict[str, set[str]],
    records: list[dict[str, Any]],
    suites: set[str] | None = None,
) -> str | None:
    """The one line that refuses the ``baseline`` file's ``records``, if they differ from
    ``ours`` or share none of this run's ``suites`` (None: not known yet). The model is what
    a baseline comparison compares, so it may differ; nothing else may."""
    unlike = differences(ours, identity(records), ignore=("model",))
    theirs = {str(record.get("suite")) for record in records}
    if suites and theirs and not suites & theirs:
        # No problem could be paired: said first, as the other differences follow from it.
        unlike.insert(0, f"suites ({_values(suites)} vs {_values(theirs)})")
    if not unlike:
        return None
    return f"--codegen-baseline: {baseline} is not comparable with this run: " + "; ".join(unlike)
