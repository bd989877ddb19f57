"""The agent-rules file's Gauntlet section: found, read and rewritten as pure text functions.

Self-healing proposals (DESIGN §3) promote learned rules into the repository's agent-rules file. Gauntlet owns
only the lines between its two markers; everything before the start marker and after the end marker is kept byte
for byte. A file without the markers gets the section appended; a repository without any rules file gets
``AGENTS.md``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from gauntlet.errors import InputError

__all__ = [
    "DEFAULT_RULES_FILE",
    "END_MARKER",
    "MAX_RULE_CHARS",
    "RULES_FILES",
    "START_MARKER",
    "RulesFileError",
    "choose_rules_file",
    "clean_rule",
    "missing_rules",
    "read_rules",
    "with_rules",
]

#: The agent-rules files Gauntlet writes to, in order of preference: the first that exists is used.
RULES_FILES = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", ".cursor/rules/gauntlet.mdc")
#: Created when none of :data:`RULES_FILES` exists.
DEFAULT_RULES_FILE = "AGENTS.md"

START_MARKER = "<!-- gauntlet:rules:start -->"
END_MARKER = "<!-- gauntlet:rules:end -->"
#: A rule is one line of an instructions file that agents read: keep it short.
MAX_RULE_CHARS = 500

_HEADER = (
    "## Rules learned by Gauntlet",
    "",
    "Gauntlet keeps this section through reviewed pull requests. Edit anything outside the markers freely.",
    "",
)
_BULLET = re.compile(r"^\s*[-*]\s+(.*\S)\s*$")
_COMMENT = re.compile(r"<!--|-->")
_WHITESPACE = re.compile(r"\s+")


class RulesFileError(InputError):
    """The rules file's markers are unusable (one without the other, repeated, or out of order)."""


def choose_rules_file(existing: Collection[str]) -> str:
    """The rules file to edit: the first of :data:`RULES_FILES` in ``existing``, else ``AGENTS.md``.

    :param existing: the paths that exist on the base branch (any superset is fine).
    """
    for path in RULES_FILES:
        if path in existing:
            return path
    return DEFAULT_RULES_FILE


def clean_rule(rule: str) -> str:
    """One rule as one bounded line that cannot forge or close Gauntlet's markers."""
    text = _WHITESPACE.sub(" ", _COMMENT.sub("", rule)).strip()
    if len(text) > MAX_RULE_CHARS:
        text = text[: MAX_RULE_CHARS - 1].rstrip() + "…"
    return text


def _span(text: str) -> tuple[int, int] | None:
    """Where the section is: from the start of the start marker to the end of the end marker.

    :raises RulesFileError: the markers are not exactly one start followed by one end.
    """
    starts, ends = text.count(START_MARKER), text.count(END_MARKER)
    if starts == 0 and ends == 0:
        return None
    if starts != 1 or ends != 1:
        raise RulesFileError(f"the rules file has {starts} start and {ends} end Gauntlet markers; expected one of each")
    begin, end = text.index(START_MARKER), text.index(END_MARKER)
    if end < begin:
        raise RulesFileError("the rules file's Gauntlet end marker comes before its start marker")
    return begin, end + len(END_MARKER)


def read_rules(text: str) -> tuple[str, ...]:
    """The rules listed in the Gauntlet section (its bullet lines), in order; none without a section.

    :raises RulesFileError: the markers are unusable.
    """
    span = _span(text)
    if span is None:
        return ()
    inner = text[span[0] + len(START_MARKER) : span[1] - len(END_MARKER)]
    rules: list[str] = []
    for line in inner.splitlines():
        match = _BULLET.match(line)
        if match:
            rules.append(match.group(1))
    return tuple(rules)


def missing_rules(text: str, rules: Iterable[str]) -> tuple[str, ...]:
    """The rules (cleaned) that the file's Gauntlet section does not list yet, in order, once each.

    :raises RulesFileError: the markers are unusable.
    """
    present = set(read_rules(text))
    missing: list[str] = []
    for rule in rules:
        line = clean_rule(rule)
        if line and line not in present and line not in missing:
            missing.append(line)
    return tuple(missing)


def _section(rules: Iterable[str], newline: str) -> str:
    lines = [START_MARKER, *_HEADER, *(f"- {rule}" for rule in rules), END_MARKER]
    return newline.join(lines)


def with_rules(text: str, rules: Iterable[str]) -> str:
    """The file's text with ``rules`` added to its Gauntlet section (created at the end when missing).

    Rules already listed are not repeated; the order is kept (old first). Text outside the markers is
    returned unchanged, so the result of applying the same rules again is the same text.

    :param text: the current file content ("" for a file that does not exist yet).
    :param rules: the rules to promote; blank ones are dropped.
    :raises RulesFileError: the markers are unusable.
    """
    span = _span(text)
    merged = [*read_rules(text), *missing_rules(text, rules)]
    if span is not None:
        # Keep the line endings the section already has, whatever the rest of the file uses.
        newline = "\r\n" if text.startswith("\r\n", span[0] + len(START_MARKER)) else "\n"
        return text[: span[0]] + _section(merged, newline) + text[span[1] :]
    newline = "\r\n" if "\r\n" in text else "\n"
    section = _section(merged, newline)
    if not text:
        return section + newline
    separator = newline if text.endswith("\n") else newline * 2
    return text + separator + section + newline
