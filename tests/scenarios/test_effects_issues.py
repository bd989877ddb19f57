"""Issues on the sandbox: one per key however often and however interrupted, and never a stranger's."""

from __future__ import annotations

import json
from urllib.parse import unquote

from scenario import BOT, REPO, Scenario

from gauntlet.effects.models import CloseIssue, FileIssue
from gauntlet.effects.views import IssueView
from gauntlet.github import issues
from gauntlet.vocabulary import LABELS

MARKER = "<!-- gauntlet:key=risk:fp-sql-1 -->"


def risk(note: str | None = None) -> FileIssue:
    return FileIssue(
        kind="risk",
        ident="fp-sql-1",
        title="accepted risk: SQL built from request input",
        labels=("gauntlet", "accepted-risk", "major"),
        recurrence_note=note,
        view=IssueView(
            repository=REPO,
            summary="SQL built from request input",
            severity="major",
            rule="CWE-89",
            path="src/app.py",
            line=2,
            commit="0" * 40,
            why="An attacker controls the query.",
            resolve="parameterise the query",
            accepted_by="alice",
            pr=7,
        ),
    )


def marked(world: Scenario, marker: str = MARKER) -> list[int]:
    """Numbers of every issue (any state, any author) whose body carries ``marker``."""
    return [i.number for i in world.repo.get_issues(state="all") if marker in (i.body or "")]


def test_an_issue_is_filed_once_labelled_titled_and_assigned(world: Scenario) -> None:
    [first] = world.apply(risk())
    assert first.status == "created"
    assert world.index("risk:fp-sql-1") == first.number

    issue = world.repo.get_issue(first.number)
    assert issue.title == "[Gauntlet/major] accepted risk: SQL built from request input"
    assert issue.user.login == BOT
    assert issue.body.startswith(MARKER)
    assert {label.name for label in issue.labels} == {"gauntlet", "accepted-risk", "severity:major"}
    # CODEOWNERS: /src/ is owned by @alice and the @octo/core team; only the user can be assigned.
    assert [user.login for user in issue.assignees] == ["alice"]
    # Labels were created, with Gauntlet's colours, before the issue that uses them.
    colours = {label.name: label.color for label in world.repo.get_labels()}
    assert colours["severity:major"] == LABELS["severity:major"][0]
    posts = [r["path"] for r in world.sandbox.requests() if r["method"] == "POST"]
    assert posts.index(f"/repos/{REPO}/labels") < posts.index(f"/repos/{REPO}/issues")

    [again] = world.apply(risk())
    assert (again.status, again.number) == ("unchanged", first.number)
    assert marked(world) == [first.number]


def test_a_run_killed_before_saving_state_files_no_second_issue(world: Scenario) -> None:
    [lost] = world.apply(risk(), record=False)  # created on GitHub, never recorded
    assert lost.status == "created" and world.index("risk:fp-sql-1") is None

    [found] = world.apply(risk())  # the re-run finds it by label and marker, and records it
    assert (found.status, found.number) == ("unchanged", lost.number)
    assert world.index("risk:fp-sql-1") == lost.number
    assert marked(world) == [lost.number]
    # Found by listing the label, never through the search API.
    assert world.requests("GET", "/search/") == []
    assert any("labels=gauntlet" in r["query"] and "state=all" in r["query"] for r in world.requests("GET", "/issues"))


def test_a_marker_typed_by_someone_else_is_not_adopted(world: Scenario) -> None:
    world.sandbox.set_permission(REPO, "mallory", "triage")
    mallory = world.sandbox.pygithub("mallory")
    decoy = mallory.get_repo(REPO).create_issue(title="looks like Gauntlet", body=MARKER, labels=["gauntlet"])
    assert [label.name for label in decoy.labels] == ["gauntlet"]  # it is in the listing Gauntlet reads

    [filed] = world.apply(risk())
    assert filed.status == "created" and filed.number != decoy.number
    assert world.index("risk:fp-sql-1") == filed.number
    assert world.repo.get_issue(decoy.number).get_comments().totalCount == 0

    # A marker in a stranger's comment on Gauntlet's issue does not stand in for Gauntlet's own comment either.
    note = "Seen again on main at 1a2b3c4."
    own = world.repo.get_issue(filed.number)
    mallory.get_repo(REPO).get_issue(filed.number).create_comment(f"**Seen again.** {note}\n")
    [recurred] = world.apply(risk(note))
    assert recurred.status == "updated"
    authors = [c.user.login for c in own.get_comments()]
    assert authors == ["mallory", BOT]


