"""CI runners' own lines: step boundaries, failed-step exits, time limits, lost runners.

GitHub Actions (``##[group]``, ``##[error]Process completed with exit code N.``),
GitLab (``ERROR: Job failed: exit code 1``), Jenkins, CircleCI, Travis, Azure
Pipelines and Buildkite. A failed step's exit line is *terminal*: it explains
the failure only when nothing else in its scope did (see the analyser).
"""

from __future__ import annotations

import re

from gauntlet.ingest.log.blocks import HEADER_LINES
from gauntlet.ingest.log.draft import Draft, Line, Sink
from gauntlet.ingest.log.tools import checker_kind
from gauntlet.models import Kind

__all__ = ["HEADER_LINES", "CiRunner", "exit_kind"]

# The step's exit line, per CI; group "code" is the exit status.
_EXIT = re.compile(
    r"""(?x)
    ^(?:\#\#\[error\])?(?:Error:\ )?Process\ completed\ with\ exit\ code\ (?P<code>\d+)
  | ^(?:\#\#\[error\])?(?:Bash|PowerShell|Cmd|Script)\ (?:exited\ with\ code|failed\ with\ exit\ code:?)
    \ '?(?P<code2>-?\d+)
  | ^ERROR:\ Job\ failed:\ (?:.*?\ )?exit\ (?:code|status)\ (?P<code3>\d+)
  | ^ERROR:\ script\ returned\ exit\ code\ (?P<code4>\d+)
  | ^Exited\ with\ code\ (?:exit\ status\ )?(?P<code5>\d+)
  | ^(?:The\ command\ ")?.*"\ exited\ with\ (?P<code6>\d+)\.$  # the command may span lines
  | ^\W*Error:\ The\ command\ exited\ with\ status\ (?P<code7>-?\d+)
  | ^(?:\#\#\[error\])?(?:Error:\ )?The\ process\ '.*'\ failed\ with\ exit\ code\ (?P<code8>\d+)
    """
)
_TIME_LIMIT = re.compile(
    r"has exceeded the maximum execution time of|execution took longer than|"
    r"Build timed out \(after|The job exceeded the maximum time limit"
)
_RUNNER_LOST = re.compile(
    r"The runner has received a shutdown signal|lost communication with the server|"
    r"Job failed \(system failure\)|The hosted runner .* lost communication|runner .* was lost|"
    r"No space left on device|The self-hosted runner .* lost"
)
_FINISHED_FAILURE = re.compile(r"^Finished: FAILURE$|^BUILD FAILED$|^Build failed\.?$")
_CANCELLED = re.compile(
    r"^(?:##\[error\])?The operation was canceled\.|^ERROR: Job failed: canceled|^Finished: ABORTED"
)
#: A group titled with a file alone (``##[group]dup.yml``), and an annotation's row in it (``2:1 [key-duplicates]
#: ...``): a checker's GitHub format groups its annotations by file, and the runner drops their file and line.
_FILE_GROUP = re.compile(r"^##\[group\](?P<path>[\w.+-][\w./+-]{0,300}\.[A-Za-z][A-Za-z0-9]{0,9})$")
_ANNOTATION_ROW = re.compile(r"^(?P<line>\d{1,7})(?::(?P<column>\d{1,5}))?\s")
_WORKFLOW_ERROR = re.compile(r"^::error(?: (?P<props>[^:]*))?::(?P<message>.*)$")
_PROPERTY = re.compile(r"(\w+)=([^,]*)")

#: Exit statuses that say what happened by themselves (128 + signal; 124 is timeout(1)).
_EXIT_MEANING: dict[int, tuple[Kind, str]] = {
    124: ("timeout", "timed out (exit 124)"),
    134: ("crash", "aborted (SIGABRT, exit 134)"),
    137: ("crash", "killed (SIGKILL, often out of memory, exit 137)"),
    139: ("crash", "segmentation fault (SIGSEGV, exit 139)"),
    136: ("crash", "floating point exception (SIGFPE, exit 136)"),
    135: ("crash", "bus error (SIGBUS, exit 135)"),
}
_STEP_TAIL = 24


def exit_kind(code: int) -> tuple[Kind, str]:
    """The kind and wording for a failed step's exit status."""
    return _EXIT_MEANING.get(code, ("unknown", f"the step failed with exit code {code}"))


