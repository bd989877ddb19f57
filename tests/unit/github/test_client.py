"""The one client against the sandbox: retries, no blind replay of creating POSTs, call counting, error mapping."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from gauntlet.errors import GitHubUnavailable
from gauntlet.github.client import (
    GitHubClient,
    NotFound,
    PullRequestsNotPermitted,
    ReadOnlyToken,
    Rejected,
    cache_key,
)
from gauntlet.sandbox import JobSeed, Sandbox
from gauntlet.state.codec import encode_file
from gauntlet.state.pr import CachedRead, PRRecord

REPO = "octo/app"
BOT = "github-actions[bot]"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox.start() as running:
        running.create_repo(REPO, {"README.md": "# app\n"})
        running.set_permission(REPO, BOT, "write")
        yield running


def client(sandbox: Sandbox, token: str = BOT) -> GitHubClient:
    return GitHubClient(token, sandbox.url, throttle=False, retries=3)


def api_requests(sandbox: Sandbox) -> list[dict[str, object]]:
    return [r for r in sandbox.requests() if not str(r["path"]).startswith("/_sandbox")]


def test_every_attempt_is_counted_as_the_sandbox_saw_it(sandbox: Sandbox) -> None:
    gh = client(sandbox)
    sandbox.set_faults(0.3, seed=1, kinds=["500", "503", "drop"])
    for _ in range(10):
        gh.request("GET", f"/repos/{REPO}")
    sandbox.set_faults(0.0)

    assert gh.calls == len(api_requests(sandbox))
    assert gh.calls > 10, "some attempts were retried"


@pytest.mark.parametrize("kind", ["500", "502", "503", "403", "429", "drop"])
def test_reads_are_retried_through_each_kind_of_fault(sandbox: Sandbox, kind: str) -> None:
    gh = client(sandbox)
    sandbox.set_faults(0.5, seed=3, kinds=[kind])

    for _ in range(4):
        assert gh.request("GET", f"/repos/{REPO}")["full_name"] == REPO

    sandbox.set_faults(0.0)
    assert any(r["status"] != 200 for r in api_requests(sandbox))


def test_a_creating_post_is_not_replayed_after_a_server_error(sandbox: Sandbox) -> None:
    gh = client(sandbox)
    issue = gh.request("POST", f"/repos/{REPO}/issues", body={"title": "t"})
    sandbox.clear_requests()
    sandbox.set_faults(1.0, kinds=["500"], paths=[f"/repos/{REPO}/issues/{issue['number']}/comments"])

    with pytest.raises(GitHubUnavailable):
        gh.request("POST", f"/repos/{REPO}/issues/{issue['number']}/comments", body={"body": "x"})

    assert len(api_requests(sandbox)) == 1, "the server may have acted: the caller must look before retrying"


def test_create_once_looks_before_creating_again(sandbox: Sandbox) -> None:
    gh = client(sandbox)
    issue = gh.request("POST", f"/repos/{REPO}/issues", body={"title": "t"})
    path = f"/repos/{REPO}/issues/{issue['number']}/comments"
    looked: list[int] = []

    def create() -> dict[str, object]:
        return dict(gh.request("POST", path, body={"body": "x"}))

    def look() -> dict[str, object] | None:
        looked.append(1)
        sandbox.set_faults(0.0)  # the outage ends while we look
        found = gh.request("GET", path)
        return dict(found[0]) if found else None

    sandbox.set_faults(1.0, kinds=["502"], paths=[path])
    made = gh.create_once("comment", create, look)

    assert looked == [1]
    assert made["body"] == "x"
    assert len(gh.request("GET", path)) == 1


def test_replayable_posts_are_retried(sandbox: Sandbox) -> None:
    gh = client(sandbox)
    sandbox.set_faults(0.5, seed=5, kinds=["500"], paths=[f"/repos/{REPO}/git/blobs"])

    made = [
        gh.request("POST", f"/repos/{REPO}/git/blobs", body={"content": f"blob {index}", "encoding": "utf-8"})
        for index in range(10)
    ]

    assert len({blob["sha"] for blob in made}) == 10
    assert sum(1 for r in api_requests(sandbox) if r["status"] == 500) > 0


def test_errors_are_translated(sandbox: Sandbox) -> None:
    gh = client(sandbox)
    reader = client(sandbox, "reader[bot]")
    sandbox.set_permission(REPO, "reader[bot]", "read")

    with pytest.raises(NotFound):
        gh.request("GET", f"/repos/{REPO}/issues/999")
    with pytest.raises(Rejected):
        gh.request("POST", f"/repos/{REPO}/git/refs", body={"ref": "refs/heads/main", "sha": "0" * 40})
    with pytest.raises(ReadOnlyToken):
        reader.request("POST", f"/repos/{REPO}/issues", body={"title": "t"})
    sandbox.set_faults(1.0, kinds=["503"])
    with pytest.raises(GitHubUnavailable, match="503"):
        gh.request("GET", f"/repos/{REPO}")
    sandbox.set_faults(0.0)


def test_a_download_keeps_the_tail_of_a_long_log(sandbox: Sandbox) -> None:
    gh = client(sandbox)
    run = sandbox.seed_run(REPO, jobs=[JobSeed(name="test", conclusion="failure", log="x" * 5000 + "THE END\n")])
    location = gh.location(f"/repos/{REPO}/actions/jobs/{run.jobs[0].id}/logs")

    data, cut = gh.download(location, limit=100)

    assert cut and len(data) == 100 and data.endswith(b"THE END\n")


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A one-off local HTTP server answering with ``handler``; yields its base URL."""
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_download_never_carries_the_token() -> None:
    seen: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    with serving(Handler) as url:
        gh = GitHubClient("secret-token", url, throttle=False)
        data, cut = gh.download(f"{url}/signed/log?sig=abc", limit=1000)

    assert (data, cut) == (b"ok", False)
    assert seen == [None]