def test_a_recurrence_reopens_what_gauntlet_closed_and_says_so_once(world: Scenario) -> None:
    [filed] = world.apply(risk())
    [closed] = world.apply(CloseIssue(kind="risk", ident="fp-sql-1", reason="the finding is fixed"))
    assert closed.status == "updated"
    assert world.repo.get_issue(filed.number).state == "closed"

    for _ in range(2):
        world.apply(risk("Seen again on main at 1a2b3c4."), record=False)
    issue = world.repo.get_issue(filed.number)
    assert issue.state == "open"
    bodies = [c.body for c in issue.get_comments()]
    assert bodies == ["Closed by Gauntlet: the finding is fixed\n", "**Seen again.** Seen again on main at 1a2b3c4.\n"]


def test_a_recurrence_comments_once_and_leaves_a_persons_close_alone(world: Scenario) -> None:
    [filed] = world.apply(risk())
    issue = world.repo.get_issue(filed.number)
    issue.edit(state="closed")  # a person's decision

    results = [world.apply(risk("Seen again on main at 5e6f7a8."), record=False)[0] for _ in range(2)]
    assert [r.status for r in results] == ["updated", "unchanged"]
    assert all(r.number == filed.number and "left closed" in r.detail for r in results)
    issue = world.repo.get_issue(filed.number)
    assert issue.state == "closed"
    assert [c.body for c in issue.get_comments()] == ["**Seen again.** Seen again on main at 5e6f7a8.\n"]
    # The comment is rendered as data: a mention in the note cannot ping anyone.
    world.apply(risk("ping @alice"))
    assert issue.get_comments().reversed[0].body == "**Seen again.** ping @\u200balice\n"
    assert marked(world) == [filed.number]


def test_closing_twice_comments_and_closes_once(world: Scenario) -> None:
    [filed] = world.apply(risk())
    effect = CloseIssue(kind="risk", ident="fp-sql-1", reason="accepted risk withdrawn")
    first, second = world.apply(effect) + world.apply(effect, record=False)
    assert (first.status, second.status) == ("updated", "unchanged")
    issue = world.repo.get_issue(filed.number)
    assert issue.state == "closed"
    assert [c.body for c in issue.get_comments()] == ["Closed by Gauntlet: accepted risk withdrawn\n"]
    [nothing] = world.apply(CloseIssue(kind="needs-human", ident="never-filed", reason="x"))
    assert nothing.status == "skipped"


def test_assignment_can_be_switched_off(world: Scenario) -> None:
    world.assign_owners = False
    [filed] = world.apply(risk())
    assert world.repo.get_issue(filed.number).assignees == []
    assert world.requests("GET", "CODEOWNERS") == []


def test_a_remembered_codeowners_is_read_again_for_free_and_a_change_is_seen(world: Scenario) -> None:
    first = world.backend()
    issues.code_owners(first.hub, "src/app.py")
    # The next run of the PR starts from what this one read (the PR's record carries it).
    second = world.backend()
    second.hub.client.cache.entries = first.hub.client.cache.keep()
    world.sandbox.clear_requests()
    assert issues.code_owners(second.hub, "src/app.py") == ("alice",)
    assert [r["status"] for r in world.requests("GET", "CODEOWNERS")] == [304]
    assert second.hub.client.not_modified.value == 1
    world.sandbox.commit(REPO, {".github/CODEOWNERS": "/src/ @bob\n"}, "hand src to bob")
    third = world.backend()
    third.hub.client.cache.entries = second.hub.client.cache.keep()
    assert issues.code_owners(third.hub, "src/app.py") == ("bob",)
    assert third.hub.client.not_modified.value == 0


