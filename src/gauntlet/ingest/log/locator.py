"""The failure locator: the block that explains a failed step, for any tool, with no parser.

Theory of operation. The tool parsers know a few dozen tools well; real jobs run every tool
there is. When a step fails and no parser explained it, the analyser asks :func:`locate` for the
block of the step's last lines that explains the failure, the way a person reads a log:

* only the failed step counts: its lines are cut at the step's start (GitHub's ``##[group]Run``
  header, Travis's ``$ command`` echo and the previous command's exit line, GitLab's
  ``section_start``, Jenkins' ``[Pipeline]`` lines), at most :data:`WINDOW` lines back;
* each line is scored by failure vocabulary (``error:``, ``FAILED``, ``No such file or directory``,
  ``undefined reference``, ``✗``) minus what passing output says (``0 failures``, ``PASSED``,
  ``-Werror``); a line whose shape (digits, hex and paths aside) repeats through the step is worth
  less, since a line every iteration prints explains nothing;
* the framework's summary line (``3 failed, 9 passed``, ``Tests run: 5, Failures: 1``) is a boundary:
  the explaining block stands before it, unless nothing scores there;
* the best line wins, the latest of equals (the cause is the last error-shaped block before the
  exit); a block repeated verbatim (a retried command) folds into its last copy;
* the block is the anchor's paragraph: the contiguous lines around it (one blank line may sit
  inside; Travis doubles some newlines), at most :data:`BEFORE` lines before and :data:`AFTER` after;
* when no line scores, the step's last non-blank lines explain it (a tool that fails quietly
  prints its last words just before it exits).

The window comes from the scanner's block in memory (and the last lines of the block before), so
the locator adds nothing to the per-line work: it runs once per failed step, on at most
:data:`WINDOW` lines.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gauntlet.ingest.log.text import clean_line

if TYPE_CHECKING:  # not imported to run: the read-ahead child locates steps before pydantic loads
    from gauntlet.ingest.log.draft import Line
    from gauntlet.models import Kind

__all__ = [
    "BEFORE",
    "CARRY_BYTES",
    "LINE_HEAD",
    "WINDOW",
    "Located",
    "Span",
    "clean_step_line",
    "is_crash",
    "last_lines",
    "lines_back",
    "locate",
    "previous_lines",
    "read_step",
    "read_step_back",
    "score_line",
    "step_lines",
]

#: Lines before a step's exit that are read for its explanation.
WINDOW = 1000
#: The explaining block around its best line: lines kept before and after it.
BEFORE = 8
AFTER = 14
#: A quiet failure: the step's last non-blank lines.
QUIET_LINES = 6
#: A line shape printed more often than this in one step is routine output: it weighs less.
COMMON = 8
#: The step's last non-blank lines, and what they weigh more: the cause is usually printed last.
TAIL = 10
TAIL_BONUS = 2.0
#: Error-shaped lines at most this far apart are one cascade; a block never spans more than MAX_BLOCK lines.
CASCADE_GAP = 3
MAX_BLOCK = 40
#: A line scoring below this is not error-shaped (the vocabulary weighs 1 to 4).
THRESHOLD = 3.0

# Failure vocabulary, strongest first. Word boundaries keep identifiers out: ``test_error_handling``,
# ``-Werror`` and ``error_reporter.cpp`` carry no ``\berror\b``.
_W = r"(?<![\w\-./])"  # not inside an identifier, a flag or a path: test_error_handling, -Werror, errors.go
_E = r"(?![\w\-/]|\.\w)"
_STRONG = re.compile(
    _W
    + r"""(?:error|errors|ERROR|ERRORS|Error|Errors|ERR!|fatal|FATAL|Fatal|FAIL|FAILED|FAILURE|Failure|FAILURES
       |failed|Failed|failures?|Failures?|failing|panic|panicked|Traceback|Segmentation\ fault|core\ dumped|Aborted
       |Killed|undefined\ reference|not\ ok|Assertion|assert(?:ion)?\ failed|Dubious)"""
    + _E
    + r"""| [a-z](?:Error|Exception|Failure)\b | \bE\d{3,4}\b | \berror\[ | ^!\ | ^E\ {2,}
    | [✗✘×✕❌✖] | \[(?:FAIL|ERROR|FAILED|ERR)\]""",
    re.VERBOSE,
)
_MEDIUM = re.compile(
    _W
    + r"""(?:cannot|can't|could\ not|couldn't|unable\ to|not\ found|no\ such\ file|does\ not\ exist|doesn't\ exist
       |undefined|not\ defined|unresolved|unrecognized|denied|refused|missing|invalid|unexpected|mismatch|conflicts?
       |incompatible|unsatisfi(?:able|ed)|not\ allowed|forbidden|rejected|illegal|violat(?:ion|ed)|terminated
       |timed\ out|timeout|exceeded|out\ of\ memory|non-?zero|exit\ (?:code|status)\ [1-9]|exited\ with\ [1-9]
       |returned\ [1-9]|wrong|broken|crash(?:ed)?|died|abort(?:ed|ing)?|too\ (?:wide|long|many|few)
       |not\ installed|not\ supported|unsupported|expected|Overfull|Underfull|permission|syntax|unknown|Issues
       |usage|Usage|not\ in\ scope|no\ matching|not\ a\ valid|bad)"""
    + _E
    + r"""| \b[45]\d\d\ (?:https?://|Not\ Found|Forbidden|Internal|Bad|Service|Gateway)""",
    re.VERBOSE | re.IGNORECASE,
)
# First looks that make a line's score cheap (most lines of a step hold no vocabulary at all). Every match of
# :data:`_STRONG` and of :data:`_MEDIUM` starts a whole run of ASCII letters (its look-behind keeps a letter from
# standing before it, and a single word ends its run: a letter would be ``\w``), and that run is one of these words
# (lowercased for the IGNORECASE one), or the line holds a ``TypeError``-like word (``[a-z](?:Error|Exception|
# Failure)``) or an HTTP status (:data:`_STATUS`), one of :data:`_SYMBOLS` or starts with ``! ``. Lowercasing is
# IGNORECASE on a line without :data:`_FOLDS`. Only a line that passes is searched with the patterns themselves, so
# the scores are the same; a test checks this on every corpus line and on generated matches.
_STRONG_FIRST = frozenset(
    """error errors ERROR ERRORS Error Errors ERR fatal FATAL Fatal FAIL FAILED FAILURE FAILURES Failure Failures
    failed Failed failure failures failing panic panicked Traceback Segmentation core Aborted Killed undefined not
    Assertion assert assertion Dubious E""".split()  # noqa: SIM905 - a list of words
)
_MEDIUM_FIRST = frozenset(
    """cannot can could couldn unable not no does doesn undefined unresolved unrecognized denied refused missing
    invalid unexpected mismatch conflict conflicts incompatible unsatisfiable unsatisfied illegal violation
    violated forbidden rejected terminated timed timeout exceeded out non nonzero exit exited returned wrong
    broken crash crashed died abort aborted aborting too unsupported expected overfull underfull permission
    syntax unknown issues usage bad http https internal service gateway""".split()  # noqa: SIM905 - a list of words
)
_LETTERS = re.compile(r"[A-Za-z]+")
#: The only characters but ASCII letters that IGNORECASE matches an ASCII letter with, or that lowercase to one (a
#: test checks every code point): in a line without them, the runs of ASCII letters are the only words to look at.
#: :data:`_MEDIUM`'s HTTP status, lowercased: the word after it need not end there (``404 Not Foundation``).
_STATUS = re.compile(r"[45]\d\d (?:http|not found|forbidden|internal|bad|service|gateway)")
_FOLDS = frozenset("\u0130\u0131\u017f\u212a")
_SYMBOLS = frozenset("✗✘×✕❌✖")
#: Either's words, lowercased: a line whose lowercased words hold none of these matches neither pattern.
_EITHER_FIRST = frozenset(word.lower() for word in _STRONG_FIRST) | _MEDIUM_FIRST
# The same for :data:`_SUMMARY`: what a line without :data:`_FOLDS` it matches starts with (lowercased) or holds.
_SUMMARY_STARTS = ("failures!", "ran ", "test summary", "test:", "tests:", "test suites:", "failed ", "executed ")
_SUMMARY_INSIDE = ("tests run: ", "example", "test complete")
_LEADING_COUNT = re.compile(r"\W*\d")


def _plain(text: str) -> bool:
    """Whether the runs of ASCII letters in ``text``, lowercased, are all IGNORECASE sees of its words."""
    return text.isascii() or _FOLDS.isdisjoint(text)


def _strong(text: str) -> bool:
    if not text.startswith("! ") and (text.isascii() or _SYMBOLS.isdisjoint(text)):
        inside = "Error" in text or "Exception" in text or "Failure" in text
        if not inside and _STRONG_FIRST.isdisjoint(_LETTERS.findall(text)):
            return False
    return _STRONG.search(text) is not None


def _medium(text: str) -> bool:
    if _plain(text):
        lowered = text.lower()
        if _MEDIUM_FIRST.isdisjoint(_LETTERS.findall(lowered)) and not _STATUS.search(lowered):
            return False
    return _MEDIUM.search(text) is not None


def _is_summary(text: str) -> bool:
    if _plain(text):
        lowered = text.lower()
        if not (
            lowered.startswith(_SUMMARY_STARTS)
            or any(words in lowered for words in _SUMMARY_INSIDE)
            or _LEADING_COUNT.match(text)
        ):
            return False
    return _SUMMARY.search(text) is not None


# A source location (``src/a.c:12:5``, ``File.cs(20,40)``): a diagnostic that says where.
_LOCATION = re.compile(r"\S\.[A-Za-z]\w*(?::\d+|\(\d+,\d+\))")
# What passing output says with the same words.
_PASSING = re.compile(
    r"""(?xi)
    \b0\ (?:errors?|failures?|failed|failing)\b | \b(?:errors?|failures?|failed|failing):?\ 0\b
    | \bPASS(?:ED)?\b | \bpassed\b | \.\.\.\ ok$ | \bok$ | \bsuccess(?:ful(?:ly)?)?\b | -W(?:no-)?error
    | \bwarn(?:ing)?s?\b | \bdeprecat | \bskipped\b | \bxfail | \bignored\b
    """
)
_WARNINGS_HEADER = re.compile(r"(?i)\bwarnings?\b[^:]*:\s*$")
# Lines that frame steps: never part of an explanation.
_FRAMING = re.compile(
    r"""(?x)
    ^(?:\$\ |travis_(?:fold|time)|\#\#\[|section_(?:start|end):|\[Pipeline\]|\+\ |\[command\])
    | ^The\ command\ " | "\ exited\ with\ \d+\.$ | ^Done\.\ Your\ build\ exited\ with | ^Process\ completed\ with
    | ^(?:make|gmake)(?:\[\d+\])?:\ (?:Entering|Leaving)\ directory
    """
)
# Where a step starts, read backwards from its exit: the line itself is not part of the step.
_STEP_START = re.compile(
    r"""(?x)
    ^\#\#\[group\]Run\  | ^\$\  | ^travis_fold:start | ^section_start: | ^\[Pipeline\]\ (?:sh|bat|powershell)
    | "\ exited\ with\ \d+\.$ | ^\#\#\[(?:error|endgroup)\].*exit\ code
    | ^ERROR:\ (?:Job\ failed|script\ returned\ exit\ code)
    """
)
# A test framework's summary: the failure it counts is explained above it.
_SUMMARY = re.compile(
    r"""(?xi)
    ^\W*\d+\ (?:failed|errors?|failures?|examples?|tests?|passed|passing|failing|runs?)\b.*\d
    | \bTests\ run:\ \d+,\ Failures:\ \d+ | ^FAILURES!$ | ^Ran\ \d+\ tests? | \d+\ examples?,\ \d+\ failures?
    | ^(?:Test\ Summary|Tests?:\ +\d+|Test\ Suites:) | ^Failed\ \d+/\d+\ test\ programs
    | \bTEST\ COMPLETE\b | ^Executed\ \d+\ of\ \d+
    """
)
# Kinds the block's own words can tell (first match wins); ``unknown`` otherwise.
_KINDS: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        re.compile(
            r"(?i)connection (?:refused|reset|timed out)|could not resolve host|temporary failure in name"
            r"|\b(?:502|503|504) |network is unreachable|TLS handshake|rate limit"
        ),
        "infra",
    ),
    # Not a stack frame's ``at Timeout.exec`` / ``Timeout._onTimeout`` (node runs every deferred callback so), nor
    # a name in quotes (a schema validator's ``Additional property 'timeout' is not allowed``).
    (re.compile(r"(?i)\btimed out\b|(?<!['\"])\btimeout\b(?![.\]'\"])"), "timeout"),
    (re.compile(r"(?i)segmentation fault|core dumped|\bAborted\b|\bKilled\b|panicked|\bpanic:"), "crash"),
    (
        re.compile(
            r"(?i)unable to resolve|could not (?:find|resolve) (?:package|artifact|dependency|gem|module)"
            r"|no matching (?:distribution|version)|version solving failed|unsatisfiable"
        ),
        "dependency",
    ),
    (
        re.compile(
            r"(?i)\btests? (?:failed|failures?)\b|\bassert|\[FAIL\]|\bnot ok \d"
            r"|expected(?! [\"'`]\W{1,3}[\"'`]).{0,200}?(?:got|but)"  # not a parser's token: ``Expected ")" but``
            r"|\d+ (?:failed|failures?|failing)\b"
        ),
        "test_failure",
    ),
    (
        re.compile(
            r"\S\.\w+:\d+(?::\d+)?:? (?:fatal )?error\b|undefined reference|\berror(?:\[\w+\])?:|"
            r"compilation (?:failed|terminated)|could not compile"
        ),
        "build_error",
    ),
)
#: A place in the input: a block, an offset in it (a line start) and the number of the line there.
Span = tuple[bytes, int, int]
#: Of each line read back from the block before only its head is kept: a window of long lines stays small.
CARRY_BYTES = 16384
#: The locator scores a cleaned line's head only (it is cleaned from its first CARRY_BYTES: a ``\r`` redraw
#: shows its end): what explains a failure is said first, and long lines stay cheap.
LINE_HEAD = 512
_NEWLINE = ord("\n")