class CiRunner:
    """Reads the runner's lines; claims only markers no tool prints, and a step's header."""

    def __init__(self) -> None:
        self._header = False
        self._start = 0  # line number of the header's ##[group]Run line
        #: A GitHub log: its steps end at ``##[error]Process completed``, and a tool's ``BUILD FAILED`` ends none.
        self._github = False
        #: The file a group is titled with, until its ``##[endgroup]`` (see :data:`_FILE_GROUP`).
        self._file_group: str | None = None

    @property
    def active(self) -> bool:
        """True inside a step's header (``##[group]Run ...`` up to ``##[endgroup]``)."""
        return self._header

    @property
    def header_end(self) -> int | None:
        """Inside a step's header, the last line number it may reach (an ``##[endgroup]`` ends it sooner)."""
        return self._start + HEADER_LINES if self._header else None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._header:
            # The step's script, shell and env as GitHub echoes them: the command, not its output. Counted by
            # line number, not lines seen: the scanner skips a header's lines without feeding them.
            self._header = not text.startswith("##[endgroup]") and number - self._start <= HEADER_LINES
            if not self._header:
                sink.saw_runner(error=False, grouped=False)
            return True
        if text.startswith("##["):
            self._github = True
            grouped = True if text.startswith("##[group]") else False if text.startswith("##[endgroup]") else None
            sink.saw_runner(error=text.startswith("##[error]"), grouped=grouped)
            if grouped is not None:
                titled = _FILE_GROUP.match(text) if grouped else None
                self._file_group = titled.group("path") if titled else None
            if text.startswith("##[group]"):
                title = text[len("##[group]") :]
                if title.startswith("Run "):
                    sink.set_step(title[4:])
                    self._header, self._start = True, number
                return True
            if text.startswith(("##[endgroup]", "##[warning]", "##[notice]", "##[debug]", "##[command]")):
                return True
        if "xit" in text and (match := _EXIT.match(text)):
            code = int(next(group for group in match.groups() if group is not None))
            kind, message = exit_kind(code)
            tail = sink.tail(_STEP_TAIL, number)
            start = tail[0][0] if tail else number
            rank = 2 if kind != "unknown" else -1
            # Travis prints the exit of every command, 0 too: a passing step ends its scope, explaining nothing.
            sink.emit(Draft(None, kind, message, start, number, role="terminal", rank=rank, fails=code != 0))
            return True
        if ("xecution" in text or "imed out" in text or "time limit" in text) and _TIME_LIMIT.search(text):
            sink.emit(Draft(None, "timeout", _strip_marker(text), number, number))
            return True
        if ("lost" in text or "signal" in text or "ailure" in text or "space" in text) and _RUNNER_LOST.search(text):
            sink.emit(Draft(None, "infra", _strip_marker(text), number, number))
            return True
        if self._github is False and _FINISHED_FAILURE.match(text):  # Jenkins, Ant: the verdict without a status
            tail = sink.tail(_STEP_TAIL, number)
            start = tail[0][0] if tail else number
            sink.emit(Draft(None, "unknown", "the build failed", start, number, role="terminal", rank=-1))
            return True
        if _CANCELLED.match(text):
            sink.emit(Draft(None, "infra", "the job was cancelled", number, number, role="terminal", rank=-2))
            return True
        if text.startswith("##[error]"):
            draft = Draft(None, "unknown", _strip_marker(text), number, number, role="fallback", rank=1)
            if self._file_group is not None and (row := _ANNOTATION_ROW.match(draft.message)):
                draft.path, draft.line, draft.column = self._file_group, int(row["line"]), _int(row["column"])
                draft.kind = checker_kind(sink.step) or "unknown"
            sink.emit(draft)
            return False
        if text.startswith("::error") and (match := _WORKFLOW_ERROR.match(text)):
            props = dict(_PROPERTY.findall(match.group("props") or ""))
            sink.emit(
                Draft(
                    "workflow-command",
                    "unknown",
                    match.group("message"),
                    number,
                    number,
                    path=props.get("file"),
                    line=_int(props.get("line")),
                    column=_int(props.get("col")),
                )
            )
            return True
        return False

    def close(self, sink: Sink) -> None:
        """A step's end also ends its header."""
        self._header = False


def _strip_marker(text: str) -> str:
    return text.removeprefix("##[error]").strip()


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None
