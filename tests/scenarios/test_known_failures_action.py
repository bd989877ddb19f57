"""Known failures as issues (issue 32, DESIGN §5), through the Action on the sandbox: an open issue labelled
``known-failure`` makes matching failures ``known``; the comment links it, the issue records each PR's hits, and
bad rules or thousands of issues get a reply or a bounded read, never a crash or a hang."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from mainline import LOGS
from scenario import BOT, ONLY_LOGS, REPO, Scenario, log_files, main_with_a_flake_and_a_break, push_event

from gauntlet.demo.payloads import comment_event
from gauntlet.known import KnownRule, parse_issue
from gauntlet.sandbox.store import Issue, now_iso

_VERDICT = re.compile(r"\n```json\n(.*)\n```\n\Z", re.S)
RULE = '```json\n{"pattern": "where \\\\d+ = add\\\\(", "path": "tests/*.py", "kind": "test_failure"}\n```'


def _known_issue(world: Scenario, body: str, title: str = "add() is broken upstream") -> int:
    return int(world.repo.create_issue(title=title, body=body, labels=["known-failure"]).number)


def _bot_comments(world: Scenario, number: int) -> list[Any]:
    return [c for c in world.comments(number) if c.user.login == BOT]


def test_a_known_failure_issue_lets_the_check_pass_is_linked_and_records_the_pr(world: Scenario) -> None:
    main_with_a_flake_and_a_break(world)
    issue = _known_issue(world, f"Until the upstream fix lands.\n\n{RULE}\n")
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    files = log_files("pytest-add-divide-broken.log")
    event = world.pull_request_event(number, sha, "opened")
    pr = world.run("pull_request", event, files=files, inputs=ONLY_LOGS)

    assert pr.code == 0, pr.error
    [check] = world.check_runs(sha)
    assert check.conclusion == "success"
    [comment] = world.comments(number)
    assert "**Nothing of yours is failing: you can merge.** 2 are not yours (1 failing" in comment.body
    assert "1 known" in comment.body
    assert f"(matches known-failure issue [#{issue}](" in comment.body
    assert comment.body.count("tests/test_calc.py::test_add`") == 1
    found = _VERDICT.search(check.output.summary or "")
    assert found is not None
    verdict = json.loads(found.group(1))
    words = {f["test_id"].rsplit("::", 1)[-1]: (f["provenance"], f["blocks"]) for f in verdict["findings"]}
    assert words == {
        "test_add": ("known", False),
        "test_divide": ("preexisting", False),
    }
    assert [f["known_issue"] for f in verdict["findings"] if f["provenance"] == "known"] == [issue]
    [hit] = _bot_comments(world, issue)
    assert f"matched 1 time in #{number}; last on {sha[:7]}" in hit.body

    # The same event again changes nothing on the issue; another run of the PR edits the count in place.
    writes = len(world.requests("POST", f"/issues/{issue}/comments")) + len(world.requests("PATCH", "/comments/"))
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS).code == 0
    assert (
        len(world.requests("POST", f"/issues/{issue}/comments")) + len(world.requests("PATCH", "/comments/")) == writes
    )
    assert [c.body for c in _bot_comments(world, issue)] == [hit.body]
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS, run_id=101).code == 0
    [hit] = _bot_comments(world, issue)
    assert f"matched 2 times in #{number}" in hit.body

    # Closing the issue ends the rule: the next run counts the failure as the PR's again.
    world.repo.get_issue(issue).edit(state="closed")
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS, run_id=102).code == 0
    assert [c.conclusion for c in world.check_runs(sha)] == ["failure"]
    assert len(_bot_comments(world, issue)) == 1


def test_a_bad_rule_is_answered_once_per_version_and_a_catastrophic_pattern_costs_no_time(world: Scenario) -> None:
    broken = _known_issue(world, '```json\n{"message": "assert 0 == 4",}\n```', "bad json")
    slow = _known_issue(world, '```json\n{"pattern": "(a+)+$"}\n```', "catastrophic")
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    log = (LOGS / "pytest-add-divide-broken.log").read_text(encoding="utf-8")
    files = {"pytest.log": log.replace("assert 0 == 4", "assert '" + "a" * 5000 + "!' == 4")}
    event = world.pull_request_event(number, sha, "opened")
    started = time.monotonic()
    pr = world.run("pull_request", event, files=files, inputs=ONLY_LOGS)
    assert pr.code == 0, pr.error
    assert time.monotonic() - started < 30
    [answer] = _bot_comments(world, broken)
    assert "cannot use this known-failure rule" in answer.body and "not valid JSON" in answer.body
    assert not _bot_comments(world, slow)
    assert [c.conclusion for c in world.check_runs(sha)] == ["failure"]
    assert f"#{broken}" in pr.summary

    # Run again: no second answer. Edit the body, still broken: one answer for the new version.
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS, run_id=101).code == 0
    assert len(_bot_comments(world, broken)) == 1
    world.repo.get_issue(broken).edit(body='```json\n{"mesage": "assert"}\n```')
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS, run_id=102).code == 0
    answers = _bot_comments(world, broken)
    assert len(answers) == 2 and "unknown field" in answers[1].body


def test_ten_thousand_known_failure_issues_are_a_bounded_read(world: Scenario) -> None:
    _known_issue(world, RULE)  # creates the label
    repo = world.sandbox.store.repo(*REPO.split("/"))
    assert repo is not None
    with world.sandbox.store.lock:
        for _ in range(10_000):
            stamp = now_iso()
            number = repo.take_number()
            repo.issues[number] = Issue(
                id=world.sandbox.store.next_id(),
                number=number,
                title=f"known {number}",
                body='```json\n{"message": "nothing like this fails"}\n```',
                user="octo",
                labels=["known-failure"],
                created_at=stamp,
                updated_at=stamp,
            )
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    event = world.pull_request_event(number, sha, "opened")
    files = log_files("pytest-add-divide-broken.log")
    # With the start query (its first page free), then by REST alone: two pages at most either way.
    for run_id, inputs, pages in ((100, ONLY_LOGS, 1), (101, {**ONLY_LOGS, "graphql": "false"}, 2)):
        before = len(world.sandbox.requests())
        started = time.monotonic()
        pr = world.run("pull_request", event, files=files, inputs=inputs, run_id=run_id)
        assert pr.code == 0, pr.error
        assert time.monotonic() - started < 60
        served = world.sandbox.requests()[before:]
        listings = [r for r in served if r["path"].endswith("/issues") and "known-failure" in r["query"]]
        assert len(listings) == pages, listings
        assert len(served) <= 12 + pages, [f"{r['method']} {r['path']}" for r in served]
        assert "200 or more known-failure issues are open: only the newest 200 were read" in pr.summary


def test_gauntlet_known_files_the_issue_once_and_the_next_run_counts_the_failure_known(world: Scenario) -> None:
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    files = log_files("pytest-add-divide-broken.log")
    event = world.pull_request_event(number, sha, "opened")
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS).code == 0
    assert [c.conclusion for c in world.check_runs(sha)] == ["failure"]
    world.sandbox.set_permission(REPO, "maya", "maintain")
    as_maya = world.sandbox.pygithub("maya").get_repo(REPO)
    pull = as_maya.get_pull(number)
    for attempt in (1, 2):  # the same command twice: one issue
        comment = as_maya.get_issue(number).create_comment(
            "/gauntlet known tests/test_calc.py::test_add flaky upstream"
        )
        payload = comment_event(comment, pull)
        assert world.run("issue_comment", payload, run_id=300 + attempt).code == 0
    filed = list(world.repo.get_issues(state="all", labels=["known-failure"]))
    assert len(filed) == 1
    [issue] = filed
    assert {label.name for label in issue.labels} >= {"gauntlet", "known-failure"}
    rule = parse_issue(issue.number, issue.body)
    assert isinstance(rule, KnownRule), rule
    assert (rule.message, rule.path, rule.kind) == ("test_add: assert 0 == 4", "tests/test_calc.py", "test_failure")
    assert world.run("pull_request", event, files=files, inputs=ONLY_LOGS, run_id=101).code == 0
    record = world.pr_record(number)
    assert record is not None and {m.issue for m in record.known.values()} == {issue.number}
    assert len(_bot_comments(world, issue.number)) == 1  # the hit


def test_under_faults_each_pr_leaves_one_hit_comment_with_its_count(world: Scenario) -> None:
    issue = _known_issue(world, RULE)
    prs = [world.open_pr(f"break-{i}", {"calc.py": f"def add(a, b):\n    return a * b  # {i}\n"}) for i in range(4)]
    files = log_files("pytest-add-divide-broken.log")
    world.sandbox.set_faults(0.25, seed=11)
    for number, sha in prs:
        for _ in range(8):  # rerun, as a person would, while GitHub keeps failing (exit 3)
            outcome = world.run("pull_request", world.pull_request_event(number, sha), files=files, inputs=ONLY_LOGS)
            if outcome.code != 3:
                break
        assert outcome.code == 0, outcome.error
    world.sandbox.set_faults(0.0)
    assert any(r["status"] >= 429 for r in world.sandbox.requests()), "faults were injected"
    hits = sorted(c.body.splitlines()[-1] for c in _bot_comments(world, issue))
    assert hits == sorted(f"**Gauntlet:** matched 1 time in #{n}; last on {sha[:7]}." for n, sha in prs)


def test_a_known_failure_on_main_is_recorded_and_never_reverted(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    assert (
        world.run(
            "push", push_event(main), files=log_files("pytest-divide-broken.log"), inputs=ONLY_LOGS, run_id=9
        ).code
        == 0
    )
    issue = _known_issue(world, '```json\n{"message": "assert 4 == 3", "path": "tests/test_calc.py"}\n```')
    before = len(world.sandbox.requests())
    done = world.run("push", push_event(main), files=log_files("pytest-divide-broken.log"), inputs=ONLY_LOGS, run_id=10)
    assert done.code == 0, done.error
    [hit] = _bot_comments(world, issue)
    assert f"matched 1 time in `main`; last on {main[:7]}" in hit.body
    served = [f"{r['method']} {r['path']}" for r in world.sandbox.requests()[before:]]
    assert not [r for r in served if r.endswith("/rerun-failed-jobs") or r.endswith("/pulls")], served
    assert done.report["recovery"]["action"] == "skip" and "(known)" in done.report["recovery"]["reason"]