# A path is a whole token holding a slash; looked for from token starts only, so a long line costs linear time.
_SHAPE = re.compile(r"0x[0-9a-fA-F]+|[0-9a-f]{7,}|\d+|(?<!\S)(?=[^\s/]*/)\S+")


@dataclass(frozen=True, slots=True)
class Located:
    """The block that explains a failed step: raw log lines ``start..end``, its best line and a kind."""

    start: int
    end: int
    #: The line that explains the failure best (the first of a cascade) and what it says.
    line: int
    message: str
    kind: Kind
    #: The best line's score: 0 when no line was error-shaped and the step's last lines stand in.
    score: float


_CRASH = re.compile(
    r"==\d+==\s*ERROR: \w*Sanitizer|\bSegmentation fault\b|\(core dumped\)|\bSIG(?:SEGV|ABRT|BUS|ILL)\b"
)


def is_crash(text: str) -> bool:
    """True for a line that reports a crash (a sanitizer's report, a segfault, a fatal signal)."""
    return ("anitizer" in text or "SIG" in text or "egmentation" in text or "core dumped" in text) and bool(
        _CRASH.search(text)
    )


def score_line(text: str) -> float:
    """How much one cleaned line looks like it explains a failure (0 for framing and passing output).

    Failure words weigh 4, words of trouble 2, a source location 1; what passing output says takes 4 off.
    """
    if not text or _FRAMING.match(text):
        return 0.0
    if not text.startswith("! ") and (text.isascii() or (_plain(text) and _SYMBOLS.isdisjoint(text))):
        # Most lines hold neither vocabulary's words: one look at their words, lowercased, for both.
        lowered = text.lower()
        inside = "error" in lowered or "exception" in lowered or "failure" in lowered
        if not inside and _EITHER_FIRST.isdisjoint(_LETTERS.findall(lowered)) and not _STATUS.search(lowered):
            return 0.0
    score = 4.0 * _strong(text) + 2.0 * _medium(text)
    if not score:
        return 0.0
    if _LOCATION.search(text):
        score += 1.0
    if _PASSING.search(text):
        score -= 4.0
    return max(score, 0.0)