def test_waits_honour_retry_after_then_the_rate_limit_reset() -> None:
    from urllib3.response import HTTPResponse

    from gauntlet.github.client import CallCounter, GauntletRetry

    retry = GauntletRetry(counter=CallCounter(), total=3)
    reset = str(int(time.time()) + 30)
    spent = HTTPResponse(body=b"", status=429, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    told = HTTPResponse(body=b"", status=429, headers={"Retry-After": "7", "x-ratelimit-reset": reset})
    fast = GauntletRetry(counter=CallCounter(), total=3, wait_scale=0.001)

    assert 29 <= (retry.get_retry_after(spent) or 0) <= 32
    assert retry.get_retry_after(told) == 7
    assert fast.get_retry_after(told) == pytest.approx(0.007)
    assert retry.get_retry_after(HTTPResponse(body=b"", status=500)) is None


def test_a_repository_that_forbids_actions_prs_is_a_setting_to_change_not_an_outage() -> None:
    body = b'{"message": "GitHub Actions is not permitted to create or approve pull requests."}'

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(403)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    with serving(Handler) as url:
        gh = GitHubClient("token", url, throttle=False)
        with pytest.raises(PullRequestsNotPermitted, match="Allow GitHub Actions to create and approve") as caught:
            gh.request("POST", "/repos/o/r/pulls", body={"title": "t", "head": "h", "base": "main"})

    assert caught.value.exit_code == 2


def test_pages_follow_the_link_header_and_stop_at_the_bound(sandbox: Sandbox) -> None:
    from gauntlet.sandbox.store import Label

    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    for n in range(150):
        repo.labels[f"l{n}"] = Label(id=n + 1, name=f"l{n}", color="ffffff", description=None)
    gh = client(sandbox, "octo")
    sandbox.clear_requests()
    assert len(gh.pages("/repos/octo/app/labels")) == 150
    assert len(api_requests(sandbox)) == 2, "two pages of 100, and no call after the last"
    assert len(gh.pages("/repos/octo/app/labels", max_pages=1)) == 100


def test_a_conditional_read_answered_304_reuses_the_answer_and_is_not_counted(sandbox: Sandbox) -> None:
    path = f"/repos/{REPO}/contents/README.md"
    first = client(sandbox)
    _, fresh = first.read(path, params={"ref": "main"})
    remembered = first.cache.keep()
    later = client(sandbox)
    later.cache.entries.update(remembered)

    headers, again = later.read(path, params={"ref": "main"})

    assert again == fresh and later.calls == 1 and later.counted == 0 and later.not_modified.value == 1
    served = api_requests(sandbox)
    assert [r["status"] for r in served] == [200, 304]
    # GitHub leaves a 304 out of the primary rate limit: the quota the sandbox reports did not move.
    assert later.remaining() == first.remaining()
    assert headers.get("etag") == remembered[cache_key(path, {"ref": "main"})].etag


def test_a_changed_answer_is_read_in_full_and_remembered_anew(sandbox: Sandbox) -> None:
    path = f"/repos/{REPO}/contents/README.md"
    first = client(sandbox)
    first.read(path, params={"ref": "main"})
    sandbox.commit(REPO, {"README.md": "# app, changed\n"})
    later = client(sandbox)
    later.cache.entries.update(first.cache.keep())

    _, answer = later.read(path, params={"ref": "main"})

    assert later.counted == 1 and later.not_modified.value == 0
    assert "changed" in str(answer) or answer["sha"] != first.cache.keep()[cache_key(path, {"ref": "main"})].body["sha"]
    assert (
        later.cache.keep()[cache_key(path, {"ref": "main"})].etag
        != first.cache.keep()[cache_key(path, {"ref": "main"})].etag
    )


def test_a_read_this_run_did_not_make_stays_remembered_after_the_ones_it_made(sandbox: Sandbox) -> None:
    readme, app = f"/repos/{REPO}/contents/README.md", f"/repos/{REPO}/contents/src/app.py"
    sandbox.commit(REPO, {"src/app.py": "VALUE = 1\n"})
    first = client(sandbox)
    first.read(readme)
    later = client(sandbox)
    later.cache.entries.update(first.cache.keep())
    later.read(app)  # a run that reads the app but not the README (a PR run between two commands, say)
    kept = later.cache.keep()
    assert list(kept) == [cache_key(app, None), cache_key(readme, None)]
    # Still worth its ETag: the run after reads the README for free.
    third = client(sandbox)
    third.cache.entries.update(kept)
    third.read(readme)
    assert third.counted == 0 and third.not_modified.value == 1


def test_a_remembered_answer_keeps_its_key_through_the_states_redaction() -> None:
    path = "/repos/maya/calculator/collaborators/maya/permission"  # one 48-character Base64-looking run
    record = PRRecord(number=1, reads={cache_key(path, None): CachedRead(etag='W/"1"', body={"permission": "admin"})})

    stored = PRRecord.model_validate_json(encode_file(record))

    assert list(stored.reads) == [cache_key(path, None)], "not remembered under [REDACTED]"
