"""The report page: the report's data rendered into one self-contained HTML file.

The page is ``page.html`` with ``page.css``, ``page.js`` and the data put into its slots, so
it can be mailed, attached to a CI run or opened from disk without network access. Each slot
is valid where it stands, so the three files can be linted as what they are: the CSS and JS
slots are comments (``/* __CSS__ */``, ``/* __JS__ */``) and the data slot is the JSON string
``"__DATA__"`` in a ``<script type="application/json">`` element. The blank line before the
CSS and JS slots in ``page.html`` is part of the page.

The data is embedded as JSON with ``<``, ``>`` and ``&`` escaped, so generated code containing
``</script>`` cannot end the element early.
"""

from __future__ import annotations

import html as _html
import json
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from ...output_paths import write_text_file
from .data import report_data, shown_text

_ASSETS = files(__package__)
_TEMPLATE = (_ASSETS / "page.html").read_text(encoding="utf-8")
_CSS = (_ASSETS / "page.css").read_text(encoding="utf-8")
_JS = (_ASSETS / "page.js").read_text(encoding="utf-8")

_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes (only ever inside JSON strings), so
    no ``</script>``, ``<!--`` or ``<script`` sequence can appear; the text is plain ASCII.
    """
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.translate(_JSON_ESCAPES)


def render_html(
    records: Sequence[Mapping[str, Any]],
    summary: Sequence[Mapping[str, Any]],
    meta: Mapping[str, Any],
) -> str:
    """The report page as a string; see :func:`write_html`."""
    data = report_data(records, summary, meta)
    model = shown_text(meta.get("model")) or "unknown model"
    title = f"pytest-codegen report · {model}"
    return (
        _TEMPLATE.replace("__TITLE__", _html.escape(title))
        .replace("/* __CSS__ */", _CSS)
        .replace("/* __JS__ */", _JS)
        .replace('"__DATA__"', embed_json(data))
    )


def write_html(
    path: Path,
    records: list[dict[str, Any]],
    summary: list[dict[str, Any]],
    meta: dict[str, Any],
) -> None:
    """Write the self-contained report for ``records`` to ``path``.

    ``records`` are per-sample result records, ``summary`` the rows of
    :func:`pytest_codegen.scoring.summarize` as JSON (``Row.to_json``), ``meta`` the run's
    ``model``, ``started``, ``duration_s``, ``k``, ``pytest_version`` and ``plugin_version``.
    """
    write_text_file(Path(path), render_html(records, summary, meta))