def step_lines(lines: Sequence[Line]) -> list[Line]:
    """The lines of the step that ends after ``lines`` (oldest first): cut at the step's start.

    A GitHub step's header (``##[group]Run`` up to ``##[endgroup]``) is the command, not its output.
    """
    cut = 0
    for index in range(len(lines) - 1, -1, -1):
        if _STEP_START.match(lines[index][1]):
            cut = index + 1
            if lines[index][1].startswith("##[group]Run "):
                for offset in range(cut, len(lines)):
                    if lines[offset][1].startswith("##[endgroup]"):
                        cut = offset + 1
                        break
            break
    return list(lines[cut:])


def _shape(text: str) -> str:
    return _SHAPE.sub("#", text.strip())


def locate(lines: Sequence[Line]) -> Located | None:
    """The block of ``lines`` (one failed step's last lines, oldest first) that explains its failure.

    :returns: None when the step printed nothing at all.
    """
    step = step_lines(lines)
    if not step:
        return None
    scores = [score_line(text) for _, text in step]
    for index in range(1, len(step)):
        # What a warnings header (``Summary of warnings:``) lists is warnings, whatever their words.
        if scores[index] and _WARNINGS_HEADER.search(step[index - 1][1]):
            scores[index] = 0.0
    if not any(scores):
        return _quiet(step)  # what follows only weighs scored lines: none would reach the threshold
    # Only a scored line's shape is looked up, and a shape keeps its line's words apart (it replaces no
    # whitespace): only the lines with as many words as a scored line are counted.
    wanted = {len(text.split()) for (_, text), score in zip(step, scores, strict=True) if score}
    shapes = Counter(_shape(text) for _, text in step if len(text.split()) in wanted)
    for index, (_, text) in enumerate(step):
        if scores[index]:
            repeats = shapes[_shape(text)]
            if repeats > COMMON:
                scores[index] /= 1.0 + 0.5 * (repeats - COMMON) ** 0.5
    # The cause usually stands just before the exit: the step's last lines weigh more.
    tail = [index for index, (_, text) in enumerate(step) if text.strip() and not _FRAMING.match(text)][-TAIL:]
    for index in tail:
        if scores[index]:
            scores[index] += TAIL_BONUS
    limit = len(step)
    for index in range(len(step) - 1, -1, -1):
        if _is_summary(step[index][1]):
            if any(score >= THRESHOLD for score in scores[:index]):
                limit = index + 1  # the summary may close the block, not lead it
            break
    best = -1
    for index in range(limit):
        if scores[index] >= THRESHOLD and (best < 0 or scores[index] >= scores[best]):
            best = index
    if best < 0:
        return _quiet(step)
    # A block printed again (a retry, a summary that repeats it) folds into its first copy.
    shape = _shape(step[best][1])
    best = next(index for index in range(best + 1) if scores[index] and _shape(step[index][1]) == shape)
    # Errors cascade (a cause, then each driver that gave up: ``make[2]: *** Error 1``, ``make: *** Error 2``):
    # the cascade's first line is the cause.
    cause = best
    while True:
        earlier = [index for index in range(max(0, cause - CASCADE_GAP), cause) if scores[index] >= THRESHOLD]
        if not earlier or best - earlier[0] >= MAX_BLOCK:
            break
        cause = earlier[0]
    first, _ = _paragraph(step, cause, scores)
    _, last = _paragraph(step, best, scores)
    last = min(last, first + MAX_BLOCK - 1)
    kind = _kind(step, first, last)
    return Located(step[first][0], step[last][0], step[cause][0], step[cause][1].strip(), kind, scores[best])


