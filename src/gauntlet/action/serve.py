"""The handlers :mod:`gauntlet.action.routing` routes to: one gauntlet iteration, a closed PR, a comment, a scan.

Each loads state, lets the pure engine decide, applies the plan and commits
with compare-and-swap retries (:func:`gauntlet.pipeline.commit_with_retry`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from gauntlet.action.clock import Clock
from gauntlet.action.downloads import download_artifacts, download_failed_logs
from gauntlet.action.inputs import ActionSettings
from gauntlet.config import Config
from gauntlet.effects.base import Backend
from gauntlet.engine.verdicts import HealthVerdict, RecoveryVerdict
from gauntlet.errors import InputError
from gauntlet.github.client import GitHubClient
from gauntlet.github.hub import Hub
from gauntlet.github.reverts import revert_pr_facts
from gauntlet.models import CommitFact, Observation
from gauntlet.observe.payload import event_facts
from gauntlet.pipeline import commit_with_retry, observe, run, run_scan
from gauntlet.report import RunReport
from gauntlet.state.base import keep_last
from gauntlet.state.events import Event
from gauntlet.state.models import Scope
from gauntlet.state.pr import PRRecord
from gauntlet.state.store import StateStore

__all__ = [
    "ATTEMPTS_KEPT_WHEN_CLOSED",
    "HISTORY",
    "EventContext",
    "close_pr",
    "compact_pr",
    "iterate",
    "observe_iteration",
    "scan",
]

#: Default-branch commits read for culprit search, newest first (one call each).
HISTORY = 10

#: A closed PR keeps its latest iteration and this many attempts (the iteration counter stays).
ATTEMPTS_KEPT_WHEN_CLOSED = 3


@dataclass(frozen=True)
class EventContext:
    """What every event handler works with."""

    settings: ActionSettings
    config: Config
    client: GitHubClient | None
    clock: Clock
    store: StateStore
    payload: bytes = b"{}"

    @property
    def repository(self) -> str:
        """``owner/name`` of the repository the run serves."""
        if self.settings.run.repository is None:
            raise InputError("GITHUB_REPOSITORY is not set")
        return self.settings.run.repository


def _seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _facts(context: EventContext) -> dict[str, object]:
    event = context.settings.run.event_name or "pull_request"
    return event_facts(event, context.payload, str(context.settings.run.event_path or "event payload"))


def observe_iteration(context: EventContext, downloads: Path) -> Observation:
    """The observation of a CI result: input files, downloaded logs and artifacts, and the PR it belongs to.

    :param downloads: an empty folder for what is downloaded.
    :raises InputError: an input file or the payload is unusable.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    settings = context.settings
    run_settings = settings.run
    facts = _facts(context)
    raw_run = str(facts.get("run_id") or run_settings.run_id or "0")
    run_id = int(raw_run) if raw_run.isdigit() else 0  # the payload is untrusted
    client = context.client
    if client is not None and run_id and (settings.download_logs or settings.download_artifacts):
        logs = downloads / "logs"
        found = downloads / "artifacts"
        if settings.download_logs and download_failed_logs(client, context.repository, run_id, logs):
            run_settings = run_settings.model_copy(update={"logs": (*run_settings.logs, f"{logs}/*.log")})
        chosen = settings.download_artifacts
        if chosen and download_artifacts(client, context.repository, run_id, chosen, found):
            run_settings = run_settings.model_copy(update={"findings": (*run_settings.findings, f"{found}/**/*")})
    observation = observe(run_settings, context.config)
    if observation.pr is None and run_settings.event_name == "workflow_run" and client is not None:
        pr = _pull_of(client, context.repository, observation.head_sha)
        if pr is not None:
            observation = observation.model_copy(update={"pr": pr})
    if observation.on_default_branch and client is not None:
        observation = observation.model_copy(update=_branch_facts(context, client, observation.head_sha))
    elif observation.pr is not None and client is not None:
        observation = observation.model_copy(update={"changed_files": _head_files(context, client, observation)})
    return observation


