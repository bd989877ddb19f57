"""Does the dashboard hold at size? Print the render time, the peak memory and the size of the site.

Usage::

    .venv/bin/python bench/report.py [--prs 10000] [--outcomes 200000] [--seed 7] [--keep DIR]

It writes a state folder with ``--prs`` PR files whose iterations hold about ``--outcomes`` test outcomes in all
(a failing finding or a fixed fingerprint each), a default branch with its kept runs (reruns that flip on the
same commit, breaks, reverts), learnings, proposals, defects and issues, every file built with the state's
own models and encoder. Then it runs ``gauntlet report --html`` on it in a fresh process and prints that
process's wall time and peak RSS (``getrusage`` of the child) and the site's size. Some stored text is
hostile (markup, quotes): the site must show it as text. Targets (issue 22): under 10 s, under 200 MB,
under 5 MB.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gauntlet.models import CommitFact
from gauntlet.state.branch import MAX_RUNS_KEPT, BranchRecord, Breakage, RevertRecord, RunRecord
from gauntlet.state.codec import encode_file
from gauntlet.state.models import SHARED_FILES, branch_path, pr_path
from gauntlet.state.pr import MAX_ITERATIONS_KEPT, AcceptedRisk, Attempt, FindingRecord, IterationRecord, PRRecord
from gauntlet.state.shared import (
    DefectEntry,
    DefectLog,
    EffectIndex,
    FixPair,
    LearnedRule,
    LearningBook,
    Proposal,
    ProposalBook,
)
from gauntlet.state.triage import TriageBook, WatchedIssue

__all__ = ["HOSTILE", "write_state"]

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
#: Stored text an attacker could have written (a fork's test names, commit subjects, messages).
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> "quoted" & </table>'
_STATUSES = ("open", "verified", "rolled_back", "unverified", "blocked", "needs_human", "escalated")


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()  # an id, not a security check


def _finding(test: int) -> FindingRecord:
    hostile = test % 97 == 0
    return FindingRecord(
        fingerprint=_sha(f"test-{test}")[:16],
        source="junit",
        tool="pytest",
        kind="test_failure",
        severity="critical",
        path=f"tests/test_module_{test % 50}.py",
        test_id=f"tests/test_module_{test % 50}.py::test_case_{test}" + (HOSTILE if hostile else ""),
        message=f"AssertionError: expected {test} got {test + 1}",
    )


def write_state(root: Path, *, prs: int, outcomes: int, seed: int = 7) -> None:
    """Write a state folder of ``prs`` PRs holding about ``outcomes`` outcomes, and everything around them."""
    rng = random.Random(seed)
    tests = max(50, outcomes // 20)
    findings = [_finding(t) for t in range(tests)]
    per_pr = max(1, outcomes // max(prs, 1))
    (root / "v1" / "prs").mkdir(parents=True, exist_ok=True)
    risk_index: dict[str, int] = {}
    for number in range(1, prs + 1):
        record = _pr(number, per_pr, findings, rng)
        for risk in record.accepted_risks:
            risk_index[f"risk:{risk.fingerprint}"] = risk.issue or 0
        (root / pr_path(number)).write_bytes(encode_file(record))
    branch = _branch(findings, rng)
    (root / branch_path("main")).parent.mkdir(parents=True, exist_ok=True)
    (root / branch_path("main")).write_bytes(encode_file(branch))
    flaky_issues = {f"flaky:{fp}": 5000 + i for i, fp in enumerate(branch.flaky[:10])}
    shared = {
        "learnings": _learnings(findings),
        "proposals": _proposals(rng),
        "defects": _defects(rng),
        "index": EffectIndex(entries=risk_index | flaky_issues),
        "triage": TriageBook(
            issues={
                f"risk:{fp}": WatchedIssue(kind="risk", ident=fp, fingerprint=fp, title=HOSTILE, since=NOW)
                for fp in [key.split(":", 1)[1] for key in risk_index][:50]
            }
        ),
    }
    for name, model in shared.items():
        (root / SHARED_FILES[name]).write_bytes(encode_file(model))


def _pr(number: int, per_pr: int, findings: list[FindingRecord], rng: random.Random) -> PRRecord:
    start = NOW - timedelta(days=60) + timedelta(minutes=number * 8)
    # Iterations 1 … count-1 fail ``per_iteration`` tests; each later one fixes what the one before failed,
    # so a PR holds about ``per_pr`` outcomes and ends clean.
    count = min(MAX_ITERATIONS_KEPT, 2 + int(rng.expovariate(0.6)))
    per_iteration = max(1, -(-per_pr // (2 * (count - 1))))
    iterations: list[IterationRecord] = []
    previous: list[FindingRecord] = []
    for i in range(1, count + 1):
        failing = rng.sample(findings, min(per_iteration, len(findings))) if i < count else []
        iterations.append(
            IterationRecord(
                number=i,
                head_sha=_sha(f"pr{number}-{i}"),
                observations=[f"run-{number}-{i}/1/test"],
                findings=failing,
                fixed=[f.fingerprint for f in previous],
                action="fix_criticals" if failing else "clean",
                at=start + timedelta(hours=i),
            )
        )
        previous = failing
    attempts = []
    if number % 31 == 0:
        attempts = [
            Attempt(
                at=start,
                observation=f"run-{number}",
                head_sha=_sha(f"pr{number}-1"),
                failure_type="circular_fix",
                action="escalate",
                reason="the same failures keep coming back",
            )
        ]
    risks = []
    if number % 19 == 0:
        risks = [
            AcceptedRisk(
                fingerprint=findings[number % len(findings)].fingerprint,
                by="maintainer",
                reason=HOSTILE if number % 3 == 0 else "known, tracked",
                at=start,
                issue=number + 100000,
            )
        ]
    return PRRecord(
        number=number,
        iteration_count=count,
        iterations=iterations,
        attempts=attempts,
        accepted_risks=risks,
        closed=number < 9000,
    )


def _branch(findings: list[FindingRecord], rng: random.Random) -> BranchRecord:
    runs: list[RunRecord] = []
    breakages: list[Breakage] = []
    reverts: list[RevertRecord] = []
    flaky = [f.fingerprint for f in findings[:40]]
    at = NOW - timedelta(days=30)
    red_since: datetime | None = None
    for n in range(MAX_RUNS_KEPT):
        at += timedelta(hours=7)
        sha = _sha(f"main-{n}")
        broken = rng.random() < 0.2
        failing = [f.fingerprint for f in rng.sample(findings[40:], 2)] if broken else []
        runs.append(
            RunRecord(
                observation=f"main-{n}/1/test", head_sha=sha, at=at, green=not broken, failing=failing, job="ci/test"
            )
        )
        if n % 9 == 0:  # a rerun on the same commit flips a flaky test
            flake = flaky[n % len(flaky)]
            runs.append(
                RunRecord(
                    observation=f"main-{n}/2/test",
                    head_sha=sha,
                    at=at + timedelta(minutes=20),
                    green=False,
                    failing=[flake],
                    job="ci/test",
                )
            )
            runs.append(
                RunRecord(
                    observation=f"main-{n}/3/test",
                    head_sha=sha,
                    at=at + timedelta(minutes=40),
                    green=True,
                    job="ci/test",
                )
            )
        if broken and red_since is None:
            red_since = at
            culprit = sha
            subject = f"Change {n} {HOSTILE}" if n % 5 == 0 else f"Tighten the parser for case {n}"
            suspect = CommitFact(sha=culprit, subject=subject, at=at, files=("src/x.py",))
            breakages.append(
                Breakage(
                    id=f"b{n}",
                    job="ci/test",
                    first_red=sha,
                    opened_at=at,
                    suspects=[suspect],
                    culprit=culprit,
                    decision="revert",
                    findings=[findings[40 + n % 100]],
                )
            )
            reverts.append(
                RevertRecord(
                    culprit=culprit,
                    subject=suspect.subject,
                    breakage=f"b{n}",
                    opened_at=at,
                    status=rng.choice(["open", "merged", "closed_unmerged"]),
                    number=20000 + n,
                )
            )
        elif not broken and red_since is not None:
            last = breakages[-1]
            breakages[-1] = last.model_copy(update={"resolved_at": at, "resolution": "reverted"})
            red_since = None
    return BranchRecord(
        name="main",
        runs=runs[-MAX_RUNS_KEPT:],
        last_good=runs[-1].head_sha,
        breakages=breakages,
        reverts=reverts,
        flaky=flaky,
    )


def _learnings(findings: list[FindingRecord]) -> LearningBook:
    rules = [
        LearnedRule(
            id=f"r{i}",
            text=f"Check the fixture before asserting ({i}) {HOSTILE if i == 0 else ''}",
            kind="fix",
            first_seen=NOW,
            last_seen=NOW,
        )
        for i in range(20)
    ]
    fixes = [
        FixPair(
            fingerprint=f.fingerprint,
            error_class="test_failure",
            place="pr:1",
            failed_sha=_sha("a"),
            fixed_sha=_sha(f.fingerprint),
            files=["src/x.py"],
            summary=f"fixed in src/x.py {HOSTILE if i == 0 else ''}",
            rule=f"r{i % 20}",
            at=NOW,
        )
        for i, f in enumerate(findings[:100])
    ]
    return LearningBook(rules=rules, fixes=fixes)


def _proposals(rng: random.Random) -> ProposalBook:
    proposals = [
        Proposal(
            id=f"P{i}",
            component=f"component{i % 6}",
            defect_type="test_failure",
            level="PATCH",
            status=_STATUSES[i % len(_STATUSES)],
            created_at=NOW - timedelta(days=20 - i),
            watch_until=NOW - timedelta(days=13 - i),
            note=HOSTILE if i == 3 else "",
        )
        for i in range(15)
    ]
    return ProposalBook(next_number=16, proposals=proposals)


def _defects(rng: random.Random) -> DefectLog:
    entries = [
        DefectEntry(
            at=NOW - timedelta(days=rng.uniform(0, 40)),
            component=f"component{i % 6}",
            defect_type="test_failure",
            priority="P2",
            fingerprint=_sha(str(i))[:16],
            place=f"pr:{i}",
        )
        for i in range(3000)
    ]
    return DefectLog(entries=entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prs", type=int, default=10_000)
    parser.add_argument("--outcomes", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None, help="write the state and site here and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-report-") as scratch:
        folder = args.keep or Path(scratch)
        state, site = folder / "state", folder / "site"
        started = time.perf_counter()
        write_state(state, prs=args.prs, outcomes=args.outcomes, seed=args.seed)
        print(f"state: {args.prs} PRs written in {time.perf_counter() - started:.1f} s")
        command = [sys.executable, "-m", "gauntlet", "report", "--html", str(site), "--state-dir", str(state)]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size_mb = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 1_000_000
        counted = done.stdout.strip().rpartition(" (")[2].rstrip(")")
        print(f"render: {elapsed:.2f} s (target < 10 s), peak RSS {peak_mb:.0f} MB (target < 200 MB)")
        print(f"site: {size_mb:.2f} MB in {sum(1 for _ in site.glob('*'))} files (target < 5 MB); it read {counted}")
        ok = elapsed < 10 and peak_mb < 200 and size_mb < 5
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
