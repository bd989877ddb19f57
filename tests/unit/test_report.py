"""The run report (``gauntlet run --json``, the ``report`` output): built from the plan and the effects' results."""

from __future__ import annotations

import json

from gauntlet.effects.base import EffectResult
from gauntlet.effects.models import Plan, SetCheck, WriteSummary
from gauntlet.effects.views import RunView
from gauntlet.models import InputProblem
from gauntlet.report import RunReport
from gauntlet.vocabulary import Decision

DECISION = Decision(action="fix_criticals", iteration=1, criticals=1, majors=0, minors=0)
VIEW = RunView(repository="octo/app", pr=3, head_sha="a" * 40, decision=DECISION)


def _plan(conclusion: str) -> Plan:
    check = SetCheck(head_sha="a" * 40, conclusion=conclusion, title="t", view=VIEW)  # type: ignore[arg-type]
    return Plan(decision=DECISION, effects=(check, WriteSummary(view=VIEW)))


def test_the_report_carries_each_effects_number_and_the_checks_verdict() -> None:
    results = [
        EffectResult(type="set_check", key="check:a", status="created", number=77, url="http://x/77"),
        EffectResult(type="write_summary", key="summary", status="created"),
    ]
    report = RunReport.of(_plan("failure"), results, api_calls=9)
    assert report.check_failed
    assert [(e.type, e.number) for e in report.effects] == [("set_check", 77), ("write_summary", None)]
    assert report.api_calls == 9 and report.decision == DECISION
    assert not RunReport.of(_plan("success"), results).check_failed


def test_the_json_has_the_contract_fields() -> None:
    problem = InputProblem(path="ci.log", level="error", message="ci.log: not UTF-8")
    data = json.loads(RunReport.of(_plan("success"), [], input_problems=(problem,)).model_dump_json())
    assert {"decision", "recovery", "health", "proposals", "effects", "api_calls"} <= set(data)
    assert data["decision"]["action"] == "fix_criticals"
    assert data["input_problems"] == [
        {"path": "ci.log", "level": "error", "message": "ci.log: not UTF-8", "misconfigured": False}
    ]
