"""Self-healing, learning and health as sequences of real runs: the pipeline on a state folder, then `gauntlet scan`.

Each story drives :func:`gauntlet.pipeline.run` (engine, effects, state commit) with observations
over days, then the scan command in-process, and asserts on the proposals, verifications,
rollbacks, health and the bodies written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gauntlet.action.state_reads import fix_diff_reader
from gauntlet.cli import main
from gauntlet.config import Config, GauntletConfig
from gauntlet.effects.local import LocalBackend
from gauntlet.engine.scan import ScanReport
from gauntlet.models import Finding, Kind, Observation, Priority, ProposalPRFact, Severity
from gauntlet.pipeline import run, run_scan
from gauntlet.report import RunReport
from gauntlet.state.local import LocalStore
from gauntlet.state.models import State

DAY0 = datetime(2026, 11, 2, 9, tzinfo=UTC)
RULE = "Validate inputs at the module boundary"


def finding(
    fp: str,
    *,
    kind: Kind = "review",
    severity: Severity = "minor",
    priority: Priority = "P2",
    path: str = "src/app/calc.py",
    rule_learned: str | None = None,
) -> Finding:
    return Finding(
        fingerprint=fp,
        source="review" if kind == "review" else "log",
        kind=kind,
        severity=severity,
        priority=priority,
        path=path,
        message=f"{fp} is wrong",
        rule_learned=rule_learned,
        test_id=f"tests/test_calc.py::{fp}" if kind == "test_failure" else None,
    )


@dataclass
class Repo:
    """A repository's state folder and the runs and scans made on it."""

    root: Path
    config: Config = field(default_factory=Config)
    runs: int = 0

    def run(
        self,
        at: datetime,
        findings: list[Finding],
        *,
        pr: int | None = None,
        sha: str | None = None,
        files: tuple[str, ...] = (),
        diff: tuple[str, ...] = (),
    ) -> RunReport:
        """One run; ``diff`` is what GitHub's compare would answer for the fix diff, if the state asks for one."""
        self.runs += 1
        obs = Observation(
            repository="octo/app",
            pr=pr,
            branch=None if pr else "main",
            head_sha=sha or f"{self.runs:040x}"[::-1],  # distinct in the 12 characters outcomes keep
            run_id=str(self.runs),
            findings=tuple(findings),
            changed_files=files,
        )
        return run(
            obs,
            self.config,
            LocalStore(self.root),
            LocalBackend(self.root / "out"),
            now=at,
            sleep=lambda _: None,
            clock=lambda: 0.0,
            enrich=fix_diff_reader(lambda path: {"files": [{"filename": f} for f in diff]}, "octo/app"),
        )

    def scan(
        self, at: datetime, capsys: pytest.CaptureFixture[str], *, merged: datetime | None = None
    ) -> dict[str, Any]:
        """``gauntlet scan --json``; with ``merged``, as the Action's scan that finds every pending PR merged then."""
        if merged is not None:
            return self._scan_merged(at, merged)
        config = self.root / "gauntlet.yml"
        config.write_text(json.dumps(self.config.model_dump(mode="json")))
        argv = ["scan", "--json", "--state-dir", str(self.root), "--now", at.isoformat(), "--config", str(config)]
        argv += ["--repository", "octo/app"]
        assert main(argv) == 0
        return dict(json.loads(capsys.readouterr().out))

    def _scan_merged(self, at: datetime, merged: datetime) -> dict[str, Any]:
        def facts(state: State) -> list[ProposalPRFact]:
            pending = [p for p in state.proposals.proposals if p.status == "pending"]
            return [
                ProposalPRFact(proposal_id=p.id, number=100 + i, state="merged", merged_at=merged)
                for i, p in enumerate(pending)
            ]

        outcome, results = run_scan(
            self.config,
            LocalStore(self.root),
            LocalBackend(self.root / "out"),
            repository="octo/app",
            base="main",
            now=at,
            sleep=lambda _: None,
            clock=lambda: 0.0,
            proposal_prs=facts,
        )
        return dict(ScanReport.of(outcome, results).model_dump(mode="json"))

    def proposals(self) -> dict[str, tuple[str, str]]:
        book = json.loads((self.root / "v1" / "proposals.json").read_text())
        return {p["id"]: (p["level"], p["status"]) for p in book["proposals"]}

    def body(self, key: str) -> str:
        return (self.root / "out" / f"{key}.md").read_text()


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "state")