def test_codeowners_is_looked_for_where_github_looks_first_even_when_a_later_place_was_remembered(
    world: Scenario,
) -> None:
    world.sandbox.commit(REPO, {".github/CODEOWNERS": None, "docs/CODEOWNERS": "* @carol\n"}, "move it to docs/")
    first = world.backend()
    assert issues.code_owners(first.hub, "src/app.py") == ("carol",)
    world.sandbox.commit(REPO, {"CODEOWNERS": "* @dave\n"}, "a root file wins over docs/")
    second = world.backend()
    second.hub.client.cache.entries = first.hub.client.cache.keep()
    assert issues.code_owners(second.hub, "src/app.py") == ("dave",)


def test_the_marker_listing_is_free_while_unchanged_and_a_new_issue_is_still_found(world: Scenario) -> None:
    first = world.backend()
    assert issues.find_issue(first.hub, "risk:fp-sql-1") is None
    # The next run of the PR starts from what this one read (the PR's record carries it).
    second = world.backend()
    second.hub.client.cache.entries = first.hub.client.cache.keep()
    world.sandbox.clear_requests()
    seen: set[str] = set()
    assert issues.find_issue(second.hub, "risk:fp-sql-1", seen) is None
    assert [r["status"] for r in world.requests("GET", "/issues")] == [304]
    kept = second.hub.client.cache.keep()
    (listing,) = [read for key, read in kept.items() if "/issues?" in unquote(key)]
    assert "body" not in json.dumps(listing.body)  # the page is kept reduced, not as GitHub's issue JSON
    # An issue filed by another run (of another PR, or one that died before its commit) changes the listing.
    [filed] = world.apply(risk(), record=False)
    third = world.backend()
    third.hub.client.cache.entries = kept
    world.sandbox.clear_requests()
    labels: set[str] = set()
    found = issues.find_issue(third.hub, "risk:fp-sql-1", labels)
    assert found is not None and (found.number, found.state) == (filed.number, "open")
    assert [r["status"] for r in world.requests("GET", "/issues")] == [200]
    assert {"gauntlet", "accepted-risk", "severity:major"} <= labels
    # Closed by Gauntlet: the kept page says closed, and only the issue itself says who closed it.
    world.apply(CloseIssue(kind="risk", ident="fp-sql-1", reason="gone"))
    fourth = world.backend()
    fourth.hub.client.cache.entries = third.hub.client.cache.keep()
    closed = issues.find_issue(fourth.hub, "risk:fp-sql-1")
    assert closed is not None and (closed.state, closed.closed_by) == ("closed", BOT)


def test_owners_the_effect_names_are_assigned_without_reading_codeowners_unless_switched_off(world: Scenario) -> None:
    named = risk().model_copy(update={"assignees": ("alice",)})
    [filed] = world.apply(named)
    assert [user.login for user in world.repo.get_issue(filed.number).assignees] == ["alice"]
    unassigned = named.model_copy(update={"ident": "fp-sql-2", "assignees": ()})
    [empty] = world.apply(unassigned)
    assert world.repo.get_issue(empty.number).assignees == []
    world.assign_owners = False
    [off] = world.apply(named.model_copy(update={"ident": "fp-sql-3"}))
    assert world.repo.get_issue(off.number).assignees == []
    assert world.requests("GET", "CODEOWNERS") == []


def test_a_remembered_page_that_redaction_touched_is_read_whole_again(world: Scenario) -> None:
    [filed] = world.apply(risk(), record=False)
    first = world.backend()
    assert issues.find_issue(first.hub, "risk:fp-sql-1") is not None
    kept = first.hub.client.cache.keep()
    (key,) = [k for k in kept if "/issues?" in unquote(k)]
    page = kept[key].body
    # As a state file could hold it: redaction took a marker key that looked like a secret.
    touched = {**page, "issues": [{**item, "keys": ["[REDACTED]"]} for item in page["issues"]]}
    second = world.backend()
    second.hub.client.cache.entries = {**kept, key: kept[key].model_copy(update={"body": touched})}
    world.sandbox.clear_requests()
    found = issues.find_issue(second.hub, "risk:fp-sql-1")
    assert found is not None and found.number == filed.number
    assert [r["status"] for r in world.requests("GET", "/issues")] == [304, 200]
