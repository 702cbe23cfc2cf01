"""A sample cannot read the user's project: the directory pytest runs in holds a ``.env`` with
an API key, an earlier run's results and JUnit files and the replay file, and hostile samples
read them by absolute path (as if they had guessed it) or list the directory. Run the ways
that put that directory on the grading process's ``sys.path`` (``python -m pytest``,
``PYTHONPATH=.``, a conftest.py in the rootdir) and plain ``pytest``, plain and with ``-n 2``,
as root (mount view, a uid per sample, Landlock) and as ``nobody`` (Landlock alone).

Samples may still import third-party packages (numpy) and the standard library.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import unprivileged
from conftest import XDIST_MODES, read_results

from pytest_codegen.execution.python import importable, landlock

SECRET = "sk-proj-codegen-test-0123456789"
# The user's files, each holding the secret (the replay file, which the run reads, does not).
PROJECT_FILES = {
    ".env": f"OPENAI_API_KEY={SECRET}\n",
    "junit.xml": f'<testsuites><testsuite name="{SECRET}"/></testsuites>\n',
    "earlier.jsonl": json.dumps({"nodeid": "x", "error": SECRET}) + "\n",
}
# A body of HumanEval/0 (has_close_elements) that raises what it read: the secret would be in
# the error of its record if the read succeeded.
READ_PY = """\
    with open({path!r}) as fh:
        raise RuntimeError("read: " + fh.read())
"""
LIST_PY = """\
    import os
    raise RuntimeError("listed: " + " ".join(sorted(os.listdir({path!r}))))
"""
CONTROLS = {
    "stdlib": "    import fractions, json\n"
    "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) "
    "for b in numbers[i + 1:])\n",
    "numpy": "    import numpy\n"
    "    xs = numpy.array(numbers)\n"
    "    gaps = numpy.abs(xs[:, None] - xs[None, :]) + numpy.eye(len(xs)) * 1e9\n"
    "    return bool((gaps < threshold).any())\n",
}
REFUSED = ("PermissionError", "FileNotFoundError")

PRIVILEGES = [
    pytest.param("root", id="root"),
    pytest.param(
        "nobody",
        id="nobody",
        marks=pytest.mark.skipif(
            unprivileged.available() is not None, reason=str(unprivileged.available())
        ),
    ),
]
# How pytest is run: (the command, PYTHONPATH, whether the rootdir has a conftest.py).
PYTEST = str(Path(sys.executable).with_name("pytest"))
WAYS = {
    "pytest": ((PYTEST,), None, False),
    "python_m_pytest": ((sys.executable, "-m", "pytest"), None, False),
    "pythonpath_dot": ((PYTEST,), ".", False),
    "rootdir_conftest": ((PYTEST,), None, True),
}


def _samples(project: Path) -> dict[str, str]:
    found = {name: READ_PY.format(path=str(project / name)) for name in PROJECT_FILES}
    found["replay.jsonl"] = READ_PY.format(path=str(project / "replay.jsonl"))
    found["listing"] = LIST_PY.format(path=str(project))
    return {**found, **CONTROLS}


def _grade(project: Path, way: str, privilege: str, xdist: list[str]) -> tuple[dict, str]:
    """Grade HumanEval/0 with one sample per probe, run ``way`` in ``project``: the records
    by probe, and the results file's text."""
    command, pythonpath, conftest = WAYS[way]
    for name, text in PROJECT_FILES.items():
        (project / name).write_text(text)
    if conftest:
        (project / "conftest.py").write_text("# the project's own conftest.py\n")
    samples = _samples(project)
    rows = [
        {"task_id": "HumanEval/0", "sample_index": i, "completion": body}
        for i, body in enumerate(samples.values())
    ]
    (project / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [
        "humaneval::HumanEval_0",
        "--codegen-model=replay:replay.jsonl",
        f"--codegen-samples={len(rows)}",
        "--codegen-results=r.jsonl",
        "-o",
        "cache_dir=.pytest_cache",
        *xdist,
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    if privilege == "nobody":
        for root, dirs, files in os.walk(project):
            for name in [*dirs, *files]:
                os.chown(os.path.join(root, name), unprivileged.NOBODY, unprivileged.NOBODY)
        proc = unprivileged.run_pytest(project, *args, timeout=900, pytest_command=command, env=env)
    else:
        env = {k: v for k, v in env.items() if not k.startswith(("PYTEST_", "COV_"))}
        proc = subprocess.run(
            [*command, "-p", "no:randomly", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    output = proc.stdout + proc.stderr
    results = project / "r.jsonl"
    assert results.exists(), output[-3000:]
    records = {r["nodeid"].rsplit("[s", 1)[1].rstrip("]"): r for r in read_results(results)}
    assert len(records) == len(samples), output[-3000:]
    return {probe: records[str(i)] for i, probe in enumerate(samples)}, results.read_text()


@pytest.mark.parametrize("privilege", PRIVILEGES)
@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("way", list(WAYS))
def test_a_sample_cannot_read_the_project_it_is_graded_in(way, xdist, privilege):
    project = unprivileged.workdir()
    project.chmod(0o755)  # as a project's directory is: any uid may read what is not hidden
    try:
        records, results = _grade(project, way, privilege, xdist)
    finally:
        shutil.rmtree(project, ignore_errors=True)
    assert SECRET not in results
    for probe in [*PROJECT_FILES, "replay.jsonl", "listing"]:
        record = records[probe]
        assert record["outcome"] in ("failed", "error"), (probe, record)
        assert any(word in record["error"] for word in REFUSED), (probe, record["error"])
        if landlock.abi():
            assert record["isolation"].endswith("+landlock"), record
    for control in CONTROLS:
        assert records[control]["outcome"] == "passed", (control, records[control]["error"])


def test_the_installation_is_readable_and_the_project_is_not(tmp_path, monkeypatch):
    """What the sandbox grants is the installation, not the directories on ``sys.path``; the
    plugin's own tree (an editable install) is granted in no part."""
    import site

    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    plugin = str(Path(importable.__file__).resolve().parents[2])
    read, listed = importable.readable(plugin)
    for path in site.getsitepackages():
        assert any(os.path.realpath(path).startswith(r) for r in read), (path, read)
    granted = [*read, *listed]
    assert not any(str(project).startswith(p) or p.startswith(str(project)) for p in granted)
    checkout = str(Path(plugin).parent)
    assert not any(p == checkout or p.startswith(plugin) for p in granted), granted
    assert str(project) in importable.user_dirs(read)
    assert "/" not in importable.user_dirs(read)


def test_of_an_editable_install_only_what_import_loads_is_readable(tmp_path):
    """A directory a ``.pth`` file adds (an editable install): its packages, modules and
    metadata, not the rest of the project it is in."""
    src = tmp_path / "proj"
    (src / "mylib").mkdir(parents=True)
    (src / "mylib" / "__init__.py").write_text("")
    (src / "helper.py").write_text("")
    (src / "mylib-1.0.dist-info").mkdir()
    for name in (".env", "results.jsonl", "junit.xml", "notes.txt"):
        (src / name).write_text(SECRET)
    (src / ".git").mkdir()
    site_dir = tmp_path / "site-packages"
    site_dir.mkdir()
    (site_dir / "__editable__.mylib.pth").write_text(f"# comment\n{src}\nimport os\n")
    assert list(importable.pth_entries([str(site_dir)])) == [str(src)]
    assert sorted(Path(p).name for p in importable.importable(str(src))) == [
        "helper.py",
        "mylib",
        "mylib-1.0.dist-info",
    ]