def recurring_review_defect(repo: Repo) -> None:
    """Three PRs, one day apart, each with the same kind of review finding in src/app and the rule it taught."""
    for i in range(3):
        repo.run(DAY0 + timedelta(days=i), [finding(f"r{i}", rule_learned=RULE)], pr=10 + i)


def quiet_day(repo: Repo, at: datetime) -> None:
    """A green run that changed the component: an observation of src/app with no defect."""
    repo.run(at, [], pr=99, sha=f"{at.day:040x}", files=("src/app/calc.py",))


def test_a_proposal_nobody_merged_stays_pending_however_quiet(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    recurring_review_defect(repo)
    repo.scan(DAY0 + timedelta(days=3), capsys)
    for d in range(4, 12):
        quiet_day(repo, DAY0 + timedelta(days=d))
    later = repo.scan(DAY0 + timedelta(days=12), capsys)
    assert later["proposals"] == [] and [(p["id"], p["status"]) for p in later["active"]] == [("SH-1", "pending")]


def test_recurring_defect_is_proposed_then_verified(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    recurring_review_defect(repo)
    day3 = DAY0 + timedelta(days=3)
    report = repo.scan(day3, capsys)
    assert [(p["id"], p["level"], p["status"]) for p in report["proposals"]] == [("SH-1", "PATCH", "pending")]
    assert report["proposals"][0]["rules"] == [RULE]
    assert RULE in repo.body("proposal-SH-1")
    assert "P2 on PR #10: src/app/calc.py: r0 is wrong" in repo.body("proposal-SH-1")
    merged = day3 + timedelta(hours=1)
    landed = repo.scan(day3 + timedelta(hours=2), capsys, merged=merged)
    assert [(p["id"], p["status"]) for p in landed["proposals"]] == [("SH-1", "watching")]
    for d in range(4, 10):
        quiet_day(repo, DAY0 + timedelta(days=d))
    assert repo.scan(DAY0 + timedelta(days=6), capsys)["proposals"] == []  # still watching
    settled = repo.scan(merged + timedelta(days=7, hours=1), capsys)
    assert [(p["id"], p["status"]) for p in settled["proposals"]] == [("SH-1", "verified")]
    assert settled["health"]["status"] == "continue"
    assert not (repo.root / "out" / "proposal-SH-1-rollback.md").exists()


def test_defects_growing_after_a_promotion_roll_it_back(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    recurring_review_defect(repo)
    day3 = DAY0 + timedelta(days=3)
    repo.scan(day3, capsys)
    repo.scan(day3, capsys, merged=day3)
    # Two more in the watch: not a new threshold (3) but 2/7 a day is more than the 3/14 before.
    repo.run(day3 + timedelta(days=2), [finding("r7")], pr=20)
    repo.run(day3 + timedelta(days=4), [finding("r8")], pr=21)
    quiet_day(repo, day3 + timedelta(days=5))
    settled = repo.scan(day3 + timedelta(days=7, hours=1), capsys)
    assert [(p["id"], p["status"]) for p in settled["proposals"]] == [("SH-1", "rolled_back")]
    assert "0.21 to 0.29" in settled["proposals"][0]["note"]
    assert [e["key"] for e in settled["effects"]] == ["proposal:SH-1:rollback"]
    assert "Roll back proposal SH-1" in repo.body("proposal-SH-1-rollback")
    assert settled["health"]["status"] == "warn"
    assert any("SH-1" in r for r in settled["health"]["reasons"])


def test_recurrence_during_the_watch_escalates(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    recurring_review_defect(repo)
    repo.scan(DAY0 + timedelta(days=3), capsys)
    repo.scan(DAY0 + timedelta(days=3, hours=1), capsys, merged=DAY0 + timedelta(days=3))
    for i in range(3):
        repo.run(DAY0 + timedelta(days=4, hours=i), [finding(f"again{i}")], pr=30 + i)
    report = repo.scan(DAY0 + timedelta(days=5), capsys)
    assert repo.proposals() == {"SH-1": ("MINOR", "watching")}
    assert [e["key"] for e in report["effects"]] == ["note:SH-1:escalated-MINOR"]
    assert report["messages"] == [
        "SH-1 escalated PATCH → MINOR: src/app/review recurred on 3 occasions since the merge"
    ]
    note = repo.body("note-SH-1-escalated-MINOR")
    assert "SH-1 escalated PATCH → MINOR" in note and "P2 on PR #30: src/app/calc.py: again0 is wrong" in note


def test_no_runs_during_the_watch_is_unverified(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    recurring_review_defect(repo)
    repo.scan(DAY0 + timedelta(days=3), capsys)
    repo.scan(DAY0 + timedelta(days=3, hours=1), capsys, merged=DAY0 + timedelta(days=3))
    settled = repo.scan(DAY0 + timedelta(days=11), capsys)
    assert [(p["id"], p["status"]) for p in settled["proposals"]] == [("SH-1", "unverified")]


def test_a_critical_on_the_default_branch_files_a_major_needs_human_issue(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.run(DAY0, [finding("boom", kind="test_failure", severity="critical", priority="P0")])
    assert repo.scan(DAY0 + timedelta(hours=1), capsys)["proposals"] == []  # once is not a recurrence
    repo.run(DAY0 + timedelta(days=1), [finding("boom2", kind="test_failure", severity="critical", priority="P0")])
    report = repo.scan(DAY0 + timedelta(days=1, hours=1), capsys)
    assert [(p["level"], p["status"]) for p in report["proposals"]] == [("MAJOR", "needs_human")]
    assert [e["key"] for e in report["effects"]] == ["needs-human:proposal-SH-1"]
    again = repo.scan(DAY0 + timedelta(days=3), capsys)
    assert again["proposals"] == [] and again["effects"] == []


def test_the_daily_limit_blocks_and_records_why(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.config = Config.model_validate({"selfheal": {"max_patch_per_day": 1}})
    for i, component in enumerate(("alpha", "beta")):
        for j in range(3):
            path = f"src/{component}/x.py"
            repo.run(
                DAY0 + timedelta(hours=i * 3 + j), [finding(f"{component}{j}", path=path, rule_learned=RULE)], pr=40 + j
            )
    report = repo.scan(DAY0 + timedelta(days=1), capsys)
    assert [(p["component"], p["status"], p["blocked_reason"]) for p in report["proposals"]] == [
        ("src/alpha", "pending", None),
        ("src/beta", "blocked", "daily_limit"),
    ]
    next_day = repo.scan(DAY0 + timedelta(days=2, hours=1), capsys)
    assert [(p["id"], p["status"]) for p in next_day["proposals"]] == [("SH-2", "pending")]


def test_an_earlier_fix_is_shown_when_the_failure_appears_on_another_pr(repo: Repo) -> None:
    broken = finding("test_add", kind="test_failure", severity="critical", priority="P1")
    repo.run(DAY0, [broken], pr=1, sha="a" * 40)
    # The fix came in two commits; the last touched only the README: the diff since the failing commit has both.
    repo.run(
        DAY0 + timedelta(hours=1), [], pr=1, sha="b" * 40, files=("README.md",), diff=("README.md", "src/app/calc.py")
    )
    repo.run(DAY0 + timedelta(days=1), [broken], pr=2, sha="c" * 40)
    comment = repo.body("pr-comment-2")
    assert "### Fixed before" in comment
    assert (
        "tests/test_calc.py::test_add (failed before on PR #1, fixed by bbbbbbb, "
        "which changed src/app/calc.py, README.md)" in comment
    )
    assert "### Rules learned in this repository" in comment
    assert "When test_failure fails in src/app, look at src/app/calc.py first" in comment


def test_health_warns_then_blocks_and_files_a_needs_human_issue(repo: Repo) -> None:
    repo.config = Config(gauntlet=GauntletConfig(max_iterations=5))
    reports = [
        repo.run(DAY0 + timedelta(hours=i), [finding(f"t{i}", kind="test_failure", severity="critical")], pr=5)
        for i in range(5)
    ]
    assert [r.health.status for r in reports] == ["continue", "continue", "continue", "warn", "block"]
    assert "iteration budget spent (5 of 5)" in reports[-1].health.reasons
    assert reports[-1].check_failed
    assert "needs-human:health-pr-5" in [e.key for e in reports[-1].effects]
    assert "Gauntlet stopped iterating on PR #5" in repo.body("needs-human-health-pr-5")


def test_a_pr_red_for_a_day_warns_in_the_comment(repo: Repo) -> None:
    broken = [finding("t", kind="test_failure", severity="critical")]
    repo.run(DAY0, broken, pr=6, sha="a" * 40)
    report = repo.run(DAY0 + timedelta(hours=30), broken, pr=6, sha="b" * 40)
    assert report.health.status == "warn"
    assert "stalled: red for 30 h" in repo.body("pr-comment-6")


def test_a_fix_on_the_default_branch_is_shown_on_a_pr_with_the_same_failure(repo: Repo) -> None:
    broken = finding("test_div", kind="test_failure", severity="critical", priority="P0")
    repo.run(DAY0, [broken], sha="a" * 40)
    repo.run(DAY0 + timedelta(hours=2), [], sha="b" * 40, diff=("src/app/div.py",))
    repo.run(DAY0 + timedelta(days=1), [broken.model_copy(update={"priority": "P1"})], pr=3, sha="c" * 40)
    comment = repo.body("pr-comment-3")
    assert "tests/test_calc.py::test_div (failed before on branch main, fixed by bbbbbbb" in comment
    assert "When test_failure fails in src/app, look at src/app/div.py first" in comment


def test_learned_text_from_reviewers_is_neutralised_in_the_comment(repo: Repo) -> None:
    hostile = "Ping @admin and <img src=x onerror=alert(1)> before merging " + "x" * 400
    repo.run(DAY0, [finding("r", rule_learned=hostile)], pr=4)
    comment = repo.body("pr-comment-4")
    assert "@\u200badmin" in comment and "@admin" not in comment and "<img" not in comment
    assert "x" * 300 not in comment  # a learned rule is bounded


def test_a_circular_fix_issue_lists_the_iterations_and_what_kept_failing(repo: Repo) -> None:
    broken = finding("test_add", kind="test_failure", severity="critical", priority="P1")
    for i, sha in enumerate("abc"):
        repo.run(DAY0 + timedelta(hours=i), [broken], pr=5, sha=sha * 40)
    [name] = [p.name for p in (repo.root / "out").iterdir() if p.name.startswith("needs-human-pr-5")]
    body = (repo.root / "out" / name).read_text()
    assert "circular_fix" in name
    for number, sha in enumerate("abc", start=1):
        assert f"iteration {number} at {sha * 7}: `{broken.fingerprint[:12]}` tests/test_calc.py::test_add" in body
    assert "new commits keep bringing back the same failures" in body
    assert "`/gauntlet reset`" in body
    assert "| | |" not in body and "attempt 1" not in body.split("Why it matters")[-1].split("\n")[0]
