"""Compiler-like diagnostics of any tool: ``file.ext:line[:column]: [error:] message``, with or without a column
(or the GNU standard's ``file.ext:line.column[-column]:`` of bison, flex and other GNU tools).

Most compilers, interpreters and checkers that no parser knows by name still print the GNU shape
(erlc, luac, xmllint, codespell, shellcheck ``-f gcc``, ruby ``-c``, nim, crystal ...). Tool parsers
come first and claim the shapes they know; what reaches :class:`Diagnostics` is named for the tool
that printed it (a ``tool: `` prefix, else the step's command) and given a kind from what that tool
is (:data:`~.tools.TOOLS`, the step's command; a message that opens with a rule code, ``E003 Indent ...``, is a
checker's): a checker's finding is ``lint`` (a type checker's a
``type_error``), a test step's a ``test_failure``, an interpreter's error at run time a ``crash``,
anything else (and any syntax error) a ``build_error``. Warnings, notes and traceback frames are not
failures. Every extension is read: tools with parsers of their own come first and claim their lines.

gfortran puts the location on a line of its own and the ``Error:`` a few lines below it; that one
block is read here too.
"""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic
from gauntlet.ingest.log.tools import (
    DATA_FILE,
    INTERPRETERS,
    NOTED,
    RULE_CODE,
    RULE_NAME,
    SECRET,
    TEST_VERDICT,
    markers,
    step_kind,
)
from gauntlet.models import Kind

__all__ = ["Diagnostics", "step_tool"]

#: ``[tool: ]path:row[:column]:`` (or ``path:row:column [CODE]``: refurb); the path may be a man page
#: (``man/demo.1``, mandoc), and a function may stand between the path and its row (darglint's
#: ``shop/cart.py:total:7: DAR101: ...``).
_PLACE = re.compile(
    r"^(?:(?:/[\w.+-]+)*/?(?P<tool>[A-Za-z][\w.+-]*): )?"
    r"(?P<path>(?:[A-Za-z]:(?=\\))?[^\s:()\[\]'\"]+\.(?P<ext>[A-Za-z][\w+-]{0,9}|[1-9])):"  # D:\a\x\x\ too
    r"(?:[A-Za-z_]\w{0,100}:)?(?P<row>\d+)(?:\.(?P<dotted>\d{1,5})(?:-\d{1,7}(?:\.\d{1,5})?)?)?:"
    r"(?:(?P<column>\d+)(?:-\d{1,5})?(?::| (?=\[?[A-Z]{1,6}\d{2,5}\b)| -(?= \w)))?(?P<rest>.*)$"
)
_SEVERITY = re.compile(
    r"^\s*(?:(?P<level>fatal error|error|Error|ERROR|fatal|E|F)|"
    r"(?P<minor>(?i:warning|note|info|hint|remark|style|performance|portability)|W|C|R|I|N))\s*:\s*"
)
# Where a line names a place but reports nothing: traceback frames (``x.rb:2:in 'f'``, ``x.lua:2: in``),
# source snippets, a file listing with a count, Python's ``x.py:3: UserWarning: ...``, a tool's progress
# (automake's ``configure.ac:4: installing './ar-lib'``).
_NOT_A_FAILURE = re.compile(r"^\s*(?:in\b|\(|\d+\s*$|$|\w*Warning\b|(?:installing|copying|linking|creating) ['\"`./])")
#: A build driver's verdict that points at the output above it (Ant's ``build.xml:4: Compile failed; see the
#: compiler error output for details.``): the compiler's errors are the findings.
_SEE_ABOVE = re.compile(r"(?i)\bfail(?:ed|ure)\b[^.;]{0,60}[;,.] see\b")
#: glibc's ``prog: file.c:2: main: Assertion `x' failed.``: the abort that follows is the failure (a crash).
_ASSERT = re.compile(r"^\S+: Assertion `.*' failed\.$")
_LIBRARY = re.compile(r"^(?:/usr/|/opt/|/lib/|<)|/node_modules/|/site-packages/|/vendor/bundle/|/_temp/")
#: Not source files: a log line naming them with a number is a listing, a URL or a timestamp.
_NOT_SOURCE = frozenset({"com", "org", "net", "io", "html", "log", "txt", "o", "a", "so", "exe", "dll", "jar", "whl"})
_ASSERTION = re.compile(r"(?i)\bassert(?:ion)?")
#: Run-time errors, any interpreter's (guile's and bash's ``Unbound variable: x`` included).
_RUNTIME = re.compile(r"^runtime error: |\bUncaught\b|\b(?:Error|Exception)\b|(?i:\bunbound variable\b)")
_SYNTAX = re.compile(r"(?i)syntax error|parse error|unexpected (?:token|symbol|end|character)|expected .* before")
#: Checkers: what they report is ``lint``. Matched on the tool's name (``yamllint``, ``go-staticcheck``).
_CHECKER = re.compile(r"lint|check|spell|cppcheck|staticcheck|vet|hadolint|actionlint|tidy$|xmllint")
#: A step's first word that is a launcher, not the tool (``env X=1 tool``, ``npx tool``, ``sudo tool``).
_LAUNCHERS = frozenset({"env", "npx", "sudo", "exec", "time", "bundle", "poetry", "uv", "pipx", "command", "run"})
#: A trailing ``[SC2086]``: some checkers' codes say which checker printed the line, whatever the step ran.
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "pwsh", "powershell"})
_CODE = re.compile(r" \[([A-Z]{2}\d{4})\]$")
_CODE_TOOLS = {"SC": "shellcheck"}
_FORTRAN_ERROR = re.compile(r"^(?:Fatal )?Error: (.*)$")
#: Words that may open a diagnostic as a program's name does (``FAIL: a.go:15: ...``) but name no program.
_VERDICT_WORDS = frozenset({"FAIL", "FAILED", "FAILURE", "PASS", "ERROR", "WARNING", "WARN", "INFO", "NOTE"})