def _head_files(context: EventContext, client: GitHubClient, observation: Observation) -> tuple[str, ...]:
    """The files the PR's head commit changed: what a fix consisted of, when this iteration fixes something."""
    commit = client.request("GET", f"/repos/{context.repository}/commits/{observation.head_sha}")
    return CommitFact.from_api(commit).files if isinstance(commit, dict) else ()


def _branch_facts(context: EventContext, client: GitHubClient, head: str) -> dict[str, object]:
    """What the revert safety needs on the default branch: first-parent history and Gauntlet's revert PRs."""

    commits: list[CommitFact] = []
    sha: str | None = head
    while sha is not None and len(commits) < HISTORY:
        commits.append(CommitFact.from_api(client.request("GET", f"/repos/{context.repository}/commits/{sha}")))
        sha = commits[-1].parents[0] if commits[-1].parents else None
    hub = Hub(
        client=client,
        repo=client.repo(context.repository),
        bot_login=context.settings.bot_login,
    )
    return {"commits": tuple(commits), "revert_prs": revert_pr_facts(hub)}


def _pull_of(client: GitHubClient, repository: str, sha: str) -> int | None:
    """The open PR whose head is ``sha`` (``commits/{sha}/pulls``): a fork's run carries no PR in its payload."""
    pulls = client.request("GET", f"/repos/{repository}/commits/{sha}/pulls", params={"per_page": 100})
    open_pulls = [p for p in pulls if p.get("state") == "open"]
    for pull in open_pulls:
        if (pull.get("head") or {}).get("sha") == sha:
            return int(pull["number"])
    return int(open_pulls[0]["number"]) if open_pulls else None


def iterate(context: EventContext, observation: Observation, backend: Backend, *, commit: bool) -> RunReport:
    """One gauntlet iteration through the pipeline (decide, apply, commit with retries)."""
    clock = context.clock
    return run(
        observation,
        context.config,
        context.store,
        backend,
        now=clock.now,
        commit=commit,
        sleep=clock.sleep,
        clock=clock.monotonic,
    )


def compact_pr(record: PRRecord) -> PRRecord:
    """A closed PR's record: marked closed, with its latest iteration and last few attempts only."""
    return record.model_copy(
        update={
            "closed": True,
            "iterations": record.iterations[-1:],
            "attempts": keep_last(record.attempts, ATTEMPTS_KEPT_WHEN_CLOSED),
        }
    )


def close_pr(context: EventContext) -> RunReport:
    """``pull_request`` ``closed``: compact the PR's record (nothing is posted)."""
    number = _facts(context).get("pr")
    if not isinstance(number, int):
        raise InputError("pull_request closed: the payload names no pull request")
    clock = context.clock

    def attempt() -> RunReport:
        snapshot = context.store.load(Scope(pr=number))
        record = snapshot.state.pr
        if record is not None and snapshot.stored.get(f"v1/prs/{number}.json") is not None and not record.closed:
            event = Event(at=clock.now, kind="pr_closed", key=f"pr:{number}")
            new = snapshot.state.model_copy(
                update={"pr": compact_pr(record), "events": [*snapshot.state.events, event]}
            )
            if not context.settings.run.dry_run:
                context.store.save(snapshot, new, f"gauntlet: compact closed PR #{number}")
        return RunReport(decision=None, recovery=RecoveryVerdict(), health=HealthVerdict())

    return commit_with_retry(
        attempt,
        sleep=clock.sleep,
        clock=clock.monotonic,
        seed=_seed(f"closed:{number}"),
    )


def scan(context: EventContext, backend: Backend) -> RunReport:
    """``schedule`` / ``workflow_dispatch``: the self-healing scan over the shared state and the default branch."""
    outcome, results = run_scan(
        context.config,
        context.store,
        backend,
        repository=context.repository,
        base=str(_facts(context).get("default_branch") or "main"),
        now=context.clock.now,
        commit=not context.settings.run.dry_run,
        sleep=context.clock.sleep,
        clock=context.clock.monotonic,
    )
    return RunReport.of(outcome.plan, results)
