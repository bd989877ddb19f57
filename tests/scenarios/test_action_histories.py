"""Main-branch histories every busy repository has (issue 30), through the Action on the sandbox.

Gauntlet watches CI's runs of main from ``workflow_run`` (examples/workflows/gauntlet.yml); CI's ``test`` job
prints real pytest output (``tests/scenarios/main_branch/logs``, see its ``generate.sh``). GitHub is played as
it behaves: when Gauntlet asks for a rerun of the failed jobs, the run gets a new attempt, which fails again
for a real break and passes for a flake.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from scenario import NOW, ONLY_LOGS, REAL_LOGS, REPO, Scenario, log_files, push_event

from gauntlet.dashboard.figures import Dashboard, collect
from gauntlet.dashboard.source import StateSource, export_ref
from gauntlet.sandbox import JobSeed

WATCH = {"download_logs": "true", "logs": "", "findings": ""}
OWN = {"workflow": "Gauntlet", "job": "gauntlet"}
BROKEN, FLAKY, GREEN = "pytest-add-broken.log", "pytest-lucky-flaky.log", "pytest-pass.log"


class Main:
    """CI's runs of main, delivered to Gauntlet from ``workflow_run``, rerun when it asks."""

    def __init__(self, world: Scenario) -> None:
        self.world = world
        self.repo = world.owner.get_repo(REPO)
        self.delivery = 9000
        self.asked_before_rerun: list[list[str]] = []
        self.now = NOW  # the clock of Gauntlet's next delivery

    def run(self, sha: str, *logs: str) -> list[dict[str, Any]]:
        """A CI run of ``sha`` whose attempts print ``logs`` in turn (the last one repeats); Gauntlet's effects."""
        text = [(REAL_LOGS / log).read_text(encoding="utf-8") for log in logs]
        job = JobSeed(name="test", conclusion="success" if logs[0] == GREEN else "failure", log=text[0])
        run = self.world.sandbox.seed_run(REPO, jobs=[job], head_branch="main", head_sha=sha, event="push").id
        effects = self.deliver(run)
        self.asked_before_rerun.append([e["type"] for e in effects])
        for attempt in range(1, 7):
            if ("rerun_failed_jobs", "created") not in {(e["type"], e["status"]) for e in effects}:
                break
            log, name = text[min(attempt, len(text) - 1)], logs[min(attempt, len(logs) - 1)]
            self.world.sandbox.finish_jobs(REPO, run, {"test": ("success" if name == GREEN else "failure", log)})
            effects = self.deliver(run)
        return effects

    def deliver(self, run: int) -> list[dict[str, Any]]:
        payload = {
            "action": "completed",
            "workflow_run": self.repo.get_workflow_run(run).raw_data,
            "repository": {"full_name": REPO, "default_branch": "main"},
        }
        self.delivery += 1
        outcome = self.world.run("workflow_run", payload, inputs=WATCH, run_id=self.delivery, now=self.now, **OWN)
        assert outcome.code == 0, outcome.error
        return list(outcome.report["effects"])

    def needs_human(self) -> list[Any]:
        return list(self.repo.get_issues(state="all", labels=["needs-human"]))

    def reverts(self) -> list[str]:
        return [p.head.ref.removeprefix("gauntlet/revert-") for p in self.repo.get_pulls(state="all")]


def _commit(world: Scenario, files: dict[str, str], message: str) -> str:
    return world.sandbox.commit(REPO, files, message)


def _green_main(main: Main) -> str:
    good = main.world.sandbox.head(REPO) or ""
    main.run(good, GREEN)
    return good


def test_a_real_break_of_a_test_with_a_flaky_history_is_still_reverted(world: Scenario) -> None:
    main = Main(world)
    good = _green_main(main)
    docs = _commit(world, {"docs/guide.md": "More\n"}, "Docs")
    main.run(docs, BROKEN, GREEN)  # test_add fails, then passes on the same commit: a flake
    assert any("flaky" in i.title.lower() or "flak" in (i.body or "") for i in world.repo.get_issues(state="all"))
    assert main.reverts() == [] and main.needs_human() == []

    culprit = _commit(world, {"calc.py": "def add(a, b):\n    return a * b - 1\n"}, "Break add")
    main.run(culprit, BROKEN)  # every attempt fails: a break, whatever the test's history

    assert main.reverts() == [culprit[:12]]
    assert world.file_at("calc.py", world.repo.get_pulls(state="all")[0].head.sha) == world.file_at("calc.py", good)


