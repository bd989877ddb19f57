"""Python outside test runners: tracebacks, mypy/pyright, ruff/flake8/pylint, and pip."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser, LineParser
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic
from gauntlet.ingest.log.text import repo_path
from gauntlet.ingest.log.tools import SECRET, markers, step_kind
from gauntlet.ingest.paths import repo_relative
from gauntlet.models import Kind

__all__ = ["Pip", "PythonLint", "Traceback", "TypeCheck"]

_TRACEBACK = re.compile(r"^(\s*)Traceback \(most recent call last\):")
_FRAME = re.compile(r'^\s*File "(.+?)", line (\d+)')
_RAISED = re.compile(r"^([A-Za-z_][\w.]*)(?:: (.*))?$")
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")
_STANDALONE = re.compile(r"^(SyntaxError|IndentationError|TabError|ModuleNotFoundError|ImportError): (.*)$")
_LIBRARY = re.compile(r"site-packages|dist-packages|/lib/python\d|<frozen|^<|/usr/lib/")
_BUILD = {"SyntaxError", "IndentationError", "TabError", "ImportError", "ModuleNotFoundError"}
_RESOLVER = re.compile(
    r"^(?:DistributionNotFound|ResolutionImpossible|ResolutionError|SolverProblemError|VersionConflict)$"
)
_INFRA = re.compile(r"Connection(?:Refused|Reset|Aborted)?Error|gaierror|MaxRetryError|ReadTimeout|ConnectTimeout")
#: A checker's verdict raised from its own code (pykwalify's ``SchemaError``, jsonschema's ``ValidationError``).
_REJECTED = re.compile(r"^(?:Schema|Validation|Lint)Error$")
#: An installed tool's entry script (``/venv/bin/pykwalify``): its frame is the tool's, not the project's.
_SCRIPT = re.compile(r"(?:^|/)bin/[\w.-]+$")
_VENV = re.compile(r"(?:^|/)(?:\.?venv|\.tox|\.nox)/")


def exception_kind(name: str) -> Kind:
    """What an uncaught Python exception says about the failure."""
    short = name.rsplit(".", 1)[-1]
    if short in _BUILD:
        return "build_error"
    if _INFRA.search(name):
        return "infra"
    if _RESOLVER.search(short):
        return "dependency"  # a resolver that gave up (pip-compile's ``DistributionNotFound``)
    return "crash"


class Traceback:
    """``Traceback (most recent call last):`` … ``SomeError: message``, chained ones as one."""

    def __init__(self) -> None:
        self._start: int | None = None
        self._indent = ""
        self._frames: list[tuple[str, int]] = []
        # An exception just read, held for a few lines in case another is chained to it.
        self._pending: Draft | None = None

    @property
    def active(self) -> bool:
        """True inside a traceback or just after one."""
        return self._start is not None or self._pending is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        pending = self._pending
        if pending is not None:
            if text.strip().startswith(_CHAINED):
                # "During handling ... another exception occurred": one root cause, one finding.
                self._pending, self._start, self._frames = None, pending.start, []
                return True
            if not text.strip() and number - pending.end <= 2:
                return True
            self._pending = None
            sink.emit(pending)
        if "Traceback" in text and (match := _TRACEBACK.match(text)):
            if self._start is None:
                self._start = number
            self._indent = match.group(1)
            self._frames = []
            return True
        if self._start is None:
            if text.startswith(("SyntaxError", "IndentationError", "TabError", "ModuleNotFoundError", "ImportError")):
                return self._standalone(number, text, sink)
            return False
        body = text[len(self._indent) :] if text.startswith(self._indent) else text
        if match := _FRAME.match(text):
            self._frames.append((match.group(1), int(match.group(2))))
            return True
        if not body or body.startswith((" ", "\t", "^", "~")) or body.startswith(_CHAINED):
            return True
        match = _RAISED.match(body)
        start, self._start = self._start, None
        if match is None or ("." not in match.group(1) and not match.group(1)[:1].isupper()):
            return False  # not an exception line: the traceback was cut off
        name = match.group(1)
        path, lineno = _repo_frame(self._frames)
        kind = exception_kind(name)
        if (
            kind == "crash"
            and _REJECTED.match(name.rsplit(".", 1)[-1])
            and all(_tools_frame(f) for f, _ in self._frames)
        ):
            kind = "lint"  # a validator that rejected its input: no frame of the project's, its verdict an exception
        if kind == "crash" and (step_kind(sink.step) == "test_failure" or name.endswith("AssertionError")):
            # an exception a test runner printed (``python -m unittest``) failed a test, and so did a failed
            # assertion whatever ran it (cocotb's tests under ``make``)
            kind = "test_failure"
        self._pending = Draft("python", kind, body, start, number, path=path, line=lineno)
        return True

    def _standalone(self, number: int, text: str, sink: Sink) -> bool:
        """A SyntaxError printed without a traceback (``python x.py``): its frame is just above."""
        match = _STANDALONE.match(text)
        if match is None:
            return False
        frames: list[tuple[str, int]] = []
        start = number
        for earlier, previous in sink.tail(6, number):
            if frame := _FRAME.match(previous):
                frames.append((frame.group(1), int(frame.group(2))))
                start = min(start, earlier)
        if not frames:
            # Python names the file above its SyntaxError: without it this is node's (under its ``file.js:2``
            # line: the node parser's) or another parser's (babel: ``SyntaxError: src/a.js: Unexpected token
            # (2:41)``), which the generic path places.
            return False
        path, lineno = _repo_frame(frames)
        sink.emit(Draft("python", exception_kind(match.group(1)), text, start, number, path=path, line=lineno))
        return True

    def close(self, sink: Sink) -> None:
        """Report the last exception; a traceback cut off by the end of input names nothing."""
        self._start = None
        pending, self._pending = self._pending, None
        if pending is not None:
            sink.emit(pending)


def _tools_frame(path: str) -> bool:
    """A frame of the standard library, an installed package, or an installed tool's entry script (a ``bin/``
    script outside the checkout or in a virtual environment)."""
    if _LIBRARY.search(path):
        return True
    return _SCRIPT.search(path) is not None and (
        repo_relative(repo_path(path)) is None or _VENV.search(path) is not None
    )


def _repo_frame(frames: list[tuple[str, int]]) -> tuple[str | None, int | None]:
    """The innermost frame in the project's own code (not the standard library, site-packages or a tool's script)."""
    for path, line in reversed(frames):
        if not _tools_frame(path):
            return path, line
    return (frames[-1][0], frames[-1][1]) if frames else (None, None)


# -- type checkers -------------------------------------------------------------------------------

_MYPY = re.compile(r"^(\S+?\.pyi?):(\d+):(?:(\d+):)?(?:\d+:\d+:)? error: (.*?)(?:  \[([\w-]+)\])?$")
_PYRIGHT = re.compile(r"^\s*(\S+?\.pyi?):(\d+):(\d+) - error: (.*?)(?: \((report\w+)\))?$")
#: Each pattern's groups: path, row, column (mypy only with ``--show-column-numbers``), message, error code.
_TYPE_CHECKERS = (("mypy", _MYPY), ("pyright", _PYRIGHT))


class TypeCheck(LineParser):
    """mypy (``x.py:3: error: ... [code]``) and pyright (``x.py:3:5 - error: ...``)."""

    def __init__(self) -> None:
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "error" not in text:
            return False
        for tool, pattern in _TYPE_CHECKERS:
            if match := pattern.match(text):
                path, row, column, message, code = match.groups()
                sink.emit(
                    self._repeats.keyed(diagnostic(tool, "type_error", message, number, path, row, column, rule=code))
                )
                return True
        return False


# -- linters -------------------------------------------------------------------------------------

_PYLINT = re.compile(r"^(\S+?\.py):(\d+):(\d+): ([CRWEFI]\d{4}): (.*?)(?: \(([\w-]+)\))?$")
_FLAKE8 = re.compile(r"^(?:##\[(?:error|warning)\])?(\S+?\.pyi?):(\d+):(\d+): ([A-Z]{1,4}\d{1,4}) (?:\[\*\] )?(.*)$")
# ruff ≥ 0.12 prints the code first and the location on the next line: ``F401 [*] msg`` / `` --> x.py:1:8``.
_RUFF_HEAD = re.compile(r"^([A-Z]{1,4}\d{1,4}) (?:\[\*\] )?(\S.*)$")
_RUFF_ARROW = re.compile(r"^\s*--> (\S+?\.pyi?):(\d+):(\d+)$")
_RUFF_FOUND = re.compile(r"^Found (\d+) errors?\b")


class PythonLint(LineParser):
    """ruff, flake8 (and pycodestyle, pyflakes) and pylint message lines."""

    def __init__(self) -> None:
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if ".py" in text:
            if match := _PYLINT.match(text):
                path, row, column, code, message, symbol = match.groups()
                minor = code[0] in "CRI"
                found = diagnostic(
                    "pylint", "lint", message, number, path, row, int(column) + 1, rule=symbol or code, warning=minor
                )
                sink.emit(self._repeats.keyed(found))
                return True
            if match := _FLAKE8.match(text):
                path, row, column, code, message = match.groups()
                # a security plugin's finding (dlint's ``DUO104 use of "eval" is insecure``) is a security one
                # and a dependency checker's (deptry's ``DEP003 'yaml' imported but it is a transitive dependency``)
                # a dependency one
                kind: Kind = "security" if SECRET.search(message) else "lint"
                if kind == "lint" and markers([message]) == "dependency":
                    kind = "dependency"
                found = diagnostic(self._tool(path, sink, number), kind, message, number, path, row, column, rule=code)
                sink.emit(self._repeats.keyed(found))
                return True
            if match := _RUFF_ARROW.match(text):
                head = sink.tail(1, number)
                if head and (code := _RUFF_HEAD.match(head[0][1])):
                    sink.emit(
                        self._repeats.keyed(
                            Draft(
                                "ruff",
                                "lint",
                                code.group(2),
                                head[0][0],
                                number,
                                path=match.group(1),
                                line=int(match.group(2)),
                                column=int(match.group(3)),
                                rule=code.group(1),
                            )
                        )
                    )
                    return True
            return False
        if text.startswith("Found ") and _RUFF_FOUND.match(text):
            sink.emit(Draft("ruff", "lint", text, number, number, role="fallback", rank=2))
            return True
        return False

    @staticmethod
    def _tool(path: str, sink: Sink, number: int) -> str:
        # pre-commit names the hook just above its output; a CI step names the command.
        hints = [text for _, text in sink.tail(8, number) if text.startswith("- hook id: ")]
        for hint in (*hints, sink.step):
            for tool in ("flake8", "ruff", "pycodestyle", "pyflakes"):
                if tool in hint:
                    return tool
        return "flake8" if path.startswith("./") else "ruff"


# -- pip -----------------------------------------------------------------------------------------

_PIP = re.compile(
    r"""(?x)^ERROR:\ (?:
        (?P<version>Could\ not\ find\ a\ version\ that\ satisfies\ the\ requirement\ (?P<req>\S+).*)
      | (?P<resolve>ResolutionImpossible.*|Cannot\ install\ .*conflicting\ dependencies.*)
      | (?P<wheel>Failed\ building\ wheel\ for\ (?P<pkg>\S+).*|Could\ not\ build\ wheels\ for\ .*)
      | (?P<file>Could\ not\ open\ requirements\ file.*|Invalid\ requirement.*)
      | (?P<other>No\ matching\ distribution\ found\ for\ .*|Failed\ to\ build\ .*|.*)
    )$"""
)
# What a failed build says inside pip's box: an exception, or a compiler's error line.
_BUILD_ERROR_LINE = re.compile(r"^[\w.]*(?:Error|Exception)\b: |^\S+:\d+:(?:\d+:)? (?:fatal )?error: ")
#: A compiler's error in the box (a C extension that does not compile): the failure is that line, not pip's.
_BOX_COMPILE_ERROR = re.compile(r"^(\S+?\.\w{1,4}):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$")
#: The compiler the box's build ran (``gcc -c src/x.c``, ``x86_64-linux-gnu-gcc``, ``clang++``).
_BOX_COMPILER = re.compile(r"^(?:\S*/)?(?:[\w.]+-)*(gcc|g\+\+|clang\+\+|clang|cc|c\+\+|nvcc)(?:-\d+)? ")
#: pip's summary of a build it showed in a box: the box said it already.
_PIP_WHEEL_SUMMARY = re.compile(
    r"^(?:ERROR: )?(?:Failed building wheel for|Could not build wheels for|Failed to build) "
)
_PIP_SUBPROCESS = re.compile(
    r"^(?:error|×.*): subprocess-exited-with-error|^× (?:Failed to build|.*did not run successfully)"
)


class Pip(BlockParser):
    """pip's ``ERROR:`` lines (unresolvable requirements, conflicts) and a package build's output box.

    The open block is the box where pip shows a failed build's output. A compiler's error in it (a C
    extension that does not compile) is the finding, at the compiler's place; pip's own summaries of that
    build (``Failed building wheel``, ``Could not build wheels``) then only repeat it.
    """

    def __init__(self) -> None:
        super().__init__()
        #: A build's box was read in this log: pip's wheel summaries after it repeat it.
        self._boxed = False
        self._compiler: str | None = None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._draft is not None:
            return self._in_box(number, text, sink)
        if text.lstrip().startswith("error: subprocess-exited-with-error"):
            # A package's build failed; what it printed (a traceback, a compiler error) is in the box below.
            self._draft = Draft("pip", "dependency", "a package failed to build", number, number)
            self._boxed, self._compiler = True, None
            return True
        if self._boxed and _PIP_WHEEL_SUMMARY.match(text.lstrip()):
            # Only repeats that the build shown in the box failed (one cause, one finding).
            sink.emit(Draft("pip", "dependency", text.strip(), number, number, role="fallback", rank=2))
            return True
        if text.startswith("ERROR: ") and (match := _PIP.match(text)):
            message = text[len("ERROR: ") :]
            if match.group("version") or match.group("resolve") or match.group("wheel"):
                rule = match.group("req") or match.group("pkg")
                sink.emit(
                    Draft("pip", "dependency", message, number, number, rule=None, key=f"pip:{rule}" if rule else None)
                )
            elif match.group("file"):
                sink.emit(Draft("pip", "dependency", message, number, number))
            else:
                # Other tools print ``ERROR: `` too (bazel, scripts): a fallback that names no tool.
                sink.emit(Draft(None, "unknown", message, number, number, role="fallback", rank=1))
            return True
        if _PIP_SUBPROCESS.match(text.lstrip()):
            sink.emit(Draft("pip", "dependency", text.lstrip("× "), number, number, role="fallback", rank=2))
            return True
        return False

    def _in_box(self, number: int, text: str, sink: Sink) -> bool:
        box = self._draft
        assert box is not None
        stripped = text.strip()
        if stripped.startswith("× ") and box.message == "a package failed to build":
            box.message = stripped.removeprefix("× ")
        elif box.kind == "dependency" and (compiled := _BOX_COMPILE_ERROR.match(stripped)):
            path, row, column, message = compiled.groups()
            box.tool, box.kind, box.message = self._compiler or "pip", "build_error", message
            box.path, box.line, box.column = path, int(row), int(column) if column else None
        elif compiler := _BOX_COMPILER.match(stripped):
            self._compiler = compiler.group(1)
        elif _BUILD_ERROR_LINE.match(stripped):
            box.message = f"{box.message} {stripped}"[:300]
        box.end = number
        if stripped.startswith(("[end of output]", "error: metadata-generation-failed", "ERROR: Failed")) or (
            number - box.start > 200
        ):
            self.close(sink)
        return True


# -- bandit --------------------------------------------------------------------------------------

_BANDIT_ISSUE = re.compile(r"^>> Issue: \[(B\d+)(?::(\w+))?\] (.*)$")
_BANDIT_SEVERITY = re.compile(r"^\s+Severity: (\w+)")
_BANDIT_LOCATION = re.compile(r"^\s+Location: (\S+?\.py):(\d+):(\d+)$")


class Bandit(BlockParser):
    """bandit's ``>> Issue: [B602:name] message`` blocks, placed by their ``Location: x.py:5:11`` line."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith(">> Issue: ") and (match := _BANDIT_ISSUE.match(text)):
            self.close(sink)
            code, name, message = match.groups()
            self._draft = Draft("bandit", "security", message, number, number, rule=f"{code}:{name}" if name else code)
            return True
        draft = self._draft
        if draft is None:
            return False
        if number - draft.start > 8:
            self.close(sink)
            return False
        if severity := _BANDIT_SEVERITY.match(text):
            draft.warning = severity.group(1) == "Low"
        elif location := _BANDIT_LOCATION.match(text):
            draft.path, draft.line, draft.column, draft.end = (
                location.group(1),
                int(location.group(2)),
                int(location.group(3)) + 1,
                number,
            )
            self.close(sink)
        return True
