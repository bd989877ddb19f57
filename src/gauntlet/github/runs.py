"""``set_check``: one check run per head SHA and name, with a summary and annotations (DESIGN §5).

GitHub takes at most 50 annotations per request and *appends* annotations on
every update, so a run sends only the annotations the check does not have yet:
a repeated run leaves the check as it is.
See https://docs.github.com/rest/checks/runs#update-a-check-run

``rerun_failed_jobs``: rerun the failed jobs of a workflow run, once per attempt.

A rerun raises the run's ``run_attempt``; seeing a newer attempt than the one the
effect was planned for means the rerun already happened.
See https://docs.github.com/rest/actions/workflow-runs#re-run-failed-jobs-from-a-workflow-run
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from gauntlet.effects.base import EffectResult, Existing, unchanged
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import CheckAnnotation, Effect, RerunFailedJobs, SetCheck
from gauntlet.effects.verdict import verdict_block
from gauntlet.github.client import NotFound
from gauntlet.github.hub import Hub
from gauntlet.untrusted import redact

__all__ = ["ANNOTATIONS_PER_REQUEST", "CheckFound", "CheckRunHandler", "RerunHandler"]

log = logging.getLogger("gauntlet.github")


ANNOTATIONS_PER_REQUEST = 50


class CheckFound(Existing):
    """A check run found on the SHA, with what decides whether it must change."""

    conclusion: str | None = None
    title: str | None = None
    annotations_count: int = 0
    #: When the PR's record named it (nothing read): the digest of the conclusion, title and summary it holds.
    digest: str | None = None


def _digest(conclusion: str | None, title: str | None, summary: str | None) -> str:
    return hashlib.sha256(f"{conclusion}\0{title}\0{summary}".encode()).hexdigest()[:32]


def _remembered(hub: Hub, effect: SetCheck) -> CheckFound | None:
    """The check run the PR's record names for this SHA, with what it holds (``<digest>/<annotations>``)."""
    written = hub.written(effect.key)
    digest, _, count = written.version.partition("/") if written is not None else ("", "", "")
    if written is None or not count.isdigit():
        return None
    return CheckFound(number=written.number, digest=digest, annotations_count=int(count))


def _found(run: dict[str, Any]) -> CheckFound:
    output = run.get("output") or {}
    return CheckFound(
        number=int(run["id"]),
        url=run.get("html_url"),
        body=output.get("summary"),
        conclusion=run.get("conclusion"),
        title=output.get("title"),
        annotations_count=int(output.get("annotations_count") or 0),
    )


def _name(hub: Hub, effect: SetCheck) -> str:
    return hub.check_name or effect.name


