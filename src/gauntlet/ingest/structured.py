"""What the structured-format readers (SARIF, JUnit, rdjson, checkstyle, review, comments) share.

Messages become one redacted line, excerpts a few redacted lines; tool names are
normalised; and fingerprints are numbered by occurrence, so two identical
warnings in one file stay two findings while a line shift changes nothing
(the scheme GitHub code scanning uses for ``primaryLocationLineHash``).
"""

from __future__ import annotations

import logging
import re
from collections import Counter

from gauntlet.ingest.failure_text import strip_ansi
from gauntlet.ingest.fingerprint import make_fingerprint, normalise_message
from gauntlet.ingest.limits import Limits
from gauntlet.models import Kind
from gauntlet.untrusted import redact

__all__ = ["Fingerprints", "excerpt", "kind_for_tool", "logger", "one_line", "tool_name"]

#: Readers report what they dropped or distrusted here, never on stdout; the CLI shows warnings on stderr.
logger = logging.getLogger("gauntlet.ingest")

# Tools whose every finding is a security finding, and type checkers whose findings are type errors.
_SECURITY_TOOLS = frozenset({"bandit", "gosec", "brakeman", "trivy", "grype", "snyk", "checkov", "tfsec", "safety"})
_TYPE_CHECKERS = frozenset({"mypy", "pyright", "pytype", "pyre", "tsc", "typescript", "basedpyright"})


def one_line(text: str | None, limits: Limits) -> str:
    """Collapse ``text`` to one redacted line of at most ``max_message_chars``, without terminal colours."""
    return redact(" ".join(strip_ansi(text or "").split()))[: limits.max_message_chars]


def excerpt(text: str | None, limits: Limits) -> str:
    """Keep the first ``max_excerpt_lines`` lines of ``text``, redacted and capped."""
    lines = strip_ansi(text or "").strip("\n").splitlines()[: limits.max_excerpt_lines]
    return redact("\n".join(line.rstrip() for line in lines))[: limits.max_excerpt_chars]


def tool_name(raw: str | None) -> str | None:
    """Normalise a producing tool's name: ``"Semgrep OSS"`` → ``semgrep``, ``ESLint`` → ``eslint``."""
    if not raw:
        return None
    first = raw.strip().split()[0].lower() if raw.strip() else ""
    cleaned = re.sub(r"[^a-z0-9._@/-]", "", first)[:64]
    return cleaned or None


def kind_for_tool(tool: str | None, *, security: bool = False) -> Kind:
    """The kind of a static-analysis finding: ``security`` when tagged so or from a security scanner."""
    if security or tool in _SECURITY_TOOLS:
        return "security"
    if tool in _TYPE_CHECKERS:
        return "type_error"
    return "lint"


class Fingerprints:
    """Hands out fingerprints for one file, numbering repeats of the same defect."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()

    def __call__(self, *parts: str | None, message: str = "") -> str:
        """Return the fingerprint of ``parts`` plus the normalised ``message``; the n-th repeat gets ``#n``."""
        base = make_fingerprint(*parts, normalise_message(message) if message else None)
        self._seen[base] += 1
        count = self._seen[base]
        return base if count == 1 else make_fingerprint(base, f"#{count}")