def step_tool(command: str) -> str | None:
    """The tool a step's command runs: ``luac5.4 -p x.lua`` → ``luac``, ``npx eslint .`` → ``eslint``."""
    words = command.split()
    for index, raw in enumerate(words):
        word = raw.strip("'\"")
        if "=" in word or word.startswith("-") or not word:
            continue
        name = word.rsplit("/", 1)[-1]
        if name in _LAUNCHERS or name in ("exec", "run"):
            continue
        if name in _SHELLS and "-c" in words[index + 1 : index + 3]:
            continue  # ``bash -c 'cmake ...'``: the tool is the script's first command
        # Drop a version the binary's name carries (lua5.4, python3.12, gcc-12).
        return re.sub(r"[-.]?\d+(?:\.\d+)*$", "", name).removeprefix("go-") or name
    return None


def _kind(tool: str | None, message: str, step: str, path: str = "") -> Kind:
    if SECRET.search(message):
        return "security"  # a secret in the sources, whatever checker found it
    by_step = step_kind(step)
    if by_step in ("lint", "type_error", "security"):
        return by_step
    if by_step == "test_failure" and not _SYNTAX.search(message):
        return by_step
    if markers([message]) == "type_error":
        return "type_error"  # a type checker's words behind a wrapper (``npm run check`` ran ``astro check``)
    if (tool and _CHECKER.search(tool)) or RULE_CODE.match(message) or (by_step is None and DATA_FILE.search(path)):
        return "lint"  # a checker by its name, by the rule code its message opens with, or of a data file
    if RULE_NAME.search(message):
        return "lint"  # ESLint's and its kin's rule named last: ``Extra semicolon. (@typescript-eslint/semi)``
    if TEST_VERDICT.search(message) and not _SYNTAX.search(message):
        return "test_failure"  # a test framework's verdict in the compiler's shape (CxxTest, CppUTest)
    if _SYNTAX.search(message) or (tool or "").endswith("c") or by_step in ("build_error", "dependency"):
        return "build_error"  # a syntax error, or a compiler (erlc, luac, elixirc, nimc), or a build step's
    if by_step == "test_failure" or _ASSERTION.search(message):
        return "test_failure"
    return "crash" if tool in INTERPRETERS or _RUNTIME.search(message) else "build_error"


