"""Acceptance on a real WebApp1K problem: blogging/addComment with the paper's Table 3 answer.

The test file is WebApp1K's own (MIT), read at test time from a checkout: ``$WEBAPP1K_DIR`` or
a reference copy in ``shared/reference/webapp1k`` next to the project. Without one the test is
skipped; the project's own React suite and fixtures cover the same attacks everywhere.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest
from conftest import ROOT, read_results, write_replay

PROBLEM = Path("tests/react/blogging/addComment.test.js")


def _webapp1k() -> Path | None:
    for candidate in (
        os.environ.get("WEBAPP1K_DIR"),
        ROOT.parent / "shared" / "reference" / "webapp1k",
    ):
        if candidate and (Path(candidate) / PROBLEM).is_file():
            return Path(candidate)
    return None


WEBAPP1K = _webapp1k()
pytestmark = pytest.mark.skipif(WEBAPP1K is None, reason="no WebApp1K checkout (set WEBAPP1K_DIR)")

# WebApp1K paper, Table 3: the code GPT-4o generated for this problem, verbatim.
TABLE_3 = """\
import React, { useState } from 'react';

function App() {
  const [comment, setComment] = useState('');
  const [message, setMessage] = useState('');

  const handleSubmit = async (e) => {
    e.preventDefault();
    try {
      const response = await fetch('/api/comments', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ comment }),
      });

      if (response.ok) {
        setMessage('Comment added successfully');
      } else {
        throw new Error('Failed to add comment');
      }
    } catch (error) {
      setMessage('Failed to add comment');
    }
  };

  return (
    <div>
      <form onSubmit={handleSubmit}>
        <input
          type="text"
          value={comment}
          onChange={(e) => setComment(e.target.value)}
          placeholder="Add a comment"
        />
        <button type="submit">Submit</button>
      </form>
      {message && <p>{message}</p>}
    </div>
  );
}

export default App;
"""


def variants(exec_marker: Path) -> dict[str, str]:
    """The Table 3 answer, and the same answer broken or turned hostile."""
    body = "function App() {\n"
    return {
        "table3": TABLE_3,
        "syntax_error": TABLE_3.replace("  };\n\n  return (", "  \n\n  return (", 1),
        "render_loop": TABLE_3.replace(body, body + "  while (true) {}\n", 1),
        "process_exit": TABLE_3 + "\nprocess.exit(0);\n",
        "exec_sync": "import { execSync } from 'child_process';\n"
        f"execSync('touch {exec_marker}');\n" + TABLE_3,
        "alloc_2gb": TABLE_3.replace(
            body,
            body + "  const block = new ArrayBuffer(2 * 1024 * 1024 * 1024);\n"
            "  block.byteLength;\n",
            1,
        ),
    }


EXPECTED = {
    "table3": {"passed"},
    "syntax_error": {"error"},
    "render_loop": {"timeout"},
    "process_exit": {"failed", "error"},
    "exec_sync": {"error"},
    "alloc_2gb": {"error", "crashed"},
}


def test_addcomment_table3_passes_and_hostile_variants_get_their_outcomes(pytester):
    suite = pytester.path / "webapp1k" / "blogging"
    suite.mkdir(parents=True)
    shutil.copy(WEBAPP1K / PROBLEM, suite / PROBLEM.name)
    exec_marker = Path(tempfile.gettempdir()) / f"pcg-webapp1k-{uuid.uuid4().hex}"
    names = list(variants(exec_marker))
    write_replay(
        pytester.path / "samples.jsonl",
        [
            {"task_id": "blogging/addComment", "sample_index": i, "completion": code}
            for i, code in enumerate(variants(exec_marker).values())
        ],
    )
    before = {p.name for p in pytester.path.iterdir()}

    result = pytester.runpytest_subprocess(
        "webapp1k",
        "--codegen-model=replay:samples.jsonl",
        f"--codegen-samples={len(names)}",
        "--codegen-k=1",
        # Margin a loaded host cannot eat: a failed 2 GB allocation costs V8 several full
        # collections of Jest's heap first (~12 s measured at load 18 on 2 cores), and a 5 s
        # limit turned it into a timeout. Only render_loop runs into this limit (twice).
        "--codegen-timeout=30",
        "--codegen-results=r.jsonl",
        timeout=600,
    )

    records = {r["sample_index"]: r for r in read_results(pytester.path / "r.jsonl")}
    got = {names[i]: records[i]["outcome"] for i in records}
    assert all(got[name] in EXPECTED[name] for name in names), got
    assert [t["status"] for t in records[0]["tests"]] == ["passed", "passed"]
    assert "process.exit" in records[names.index("process_exit")]["error"]
    result.assert_outcomes(passed=1, failed=len(names) - 1)  # pytest finished every sample
    result.stdout.fnmatch_lines(["webapp1k *6 *1 *0.167*"])
    assert not exec_marker.exists()  # the child process never ran
    # Nothing was left behind in the project: no sample directory, no file a sample wrote.
    new = {p.name for p in pytester.path.iterdir()} - before
    assert {n for n in new if not n.startswith("runpytest")} <= {
        "r.jsonl",
        ".pytest_cache",
        "stdout",
        "stderr",
    }
