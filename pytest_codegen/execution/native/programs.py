"""How a program in each language is built and run, and what its run means, by MultiPL-E's
evaluators' rules (``evaluation/src/eval_<lang>.py``):

- C++: ``g++ FILE -o BIN -std=c++17``; a failed build is ``SyntaxError`` (a build that runs
  out of time too, as for Java and TypeScript: ``KILLED_BUILD_FAILS``); the run timing out
  ``Timeout``, exiting non-zero ``Exception``, else ``OK``.
- JavaScript: ``node FILE``; ``Timeout``; exit 0 ``OK``; else ``SyntaxError`` when its stderr
  says ``SyntaxError``, ``Exception`` otherwise (upstream also names ``AssertionError`` and
  ``ReferenceError``; both fail, and are ``Exception`` here).
- Go: ``go test FILE`` (a ``_test.go`` file): ``[setup failed]`` or ``[build failed]`` in
  its stdout is ``SyntaxError``, ``FAIL`` in it ``Exception``, else ``OK``. ``go test``'s
  own steps are run without it where that is what it would do (``gotest.go``).
- Rust: ``rustc FILE -o BIN``, then the binary, as C++ (std linked as a shared library),
  except that a build that runs out of time is ``Timeout``.
- Java: ``javac -encoding UTF8 -d OUT Problem.java`` with javatuples on the class path, a
  failed build ``SyntaxError``; ``java -ea -cp OUT:JAR Problem`` as C++'s run.
- TypeScript: ``tsc --target esnext FILE`` (a type error fails it too: ``SyntaxError``), then
  ``node FILE.js`` as JavaScript's run. ``tsc`` skips checking the default library where
  the program cannot change what that check finds (``tsc.js``).
- Perl: ``perl FILE``; ``Timeout``; exiting non-zero, or ``ERROR`` in its output,
  ``Exception``; else ``OK``.
- Ruby: ``ruby FILE``; ``Timeout``; exit 0 ``OK``; else ``Exception`` when it wrote nothing
  to stderr (a failed test/unit assertion reports on stdout), ``SyntaxError`` when it did.
- PHP: ``php FILE``; ``PHP Parse error`` in its stdout is ``SyntaxError``, exiting non-zero
  (a timeout too: upstream has no ``Timeout`` for PHP) ``Exception``, else ``OK``.
- Lua: ``lua FILE`` (Lua 5.3 with luaunit); ``Timeout``; exit 0 ``OK``; else ``Exception``.
- R: ``Rscript FILE``; ``Timeout``; exit 0 ``OK``; else ``SyntaxError`` when ``unexpected``
  is in its output, ``Exception`` otherwise (upstream's ``AssertionError``, nothing on
  stderr, fails alike).
- Racket: ``racket FILE``; anything on stderr (rackunit's failures; it exits 0) or exiting
  non-zero (a timeout too: upstream reads only the exit status) is ``SyntaxError`` when
  stderr says ``read-syntax``, ``Exception`` otherwise; else ``OK``.
- OCaml: ``ocaml FILE`` (the toplevel); ``Timeout``; exit 0 ``OK``; ``Assert_failure`` on
  stderr ``Exception`` (upstream's ``AssertionError``); else ``Syntax error`` on it
  ``SyntaxError``; else ``Exception``.
- Bash: ``bash FILE``; ``Timeout``; exit 0 ``OK``; ``syntax error`` on stderr
  ``SyntaxError``; else ``Exception``.

Each step has upstream's limit (``MULTIPL_E_STEP_S``, ``MULTIPL_E_RUN_S``) within the
sample's deadline; JVMs get heap and code-cache sizes that fit the sandbox's address-space
limit.
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Any

from .toolchains import Toolchain

OK, SYNTAX_ERROR, EXCEPTION, TIMEOUT = "OK", "SyntaxError", "Exception", "Timeout"
OUTPUT_CAP = 2048  # bytes of each stream kept, as upstream's safe_subprocess keeps
JVM_FLAGS = ("-Xmx1g", "-Xss16m", "-XX:+UseSerialGC", "-XX:ReservedCodeCacheSize=64m")
JVM_FLAGS += ("-XX:CompressedClassSpaceSize=64m", "-XX:TieredStopAtLevel=1")
# The same for javac's JVM (also what its class-data archive is recorded with: the two match).
JAVAC_JVM_FLAGS = tuple(f"-J{flag}" for flag in JVM_FLAGS)
# MultiPL-E's evaluators time each step on its own (``eval_<lang>.py``): safe_subprocess's
# 15 s a step, a plain ``subprocess.run(timeout=5)`` for the runs of JavaScript, Ruby, R and
# Rust's binary, and 30 s for Go's one step, ``go test``. A sample's limit is 30 s; another
# limit (``--codegen-timeout``) scales every step's alike.
MULTIPL_E_SAMPLE_S = 30.0
MULTIPL_E_STEP_S = 15.0
MULTIPL_E_RUN_S = {"js": 5.0, "rb": 5.0, "r": 5.0, "rs": 5.0, "go": 30.0}
# Where an evaluator reads a run's whole output (a plain ``subprocess.run``, not
# safe_subprocess's 2,048 bytes), the words its status looks for are looked for in the whole of
# each stream, which the supervisor does not return: a wrong Go answer that prints 8 MiB
# before its ``FAIL`` lines is still ``Exception``.
WHOLE_OUTPUT_MARKERS = {
    "go": {"stdout": ("[setup failed]", "[build failed]", "FAIL")},
    "js": {stream: ("ERR_ASSERTION", "SyntaxError") for stream in ("stdout", "stderr")},
    "r": {stream: ("unexpected",) for stream in ("stdout", "stderr")},
}


@dataclasses.dataclass(frozen=True)
class Build:
    """A sample's program as files and the steps that build and run it."""

    files: dict[str, str]
    steps: list[dict[str, Any]]
    compiled: bool  # a failed first step is a build failure (SyntaxError)


