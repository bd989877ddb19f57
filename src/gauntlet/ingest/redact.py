"""Secret redaction: applied to every message and excerpt before it leaves ingestion (DESIGN §6).

The patterns follow the documented token formats (GitHub, AWS, Slack, npm, PyPI,
private keys) plus ``key=value`` assignments whose key names a secret. Values the
CI log masked with ``::add-mask::`` are redacted too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["REDACTED", "redact"]

REDACTED = "[REDACTED]"

_TOKEN_PATTERNS = [
    r"gh[pousr]_[A-Za-z0-9]{30,255}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{40,255}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",  # AWS access key ids
    r"xox[baprs]-[A-Za-z0-9-]{10,}",  # Slack
    r"npm_[A-Za-z0-9]{36}",
    r"pypi-[A-Za-z0-9_-]{50,}",
    r"glpat-[A-Za-z0-9_-]{20,}",
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI-style keys
    r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
    r"AIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",  # SendGrid
    r"dckr_pat_[A-Za-z0-9_-]{20,}",  # Docker Hub
    r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+",
    r"(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/=]{20,}",  # Azure connection strings
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
]
_TOKENS = re.compile("|".join(f"(?:{p})" for p in _TOKEN_PATTERNS))
# ``password=hunter2``, ``"api_key": "abc"``, ``Authorization: Bearer abc``: keep the name, drop the value.
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?P<name>(?:[a-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?))
        ["']?\s*[:=]\s*["']?)
    (?P<value>[^\s"',;]{4,})
    """
)
_BEARER = re.compile(r"(?i)\b(authorization:\s*(?:bearer|token|basic)\s+)[^\s]+")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+@")
_ADD_MASK = re.compile(r"::add-mask::(\S+)")


def masked_values(lines: Iterable[str]) -> set[str]:
    """Collect the values a log registered with ``::add-mask::``."""
    found: set[str] = set()
    for line in lines:
        for match in _ADD_MASK.finditer(line):
            if len(match.group(1)) >= 3:
                found.add(match.group(1))
    return found


def redact(text: str, masks: Iterable[str] = ()) -> str:
    """Return ``text`` with secrets replaced by ``[REDACTED]``.

    :param text: untrusted text (a log line, a message, an excerpt).
    :param masks: literal values to hide wherever they occur (``::add-mask::`` values).
    """
    for value in masks:
        text = text.replace(value, REDACTED)
    text = _ADD_MASK.sub("::add-mask::" + REDACTED, text)
    text = _TOKENS.sub(REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)
    return _ASSIGNMENT.sub(lambda m: m.group("name") + REDACTED, text)
