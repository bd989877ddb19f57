"""Whose failure is it? Print how often Gauntlet gives a PR's failing findings the right provenance.

Usage::

    .venv/bin/python bench/provenance.py [--streams 300] [--seed 11]

Each simulated stream is a repository whose default branch has a history (runs decided by the real
engine, :func:`gauntlet.engine.decide.decide`, rerun when Gauntlet asks), then pull requests whose CI
runs are decided by the same engine, reading the default branch's record as a PR run does. The
findings come from real pytest logs (``tests/scenarios/main_branch/logs``), so the fingerprints are
the ones Gauntlet computes:

- ``test_add`` fails when a PR really breaks it: the truth is ``new``;
- ``test_divide`` fails on the default branch in some streams (and so on every PR based on it):
  ``preexisting``;
- ``test_lucky`` fails at random at the stream's flake rate (0-20 %), on the default branch and on PRs:
  ``flaky``. A PR run is rerun when Gauntlet asks (a new test failure on a run's first attempt), and
  otherwise half the time when it is red, as people do.

Printed: every real regression marked ``new`` (per run), the share of PR commits failing only on flaky tests
whose check ended green (after the reruns), and the share of failing findings (per run) whose provenance is
right. Exit 1 when a regression was not ``new``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "scenarios"))

from mainline import findings_of

from gauntlet.config import Config
from gauntlet.effects.models import Plan
from gauntlet.engine.decide import decide
from gauntlet.models import CommitFact, Finding, Observation
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord

REGRESSION = "pytest-add-broken.log"
PREEXISTING = "pytest-divide-broken.log"
FLAKE = "pytest-lucky-flaky.log"
FLAKE_RATES = (0.0, 0.05, 0.10, 0.15, 0.20)


@dataclass
class Tally:
    """Provenance words counted against the truth."""

    failing: int = 0
    right: int = 0
    regressions: int = 0
    regressions_new: int = 0
    flaky_only_runs: int = 0
    flaky_only_passed: int = 0
    preexisting_only_runs: int = 0
    preexisting_only_passed: int = 0

    def lines(self, streams: int) -> list[str]:
        def share(a: int, b: int) -> str:
            return f"{a}/{b} ({a / b:.1%})" if b else "0/0"

        return [
            f"simulated PR streams: {streams}",
            f"  real regressions marked new: {share(self.regressions_new, self.regressions)}",
            f"  PR commits failing only on flaky tests whose check ended green: "
            f"{share(self.flaky_only_passed, self.flaky_only_runs)}",
            f"  PR commits failing only on preexisting failures whose check ended green: "
            f"{share(self.preexisting_only_passed, self.preexisting_only_runs)}",
            f"  failing findings with the right provenance: {share(self.right, self.failing)}",
        ]


class Stream:
    """One repository: its default branch's history, then pull requests against it."""

    def __init__(self, rng: np.random.Generator, index: int) -> None:
        self.rng, self.index = rng, index
        self.flaky = FLAKE_RATES[index % len(FLAKE_RATES)]
        self.broken_main = bool(rng.random() < 0.3)
        self.config = Config()
        self.main = State(branch=BranchRecord(name="main"))
        self.now = datetime(2026, 11, 29, 6, tzinfo=UTC)
        self.run_id = 5000 + 100 * index
        self.commits: list[CommitFact] = []
        self.logs: dict[str, tuple[Finding, ...]] = {}
        self.truth = {
            self.fp(REGRESSION): "new",
            self.fp(PREEXISTING): "preexisting",
            self.fp(FLAKE): "flaky",
        }

    def fp(self, log: str) -> str:
        return self.findings([log])[0].fingerprint

    def findings(self, logs: list[str]) -> tuple[Finding, ...]:
        found: dict[str, Finding] = {}
        for log in logs:
            if log not in self.logs:
                self.logs[log] = findings_of(log)
            found |= {f.fingerprint: f for f in self.logs[log]}
        return tuple(found.values())

    def sha(self, label: str) -> str:
        return hashlib.sha1(f"{self.index}:{label}:{self.run_id}:{len(self.commits)}".encode()).hexdigest()

    def main_history(self, pushes: int) -> None:
        """Pushes to the default branch, each run once (and rerun when Gauntlet asks)."""
        for push in range(pushes):
            self.now += timedelta(hours=2)
            parents = (self.commits[-1].sha,) if self.commits else ()
            files = ("src/app/calc.py",) if self.broken_main and push == 2 else ("docs/usage.md",)
            fact = CommitFact.of(
                sha=self.sha("main"), message=f"main {push}", author="dev", files=files, parents=parents, at=self.now
            )
            self.commits.append(fact)
            self.main_run(attempt=1, broken=self.broken_main and push >= 2)

    def main_run(self, *, attempt: int, broken: bool) -> None:
        if attempt == 1:
            self.run_id += 1
        self.now += timedelta(minutes=3)
        logs = [PREEXISTING] if broken else []
        if self.rng.random() < self.flaky:
            logs.append(FLAKE)
        obs = Observation(
            repository="octo/sim",
            event="workflow_run",
            branch="main",
            head_sha=self.commits[-1].sha,
            run_id=str(self.run_id),
            run_attempt=str(attempt),
            workflow="ci",
            job="test",
            findings=self.findings(logs),
            commits=tuple(reversed(self.commits[-60:])),
        )
        self.main, plan = decide(self.main, obs, self.config, self.now, np.random.default_rng(0))
        if any(e.type == "rerun_failed_jobs" for e in plan.effects) and attempt < 3:
            self.main_run(attempt=attempt + 1, broken=broken)

    def pull_request(self, number: int, tally: Tally) -> None:
        """A PR of 1-3 iterations: it may break test_add (fixed later or not); authors rerun red runs sometimes."""
        pr = State(pr=PRRecord(number=number), base=self.main.branch)
        regresses = bool(self.rng.random() < 0.4)
        for iteration in range(int(self.rng.integers(1, 4))):
            if iteration and regresses and self.rng.random() < 0.5:
                regresses = False  # the author fixed it
            head = self.sha(f"pr{number}.{iteration}")
            self.run_id += 1
            first_logs: list[str] = []
            final = ""
            for attempt in (1, 2, 3):
                logs = [REGRESSION] if regresses else []
                if self.broken_main:
                    logs.append(PREEXISTING)
                if self.rng.random() < self.flaky:
                    logs.append(FLAKE)
                obs = Observation(
                    repository="octo/sim",
                    event="pull_request",
                    pr=number,
                    branch=f"feature-{number}",
                    head_sha=head,
                    base_sha=self.commits[-1].sha,
                    run_id=str(self.run_id),
                    run_attempt=str(attempt),
                    workflow="ci",
                    job="test",
                    findings=self.findings(logs),
                )
                self.now += timedelta(minutes=7)
                pr, plan = decide(pr, obs, self.config, self.now, np.random.default_rng(0))
                pr = pr.model_copy(update={"base": self.main.branch})
                self.count(plan, tally)
                first_logs = first_logs or logs
                final = _conclusion(plan)
                asked = any(e.type == "rerun_failed_jobs" for e in plan.effects)
                if not (asked or (final == "failure" and self.rng.random() < 0.5)):
                    break  # a rerun when Gauntlet asks for one; otherwise half the red runs are rerun by hand
            self.judge_iteration(first_logs, final, tally)

    def count(self, plan: Plan, tally: Tally) -> None:
        words = plan.provenance.fingerprints
        for fingerprint, word in words.items():
            truth = self.truth.get(fingerprint)
            if truth is None:
                continue
            tally.failing += 1
            tally.right += word == truth
            if truth == "new":
                tally.regressions += 1
                tally.regressions_new += word == "new"

    def judge_iteration(self, logs: list[str], final: str, tally: Tally) -> None:
        """Count a PR commit whose first run failed without a regression: did its check end green?"""
        passed = final == "success"
        if logs and REGRESSION not in logs:
            if FLAKE in logs:
                tally.flaky_only_runs += 1
                tally.flaky_only_passed += passed
            else:
                tally.preexisting_only_runs += 1
                tally.preexisting_only_passed += passed


def _conclusion(plan: Plan) -> str:
    return next((str(getattr(e, "conclusion", "")) for e in plan.effects if e.type == "set_check"), "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    tally = Tally()
    for index in range(args.streams):
        stream = Stream(np.random.default_rng([args.seed, index]), index)
        stream.main_history(int(stream.rng.integers(6, 16)))
        for number in range(1, 4):
            stream.pull_request(number, tally)
    for line in tally.lines(args.streams):
        print(line)
    return 0 if tally.regressions_new == tally.regressions else 1


if __name__ == "__main__":
    raise SystemExit(main())
