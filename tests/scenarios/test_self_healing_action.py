"""Self-healing through the action on the sandbox: a PR run learns a reviewer's rule and records the defect on the
state branch; the scheduled run proposes it as a PR on the agent-rules file, once.
"""

from __future__ import annotations

import json

from scenario import BOT, DEMO, OWNER, REPO, Scenario

from gauntlet.github.rules_file import read_rules
from gauntlet.state.shared import ProposalBook

RULE = "Raise ValueError for invalid arguments instead of leaking ZeroDivisionError."
SCHEDULE = {"schedule": "17 3 * * *", "repository": {"full_name": REPO, "default_branch": "main"}}


def test_a_reviewers_rule_is_learned_shown_and_proposed_by_the_scheduled_run(world: Scenario) -> None:
    number, sha = world.open_pr("divide", {"calc.py": "def divide(a, b):\n    return a / b\n"})
    review = (DEMO / "review-iteration-1.json").read_text(encoding="utf-8")
    ran = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files={"review.json": review})
    assert ran.code == 0, ran.error
    [comment] = world.comments(number)
    assert "### Rules learned in this repository" in comment.body and RULE in comment.body
    learned = json.loads(world.state_file("v1/learnings.json") or b"{}")
    assert [r["text"] for r in learned["rules"]] == [RULE]

    lonely = world.run("schedule", SCHEDULE, run_id=199)
    assert lonely.code == 0 and lonely.report["proposals"] == []  # one PR is not a recurrence
    second, sha = world.open_pr("divide-again", {"calc.py": "def divide(a, b):\n    return a // b\n"})
    ran = world.run("pull_request", world.pull_request_event(second, sha, "opened"), files={"review.json": review})
    assert ran.code == 0, ran.error

    scan = world.run("schedule", SCHEDULE, run_id=200)
    assert scan.code == 0, scan.error
    assert scan.report["proposals"] == ["SH-1"]
    book = ProposalBook.model_validate_json(world.state_file("v1/proposals.json") or b"")
    [proposal] = book.proposals
    assert (proposal.level, proposal.status, proposal.defect_type, proposal.rules) == (
        "MINOR",
        "pending",
        "review",
        [RULE],
    )
    repo = world.owner.get_repo(REPO)
    [pull] = list(repo.get_pulls(state="all", head=f"{OWNER}:gauntlet/proposal-SH-1"))
    assert pull.user.login == BOT and "<!-- gauntlet:key=proposal:SH-1 -->" in pull.body
    agents = repo.get_contents("AGENTS.md", ref=pull.head.sha)
    assert not isinstance(agents, list)
    assert read_rules(agents.decoded_content.decode()) == (RULE,)

    again = world.run("schedule", SCHEDULE, run_id=201)
    assert again.code == 0, again.error
    assert again.report["proposals"] == [] and again.report["effects"] == []
    assert len(list(repo.get_pulls(state="all", head=f"{OWNER}:gauntlet/proposal-SH-1"))) == 1