@dataclasses.dataclass(frozen=True)
class Libraries:
    """What a benchmark's programs use besides the standard library (see ``libraries.py``)."""

    jars: tuple[str, ...] = ()  # Java's class path
    rust_deps: str = ""  # the folder of the built crates ...
    rust_crates: tuple[tuple[str, str], ...] = ()  # ... and (crate, rlib) of each
    go_module: str = ""  # a module folder (go.mod, go.sum, mod/): its requirements
    go_cache: str = ""  # a warm build cache, read (not written) by every sample
    # What runs go test's steps without go test, and what it replays (libraries.go_test_driver).
    go_test_driver: str = ""
    go_test_recipe: str = ""
    node_modules: str = ""  # npm packages JavaScript programs require
    typescript: str = ""  # the typescript package (its compiler, ``lib/tsc.js``)
    typescript_driver: str = ""  # what runs that compiler (``libraries.typescript_driver``)
    # C++: a header of the includes its programs start with, precompiled beside it
    # (``libraries.cpp_prelude``), and those include lines.
    cpp_prelude: str = ""
    cpp_prelude_headers: tuple[str, ...] = ()
    javac_archive: str = ""  # the classes javac loads, archived (``libraries.javac_archive``)

    def trees(self) -> tuple[str, ...]:
        """What the sample must read of them."""
        trees = (*self.jars, self.rust_deps, self.go_module, self.go_cache, self.node_modules)
        trees += (os.path.dirname(self.go_test_driver),)
        trees += (self.typescript, os.path.dirname(self.typescript_driver))
        trees += (os.path.dirname(self.cpp_prelude), self.javac_archive)
        return tuple(t for t in trees if t)


NO_LIBRARIES = Libraries()
# HumanEval-X's file names and flags differ from MultiPL-E's where its evaluator's do.
SOURCE_NAMES = {
    "multipl-e": {"java": "Problem.java"},
    "humaneval-x": {"java": "Main.java"},
}
DEFAULT_NAMES = {"go": "main_test.go"}  # else main.<key>: main.cpp, main.rs, main.pl ...
CPP_STD = {"multipl-e": "-std=c++17", "humaneval-x": "-std=c++11"}


