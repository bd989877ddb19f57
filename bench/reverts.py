"""Can Gauntlet's reverts be trusted? Print the bad-revert rate and the share of true culprits reverted.

Usage::

    .venv/bin/python bench/reverts.py [--histories 300] [--seed 7] [--infra 0.05] [--hand 0.05] [--source-share 0.5]

A third set of simulated histories makes the flaky test the same one a real break fails (``test_add``
flakes, and later commits really break it): a flaky history must not switch off protection for it. For
those it prints the figures issue 30 asks for: bad reverts, the share of nameable culprits reverted
within the confirmation reruns of their first red run, real breaks left with neither a revert nor an
issue, and needs-human issues filed before a confirmation rerun had spoken.

Two sources of main-branch histories, both decided by the real engine (:func:`gauntlet.engine.decide.decide`)
on observations built from real tool logs (``tests/scenarios/main_branch/logs``):

1. the scenario suite (``tests/scenarios/main_branch/*.yaml``), each with its true culprits;
2. simulated histories: pushes of 1-3 commits, some of which really break a job (a test, the type check
   or the C build); every job runs on the tip and may fail for infrastructure reasons (``--infra``) or on
   a flaky test (``--flaky``). The simulation follows the plan like a repository would: a planned rerun
   runs the job again, a revert PR is merged (the revert commit is pushed), and a needs-human issue
   is answered by a fix commit.

A *bad revert* is a revert PR for a commit that did not break anything. The share of true culprits
reverted is lower than 1 by design: ambiguous, old or unconfirmed culprits go to a human instead.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "scenarios"))

from mainline import all_scenarios, findings_of, load

from gauntlet.config import Config
from gauntlet.engine.decide import decide
from gauntlet.models import CommitFact, Finding, Observation, RevertPRFact
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State

#: job -> (file a breaking commit changes, log when broken). A broken test is as often a change to the
#: code it tests (``--source-share``): ``pytest-add-broken.log`` itself comes from breaking src/app/calc.py,
#: and its assertion names only tests/test_calc.py (no frame in the source, as for any failed ``assert``).
JOBS = {
    "test": ("tests/test_calc.py", "pytest-add-broken.log"),
    "types": ("src/app/calc.py", "mypy-calc-error.log"),
    "build": ("native/parser.c", "gcc-parser-error.log"),
}
GREEN_LOG = "pytest-pass.log"
FLAKY_LOG = "pytest-lucky-flaky.log"
INFRA_LOG = "infra-disk-full.log"
#: The code under test that a change breaking the ``test`` job touches instead of the test (see ``--source-share``).
TESTED_SOURCE = "src/app/calc.py"
HARMLESS = ("docs/usage.md", "docs/install.md", "README.md", "src/app/cli.py", "src/app/calc.py")


@dataclass
class Tally:
    """Reverts counted against the ground truth."""

    reverts: int = 0
    bad: int = 0
    culprits: int = 0
    culprits_reverted: int = 0
    needs_human: int = 0
    withdrawn: int = 0
    withdrawn_bad: int = 0
    merged_bad: int = 0
    #: True culprits that are the only suspect changing the failing file (DESIGN §3 names them) ...
    nameable: int = 0
    by_hand: int = 0
    #: ... and those reverted by the second red workflow run of their job (reruns are attempts of a run) ...
    within_two: int = 0
    #: ... and those reverted by the second red attempt (the red run and its first rerun).
    within_two_attempts: int = 0
    bad_shas: list[str] = field(default_factory=list)
    #: ... and those reverted within the confirmation reruns of their first red workflow run.
    within_one: int = 0
    #: True culprits left with neither a revert (Gauntlet's or a person's) nor a needs-human issue.
    unhandled: int = 0
    #: Needs-human issues filed while no failure of the breakage had been seen twice (before a rerun spoke).
    early_issues: int = 0

    def line(self, label: str) -> str:
        rate = self.bad / self.reverts if self.reverts else 0.0
        share = self.culprits_reverted / self.culprits if self.culprits else 0.0
        return (
            f"{label:<34} reverts {self.reverts:>4}  bad {self.bad:>3} (rate {rate:.3f})  "
            f"true culprits reverted {self.culprits_reverted}/{self.culprits} ({share:.0%})  "
            f"needs-human issues {self.needs_human}"
        )


def scenario_tally() -> Tally:
    """Replay the scenario suite and count reverts against each scenario's true culprits."""
    tally = Tally()
    for path in all_scenarios():
        scenario = load(path)
        reverted: set[str] = set()
        for outcome in scenario.replay():
            tally.needs_human += sum(1 for e in outcome.plan.effects if e.type == "file_issue")
            for culprit in outcome.reverted:
                tally.reverts += 1
                name = scenario.commit_id(culprit) or culprit
                reverted.add(name)
                if name not in scenario.culprits:
                    tally.bad += 1
                    tally.bad_shas.append(f"{scenario.name}:{name}")
        tally.culprits += len(scenario.culprits)
        tally.culprits_reverted += len(reverted & set(scenario.culprits))
    return tally


