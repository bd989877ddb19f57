"""Who owns a path: GitHub's ``CODEOWNERS`` file, parsed and matched (pure text functions).

GitHub's rules (https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/
customizing-your-repository/about-code-owners): the file is looked for in ``.github/``, the root, then ``docs/``;
patterns follow most of ``.gitignore`` (no ``!`` negation, no ``[ ]`` ranges); the LAST matching line wins, and a
line with a pattern but no owners leaves that path without an owner. Unlike ``.gitignore``, ``docs/*`` owns only
the files directly in ``docs/``, not deeper ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CODEOWNERS_PATHS",
    "MAX_ASSIGNEES",
    "OwnerRule",
    "assignable",
    "owners_for",
    "parse_codeowners",
    "pattern_regex",
]

#: Where GitHub looks for the file, in order; the first found is used.
CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
#: GitHub assigns at most 10 people to an issue.
MAX_ASSIGNEES = 10

_USER = re.compile(r"@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))")
_SPACE = re.compile(r"(?<!\\)\s+")


@dataclass(frozen=True)
class OwnerRule:
    """One line of the file: a pattern and the owners it gives (possibly none)."""

    pattern: str
    regex: re.Pattern[str]
    owners: tuple[str, ...]


def _segment(segment: str) -> str:
    """One path segment's glob as a regex: ``*`` and ``?`` stay inside the segment."""
    out = []
    for char in segment:
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(char))
    return "".join(out)


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """Translate a ``CODEOWNERS`` pattern to a regex over repository-relative paths (no leading ``/``).

    A pattern with a slash at its start or middle is anchored at the root; otherwise it matches at any depth.
    A pattern naming a directory owns everything under it, except when its last segment ends in ``*``
    (``docs/*`` owns only ``docs``' direct files, as GitHub documents).
    """
    body = pattern.replace("\\ ", " ")
    directory = body.endswith("/")
    body = body.strip("/")
    anchored = pattern.startswith("/") or "/" in body
    parts = body.split("/")
    pieces: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            # "a/**" owns everything under a; "**/b" and "a/**/b" cross any number of directories.
            pieces.append(".*" if last else "(?:[^/]+/)*")
            continue
        pieces.append(_segment(part) + ("" if last else "/"))
    regex = "".join(pieces)
    prefix = "^" if anchored else "^(?:[^/]+/)*"
    if directory:
        suffix = "/.*$"
    elif parts[-1].endswith("*"):
        suffix = "$"
    else:
        suffix = "(?:/.*)?$"
    return re.compile(prefix + regex + suffix)


def parse_codeowners(text: str) -> tuple[OwnerRule, ...]:
    """Parse the file into rules, in file order. Comments, blank and unsupported lines are skipped.

    :param text: the file's content.
    """
    rules: list[OwnerRule] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, *rest = _SPACE.split(line)
        if pattern.startswith("!") or "[" in pattern or not pattern.strip("/"):
            # GitHub skips lines it cannot parse; negation and ranges are not supported.
            continue
        owners: list[str] = []
        for token in rest:
            if token.startswith("#"):
                break
            owners.append(token)
        pattern = pattern.replace("\\#", "#")
        rules.append(OwnerRule(pattern=pattern, regex=pattern_regex(pattern), owners=tuple(owners)))
    return tuple(rules)


def owners_for(rules: Iterable[OwnerRule], path: str) -> tuple[str, ...]:
    """The owners of ``path``: those of the last rule that matches it (none when nothing matches).

    :param rules: from :func:`parse_codeowners`.
    :param path: repository-relative, ``/``-separated; a leading ``/`` or ``./`` is ignored.
    """
    clean = path.removeprefix("./").lstrip("/")
    found: tuple[str, ...] = ()
    for rule in rules:
        if rule.regex.match(clean):
            found = rule.owners
    return found


def assignable(owners: Iterable[str]) -> tuple[str, ...]:
    """The owners an issue can be assigned to: users (``@login``), not teams (``@org/team``) or e-mails."""
    logins: list[str] = []
    for owner in owners:
        match = _USER.fullmatch(owner)
        if match and match.group(1) not in logins:
            logins.append(match.group(1))
    return tuple(logins)