def source_name(language: str, benchmark: str = "multipl-e") -> str:
    return SOURCE_NAMES[benchmark].get(language) or DEFAULT_NAMES.get(language, f"main.{language}")


def build(
    tool: Toolchain,
    program: str,
    workdir: str,
    timeout_s: float,
    libs: Libraries | None = None,
    benchmark: str = "multipl-e",
) -> Build:
    """The files and steps of ``program`` for ``tool``'s language, run in ``workdir``, as
    ``benchmark``'s evaluator builds and runs it."""
    lang, tools = tool.language, tool.tools
    libs = libs or NO_LIBRARIES
    name = source_name(lang, benchmark)
    env = {
        "PATH": os.pathsep.join(
            dict.fromkeys([os.path.dirname(p) for p in tools.values()] + ["/usr/bin", "/bin"])
        ),
        "HOME": workdir,
        # Not the folder itself: Go ignores a go.mod in the temporary directory's root.
        "TMPDIR": os.path.join(workdir, ".tmp"),
        "LANG": "C.UTF-8",
        **tool.env,
    }
    if benchmark == "multipl-e":  # its evaluation image's zone, not the host's
        env["TZ"] = "Etc/UTC"

    def step(*argv: str, **more: str) -> dict[str, Any]:
        return {"argv": list(argv), "env": {**env, **more}, "timeout_s": timeout_s}

    files = {name: program, ".tmp/.keep": ""}
    binary = os.path.join(workdir, "main")
    humaneval_x = benchmark == "humaneval-x"
    if lang == "cpp":
        std = CPP_STD[benchmark]
        # HumanEval-X's problem 162 hashes with OpenSSL.
        ssl = ["-lcrypto", "-lssl"] if humaneval_x and "openssl/" in program else []
        prelude = []
        if libs.cpp_prelude and set(libs.cpp_prelude_headers) <= set(leading_includes(program)):
            # Headers it includes before any code of its own, parsed once per host: the
            # same declarations, in a tenth of the compile time.
            prelude = ["-include", libs.cpp_prelude]
        steps = [step(tools["g++"], std, *prelude, name, "-o", binary, *ssl), step(binary)]
    elif lang == "rs":
        # No debug info in the binary (the prebuilt crates carry much), and std linked as
        # the toolchain's shared library found by an absolute run path: the linker no longer
        # copies std into every binary. A third of the compile; the same compiler, code and
        # run (docs/languages.md).
        # The edition each benchmark's evaluator compiles with: HumanEval-X's Cargo.toml says
        # 2021; MultiPL-E's `rustc FILE -o BIN` takes rustc's default, 2015 (where
        # `x.try_into()` needs a `use` and `[1, 2].into_iter()` yields references).
        edition = ["--edition", "2021"] if humaneval_x else []
        rustc = [tools["rustc"], *edition, "-C", "strip=debuginfo", name, "-o", binary]
        if tool.shared_runtime:
            rpath = f"link-arg=-Wl,-rpath,{tool.shared_runtime}"
            rustc += ["-C", "prefer-dynamic", "-C", rpath]
        if libs.rust_deps:
            rustc += ["--test", "-L", f"dependency={libs.rust_deps}"]
            rustc += [f"--extern={crate}={rlib}" for crate, rlib in libs.rust_crates]
        steps = [step(*rustc), step(binary)]
    elif lang == "js":
        more = {"NODE_PATH": libs.node_modules} if libs.node_modules else {}
        steps = [step(tools["node"], name, **more)]
        if humaneval_x:  # its verdict decodes the run's output strictly (humaneval_x_passed)
            steps[0]["strict_utf8"] = True
    elif lang == "go":
        go_env = go_environment(workdir, libs)
        if libs.go_module:
            module = Path(libs.go_module)
            files["go.mod"] = (module / "go.mod").read_text()
            files["go.sum"] = (module / "go.sum").read_text()
        # HumanEval-X's evaluator passes its limit to `go test -timeout` too, but its own
        # deadline, which counts the build, always comes first: a test that does not end is
        # "timed out", not a failure. The flag is kept above this sample's deadline alike.
        limit = [f"-timeout={math.ceil(timeout_s) + 1}s"] if humaneval_x else []
        go_test = [tools["go"], "test"]
        if libs.go_test_driver:
            # go test's own compile, vet, link and run, without its package loading and
            # build-cache checks, where that is what go test would do (gotest.go).
            go_test = [libs.go_test_driver, libs.go_test_recipe, tools["go"]]
        steps = [step(*go_test, *limit, name, **go_env)]
    elif lang == "java":
        out = os.path.join(workdir, "classes")
        path = os.pathsep.join((out, *libs.jars))
        javac = [tools["javac"], *JAVAC_JVM_FLAGS]
        if libs.javac_archive:
            javac.append(f"-J-XX:SharedArchiveFile={libs.javac_archive}")
        # HumanEval-X runs `java -cp DIR Main`: its assert statements are not checked.
        main, asserts = ("Main", []) if humaneval_x else ("Problem", ["-ea"])
        steps = [
            step(*javac, "-encoding", "UTF8", "-cp", path, "-d", out, name),
            step(tools["java"], *JVM_FLAGS, *asserts, "-cp", path, main),
        ]
    elif lang == "ts":
        if not libs.typescript:
            raise ValueError("TypeScript programs need the typescript package (Libraries)")
        tsc = [os.path.join(libs.typescript, "lib", "tsc.js"), "--target", "esnext", name]
        if libs.typescript_driver:
            # tsc's command line, told not to check the default library again where the
            # program cannot change what that finds (most of tsc's time; docs/languages.md).
            tsc = [libs.typescript_driver, "compile", libs.typescript, name]
        steps = [
            step(tools["node"], *tsc),
            step(tools["node"], name[: -len(".ts")] + ".js"),
        ]
    elif lang in INTERPRETED:
        steps = [step(tools[INTERPRETED[lang]], name)]
    else:
        raise ValueError(f"no build for language {lang!r}")
    if benchmark == "multipl-e":
        scale = timeout_s / MULTIPL_E_SAMPLE_S
        *builds, run = steps
        for built in builds:
            built["timeout_s"] = MULTIPL_E_STEP_S * scale
        run["timeout_s"] = MULTIPL_E_RUN_S.get(lang, MULTIPL_E_STEP_S) * scale
        if lang in WHOLE_OUTPUT_MARKERS:
            run["markers"] = WHOLE_OUTPUT_MARKERS[lang]
    return Build(files, steps, compiled=lang in ("cpp", "rs", "java", "ts"))


