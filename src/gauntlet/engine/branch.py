"""A run on a branch that is not a PR: record it, and move last-good forward when green (DESIGN §3)."""

from __future__ import annotations

from datetime import datetime

from gauntlet.config import Config
from gauntlet.effects.models import Plan, SetCheck, WriteSummary
from gauntlet.effects.views import RunView
from gauntlet.engine import recovery
from gauntlet.engine.loop import fails_check, gauntlet_action
from gauntlet.engine.triage import triage_branch_run
from gauntlet.engine.verdicts import Decision
from gauntlet.models import Observation
from gauntlet.state.base import keep_last
from gauntlet.state.branch import RunRecord
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.pr import FindingRecord

__all__ = ["MAX_RUNS_KEPT", "step_branch"]

MAX_RUNS_KEPT = 100


def step_branch(state: State, obs: Observation, config: Config, now: datetime) -> tuple[State, Plan]:
    """Record a branch run; a run with nothing at or above ``fail_on`` is green and becomes last-good."""
    state, triaged = triage_branch_run(state, obs, config, now)
    assert state.branch is not None
    branch = state.branch
    records = [FindingRecord.of(f) for f in obs.findings]
    counts = {s: sum(1 for f in records if f.severity == s) for s in ("critical", "major", "minor")}
    decision = Decision(
        action=gauntlet_action(counts["critical"], counts["major"], counts["minor"]),
        iteration=0,
        criticals=counts["critical"],
        majors=counts["major"],
        minors=counts["minor"],
    )
    green = not fails_check(decision, config.gauntlet.fail_on)
    events = list(state.events)
    if all(run.observation != obs.id for run in branch.runs):
        run = RunRecord(
            observation=obs.id,
            head_sha=obs.head_sha,
            at=now,
            green=green,
            failing=sorted(f.fingerprint for f in records if f.severity in ("critical", "major")),
        )
        branch = branch.model_copy(
            update={
                "runs": keep_last([*branch.runs, run], MAX_RUNS_KEPT),
                "last_good": obs.head_sha if green else branch.last_good,
            }
        )
        events.append(Event(at=now, kind="branch_run", key=f"branch:{branch.name}", data={"green": green}))
    verdict = recovery.assess(records, [], "default_branch" if obs.on_default_branch else "pr", config.recovery)
    view = RunView(
        repository=obs.repository,
        branch=branch.name,
        head_sha=obs.head_sha,
        decision=decision,
        fail_on=config.gauntlet.fail_on,
        new=tuple(records),
        recovery=verdict,
    )
    plan = Plan(
        decision=decision,
        recovery=verdict,
        effects=(
            SetCheck(
                head_sha=obs.head_sha,
                conclusion="success" if green else "failure",
                title="green" if green else "red",
                view=view,
            ),
            WriteSummary(view=view),
            *triaged,
        ),
    )
    return state.model_copy(update={"branch": branch, "events": events}), plan