class CheckRunHandler:
    """Creates the check run once per SHA and name; later runs update it in place."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The check run the PR's record names for the SHA (no call); else the newest with this name (one call).

        A PR run's record names every check run it created; one it does not name was never created on this SHA
        (only a run that died between creating it and committing the state leaves one unnamed: a second
        check run of the same name then shows, and GitHub displays the newer). A default-branch run's first
        attempt on a commit its branch record holds no run of does not look either, for the same reason.
        """
        assert isinstance(effect, SetCheck)
        remembered = _remembered(hub, effect)
        if remembered is not None or hub.remembers() or hub.fresh(effect.head_sha):
            return remembered
        return self._listed(hub, effect)

    def _listed(self, hub: Hub, effect: SetCheck) -> CheckFound | None:
        found = hub.client.request(
            "GET",
            f"/repos/{hub.repo.full_name}/commits/{effect.head_sha}/check-runs",
            params={"check_name": _name(hub, effect), "filter": "latest", "per_page": 100},
        )
        runs = [run for run in found.get("check_runs", []) if run.get("name") == _name(hub, effect)]
        return _found(max(runs, key=lambda run: int(run["id"]))) if runs else None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Create or update the check run; send annotations in batches of 50."""
        assert isinstance(effect, SetCheck)
        summary = body_of(effect)  # within CHECK_SUMMARY_CHARS, its verdict whole (effects/verdict.py)
        path = f"/repos/{hub.repo.full_name}/check-runs"
        digest = _digest(effect.conclusion, effect.title, summary)
        if isinstance(existing, CheckFound) and existing.number is not None:
            pending = list(effect.annotations[existing.annotations_count :])
            held = (existing.conclusion, existing.title, existing.body)
            same = (
                existing.digest == digest
                if existing.digest is not None
                else held == (effect.conclusion, effect.title, summary)
            )
            version = f"{digest}/{len(effect.annotations)}"
            if same and not pending:
                return unchanged(effect, existing, version)
            run_id, url, status = existing.number, existing.url, "updated"
            first, rest = pending[:ANNOTATIONS_PER_REQUEST], pending[ANNOTATIONS_PER_REQUEST:]
            try:
                edited = hub.client.request("PATCH", f"{path}/{run_id}", body=_payload(effect, summary, first))
                url = edited.get("html_url") if isinstance(edited, dict) else url
            except NotFound:
                if existing.digest is None:
                    raise
                # The check run the record named is gone (the repository was recreated?): look again.
                return self.perform(hub, effect, self._listed(hub, effect))
        else:
            first = list(effect.annotations[:ANNOTATIONS_PER_REQUEST])
            rest = list(effect.annotations[ANNOTATIONS_PER_REQUEST:])
            payload = {"name": _name(hub, effect), "head_sha": effect.head_sha, **_payload(effect, summary, first)}

            def create() -> dict[str, Any]:
                made: dict[str, Any] = hub.client.request("POST", path, body=payload)
                return made

            def look() -> dict[str, Any] | None:
                again = self._listed(hub, effect)
                return None if again is None else {"id": again.number, "html_url": again.url}

            made = hub.client.create_once(f"check run on {effect.head_sha[:7]}", create, look)
            run_id, url, status = int(made["id"]), made.get("html_url"), "created"
        skipped = 0
        if rest and hub.client.low_on_quota():
            # A request per 50 annotations is what can wait: the first 50 and the summary are there.
            log.info("GitHub API quota low: %d annotations past the first batch not sent", len(rest))
            skipped, rest = len(rest), []
        for start in range(0, len(rest), ANNOTATIONS_PER_REQUEST):
            batch = rest[start : start + ANNOTATIONS_PER_REQUEST]
            hub.client.request("PATCH", f"{path}/{run_id}", body=_payload(effect, summary, batch))
        # A PR's record keeps the id and what the check holds (``PRRecord.written``), never the shared index;
        # annotations skipped for a low quota are not counted as sent, so a later run sends them.
        version = f"{digest}/{len(effect.annotations) - skipped}"
        return EffectResult(type=effect.type, key=effect.key, status=status, number=run_id, url=url, version=version)


def _payload(effect: SetCheck, summary: str, annotations: list[CheckAnnotation]) -> dict[str, Any]:
    # The verdict is the output's text (DESIGN §5) as well as the summary's last block.
    output: dict[str, Any] = {"title": redact(effect.title), "summary": summary, "text": verdict_block(effect)}
    if annotations:
        # Annotations are written as is (no template): redacted here like every body (DESIGN §6).
        output["annotations"] = [
            {k: redact(v) if isinstance(v, str) else v for k, v in annotation.model_dump().items()}
            for annotation in annotations
        ]
    return {"status": "completed", "conclusion": effect.conclusion, "output": output}


#: Conclusions of a completed run that has failed jobs to rerun.
_RERUNNABLE = frozenset({"failure", "cancelled", "timed_out", "startup_failure"})
NOTHING_TO_RERUN = "nothing to rerun"
IN_PROGRESS = "in progress"


class _MissingRun(Existing):
    """The run a rerun names does not exist on GitHub."""


class RerunHandler:
    """Asks GitHub to rerun the failed jobs, unless a later attempt exists."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The run, when its attempt is already past the one the effect names, or it has nothing to rerun."""
        assert isinstance(effect, RerunFailedJobs)
        if str(effect.run_id) == hub.own_run:
            # Gauntlet runs in this run (a step of the CI job): it is in progress, and GitHub refuses (403) to
            # rerun a run that has not completed. Later runs of the same commit confirm instead.
            return Existing(body=IN_PROGRESS)
        try:
            run = hub.client.request("GET", f"/repos/{hub.repo.full_name}/actions/runs/{effect.run_id}")
        except NotFound:
            return _MissingRun()  # a run id GitHub does not know (a local run's, or deleted): nothing to rerun
        if int(run.get("run_attempt") or 1) > effect.attempt:
            return Existing(number=int(run["id"]), url=run.get("html_url"))
        if run.get("status") == "completed" and run.get("conclusion") not in _RERUNNABLE:
            # GitHub refuses a rerun of a run with no failed jobs (403), which would fail the whole run.
            return Existing(number=int(run["id"]), url=run.get("html_url"), body=NOTHING_TO_RERUN)
        return None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Request the rerun (idempotent on GitHub's side while the rerun is queued)."""
        assert isinstance(effect, RerunFailedJobs)
        if isinstance(existing, _MissingRun):
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="no such workflow run")
        if existing is not None and existing.body == IN_PROGRESS:
            detail = (
                f"run {effect.run_id} is the one Gauntlet runs in, still in progress: GitHub reruns only completed runs"
            )
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail=detail)
        if existing is not None and existing.body == NOTHING_TO_RERUN:
            detail = f"run {effect.run_id} has no failed jobs: nothing to rerun"
            return EffectResult(type=effect.type, key=effect.key, status="skipped", url=existing.url, detail=detail)
        if existing is not None:
            return EffectResult(type=effect.type, key=effect.key, status="unchanged", url=existing.url)
        hub.client.request("POST", f"/repos/{hub.repo.full_name}/actions/runs/{effect.run_id}/rerun-failed-jobs")
        return EffectResult(type=effect.type, key=effect.key, status="created")
