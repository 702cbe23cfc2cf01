"""The documentation as the tests read it: its Markdown pages, their code blocks, the site
built from them, and the tables of a built page."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def pages() -> list[Path]:
    """Every Markdown page of the docs, and the README."""
    return sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts) + [README]


# A fenced block: its opening fence (3 or more backticks), info string, body.
_FENCE = re.compile(
    r"^(?P<fence>`{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)


def code_blocks(path: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line, body) of each fenced block of ``path`` in one of ``languages``."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        if match["info"].strip() in languages:
            found.append((text.count("\n", 0, match.start()) + 1, match["body"]))
    return found


def build_site(out: Path, docs: Path = DOCS) -> subprocess.CompletedProcess[str]:
    """``sphinx-build -W`` of ``docs`` into ``out``, as .ci/run builds docs/."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html"]
        + ["-d", str(out / ".doctrees"), str(docs), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )


class _Tables(HTMLParser):
    """The rows of every ``<table>`` whose class holds ``wanted``, as cell texts."""

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.rows: list[list[str]] = []
        self._depth = 0  # >0 inside a wanted table
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "table" and (self._depth or self.wanted in classes):
            self._depth += 1
        elif self._depth and tag == "tr":
            self.rows.append([])
        elif self._depth and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._depth:
            self._depth -= 1
        elif self._depth and tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_rows(html: Path, table_class: str) -> list[list[str]]:
    """The body rows of the tables of class ``table_class`` in a built page (header left out)."""
    parser = _Tables(table_class)
    parser.feed(html.read_text(encoding="utf-8"))
    return parser.rows[1:]