class Repository:
    """A simulated default branch: commits, the breakers still in the tree, and the CI that runs on it."""

    def __init__(
        self,
        rng: np.random.Generator,
        config: Config,
        *,
        flaky: float,
        infra: float,
        hand: float,
        name: str,
        source_share: float = 0.0,
        same_test: bool = False,
    ) -> None:
        self.rng, self.config, self.flaky, self.infra, self.hand, self.name = rng, config, flaky, infra, hand, name
        self.source_share = source_share
        #: The flaky test is the one a break of the ``test`` job fails (its flake shows the same log).
        self.flaky_log = JOBS["test"][1] if same_test else FLAKY_LOG
        #: True culprits reverted, or answered after a needs-human issue.
        self.handled: set[str] = set()
        self.commits: list[CommitFact] = []
        self.breakers: dict[str, str] = {}  # sha -> job it breaks (while not reverted or fixed)
        self.broke: dict[str, str] = {}  # sha -> the file whose change broke its job
        self.truth: set[str] = set()
        #: True culprit -> workflow runs, and attempts, of its job seen red since it landed ("within two runs").
        self.red_runs: dict[str, int] = {}
        self.red_attempts: dict[str, int] = {}
        self.reverted_within: dict[str, tuple[int, int]] = {}
        #: Per job, how many commits the branch had at its last green run; culprits DESIGN §3 can name.
        self.last_green: dict[str, int] = {}
        self.nameable: set[str] = set()
        self.by_hand: set[str] = set()
        self.revert_prs: dict[str, RevertPRFact] = {}
        #: Open revert PRs -> the push during which they were opened.
        self.pending: dict[str, int] = {}
        self.pushes = 0
        self.state = State(branch=BranchRecord(name="main"))
        self.now = datetime(2026, 11, 29, 6, tzinfo=UTC)
        self.run_id = 1000
        self.logs: dict[str, tuple[Finding, ...]] = {}

    def commit(
        self, subject: str, files: tuple[str, ...], message: str = "", merges: tuple[str, ...] = ()
    ) -> CommitFact:
        self.now += timedelta(minutes=5)
        sha = hashlib.sha1(f"{self.name}:{len(self.commits)}:{subject}".encode()).hexdigest()
        parents = ((self.commits[-1].sha,) if self.commits else ()) + merges
        fact = CommitFact.of(
            sha=sha, message=message or subject, author="dev", files=files, parents=parents, at=self.now
        )
        self.commits.append(fact)
        return fact

    def change(self) -> tuple[str | None, tuple[str, ...], str]:
        """One change: the job it breaks (or ``None``), the files it touches, its subject."""
        green = [j for j in JOBS if j not in self.breakers.values()]
        if green and self.rng.random() < BREAK_RATE:
            # Only a green job breaks: a second break with the same log would be invisible behind the first.
            job = str(self.rng.choice(green))
            # Drawn only when asked for, so that --source-share 0 replays the histories as they were.
            source = job == "test" and self.source_share > 0 and self.rng.random() < self.source_share
            return job, (TESTED_SOURCE if source else JOBS[job][0],), f"change {job}"
        return None, (str(self.rng.choice(HARMLESS)),), "harmless change"

    def push(self, tally: Tally) -> None:
        self.now += timedelta(hours=float(self.rng.uniform(3, 8)))  # a few pushes a day: the cap is per day
        for _ in range(int(self.rng.integers(1, 4))):
            if self.rng.random() < 0.15:
                # A merge commit: a side branch of two changes (at most one breaking) lands as one change.
                changes = [self.change(), (None, (str(self.rng.choice(HARMLESS)),), "harmless change")]
                side = hashlib.sha1(f"{self.name}:side:{len(self.commits)}".encode()).hexdigest()
                files = tuple(sorted({f for _, fs, _ in changes for f in fs}))
                fact = self.commit("Merge pull request", files, merges=(side,))
                jobs = [(job, fs[0]) for job, fs, _ in changes if job]
            else:
                job, files, subject = self.change()
                fact = self.commit(subject, files)
                jobs = [(job, files[0])] if job else []
            if jobs:
                self.breakers[fact.sha], self.broke[fact.sha] = jobs[0]
                self.truth.add(fact.sha)
        for job in JOBS:
            self.run(job, tally, attempt=1)
        self.merge_reviewed(tally)

    def merge_reviewed(self, tally: Tally) -> None:
        """A person merges the revert PRs opened before this push's runs (those runs could still withdraw them)."""
        for culprit in [c for c, pushed in self.pending.items() if pushed < self.pushes]:
            del self.pending[culprit]
            target = next(c for c in self.commits if c.sha == culprit)
            self.commit(f'Revert "{target.subject}"', target.files, f"This reverts commit {culprit}.")
            number = self.revert_prs[culprit].number
            self.revert_prs[culprit] = RevertPRFact(culprit=culprit[:12], number=number, state="merged")
            self.breakers.pop(culprit, None)
            tally.merged_bad += culprit not in self.truth
        self.pushes += 1

    def run(self, job: str, tally: Tally, attempt: int) -> None:
        if attempt == 1:
            self.run_id += 1
        self.now += timedelta(minutes=2)
        broken = [sha for sha, j in self.breakers.items() if j == job]
        roll = self.rng.random()
        log = (
            INFRA_LOG
            if roll < self.infra
            else JOBS[job][1]
            if broken
            else self.flaky_log
            if job == "test" and roll < self.infra + self.flaky
            else GREEN_LOG
        )
        if log == JOBS[job][1]:
            for sha in broken:
                self.red_runs[sha] = self.red_runs.get(sha, 0) + (attempt == 1)
                self.red_attempts[sha] = self.red_attempts.get(sha, 0) + 1
                suspects = self.commits[self.last_green.get(job, len(self.commits)) :]
                touching = [c for c in suspects if JOBS[job][0] in c.files]
                known = job in self.last_green  # never green: no last-good, no suspects (DESIGN §3)
                # DESIGN §3 names the only suspect, or the only one that changed the file the failure names.
                alone = [c.sha for c in suspects] == [sha] or [c.sha for c in touching] == [sha]
                if known and self.red_attempts[sha] == 1 and alone:
                    self.nameable.add(sha)
        elif log == GREEN_LOG:
            self.last_green[job] = len(self.commits)
        obs = Observation(
            repository="octo/sim",
            event="workflow_run",
            branch="main",
            head_sha=self.commits[-1].sha,
            run_id=str(self.run_id),
            run_attempt=str(attempt),
            workflow="ci",
            job=job,
            findings=self.findings(log),
            commits=tuple(reversed(self.commits[-60:])),
            revert_prs=tuple(self.revert_prs.values()),
        )
        self.state, plan = decide(self.state, obs, self.config, self.now, np.random.default_rng(0))
        for effect in plan.effects:
            if effect.type == "rerun_failed_jobs" and attempt < 5:
                self.run(job, tally, attempt + 1)
            elif effect.type == "open_revert_pr":
                self.revert(effect.culprit, tally)
            elif effect.type == "withdraw_revert_pr" and effect.culprit in self.pending:
                tally.withdrawn += 1
                tally.withdrawn_bad += effect.culprit not in self.truth
                del self.pending[effect.culprit]
                number = self.revert_prs[effect.culprit].number
                self.revert_prs[effect.culprit] = RevertPRFact(
                    culprit=effect.culprit[:12], number=number, state="closed_unmerged"
                )
            elif effect.type == "file_issue" and effect.kind == "needs-human":
                tally.needs_human += 1
                opened = next(b for b in reversed(self.state.branch.breakages) if b.job.endswith(f"/{job}"))
                # Before confirmation: no rerun of the breakage had run yet (the gate in engine/branch_run.py).
                tally.early_issues += opened.reruns == 0
                self.answer(job)
        asked = next((b for b in self.state.branch.breakages if b.job.endswith(f"/{job}") and b.open), None)
        if asked is not None and asked.escalated:
            # A needs-human issue is open about this job's breakage: it covers a break behind it too.
            self.handled.update(broken)
        if broken and self.rng.random() < self.hand:
            # Somebody reverts the culprit by hand before Gauntlet is done with it.
            culprit = next(c for c in self.commits if c.sha == broken[0])
            self.commit(f'Revert "{culprit.subject}"', culprit.files, f"This reverts commit {culprit.sha}.")
            self.breakers.pop(culprit.sha, None)
            self.by_hand.add(culprit.sha)

    def revert(self, culprit: str, tally: Tally) -> None:
        tally.reverts += 1
        if culprit not in self.truth:
            tally.bad += 1
            tally.bad_shas.append(f"{self.name}:{culprit[:7]}")
        else:
            tally.culprits_reverted += 1
            self.handled.add(culprit)
            self.reverted_within[culprit] = (self.red_runs.get(culprit, 0), self.red_attempts.get(culprit, 0))
        # Open until a person merges it after the next push's runs, which may withdraw it first.
        self.revert_prs[culprit] = RevertPRFact(culprit=culprit[:12], number=len(self.revert_prs) + 1, state="open")
        self.pending[culprit] = self.pushes

    def answer(self, job: str) -> None:
        """A person answers a needs-human issue: a fix commit for what is broken."""
        fixed = [sha for sha, j in self.breakers.items() if j == job]
        self.handled.update(fixed)
        if fixed:
            self.commit(f"fix {job}", tuple(sorted({self.broke[sha] for sha in fixed})))
            for sha in fixed:
                del self.breakers[sha]

    def findings(self, log: str) -> tuple[Finding, ...]:
        if log not in self.logs:
            self.logs[log] = findings_of(log)
        return self.logs[log]


