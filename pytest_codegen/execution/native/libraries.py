"""What programs need besides their toolchain, made once per host and reused by every
sample: the crates HumanEval-X's Rust tests use (rand, regex, md5, built once: a sample's
``rustc`` links the built ones), the npm package its JavaScript tests use (js-md5), the Go
modules its Go tests import (testify) with a warm build cache (the standard library and
testify compiled once; every sample reads it, none writes it) and what replays ``go test``'s
steps for a sample (``go_test_driver``), the javatuples jar MultiPL-E's
Java programs import, the TypeScript compiler its TypeScript programs are compiled with and
the default library's global names (``typescript_driver``), the headers C++ programs start
with, precompiled (``cpp_prelude``), and an archive of the classes ``javac`` loads
(``javac_archive``).

They live under ``<cache>/native-libraries/<host>/`` (readable by the samples' uids), made
by the trusted side under a lock, from the registries' ordinary clients (cargo, go, mvn, npm).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

from ...cachedir import default_cache_root
from ..host_cache import host_key
from . import go_recipe
from .programs import JAVAC_JVM_FLAGS, Libraries, go_environment
from .toolchains import ToolchainMissing, find, run_tool, search_path

# HumanEval-X's crates (its Cargo.toml) at the versions its Cargo.lock holds, and the crates
# they use pinned alike: every host, on any day, builds what upstream's lock builds (regex
# 1.7.1 knows no `(?<name>...)`, for one), where "1" would take the newest.
RUST_CRATES = {"rand": "=0.4.6", "regex": "=1.7.1", "md5": "=0.7.0"}
RUST_LOCKED = {
    "aho-corasick": "=0.7.20",
    "memchr": "=2.5.0",
    "regex-syntax": "=0.6.28",
    "libc": "=0.2.139",
    "rand_core": "=0.4.2",
    # rand 0.4.6's rand_core 0.3.1 (a shim of 0.4), under another name: one per crate name.
    "rand_core_03": '{ package = "rand_core", version = "=0.3.1" }',
}
GO_REQUIRES = {"github.com/stretchr/testify": "v1.8.0"}
JAVATUPLES = "org.javatuples:javatuples:1.2"
NPM_PACKAGES = ("js-md5@0.7.3",)  # HumanEval-X's JavaScript/162 requires it
# MultiPL-E installs the newest; pinned here so that runs compare. The last release whose
# compiler is JavaScript run by the machine's Node (7 is a native binary).
TYPESCRIPT = "5.9.3"
# Compiled once with the archive's classes recorded: what a benchmark's Java uses (generics,
# lambdas and streams, boxing, inner and nested classes, varargs, arrays, string methods).
JAVAC_WARM_UP = """import java.util.*;
import java.util.function.*;
import java.util.stream.*;

