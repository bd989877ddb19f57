"""``/gauntlet`` commands in a comment: pure parsing, no authority and no effects (DESIGN §1, §6).

Theory of operation: a comment is untrusted text. Only lines that *start* with
``/gauntlet`` are commands (quoted lines ``> /gauntlet …`` and fenced code are
examples, not commands); several run in the order written, at most
:data:`MAX_COMMANDS` of them. A command word Gauntlet does not know is answered
with the help. Nothing parsed here is ever executed or used as template source:
it becomes plain values (a name, a scope, a proposal id, a reason), with
secrets redacted, since a reason is written into replies and issues.

``accept-risk``'s first word is a scope only when it is ``all``, ``majors``,
``minors`` or a comma-separated list of fingerprint prefixes (8+ hex characters)
that each match an open finding; otherwise every word is the reason and the
scope is ``all``::

    /gauntlet accept-risk majors flaky upstream API      scope majors, reason "flaky upstream API"
    /gauntlet accept-risk 3f9a02c1,77bd0e4a known issue   two fingerprints
    /gauntlet accept-risk known issue in vendored code   scope all, reason "known issue in vendored code"
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gauntlet.untrusted import redact, scrub

__all__ = [
    "COMMAND_NAMES",
    "MAX_COMMANDS",
    "MAX_COMMENT_CHARS",
    "MAX_LINE_CHARS",
    "MAX_REASON_CHARS",
    "Command",
    "CommandName",
    "RiskScope",
    "parse_commands",
]

CommandName = Literal[
    "help", "status", "accept-risk", "retry", "approve", "reject", "reset", "flaky", "not-flaky", "known"
]
RiskScope = Literal["all", "majors", "minors"]

#: Every command, in the order the help lists them.
COMMAND_NAMES: tuple[CommandName, ...] = (
    "help",
    "status",
    "accept-risk",
    "retry",
    "approve",
    "reject",
    "reset",
    "flaky",
    "not-flaky",
    "known",
)
#: Commands acted on per comment; the rest are reported as ignored (a comment is not a script).
MAX_COMMANDS = 10
#: GitHub's limit on a comment body (the rest is cut before parsing).
MAX_COMMENT_CHARS = 65_536
#: A command line is cut to this many characters before it is parsed or quoted.
MAX_LINE_CHARS = 300
MAX_REASON_CHARS = 250

_PREFIX = "/gauntlet"
_SCOPES: dict[str, RiskScope] = {"all": "all", "majors": "majors", "minors": "minors"}
#: Commands that take no arguments (anything after them is ignored).
_BARE: dict[str, CommandName] = {"help": "help", "status": "status", "retry": "retry", "reset": "reset"}
_FINGERPRINT_PREFIX = re.compile(r"[0-9a-f]{8,64}")
_PROPOSAL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: A test id (``tests/test_x.py::TestY::test_z[1-2]``, ``com.example.CalcTest::adds``) or a fingerprint prefix.
_TEST = re.compile(r"[A-Za-z0-9_./:\[\]@,+-]{1,300}")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


class Command(BaseModel):
    """One parsed command. ``problem`` is set when it cannot run as written (the reply says why)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: CommandName
    #: The line as written (bounded), quoted in the reply.
    line: str
    #: ``accept-risk``: a keyword scope, or the fingerprints the prefixes matched.
    scope: RiskScope = "all"
    fingerprints: tuple[str, ...] = ()
    #: ``approve`` / ``reject``: the proposal named.
    proposal: str | None = None
    #: ``flaky`` / ``not-flaky`` / ``known``: the test id or fingerprint prefix named.
    test: str | None = None
    reason: str = ""
    #: The word that was not a command, when the help is given in its place.
    unknown: str | None = None
    problem: str | None = None


