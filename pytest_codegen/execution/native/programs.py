"""How a program in each language is built and run, and what its run means, by MultiPL-E's
evaluators' rules (``evaluation/src/eval_<lang>.py``):

- C++: ``g++ FILE -o BIN -std=c++17``; a failed build is ``SyntaxError``; the run timing out
  ``Timeout``, exiting non-zero ``Exception``, else ``OK``.
- JavaScript: ``node FILE``; ``Timeout``; exit 0 ``OK``; else ``SyntaxError`` when its stderr
  says ``SyntaxError``, ``Exception`` otherwise (upstream also names ``AssertionError`` and
  ``ReferenceError``; both fail, and are ``Exception`` here).
- Go: ``go test FILE`` (a ``_test.go`` file): ``[setup failed]`` or ``[build failed]`` in
  its stdout is ``SyntaxError``, ``FAIL`` in it ``Exception``, else ``OK``.
- Rust: ``rustc FILE -o BIN``, then the binary, as C++.
- Java: ``javac -encoding UTF8 -d OUT Problem.java`` with javatuples on the class path, a
  failed build ``SyntaxError``; ``java -ea -cp OUT:JAR Problem`` as C++'s run.

Each step runs under the sample's deadline (upstream gives each step 15 s, Go's 30 s); JVMs
get heap and code-cache sizes that fit the sandbox's address-space limit.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from .toolchains import Toolchain

OK, SYNTAX_ERROR, EXCEPTION, TIMEOUT = "OK", "SyntaxError", "Exception", "Timeout"
OUTPUT_CAP = 2048  # bytes of each stream kept, as upstream's safe_subprocess keeps
JVM_FLAGS = ("-Xmx1g", "-Xss16m", "-XX:+UseSerialGC", "-XX:ReservedCodeCacheSize=64m")
JVM_FLAGS += ("-XX:CompressedClassSpaceSize=64m", "-XX:TieredStopAtLevel=1")


@dataclasses.dataclass(frozen=True)
class Build:
    """A sample's program as files and the steps that build and run it."""

    files: dict[str, str]
    steps: list[dict[str, Any]]
    compiled: bool  # a failed first step is a build failure (SyntaxError)


def source_name(language: str) -> str:
    return {
        "cpp": "main.cpp",
        "js": "main.js",
        "go": "main_test.go",
        "rs": "main.rs",
        "java": "Problem.java",
    }[language]


def build(
    tool: Toolchain, program: str, workdir: str, timeout_s: float, extra_jars: tuple[str, ...]
) -> Build:
    """The files and steps of ``program`` for ``tool``'s language, run in ``workdir``."""
    lang, tools = tool.language, tool.tools
    name = source_name(lang)
    env = {
        "PATH": os.pathsep.join(
            dict.fromkeys([os.path.dirname(p) for p in tools.values()] + ["/usr/bin", "/bin"])
        ),
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        **tool.env,
    }

    def step(*argv: str, **more: str) -> dict[str, Any]:
        return {"argv": list(argv), "env": {**env, **more}, "timeout_s": timeout_s}

    binary = os.path.join(workdir, "main")
    if lang == "cpp":
        steps = [step(tools["g++"], name, "-o", binary, "-std=c++17"), step(binary)]
    elif lang == "rs":
        steps = [step(tools["rustc"], name, "-o", binary), step(binary)]
    elif lang == "js":
        steps = [step(tools["node"], name)]
    elif lang == "go":
        steps = [
            step(
                tools["go"],
                "test",
                name,
                GOCACHE=os.path.join(workdir, ".gocache"),
                GOPATH=os.path.join(workdir, ".gopath"),
                GOTOOLCHAIN="local",
                GOPROXY="off",
                GOTELEMETRY="off",
                GOFLAGS="-buildvcs=false",
                CGO_ENABLED="0",
            )
        ]
    elif lang == "java":
        out = os.path.join(workdir, "classes")
        path = os.pathsep.join((out, *extra_jars))
        javac = [tools["javac"], *(f"-J{flag}" for flag in JVM_FLAGS)]
        steps = [
            step(*javac, "-encoding", "UTF8", "-cp", path, "-d", out, name),
            step(tools["java"], *JVM_FLAGS, "-ea", "-cp", path, "Problem"),
        ]
    else:
        raise ValueError(f"no build for language {lang!r}")
    return Build({name: program}, steps, compiled=lang in ("cpp", "rs", "java"))


def status(language: str, made: Build, results: list[dict[str, Any]]) -> str:
    """MultiPL-E's status of a program from what its steps did (see the module's rules)."""
    last = results[-1]
    if made.compiled and len(results) == 1 and not last["timeout"] and last["exit_code"] != 0:
        return SYNTAX_ERROR
    if language == "go":
        if last["timeout"]:
            return TIMEOUT
        if "[setup failed]" in last["stdout"] or "[build failed]" in last["stdout"]:
            return SYNTAX_ERROR
        return EXCEPTION if "FAIL" in last["stdout"] else OK
    if last["timeout"]:
        return TIMEOUT
    if last["exit_code"] == 0 and len(results) == len(made.steps):
        return OK
    if language == "js" and "SyntaxError" in last["stderr"]:
        return SYNTAX_ERROR
    return EXCEPTION
