"""One run, end to end: ingest -> classify -> engine -> apply -> commit state (DESIGN §2).

The commit is compare-and-swap: on a conflict the run re-reads the state, runs
the engine again on the fresh state, re-applies the plan (idempotent) and tries
again with jitter until it succeeds or the deadline passes.
"""

from __future__ import annotations

import glob
import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from gauntlet.classify import classify
from gauntlet.config import Config
from gauntlet.effects.base import Backend, EffectResult, apply
from gauntlet.engine.decide import decide, scope_of
from gauntlet.engine.results import record_results
from gauntlet.errors import InputError, StateConflict
from gauntlet.ingest import ingest_file
from gauntlet.models import Finding, Observation
from gauntlet.observe.payload import event_facts
from gauntlet.report import RunReport
from gauntlet.settings import Settings
from gauntlet.state.store import StateStore

if TYPE_CHECKING:
    from gauntlet.engine.scan import ScanOutcome

__all__ = ["COMMIT_DEADLINE_SECONDS", "commit_with_retry", "expand", "observe", "run", "run_scan"]

COMMIT_DEADLINE_SECONDS = 120.0

Outcome = TypeVar("Outcome")


def expand(patterns: Iterable[str], root: Path) -> list[Path]:
    """Files matching the globs (relative to ``root``), sorted, each once."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        for match in sorted(glob.glob(pattern, root_dir=root, recursive=True)):
            path = root / match
            if path.is_file():
                found[path] = None
    return list(found)


def observe(settings: Settings, config: Config) -> Observation:
    """Read the event and every input file into one observation (ingest and classify).

    :raises InputError: an input file or the event payload is unusable.
    """
    facts: dict[str, object] = {}
    if settings.event_path is not None:
        try:
            payload = settings.event_path.read_bytes()
        except OSError as exc:
            raise InputError(f"{settings.event_path}: cannot read event: {exc.strerror}") from exc
        facts = event_facts(settings.event_name or "pull_request", payload, str(settings.event_path))
    findings: list[Finding] = []
    for path in expand(settings.logs, settings.workspace):
        findings.extend(ingest_file(path, "log", root=settings.workspace))
    for path in expand(settings.findings, settings.workspace):
        findings.extend(ingest_file(path, "auto", root=settings.workspace))
    head_sha = facts.pop("head_sha", None) or settings.sha
    if not head_sha:
        raise InputError("no head SHA: pass --event-path with a pull_request or push event")
    observation = Observation.model_validate(
        {
            "repository": settings.repository or "local/repository",
            "run_id": settings.run_id,
            "run_attempt": settings.run_attempt,
            "job": settings.job,
            **facts,
            "head_sha": head_sha,
        }
    )
    on_default = observation.on_default_branch
    return observation.model_copy(update={"findings": tuple(classify(findings, config, on_default_branch=on_default))})


def run(
    observation: Observation,
    config: Config,
    store: StateStore,
    backend: Backend,
    *,
    now: datetime,
    commit: bool = True,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> RunReport:
    """Decide, apply and commit for one observation; return the report."""
    seed = int.from_bytes(hashlib.sha256(observation.id.encode()).digest()[:8], "big")

    def attempt() -> RunReport:
        import numpy as np

        snapshot = store.load(scope_of(observation))
        state, plan = decide(snapshot.state, observation, config, now, np.random.default_rng(seed))
        results = apply(plan.effects, backend)
        if commit:
            store.save(snapshot, record_results(state, results), f"gauntlet: {observation.event} {observation.id}")
        return RunReport.of(plan, results)

    return commit_with_retry(attempt, sleep=sleep, clock=clock, seed=seed)


def run_scan(
    config: Config,
    store: StateStore,
    backend: Backend,
    *,
    repository: str,
    base: str,
    now: datetime,
    commit: bool = True,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> tuple[ScanOutcome, list[EffectResult]]:
    """The scheduled scan (self-healing, verification, compaction): decide, apply and commit with retries.

    :param repository: ``owner/name``, for the bodies Gauntlet writes.
    :param base: the default branch, whose record the scan reads and which proposal PRs target.
    """
    from gauntlet.engine.scan import scan
    from gauntlet.state.models import Scope

    def attempt() -> tuple[ScanOutcome, list[EffectResult]]:
        snapshot = store.load(Scope(branch=base))
        outcome = scan(snapshot.state, config, now, repository=repository, base=base)
        results = apply(outcome.plan.effects, backend)
        if commit:
            store.save(snapshot, record_results(outcome.state, results), "gauntlet: scheduled scan")
        return outcome, results

    seed = int.from_bytes(hashlib.sha256(f"scan:{repository}:{now.isoformat()}".encode()).digest()[:8], "big")
    return commit_with_retry(attempt, sleep=sleep, clock=clock, seed=seed)


def commit_with_retry(
    attempt: Callable[[], Outcome], *, sleep: Callable[[float], None], clock: Callable[[], float], seed: int
) -> Outcome:
    """Call ``attempt`` until it commits without a conflict; jitter 50 ms–2 s; give up after 120 s."""
    import numpy as np

    jitter = np.random.default_rng(seed)
    deadline = clock() + COMMIT_DEADLINE_SECONDS
    while True:
        try:
            return attempt()
        except StateConflict:
            if clock() >= deadline:
                raise
            # The whole range from the first retry: runs that collided once spread out at once instead of
            # colliding again after a few milliseconds (32 runs at once make ~30% fewer calls this way).
            sleep(float(jitter.uniform(0.05, 2.0)))
