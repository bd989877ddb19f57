"""The analyser: feeds lines to the tool parsers and turns their drafts into findings.

Theory of operation. The scanner hands over only the lines near prefilter hits,
in order, with their raw line numbers. Each line goes to the parsers in turn
until one claims it. Drafts come back through :meth:`Analyser.emit`:

* a primary draft becomes a finding at once, unless one with the same identity
  (test name, or fingerprint) was already reported: one root cause, one finding;
* fallback drafts wait in the current *scope*;
* a terminal draft (a failed step's exit) closes the scope: when no primary was
  reported in it, the best fallback (or the terminal line itself, with the
  step's last lines) becomes the one finding that explains the failure.

At the end of input an open scope is closed the same way, but only if one of its
fallbacks shows that something failed: hints alone (a refused connection that a
retry got past) never make a passing log fail. A GitHub job log carries its own
verdict: without an ``##[error]`` line the job passed, and nothing is reported.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from gauntlet.classify.defaults import default_severity
from gauntlet.ingest.fingerprint import make_fingerprint, normalise_message, normalise_path
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.log.c import gave_up
from gauntlet.ingest.log.ci import CiRunner
from gauntlet.ingest.log.draft import Draft, Line, Parser, Repeats
from gauntlet.ingest.log.locator import Located, Span, is_crash, locate, read_step_back
from gauntlet.ingest.log.place import (
    audited_manifest,
    checked_file,
    echoed_file,
    failed_tests,
    file_alone,
    in_library,
    locked_by,
    lone_place,
    manifest,
    named_by_command,
    place_block,
    project_place,
    report_rows,
)
from gauntlet.ingest.log.prefilter import may_start
from gauntlet.ingest.log.text import repo_path
from gauntlet.ingest.log.tools import failed_test_name, verdict_name
from gauntlet.ingest.paths import Checkout, repo_relative
from gauntlet.ingest.values import position
from gauntlet.models import Finding
from gauntlet.untrusted import Masks, redact

__all__ = ["Analyser"]

#: Lines kept for excerpts and look-backs; more than ``max_span_lines`` so a block's start is still there.
RING_LINES = 256
_MAX_FALLBACKS = 32
#: Parsing costs microseconds a line; a hostile log made only of failure-like lines stops being parsed here.
MAX_FED = 500_000
#: Diagnostics per (tool, kind) kept from one log. Past the first few, compiler and linter errors are
#: mostly cascades of the same cause, and a flood of them hides the failures of other tools.
MAX_PER_TOOL = 10
_CAPPED_KINDS = frozenset({"build_error", "lint", "type_error"})
#: Lines after a located block (to the step's exit) searched for its place when the block names none.
_AFTER_LINES = 30
#: Lines of the step above a located block searched last for a place in the project.
_STEP_LINES = 60
#: Kinds of a parser's finding that has a place in the project, if its block names one. Not a crash: a shell's
#: report of one names the script line that launched it (``run.sh: line 2: Segmentation fault``), not its place.
_PLACED_KINDS = frozenset({"test_failure", "build_error", "type_error", "lint"})
#: Kinds a checker reports: it names the file it checks, if nothing else, on a line that says so.
_CHECKER_KINDS = frozenset({"type_error", "lint"})
#: Kinds whose block reports one problem per diagnostic row (see :meth:`Analyser._report_rows`).
_ROW_KINDS = frozenset({"build_error", "lint", "type_error", "security"})


class Analyser:
    """Stateful consumer of cleaned lines; collect findings from :attr:`found`."""

    def __init__(
        self,
        parsers: Sequence[Parser],
        limits: Limits,
        masks: Masks | None = None,
        checkout: Checkout | None = None,
    ) -> None:
        """Start reading a log.

        :param parsers: the tool parsers, in the order each line is offered to them.
        :param limits: caps on findings, messages and excerpts.
        :param masks: the ``::add-mask::`` values, shared with the caller (filled as the log is read).
        :param checkout: the repository checkout (``ingest --repo-root``): a block no parser read is placed at
            a path it names there, and absolute paths under it become repository-relative.
        """
        self.parsers = list(parsers)
        self.checkout = checkout
        #: One message at several lines of a file (a report's rows) is several findings.
        self._repeats = Repeats()
        # Parsers whose ``active`` is a plain False never hold a block: no need to ask them after each line.
        stateful = [isinstance(getattr(type(p), "active", None), property) for p in self.parsers]
        #: The stateful parsers among the first ``i + 1``: those a line claimed by parser ``i`` was offered to.
        self._stateful_upto = [
            [p for p, keeps in zip(self.parsers[: i + 1], stateful[: i + 1], strict=True) if keeps]
            for i in range(len(self.parsers))
        ]
        #: The stateful parsers inside a block after the last line (only feeding opens one; closing ends it).
        self._live: list[Parser] = []
        self.limits = limits
        #: ``::add-mask::`` values seen so far (the scanner adds them; shared with the caller).
        self.masks = masks if masks is not None else Masks()
        self.ring: deque[Line] = deque(maxlen=RING_LINES)
        self.found: deque[Finding] = deque()
        self.count = 0
        #: Lines read so far; the scanner stops parsing past ``MAX_FED`` (a log made of error lines).
        self.fed = 0
        self._seen: set[str] = set()
        #: Where the test failures reported so far failed (path, line).
        self._failed_at: set[tuple[str | None, int | None]] = set()
        #: The tests placed by a step (its first line, the test's name): one told again unplaced is no other failure.
        self._tests_placed: set[tuple[int, str]] = set()
        #: The step's findings placed at a line (and named no test), and the tool that told each.
        self._told_at: dict[tuple[str, int], str | None] = {}
        self._per_tool: dict[tuple[str | None, str], int] = {}
        self._explained = False
        self._fallbacks: list[Draft] = []
        self._step = ""
        #: The step's command as written (``_step`` is lower case): the files it names keep their case.
        self._command = ""
        self._github = False
        self._runner_error = False
        #: The current step reported an error (an ``##[error]`` line since its ``##[group]Run``).
        self._step_error = False
        #: The line that started the current step (its ``##[group]Run``); 0 where the log names no steps.
        self._step_first = 0
        self._held: list[Finding] = []
        #: Inside a ``##[group]`` the runner has not closed yet (at the end of input: a cut-short log).
        self._open_group = False
        #: True while some parser is inside a block and needs the following lines (only parsing changes it).
        self.active = False
        #: Where the scanner is: its block, the offset and number of the line being fed (the locator's window).
        self.place: Span = (b"", 0, 1)
        #: The block before, its end and the number of the line after it: a window may reach back into it.
        self.previous: Span = (b"", 0, 1)
        #: Failed steps of the scanner's block already read back and located (by the read-ahead child), by the
        #: number of the line they end before: what :meth:`_locate` would find there.
        self.steps_ahead: dict[int, tuple[list[Line], Located | None]] = {}
        self._exits = 0
        #: The failed step just read printed nothing after its start (it is only its exit line).
        self._empty_step = False
        #: The first crash report of the current scope (a sanitizer's, a segfault), and whether one was reported.
        self._crash: Line | None = None
        self._crash_reported = False
        #: The lines of the failed step the locator read last (every line, cleaned, heads only).
        self._step_lines: list[Line] = []

    # -- the Sink protocol -------------------------------------------------------------------------

    @property
    def step(self) -> str:
        """The current step's command, lower case (from ``##[group]Run ...``)."""
        return self._step

    def set_step(self, command: str) -> None:
        """Remember the command of the step that starts here (tool hints for ambiguous formats).

        In a GitHub job log a step that failed says so (``##[error]``) before the next one starts: what a step
        that passed printed is no failure, even when a later step fails (a passing runner's ``✓ adds ›
        0.07ms`` a parser took for a verdict), and explains nothing of it.
        """
        if self._github and not self._step_error:
            self._held.clear()
            self._explained = False
            self._fallbacks.clear()
            self._crash, self._crash_reported = None, False
        self._step_error = False
        self._told_at.clear()
        self._step_first = self.ring[-1][0] if self.ring else 0
        self._step = command.lower()[:200]
        self._command = command[:500]

    def saw_runner(self, *, error: bool, grouped: bool | None = None) -> None:
        """Note that this is a GitHub job log and whether the runner reported an error in it.

        A GitHub job that failed always says so with an ``##[error]`` line; until one is seen,
        findings are held back, and a job log that ends without one passed: its findings are dropped
        (a traceback a passing test printed on purpose is not a failure). A log that ends inside a
        ``##[group]`` did not end: the job was cancelled or the log cut short, and no verdict came.
        """
        self._github = True
        if grouped is not None:
            self._open_group = grouped
        if error and not self._step_error:
            self._runner_error = self._step_error = True
            self.found.extend(self._held)
            self._held.clear()

    def tail(self, count: int, before: int) -> Sequence[Line]:
        """Up to ``count`` contiguous lines read just before line ``before`` (oldest first)."""
        picked: list[Line] = []
        expected = before - 1
        for number, text in reversed(self.ring):
            if number >= before:
                continue
            if number != expected or len(picked) >= count:
                break
            picked.append((number, text))
            expected -= 1
        picked.reverse()
        return picked

    def emit(self, draft: Draft) -> None:
        """Take a parser's report (see the module docstring for the roles)."""
        if draft.role == "primary":
            self._explained = True
            if draft.kind in _PLACED_KINDS and (draft.path is None or in_library(draft.path)):
                # a parser's frame in a library (riteway's ``at: assert (.../node_modules/riteway/...)``) is none
                self._place_from_block(draft)
            self._report(draft)
        elif draft.role == "fallback":
            if len(self._fallbacks) < _MAX_FALLBACKS:
                self._fallbacks.append(draft)
        else:
            # A failed step has ended: blocks still open belong to it.
            for parser in self.parsers:
                parser.close(self)
            self.active = False
            self._close_scope(draft)

    @property
    def header_end(self) -> int | None:
        """The last line an open step header may reach, when the runner alone is reading one.

        The runner claims every line of a header (the step's script, not its output), so the lines up to its
        ``##[endgroup]`` or this line need no feeding: the scanner jumps over them.
        """
        if len(self._live) == 1 and isinstance(self._live[0], CiRunner):
            return self._live[0].header_end
        return None

    # -- feeding -----------------------------------------------------------------------------------

    def feed(self, number: int, text: str, *, confirmed: bool = False, starts: bool | None = None) -> None:
        """Read one cleaned line; parsers see it only if one is inside a block or it may start one.

        :param confirmed: the prefilter already found it worth parsing (no need to check again).
        :param starts: whether it may start a block (:func:`~gauntlet.ingest.log.prefilter.may_start`), where the
            caller knows already (the scanner's read-ahead child tells it of the lines before a hit).
        """
        self.fed += 1
        line = (number, text)
        self.ring.append(line)
        if not (confirmed or self.active or (may_start(text) if starts is None else starts)):
            return
        if confirmed and self._crash is None and is_crash(text):
            self._crash = line
        claimed = len(self.parsers) - 1
        for index, parser in enumerate(self.parsers):
            if parser.feed(line, self):
                claimed = index
                break
            if index == 0 and text.startswith("##[error]"):
                # A tool's own line that a reporter annotated (node's ``--test-reporter=@reporters/github``, a
                # problem matcher): the CI runner noted the annotation, the tools' parsers read the line.
                line = (number, text[9:])
        # Only the parsers offered this line can have opened a block; of the others, only those already
        # inside one can still be (a step's end may have closed them). Asking just these keeps a line cheap.
        live = [parser for parser in self._stateful_upto[claimed] if parser.active]
        for parser in self._live:
            if parser.active and parser not in live:
                live.append(parser)
        self._live = live
        self.active = bool(live)

    def finish(self) -> None:
        """End of input: flush open blocks and close the last scope."""
        for parser in self.parsers:
            parser.close(self)
        self.active = False
        cut_short = self._open_group and not self._runner_error
        if cut_short:
            # No verdict will come: what was held is all there is to say about this job.
            self.saw_runner(error=True)
        # A GitHub job log says whether it failed: without an ##[error] line, nothing failed.
        failed_job = self._runner_error or not self._github
        if failed_job and any(d.fails for d in self._fallbacks):
            self._close_scope(None)
        elif (cut_short or not self._github) and not self._exits and not self.count:
            # A plain log with no framing and no verdict of its own: its end explains it, if it is error-shaped.
            located = self._locate(self.place[2])
            if located is not None and located.score >= STRONG_SCORE:
                draft = _located_draft(located, None)
                self._explain(draft, located, None)
                self._report(draft)
        self._held.clear()

    # -- internals ---------------------------------------------------------------------------------

    def _close_scope(self, terminal: Draft | None) -> None:
        if terminal is not None:
            self._exits += 1
        if terminal is not None and not terminal.fails:
            pass  # a step that passed: what it printed explains no failure
        elif not self._explained:
            candidates = [d for d in self._fallbacks if d.fails or terminal is not None]
            best = max(candidates, key=lambda d: d.rank, default=None)
            if best is not None and terminal is not None and terminal.rank > best.rank:
                best = terminal
            located = self._locate(terminal.end if terminal is not None else self.place[2])
            chosen = _choose(best, terminal, located)
            # A driver's line (``make: *** [Makefile:4: docs] Error 3``) that took the block is placed from it too.
            driven = chosen is not None and chosen.path is None and chosen.role == "fallback"
            if chosen is not None and located is not None and (chosen.tool is None or driven):
                self._explain(chosen, located, terminal.end if terminal is not None else None)
            # A verdict right after a step's exit (Jenkins' ``Finished: FAILURE``) repeats a failure already told.
            repeated = chosen is terminal and self._empty_step and self.count > 0
            # A crash report no parser read explains the step better than a block the locator found after it.
            crashed = self._crash is not None and chosen is not None and chosen.tool is None
            if chosen is not None and not repeated and not (crashed and chosen.kind in ("unknown", "crash")):
                generic = located is not None and (chosen.tool is None or driven)
                # Two tests or more that the runner named as failed, each placed in its details: one finding
                # each, rather than the block that told one of them (or the summary that counted them).
                tests = (
                    failed_tests(self._step_lines, self.checkout) if generic and chosen.kind == "test_failure" else []
                )
                if generic and chosen.kind in _ROW_KINDS:
                    chosen = self._repeats.keyed(chosen)  # its rows with the same message are told apart from it
                for draft in tests or [chosen]:
                    self._report(draft)
                if located is not None and generic and chosen.kind in _ROW_KINDS:
                    self._report_rows(chosen, located)
                if located is not None and driven:
                    self._report_other_targets(chosen, located)
        if self._crash is not None and not self._crash_reported and (terminal is None or terminal.fails):
            # A crash anywhere in a failed step explains it better than the summary that counted it, even
            # where a harness quoted the report in a form no parser reads (``= ==123==ERROR: AddressSanitizer``).
            number, text = self._crash
            crash = Draft(None, "crash", text.strip(" =|"), number, number, role="fallback")
            # Its frames follow it (``#0 0x4011 in main src/uaf.c:7``): the first in the project is its place.
            place_block(crash, [text, *self._lines(number + 1, number + 41)], "", (), self.checkout)
            self._report(crash)
        self._explained = False
        self._fallbacks.clear()
        self._crash, self._crash_reported = None, False
        self._step_lines = []

    def _report_other_targets(self, chosen: Draft, located: Located) -> None:
        """A driver that kept going (``make -k``) gave up on each target whose command failed, each under the
        output that says why: every such block beside the chosen one is its own failure (two grammars, two
        lexers that each failed to build).
        """
        drivers = [number for number, text in self._step_lines if gave_up(text)]
        if len(drivers) < 2:
            return
        after = self._step_first
        for driver in drivers:
            part = [(number, text) for number, text in self._step_lines if after < number < driver]
            after = driver
            found = locate(part) if part else None
            if found is None:
                continue
            draft = _located_draft(found, chosen)
            draft.tool = chosen.tool
            self._explain(draft, found, driver)
            # The driver said the target failed: a block in its own words counts, else one at a project's line.
            placed = self._project_path(draft.path) is not None and (found.score >= STRONG_SCORE or draft.line)
            if placed and (draft.path, draft.line) != (chosen.path, chosen.line):  # the chosen's own is told
                self._report(draft)

    def _explain(self, chosen: Draft, located: Located, end: int | None) -> None:
        """No parser knew the tool: the block still says where it failed, what failed and, in a test, which.

        :param end: the line of the step's exit (the lines after the block are the step's up to it).
        """
        block = [chosen.message, *self._block(located)]
        place_block(chosen, block, self._step, self._above(located.start), self.checkout, self._command)
        if chosen.kind == "test_failure" and chosen.test_id is None:
            # The block's first verdict line names the test (``--- FAIL: TestAdd``, ``not ok 3 adds``), else a
            # test method the runner named (``testTotalOfPrices`` when it started it).
            inside = self._lines(located.start, located.end + 1)
            chosen.test_id = failed_test_name(inside, self._above(located.start, 3))
        if chosen.kind == "test_failure" and chosen.test_id is None:
            # The one test the step's runner said failed a little further up (crowbar's ``total adds up prices:
            # FAIL`` over the input it shrank to and its ``the test failed:``).
            named = {verdict_name(text) for text in self._above(located.start, _AFTER_LINES)} - {None}
            chosen.test_id = named.pop() if len(named) == 1 else None
        if chosen.path is None:
            # A runner prints the stack under the message, past a blank line (mocha, node): same step.
            stop = located.end + _AFTER_LINES + 1 if end is None else min(end, located.end + _AFTER_LINES + 1)
            after = [t for t in self._lines(located.end + 1, stop) if not t.startswith("##[")]
            place_block(chosen, after, self._step, checkout=self.checkout)
        if chosen.path is None and chosen.kind in ("test_failure", "lint"):
            # A test runner's summary stands under the failure it counts, a checker's under the files it found
            # wrong (dprint's ``Found 1 not formatted file.`` under ``from /w/src/label.ts:``): the place is above.
            above = [t for t in reversed(self._lines(located.start - _AFTER_LINES, located.start)) if t[:3] != "##["]
            place_block(chosen, above, self._step, checkout=self.checkout)
        # A test's failure placed at a file alone (a report it wrote, ``suite/toc.html``) has a line above, in
        # the test's file; another file alone has its line above where the step named it (redocly's ``[1]
        # api/openapi.yaml:27:17`` over the summary that names the file alone).
        placed = self._project_path(chosen.path) is not None
        if not placed or chosen.line is None:
            # The step's output above names the project's place the block does not (a template compiler's
            # ``Error: views/cart.pug:7:24`` above the error object it dumps): the nearest one.
            above = [t for n, t in reversed(self._step_lines) if n < located.start and t[:3] != "##["]
            file = chosen.path if placed and chosen.kind != "test_failure" else None
            found = project_place([*block, *above[:_STEP_LINES]], self.checkout, self._command, file=file)
            if found is not None:
                chosen.path, chosen.line, chosen.column = found
                # The lines that placed it say what failed too (JUnit's ``expected: <3> but was: <2>`` above
                # the summary the block is).
                place_block(chosen, [*block, *reversed(above[:_STEP_LINES])], self._step)

    def _place_from_block(self, draft: Draft) -> None:
        """A parser's finding without a place takes the first project place its own lines name (see
        :func:`~.place.project_place`): its block, and the indented lines under it (a quoted stack)."""
        lines: list[str] = []
        above = ""
        for number, text in self.ring:
            if number <= self._step_first:
                continue
            if number > draft.end and text[:1].strip():
                break  # the block's indented tail ends at the next line at column 0
            if number >= draft.start:
                lines.append(text)
            elif text.strip():
                above = text
        # A runner may print the place on a line of its own just above the verdict (hspec's ``test/a.hs:9:25:``).
        if lone_place(above) is not None:
            lines.append(above)
        # Else the project's file it names alone (vite's ``file: /home/runner/work/x/x/src/main.js``).
        found = project_place(lines[:_AFTER_LINES], self.checkout, self._command) or file_alone(
            lines[:_AFTER_LINES], self.checkout, self._command
        )
        if found is None and draft.kind == "test_failure":
            # A runner's summary stands under the output of the test it counts (ctest's ``1 - cart_total
            # (Subprocess aborted)`` under the program's ``tests/a.c:9: main: Assertion ... failed``): nearest
            # first, unless a failure was reported there already (a TAP runner's ``not ok`` for a test under its
            # failed assertion's own).
            step = [t for n, t in reversed(self.ring) if self._step_first < n < draft.start and t[:3] != "##["]
            found = project_place(step[:_AFTER_LINES], self.checkout, self._command)
            if found is not None and (self._project_path(found[0]), found[1]) in self._failed_at:
                found = None
        elif found is None and draft.kind in _CHECKER_KINDS:
            # A checker names the file it checks before its verdict (``Validating config/shop.yaml``).
            step = [t for n, t in reversed(self.ring) if self._step_first < n < draft.start]
            found = checked_file(step[:_AFTER_LINES], self.checkout, self._command)
        if found is None and draft.kind in ("build_error", *_CHECKER_KINDS):
            # Else the one file the command a script ran reads (npm's ``> openapi-typescript api/openapi.yaml -o
            # src/api.d.ts`` under ``npm run generate``).
            step = [t for n, t in reversed(self.ring) if self._step_first < n < draft.start]
            found = echoed_file(step[:_AFTER_LINES])
        if found is not None:
            draft.path, draft.line, draft.column = found

    def _block(self, located: Located) -> list[str]:
        """The located block's lines, its best line first."""
        inside = self._numbered(located.start, located.end + 1)
        return [text for number, text in inside if number == located.line] + [text for _, text in inside]

    def _numbered(self, start: int, stop: int) -> list[Line]:
        """Lines ``start`` to ``stop - 1`` of the step just located (every line, not only those parsed), else
        of the ring; never a line of an earlier step (its output says nothing of this step's failure)."""
        start = max(start, self._step_first + 1)
        step = self._step_lines
        if step and step[0][0] <= start and stop - 1 <= step[-1][0]:
            return [(number, text) for number, text in step if start <= number < stop]
        return [(number, text) for number, text in self.ring if start <= number < stop]

    def _lines(self, start: int, stop: int) -> list[str]:
        """The texts of :meth:`_numbered`."""
        return [text for _, text in self._numbered(start, stop)]

    def _report_rows(self, chosen: Draft, located: Located) -> None:
        """A linter's, a scanner's or a compiler's block holds a problem per row: each row in the project its own
        finding, after the chosen one (see :func:`~.place.report_rows`)."""
        above = self._numbered(located.start - 20, located.start)
        # The block's copies further down the step are folded into it (jflex's ``Error in file "a.flex" (line 16):``
        # per lexer): their rows are the report's too.
        last = self._step_lines[-1][0] if self._step_lines else located.end
        inside = self._numbered(located.start, max(located.end, last) + 1)
        for row in report_rows(chosen, above, inside, self._command):
            if self._project_path(row.path) is not None:
                self._report(self._repeats.keyed(row))

    def _above(self, start: int, count: int = 20) -> list[str]:
        """Up to ``count`` lines just above line ``start``, oldest first."""
        return self._lines(start - count, start)

    def _locate(self, before: int) -> Located | None:
        """The locator's block for the step that ends just before line ``before`` (see :mod:`.locator`)."""
        self._empty_step = False
        if self.place[2] != before:
            return None  # the scanner is elsewhere (a parser's report about an earlier line)
        ahead = self.steps_ahead.get(before)
        step = read_step_back(self.place, self.previous) if ahead is None else ahead[0]
        self.fed += len(step)  # bounded like parsing: a hostile log of failed steps stops being read at MAX_FED
        self._empty_step = not any(text.strip() for _, text in step[1:])
        self._step_lines = step
        return locate(step) if ahead is None else ahead[1]

    def _report(self, draft: Draft) -> None:
        if self.count >= self.limits.max_findings:
            return
        group = (draft.tool, draft.kind)
        if draft.kind in _CAPPED_KINDS and self._per_tool.get(group, 0) >= MAX_PER_TOOL:
            return  # checked first: redacting and hashing a flood costs more than reading it
        limits = self.limits
        message = redact(" ".join(draft.message.split()), self.masks)[: limits.max_message_chars]
        if draft.path is not None:
            draft.path = named_by_command(draft.path, self._command)
        if draft.kind == "dependency":
            self._place_at_manifest(draft)
        elif draft.kind in ("security", "lint") and self._project_path(draft.path) is None:
            # An audit's vulnerable package, or one under a refused licence, is fixed where it is required
            # (``safety check -r requirements.txt``, ``license-checker --failOn MIT``: package.json).
            lines = [draft.message, *self._lines(draft.start, draft.end + 1), *(text for _, text in self._step_lines)]
            draft.path = audited_manifest(lines, self._step, self.checkout) or draft.path
        path = self._project_path(draft.path)
        if path is None:
            draft.line = draft.column = None  # a line of a file outside the repository (a library's) says nothing
        test_id = draft.test_id[:500] if draft.test_id else None
        if draft.key or (draft.kind == "test_failure" and test_id):
            # A test (or a keyed block) is the same defect whatever its assertion printed this time.
            identity = make_fingerprint(draft.tool, draft.kind, draft.key or test_id)
        else:
            # A failed check no test names is told apart by what it says, as any other finding (doctest's two
            # ``tests/a.cpp:12: ERROR: CHECK( ... ) is NOT correct!`` in one file).
            where = normalise_path(path)
            identity = make_fingerprint(draft.tool, draft.kind, where, draft.rule, normalise_message(message))
        at = (path, draft.line) if path and draft.line and not test_id else None
        # another tool at a line this step already has: one problem told twice (esbuild's and tsc's); a test
        # another tool already placed in this step, told again without a place (prove's and TAP's reading of one
        # ``not ok``)
        twice = at is not None and at in self._told_at and self._told_at[at] != draft.tool
        test = (self._step_first, test_id.rpartition("::")[2]) if test_id and draft.kind == "test_failure" else None
        twice = twice or (test is not None and path is None and test in self._tests_placed)
        if identity in self._seen or twice:
            return
        if test is not None and path is not None:
            self._tests_placed.add(test)
        self._seen.add(identity)
        if at is not None:
            self._told_at[at] = draft.tool
        if draft.kind == "test_failure":
            self._failed_at.add((path, draft.line))
        self._crash_reported = self._crash_reported or draft.kind == "crash"
        if draft.kind in _CAPPED_KINDS:
            self._per_tool[group] = self._per_tool.get(group, 0) + 1
        start, end = sorted((max(1, draft.start), max(1, draft.end)))
        if end - start + 1 > limits.max_span_lines:
            start = end - limits.max_span_lines + 1
        self.count += 1
        sink = self._held if self._github and not self._step_error else self.found
        sink.append(
            Finding(
                fingerprint=identity,
                source="log",
                tool=draft.tool,
                kind=draft.kind,
                severity=default_severity(draft.kind, warning=draft.warning),
                path=path,
                line=position(draft.line),
                column=position(draft.column),
                test_id=test_id,
                rule=draft.rule[:100] if draft.rule else None,
                message=message or f"{draft.kind.replace('_', ' ')} ({draft.tool or 'log'})",
                excerpt=self._excerpt(start, end),
                log_lines=(start, end),
            )
        )

    def _place_at_manifest(self, draft: Draft) -> None:
        """A dependency failure is fixed in a manifest: the one its lines or the step name (``loosen the version
        constraints in pyproject.toml``), else the step's manager's (``npm ci``: package.json), rather than no
        place or the manager's own script a traceback ends in (pipenv's ``File ".../bin/pipenv", line 8``); a
        lock file out of date is fixed in its manifest."""
        if self._project_path(draft.path) is None:
            lines = [draft.message, *self._lines(draft.start, draft.end + 1)]
            draft.path, draft.line, draft.column = manifest(lines, self._step, self.checkout), None, None
        elif draft.path is not None and (source := locked_by(draft.path)) is not None:
            draft.path, draft.line, draft.column = source, None, None

    def _project_path(self, path: str | None) -> str | None:
        """``path`` relative to the repository, or None for a file outside it (a library's)."""
        relative = repo_relative(repo_path(path))
        if relative is None and self.checkout is not None:
            relative = self.checkout.relative(path)  # under the checkout's own root, wherever that is
        return None if relative is None or in_library(relative) else relative

    def _excerpt(self, start: int, end: int) -> str:
        limits = self.limits
        lines = [text for number, text in self.ring if start <= number <= end]
        if len(lines) > limits.max_excerpt_lines:
            # Keep the head (what failed) and the end (where it was raised).
            half = limits.max_excerpt_lines // 2
            lines = [*lines[:half], "…", *lines[-(limits.max_excerpt_lines - half - 1) :]]
        text = "\n".join(line[:300] for line in lines)
        return redact(text, self.masks)[: limits.max_excerpt_chars]