#: A diagnostic's header whose place is on an arrow line under it (rustc, clippy, ruff's full format, biome,
#: deno, miette and codespan reports): ``error[E0308]: mismatched types`` or ``F401 [*] `os` imported``.
_HEADER = re.compile(
    r"^(?:(?P<level>error|warning)(?:\[(?P<code>[\w/-]+)\])?|(?P<rule>[A-Z]{1,4}\d{3,4})\b)(?::)? ?(?P<message>.*)$"
    # miette's (oxc, swc, biome): ``  x Expected ',', got ';'``, ``  ! eslint(no-debugger): ...`` (a warning)
    r"|^\s{0,4}(?:(?P<cross>[x×✖])|(?P<bang>[!⚠]))\s+(?P<said>\S.*)$"
    # rolldown's and rollup's ``[MISSING_EXPORT] "total" is not exported by "src/cart.js".``
    r"|^\[(?P<bracket>[A-Z][A-Z0-9_]{2,40})\]\s+(?:Error:\s*)?(?P<coded>\S.*)$"
)
_ARROW = re.compile(
    r"^\s*(?:-->|--->|╭─\[|,-\[|┌─)\s*(?P<path>[^\s:()\[\]'\"]+\.[A-Za-z][\w+-]{0,9}):(?P<row>\d+):(?P<column>\d+)"
)
#: The lines remembered to tell a line's further rows from its first (a log's findings are capped too).
_MAX_LINTED = 4096
#: Lines an arrow may stand below its header (a ``Building`` progress line may sit between).
_ARROW_GAP = 3
#: Lines a failed check's place may stand below its test's verdict (a blank line between).
_VERDICT_GAP = 2