FLAKE_RATES = (0.0, 0.05, 0.10, 0.15, 0.20)
#: Chance a change breaks a (green) job: a busy branch that breaks about once a day.
BREAK_RATE = 0.2


def simulated_tally(
    histories: int,
    seed: int,
    config: Config,
    *,
    infra: float,
    hand: float,
    source_share: float,
    same_test: bool = False,
) -> Tally:
    """Run ``histories`` simulated branches of 12 pushes each, flake rates spread over 0-20%.

    :param same_test: the flaky test is the one real breaks of the ``test`` job fail.
    """
    tally = Tally()
    for index in range(histories):
        flaky = FLAKE_RATES[index % len(FLAKE_RATES)]
        rng = np.random.default_rng([seed, index])
        repo = Repository(
            rng,
            config,
            flaky=flaky,
            infra=infra,
            hand=hand,
            name=f"h{index}",
            source_share=source_share,
            same_test=same_test,
        )
        for _ in range(12):
            repo.push(tally)
        tally.culprits += len(repo.truth)
        # A culprit a person reverted first needs no revert PR: it is out of the figure (withdrawals count it).
        nameable = repo.nameable - (repo.by_hand - set(repo.reverted_within))
        tally.nameable += len(nameable)
        tally.by_hand += len(repo.by_hand)
        within = [repo.reverted_within.get(sha, (99, 99)) for sha in nameable]
        tally.within_two += sum(1 for runs, _ in within if runs <= 2)
        tally.within_two_attempts += sum(1 for _, attempts in within if attempts <= 2)
        tally.within_one += sum(1 for runs, _ in within if runs <= 1)
        tally.unhandled += len(repo.truth - repo.handled - repo.by_hand)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--histories", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--infra", type=float, default=0.05, help="chance a run dies on infrastructure")
    parser.add_argument("--hand", type=float, default=0.05, help="chance a person reverts a culprit by hand")
    parser.add_argument(
        "--source-share",
        type=float,
        default=0.5,
        help="share of test breaks made by changing the code under test, not the test file",
    )
    args = parser.parse_args(argv)
    suite = scenario_tally()
    print(suite.line(f"scenario suite ({len(all_scenarios())} histories)"))
    tally = simulated_tally(
        args.histories, args.seed, Config(), infra=args.infra, hand=args.hand, source_share=args.source_share
    )
    print(tally.line(f"simulated, flake 0-20% ({args.histories})"))
    print(
        f"  pushes of 1-3 commits, 15% merge commits, infra faults {args.infra:.0%} of runs, reverts by hand "
        f"{args.hand:.0%}, test breaks in the code under test {args.source_share:.0%}"
    )
    share = tally.within_two / tally.nameable if tally.nameable else 0.0
    attempts = tally.within_two_attempts / tally.nameable if tally.nameable else 0.0
    print(
        f"  culprits DESIGN §3 can name (the only suspect, or the only one that changed the failing file): "
        f"{tally.nameable}; "
        f"reverted within two runs: {tally.within_two} ({share:.1%}); "
        f"within two attempts (the red run and one rerun): {tally.within_two_attempts} ({attempts:.1%})"
    )
    print(
        f"  culprits reverted by hand: {tally.by_hand}; Gauntlet's revert PRs withdrawn: {tally.withdrawn} "
        f"({tally.withdrawn_bad} of them bad); bad revert PRs merged: {tally.merged_bad}"
    )
    mixed = simulated_tally(
        args.histories,
        args.seed,
        Config(),
        infra=args.infra,
        hand=args.hand,
        source_share=args.source_share,
        same_test=True,
    )
    print(mixed.line(f"flakes and breaks of one test ({args.histories})"))
    within = mixed.within_one / mixed.nameable if mixed.nameable else 0.0
    print(
        f"  bad reverts: {mixed.bad}; nameable culprits reverted within the confirmation reruns of their first "
        f"red run: {mixed.within_one}/{mixed.nameable} ({within:.1%}); real breaks left without a revert or an "
        f"issue: {mixed.unhandled}; needs-human issues before confirmation: {mixed.early_issues} "
        f"(all simulated: {tally.early_issues + mixed.early_issues})"
    )
    if tally.bad_shas or mixed.bad_shas:
        print(f"  bad reverts: {', '.join([*tally.bad_shas, *mixed.bad_shas][:10])}")
    if suite.bad_shas:
        print(f"  bad reverts in the suite: {', '.join(suite.bad_shas)}")
    return 1 if suite.bad or tally.bad or mixed.bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