class Main {
    static class Pair<A extends Comparable<A>, B> {
        A a; B b;
        Pair(A a, B b) { this.a = a; this.b = b; }
    }
    interface Shape { double area(); }
    enum Kind { ONE, TWO }
    static int sum(int... xs) { int s = 0; for (int x : xs) s += x; return s; }
    public static List<Integer> f(List<Integer> xs, Map<String, Long> m) {
        Function<Integer, Integer> twice = x -> x * 2;
        Shape shape = () -> Math.PI;
        Optional<String> first = m.keySet().stream().sorted(Comparator.reverseOrder()).findFirst();
        switch (Kind.ONE) { case ONE: break; default: throw new IllegalStateException(); }
        String s = String.format("%d %s %.2f", sum(1, 2), first.orElse(""), shape.area());
        char[] cs = s.toCharArray();
        Arrays.sort(cs);
        StringBuilder b = new StringBuilder(new String(cs)).reverse();
        try { Integer.parseInt(b.toString()); } catch (NumberFormatException e) { b.append('x'); }
        Pair<String, Integer> p = new Pair<>(b.toString(), 1);
        return xs.stream().map(twice).filter(x -> x > p.b).collect(Collectors.toList());
    }
    public static void main(String[] args) {
        System.out.println(f(new ArrayList<>(Arrays.asList(1, 2, 3)), new HashMap<>()));
    }
}
"""


def library_root() -> Path:
    return default_cache_root() / "native-libraries" / host_key()


@contextlib.contextmanager
def _made_once(name: str) -> Iterator[tuple[Path, bool]]:
    """``(folder, ready)`` of library ``name``, under its lock: build it when not ready,
    then touch ``.ready``."""
    folder = library_root() / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o755)
        lock = open(folder.parent / f".{name}.lock", "w")
    except OSError as e:
        # A cache that cannot be written (read-only, or under a file) is the host's problem,
        # said in one line like a missing tool, not a traceback.
        raise ToolchainMissing(
            f"the {name} library cannot be kept in {library_root()}: {e.strerror or e}"
        ) from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder, (folder / ".ready").exists()


def _made_if_possible(name: str, make: Callable[[Path], None], product: str) -> Path | None:
    """The folder of library ``name`` once ``product`` is in it, made there by
    ``make(folder)`` if no process has yet; None where it cannot be made (its tool fails,
    or there is no cache to keep it in: read-only). What samples only go faster with: they
    then do without it, as before."""
    try:
        with _made_once(name) as (folder, ready):
            if not ready:
                with contextlib.suppress(ToolchainMissing):
                    make(folder)
                (folder / ".ready").touch()
    except (OSError, ToolchainMissing):
        return None
    return folder if (folder / product).exists() else None


def _toml_requirement(req: str) -> str:
    """A version requirement quoted; a table (a crate under another name) as it is."""
    return req if req.startswith("{") else f'"{req}"'


def cargo_manifest(package: str) -> str:
    """A ``Cargo.toml`` of package ``package`` (edition 2021, as HumanEval-X's) that
    depends on its crates, pinned as its lock pins them."""
    requirements = {**RUST_CRATES, **RUST_LOCKED}
    deps = "".join(f"{name} = {_toml_requirement(req)}\n" for name, req in requirements.items())
    return (
        f'[package]\nname = "{package}"\nversion = "0.1.0"\nedition = "2021"\n\n'
        f"[dependencies]\n{deps}"
    )


@functools.cache
def rust_crates() -> tuple[str, dict[str, str]]:
    """``(deps folder, {crate: rlib})`` of HumanEval-X's crates, built once (a folder of
    its own per set of versions)."""
    manifest = cargo_manifest("crates")
    key = hashlib.sha256(manifest.encode()).hexdigest()[:12]
    with _made_once(f"rust-{key}") as (folder, ready):
        if not ready:
            (folder / "Cargo.toml").write_text(manifest)
            (folder / "src").mkdir(exist_ok=True)
            (folder / "src" / "lib.rs").write_text("")
            cargo = shutil.which("cargo", path=search_path())
            if cargo is None:
                raise ToolchainMissing(
                    "Rust's crates need cargo (install the Debian package cargo)"
                )
            run_tool([cargo, "build", "--quiet"], folder, "HumanEval-X's Rust crates")
            (folder / ".ready").touch()
    deps = folder / "target" / "debug" / "deps"
    rlibs: dict[str, str] = {}
    for name in RUST_CRATES:
        found = sorted(deps.glob(f"lib{name}-*.rlib"), key=lambda p: p.stat().st_mtime)
        if not found:
            raise ToolchainMissing(f"the {name} crate was not built in {folder}")
        rlibs[name] = str(found[-1])
    return str(deps), rlibs


@functools.cache
def go_modules() -> tuple[str, str]:
    """``(module folder, build cache)``: a module that requires testify, its module cache
    beside it, and a build cache holding the standard library and testify compiled."""
    go = find("go").tools["go"]
    with _made_once("go") as (folder, ready):
        if not ready:
            # As samples build (programs.go_environment): the same flags, the same cache
            # keys; only this may download the modules.
            libs = Libraries(go_module=str(folder), go_cache=str(folder / "cache"))
            env = {k: v for k, v in go_environment(str(folder), libs).items() if k != "GOPROXY"}
            requires = "".join(f"\t{m} {v}\n" for m, v in GO_REQUIRES.items())
            (folder / "go.mod").write_text(
                f"module humanEval\n\ngo 1.18\n\nrequire (\n{requires})\n"
            )
            (folder / "warm_test.go").write_text(
                'package main\n\nimport (\n\t"testing"\n\t"github.com/stretchr/testify/assert"\n)'
                "\n\nfunc TestWarm(t *testing.T) { assert.New(t).Equal(1, 1) }\n"
            )
            run_tool([go, "mod", "tidy"], folder, "HumanEval-X's Go modules", **env)
            run_tool([go, "test", "warm_test.go"], folder, "HumanEval-X's Go modules", **env)
            for path in (folder / "cache", folder / "mod"):
                subprocess.run(["chmod", "-R", "a+rX", str(path)], check=False)
            (folder / ".ready").touch()
    return str(folder), str(folder / "cache")


GO_TEST_DRIVER = Path(__file__).with_name("gotest.go")


@functools.cache
def go_test_driver(humaneval_x: bool) -> tuple[str, str]:
    """``(driver, recipe)``: ``gotest.go`` built, and what ``go test`` ran for a probe file of
    HumanEval-X's kind (``package main`` in the module that requires testify) or MultiPL-E's
    (``package x_test``), recorded once per host and Go (``go_recipe``); ``("", "")`` where
    they cannot be made (samples then run ``go test`` itself)."""
    tool = find("go")
    go = tool.tools["go"]
    module, cache = go_modules()
    source = GO_TEST_DRIVER.read_text(encoding="utf-8")
    form = "humaneval-x" if humaneval_x else "multipl-e"
    # How the recipe is recorded counts too: a host where that failed tries again after it.
    recording = Path(go_recipe.__file__).read_text(encoding="utf-8")
    made_of = f"{tool.version}\n{cache}\n{form}\n{source}\n{recording}"
    key = hashlib.sha256(made_of.encode()).hexdigest()[:12]
    libs = Libraries(go_module=module if humaneval_x else "", go_cache=cache)

    def make(folder: Path) -> None:
        env = go_environment(str(folder), libs)
        src = folder / "src"
        src.mkdir(exist_ok=True)
        (src / "gotest.go").write_text(source, encoding="utf-8")
        (src / "go.mod").write_text("module gotest\n\ngo 1.18\n")
        built = {**env, "GOFLAGS": "-buildvcs=false", "GOPATH": str(folder / ".gopath")}
        run_tool(
            [go, "build", "-trimpath", "-o", str(folder / "gotest"), "."], src, "gotest", **built
        )
        probe = folder / "probe"
        probe.mkdir(exist_ok=True)
        for name in ("go.mod", "go.sum") if humaneval_x else ():
            shutil.copyfile(Path(module) / name, probe / name)
        recipe = go_recipe.record(go, probe, env, external=not humaneval_x)
        (folder / "recipe.json").write_text(json.dumps(recipe, indent=1))
        # The replay must pass the probe by itself: go test is not there to fall back on.
        argv = [str(folder / "gotest"), str(folder / "recipe.json"), "/nonexistent/go"]
        run_tool([*argv, go_recipe.PROBE_FILE], probe, "gotest's replay of the probe", **env)
        shutil.rmtree(folder / ".gopath", ignore_errors=True)
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=False)

    folder = _made_if_possible(f"go-test-{form}-{key}", make, "recipe.json")
    return (str(folder / "gotest"), str(folder / "recipe.json")) if folder else ("", "")


@functools.cache
def javatuples() -> str:
    """The javatuples jar MultiPL-E's Java programs import, from Maven Central."""
    with _made_once("java") as (folder, ready):
        jar = folder / "javatuples-1.2.jar"
        if not ready:
            mvn = shutil.which("mvn", path=search_path())
            if mvn is None:
                raise ToolchainMissing(
                    "Java's javatuples needs mvn (install the Debian package maven)"
                )
            # Copied out of the local repository by Maven itself: where that repository is
            # (the account's home as Java reads it, settings.xml) is not $HOME's to say.
            argv = [mvn, "-q", "dependency:copy", f"-Dartifact={JAVATUPLES}"]
            run_tool([*argv, f"-DoutputDirectory={folder}"], folder, "javatuples")
            os.chmod(jar, 0o644)
            (folder / ".ready").touch()
    return str(jar)