def go_environment(workdir: str, libs: Libraries) -> dict[str, str]:
    """What ``go test`` runs with in ``workdir``: offline, its caches there, or the shared
    warm build cache and the module's requirements of ``libs``."""
    env = {
        "GOCACHE": os.path.join(workdir, ".gocache"),
        "GOPATH": os.path.join(workdir, ".gopath"),
        "GOTOOLCHAIN": "local",
        "GOPROXY": "off",
        "GOTELEMETRY": "off",
        "GOFLAGS": "-buildvcs=false",
        "CGO_ENABLED": "0",
    }
    if libs.go_cache:
        # The standard library and testify compiled once per host, shared: what the
        # sample compiles it cannot add (Go goes on without storing it), so no sample
        # reads another's results, and none pays for a copy of the cache.
        env["GOCACHE"] = libs.go_cache
    if libs.go_module:
        module = Path(libs.go_module)
        env.update(GOMODCACHE=str(module / "mod"), GOFLAGS="-mod=mod -buildvcs=false")
    return env


def leading_includes(program: str) -> tuple[str, ...]:
    """The ``#include`` lines a C++ program starts with, before any line that is not blank or
    a comment, in their order (spaces taken out: ``#include <vector>`` is
    ``#include<vector>``)."""
    found: dict[str, None] = {}
    in_comment = False
    for line in program.splitlines():
        text = line.strip()
        if in_comment:
            in_comment = "*/" not in text
            if not in_comment and text.split("*/", 1)[1].strip():
                break  # code after the comment's end
            continue
        if not text or text.startswith("//"):
            continue
        if text.startswith("/*"):
            rest = text[2:]
            in_comment = "*/" not in rest
            if not in_comment and rest.split("*/", 1)[1].strip():
                break
            continue
        if not text.startswith("#include"):
            break
        found.setdefault("".join(text.split()), None)
    return tuple(found)