def _paragraph(step: Sequence[Line], anchor: int, scores: Sequence[float]) -> tuple[int, int]:
    """The contiguous lines around ``anchor`` (one blank line may sit inside), within BEFORE/AFTER."""

    def stops(index: int) -> bool:
        text = step[index][1]
        return bool(_FRAMING.match(text)) or (_is_summary(text) and scores[index] == 0)

    first = anchor
    while first > 0 and anchor - first < BEFORE:
        previous = first - 1
        if not step[previous][1].strip():
            if previous == 0 or not step[previous - 1][1].strip() or anchor - previous >= BEFORE:
                break
            previous -= 1
        if stops(previous):
            break
        first = previous
    last = anchor
    while last + 1 < len(step) and last - anchor < AFTER:
        following = last + 1
        if not step[following][1].strip():
            if following + 1 >= len(step) or not step[following + 1][1].strip():
                break
            following += 1
        if stops(following):
            break
        last = following
    return first, last


def _quiet(step: Sequence[Line]) -> Located | None:
    """The step's last non-blank lines, for a failure no line of which is error-shaped."""
    kept = [line for line in step if line[1].strip() and not _FRAMING.match(line[1])][-QUIET_LINES:]
    if not kept:
        return None
    return Located(kept[0][0], kept[-1][0], kept[-1][0], kept[-1][1].strip(), "unknown", 0.0)


