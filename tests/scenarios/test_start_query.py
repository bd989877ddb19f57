"""The run's start query (``github/start.py``) reads what the REST calls it replaces read, on the sandbox.

The state head and record equal REST's; a record GraphQL cuts short and a review list longer than a page are
left to REST; and when GraphQL fails, the run reads the same by REST and nothing is lost. (The review findings
it gives equal the REST lists': ``test_action_reviews.py``.)
"""

from __future__ import annotations

import json

import pytest
from scenario import BOT, REPO, Scenario

from gauntlet.github.client import GitHubClient
from gauntlet.github.gitstore import BranchStore
from gauntlet.github.hub import Hub
from gauntlet.github.issues import find_issue
from gauntlet.github.start import read_start
from gauntlet.vocabulary import BOT_LABEL, marker_text, pr_path

CODE = "def add(a, b):\n    return a + b\n\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n"


def test_the_head_and_record_by_graphql_equal_those_by_rest(world: Scenario) -> None:
    number, sha = world.open_pr("feature", {"calc.py": CODE})
    assert world.run("pull_request", world.pull_request_event(number, sha)).code == 0
    client = GitHubClient(f"{BOT}:graphql", world.sandbox.url, throttle=False)
    start = read_start(client, REPO, branch="gauntlet-state", record=pr_path(number), pr=number)
    assert start is not None and start.head is not None
    rest = BranchStore(GitHubClient(f"{BOT}:rest", world.sandbox.url, throttle=False), REPO)
    head = rest.head()
    assert head is not None
    assert start.head == head
    assert start.files[pr_path(number)] == rest.read(pr_path(number), head.commit)
    assert json.loads(start.files[pr_path(number)] or b"{}")["number"] == number
    missing = read_start(client, REPO, branch="gauntlet-state", record=pr_path(number + 100))
    assert missing is not None and missing.files == {pr_path(number + 100): None}
    absent = read_start(client, REPO, branch="no-such-branch", record=pr_path(number))
    assert absent is not None and (absent.head, absent.files) == (None, {})


@pytest.mark.parametrize("kind", ["500", "drop"])
def test_a_failing_graphql_endpoint_leaves_the_run_to_rest(world: Scenario, kind: str) -> None:
    number, sha = world.open_pr("feature", {"calc.py": CODE})
    world.sandbox.set_faults(rate=1.0, kinds=[kind], paths=["/graphql"])
    client = GitHubClient(f"{BOT}:graphql", world.sandbox.url, throttle=False, retries=1)
    assert read_start(client, REPO, branch="gauntlet-state", record=pr_path(number), pr=number) is None

    run = world.run("pull_request", world.pull_request_event(number, sha))

    assert run.code == 0, run.error
    world.sandbox.set_faults(rate=0.0)
    record = world.pr_record(number)
    assert record is not None and len(record.iterations) == 1
    assert world.requests("GET", f"/pulls/{number}/comments")  # read by REST instead


def test_a_record_graphql_cuts_short_is_read_by_rest(world: Scenario) -> None:
    # GitHub's Blob.text stops at 512,000 bytes: the store reads such a record by REST, whole.
    number, _ = world.open_pr("big", {"calc.py": CODE})
    big = json.dumps({"number": number, "padding": "x" * 600_000}) + "\n"
    world.sandbox.commit(REPO, {pr_path(number): big}, "gauntlet: by hand", branch="gauntlet-state")
    client = GitHubClient(f"{BOT}:graphql", world.sandbox.url, throttle=False)
    start = read_start(client, REPO, branch="gauntlet-state", record=pr_path(number))
    assert start is not None and start.head is not None and pr_path(number) not in start.files
    store = BranchStore(client, REPO)

    store.preload(pr_path(number), start)

    assert store.read(pr_path(number), start.head.commit) == big.encode()
    assert [r["path"].rsplit("/", 1)[-1] for r in world.sandbox.requests() if r["method"] == "GET"][-2:] == [
        f"{number}.json",
        f"{number}.json",
    ]  # the preload's read by REST, and the one above: the truncated text was never used


def test_more_review_threads_than_one_page_are_left_to_rest(world: Scenario) -> None:
    number, sha = world.open_pr("busy", {"calc.py": CODE})
    assert world.run("pull_request", world.pull_request_event(number, sha)).code == 0
    world.sandbox.set_permission(REPO, "reviewer", "write")
    head = world.owner.get_repo(REPO).get_commit(sha)
    reviewer = world.sandbox.pygithub("reviewer").get_repo(REPO).get_pull(number)
    for n in range(101):
        reviewer.create_review_comment(f"nit: number {n}", head, "calc.py", line=2)
    client = GitHubClient(f"{BOT}:graphql", world.sandbox.url, throttle=False)

    start = read_start(client, REPO, branch="gauntlet-state", record=pr_path(number), pr=number)

    # A second page: the run reads the reviews by REST (observe/reviews.py), and the rest of the answer holds.
    assert start is not None and start.reviews is None
    assert start.head is not None and start.files[pr_path(number)] is not None


def test_an_issue_past_the_querys_first_page_is_found_on_rests_second(world: Scenario) -> None:
    # 101 issues Gauntlet filed: the query's first page holds the newest 100, and REST's page 2 the oldest.
    bot = world.sandbox.pygithub(BOT).get_repo(REPO)
    for n in range(101):
        bot.create_issue(title=f"risk {n}", body=f"accepted\n\n{marker_text(f'risk:{n}')}", labels=[BOT_LABEL])
    client = GitHubClient(f"{BOT}:query", world.sandbox.url, throttle=False)
    start = read_start(client, REPO, branch="gauntlet-state", record=pr_path(1), label=BOT_LABEL)
    assert start is not None and start.issues is not None
    items, more = start.issues
    assert (len(items), more) == (100, True)
    hub = Hub(client=client, repo=client.repo(REPO), bot_login=BOT, first_issues=start.issues)
    before = len(world.sandbox.requests())

    newest, oldest = find_issue(hub, "risk:100"), find_issue(hub, "risk:0")

    assert newest is not None and oldest is not None and newest.number - oldest.number == 100
    listed = [r for r in world.sandbox.requests()[before:] if r["path"] == f"/repos/{REPO}/issues"]
    assert [r["query"] for r in listed] == ["labels=gauntlet&page=2&per_page=100&state=all"]


def test_the_graphql_input_turned_off_reads_everything_by_rest(world: Scenario) -> None:
    number, sha = world.open_pr("rest", {"calc.py": CODE})
    world.sandbox.clear_requests()

    run = world.run("pull_request", world.pull_request_event(number, sha), inputs={"graphql": "false"})

    assert run.code == 0, run.error
    assert not world.requests("POST", "/graphql")
    assert world.requests("GET", "/branches/gauntlet-state") and world.requests("GET", f"/pulls/{number}/reviews")
