"""``POST /graphql``: the query a Gauntlet run starts with (``github/start.py``), answered through PyGithub, and the
same facts as REST gives them: reviews, review threads, the state branch's files, issues, errors, rate limits."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import github
import pytest

from gauntlet.github.start import QUERY
from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.graph.objects import TEXT_LIMIT

START = QUERY  # the query Gauntlet's runs send: the contract
BOT = "github-actions[bot]"
STATE = "gauntlet-state"


def post(sandbox: Sandbox, body: bytes | dict[str, Any], token: str | None = BOT) -> tuple[int, Any, Any]:
    """A raw ``POST /graphql``: status, headers and the JSON answer."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(f"{sandbox.url}/graphql", data=data, method="POST")
    if token is not None:
        request.add_header("Authorization", f"bearer {token}")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read())


def variables(owner_repo: str, **changes: Any) -> dict[str, Any]:
    owner, name = owner_repo.split("/")
    return {
        "owner": owner,
        "name": name,
        "stateRef": f"refs/heads/{STATE}",
        "record": "v1/prs/1.json",
        "base": "v1/branches/main.json",
        "index": "v1/index.json",
        "pr": 1,
        "label": "gauntlet",
        "reviews": True,
        "issues": True,
        "withBase": True,
        "withIndex": True,
        "knownLabel": "known-failure",
        "known": True,
        "rules": True,
        "workflow": ".github/workflows/ci.yml",
        "withWorkflow": True,
        **changes,
    }


def graphql_login(rest_login: str, rest_type: str) -> str:
    """GitHub's GraphQL names a bot without REST's ``[bot]`` suffix."""
    return rest_login.removesuffix("[bot]") if rest_type == "Bot" else rest_login


@pytest.fixture
def story(sandbox: Sandbox, gh: github.Github, client: Callable[..., github.Github], repo_name: str) -> int:
    """PR 1 with review threads (outdated, moved, replied to, a bot's) and reviews in every state; a state branch;
    labelled issues."""
    changed = "import os\n\ndef main():\n    return os.environ['X']\n\n\ndef helper():\n    return 2\n"
    sandbox.commit(repo_name, {"src/app.py": changed}, "Read X", branch="feature")
    pull = gh.get_repo(repo_name).create_pull(title="Read X", body="", base="main", head="feature")
    for login in ("reviewer", "approver", "pender", "coderabbitai[bot]"):
        sandbox.set_permission(repo_name, login, "write")
    as_reviewer = client("reviewer").get_repo(repo_name).get_pull(pull.number)
    head = gh.get_repo(repo_name).get_commit(pull.head.sha)
    crash = as_reviewer.create_review_comment("issue: crashes when X is unset", head, "src/app.py", line=4)
    as_reviewer.create_review_comment("nit: name it read_x", head, "src/app.py", line=7)
    pull.create_review_comment_reply(crash.id, "fixed")
    as_bot = client("coderabbitai[bot]").get_repo(repo_name).get_pull(pull.number)
    as_bot.create_review(
        body="**Actionable comments posted: 1**",
        event="COMMENT",
        comments=[{"path": "src/app.py", "position": 8, "body": "_🟠 Major_ helper is unused"}],
    )
    as_reviewer.create_review(body="please handle X", event="REQUEST_CHANGES").dismiss("talked it over")
    as_reviewer.create_review(body="still X", event="REQUEST_CHANGES")
    client("approver").get_repo(repo_name).get_pull(pull.number).create_review(body="", event="APPROVE")
    client("pender").get_repo(repo_name).get_pull(pull.number).create_review(body="draft thoughts")
    # The push changes line 4: its thread goes outdated; line 7 only moves.
    fixed = "import os\n\ndef main():\n    return os.environ.get('X', '')\n\n\ndef helper():\n    return 2\n"
    sandbox.commit(repo_name, {"src/app.py": fixed}, "Default X", branch="feature")

    sandbox.commit(
        repo_name,
        {"v1/prs/1.json": '{"schema_version": 1, "number": 1}\n', "v1/index.json": '{"keys": {}}\n'},
        "gauntlet: record PR 1\n\nRun 7.",
        branch=STATE,
    )
    repo = gh.get_repo(repo_name)
    first = repo.create_issue("Accepted risk", body="marker", labels=["gauntlet"])
    repo.create_issue("Unrelated", body="other")
    repo.create_issue("Known", body='```json\n{"message": "boom"}\n```', labels=["known-failure"])
    repo.create_issue("Known, closed", body="", labels=["known-failure"]).edit(state="closed")
    repo.create_issue("Needs a human", labels=["gauntlet", "needs-human"]).edit(state="closed")
    first.create_comment("still accepted")
    pull.add_to_labels("gauntlet")  # a labelled pull request is not an issue
    pull.create_issue_comment("<!-- gauntlet:key=pr-comment:1 -->\nsticky")
    return pull.number


