"""Package managers: npm, yarn, pnpm, apt and bundler (pip lives with Python)."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import LineParser
from gauntlet.ingest.log.draft import Draft, Line, Role, Sink
from gauntlet.models import Kind

__all__ = ["Apt", "Npm"]

_NPM = re.compile(r"^npm (?:ERR!|error) ?(.*)$")
_NPM_CODE = re.compile(r"^code (\w+)$")
# npm codes that only repeat that a script failed: the script's own output explains it.
_NPM_DRIVER = {"ELIFECYCLE", "1", "2", "127", "E1", "E2"}
_NPM_INFRA = {"ECONNRESET", "ETIMEDOUT", "ECONNREFUSED", "EAI_AGAIN", "ENOTFOUND", "E500", "E502", "E503", "E504"}
_NPM_DEPENDENCY = {
    "E404", "ETARGET", "ERESOLVE", "EINTEGRITY", "E403", "EBADENGINE", "ENOVERSIONS", "ENOENT",
    # ``npm ci --offline`` (or ``--prefer-offline`` without a cache): a package the lock names is not there.
    "ENOTCACHED", "ENOLOCK", "ELOCKVERIFY",
    # ``npm ls``: the tree has a package missing, invalid or extraneous.
    "ELSPROBLEMS",
}  # fmt: skip
_NPM_NOISE = re.compile(r"^(?:A complete log of this run|Log files were not written|\s*$|404\s*$|To see a list)")
_YARN = re.compile(r"^error (?:(Command failed with exit code \d+\.?)|(.*))$")
_PNPM = re.compile(r"^\s*(?:Error: )?(ERR_PNPM_\w+)\s*(.*)$|^\s*(ELIFECYCLE)\s+(.*)$")
_PNPM_DEPENDENCY = ("FETCH", "RESOLVE", "NO_MATCHING_VERSION", "PEER", "NOT_FOUND", "404", "OUTDATED_LOCKFILE")


class Npm:
    """Consecutive ``npm ERR!``/``npm error`` lines as one finding, classified by their ``code``; yarn, pnpm."""

    def __init__(self) -> None:
        self._draft: Draft | None = None
        self._code = ""
        self._pnpm: Draft | None = None

    @property
    def active(self) -> bool:
        """True inside a block of npm error lines or under a pnpm error code."""
        return self._draft is not None or self._pnpm is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._pnpm is not None:
            pnpm = self._pnpm
            stripped = text.strip(" ×╰─▶│╭")
            if (not text or text[0] in " ×╰│") and number - pnpm.start < 10:
                if stripped and " " not in pnpm.message and len(pnpm.message) < 200:
                    pnpm.message = f"{pnpm.message}: {stripped}"
                pnpm.end = number if stripped else pnpm.end
                return True
            self._pnpm = None
            sink.emit(pnpm)
        if text.startswith("npm ") and (match := _NPM.match(text)):
            body = match.group(1).strip()
            if self._draft is None:
                self._draft = Draft("npm", "build_error", "", number, number)
                self._code = ""
            draft = self._draft
            if number - draft.start < 40:
                draft.end = number
            if code := _NPM_CODE.match(body):
                self._code = code.group(1)
            elif not draft.message and not _NPM_NOISE.match(body):
                draft.message = body
            return True
        self.close(sink)
        if text.startswith("error ") and (match := _YARN.match(text)):
            driver, message = match.groups()
            if driver:
                sink.emit(Draft("yarn", "build_error", driver, number, number, role="fallback", rank=2))
            else:
                kind: Kind = (
                    "dependency" if re.search(r"package|version|registry|Not found|resolve", message) else "build_error"
                )
                # ``error <anything>`` is also how other programs start a line: alone, it proves nothing.
                role: Role = "primary" if kind == "dependency" else "fallback"
                sink.emit(Draft("yarn", kind, message, number, number, role=role, rank=1, fails=False))
            return True
        if ("ERR_PNPM" in text or "ELIFECYCLE" in text) and (found := _PNPM.match(text)):
            pnpm_code = str(found.group(1) or found.group(3))
            message = str(found.group(2) or found.group(4) or "")
            draft = Draft("pnpm", "build_error", f"{pnpm_code} {message}".strip(), number, number, rule=pnpm_code)
            if any(word in pnpm_code for word in _PNPM_DEPENDENCY):
                draft.kind = "dependency"
            else:
                draft.role, draft.rank = "fallback", 2
            self._pnpm = draft
            return True
        return False

    def close(self, sink: Sink) -> None:
        """Report the block of error lines just read."""
        pnpm, self._pnpm = self._pnpm, None
        if pnpm is not None:
            sink.emit(pnpm)
        draft, self._draft = self._draft, None
        if draft is None:
            return
        code = self._code
        draft.rule = code or None
        draft.message = draft.message or (f"npm error {code}" if code else "npm error")
        if code in _NPM_INFRA:
            draft.kind = "infra"
        elif code in _NPM_DEPENDENCY or code.startswith("E4") or (code == "EUSAGE" and "package-lock" in draft.message):
            draft.kind = "dependency"  # EUSAGE: ``npm ci`` without a lock file, or one out of sync
        elif (
            code in _NPM_DRIVER or not code or "Lifecycle script" in draft.message or "command failed" in draft.message
        ):
            draft.role, draft.rank = "fallback", 2
        sink.emit(draft)


_APT = re.compile(
    r"^E: (Unable to locate package .*|Package '?\S+'? has no installation candidate|"
    r"Unable to correct problems.*|Version '.*' for '.*' was not found|Failed to fetch .*|"
    r"Could not get lock .*|Sub-process .* returned an error code.*|The repository .* does not have a Release file.*|"
    r"Unable to fetch some archives.*|.*)$"
)
_BUNDLER = re.compile(
    r"^(Could not find gem '.*'.*|Bundler::GemNotFound: .*|Your bundle is locked to .*|"
    r"Could not find compatible versions.*|Gem::Ext::BuildError: .*)$"
)


class Apt(LineParser):
    """``E: Unable to locate package x`` and the other ``E:`` lines of apt; bundler's resolution errors."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith("E: ") and (match := _APT.match(text)):
            message = match.group(1)
            fetch = message.startswith(("Failed to fetch", "Unable to fetch", "Could not get lock"))
            generic = message.startswith(("Sub-process", "Unable to correct")) or not re.match(
                r"Unable to locate|Package|Version|Failed to fetch|The repository|Unable to fetch|Could not get lock",
                message,
            )
            kind: Kind = "infra" if fetch else "dependency"
            if generic:
                sink.emit(Draft("apt", kind, message, number, number, role="fallback", rank=2))
            else:
                sink.emit(Draft("apt", kind, message, number, number))
            return True
        if (text.startswith(("Could not find", "Bundler", "Your bundle", "Gem::"))) and _BUNDLER.match(text):
            sink.emit(Draft("bundler", "dependency", text, number, number))
            return True
        return False
