"""Effect results fold back into state: the index, the comment id and accepted risks' issues."""

from __future__ import annotations

from datetime import UTC, datetime

from gauntlet.effects.base import EffectResult
from gauntlet.engine.results import record_results
from gauntlet.state.models import State
from gauntlet.state.pr import AcceptedRisk, PRRecord

NOW = datetime(2026, 11, 2, tzinfo=UTC)


def test_results_fill_the_index_comment_id_and_risk_issues() -> None:
    risk = AcceptedRisk(fingerprint="abc", by="maya", at=NOW)
    state = State(pr=PRRecord(number=4, accepted_risks=[risk]))
    results = [
        EffectResult(type="upsert_comment", key="pr-comment:4", status="created", number=77),
        EffectResult(type="file_issue", key="risk:abc", status="created", number=12),
        EffectResult(type="set_check", key="check:Gauntlet:x", status="created"),
    ]
    new = record_results(state, results)
    assert new.index.entries == {"risk:abc": 12}  # the comment belongs to the PR alone
    assert new.pr is not None and new.pr.effects == {"pr-comment:4": 77}
    assert new.pr is not None
    assert new.pr.comment_id == 77
    assert [r.issue for r in new.pr.accepted_risks] == [12]
    assert state.pr is not None and state.pr.accepted_risks[0].issue is None  # the input is not changed


def test_nothing_numbered_leaves_state_as_it_was() -> None:
    state = State(pr=PRRecord(number=4))
    assert record_results(state, [EffectResult(type="write_summary", key="summary", status="created")]) is state
