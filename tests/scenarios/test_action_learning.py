"""What PR runs through the Action teach, and whether a proposal built on it can verify (issue 30, items 6 and 7).

A failure that merely went away is no failure→fix pair: a renamed test did not pass under its id, and a flake that
did not recur fixed nothing. A recurring test failure counts under the component of the code it tests, which is
what the fixes change and what a proposal's watch can see exercised. CI's output is real: pytest run here on a small
project (JUnit XML), or the pytest logs of ``main_branch/logs`` (see its ``generate.sh``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from scenario import OWNER, REPO, Scenario, log_files

from gauntlet.demo.payloads import schedule_event
from gauntlet.state.shared import LearningBook, ProposalBook

CALC = "def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a / b\n"
BROKEN_CALC = CALC.replace("a + b", "a - b")
TESTS = (
    "from app.calc import add, divide\n\n\n"
    "def test_add():\n    assert add(2, 2) == 4\n\n\n"
    "def test_divide():\n    assert divide(9, 3) == 3\n"
)
JUNIT = {"logs": "", "findings": "junit.xml"}


def pytest_junit(folder: Path, files: dict[str, str]) -> str:
    """Run pytest for real on a project of ``files``; its JUnit XML report."""
    for name, text in {"src/app/__init__.py": "", **files}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    report = folder / "junit.xml"
    env = {**os.environ, "PYTHONPATH": str(folder / "src")}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", "tests"]
    subprocess.run(command, cwd=folder, env=env, capture_output=True, check=False)
    return report.read_text(encoding="utf-8")


def learned(world: Scenario) -> LearningBook:
    return LearningBook.model_validate_json(world.state_file("v1/learnings.json") or b"{}")


def test_renaming_a_failing_test_is_no_fix_and_teaches_nothing(world: Scenario, tmp_path: Path) -> None:
    """Issue 30, item 6: the failing ``test_add`` renamed (still failing) is gone from the report, not fixed."""
    project = {"src/app/calc.py": BROKEN_CALC, "tests/test_calc.py": TESTS}
    number, sha = world.open_pr("rename", project)
    first = pytest_junit(tmp_path / "one", project)
    assert 'name="test_add"' in first and "<failure" in first
    ran = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files={"junit.xml": first},
                    inputs=JUNIT)  # fmt: skip
    assert ran.code == 0 and ran.outputs["criticals"] == "1", (ran.code, ran.outputs, ran.error)

    renamed = {**project, "tests/test_calc.py": TESTS.replace("def test_add(", "def test_add_renamed(")}
    sha = world.push(number, {"tests/test_calc.py": renamed["tests/test_calc.py"]})
    second = pytest_junit(tmp_path / "two", renamed)
    assert 'name="test_add_renamed"' in second and 'name="test_divide"' in second
    ran = world.run("pull_request", world.pull_request_event(number, sha), files={"junit.xml": second},
                    inputs=JUNIT, run_id=101)  # fmt: skip
    assert ran.code == 0 and ran.outputs["iteration"] == "2", (ran.code, ran.outputs, ran.error)

    book = learned(world)
    pairs = [(p.summary, p.confidence) for p in book.fixes]
    assert (pairs, [r.text for r in book.rules if r.kind == "fix"]) == ([], []), "test_add never passed: no fix"


def test_a_flake_that_did_not_recur_is_no_fix(world: Scenario) -> None:
    """Issue 30, item 6: ``test_lucky`` failed and passed on one commit; its absence on the next fixed nothing."""
    number, sha = world.open_pr("lucky", {"src/app/calc.py": CALC})
    event = world.pull_request_event(number, sha, "opened")
    only = {"logs": "*.log", "findings": ""}
    flaked = world.run("pull_request", event, files=log_files("pytest-lucky-flaky.log"), inputs=only)
    assert flaked.code == 0 and flaked.outputs["criticals"] == "1", flaked.error
    rerun = world.run("pull_request", event, files=log_files("pytest-pass.log"), inputs=only, attempt=2)
    assert rerun.code == 0 and rerun.report["provenance"]["counts"]["flaky"] == 1, rerun.error  # on one commit

    sha = world.push(number, {"src/app/calc.py": CALC + "\n# tidy\n"})
    later = world.run("pull_request", world.pull_request_event(number, sha), files=log_files("pytest-pass.log"),
                      inputs=only, run_id=101)  # fmt: skip

    assert later.code == 0 and later.outputs["iteration"] == "2", later.error
    assert [p.summary for p in learned(world).fixes] == [], "a flake that did not come back fixed nothing"


def test_a_proposal_about_a_recurring_test_failure_is_verified_by_changes_to_the_code_it_tests(
    world: Scenario,
) -> None:
    """Issue 30, item 7: ``tests/test_calc.py::test_add`` fails on two PRs that change ``src/app/calc.py`` and are
    fixed there; the proposal is about ``src/app``, which the PRs of its watch change, so it ends verified."""
    # The sandbox stamps a merge with the wall clock and the watch starts at the merge: the story's days end now.
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=3)
    only = {"logs": "*.log", "findings": ""}
    run_id = 100
    for n in range(2):
        number, sha = world.open_pr(f"add-{n}", {"src/app/calc.py": BROKEN_CALC + f"# {n}\n"})
        at = start + timedelta(days=n)
        event = world.pull_request_event(number, sha, "opened")
        red = world.run("pull_request", event, files=log_files("pytest-add-broken.log"), inputs=only,
                        run_id=run_id, now=at)  # fmt: skip
        assert red.code == 0 and red.outputs["criticals"] == "1", red.error
        sha = world.push(number, {"src/app/calc.py": CALC + f"# {n}\n"})
        green = world.run("pull_request", world.pull_request_event(number, sha), files=log_files("pytest-pass.log"),
                          inputs=only, run_id=run_id + 1, now=at + timedelta(hours=1))  # fmt: skip
        assert green.code == 0, green.error
        run_id += 2
    assert [r.text for r in learned(world).rules if r.kind == "fix"], "the fixes taught a rule"

    scan = world.run("schedule", schedule_event(REPO), files={}, inputs={}, run_id=300, now=start + timedelta(days=2))
    assert scan.code == 0 and scan.report["proposals"] == ["SH-1"], scan.error
    [proposal] = ProposalBook.model_validate_json(world.state_file("v1/proposals.json") or b"").proposals
    [pull] = list(world.repo.get_pulls(state="all", head=f"{OWNER}:gauntlet/proposal-SH-1"))
    assert pull.merge().merged  # a person promotes the rules
    merged_at = world.repo.get_pull(pull.number).merged_at.replace(tzinfo=UTC)
    watch = world.run("schedule", schedule_event(REPO), files={}, inputs={}, run_id=301,
                      now=merged_at + timedelta(minutes=1))  # fmt: skip
    assert watch.code == 0, watch.error

    for n in range(3):  # the watch: PRs change the code under test, and test_add keeps passing
        number, sha = world.open_pr(f"more-{n}", {"src/app/calc.py": CALC + f"# more {n}\n"})
        event = world.pull_request_event(number, sha, "opened")
        done = world.run("pull_request", event, files=log_files("pytest-pass.log"), inputs=only, run_id=400 + n,
                         now=merged_at + timedelta(days=1 + n))  # fmt: skip
        assert done.code == 0, done.error
    settle = world.run("schedule", schedule_event(REPO), files={}, inputs={}, run_id=302,
                       now=merged_at + timedelta(days=7, hours=1))  # fmt: skip

    assert settle.code == 0, settle.error
    [settled] = ProposalBook.model_validate_json(world.state_file("v1/proposals.json") or b"").proposals
    assert (proposal.component, proposal.defect_type, settled.status) == ("src/app", "test_failure", "verified"), (
        settled.note,
        json.dumps(settle.report["proposals"]),
    )
