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