def _kind(step: Sequence[Line], first: int, last: int) -> Kind:
    text = "\n".join(line for _, line in step[first : last + 1])
    for pattern, kind in _KINDS:
        if pattern.search(text):
            return kind
    return "unknown"


def last_lines(block: bytes, floor: int, end: int, next_number: int, count: int) -> list[tuple[int, bytes]]:
    """The last ``count`` complete lines of ``block[floor:end]``, numbered.

    ``end`` is a line start (or the end of the block); ``next_number`` is the number of the line there.
    """
    lines: list[tuple[int, bytes]] = []
    if end <= floor:
        return lines
    # block ends with "\n" (or is a prefix ending just before a line start)
    position = end - 1
    number = next_number - 1
    while len(lines) < count and position >= floor:
        start = block.rfind(b"\n", floor, position) + 1
        start = max(start, floor)
        lines.append((number, block[start:position]))
        number -= 1
        position = start - 1
    lines.reverse()
    return lines


def previous_lines(previous: Span, count: int) -> list[tuple[int, bytes]]:
    """The last ``count`` lines (numbered, heads only) of the block before, which ends at ``previous``."""
    block, end, next_number = previous
    return [(number, raw[:CARRY_BYTES]) for number, raw in last_lines(block, 0, end, next_number, count)]


