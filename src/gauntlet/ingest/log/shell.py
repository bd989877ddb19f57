"""Shell and process deaths: ``command not found``, segfaults, aborts, OOM kills, timeouts."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import LineParser
from gauntlet.ingest.log.draft import Draft, Line, Sink
from gauntlet.models import Kind

__all__ = ["Shell"]

# bash ``x.sh: line 4: tool: command not found``, dash ``x.sh: 4: tool: not found``,
# zsh ``x.zsh:4: command not found: tool``, cmd.exe ``'tool' is not recognized ...``.
_NOT_FOUND = re.compile(
    r"^(?:(\S+): )?(?:line (\d+): |(\d+): )?(\S+): (?:command )?not found$|"
    r"^(\S+):(\d+): command not found: (\S+)$|"
    r"^'(\S+)' is not recognized as an internal or external command"
)
#: A script named in the message is the repository's unless it is the runner's temporary step script.
_SCRIPT = re.compile(r"^(?!.*/_temp/)(?!(?:/\S*/)?(?:ba|da|z|k)?sh$)\S*[./]\S*$")
# bash reports a child killed by a signal as ``line 3: 1234 Segmentation fault      (core dumped) ./a.out``: the
# command after padding or a path, not words (mkdocs' ``Aborted with 1 warnings in strict mode!`` is no signal).
_SIGNAL = re.compile(
    r"^(?:.*?: line \d+: +\d+ )?(Segmentation fault|Aborted|Killed|Bus error|Illegal instruction|"
    r"Floating point exception|Trace/breakpoint trap)(?: +\(core dumped\))?(?:(?: {2,}|\s+(?=[./~]))(.*))?$"
)
_OOM = re.compile(
    r"Out of memory: Killed process|oom-kill|OOMKilled|JavaScript heap out of memory|"
    r"fatal error: runtime: out of memory|^MemoryError$|memory allocation of \d+ bytes failed"
)
_FATAL = re.compile(r"^(Fatal Python error|fatal error|FATAL ERROR): (.*)$")
_V8_FATAL = re.compile(r"(?i)heap|allocation failed|javascript|mark-compact|v8")
_FATAL_TOOLS = {"Fatal Python error": "python", "fatal error": "go", "FATAL ERROR": "node"}
_TIMEOUT = re.compile(r"^timeout: (?:the monitored command dumped core|sending signal)|^Terminated$")
_INFRA = re.compile(
    r"Connection refused|Connection reset by peer|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|"
    r"Could not resolve host|Temporary failure in name resolution|Name or service not known|"
    r"TLS handshake timeout|i/o timeout|\b50[234] (?:Bad Gateway|Service Unavailable|Gateway Time-?out)\b|"
    r"\b(?:HTTP|status|code|returned)\W+5\d\d\b|\b429 Too Many Requests|toomanyrequests|rate limit exceeded|"
    r"RPC failed|the remote end hung up unexpectedly|Network is unreachable|SSL_ERROR_SYSCALL|"
    r"Couldn't connect to server|Failed to connect to \S+ port|returned error: 5\d\d|"
    r"Cannot connect to the Docker daemon|dial tcp .*: connect:|Could not connect to|Connection timed out"
)
_DOCKER = re.compile(
    r"^(?:ERROR: |error: )?failed to solve: (.*)$|^ERROR \[(.+?)\] (.*)$|"
    r"^The command '(.*)' returned a non-zero code: (\d+)$|^Error response from daemon: (.*)$"
)


class Shell(LineParser):
    """Lines the shell or the kernel print when a command cannot run or a process dies."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if ("not found" in text or "not recognized" in text) and (match := _NOT_FOUND.match(text)):
            script, row, row2, command, zscript, zrow, zcommand, windows = match.groups()
            script, row, command = script or zscript, row or row2 or zrow, command or zcommand or windows
            placed = script is not None and row is not None and _SCRIPT.match(script) is not None
            sink.emit(
                Draft(
                    "shell",
                    "build_error",
                    f"{command}: command not found",
                    number,
                    number,
                    path=script if placed else None,
                    line=int(row) if placed and row else None,
                    rule="command-not-found",
                )
            )
            return True
        if (match := _SIGNAL.match(text)) and (text[0] in "SAKBIFT" or ": line " in text):
            what = match.group(1)
            kind: Kind = "crash"
            message = f"{what}: {match.group(2)}" if match.group(2) else what
            if "(core dumped)" in text:
                message += " (core dumped)"
            start = number
            for earlier, previous in sink.tail(3, number):
                if "Assertion" in previous and "failed" in previous:  # assert(3) says why it aborted
                    message, start = f"{message}: {previous.strip()}", earlier
            sink.emit(Draft("shell", kind, message, start, number))
            return True
        fatal = _FATAL.match(text) if text.startswith(("Fatal", "fatal error: ", "FATAL")) else None
        # Runtimes dying on their own: faulthandler, the Go runtime (deadlock), V8 (its heap); other tools say
        # ``FATAL ERROR`` too (dtc's ``Unable to parse input tree``): their error above it explains them.
        if fatal is not None and (fatal.group(1) != "FATAL ERROR" or _V8_FATAL.search(fatal.group(2))):
            who, what = fatal.groups()
            rule = "out-of-memory" if "memory" in what else None
            sink.emit(Draft(_FATAL_TOOLS[who], "crash", f"{who}: {what}", number, number, rule=rule))
            return True
        if _OOM.search(text):
            sink.emit(
                Draft(
                    "kernel" if "Killed process" in text else None,
                    "crash",
                    text.strip(),
                    number,
                    number,
                    rule="out-of-memory",
                )
            )
            return True
        if _TIMEOUT.match(text):
            sink.emit(Draft("timeout", "timeout", text, number, number, role="fallback", rank=3))
            return True
        if match := _DOCKER.match(text):
            return self._docker(number, text, match, sink)
        if _INFRA.search(text):
            # A hint, not proof: tests print refused connections too. It explains a failure only if nothing else does.
            sink.emit(Draft(None, "infra", text.strip(), number, number, role="fallback", rank=3, fails=False))
            return False
        return False

    @staticmethod
    def _docker(number: int, text: str, match: re.Match[str], sink: Sink) -> bool:
        solve, stage, stage_message, command, _, daemon = match.groups()
        if daemon is not None:
            kind: Kind = "infra" if _INFRA.search(daemon) or "toomanyrequests" in daemon else "build_error"
            sink.emit(Draft("docker", kind, daemon, number, number, role="fallback", rank=2))
        elif solve is not None:
            kind = "infra" if _INFRA.search(solve) else "build_error"
            sink.emit(Draft("docker", kind, solve, number, number, role="fallback", rank=2))
        elif stage is not None:
            sink.emit(
                Draft("docker", "build_error", f"[{stage}] {stage_message}", number, number, role="fallback", rank=2)
            )
        else:
            sink.emit(Draft("docker", "build_error", f"{command} failed", number, number, role="fallback", rank=2))
        return True
