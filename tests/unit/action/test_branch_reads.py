"""A default-branch run reads its history and revert PRs only when the loaded state says it needs them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gauntlet.action.branch_reads import branch_reads, known_reverts, needed
from gauntlet.config import Config, parse_config
from gauntlet.github.client import GitHubClient
from gauntlet.models import Finding, Observation
from gauntlet.observe.github_facts import Remote
from gauntlet.sandbox import Sandbox
from gauntlet.state.branch import BranchRecord, Breakage, RevertRecord, RunRecord
from gauntlet.state.models import State
from gauntlet.state.triage import TriageBook, WatchedIssue

NOW = datetime(2026, 11, 2, tzinfo=UTC)
HEAD, MIDDLE, GOOD, OLD = "d" * 40, "c" * 40, "b" * 40, "a" * 40
FAILED = Finding(fingerprint="t1", source="log", kind="test_failure", severity="critical", message="t1")


def observe(*findings: Finding, sha: str = HEAD) -> Observation:
    return Observation(
        event="workflow_run", branch="main", default_branch="main", head_sha=sha, findings=findings, job="test"
    )


def branch(**fields: Any) -> State:
    return State(branch=BranchRecord(name="main", last_good=GOOD, good={"/test": GOOD}, **fields))


def revert(culprit: str, status: Any = "open", number: int | None = 7) -> RevertRecord:
    return RevertRecord(culprit=culprit, breakage="b1", opened_at=NOW, status=status, number=number)


def test_a_green_run_with_nothing_open_reads_only_its_head() -> None:
    assert needed(branch(), observe(), Config()) == "head"
    lenient = parse_config("gauntlet:\n  fail_on: never\n")
    assert needed(branch(), observe(FAILED), lenient) == "head", "green by fail_on: nothing to recover"


def test_a_red_run_or_anything_open_reads_the_history() -> None:
    assert needed(branch(), observe(FAILED), Config()) == "history"
    breakage = Breakage(id="b1", job="/test", first_red=MIDDLE, opened_at=NOW, last_good=GOOD)
    assert needed(branch(breakages=[breakage]), observe(), Config()) == "history"
    assert needed(branch(reverts=[revert(MIDDLE)]), observe(), Config()) == "history"
    watched = WatchedIssue(kind="risk", ident="x", fingerprint="f", title="t", since=NOW, path="calc.py")
    assert needed(State(branch=branch().branch, triage=TriageBook(issues={"risk:x": watched})), observe(), Config())


def test_a_redelivered_run_and_a_pr_run_read_nothing_and_a_settled_revert_no_history() -> None:
    run = RunRecord(observation=observe(FAILED).id, head_sha=HEAD, at=NOW, green=False, job="/test")
    assert needed(branch(runs=[run]), observe(FAILED), Config()) == "none"
    pr_run = observe(FAILED).model_copy(update={"pr": 4, "branch": "feature"})
    assert needed(branch(), pr_run, Config()) == "none"
    assert needed(branch(reverts=[revert(MIDDLE, status="merged")]), observe(), Config()) == "head"


def test_the_known_reverts_are_the_open_ones_by_their_number_or_the_index() -> None:
    record = BranchRecord(
        name="main",
        reverts=[
            revert(MIDDLE),
            revert(GOOD, number=None),
            revert(OLD, status="closed_unmerged"),
            revert("e" * 40).model_copy(update={"withdrawn": True}),
        ],
    )
    index = {f"revert:{GOOD[:12]}": 8, f"revert:{HEAD[:12]}": 9, "risk:x": 3}
    assert known_reverts(record, index) == {MIDDLE: 7, GOOD: 8, HEAD[:12]: 9}


def test_the_history_stops_at_last_good_and_a_retry_reads_nothing_again() -> None:
    with Sandbox.start() as sandbox:
        sandbox.create_repo("o/r", {"README.md": "0\n"})
        line = [sandbox.commit("o/r", {"README.md": f"{n}\n"}, f"Change {n}") for n in range(1, 4)]
        good, head = line[0], line[-1]
        state = State(branch=BranchRecord(name="main", last_good=good, good={"/test": good}))
        client = GitHubClient("bot", sandbox.url, throttle=False)
        enrich = branch_reads(Remote(client=client, repository="o/r", bot_login="bot"), Config())
        sandbox.clear_requests()
        seen = enrich(state, observe(FAILED, sha=head))
        assert [c.sha for c in seen.commits] == [head, line[1], good]
        assert seen.commits[-1].tree and seen.revert_prs == ()
        enrich(state, observe(FAILED, sha=head))  # the commit retry runs the engine again
        assert [r["path"].rsplit("/", 1)[1] for r in sandbox.requests()] == [head, line[1], good]
