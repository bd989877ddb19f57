"""Main-branch scenarios end to end on the sandbox: real commits, the real engine, the GitHub backend.

Each scenario file's commits are pushed to a sandbox repository; every run becomes an observation whose
commit facts come from the sandbox's ``GET commits/{sha}`` (:meth:`CommitFact.from_api`, as the edge
builds them) and whose revert PR facts come from ``revert_pr_facts`` (the edge's own reads, by number). The plan
is applied through PyGithub over HTTP. Then GitHub is checked: the revert PR or the needs-human issue
is there, once; delivering the last run again creates nothing.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import pytest
import yaml
from mainline import SCENARIOS, findings_of
from scenario import REPO, Scenario

from gauntlet.config import Config
from gauntlet.effects.models import CloseIssue, FileIssue, Plan
from gauntlet.engine.decide import decide
from gauntlet.errors import GitHubUnavailable
from gauntlet.models import CommitFact, Observation
from gauntlet.sandbox import JobSeed
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State

MARKER = "<!-- gauntlet:key="


class Replay:
    """One scenario file pushed to the sandbox and replayed run by run."""

    def __init__(self, world: Scenario, name: str) -> None:
        self.world = world
        self.data: dict[str, Any] = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8"))
        self.config = Config.model_validate(self.data.get("config", {}))
        self.order = [row["id"] for row in self.data["commits"]]
        self.shas: dict[str, str] = {}
        for row in self.data["commits"]:
            message = row.get("subject", row["id"]) + ("\n\n" + row["body"] if row.get("body") else "")
            files = {path: f"{path} as of {row['id']}\n" for path in row["files"]}
            self.shas[row["id"]] = world.sandbox.commit(REPO, files, message, author=row.get("author", "alice"))
        client = world.backend().hub.client
        self.facts = {
            ident: CommitFact.from_api(client.request("GET", f"/repos/{REPO}/commits/{sha}"))
            for ident, sha in self.shas.items()
        }
        self.start = max(f.at for f in self.facts.values())
        self.plans: list[Plan] = []
        self.run_ids: dict[str, int] = {}
        self.seeded: dict[int, int] = {}

    def run(self, index: int, *, later: timedelta = timedelta()) -> Plan:
        """Observe run ``index`` of the file, decide, apply on the sandbox, record the results.

        :param later: how much later than its place in the replay the run happens (quiet spells).
        """
        step = self.data["runs"][index]
        for pr in step.get("revert_prs", []):
            if pr["state"] == "closed_unmerged":
                self.close_revert_pr(pr["culprit"])
        tip = self.order.index(step.get("tip", step["head"]))
        if index not in self.seeded and (step.get("attempt", 1) == 1 or step["head"] not in self.run_ids):
            # A real workflow run, so a planned rerun of its failed jobs has something to rerun.
            job = JobSeed(name=step.get("job", "test"), conclusion="failure", log="")
            seeded = self.world.sandbox.seed_run(REPO, jobs=[job], head_branch="main", head_sha=self.shas[step["head"]])
            self.run_ids[step["head"]] = self.seeded[index] = seeded.id
        elif step.get("attempt", 1) > 1:
            # The rerun Gauntlet asked for has run and failed again: its attempt is complete, as on GitHub.
            name = step.get("job", "test")
            self.world.sandbox.finish_jobs(REPO, self.run_ids[step["head"]], {name: ("failure", "")})
        observation = Observation(
            repository=REPO,
            event="workflow_run",
            branch="main",
            default_branch="main",
            head_sha=self.shas[step["head"]],
            run_id=str(self.run_ids[step["head"]]),
            run_attempt=str(step.get("attempt", 1)),
            workflow="ci",
            job=step.get("job", "test"),
            findings=findings_of(step.get("log")),
            commits=tuple(self.facts[i] for i in reversed(self.order[: tip + 1])) if step.get("history", True) else (),
            revert_prs=self.world.revert_facts(),
        )
        state = self.world.state if self.world.state.branch is not None else State(branch=BranchRecord(name="main"))
        now = self.start + timedelta(minutes=10 * (index + 1)) + later
        state, plan = decide(state, observation, self.config, now, np.random.default_rng(index))
        before, self.world.state = self.world.state, state.model_copy(update={"events": []})
        try:
            self.world.apply(*plan.effects)
        except GitHubUnavailable:
            self.world.state = before  # the run died before its state commit: nothing it decided is kept
            raise
        return plan

    def replay(self) -> list[Plan]:
        """Every run in order; the expected action effects are checked on the way."""
        for index, step in enumerate(self.data["runs"]):
            plan = self.run(index)
            actions = [e.type for e in plan.effects if e.type not in ("set_check", "write_summary") and not flaky(e)]
            if "effects" in step.get("expect", {}):
                assert actions == step["expect"]["effects"], f"run {index + 1}: {plan.recovery.reason}"
            self.plans.append(plan)
        return self.plans

    def close_revert_pr(self, culprit: str) -> None:
        """A person closes Gauntlet's revert PR for ``culprit`` without merging it."""
        branch = f"gauntlet/revert-{self.shas[culprit][:12]}"
        for pull in self.world.repo.get_pulls(state="open"):
            if pull.head.ref == branch:
                pull.edit(state="closed")

    def issues(self) -> list[Any]:
        """Gauntlet's needs-human issues (not PRs), in any state."""
        found = self.world.repo.get_issues(state="all", labels=["needs-human"])
        return [i for i in found if i.pull_request is None and MARKER + "needs-human:" in (i.body or "")]

    def pulls(self) -> list[Any]:
        return list(self.world.repo.get_pulls(state="all"))

    def flaky_issues(self) -> list[Any]:
        """Gauntlet's flaky-test issues, in any state."""
        found = self.world.repo.get_issues(state="all", labels=["flaky"])
        return [i for i in found if i.pull_request is None and MARKER + "flaky:" in (i.body or "")]