def test_the_start_query_agrees_with_rest(sandbox: Sandbox, gh: github.Github, repo_name: str, story: int) -> None:
    bot = sandbox.pygithub(BOT)
    observed: list[tuple[str, str, int]] = []
    sandbox.observe(lambda method, template, status, body: observed.append((method, template, status)))
    headers, answer = bot.requester.graphql_query(START, variables(repo_name, pr=story))
    assert observed == [("POST", "/graphql", 200)]
    assert bot.requester.graphql_url == f"{sandbox.url}/graphql"
    assert "errors" not in answer
    repository = answer["data"]["repository"]
    repo = bot.get_repo(repo_name)

    # The state branch: head commit and files as the branches and contents APIs give them.
    branch = repo.get_branch(STATE)
    target = repository["ref"]["target"]
    assert (target["__typename"], target["oid"]) == ("Commit", branch.commit.sha)
    assert (target["message"], target["tree"]["oid"]) == (branch.commit.commit.message, branch.commit.commit.tree.sha)
    for alias, path in (("record", "v1/prs/1.json"), ("index", "v1/index.json")):
        contents = repo.get_contents(path, ref=STATE)
        assert not isinstance(contents, list)
        blob = target[alias]["object"]
        assert (blob["__typename"], blob["oid"], blob["byteSize"]) == ("Blob", contents.sha, contents.size)
        assert blob["text"] == contents.decoded_content.decode()
        assert (blob["isBinary"], blob["isTruncated"]) == (False, False)

    # Reviews: REST's list as this token sees it (no one else's pending review), field by field.
    rest_reviews = [r.raw_data for r in repo.get_pull(story).get_reviews()]
    assert {r["state"] for r in rest_reviews} == {"APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED"}
    assert [
        {
            "databaseId": r["id"],
            "state": r["state"],
            "body": r["body"],
            "url": r["html_url"],
            "authorAssociation": r["author_association"],
            "author": {"__typename": r["user"]["type"], "login": graphql_login(r["user"]["login"], r["user"]["type"])},
        }
        for r in rest_reviews
    ] == repository["pullRequest"]["reviews"]["nodes"]
    assert "coderabbitai" in {r["author"]["login"] for r in repository["pullRequest"]["reviews"]["nodes"]}

    # Review comments: the threads flattened are REST's list in order, mapped field by field.
    threads = repository["pullRequest"]["reviewThreads"]["nodes"]
    flat = [c for t in threads for c in t["comments"]["nodes"]]
    rest_comments = [c.raw_data for c in repo.get_pull(story).get_review_comments()]
    assert sorted(c["databaseId"] for c in flat) == [c["id"] for c in rest_comments]
    by_id = {c["databaseId"]: c for c in flat}
    for rest in rest_comments:
        assert by_id[rest["id"]] == {
            "databaseId": rest["id"],
            "body": rest["body"],
            "url": rest["html_url"],
            "path": rest["path"],
            "line": rest["line"],
            "originalLine": rest["original_line"],
            "outdated": rest["position"] is None,
            "authorAssociation": rest["author_association"],
            "author": {
                "__typename": rest["user"]["type"],
                "login": graphql_login(rest["user"]["login"], rest["user"]["type"]),
            },
        }
    shapes = [(t["isOutdated"], t["subjectType"], len(t["comments"]["nodes"])) for t in threads]
    assert shapes == [(True, "LINE", 2), (False, "LINE", 1), (False, "LINE", 1)]
    assert flat[0]["line"] is None and flat[0]["originalLine"] == 4, "outdated: no line today"
    assert (flat[2]["line"], flat[2]["originalLine"]) == (7, 7)

    # Issues: REST's labelled issues, newest first, without the pull request.
    rest_issues = [i for i in repo.get_issues(state="all", labels=["gauntlet"]) if i.pull_request is None]
    assert [
        {
            "number": i.number,
            "state": i.state.upper(),
            "body": i.body or "",
            "url": i.html_url,
            "author": {"__typename": "User", "login": i.user.login},
            "comments": {"totalCount": i.comments},
            "labels": {"nodes": [{"name": label.name} for label in i.labels]},
        }
        for i in rest_issues
    ] == answer["data"]["repository"]["issues"]["nodes"]
    assert [i["comments"]["totalCount"] for i in repository["issues"]["nodes"]] == [0, 1]
    # The known-failure issues: the open ones only, newest first, as REST lists them.
    rest_known = list(repo.get_issues(state="open", labels=["known-failure"]))
    assert [{"number": i.number, "body": i.body, "url": i.html_url} for i in rest_known] == repository["known"]["nodes"]
    assert len(rest_known) == 1

    assert headers["x-ratelimit-resource"] == "graphql"
    assert {"method": "POST", "path": "/graphql", "status": 200, "query": ""} in sandbox.requests()