def test_a_code_commit_and_a_docs_commit_pushed_together_blame_the_code_commit(world: Scenario) -> None:
    main = Main(world)
    _green_main(main)
    culprit = _commit(world, {"calc.py": "def add(a, b):\n    return a * b - 1\n"}, "Break add")
    tip = _commit(world, {"docs/guide.md": "More\n"}, "Docs")
    main.run(tip, BROKEN)

    assert main.reverts() == [culprit[:12]], "the code commit, not the docs commit or a human"
    assert main.needs_human() == []


def test_no_needs_human_issue_before_the_rerun_has_spoken(world: Scenario) -> None:
    main = Main(world)
    _green_main(main)
    _commit(world, {"src/util.py": "X = 2\n"}, "Tweak")
    tip = _commit(world, {"docs/guide.md": "More\n"}, "Docs")
    main.run(tip, FLAKY, GREEN)  # a one-off flake on a two-commit push

    assert main.asked_before_rerun[-1].count("rerun_failed_jobs") == 1
    assert "file_issue" not in main.asked_before_rerun[-1], "the first red run files nothing"
    assert main.needs_human() == [] and main.reverts() == []


def _dashboard(world: Scenario, folder: Path) -> Dashboard:
    """The dashboard's figures, read as ``gauntlet report`` reads them: the state branch exported from git."""
    repo = world.sandbox.store.repo(*REPO.split("/"))
    assert repo is not None
    export_ref(repo.git.path, "gauntlet-state", folder)
    return collect(StateSource(folder))


def test_the_dashboard_agrees_with_what_happened_on_main(world: Scenario, tmp_path: Path) -> None:
    """Issue 30, item 9: a flaky-test issue and the dashboard give one flake rate; a CI run rerun twice is one
    run; a revert Gauntlet withdrew reads withdrawn; the page's date is never before a row it lists."""
    main = Main(world)
    good = _green_main(main)
    docs = _commit(world, {"docs/guide.md": "More\n"}, "Docs")
    main.run(docs, FLAKY, GREEN)  # test_lucky fails, then passes on the same commit: a flake
    [flaky] = [i for i in world.repo.get_issues(state="all") if "flaky" in i.title.lower()]
    [row] = _dashboard(world, tmp_path / "after-the-flake").flaky
    # The issue states the figure the dashboard shows, as the flake rate (not some other rate beside it).
    stated = re.findall(r"flake rate (\d+%)", flaky.body)[:1]
    flake_rates = (stated, [f"{row.flake_rate:.0%}"])

    culprit = _commit(world, {"calc.py": "def add(a, b):\n    return a * b - 1\n"}, "Break add")
    main.now = NOW + timedelta(minutes=10)
    main.run(culprit, BROKEN)  # red on the first attempt and on each rerun Gauntlet asks for: reverted
    assert main.reverts() == [culprit[:12]]
    fixed = _commit(world, {"calc.py": world.file_at("calc.py", good) or ""}, "Fix add by hand")
    main.now = NOW + timedelta(minutes=20)
    main.run(fixed, GREEN)  # green again without the revert: Gauntlet withdraws it
    [revert] = list(world.repo.get_pulls(state="all"))
    assert revert.state == "closed" and not revert.merged
    # A step of CI's lint job that started before the last red run and committed its state after it, as
    # concurrent runs do (the clock a run reads when it starts stamps its record).
    late = world.run("push", push_event(fixed), files=log_files("pytest-pass.log"), inputs=ONLY_LOGS, run_id=77,
                     job="lint", now=NOW + timedelta(minutes=5))  # fmt: skip
    assert late.code == 0, late.error

    dashboard = _dashboard(world, tmp_path / "at-the-end")
    [branch] = dashboard.branches
    assert [len(names) for names in main.asked_before_rerun] and main.reverts() == [culprit[:12]]
    shown = [t for b in branch.breaks for t in (b.opened_at, b.resolved_at) if t]
    shown += [r.opened_at for r in branch.reverts]
    # CI's runs: green main, the flake (green at its rerun), the break (red at every rerun), the fix, and the lint
    # step's run: five runs, one of them red, however many attempts the reruns added.
    seen = {
        "flake rate: the issue's, the dashboard's": flake_rates,
        "runs, red runs": (branch.runs, branch.red_runs),
        "reverts": [(r.culprit[:12], r.status) for r in branch.reverts],
        "state as of covers every row": dashboard.as_of is not None and dashboard.as_of >= max(shown),
    }
    assert seen == {
        "flake rate: the issue's, the dashboard's": (flake_rates[1], flake_rates[1]),
        "runs, red runs": (5, 1),
        "reverts": [(culprit[:12], "withdrawn")],
        "state as of covers every row": True,
    }, (dashboard.as_of, shown)