def parse_commands(body: str, open_fingerprints: Collection[str] = ()) -> list[Command]:
    """Every ``/gauntlet`` command in ``body``, in order (at most :data:`MAX_COMMANDS`).

    :param body: the comment text (untrusted, any size).
    :param open_fingerprints: the fingerprints of the open findings ``accept-risk`` may name.
    """
    commands: list[Command] = []
    fence: str | None = None
    # GitHub keeps at most this much of a comment; anything past it was never typed into one. Every step
    # below is linear in what is left, so a comment of any size is answered in milliseconds.
    for raw in scrub(body[:MAX_COMMENT_CHARS]).splitlines():
        opened = _FENCE.match(raw)
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
            elif mark.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        if not _is_command(raw):
            continue
        # Redacted before it is cut, so a cut cannot hide a token from the patterns: the line is quoted back.
        line = redact(raw.strip())[:MAX_LINE_CHARS]
        commands.append(_parse_line(line, open_fingerprints))
        if len(commands) == MAX_COMMANDS:
            break
    return commands


def _is_command(raw: str) -> bool:
    # Up to three spaces of indent, as Markdown allows before a paragraph; four make a code block.
    stripped = raw.lstrip(" ")
    if len(raw) - len(stripped) > 3 or not stripped.startswith(_PREFIX):
        return False
    rest = stripped[len(_PREFIX) :]
    return not rest or rest[0].isspace()


def _parse_line(line: str, open_fingerprints: Collection[str]) -> Command:
    words = line.split()[1:]
    if not words:
        return Command(name="help", line=line)
    word, args = words[0].lower(), words[1:]
    if word == "accept-risk":
        return _accept_risk(line, args, open_fingerprints)
    if word in ("approve", "reject"):
        return _proposal_decision(line, word, args)
    if word in ("flaky", "not-flaky", "known"):
        return _test_command(line, word, args)
    if word in _BARE:
        return Command(name=_BARE[word], line=line)
    return Command(name="help", line=line, unknown=words[0][:40])


def _accept_risk(line: str, args: list[str], open_fingerprints: Collection[str]) -> Command:
    if args:
        first = args[0].lower()
        if first in _SCOPES:
            return Command(name="accept-risk", line=line, scope=_SCOPES[first], reason=_reason(args[1:]))
        matched = _match_fingerprints(first, open_fingerprints)
        if matched:
            return Command(name="accept-risk", line=line, fingerprints=matched, reason=_reason(args[1:]))
    return Command(name="accept-risk", line=line, scope="all", reason=_reason(args))


def _match_fingerprints(word: str, open_fingerprints: Collection[str]) -> tuple[str, ...]:
    """The open fingerprints the comma-separated prefixes in ``word`` name; empty unless every prefix matches."""
    prefixes = [p for p in word.split(",") if p]
    if not prefixes or not all(_FINGERPRINT_PREFIX.fullmatch(p) for p in prefixes):
        return ()
    matched: dict[str, None] = {}
    for prefix in prefixes:
        hits = sorted(fp for fp in open_fingerprints if fp.lower().startswith(prefix))
        if not hits:
            return ()
        matched.update(dict.fromkeys(hits))
    return tuple(matched)


def _proposal_decision(line: str, word: str, args: list[str]) -> Command:
    name: CommandName = "approve" if word == "approve" else "reject"
    if not args or not _PROPOSAL_ID.fullmatch(args[0]):
        return Command(name=name, line=line, problem=f"`{word}` needs a proposal id, e.g. `/gauntlet {word} SH-12`")
    return Command(name=name, line=line, proposal=args[0], reason=_reason(args[1:]))


def _test_command(line: str, word: str, args: list[str]) -> Command:
    """``flaky``, ``not-flaky`` and ``known``: a test id or fingerprint, then an optional reason."""
    name: CommandName = "flaky" if word == "flaky" else "not-flaky" if word == "not-flaky" else "known"
    if not args or not _TEST.fullmatch(args[0]):
        return Command(
            name=name,
            line=line,
            problem=f"`{word}` needs a test id or fingerprint, e.g. `/gauntlet {word} tests/x.py::y`",
        )
    return Command(name=name, line=line, test=args[0], reason=_reason(args[1:]))


def _reason(words: list[str]) -> str:
    return " ".join(words)[:MAX_REASON_CHARS]