def test_pull_request_conversation_comments_agree_with_rest(sandbox: Sandbox, repo_name: str, story: int) -> None:
    query = """query($pr: Int!) { repository(owner: "octo", name: "app") { pullRequest(number: $pr) {
      number state headRefName author { login }
      comments(first: 100) { totalCount nodes { databaseId body url authorAssociation author { __typename login } } }
    } } }"""
    bot = sandbox.pygithub(BOT)
    _, answer = bot.requester.graphql_query(query, {"pr": story})
    pull = answer["data"]["repository"]["pullRequest"]
    assert (pull["number"], pull["state"], pull["headRefName"], pull["author"]) == (
        story,
        "OPEN",
        "feature",
        {"login": "octo"},
    )
    rest = [c.raw_data for c in bot.get_repo(repo_name).get_issue(story).get_comments()]
    assert pull["comments"]["totalCount"] == len(rest) == 1
    assert pull["comments"]["nodes"] == [
        {
            "databaseId": c["id"],
            "body": c["body"],
            "url": c["html_url"],
            "authorAssociation": c["author_association"],
            "author": {"__typename": "User", "login": c["user"]["login"]},
        }
        for c in rest
    ]


def test_a_pending_review_is_its_authors_only(sandbox: Sandbox, repo_name: str, story: int) -> None:
    query = 'query($pr: Int!) { repository(owner: "octo", name: "app") { pullRequest(number: $pr) {'
    query += " reviews(first: 10) { totalCount nodes { state author { login } } } } } }"
    seen = {}
    for login in ("pender", BOT):
        _, answer = sandbox.pygithub(login).requester.graphql_query(query, {"pr": story})
        seen[login] = [
            (r["state"], r["author"]["login"]) for r in answer["data"]["repository"]["pullRequest"]["reviews"]["nodes"]
        ]
    assert ("PENDING", "pender") in seen["pender"]
    assert seen[BOT] == [r for r in seen["pender"] if r[0] != "PENDING"]


def test_pages_follow_their_cursors(sandbox: Sandbox, repo_name: str, story: int) -> None:
    query = """query($after: String) { repository(owner: "octo", name: "app") { pullRequest(number: 1) {
      reviews(first: 2, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } edges { cursor node { databaseId } }
      }
    } } }"""
    gh = sandbox.pygithub(BOT)
    seen: list[int] = []
    after = None
    while True:
        _, answer = gh.requester.graphql_query(query, {"after": after})
        page = answer["data"]["repository"]["pullRequest"]["reviews"]
        seen += [edge["node"]["databaseId"] for edge in page["edges"]]
        assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [r.id for r in gh.get_repo(repo_name).get_pull(1).get_reviews()]
    assert len(seen) == page["totalCount"] == 4, "the pending review is not the bot's"


