"""Scoring stage: the unbiased pass@k estimator of Chen et al. (2021), per suite and category.

Scores are computed from per-sample records only (never from collected items), so the numbers
are the same whether one process ran every sample or pytest-xdist spread them over workers.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import outcomes
from .intervals import clusters_of, mean_interval


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Probability that at least one of ``k`` samples drawn from ``n`` (``c`` correct) passes.

    ``1 - C(n-c, k) / C(n, k)``, computed as a product so large ``n`` does not overflow.
    Returns ``None`` when ``k > n``: the estimate is undefined there, and reporting 1.0
    (as naive implementations do) would flatter the model.
    """
    if k <= 0 or n < k or n <= 0:
        return None
    if n - c < k:
        return 1.0
    prob_all_fail = 1.0
    for i in range(n - c + 1, n + 1):
        prob_all_fail *= 1.0 - k / i
    return 1.0 - prob_all_fail


@dataclasses.dataclass
class Row:
    """One line of the summary: a whole suite (``category is None``) or one category in it."""

    suite: str
    category: str | None
    problems: int = 0
    samples: int = 0
    counts: Counter[str] = dataclasses.field(default_factory=Counter)
    pass_at_k: dict[int, float | None] = dataclasses.field(default_factory=dict)
    # each pass@k's 95% interval over problems (None where pass@k is n/a)
    ci: dict[int, tuple[float, float] | None] = dataclasses.field(default_factory=dict)
    clusters: int = 0  # categories the interval is clustered by (0: problems independent)
    base_of: str | None = None  # a "(base tests)" row: the HumanEval+/MBPP+ suite it scores

    def to_json(self) -> dict[str, Any]:
        data = {
            "suite": self.suite,
            "category": self.category,
            "problems": self.problems,
            "samples": self.samples,
            "counts": {o: self.counts.get(o, 0) for o in outcomes.ALL},
            "pass_at_k": {str(k): v for k, v in self.pass_at_k.items()},
            "ci": {str(k): None if v is None else list(v) for k, v in self.ci.items()},
            "clusters": self.clusters,
        }
        if self.base_of is not None:
            data["base_of"] = self.base_of
        return data


