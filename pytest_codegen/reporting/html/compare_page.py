"""The comparison page of ``--codegen-compare --codegen-html``: one self-contained HTML file,
as the run report is (``compare.html`` with ``compare.css``, ``compare.js`` and the data in
its slots, the data embedded by :func:`~.page.embed_json`): the leaderboard with interval
bars, the matrix of pairwise differences, and each pair's flips with the code of the two
runs side by side."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from ... import outcomes
from ...output_paths import write_text_file
from ..breakdowns import listed_interval
from ..comparison import Comparison, RunScores
from .data import MAX_CODE_CHARS, shown_text
from .page import embed_json

ASSETS = files(__package__)


def compare_data(comparison: Comparison) -> dict[str, Any]:
    """Everything the page shows, as one JSON-serialisable object."""
    c = comparison
    runs = {run.name: run for run in c.runs}
    return {
        "format": 1,
        "ks": c.ks,
        "k": c.k,
        "alpha": c.alpha,
        "problems": len(c.problems),
        "left_out": c.left_out,
        "clusters": c.clusters,
        "runs": [
            {
                "name": shown_text(run.name),
                "model": shown_text(run.model),
                "pass_at_k": {str(k): run.pass_at_k[k] for k in c.ks},
                "ci": {str(k): None if run.ci[k] is None else list(run.ci[k]) for k in c.ks},  # type: ignore[arg-type]
            }
            for run in c.runs
        ],
        "pairs": [
            {
                **_pair_fields(pair),
                "problems_needed": pair.problems_needed,
                "samples_needed": pair.samples_needed,
                "flips": [
                    {
                        "suite": shown_text(flip.suite),
                        "task_id": shown_text(flip.task_id),
                        "score_a": flip.score_a,
                        "score_b": flip.score_b,
                        "a": _shown_sample(
                            runs[pair.a], (flip.suite, flip.task_id), flip.score_a > flip.score_b
                        ),
                        "b": _shown_sample(
                            runs[pair.b], (flip.suite, flip.task_id), flip.score_b > flip.score_a
                        ),
                    }
                    for flip in pair.flips
                ],
            }
            for pair in c.pairs
        ],
        # the pairs at every other requested k, each k with its own Holm's correction
        "pairs_by_k": {
            str(k): [_pair_fields(pair) for pair in pairs]
            for k, pairs in c.by_k.items()
            if k != c.k
        },
        "breakdowns": [
            {
                "facet": shown_text(part.facet),
                "suite": shown_text(part.suite),
                "value": shown_text(part.value),
                "problems": part.problems,
                "scores": {
                    shown_text(name): {
                        str(k): None if score is None else [score[0], listed_interval(score[1])]
                        for k, score in by_k.items()
                    }
                    for name, by_k in part.scores.items()
                },
                "pairs": [
                    {**pair, "a": shown_text(pair["a"]), "b": shown_text(pair["b"])}
                    for pair in part.pairs
                ],
            }
            for part in c.breakdowns
        ],
    }


def _shown_sample(run: RunScores, key: tuple[str, str], solved: bool) -> dict[str, Any]:
    """The sample that shows the run's side of a flip: a passing one where it solves the
    problem, else one that did not pass."""
    samples: Sequence[Mapping[str, Any]] = sorted(
        run.samples.get(key, ()), key=lambda r: r.get("sample_index") or 0
    )
    wanted = [r for r in samples if (r["outcome"] == outcomes.PASSED) == solved] or samples
    if not wanted:
        return {}
    sample = wanted[0]
    return {
        "nodeid": shown_text(sample.get("nodeid")),
        "outcome": shown_text(sample.get("outcome")),
        "error": shown_text(sample.get("error"), MAX_CODE_CHARS),
        "code": shown_text(sample.get("code"), MAX_CODE_CHARS),
        "passed": sum(r["outcome"] == outcomes.PASSED for r in samples),
        "graded": sum(r["outcome"] in outcomes.GRADED for r in samples),
    }


def render_compare_html(comparison: Comparison) -> str:
    """The comparison page as a string."""
    title = f"pytest-codegen comparison · {len(comparison.runs)} runs"
    return (
        (ASSETS / "compare.html")
        .read_text(encoding="utf-8")
        .replace("__TITLE__", html.escape(title))
        .replace("/* __CSS__ */", (ASSETS / "compare.css").read_text(encoding="utf-8"))
        .replace("/* __JS__ */", (ASSETS / "compare.js").read_text(encoding="utf-8"))
        .replace('"__DATA__"', embed_json(compare_data(comparison)))
    )


def write_compare_html(path: Path, comparison: Comparison) -> None:
    """Write the comparison page to ``path``."""
    write_text_file(path, render_compare_html(comparison))


def _pair_fields(pair: Any) -> dict[str, Any]:
    """What the page shows of a pair at any k."""
    return {
        "a": shown_text(pair.a),
        "b": shown_text(pair.b),
        "diff": pair.diff,
        "ci": list(pair.ci),
        "p": pair.p,
        "p_holm": pair.p_holm,
        "test": pair.test,
        "significant": pair.significant,
        "mdd": pair.mdd,
    }
