"""Known-failure rules (DESIGN §5, contract; ``docs/known-failures.md``): what an issue labelled ``known-failure`` says.

Theory of operation: a maintainer files an issue labelled ``known-failure`` whose body holds a fenced
```` ```json ```` block::

    {"message": "ConnectionResetError", "path": "tests/net/**", "kind": "test_failure"}

``message`` (a case-insensitive substring of a failure's message or excerpt) or ``pattern`` (a regular
expression), or both, and optionally ``path`` (a glob, as CODEOWNERS writes them) and ``kind``. The edge reads
the open issues (``action/known_reads.py``) and this module turns each body into a :class:`KnownRule`, or a
:class:`RuleProblem` that Gauntlet answers on the issue, once per version of its body. The engine matches
failures against the rules (``engine/known.py``); nothing here reads GitHub.

**Bounded patterns.** An issue body is untrusted input: ``(a+)+$`` against a long ``aaaa…!`` takes Python's
backtracking ``re`` exponential time, and ``re`` cannot be interrupted. Patterns are matched with Hyperscan
(already a dependency, for log scanning), an automaton that scans in time linear in the text whatever the
pattern, and refuses what it cannot do in linear time (back-references, look-arounds). What is left to bound is
compiling: a pattern is at most :data:`MAX_PATTERN_CHARS` characters and the product of its repeat counts
(``{n}``, ``{n,m}``) at most :data:`MAX_REPEAT_PRODUCT` (``([^x]{99}){99}`` takes Hyperscan seconds to refuse);
the text searched is at most :data:`MAX_TEXT_CHARS`. A pattern that matches the empty string (``a*``) would
make every failure known and is refused too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gauntlet.kinds import KINDS

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "KNOWN_LABEL",
    "MAX_KNOWN_ISSUES",
    "MAX_PATTERN_CHARS",
    "MAX_REPEAT_PRODUCT",
    "MAX_TEXT_CHARS",
    "KnownFailures",
    "KnownRule",
    "RuleBlock",
    "RuleProblem",
    "block_text",
    "compile_pattern",
    "known_failures",
    "parse_issue",
    "pattern_search",
]

#: The label that makes an open issue a known-failure rule.
KNOWN_LABEL = "known-failure"
#: Open known-failure issues read per run, at most (newest first): two pages of 100.
MAX_KNOWN_ISSUES = 200
MAX_PATTERN_CHARS = 256
MAX_REPEAT_PRODUCT = 1000
#: What of a failure's message and excerpt a rule is matched against.
MAX_TEXT_CHARS = 16_384
MAX_MESSAGE_CHARS = 500
MIN_MESSAGE_CHARS = 3
#: What of an issue body is read (GitHub allows 65,536 characters) and of its JSON block.
MAX_BODY_CHARS = 65_536
MAX_BLOCK_CHARS = 4_096


_BLOCK = re.compile(r"^[ \t]*```[ \t]*json[ \t]*\r?\n(.*?)^[ \t]*```", re.MULTILINE | re.DOTALL | re.IGNORECASE)
_REPEAT = re.compile(r"(?<!\\)\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RuleBlock(_Frozen):
    """The JSON block of a known-failure issue, as people write it (unknown fields are refused: a typo would
    otherwise make a rule that matches more than meant)."""

    message: str | None = Field(None, min_length=MIN_MESSAGE_CHARS, max_length=MAX_MESSAGE_CHARS)
    pattern: str | None = Field(None, min_length=1, max_length=MAX_PATTERN_CHARS)
    path: str | None = Field(None, min_length=1, max_length=256)
    kind: str | None = None

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and len(value.strip()) < MIN_MESSAGE_CHARS:
            raise ValueError(f"message must hold at least {MIN_MESSAGE_CHARS} characters besides spaces")
        return value

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str | None) -> str | None:
        if value is not None and value not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}")
        return value

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str | None) -> str | None:
        if value is not None:
            problem = compile_pattern(value)
            if problem is not None:
                raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _says_what(self) -> RuleBlock:
        if self.message is None and self.pattern is None:
            raise ValueError("the block needs `message` or `pattern`")
        return self


class KnownRule(RuleBlock):
    """A known-failure issue's rule: which issue, and what its block says."""

    issue: int
    url: str | None = None


class RuleProblem(_Frozen):
    """A known-failure issue whose block Gauntlet could not use: answered once per ``version`` of the body."""

    issue: int
    url: str | None = None
    #: A digest of the body: an edited body is a new version (answered again if still wrong).
    version: str
    reason: str


class KnownFailures(_Frozen):
    """What the open known-failure issues say, as a run read them (``Observation.known_failures``).

    :param read: how many issues were read; ``more``: more are open than were read (the newest are).
    """

    rules: tuple[KnownRule, ...] = ()
    problems: tuple[RuleProblem, ...] = ()
    read: int = 0
    more: bool = False


