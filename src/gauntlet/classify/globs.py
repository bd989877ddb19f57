"""Path globs as ``.gitignore`` and GitHub's CODEOWNERS write them, compiled to regular expressions.

``*`` stays inside one directory, ``**`` crosses directories, ``?`` is one
character, a trailing ``/`` means everything under a directory, and a pattern
without ``/`` matches a file or directory name at any depth (``*.py``, ``docs``).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["glob_matches", "glob_regex"]


@lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile ``pattern`` into a regular expression matching whole repository-relative paths."""
    anywhere = "/" not in pattern.rstrip("/")
    body = pattern.strip("/")
    if pattern.endswith("/"):
        body += "/**"
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("/**", i) and i + 3 == len(body):
            out.append("(?:/.*)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    prefix = "(?:.*/)?" if anywhere else ""
    # A directory pattern also matches everything below it.
    return re.compile(f"{prefix}{''.join(out)}(?:/.*)?")


def glob_matches(pattern: str, path: str) -> bool:
    """True when the repository-relative ``path`` matches ``pattern``."""
    return glob_regex(pattern).fullmatch(path) is not None