@functools.cache
def node_modules() -> str:
    """The ``node_modules`` folder of the npm packages HumanEval-X's JavaScript tests use."""
    with _made_once("node") as (folder, ready):
        if not ready:
            npm = shutil.which("npm", path=search_path())
            if npm is None:
                raise ToolchainMissing(
                    "JavaScript's js-md5 needs npm (install the Debian package npm)"
                )
            argv = [npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(folder)]
            run_tool([*argv, *NPM_PACKAGES], folder, "HumanEval-X's npm packages")
            subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=False)
            (folder / ".ready").touch()
    return str(folder / "node_modules")


@functools.cache
def typescript() -> tuple[str, str]:
    """``(package folder, version)`` of the TypeScript compiler, installed once with npm."""
    npm = find("ts").tools["npm"]
    with _made_once("typescript") as (folder, ready):
        if not ready:
            argv = [npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(folder)]
            run_tool([*argv, f"typescript@{TYPESCRIPT}"], folder, "TypeScript's compiler")
            subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=False)
            (folder / ".ready").touch()
    package = folder / "node_modules" / "typescript"
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    return str(package), str(version)


TSC_DRIVER = Path(__file__).with_name("tsc.js")


@functools.cache
def typescript_driver() -> str:
    """The path of ``tsc.js`` (MultiPL-E's ``tsc`` command, which skips checking the default
    library for a program that cannot change what that check finds) beside the library's
    global names, recorded once per host and TypeScript; "" where they cannot be recorded
    (programs are then compiled by ``tsc`` itself)."""
    package, version = typescript()
    driver = TSC_DRIVER.read_text(encoding="utf-8")
    key = hashlib.sha256(f"{package}\n{version}\n{driver}".encode()).hexdigest()[:12]

    def record(folder: Path) -> None:
        (folder / "tsc.js").write_text(driver, encoding="utf-8")
        argv = [find("ts").tools["node"], "tsc.js", "record", package]
        try:
            run_tool(argv, folder, "TypeScript's global names")
        finally:
            for made in folder.iterdir():
                os.chmod(made, 0o644)

    folder = _made_if_possible(f"typescript-driver-{key}", record, "globals.json")
    return str(folder / "tsc.js") if folder else ""


