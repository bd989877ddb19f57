"""One run, end to end: observation -> engine -> apply -> commit state (DESIGN §2).

:func:`serve` takes a routed observation (``gauntlet.observe``) to the step that
handles it: an iteration or a command (:func:`run`), the scheduled scan
(:func:`run_scan`), or a closed PR (:func:`run_close`). The command line and the
Action both call it, with their own store and backend.

The commit is compare-and-swap: on a conflict the run re-reads the state, runs
the engine again on the fresh state, re-applies the plan (idempotent) and tries
again with jitter until it succeeds or the deadline passes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from gauntlet.config import Config
from gauntlet.effects.base import Backend, EffectResult, apply
from gauntlet.engine.decide import decide, scope_of
from gauntlet.engine.results import record_results
from gauntlet.errors import InputError, StateConflict
from gauntlet.models import Observation, evolve
from gauntlet.observe.routing import Route
from gauntlet.report import RunReport
from gauntlet.state.base import keep_last
from gauntlet.state.events import Event
from gauntlet.state.models import Scope
from gauntlet.state.pr import PRRecord
from gauntlet.state.store import StateStore
from gauntlet.vocabulary import HealthVerdict, RecoveryVerdict

if TYPE_CHECKING:
    from gauntlet.engine.scan import ScanOutcome

__all__ = [
    "ATTEMPTS_KEPT_WHEN_CLOSED",
    "COMMIT_DEADLINE_SECONDS",
    "Clock",
    "commit_with_retry",
    "compact_pr",
    "run",
    "run_close",
    "run_scan",
    "serve",
]

COMMIT_DEADLINE_SECONDS = 120.0

#: A closed PR keeps its latest iteration and this many attempts (the iteration counter stays).
ATTEMPTS_KEPT_WHEN_CLOSED = 3


@dataclass(frozen=True)
class Clock:
    """Time, passed in: the run's ``now``, and sleeping and a monotonic clock for the commit retries.

    :param throttle: space writes and honour GitHub's waits (off in tests).
    """

    now: datetime
    sleep: Callable[[float], None]
    monotonic: Callable[[], float]
    throttle: bool = True


def serve(
    route: Route,
    observation: Observation,
    config: Config,
    store: StateStore,
    backend: Backend,
    clock: Clock,
    *,
    commit: bool,
) -> RunReport:
    """Take a routed observation through the pipeline; return the run report.

    :param route: what the routing table made of the event (``gauntlet.observe.routing``).
    :param commit: write the new state (``False`` in a dry run).
    :raises InputError: the event lacks what its route needs.
    """
    if route == "close_pr":
        return run_close(observation, store, clock, commit=commit)
    if route == "scan":
        outcome, results = run_scan(
            config,
            store,
            backend,
            repository=observation.repository,
            base=observation.default_branch,
            now=clock.now,
            commit=commit,
            sleep=clock.sleep,
            clock=clock.monotonic,
        )
        return RunReport.of(outcome.plan, results)
    return run(
        observation,
        config,
        store,
        backend,
        now=clock.now,
        commit=commit,
        sleep=clock.sleep,
        clock=clock.monotonic,
    )


Outcome = TypeVar("Outcome")


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
    seed = _seed(observation.id)

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

    def attempt() -> tuple[ScanOutcome, list[EffectResult]]:
        snapshot = store.load(Scope(branch=base))
        outcome = scan(snapshot.state, config, now, repository=repository, base=base)
        results = apply(outcome.plan.effects, backend)
        if commit:
            store.save(snapshot, record_results(outcome.state, results), "gauntlet: scheduled scan")
        return outcome, results

    seed = _seed(f"scan:{repository}:{now.isoformat()}")
    return commit_with_retry(attempt, sleep=sleep, clock=clock, seed=seed)


def compact_pr(record: PRRecord) -> PRRecord:
    """A closed PR's record: marked closed, with its latest iteration and last few attempts only."""
    return evolve(
        record,
        closed=True,
        iterations=record.iterations[-1:],
        attempts=keep_last(record.attempts, ATTEMPTS_KEPT_WHEN_CLOSED),
    )


def run_close(observation: Observation, store: StateStore, clock: Clock, *, commit: bool) -> RunReport:
    """``pull_request`` ``closed``: compact the PR's record (nothing is posted).

    :raises InputError: the payload names no pull request.
    """
    number = observation.pr
    if number is None:
        raise InputError("pull_request closed: the payload names no pull request")

    def attempt() -> RunReport:
        snapshot = store.load(Scope(pr=number))
        record = snapshot.state.pr
        if record is not None and snapshot.stored.get(f"v1/prs/{number}.json") is not None and not record.closed:
            event = Event(at=clock.now, kind="pr_closed", key=f"pr:{number}")
            new = evolve(snapshot.state, pr=compact_pr(record), events=[*snapshot.state.events, event])
            if commit:
                store.save(snapshot, new, f"gauntlet: compact closed PR #{number}")
        return RunReport(decision=None, recovery=RecoveryVerdict(), health=HealthVerdict())

    return commit_with_retry(attempt, sleep=clock.sleep, clock=clock.monotonic, seed=_seed(f"closed:{number}"))


def _seed(text: str) -> int:
    """A seed for the run's generator and the retry jitter, stable for the same run."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


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
