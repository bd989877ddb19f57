"""Odd values in every path parameter of every served GET: GitHub-style errors, never a sandbox crash."""

from __future__ import annotations

import re
from urllib.parse import quote

import requests

from gauntlet.sandbox import Sandbox, shapes

ODD = ("0" * 40, "a b\x00c", "../heads/main...nope")  # unknown sha, junk with a NUL, refs and traversal


def test_odd_path_parameters_never_crash(sandbox: Sandbox, repo_name: str) -> None:
    templates = [t for t, item in shapes.spec()["paths"].items() if "get" in item]
    session = requests.Session()
    session.headers["Authorization"] = "token octo"
    for template in templates:
        for odd in ODD:

            def value(match: re.Match[str], odd: str = odd) -> str:
                name = match.group(1)
                fixed = {"owner": "octo", "repo": "app", "archive_format": "zip"}
                return fixed.get(name) or quote(odd, safe="/.")

            path = re.sub(r"\{([a-z_]+)\}", value, template)
            status = session.get(f"{sandbox.url}{path}", timeout=5, allow_redirects=False).status_code
            assert status < 500, f"GET {path} -> {status}"
    for query in ("ref=%00", "sha=%00", "ref=..", "per_page=x", "page=-3"):
        for template in ("contents/README.md", "commits", "contents/src"):
            status = session.get(f"{sandbox.url}/repos/octo/app/{template}?{query}", timeout=5).status_code
            assert status < 500, f"{template}?{query} -> {status}"
    assert not sandbox.app.crashes


WRONG_TYPES = dict.fromkeys(
    (
        "title",
        "body",
        "labels",
        "assignees",
        "name",
        "tree",
        "sha",
        "content",
        "message",
        "state",
        "ref",
        "head",
        "base",
        "event",
        "comments",
        "reviewers",
        "permission",
        "output",
        "conclusion",
        "status",
        "head_sha",
        "encoding",
        "parents",
        "author",
        "base_tree",
        "branch",
        "color",
        "merge_method",
        "force",
    ),
    5,
)


def test_badly_typed_bodies_never_crash(sandbox: Sandbox, repo_name: str) -> None:
    sandbox.commit(repo_name, {"f": "f"}, "F", branch="f")
    session = requests.Session()
    session.headers["Authorization"] = "token octo"
    api = f"{sandbox.url}/repos/octo/app"
    session.post(f"{api}/pulls", json={"title": "t", "head": "f", "base": "main"}, timeout=5).raise_for_status()
    comment = session.post(f"{api}/issues/1/comments", json={"body": "c"}, timeout=5).json()["id"]
    check = session.post(f"{api}/check-runs", json={"name": "c", "head_sha": sandbox.head(repo_name)}, timeout=5)
    ids = {"comment_id": str(comment), "check_run_id": str(check.json()["id"])}
    writes = [(m.upper(), t) for t, item in shapes.spec()["paths"].items() for m in item if m != "get"]
    for method, template in writes:

        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            fixed = {"owner": "octo", "repo": "app", "org": "acme", "username": "x", "ref": "heads/main"}
            return ids.get(name) or fixed.get(name) or ("1" if name.endswith(("number", "_id")) else "a")

        path = re.sub(r"\{([a-z_]+)\}", value, template)
        for body in ({}, WRONG_TYPES, {"labels": [5], "tree": [{"path": "a", "sha": 5}], "assignees": [None]}):
            status = session.request(method, f"{sandbox.url}{path}", json=body, timeout=5).status_code
            assert status < 500, f"{method} {path} {body} -> {status}"
    assert not sandbox.app.crashes
