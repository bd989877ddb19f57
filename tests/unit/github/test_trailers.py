"""The trailers of state commits: what they say about the head, and how a chain of contents commits folds."""

from __future__ import annotations

from typing import Any

from gauntlet.github.trailers import commit_message, folded, parse_head

MAIN, DEFECTS = "v1/branches/main.json", "v1/defects.json"


def commit(sha: str, message: str, parent: str | None) -> dict[str, Any]:
    parents = [{"sha": parent}] if parent else []
    return {"commit": {"sha": sha, "commit": {"message": message, "tree": {"sha": "t" + sha[1:]}}, "parents": parents}}


def test_the_blobs_a_commit_names_are_read_back() -> None:
    message = commit_message("gauntlet: scan", None, {DEFECTS}, 0, blobs={MAIN: "a" * 40, DEFECTS: "b" * 40})

    head = parse_head(commit("1" * 40, message, "0" * 40))

    assert head.blobs == {MAIN: "a" * 40, DEFECTS: "b" * 40} and head.wrote == {}


def test_a_hand_edited_blob_line_names_only_what_it_can_prove() -> None:
    message = "edit\n\nGauntlet-Shared: \nGauntlet-Shards: 0\nGauntlet-Blobs: v1/defects.json=zzz ../x=" + "a" * 40

    assert parse_head(commit("1" * 40, message, None)).blobs == {}, "a file it does not name is read"


def test_a_commit_without_blobs_knows_none() -> None:
    assert parse_head(commit("1" * 40, "gauntlet: old\n\nGauntlet-Shared: \n", None)).blobs is None


def test_contents_commits_above_the_newest_exact_one_bring_the_blobs_they_wrote() -> None:
    scan = parse_head(commit("1" * 40, commit_message("scan", None, set(), 0, blobs={MAIN: "a" * 40}), "0" * 40))
    # A branch run read the scan's head and wrote main.json; GitHub built it there: exact.
    wrote = {MAIN: "b" * 40}
    branch = commit_message("main", None, set(), 0, base=scan, blobs={MAIN: "b" * 40}, wrote=wrote)
    # A PR run read the scan's head too, and GitHub built its commit on the branch run's: not exact.
    pr = commit_message("pr 1", None, set(), 0, {"v1/prs/1.json"}, base=scan, blobs={MAIN: "a" * 40})
    # A second branch run, also on a stale head, wrote main.json again.
    late = commit_message("main", None, set(), 0, base=scan, blobs={MAIN: "c" * 40}, wrote={MAIN: "c" * 40})
    chain = [
        parse_head(commit("4" * 40, late, "3" * 40)),
        parse_head(commit("3" * 40, pr, "2" * 40)),
        parse_head(commit("2" * 40, branch, "1" * 40)),
    ]

    head = folded(chain)

    assert head is not None and head.commit == "4" * 40
    assert head.blobs == {MAIN: "c" * 40}, "the newest write wins; the PR run's stale copy does not"
    assert head.pending == frozenset({"v1/prs/1.json"})
