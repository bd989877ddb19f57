"""32 clients at once: every request answered, no lost updates on compare-and-swap refs."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import github
from github import InputGitTreeElement

from gauntlet.sandbox import Sandbox

Client = Callable[..., github.Github]

BOT = "github-actions[bot]"

CLIENTS = 32
WRITERS = 8  # every lost race costs four more calls: 8 keeps contention real and the test quick


def test_32_clients_issue_and_comment(sandbox: Sandbox, client: Client, repo_name: str) -> None:
    def work(n: int) -> int:
        gh = client(f"user{n}")
        issue = gh.get_repo(repo_name).create_issue(f"from {n}")
        issue.create_comment(f"comment {n}")
        return issue.number

    with ThreadPoolExecutor(CLIENTS) as pool:
        numbers = list(pool.map(work, range(CLIENTS)))
    assert sorted(numbers) == list(range(1, CLIENTS + 1))
    repo = client().get_repo(repo_name)
    assert repo.get_issues(state="all").totalCount == CLIENTS
    assert all(e["status"] < 500 for e in sandbox.requests())


def test_32_writers_race_on_one_branch_and_none_is_lost(sandbox: Sandbox, client: Client, repo_name: str) -> None:
    """The state-commit pattern: read head, write tree+commit, fast-forward the ref, retry on 422."""
    gh = client(BOT)
    gh.get_repo(repo_name).create_git_ref("refs/heads/state", sandbox.head(repo_name) or "")

    def write(n: int) -> int:
        repo = client(BOT).get_repo(repo_name)
        for attempt in range(1, 200):
            ref = repo.get_git_ref("heads/state")
            parent = repo.get_git_commit(ref.object.sha)
            tree = repo.create_git_tree(
                [InputGitTreeElement(f"v1/events/{n}.json", "100644", "blob", content=f"{n}\n")], parent.tree
            )
            commit = repo.create_git_commit(f"write {n}", tree, [parent])
            try:
                ref.edit(commit.sha)
            except github.GithubException as exc:
                assert exc.status == 422 and exc.data["message"] == "Update is not a fast forward"
                continue
            return attempt
        raise AssertionError("never won the race")

    with ThreadPoolExecutor(WRITERS) as pool:
        attempts = list(pool.map(write, range(WRITERS)))
    assert max(attempts) > 1  # there really was contention
    tree = gh.get_repo(repo_name).get_git_tree("state", recursive=True)
    written = sorted(e.path for e in tree.tree if e.path.startswith("v1/events/"))
    assert written == sorted(f"v1/events/{n}.json" for n in range(WRITERS))
