"""``rerun_failed_jobs``: rerun the failed jobs of a workflow run, once per attempt.

A rerun raises the run's ``run_attempt``; seeing a newer attempt than the one the
effect was planned for means the rerun already happened.
See https://docs.github.com/rest/actions/workflow-runs#re-run-failed-jobs-from-a-workflow-run
"""

from __future__ import annotations

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.models import Effect, RerunFailedJobs
from gauntlet.github.backend import Hub

__all__ = ["RerunHandler"]


class RerunHandler:
    """Asks GitHub to rerun the failed jobs, unless a later attempt exists."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The run, when its attempt is already past the one the effect names (one call)."""
        assert isinstance(effect, RerunFailedJobs)
        run = hub.client.request("GET", f"/repos/{hub.repo.full_name}/actions/runs/{effect.run_id}")
        if int(run.get("run_attempt") or 1) > effect.attempt:
            return Existing(number=int(run["id"]), url=run.get("html_url"))
        return None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Request the rerun (idempotent on GitHub's side while the rerun is queued)."""
        assert isinstance(effect, RerunFailedJobs)
        if existing is not None:
            return EffectResult(type=effect.type, key=effect.key, status="unchanged", url=existing.url)
        hub.client.request("POST", f"/repos/{hub.repo.full_name}/actions/runs/{effect.run_id}/rerun-failed-jobs")
        return EffectResult(type=effect.type, key=effect.key, status="created")
