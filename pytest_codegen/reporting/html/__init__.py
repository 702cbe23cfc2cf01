"""A self-contained static HTML report of a run.

The report is one HTML file with everything inline (CSS, JavaScript and the data), so it can be
mailed, attached to a CI run or opened from disk without network access.

The page draws everything from that data: a header with totals, the pass@k table per suite and
category, pass@k by release window where problems carry a contest date, an SVG chart of pass@k over
k per suite, a stacked bar of outcomes per category, and a paginated problem list with sorting and
filtering. A problem's drill-down (its prompt, and each sample's code, outcome, test messages and
output) is only built when it is opened, so reports with tens of thousands of samples stay
responsive.

The view state lives in the URL fragment, so a link can point at a view or at one problem:
``report.html#problem=HumanEval/3&sample=2``, ``#show=failing&sort=rate-asc&q=sort``.
Keys: ``problem``, ``sample``, ``q``, ``suite``, ``category``, ``show`` (``all``, ``failing``,
``never``, ``perfect`` or ``o:<outcome>``), ``sort`` (``id``, ``rate-asc``, ``rate-desc``,
``time-desc``), ``page`` (1-based) and ``size``.

It can also be built from a results file after the fact::

    python -m pytest_codegen.reporting.html results.jsonl -o report.html

Modules: :mod:`.data` builds the report's data from per-sample records, :mod:`.page` renders it
into the page (``page.html``, ``page.css`` and ``page.js`` in this package) and writes it, and
:mod:`.cli` is the command line.
"""

from __future__ import annotations

from .cli import build_from_results, main
from .data import DEFAULT_KS, MAX_CODE_CHARS, MAX_OUTPUT_CHARS, report_data
from .page import embed_json, render_html, write_html

__all__ = [
    "DEFAULT_KS",
    "MAX_CODE_CHARS",
    "MAX_OUTPUT_CHARS",
    "build_from_results",
    "embed_json",
    "main",
    "render_html",
    "report_data",
    "write_html",
]