def test_files_absent_binary_and_truncated(sandbox: Sandbox, repo_name: str) -> None:
    big = "é" + "x" * TEXT_LIMIT  # two bytes, then enough to pass the limit: the cut falls mid-text
    sandbox.commit(repo_name, {"big.txt": big, "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00"}, "Add files", branch=STATE)
    query = """query($ref: String!) { repository(owner: "octo", name: "app") {
      ref(qualifiedName: $ref) { name prefix target { ... on Commit {
        big: file(path: "big.txt") { name path type mode object { ...blob } }
        logo: file(path: "logo.png") { object { ...blob } }
        none: file(path: "v1/none.json") { oid }
        nul: file(path: "a\\u0000b") { oid }
      } } }
      object(expression: "gauntlet-state:README.md") { ...blob }
      missing: ref(qualifiedName: "refs/heads/nope") { name }
    } }
    fragment blob on Blob { oid byteSize isBinary isTruncated text }"""
    _, answer = sandbox.pygithub(BOT).requester.graphql_query(query, {"ref": STATE})
    repository = answer["data"]["repository"]
    ref = repository["ref"]
    assert (ref["name"], ref["prefix"], repository["missing"]) == (STATE, "refs/heads/", None)
    big_entry = ref["target"]["big"]
    assert (big_entry["name"], big_entry["path"], big_entry["type"], big_entry["mode"]) == (
        "big.txt",
        "big.txt",
        "blob",
        0o100644,
    )
    blob = big_entry["object"]
    assert (blob["byteSize"], blob["isTruncated"], blob["isBinary"]) == (TEXT_LIMIT + 2, True, False)
    assert blob["text"].encode() == big.encode()[:TEXT_LIMIT]
    logo = ref["target"]["logo"]["object"]
    assert (logo["isBinary"], logo["text"], logo["byteSize"]) == (True, None, 10)
    assert ref["target"]["none"] is None and ref["target"]["nul"] is None
    assert repository["object"]["text"] == "# app\n"


def test_errors_as_github_gives_them(sandbox: Sandbox, repo_name: str, story: int) -> None:
    sandbox.create_repo("alice/secret", {"a.txt": "a\n"}, private=True)
    find = "query($o: String!, $n: String!) { repository(owner: $o, name: $n) { nameWithOwner } }"
    for owner, name, token in (("octo", "gone", BOT), ("alice", "secret", "mallory")):
        status, _, answer = post(sandbox, {"query": find, "variables": {"o": owner, "n": name}}, token)
        assert status == 200 and answer["data"] == {"repository": None}
        (error,) = answer["errors"]
        message = f"Could not resolve to a Repository with the name '{owner}/{name}'."
        assert {k: error[k] for k in ("type", "path", "message")} == {
            "type": "NOT_FOUND",
            "path": ["repository"],
            "message": message,
        }
    _, _, mine = post(sandbox, {"query": find, "variables": {"o": "alice", "n": "secret"}}, "alice")
    assert mine == {"data": {"repository": {"nameWithOwner": "alice/secret"}}}

    pull = 'query($n: Int!) { repository(owner: "octo", name: "app") { pullRequest(number: $n) { number } } }'
    for number in (99, 2):  # no such number; an issue's number
        _, _, answer = post(sandbox, {"query": pull, "variables": {"n": number}})
        assert answer["data"] == {"repository": {"pullRequest": None}}
        assert answer["errors"][0]["type"] == "NOT_FOUND"
        assert answer["errors"][0]["path"] == ["repository", "pullRequest"]
    with pytest.raises(github.UnknownObjectException):  # PyGithub turns a lone NOT_FOUND into its 404
        sandbox.pygithub(BOT).requester.graphql_query(pull, {"n": 99})

    for broken in ("{ repository(owner: ", '{ repository(owner: "octo", name: "app") { stars } }'):
        status, _, answer = post(sandbox, {"query": broken})
        assert status == 200 and "data" not in answer and answer["errors"][0]["message"]
    too_many = '{ repository(owner: "octo", name: "app") { issues(first: 101) { nodes { number } } } }'
    unbounded = '{ repository(owner: "octo", name: "app") { issues { nodes { number } } } }'
    _, _, answer = post(sandbox, {"query": too_many})
    assert "data" not in answer and answer["errors"][0]["type"] == "EXCESSIVE_PAGINATION"
    assert "exceeds the `first` limit of 100 records" in answer["errors"][0]["message"]
    _, _, answer = post(sandbox, {"query": unbounded})
    assert answer["errors"][0]["message"].startswith("You must provide a `first` or `last` value")
    _, _, counted = post(sandbox, {"query": unbounded.replace("nodes { number }", "totalCount")})
    assert counted == {"data": {"repository": {"issues": {"totalCount": 5}}}}

    status, _, answer = post(sandbox, {"query": find}, token=None)
    assert (status, answer["message"]) == (401, "This endpoint requires you to be authenticated.")
    for bad in (b"{not json", b'{"variables": {}}', b"[1]"):
        status, _, answer = post(sandbox, bad)
        assert status == 400 and answer["message"]


