"""Locations from findings files, made repository-relative.

Tools write paths every way there is: relative (``src/a.py``), absolute
(``/home/runner/work/repo/repo/src/a.py``), as URIs (``file:///...``) or Windows
paths. A finding is only useful, and only safe to link, when its path is
inside the repository, so anything that escapes it (``..``, an absolute path
under no known root) loses its location instead of being trusted.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

__all__ = ["Checkout", "repo_relative"]

_MAX_PATH_CHARS = 1024
# Where GitHub-hosted and container runners check the repository out
# (https://docs.github.com/en/actions/reference/variables-reference: GITHUB_WORKSPACE).
_WORKSPACE_ROOTS = [
    re.compile(r"^/home/runner/work/[^/]+/[^/]+/"),
    re.compile(r"^/Users/runner/work/[^/]+/[^/]+/"),
    re.compile(r"^/__w/[^/]+/[^/]+/"),
    re.compile(r"^/github/workspace/"),
    re.compile(r"^[A-Za-z]:/a/[^/]+/[^/]+/"),
]
_CONTROL = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
# ``https://host/x``, ``~/x``: a location on another machine or in someone's home, never in the repository.
_ELSEWHERE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]{1,30}://|~)")


def repo_relative(raw: str | None, *, root: str | None = None) -> str | None:
    """Return ``raw`` as a normalised repository-relative path, or ``None`` when it is outside the repository.

    :param raw: a path or ``file:`` URI as a tool wrote it.
    :param root: the repository's absolute path when the caller knows it (a SARIF
        ``originalUriBaseIds`` entry, the workspace); absolute paths under it are made
        relative. Absolute paths under a known CI workspace are made relative too.
    """
    if not raw or len(raw) > _MAX_PATH_CHARS or _CONTROL.search(raw):
        return None
    path = _strip_uri(raw).replace("\\", "/")
    if _ELSEWHERE.match(path):
        return None
    if _is_absolute(path):
        inside = _relative_to_root(path, root)
        if inside is None:
            return None
        path = inside
    path = posixpath.normpath(path)
    if path in (".", "") or path == ".." or path.startswith("../") or _is_absolute(path):
        return None
    return path


def _strip_uri(raw: str) -> str:
    if not raw.lower().startswith("file:"):
        return raw
    parts = urlsplit(raw)
    if parts.netloc not in ("", "localhost"):
        return "//" + parts.netloc + unquote(parts.path)  # a UNC share: never inside the repository
    return unquote(parts.path)


def _is_absolute(path: str) -> bool:
    # ``C:/x`` and the drive-relative ``C:x`` alike: a Windows drive is never the repository.
    return path.startswith("/") or bool(re.match(r"^/?[A-Za-z]:", path))


def _relative_to_root(path: str, root: str | None) -> str | None:
    path = re.sub(r"^/([A-Za-z]:/)", r"\1", path)  # file:///C:/x parses as /C:/x
    if root:
        base = _strip_uri(root).replace("\\", "/").rstrip("/") + "/"
        base = re.sub(r"^/([A-Za-z]:/)", r"\1", base)
        if path.startswith(base):
            return path[len(base) :]
    for pattern in _WORKSPACE_ROOTS:
        match = pattern.match(path)
        if match:
            return path[match.end() :]
    return None


@dataclass(frozen=True, slots=True)
class Checkout:
    """The repository checkout a log was made from (``gauntlet ingest --repo-root DIR``).

    A log names many ``path:line`` places (the project's files, libraries', a compiler's temporaries); the
    checkout says which are the project's. It is a plain value: the caller (``cli.py``) supplies ``exists``,
    so reading a log does no I/O of its own.
    """

    #: The checkout's absolute path as the log's tools saw it (absolute paths under it become relative).
    root: str
    #: Whether a repository-relative path is a file of the checkout.
    exists: Callable[[str], bool]

    def relative(self, raw: str | None) -> str | None:
        """``raw`` (as a tool wrote it) repository-relative: under :attr:`root` or a CI workspace, else None."""
        return repo_relative(_log_path(raw), root=self.root)

    def has(self, raw: str | None) -> bool:
        """True when ``raw`` names a file of the checkout."""
        relative = self.relative(raw)
        return relative is not None and self.exists(relative)


def _log_path(raw: str | None) -> str | None:
    """A path as a log shows it: quotes and ``./`` dropped (the rest is :func:`repo_relative`'s)."""
    if not raw:
        return None
    path = raw.strip().strip("'\"`").replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path or None
