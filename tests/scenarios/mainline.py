"""Main-branch histories as data: load a scenario file and replay it through the real engine.

A scenario (``tests/scenarios/main_branch/*.yaml``) is a first-parent history of
commits and the CI runs seen on it, each run replaying a real log from
``main_branch/logs/`` (see its PROVENANCE.md). Runs may carry an ``expect``:
the recovery action, the breakage's decision (``revert``/``shadow``/``off`` or
a refusal reason code), the culprit and the action effects planned. ``culprits``
names the commits that really broke the branch, for the bench.

Used by ``tests/scenarios/test_main_branch.py``, ``bench/reverts.py`` and the
sandbox end-to-end scenarios. (A ``History`` is replayed through the engine alone; the sandbox
scenarios' helper is :class:`scenario.Scenario`.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from gauntlet.classify import classify
from gauntlet.config import Config
from gauntlet.effects.models import CloseIssue, Effect, FileIssue, Plan
from gauntlet.engine.decide import decide, scope_of
from gauntlet.ingest import ingest_file
from gauntlet.known import KnownFailures, KnownRule
from gauntlet.models import CommitFact, Finding, Observation, RevertPRFact
from gauntlet.state.branch import Breakage
from gauntlet.state.models import State

SCENARIOS = Path(__file__).parent / "main_branch"
LOGS = SCENARIOS / "logs"
REPOSITORY = "octo/calc"
#: Effects every run plans (the report); the rest are actions.
REPORT_EFFECTS = {"set_check", "write_summary"}


def sha_of(ident: str) -> str:
    """A stable 40-hex SHA for a commit id in a scenario."""
    return hashlib.sha1(ident.encode()).hexdigest()


def when(value: Any) -> datetime:
    """YAML gives datetimes for unquoted timestamps and strings for quoted ones."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def findings_of(log: str | None) -> tuple[Finding, ...]:
    """The classified findings of a real log (no log: a green run with nothing to report)."""
    if log is None:
        return ()
    raw = list(ingest_file(LOGS / log, "log"))
    return tuple(classify(raw, Config(), on_default_branch=True))


@dataclass
class Step:
    """One run of a scenario: the observation, the time, and what is expected of it."""

    observation: Observation
    now: datetime
    expect: dict[str, Any]


@dataclass
class StepOutcome:
    """What the engine did for one step."""

    step: Step
    plan: Plan
    breakage: Breakage | None

    @property
    def actions(self) -> list[str]:
        """The action effects planned (revert PR, needs-human issue, rerun), in order; flaky-test issues aside."""
        return [e.type for e in self.plan.effects if e.type not in REPORT_EFFECTS and not _flaky_issue(e)]

    @property
    def flaky_issues(self) -> list[str]:
        """The flaky-test issue effects planned (``file_issue``/``close_issue`` of kind ``flaky``), in order."""
        return [e.type for e in self.plan.effects if _flaky_issue(e)]

    @property
    def reverted(self) -> list[str]:
        """The culprits of the revert PRs planned."""
        return [e.culprit for e in self.plan.effects if e.type == "open_revert_pr"]


@dataclass
class History:
    """A parsed scenario file."""

    name: str
    description: str
    #: The commits that really broke the branch (the bench's ground truth).
    culprits: list[str]
    config: Config
    steps: list[Step]
    ids: dict[str, str] = field(default_factory=dict)

    def replay(self, state: State | None = None) -> Iterator[StepOutcome]:
        """Run every step through :func:`gauntlet.engine.decide.decide`, carrying the state along."""
        for step in self.steps:
            if state is None:
                from gauntlet.state.branch import BranchRecord

                state = State(branch=BranchRecord(name=scope_of(step.observation).branch or "main"))
            state, plan = decide(state, step.observation, self.config, step.now, np.random.default_rng(0))
            assert state.branch is not None
            job = f"{step.observation.workflow}/{step.observation.job}"
            breakage = next((b for b in reversed(state.branch.breakages) if b.job == job), None)
            yield StepOutcome(step=step, plan=plan, breakage=breakage)

    def commit_id(self, sha: str | None) -> str | None:
        """The scenario's name for a SHA (the reverse of :func:`sha_of`)."""
        if sha is None:
            return None
        return next((ident for ident, full in self.ids.items() if full.startswith(sha)), sha)


def load(path: Path) -> History:
    """Parse a scenario file into observations, one per run."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    commits = _commits(data["commits"])
    ids = {c["id"]: sha_of(c["id"]) for c in data["commits"]}
    steps: list[Step] = []
    run_id = 1000
    for index, run in enumerate(data["runs"]):
        run_id = int(run.get("run_id", run_id + 1 if run.get("attempt", 1) == 1 else run_id))
        tip = run.get("tip", run["head"])
        visible = _history(commits, ids[tip])
        observation = Observation(
            repository=REPOSITORY,
            event="workflow_run",
            branch=data.get("branch", "main"),
            default_branch="main",
            head_sha=ids[run["head"]],
            run_id=str(run_id),
            run_attempt=str(run.get("attempt", 1)),
            workflow=run.get("workflow", "ci"),
            job=run.get("job", "test"),
            findings=findings_of(run.get("log")),
            commits=visible if run.get("history", True) else (),
            revert_prs=tuple(
                RevertPRFact(culprit=ids[p["culprit"]][:12], number=p["number"], state=p["state"])
                for p in run.get("revert_prs", [])
            ),
            # The open known-failure issues' rules the run read (docs/known-failures.md); absent: not read.
            known_failures=KnownFailures(rules=tuple(KnownRule(**rule) for rule in run["known"]))
            if "known" in run
            else None,
        )
        steps.append(Step(observation=observation, now=when(run["at"]), expect=run.get("expect", {}) | {"_i": index}))
    return History(
        name=path.stem,
        description=data["description"],
        culprits=list(data.get("culprits", [])),
        config=Config.model_validate(data.get("config", {})),
        steps=steps,
        ids=ids,
    )


def all_scenarios() -> list[Path]:
    """Every scenario file, sorted by name."""
    return sorted(SCENARIOS.glob("*.yaml"))


def _commits(rows: list[dict[str, Any]]) -> dict[str, CommitFact]:
    """Commit facts by SHA, built with the same constructor the GitHub edge uses."""
    facts: dict[str, CommitFact] = {}
    previous: str | None = None
    subjects: dict[str, str] = {}
    for row in rows:
        sha = sha_of(row["id"])
        subject = row.get("subject", row["id"])
        message = subject + ("\n\n" + row["body"] if row.get("body") else "")
        if row.get("reverts"):
            target = row["reverts"]
            message = f'Revert "{subjects[target]}"\n\nThis reverts commit {sha_of(target)}.'
        parents = tuple(p for p in (previous, *(sha_of(m) for m in row.get("merges", []))) if p)
        facts[sha] = CommitFact.of(
            sha=sha,
            message=message,
            author=row.get("author", "alice"),
            files=tuple(row.get("files", [])),
            parents=parents,
            at=when(row["at"]),
        )
        subjects[row["id"]] = facts[sha].subject
        previous = sha
    return facts


def _history(commits: dict[str, CommitFact], tip: str) -> tuple[CommitFact, ...]:
    """What the edge would report at a run: the branch's commits up to ``tip``, newest first."""
    ordered = list(commits.values())
    position = next(i for i, c in enumerate(ordered) if c.sha == tip)
    return tuple(reversed(ordered[: position + 1]))


def _flaky_issue(effect: Effect) -> bool:
    return isinstance(effect, FileIssue | CloseIssue) and effect.kind == "flaky"