def test_rate_limit_counts_apart_from_rest(sandbox: Sandbox, repo_name: str, story: int) -> None:
    gh = sandbox.pygithub(BOT)
    before = gh.get_rate_limit().raw_data["resources"]
    headers, _ = gh.requester.graphql_query(START, variables(repo_name))
    # reviews 1 + reviewThreads 1 + their comments 100 + issues 1 + their comments 100 + their labels 100 = 303
    used = before["graphql"]["used"] + 3
    assert (headers["x-ratelimit-resource"], headers["x-ratelimit-used"]) == ("graphql", str(used))
    assert int(headers["x-ratelimit-remaining"]) == 5000 - used
    after = gh.get_rate_limit().raw_data["resources"]
    assert after["graphql"]["used"] == used
    assert after["core"]["used"] == before["core"]["used"] + 1, "only the second GET /rate_limit counts in core"
    _, answer = gh.requester.graphql_query("{ rateLimit { cost limit remaining used resetAt nodeCount } }", {})
    rate = answer["data"]["rateLimit"]
    assert (rate["cost"], rate["limit"], rate["used"], rate["remaining"]) == (1, 5000, used + 1, 5000 - used - 1)
    assert rate["resetAt"].endswith("Z")


def test_faults_reach_graphql(sandbox: Sandbox, repo_name: str) -> None:
    sandbox.set_faults(1.0, kinds=["502"], paths=["/graphql"])
    status, headers, _ = post(sandbox, {"query": "{ viewer { login } }"})
    assert (status, headers["X-RateLimit-Resource"]) == (502, "graphql")
    assert sandbox.pygithub(BOT).get_repo(repo_name).name == "app", "REST is not affected"
    sandbox.set_faults(1.0, kinds=["403"], paths=["/graphql"], retry_after=7)
    status, headers, answer = post(sandbox, {"query": "{ viewer { login } }"})
    assert (status, headers["Retry-After"]) == (403, "7") and "secondary rate limit" in answer["message"]
    sandbox.set_faults(0.0)
    _, _, answer = post(sandbox, {"query": "{ viewer { login } }"})
    assert answer == {"data": {"viewer": {"login": "github-actions"}}}
    assert [e["status"] for e in sandbox.requests() if e["path"] == "/graphql"] == [502, 403, 200]


def test_contents_api_and_graphql_agree_on_encodings(sandbox: Sandbox, repo_name: str) -> None:
    text = "ünïcode ✓\n"
    sandbox.commit(repo_name, {"u.txt": text}, "Add u", branch=STATE)
    raw = sandbox.pygithub(BOT).get_repo(repo_name).get_contents("u.txt", ref=STATE)
    assert not isinstance(raw, list)
    _, answer = sandbox.pygithub(BOT).requester.graphql_query(
        """{ repository(owner: "octo", name: "app") {
          object(expression: "gauntlet-state:u.txt") { oid ... on Blob { text } }
        } }""",
        {},
    )
    blob = answer["data"]["repository"]["object"]
    assert (blob["oid"], blob["text"]) == (raw.sha, base64.b64decode(raw.content).decode())


def test_a_query_that_may_return_too_many_nodes_is_refused(sandbox: Sandbox, repo_name: str) -> None:
    deep = """{ repository(owner: "octo", name: "app") { issues(first: 100) { nodes {
      comments(first: 100) { nodes { body } } labels(first: 100) { nodes { name } }
    } } pullRequest(number: 1) { reviewThreads(first: 100) { nodes { comments(first: 100) { totalCount } } } } } }"""
    _, _, fits = post(sandbox, {"query": deep})
    assert fits["errors"][0]["type"] == "NOT_FOUND", "30,200 possible nodes: it runs (and finds no PR 1)"
    wider = deep.replace(
        "labels(first: 100) { nodes { name } }",
        "labels(first: 100) { nodes { name } } "
        + " ".join(f"c{i}: comments(first: 100) {{ nodes {{ body }} }}" for i in range(50)),
    )
    _, _, refused = post(sandbox, {"query": wider})
    assert "data" not in refused
    assert refused["errors"][0]["type"] == "MAX_NODE_LIMIT_EXCEEDED"
    assert "530,200 possible nodes" in refused["errors"][0]["message"]


