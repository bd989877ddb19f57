"""One observation per delivered event, the same way on the command line and in the Action (DESIGN §2).

Theory of operation::

    Delivery (payload)  -> EventFacts            (observe/payload.py)
    input files + downloaded paths -> findings   (observe/files.py, then classify)
    GitHub's API (where the run may read it) -> GitHubFacts   (observe/github_facts.py)
    the PR's review threads and reviews -> review findings    (observe/reviews.py)
    ------------------------------------------------------------------------------
    Observation.from_event(event, run, findings=, github=, comment=)

Everything is read once, before the pipeline runs; nothing is patched in afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gauntlet.config import Config
from gauntlet.errors import InputError
from gauntlet.github.start import Reviews
from gauntlet.jobkey import joined
from gauntlet.models import REVIEW_EVENTS, Observation, Permission, RunIdentity, evolve
from gauntlet.observe.files import as_run_sees_them, expand, read_findings, read_test_ids
from gauntlet.observe.github_facts import Remote, github_facts
from gauntlet.observe.issue_comment import comment_fact, permission_of
from gauntlet.observe.owners import assignees_of, owners_of
from gauntlet.observe.payload import Delivery, event_facts
from gauntlet.observe.reviews import read_reviews
from gauntlet.observe.routing import Route
from gauntlet.settings import Settings

__all__ = ["DEFAULT_BOT_LOGIN", "Downloads", "observe"]

DEFAULT_BOT_LOGIN = "github-actions[bot]"


@dataclass(frozen=True)
class Downloads:
    """Files the Action downloaded for this run (failed jobs' logs, artifacts), passed as paths."""

    logs: Sequence[Path] = ()
    findings: Sequence[Path] = ()
    #: The names of the CI jobs whose logs were downloaded because they failed: the ones reports name.
    failed_jobs: Sequence[str] = ()
    #: On ``workflow_run``: every job of the CI run's latest attempt, by name. The run is keyed by them
    #: (:mod:`gauntlet.jobkey`), never by the job Gauntlet itself runs in.
    jobs: Sequence[str] | None = None


def _ci_job(event: str, settings: Settings, downloads: Downloads) -> str:
    """The CI job the run reports on: the CI run's jobs on ``workflow_run`` (``GITHUB_JOB`` is Gauntlet's own
    job there, never recorded), none for a review event (its run is Gauntlet's own, no CI run), else the
    runner's job, which Gauntlet is a step of."""
    if event in REVIEW_EVENTS:
        return ""
    if event != "workflow_run":
        return settings.job
    if downloads.jobs is None:
        return ""  # not read (no token, a run on files): compared with any job, as a run on files is
    if not downloads.jobs:
        raise InputError("the CI run of this workflow_run lists no jobs: there is nothing to judge")
    return joined(downloads.jobs)


def observe(
    route: Route,
    delivery: Delivery,
    settings: Settings,
    config: Config,
    *,
    downloads: Downloads = Downloads(),
    remote: Remote | None = None,
    bot_login: str = DEFAULT_BOT_LOGIN,
    reviews: Reviews | None = None,
) -> Observation:
    """The observation of one routed event.

    :param route: what the routing table made of the event.
    :param delivery: the decoded payload.
    :param settings: the run's options (input file globs, workspace, the runner's ``GITHUB_*``).
    :param downloads: files the Action downloaded, read after the input globs.
    :param remote: GitHub, when the run may read it (no token, or a run on files: ``None``).
    :param bot_login: Gauntlet's own login: its comments are never commands.
    :param reviews: the PR's review comments and reviews, when the run's start query read them.
    :raises InputError: no input file could be read, the payload is unusable, or an iteration has no head SHA.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    event = event_facts(delivery)
    run = RunIdentity(
        repository=settings.repository,
        sha=settings.sha,
        run_id=settings.run_id,
        run_attempt=settings.run_attempt,
        workflow="" if event.event in REVIEW_EVENTS else settings.workflow,
        job=_ci_job(event.event, settings, downloads),
    )
    if route == "comment":

        def permission(login: str) -> Permission:
            # Without GitHub (a dry run, no token) nobody has a permission above "none".
            return "none" if remote is None else permission_of(remote.client, remote.repository, login)

        comment = comment_fact(delivery.checked(), permission, bot_login)
        return Observation.from_event(event, run, comment=comment)
    if route == "close_pr":
        if event.pr is None:
            raise InputError("pull_request closed: the payload names no pull request")
        return Observation.from_event(event, run, closed=True)
    if route != "iteration":
        return Observation.from_event(event, run)
    head_sha = event.head_sha or settings.sha
    if not head_sha:
        raise InputError("no head SHA: pass --event-path with a pull_request or push event")
    confined = settings.inputs_in_workspace
    logs, unmatched_logs = expand("logs", settings.logs, settings.workspace, confined=confined)
    findings, unmatched_findings = expand("findings", settings.findings, settings.workspace, confined=confined)
    files = [*findings, *downloads.findings]
    found = read_findings([*logs, *downloads.logs], files, settings.workspace)
    found = evolve(found, problems=(*unmatched_logs, *unmatched_findings, *found.problems))
    tests = read_test_ids(files, settings.workspace)  # passing tests count in the outcome history
    github = None
    if remote is not None:
        github = github_facts(
            remote,
            event=event.event,
            head_sha=head_sha,
            pr=event.pr,
            branch=event.branch,
            default_branch=event.default_branch or "main",
            trigger=event.trigger,
        )
    # Classification depends on where the run is (a critical on the default branch is P0).
    where = Observation.from_event(event, run, github=github)
    threads = None
    if remote is not None and settings.review_comments and where.pr is not None:
        listed = reviews if where.pr == event.pr else None  # the start query read the payload's PR
        threads = read_reviews(remote, where.pr, pr_author=event.pr_author, config=config.reviews, listed=listed)
    if threads is not None:
        found = evolve(found, findings=(*found.findings, *threads))
    seen = as_run_sees_them(found, config, on_default_branch=where.on_default_branch)
    observation = Observation.from_event(
        event,
        run,
        findings=seen.findings,
        github=github,
        input_problems=seen.problems,
        reviews_read=threads is not None,
    )
    owners = owners_of(settings.workspace, observation.findings, observation.changed_files)
    return evolve(
        observation,
        failed_jobs=tuple(downloads.failed_jobs),
        owners=owners,
        assignees=(
            assignees_of(settings.workspace, observation.findings, observation.changed_files)
            if observation.pr is not None
            else {}
        ),
        passed_tests=tests.passed,
        flaky_tests=tests.flaky,
    )