def lines_back(place: Span, previous: Span) -> Iterator[tuple[int, bytes]]:
    """The raw lines before ``place``, newest first: from its block, then the block before if it joins on."""
    block, end, number = place
    # ``end`` is a line start, or the end of the input's unterminated last line (then read as if it had one).
    position = end if end and block[end - 1] != _NEWLINE else end - 1
    while position >= 0:
        start = block.rfind(b"\n", 0, position) + 1
        number -= 1
        yield number, block[start:position]
        position = start - 1
    before, before_end, next_number = previous
    if next_number == number and before is not block:
        for line_number, raw in lines_back((before, before_end, next_number), (b"", 0, 0)):
            yield line_number, raw[:CARRY_BYTES]


def read_step(lines: Iterator[tuple[int, bytes]], clean: Callable[[bytes], str]) -> list[Line]:
    """Clean lines read back from a step's exit until its start (kept) or :data:`WINDOW` lines; oldest first.

    Reading stops at the step's start, so a log of many short failed steps costs no more than reading it once.
    """
    step: list[Line] = []
    for number, raw in lines:
        text = clean(raw)
        step.append((number, text))
        if len(step) >= WINDOW or _STEP_START.match(text):
            break
    step.reverse()
    return step


def clean_step_line(raw: bytes) -> str:
    """A line of a failed step as the locator reads it: cleaned from its first :data:`CARRY_BYTES`, its head."""
    return clean_line(raw[:CARRY_BYTES])[:LINE_HEAD]


def read_step_back(place: Span, previous: Span) -> list[Line]:
    """The failed step that ends just before ``place`` (see :func:`read_step`), read back from it into the block
    before (``previous``) where that joins on."""
    return read_step(lines_back(place, previous), clean_step_line)
