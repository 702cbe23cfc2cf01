"""The worker side's records: what :class:`~pytest_codegen.runner.SampleRunner` says of each
sample it ran, in the one record contract (:mod:`~pytest_codegen.reporting.records`), with
what the record adds on this side: how the code was taken from the answer, the run's identity
(:mod:`~pytest_codegen.reporting.comparable`) and the cost of the sample's requests."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from . import outcomes
from .generation.cost import cost_usd, price_of
from .problems import Problem
from .reporting.records import make_record
from .settings import Settings

if TYPE_CHECKING:
    from .collect.items import SampleItem
    from .execution.executor import Executor
    from .models.base import Model
    from .reporting.records import SampleRecord


class SampleRecorder:
    """Builds the records of one process's samples; ``model`` gives the run's model once it
    is made (its own parameters count in the identity, its id in the price)."""

    def __init__(
        self,
        settings: Settings,
        executor: Executor,
        model_spec: str,
        model: Callable[[], Model | None],
    ) -> None:
        self.settings = settings
        self.executor = executor
        self.model_spec = model_spec
        self.model = model
        self._identity: dict[str, dict[str, Any]] = {}  # by kind name

    def model_label(self, item: SampleItem) -> str:
        """The model that wrote ``item``'s sample, as results name it: a conftest.py's own
        ``codegen_model`` by its ``spec`` (what names a model in results), else by its class;
        else ``--codegen-model``'s."""
        used = getattr(item, "funcargs", {}).get("codegen_model")
        if used is None or used is self.model():
            return self.model_spec
        return str(getattr(used, "spec", "") or f"conftest:{type(used).__name__}")

    def record(
        self,
        item: SampleItem,
        outcome: str,
        *,
        error: str = "",
        verdict: Any = None,
        duration_s: float = 0.0,
    ) -> SampleRecord:

        record = make_record(
            nodeid=item.nodeid,
            problem=item.problem,
            sample_index=item.sample_index,
            outcome=outcome,
            model=self.model_label(item),
            duration_s=duration_s,
            completion=item.completion,
            code=item.code,
            error=error,
            verdict=verdict,
            code_policy=(
                self.executor.code_policy(item.problem, item.completion.form)
                if verdict is not None and item.completion is not None
                else None
            ),
        )
        if verdict is not None:  # fields of the kind's own (EvalPlus: each set's outcome)
            kind = self.executor.kinds.of(item.problem)
            record.update(kind.record_fields(verdict))  # type: ignore[typeddict-item]
        # Where the suite rates its problems: what a comparison breaks its scores down by.
        facets = self.executor.kinds.of(item.problem).facets(item.problem)
        if facets.get("difficulty"):
            record["difficulty"] = facets["difficulty"]
        if facets.get("contest_date"):  # what breakdowns by release window read
            record["contest_date"] = facets["contest_date"]
        record["run"] = self.run_identity(item.problem)
        self.add_cost(record, [record])
        return record

    def for_unexpected(self, item: SampleItem, report: pytest.TestReport) -> SampleRecord:
        """The record of a sample whose grading ended in an error of its own (a plugin bug)."""
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:  # what was raised: "Failed: Timeout (>80.0s) from pytest-timeout."
            message = crash.message.strip().splitlines()[:1]
        else:
            message = str(report.longrepr or "").strip().splitlines()[-1:]
        return self.record(
            item, outcomes.CRASHED, error="grading did not complete: " + " ".join(message)
        )

    def run_identity(self, problem: Problem) -> dict[str, Any]:
        """The record's ``run``: what makes this run comparable with another (see
        :mod:`.reporting.comparable`), with the Node that graded a React sample and the
        toolchain that built and ran a program in another language."""
        kind = self.executor.kinds.of(problem)
        if kind.name not in self._identity:  # its sampling defaults may be its own
            from .reporting.comparable import run_identity

            self._identity[kind.name] = run_identity(
                self.settings, self.model(), kind.sampling_defaults
            )
        node = self.executor.node_version() if self.executor.grades_on_node(problem) else None
        tool = kind.toolchain(problem)
        more = {"node": node, "toolchain": tool}
        return {**self._identity[kind.name], **{k: v for k, v in more.items() if v}}

    def add_cost(self, record: SampleRecord, parts: list[Any]) -> None:
        """Add the cost of ``parts`` (the sample, or its repair rounds) to ``record``."""

        price = price_of(self.settings.prices, self.model_spec, getattr(self.model(), "spec", None))
        if price is None:
            return
        cost = sum(
            cost_usd(price, p.get("prompt_tokens"), p.get("completion_tokens")) for p in parts
        )
        record["cost_usd"] = round(record.get("cost_usd", 0.0) + cost, 8)