def latest_samples(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """One record per sample, the last one seen (a results file appended to by a re-run may
    hold a sample twice): the one rule by which the summary, the HTML report and the gates
    count a problem's samples. Records without a sample index cannot be matched up: each is
    kept."""
    latest: dict[tuple[str, str, int], Mapping[str, Any]] = {}
    for i, rec in enumerate(records):
        index = rec.get("sample_index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = -1 - i
        latest[(str(rec.get("suite")), str(rec.get("task_id")), index)] = rec
    return list(latest.values())


def per_problem(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(suite, task_id) -> (n, c): graded samples and passed ones, by :func:`latest_samples`.

    Missing, API-error and quarantined samples are not graded; a problem with none graded has
    ``n == 0``.
    """
    counts: dict[tuple[str, str], list[int]] = {}
    for rec in latest_samples(records):
        nc = counts.setdefault((str(rec["suite"]), str(rec["task_id"])), [0, 0])
        if rec["outcome"] in outcomes.GRADED:
            nc[0] += 1
            nc[1] += rec["outcome"] == outcomes.PASSED
    return {key: (n, c) for key, (n, c) in counts.items()}


def summarize(records: Iterable[Mapping[str, Any]], ks: Sequence[int]) -> list[Row]:
    """Group per-sample records into suite and category rows with pass@k for each k.

    A problem contributes ``n`` = its graded samples (missing and API-error samples are not
    graded) and ``c`` = those that passed, counted by :func:`per_problem`. A row's pass@k is
    the mean over its problems; it is ``None`` (n/a) when some problem has fewer than k graded
    samples (but at least one). Its 95% interval is the standard error over those problems
    (:mod:`.intervals`), clustered by category in a suite's row when the suite has several.
    A HumanEval+/MBPP+ suite is followed by its base-only score (see :func:`_with_base_rows`).
    """
    samples = latest_samples(records)
    category_of: dict[tuple[str, str], str] = {}
    counts: dict[tuple[str, str | None], Counter[str]] = defaultdict(Counter)
    for rec in samples:
        key = (str(rec["suite"]), str(rec["task_id"]))
        category_of[key] = rec.get("category") or ""
        for group in ((key[0], None), (key[0], category_of[key])):
            counts[group][rec["outcome"]] += 1

    groups: dict[tuple[str, str | None], list[tuple[int, int]]] = defaultdict(list)
    categories: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    # Sorted by problem, so the sums (and the interval's last digits) follow no file order.
    for key, (n, c) in sorted(per_problem(samples).items()):
        for group in ((key[0], None), (key[0], category_of[key])):
            groups[group].append((n, c))
            categories[group].append(category_of[key])

    rows = []
    for suite, category in sorted(groups, key=lambda g: (g[0], g[1] is not None, g[1] or "")):
        members = groups[(suite, category)]
        row = Row(suite, category, problems=len(members), counts=counts[(suite, category)])
        row.samples = sum(row.counts.values())
        # A problem with no graded sample at all (all missing) has nothing to score; it shows in
        # the outcome counts. One with some, but fewer than k, makes pass@k undefined.
        graded = [(n, c) for n, c in members if n > 0]
        clusters = clusters_of(
            [
                cat
                for (n, _), cat in zip(members, categories[(suite, category)], strict=True)
                if n > 0
            ]
        )
        row.clusters = len(set(clusters)) if clusters else 0
        for k in ks:
            scores = [pass_at_k(n, c, k) for n, c in graded] or [None]
            if any(s is None for s in scores):
                row.pass_at_k[k] = row.ci[k] = None
            else:
                row.pass_at_k[k] = sum(scores) / len(scores)  # type: ignore[arg-type]
                row.ci[k] = mean_interval(scores, clusters)  # type: ignore[arg-type]
        rows.append(row)
    return _with_base_rows(rows, samples, ks)


# HumanEval+/MBPP+ suites also get EvalPlus's base-only score, as a suite of this name.
BASE_TESTS = "{suite} (base tests)"


def _with_base_rows(
    rows: list[Row], samples: list[Mapping[str, Any]], ks: Sequence[int]
) -> list[Row]:
    """``rows`` with, after the rows of each suite whose samples have a ``base_outcome``
    (HumanEval+/MBPP+), a whole-suite row of its score on the base inputs alone: what
    EvalPlus reports as "(base tests)" next to its "+ (base + extra tests)" score."""
    suites = {str(rec["suite"]) for rec in samples if "base_outcome" in rec}
    if not suites:
        return rows
    as_base = [
        {
            **{k: v for k, v in rec.items() if k not in ("base_outcome", "plus_outcome")},
            "suite": BASE_TESTS.format(suite=rec["suite"]),
            "category": "",
            "outcome": rec.get("base_outcome", rec["outcome"]),
        }
        for rec in samples
        if str(rec["suite"]) in suites
    ]
    base_rows = {row.suite: row for row in summarize(as_base, ks) if row.category is None}
    merged: list[Row] = []
    for i, row in enumerate(rows):
        merged.append(row)
        last_of_suite = i + 1 == len(rows) or rows[i + 1].suite != row.suite
        if last_of_suite and row.suite in suites:
            base = base_rows[BASE_TESTS.format(suite=row.suite)]
            merged.append(dataclasses.replace(base, base_of=row.suite))
    return merged


def repair_curve(records: Iterable[Mapping[str, Any]], rounds: int) -> dict[str, list[float]]:
    """pass@1 of each suite after 0, 1, ... ``rounds`` error-debugging rounds.

    A graded sample counts as passed after round r if its first answer or one of its first r
    repairs passed; a sample whose repairs stopped early (the model had no answer) keeps its
    last state. As for pass@k, a suite's value is the mean over its problems.
    """
    per_problem: dict[tuple[str, str], list[list[bool]]] = defaultdict(list)
    for rec in latest_samples(records):
        if rec["outcome"] not in outcomes.GRADED:
            continue
        passed = rec["outcome"] == outcomes.PASSED
        curve = [passed]
        repairs = {r.get("round"): r.get("outcome") for r in rec.get("repairs") or ()}
        for r in range(1, rounds + 1):
            passed = passed or repairs.get(r) == outcomes.PASSED
            curve.append(passed)
        per_problem[(rec["suite"], rec["task_id"])].append(curve)
    suites: dict[str, list[list[float]]] = defaultdict(list)
    for (suite, _), curves in per_problem.items():
        suites[suite].append([sum(c[r] for c in curves) / len(curves) for r in range(rounds + 1)])
    return {
        suite: [sum(p[r] for p in problems) / len(problems) for r in range(rounds + 1)]
        for suite, problems in sorted(suites.items())
    }