def test_a_resolver_bug_is_kept_for_the_tests_and_hidden_from_the_client() -> None:
    from graphql import GraphQLError

    from gauntlet.sandbox.graph.endpoint import BUG, _error

    crashes: list[str] = []
    bug = GraphQLError("boom", path=["repository"], original_error=KeyError("x"))
    assert _error(bug, crashes) == {"message": BUG, "path": ["repository"]}
    assert "KeyError" in crashes[0]
    refused = GraphQLError("too many", path=["repository"], extensions={"type": "EXCESSIVE_PAGINATION"})
    assert _error(refused, crashes)["type"] == "EXCESSIVE_PAGINATION" and len(crashes) == 1


@pytest.mark.parametrize(
    "query",
    [
        '{ repository(owner: "octo", name: "app") { ref(qualifiedName: "refs/heads/*") { name } } }',
        '{ repository(owner: "octo", name: "app") { ref(qualifiedName: "--output=x") { name } } }',
        '{ repository(owner: "octo", name: "app") { object(expression: "--help") { oid } } }',
        '{ repository(owner: "octo", name: "app") { object(expression: "main:../../etc/passwd") { oid } } }',
        '{ repository(owner: "octo", name: "app") { object(expression: "main~999") { oid } } }',
        '{ repository(owner: "octo", name: "app") { object(oid: "0000") { oid } } }',
        '{ repository(owner: "octo", name: "app") { defaultBranchRef { target { ... on Commit {'
        ' a: file(path: "../README.md") { oid } b: file(path: "/") { oid } c: file(path: ":(glob)**") { oid }'
        ' d: file(path: "src") { type object { ... on Tree { entries { path } } } } } } } } }',
        '{ repository(owner: "octo\\u0000", name: "app") { name } }',
        '{ repository(owner: "octo", name: "app") { issues(first: 1, after: "bm9wZQ==") { totalCount } } }',
        'query($n: Int!) { repository(owner: "octo", name: "app") { pullRequest(number: $n) { number } } }',
        "{" * 5000,
        "{ viewer" + " { login" * 3000 + " }" * 3001,
    ],
)
def test_hostile_queries_get_an_answer_not_a_crash(sandbox: Sandbox, repo_name: str, query: str) -> None:
    status, _, answer = post(sandbox, {"query": query, "variables": {"n": "one"}})
    assert status == 200 and ("data" in answer or answer["errors"])
    # The sandbox fixture fails the test if a resolver crashed.


def test_issues_filter_and_order(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    quiet = repo.create_issue("quiet", labels=["a"])
    busy = repo.create_issue("busy", labels=["b"])
    repo.create_issue("closed", labels=["a", "b"]).edit(state="closed")
    repo.create_issue("unlabelled")
    busy.create_comment("one")
    busy.create_comment("two")
    quiet.edit(body="touched last")
    stored = sandbox.store.repo("octo", "app")
    assert stored is not None
    stored.issues[quiet.number].updated_at = "2099-01-01T00:00:00Z"  # later than the rest: the API stamps whole seconds
    query = """query($labels: [String!], $states: [IssueState!], $order: IssueOrder) {
      repository(owner: "octo", name: "app") {
        issues(first: 10, labels: $labels, states: $states, orderBy: $order) { nodes { title } }
      } }"""

    def titles(**arguments: Any) -> list[str]:
        _, answer = sandbox.pygithub(BOT).requester.graphql_query(query, arguments)
        return [i["title"] for i in answer["data"]["repository"]["issues"]["nodes"]]

    assert titles() == ["quiet", "busy", "closed", "unlabelled"], "oldest first by default"
    assert titles(labels=["A", "b"], states=["OPEN"]) == ["quiet", "busy"], "any of the labels, any case"
    assert titles(states=["CLOSED"]) == ["closed"]
    assert titles(order={"field": "COMMENTS", "direction": "DESC"})[0] == "busy"
    assert titles(order={"field": "CREATED_AT", "direction": "DESC"}) == ["unlabelled", "closed", "busy", "quiet"]
    assert titles(order={"field": "UPDATED_AT", "direction": "DESC"})[0] == "quiet"
    assert titles(order={"field": "UPDATED_AT", "direction": "ASC"})[-1] == "quiet"