@functools.cache
def cpp_prelude(std: str, headers: tuple[str, ...]) -> str:
    """A header of ``headers`` (``#include<...>`` lines) precompiled for ``g++ std``: the
    path of ``prelude.h``, its ``prelude.h.gch`` beside it ("" when there are none, or they
    do not compile alone: programs are then compiled whole). Compiling a program that starts
    with these includes takes a fraction of the time with it (``programs.build``)."""
    if not headers:
        return ""
    gxx = find("cpp").tools["g++"]
    text = "".join(line + "\n" for line in headers)
    key = hashlib.sha256(f"{gxx}\n{std}\n{text}".encode()).hexdigest()[:12]

    def precompile(folder: Path) -> None:
        header = folder / "prelude.h"
        header.write_text(text)
        argv = [gxx, std, "-x", "c++-header", "prelude.h", "-o", "prelude.h.gch"]
        try:
            run_tool(argv, folder, "C++'s precompiled headers")
        finally:
            for made in (header, folder / "prelude.h.gch"):
                if made.exists():
                    os.chmod(made, 0o644)

    folder = _made_if_possible(f"cpp-prelude-{key}", precompile, "prelude.h.gch")
    return str(folder / "prelude.h") if folder else ""


@functools.cache
def javac_archive() -> str:
    """A class-data archive (AppCDS) of the classes ``javac`` loads, recorded by one compile
    with the samples' JVM flags: a sample's ``javac`` maps them instead of loading them, and
    takes about a third less time. What it compiles is unchanged. The path of the archive, or
    "" when it cannot be made (programs are then compiled without it, as before)."""
    javac = find("java").tools["javac"]
    real = os.path.realpath(javac)
    jvm = Path(real).parent.parent / "lib" / "server" / "libjvm.so"
    try:  # an archive holds for the very JVM that wrote it
        built = os.stat(jvm)
        stamp = f"{built.st_size}-{built.st_mtime_ns}"
    except OSError:
        return ""
    key = hashlib.sha256(f"{real}\n{stamp}\n{JAVAC_JVM_FLAGS}".encode()).hexdigest()[:12]

    def record(folder: Path) -> None:
        (folder / "Main.java").write_text(JAVAC_WARM_UP)
        part = folder / "javac.jsa.part"
        compile_ = [*JAVAC_JVM_FLAGS, "-d", str(folder / "classes"), "Main.java"]
        what = "javac's class-data archive"
        run_tool([javac, f"-J-XX:ArchiveClassesAtExit={part}", *compile_], folder, what)
        # A bad archive would crash every sample's javac: it must map and compile.
        check = [f"-J-XX:SharedArchiveFile={part}", "-J-Xshare:on"]
        run_tool([javac, *check, *compile_], folder, what)
        os.chmod(part, 0o644)
        os.replace(part, folder / "javac.jsa")  # whole, or not at all

    folder = _made_if_possible(f"javac-archive-{key}", record, "javac.jsa")
    return str(folder / "javac.jsa") if folder else ""
