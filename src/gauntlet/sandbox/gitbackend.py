"""``git clone/fetch/push`` over smart HTTP, by running ``git http-backend`` as a CGI program.

The sandbox authorises first (the token is the Basic-auth password, like ``x-access-token:TOKEN`` on GitHub,
and a ``login:session`` token is ``login``'s, :func:`login_of`): reading needs ``read``, pushing needs ``write``.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from gauntlet.sandbox.store import Store, permission_at_least

GIT_PATH = re.compile(r"^/(?P<owner>[^/]+)/(?P<name>[^/]+?)\.git(?P<rest>/.*)?$")


@dataclass(kw_only=True)
class CgiResult:
    """What http-backend answered."""

    status: int
    headers: dict[str, str]
    body: bytes


def token_from(headers: Mapping[str, str]) -> str | None:
    """The token a client presents: the Basic password (or user when the password is empty), or a token."""
    value = headers.get("Authorization", "")
    scheme, _, credentials = value.partition(" ")
    if scheme.lower() == "basic":
        try:
            user, _, password = base64.b64decode(credentials).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return password or user or None
    if scheme.lower() in ("token", "bearer") and credentials:
        return credentials.strip()
    return None


def login_of(token: str | None) -> str | None:
    """The login a token authenticates as: its text up to the first ``:`` (the whole text when it has none).

    ``<login>:<anything>`` is one more token of ``login``, as each Actions job gets a new ``GITHUB_TOKEN`` for
    the same bot: it has the login's permissions and rate limit, and an identity of its own for ETags
    (``app._conditional``). A token with nothing before the ``:`` is no one's (anonymous).
    """
    if token is None:
        return None
    return token.partition(":")[0] or None


def login_from(headers: Mapping[str, str]) -> str | None:
    """The login a client presents (:func:`token_from`, then :func:`login_of`)."""
    return login_of(token_from(headers))


def serve_git(store: Store, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes) -> CgiResult:
    """Authorise and run one smart-HTTP request."""
    found = GIT_PATH.match(path)
    repo = store.repo(found["owner"], found["name"]) if found else None
    if found is None or repo is None:
        return CgiResult(status=404, headers={"Content-Type": "text/plain"}, body=b"Repository not found.\n")
    login = login_from(headers)
    pushing = "git-receive-pack" in path or "service=git-receive-pack" in query
    need = "write" if pushing else "read"
    have = repo.permission(login)
    if not permission_at_least(have, need):
        challenge = {"Content-Type": "text/plain", "WWW-Authenticate": 'Basic realm="sandbox"'}
        if login is None:
            return CgiResult(status=401, headers=challenge, body=b"Authentication required.\n")
        return CgiResult(status=403, headers={"Content-Type": "text/plain"}, body=b"Permission denied.\n")
    relative = repo.git.path.relative_to(store.root).as_posix()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PROJECT_ROOT": str(store.root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "GATEWAY_INTERFACE": "CGI/1.1",
        "REQUEST_METHOD": method,
        "PATH_INFO": f"/{relative}{found['rest'] or ''}",
        "QUERY_STRING": query,
        "CONTENT_TYPE": headers.get("Content-Type", ""),
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_USER": login or "anonymous",
        "REMOTE_ADDR": "127.0.0.1",
    }
    if headers.get("Content-Encoding"):
        env["HTTP_CONTENT_ENCODING"] = headers["Content-Encoding"]
    if headers.get("Git-Protocol"):
        env["GIT_PROTOCOL"] = headers["Git-Protocol"]
    proc = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, check=False)
    return _parse_cgi(proc.stdout)


def _parse_cgi(output: bytes) -> CgiResult:
    head, sep, body = output.partition(b"\r\n\r\n")
    if not sep:
        head, _, body = output.partition(b"\n\n")
    status = 200
    headers: dict[str, str] = {}
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers[name.strip()] = value.strip()
    return CgiResult(status=status, headers=headers, body=body)