class Diagnostics(BlockParser):
    """``path:row[:column]: [severity:] message`` from any tool, and a header with its place on an arrow line
    under it (``error[E0308]: ...`` then `` --> src/main.rs:4:13``); the open block is gfortran's location line.
    """

    def __init__(self) -> None:
        super().__init__()
        self._repeats = Repeats()
        self._linted: set[tuple[str | None, str, str]] = set()
        #: A test's verdict at its place (gocheck's ``FAIL: a_test.go:20: Suite.TestX``), held for the place of
        #: the failed check its details may open with (``a_test.go:22:`` alone on its line).
        self._verdict: Draft | None = None

    @property
    def active(self) -> bool:
        """True inside gfortran's block, or under a verdict."""
        return self._draft is not None or self._verdict is not None

    def close(self, sink: Sink) -> None:
        """Report the verdict and the block being read."""
        self._report_verdict(sink)
        super().close(sink)

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._verdict is not None and self._under_verdict(self._verdict, number, text, sink):
            return True
        if ("-->" in text or "─" in text or ",-[" in text) and (arrow := _ARROW.match(text)):
            return self._arrow(number, arrow, sink)
        pending = self._draft
        if pending is not None:
            if error := _FORTRAN_ERROR.match(text):
                pending.message, pending.end = error.group(1), number
                self.close(sink)
                return True
            if number - pending.start > 6:
                self._draft = None  # a location without an error under it: a warning's
            else:
                return True
        if ":" not in text or (match := _PLACE.match(text)) is None:
            return False
        path, extension, rest = match.group("path"), match.group("ext"), match.group("rest")
        # Every extension: a tool's own parser comes first and claims what it knows, so what reaches here is
        # what no parser read (a .py or .go line of a checker nobody wrote a parser for).
        if extension.lower() in _NOT_SOURCE or _LIBRARY.search(path):
            return False
        if not rest.strip():
            if extension.startswith("f"):  # gfortran: the message follows the snippet
                self._draft = diagnostic("gfortran", "build_error", "", number, path, match["row"], match["column"])
                return True
            return False
        severity = _SEVERITY.match(rest)
        message = rest[severity.end() :] if severity else rest.strip()
        if (
            _NOT_A_FAILURE.match(message)
            or _ASSERT.match(message)
            or _SEE_ABOVE.search(message)
            or NOTED.search(message)
        ):
            return False
        tool = match.group("tool")
        if tool in _VERDICT_WORDS:
            tool = None  # gocheck's ``FAIL: cart_test.go:15: CartSuite.TestTotal``: a verdict, not a program
        tool = re.sub(r"[-.]?\d+(?:\.\d+)*$", "", tool) if tool else step_tool(sink.step)
        if code := _CODE.search(message):
            tool = _CODE_TOOLS.get(code.group(1)[:2], tool)
        kind = _kind(tool, message, sink.step, path)
        minor = severity is not None and severity.group("minor") is not None
        if minor and severity is not None and (kind != "lint" or severity.group("minor").lower() == "note"):
            return False  # a compiler's warning, any note; a checker fails the step on any of its findings
        column = match["column"] or match["dotted"]
        # A tool's further messages on one line are that line's one fix: a checker's further rules (pymarkdown's
        # MD001 and MD022), a compiler's note printed as an error (GNAT's ``possible misspelling of "Total"``).
        if (tool, path, match["row"]) in self._linted:
            return True
        if len(self._linted) < _MAX_LINTED:
            self._linted.add((tool, path, match["row"]))
        draft = diagnostic(tool, kind, message.strip(), number, path, match["row"], column, warning=minor)
        if match.group("tool") in _VERDICT_WORDS:
            self._verdict = draft
            return True
        sink.emit(self._repeats.keyed(draft))
        return True

    def _under_verdict(self, verdict: Draft, number: int, text: str, sink: Sink) -> bool:
        """Read a line under a held verdict: its failed check's place (in its file, alone on its line) places it;
        a blank line just under it waits; any other line reports it. True when the line was the verdict's."""
        if number - verdict.start <= _VERDICT_GAP:
            if not text.strip():
                return True
            alone = _PLACE.match(text.strip()) if ":" in text else None
            if alone is not None and not alone.group("rest").strip() and alone.group("path") == verdict.path:
                verdict.line, verdict.end = int(alone.group("row")), number
                verdict.column = int(alone.group("column")) if alone.group("column") else None
                self._report_verdict(sink)
                return True
        self._report_verdict(sink)
        return False

    def _report_verdict(self, sink: Sink) -> None:
        verdict, self._verdict = self._verdict, None
        if verdict is not None:
            sink.emit(self._repeats.keyed(verdict))

    def _arrow(self, number: int, arrow: re.Match[str], sink: Sink) -> bool:
        """Report the header just above an arrow line (the header need not have been a candidate line)."""
        header = next(
            ((n, found) for n, t in reversed(sink.tail(_ARROW_GAP, number)) if (found := _HEADER.match(t))), None
        )
        path = arrow.group("path")
        if header is None or _LIBRARY.search(path):
            return False
        start, head = header
        level, rule, message = head.group("level"), head.group("code") or head.group("rule"), head.group("message")
        if head.group("said"):
            level, message = "error" if head.group("cross") else "warning", head.group("said")
        elif head.group("coded"):
            level, rule, message = "error", head.group("bracket"), head.group("coded")
        # The whole header: a rule named in it is a checker's (ast-grep's ``error[no-console-log]: ...``).
        kind = _kind(step_tool(sink.step), head.group(0), sink.step)
        if (level == "warning" or level is None) and kind != "lint":
            return True  # a compiler's warning; a bare rule code counts only where a checker ran
        row, column = arrow.group("row"), arrow.group("column")
        draft = diagnostic(None, kind, message.strip(), start, path, row, column, rule=rule)
        draft.end = number
        sink.emit(self._repeats.keyed(draft))
        return True