def parse_issue(number: int, body: str | None, url: str | None = None) -> KnownRule | RuleProblem:
    """The rule an issue's body holds, or what is wrong with it.

    :param number: the issue's number.
    :param body: its body (``None``: empty).
    :param url: its address, which the PR comment links.
    """
    text = (body or "")[:MAX_BODY_CHARS]
    version = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]

    def problem(reason: str) -> RuleProblem:
        return RuleProblem(issue=number, url=url, version=version, reason=reason)

    found = _BLOCK.search(text)
    if found is None:
        return problem("the body holds no fenced ```json block")
    raw = found.group(1)
    if len(raw) > MAX_BLOCK_CHARS:
        return problem(f"the ```json block is longer than {MAX_BLOCK_CHARS} characters")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return problem(f"the ```json block is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    except RecursionError:  # [[[[…: the decoder recurses once per level
        return problem("the ```json block nests too deeply: it must be one object of strings")
    if not isinstance(data, dict):
        return problem('the ```json block must be an object, such as {"message": "..."}')
    try:
        block = RuleBlock.model_validate(data)
    except ValidationError as exc:
        return problem("; ".join(_said(error) for error in exc.errors()[:5]))
    return KnownRule(issue=number, url=url, **block.model_dump())


def _said(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))[:60]  # a field name is the issue's text
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    if error.get("type") == "extra_forbidden":
        message = "unknown field (the fields are message, pattern, path and kind)"
    return f"`{where}`: {message}" if where else message


def known_failures(issues: Iterable[Mapping[str, Any]], *, more: bool = False) -> KnownFailures:
    """The rules and problems of issues as ``GET issues`` lists them (pull requests left out), at most
    :data:`MAX_KNOWN_ISSUES`, oldest issue first.

    :param more: more issues are open than the listing read.
    """
    rules: list[KnownRule] = []
    problems: list[RuleProblem] = []
    read = 0
    for item in issues:
        number = item.get("number")
        if "pull_request" in item or not isinstance(number, int) or isinstance(number, bool):
            continue
        if read == MAX_KNOWN_ISSUES:
            more = True
            break
        read += 1
        body = item.get("body")
        url = item.get("html_url")
        parsed = parse_issue(number, body if isinstance(body, str) else None, url if isinstance(url, str) else None)
        (rules if isinstance(parsed, KnownRule) else problems).append(parsed)  # type: ignore[arg-type]
    return KnownFailures(
        rules=tuple(sorted(rules, key=lambda r: r.issue)),
        problems=tuple(sorted(problems, key=lambda p: p.issue)),
        read=read,
        more=more,
    )


#: Characters that could end the fence, ping someone or read as HTML, written as JSON escapes: the same value for a
#: JSON reader, inert for Markdown (as in the check's verdict).
_INERT = str.maketrans({"`": "\\u0060", "@": "\\u0040", "<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def block_text(block: RuleBlock) -> str:
    """The fenced JSON block of a rule, as an issue Gauntlet files holds it (``/gauntlet known``): inert Markdown,
    and it parses back to the same rule."""
    data = block.model_dump(exclude_none=True, include={"message", "pattern", "path", "kind"})
    return "```json\n" + json.dumps(data, indent=2, ensure_ascii=False).translate(_INERT) + "\n```"


# --- patterns --------------------------------------------------------------------------------------------------


def compile_pattern(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a rule's, or ``None`` when it can (see the module's "Bounded patterns")."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"pattern is longer than {MAX_PATTERN_CHARS} characters"
    product = 1
    for low, high in _REPEAT.findall(pattern):
        product *= max(int(low or 0), int(high or 0), 1)
        if product > MAX_REPEAT_PRODUCT:
            return f"pattern repeats too much: the product of its repeat counts is above {MAX_REPEAT_PRODUCT}"
    try:
        _database(pattern)
    except _PatternError as exc:
        return f"pattern cannot be matched in bounded time: {exc}"
    return None


def pattern_search(pattern: str) -> Callable[[str], bool]:
    """A search for ``pattern`` anywhere in a text (its first :data:`MAX_TEXT_CHARS` characters), linear in the
    text. Only for a pattern :func:`compile_pattern` accepted.

    :raises ValueError: the pattern cannot be matched here.
    """
    try:
        database = _database(pattern)
    except _PatternError as exc:
        raise ValueError(str(exc)) from exc
    import hyperscan

    # A scratch space serves one scan at a time: each search has its own (runs share the compiled database).
    scratch = hyperscan.Scratch(database)

    def search(text: str) -> bool:
        found: list[bool] = []

        def on_match(*_: object) -> bool:
            found.append(True)
            return True  # stop scanning: one match is enough

        data = text[:MAX_TEXT_CHARS].encode("utf-8", "replace")
        with contextlib.suppress(hyperscan.ScanTerminated):  # raised when on_match stops the scan
            database.scan(data, match_event_handler=on_match, scratch=scratch)
        return bool(found)

    return search


class _PatternError(Exception):
    """Hyperscan refused a pattern, or is not installed."""


@lru_cache(maxsize=512)
def _database(pattern: str) -> Any:
    try:
        import hyperscan
    except ImportError as exc:  # an architecture without its wheels
        raise _PatternError("this runner lacks Hyperscan; use `message` instead") from exc
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        database.compile(
            expressions=[pattern.encode("utf-8")],
            ids=[0],
            elements=1,
            flags=[hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_UTF8],
        )
    except hyperscan.error as exc:
        raise _PatternError(str(exc).rstrip(".")) from exc
    return database