#: A plain log's end explains a failure only with failure words (``error``, ``FAILED``), not just odd ones.
STRONG_SCORE = 4.0
#: Fallbacks of this rank name a cause by themselves (a timeout, a refused connection): they beat any block.
_CAUSE_RANK = 3


def _located_draft(located: Located, hint: Draft | None) -> Draft:
    """The locator's finding: its block and kind, else the hint's kind; it never names a path."""
    kind = located.kind if located.kind != "unknown" or hint is None else hint.kind
    return Draft(None, kind, located.message, located.start, located.end, role="fallback")


def _choose(best: Draft | None, terminal: Draft | None, located: Located | None) -> Draft | None:
    """What explains a failed step no parser explained: a fallback, the locator's block or the exit line.

    A fallback that names a cause wins; a fallback inside the located block gives it its tool and kind;
    otherwise an error-shaped block beats a driver line (``make: *** Error 1``) and the bare exit.
    """
    if located is None or (best is not None and best is not terminal and best.rank >= _CAUSE_RANK):
        return best or terminal
    if best is not None and best is not terminal and located.start <= best.start <= located.end:
        if located.score and located.line < best.start:
            best.message = located.message  # the cause above the driver's line says more than the driver
        best.start, best.end = located.start, max(located.end, best.end)
        return best
    if best is not None and best is not terminal and not located.score:
        return best
    return _located_draft(located, best or terminal)