# Languages whose program is one file given to one interpreter.
INTERPRETED = {
    "pl": "perl",
    "rb": "ruby",
    "php": "php",
    "lua": "lua5.3",
    "r": "Rscript",
    "rkt": "racket",
    "ml": "ocaml",
    "sh": "bash",
}


def wrote(result: dict[str, Any], stream: str) -> bool:
    """Whether a step wrote to ``stream`` at all: bytes that are not UTF-8 count, which the
    text kept of it leaves out."""
    written = result.get("bytes")
    return bool(written[stream]) if written else bool(result[stream])


def seen(result: dict[str, Any], word: str, *streams: str) -> bool:
    """Whether ``word`` is in any of ``streams`` of a step's ``result``: in the whole stream
    where the step looked for it (its ``markers``), else in the part kept."""
    found = result.get("found") or {}
    return any(word in found.get(s, ()) or word in result[s] for s in streams)


# Whose evaluator reads a compiler killed at its limit as a failed build: safe_subprocess
# gives it exit code -1, and only ``exit_code != 0`` is asked. Rust's evaluator catches the
# timeout (``Timeout``); Go's one step is ``go test`` (``Timeout``).
KILLED_BUILD_FAILS = ("cpp", "java", "ts")


def build_ran_out_of_time(made: Build, results: list[dict[str, Any]]) -> bool:
    """Whether the build step itself was stopped at its time limit."""
    return made.compiled and len(results) == 1 and bool(results[0]["timeout"])


def status(language: str, made: Build, results: list[dict[str, Any]]) -> str:
    """MultiPL-E's status of a program from what its steps did (see the module's rules)."""
    last = results[-1]
    if made.compiled and len(results) == 1 and last["exit_code"] != 0:
        if not last["timeout"] or language in KILLED_BUILD_FAILS:
            return SYNTAX_ERROR
    if language == "go":
        if last["timeout"]:
            return TIMEOUT
        if seen(last, "[setup failed]", "stdout") or seen(last, "[build failed]", "stdout"):
            return SYNTAX_ERROR
        return EXCEPTION if seen(last, "FAIL", "stdout") else OK
    if language == "php":
        if "PHP Parse error" in last["stdout"]:
            return SYNTAX_ERROR
        return OK if last["exit_code"] == 0 and not last["timeout"] else EXCEPTION
    if language == "rkt":
        if last["stderr"] or last["exit_code"] != 0 or last["timeout"]:
            return SYNTAX_ERROR if "read-syntax" in last["stderr"] else EXCEPTION
        return OK
    if last["timeout"]:
        return TIMEOUT
    ran = len(results) == len(made.steps)
    if language == "pl" and ran and last["exit_code"] == 0:
        # In either stream, not across their join.
        return EXCEPTION if seen(last, "ERROR", "stdout", "stderr") else OK
    if last["exit_code"] == 0 and ran:
        return OK
    # JavaScript's evaluator looks in both streams (``str(CompletedProcess)``), TypeScript's
    # in stderr; an assertion's failure is that, whatever its message says.
    streams = ("stdout", "stderr") if language == "js" else ("stderr",)
    if language in ("js", "ts") and not seen(last, "ERR_ASSERTION", *streams):
        if seen(last, "SyntaxError", *streams):
            return SYNTAX_ERROR
    if language == "rb" and wrote(last, "stderr"):  # upstream counts its bytes
        return SYNTAX_ERROR
    if language == "r" and seen(last, "unexpected", "stdout", "stderr"):
        return SYNTAX_ERROR
    # Upstream names an assertion's failure first: with it, "Syntax error" is not read.
    stderr = last["stderr"]
    if language == "ml" and "Syntax error" in stderr and "Assert_failure" not in stderr:
        return SYNTAX_ERROR
    if language == "sh" and "syntax error" in last["stderr"]:
        return SYNTAX_ERROR
    return EXCEPTION