def flaky(effect: Any) -> bool:
    """A flaky-test issue effect (checked on its own, apart from a scenario's expected actions)."""
    return isinstance(effect, FileIssue | CloseIssue) and effect.kind == "flaky"


def test_a_single_culprit_gets_a_revert_pr_once(world: Scenario) -> None:
    replay = Replay(world, "single-culprit")
    replay.replay()
    [pr] = replay.pulls()
    culprit = replay.shas["c1"]
    assert pr.title == 'Revert "Make add() faster"'
    assert pr.head.ref == f"gauntlet/revert-{culprit[:12]}"
    assert f"This reverts commit {culprit}." in pr.body
    assert replay.issues() == []
    replay.run(len(replay.data["runs"]) - 1)  # the same run delivered again
    assert len(replay.pulls()) == 1


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("conflicting-revert", "conflict"),
        ("noautorevert", "noautorevert"),
        ("two-suspects-ambiguous", "ambiguous"),
        ("auto-revert-off", "auto_revert is off"),
    ],
)
def test_a_refused_revert_files_one_needs_human_issue(world: Scenario, name: str, reason: str) -> None:
    replay = Replay(world, name)
    plans = replay.replay()
    [issue] = replay.issues()
    assert issue.state == "open"
    assert reason in issue.title or reason in issue.body
    assert replay.pulls() == []
    assert any(p.recovery.action == "escalate" for p in plans)
    replay.run(len(replay.data["runs"]) - 1)
    assert len(replay.issues()) == 1


def test_a_revert_pr_a_person_closed_is_never_recreated(world: Scenario) -> None:
    replay = Replay(world, "human-closed-revert-pr")
    replay.replay()
    [pr] = replay.pulls()
    assert pr.state == "closed" and not pr.merged
    [issue] = replay.issues()
    assert "already_reverted" in issue.title
    assert "without merging" in issue.body


def test_recovery_without_revert_closes_the_needs_human_issue(world: Scenario) -> None:
    replay = Replay(world, "recovery-without-revert")
    replay.replay()
    [issue] = replay.issues()
    assert issue.state == "closed"
    assert replay.pulls() == []


def test_runs_killed_by_faults_and_rerun_still_open_one_revert_pr(world: Scenario) -> None:
    replay = Replay(world, "single-culprit")
    for index in range(4):  # green, then red and two reruns: Gauntlet asks for another rerun each time
        replay.run(index)
    world.retries = 1
    world.sandbox.set_faults(0.3, seed=5, paths=(f"/repos/{REPO}/",), kinds=("500", "502", "503", "drop"))
    failed = 0
    for _ in range(40):
        try:
            replay.run(4)  # the confirming rerun, delivered again after every failure, as the pipeline retries it
        except GitHubUnavailable:
            failed += 1
            continue
        break
    world.sandbox.set_faults(0.0)
    assert failed >= 1, "the seed should make runs fail part-way"
    replay.run(4)
    [pr] = replay.pulls()
    assert pr.head.ref == f"gauntlet/revert-{replay.shas['c1'][:12]}"
    assert world.index(f"revert:{replay.shas['c1'][:12]}") == pr.number


def test_a_flaky_test_is_never_reverted_and_its_issue_lives_and_closes(world: Scenario) -> None:
    replay = Replay(world, "flaky-issue-lifecycle")
    runs = len(replay.data["runs"])
    for index in range(runs - 1):
        replay.run(index)
    assert replay.pulls() == [], "a flake never gets a revert PR"
    [issue] = replay.flaky_issues()
    assert issue.state == "open" and "test_lucky" in issue.title
    assert [label.name for label in issue.labels] == ["gauntlet", "flaky"]
    assert any("Flaked again" in c.body for c in issue.get_comments()), "the second flake is noted on it"
    replay.run(runs - 1, later=timedelta(days=15))  # two quiet weeks later, a green run
    [issue] = replay.flaky_issues()
    assert issue.state == "closed"
    assert any("No flake for 14 days" in c.body for c in issue.get_comments())


def test_a_revert_pr_whose_breakage_went_away_is_withdrawn(world: Scenario) -> None:
    replay = Replay(world, "withdraw-when-green-again")
    replay.replay()
    [pr] = replay.pulls()
    assert pr.state == "closed" and not pr.merged
    assert any("no longer needed" in c.body for c in pr.get_issue_comments())
    replay.run(len(replay.data["runs"]) - 1)  # delivered again: nothing reopened, nothing doubled
    [pr] = replay.pulls()
    assert pr.state == "closed" and len([c for c in pr.get_issue_comments() if "no longer needed" in c.body]) == 1


def test_a_flake_that_fails_its_rerun_on_a_readme_commit_is_not_reverted(world: Scenario) -> None:
    replay = Replay(world, "flaky-twice-readme-only")
    replay.replay()
    assert replay.pulls() == []
    [issue] = replay.issues()
    assert issue.state == "closed", "the rerun that passed closed the needs-human issue"
