"""Bad requests get GitHub's error answers, never a crash."""

from __future__ import annotations

import requests

from gauntlet.sandbox import Sandbox

REPO = "octo/app"


def call(sandbox: Sandbox, method: str, path: str, token: str | None = "octo", **kwargs: object) -> requests.Response:
    """One raw request."""
    headers = {"Authorization": f"token {token}"} if token else {}
    return requests.request(method, f"{sandbox.url}{path}", headers=headers, timeout=5, **kwargs)  # type: ignore[arg-type]


def test_error_answers(sandbox: Sandbox, repo_name: str) -> None:
    bad_json = call(sandbox, "POST", f"/repos/{REPO}/issues", data=b"{not json")
    assert bad_json.status_code == 400 and bad_json.json()["message"] == "Problems parsing JSON"
    assert call(sandbox, "POST", f"/repos/{REPO}/issues", json=[1, 2]).status_code == 400
    assert call(sandbox, "POST", f"/repos/{REPO}/issues", json={"body": "no title"}).status_code == 422
    assert call(sandbox, "POST", f"/repos/{REPO}/issues", token=None, json={"title": "t"}).status_code == 401
    assert call(sandbox, "GET", "/user", token=None).status_code == 401
    assert call(sandbox, "GET", f"/repos/{REPO}/issues/12345").status_code == 404
    assert call(sandbox, "GET", "/repos/octo/missing").status_code == 404
    assert call(sandbox, "GET", f"/repos/{REPO}/issues/not-a-number").status_code == 404
    too_long = call(sandbox, "POST", f"/repos/{REPO}/issues", json={"title": "t"}).json()["number"]
    huge = call(sandbox, "POST", f"/repos/{REPO}/issues/{too_long}/comments", json={"body": "x" * 70000})
    assert huge.status_code == 422
    assert call(sandbox, "POST", f"/repos/{REPO}/git/trees", json={"tree": "nope"}).status_code == 422
    bad_sha = call(sandbox, "POST", f"/repos/{REPO}/git/commits", json={"message": "m", "tree": "zz"})
    assert bad_sha.status_code == 422
    assert (
        call(sandbox, "PUT", f"/repos/{REPO}/contents/a.txt", json={"message": "m", "content": "@@"}).status_code == 422
    )
    assert (
        call(sandbox, "POST", f"/repos/{REPO}/check-runs", json={"name": "c", "head_sha": "0" * 40}).status_code == 422
    )
    assert call(sandbox, "PATCH", f"/repos/{REPO}/issues/{too_long}", json={"state": "weird"}).status_code == 422
    assert call(sandbox, "GET", f"/repos/{REPO}/compare/main..main").status_code == 404
    assert call(sandbox, "GET", f"/repos/{REPO}/actions/artifacts/1/tar").status_code == 404
    assert call(sandbox, "GET", "/_sandbox/logs/unknown-token", token=None).status_code == 404
    assert not sandbox.app.crashes


def test_client_that_hangs_up_mid_request_does_not_hurt_others(sandbox: Sandbox, repo_name: str) -> None:
    import socket

    host, port = sandbox.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(b"POST /repos/octo/app/issues HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    assert call(sandbox, "GET", f"/repos/{REPO}").status_code == 200
