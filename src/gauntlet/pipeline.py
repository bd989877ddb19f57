"""One run, end to end: observation -> engine -> apply -> commit state (DESIGN §2).

:func:`serve` takes a routed observation (``gauntlet.observe``) to the step that
handles it: an iteration or a command (:func:`run`), the scheduled scan
(:func:`run_scan`); a closed PR is an observation like any other (``engine.decide``). The command line and the
Action both call it, with their own store and backend.

The commit is compare-and-swap: on a conflict the run re-reads the state, runs
the engine again on the fresh state, re-applies the plan (idempotent) and tries
again with jitter until it succeeds or the deadline passes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from gauntlet.config import Config
from gauntlet.effects.base import Backend, EffectResult, apply
from gauntlet.engine.decide import decide, scope_of
from gauntlet.engine.results import record_results
from gauntlet.errors import StateConflict
from gauntlet.models import Observation, ProposalPRFact
from gauntlet.observe.routing import Route
from gauntlet.report import RunReport
from gauntlet.state.models import Scope, State
from gauntlet.state.store import StateStore

if TYPE_CHECKING:
    from gauntlet.engine.scan import ScanOutcome

__all__ = [
    "COMMIT_DEADLINE_SECONDS",
    "Clock",
    "StateReads",
    "commit_with_retry",
    "run",
    "run_scan",
    "serve",
]

COMMIT_DEADLINE_SECONDS = 120.0


@dataclass(frozen=True)
class Clock:
    """Time, passed in: the run's ``now``, and sleeping and a monotonic clock for the commit retries.

    :param throttle: space writes and honour GitHub's waits (off in tests).
    """

    now: datetime
    sleep: Callable[[float], None]
    monotonic: Callable[[], float]
    throttle: bool = True


@dataclass(frozen=True)
class StateReads:
    """What the edge reads once the state is loaded, because only the state says it is needed.

    Called inside the commit retries, on the state each attempt loaded (``action/state_reads.py``).

    :param fix_diff: adds the fix diff to an observation that may fix a failure the state knows.
    :param proposal_prs: what GitHub says about the pending proposals' PRs (without it they stay pending).
    :param branch_facts: adds a default-branch run's history and revert PRs, as far as the state needs them.
    """

    fix_diff: Callable[[State, Observation], Observation] | None = None
    proposal_prs: Callable[[State], Sequence[ProposalPRFact]] | None = None
    branch_facts: Callable[[State, Observation], Observation] | None = None

    def enrich(self, state: State, obs: Observation) -> Observation:
        """The observation with every state-dependent fact added (the branch's first: a fix diff may need it)."""
        for step in (self.branch_facts, self.fix_diff):
            if step is not None:
                obs = step(state, obs)
        return obs


def serve(
    route: Route,
    observation: Observation,
    config: Config,
    store: StateStore,
    backend: Backend,
    clock: Clock,
    *,
    commit: bool,
    reads: StateReads = StateReads(),
) -> RunReport:
    """Take a routed observation through the pipeline; return the run report.

    :param route: what the routing table made of the event (``gauntlet.observe.routing``).
    :param commit: write the new state (``False`` in a dry run).
    :param reads: the edge's state-dependent reads (none on the command line).
    :raises InputError: the event lacks what its route needs.
    """
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
            proposal_prs=reads.proposal_prs,
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
        enrich=reads.enrich,
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
    enrich: Callable[[State, Observation], Observation] | None = None,
) -> RunReport:
    """Decide, apply and commit for one observation; return the report.

    :param enrich: adds the facts only the loaded state says are needed (the edge's fix diff).
    """
    seed = _seed(observation.id)

    def attempt() -> RunReport:
        import numpy as np

        snapshot = store.load(scope_of(observation))
        seen = enrich(snapshot.state, observation) if enrich is not None else observation
        state, plan = decide(snapshot.state, seen, config, now, np.random.default_rng(seed))
        results = apply(plan.effects, backend)
        if commit:
            store.save(snapshot, record_results(state, results), _message(observation))
        return RunReport.of(plan, results, input_problems=observation.input_problems)

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
    proposal_prs: Callable[[State], Sequence[ProposalPRFact]] | None = None,
) -> tuple[ScanOutcome, list[EffectResult]]:
    """The scheduled scan (self-healing, verification, compaction): decide, apply and commit with retries.

    :param repository: ``owner/name``, for the bodies Gauntlet writes.
    :param base: the default branch, whose record the scan reads and which proposal PRs target.
    :param proposal_prs: reads what GitHub says about the pending proposals' PRs in the loaded state
        (the edge's; without it, pending proposals stay pending).
    """
    from gauntlet.engine.scan import scan

    def attempt() -> tuple[ScanOutcome, list[EffectResult]]:
        snapshot = store.load(Scope(branch=base, shards=True))
        facts = proposal_prs(snapshot.state) if proposal_prs is not None else ()
        outcome = scan(snapshot.state, config, now, repository=repository, base=base, proposal_prs=facts)
        results = apply(outcome.plan.effects, backend)
        if commit:
            store.save(snapshot, record_results(outcome.state, results), "gauntlet: scheduled scan")
        return outcome, results

    seed = _seed(f"scan:{repository}:{now.isoformat()}")
    return commit_with_retry(attempt, sleep=sleep, clock=clock, seed=seed)


def _message(observation: Observation) -> str:
    """The state commit's subject."""
    if observation.closed:
        return f"gauntlet: compact closed PR #{observation.pr}"
    return f"gauntlet: {observation.event} {observation.id}"


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
