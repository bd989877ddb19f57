"""What untrusted text becomes before Gauntlet keeps or writes it: secrets redacted, NULs and surrogates replaced.

Theory of operation (DESIGN §6, ``docs/security.md``):

* :func:`redact` replaces what looks like a credential with ``[REDACTED]``. The shapes are
  :data:`SECRET_SHAPES`, one row per kind, taken from the formats GitHub secret scanning and
  gitleaks' default rules look for; values registered with ``::add-mask::`` (a :class:`Masks`)
  go too. Terminal escapes are dropped first, so a colour code cannot cut a token or a key
  marker in two, and a private key block goes whole, also when its ``BEGIN`` or ``END`` line was
  cut off by an excerpt window.
* It runs twice on everything written: where text enters (every finding field, in
  ``ingest/redact.py``; a command line, in ``engine/commands.py``) and right before a body, a
  title, a state file or the report output is written (``effects/render.py``, ``github/issues.py``,
  ``github/reverts.py``, ``state/codec.py`` and ``action/outputs.py``, with :func:`redact_json`).
* Every quantifier is bounded and no pattern can backtrack over a long run, so redacting ``n``
  characters costs O(n): a 70,000-character comment is redacted in milliseconds.

A module of its own, below every layer, because every layer that writes needs it. Detect-secrets
(Yelp) was measured as an alternative and did not fit the cost budget (``bench/redact.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cached_property
from typing import Any

__all__ = ["MAX_MASKS", "REDACTED", "SECRET_SHAPES", "Masks", "masked_values", "redact", "redact_json", "scrub"]

_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def scrub(text: str) -> str:
    """``text`` with NULs and lone surrogates replaced by U+FFFD, so it encodes as UTF-8 and stays one string."""
    return _UNSAFE.sub("\ufffd", text) if _UNSAFE.search(text) else text


REDACTED = "[REDACTED]"

#: What counts as a secret, by kind: (kind, hints, pattern). A pattern runs only on text holding one of
#: its hints (plain substring tests, far cheaper than any regex), starts with a literal and bounds every
#: repetition, so redacting stays linear and fast on text with no secret in it.
SECRET_SHAPES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("private key block", ("PRIVATE KEY",),
     r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,40}-----|\Z)"),
    # The last body line of a key whose BEGIN line an excerpt window cut off (whole body lines go below).
    ("private key tail", ("PRIVATE KEY",),
     r"[A-Za-z0-9+/]{1,200}={0,2}(?=[ \t]{0,8}\r?\n[ \t]{0,8}-----END[ A-Z0-9_-]{0,40}PRIVATE)"),
    # A key's DER body in base64 (an ASN.1 SEQUENCE: "MII", "MIG"), met in running text without its markers.
    ("private key material", ("MII", "MIG"), r"MI[IG][A-Za-z0-9+/]{45,8192}={0,2}"),
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{30,255}"),
    ("GitHub fine-grained token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{40,255}"),
    ("AWS access key id (and the secret key after it)", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
     r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?:[\s:=,;\"'|]{1,8}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+]))?"),
    ("Slack token", ("xox",), r"xox[abposer]-[A-Za-z0-9-]{10,250}"),
    ("Slack webhook", ("hooks.slack.com",), r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/+-]{1,250}"),
    ("npm token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    ("PyPI token", ("pypi-",), r"pypi-[A-Za-z0-9_-]{50,1000}"),
    ("GitLab token", ("glpat-", "glptt-", "gldt-", "glrt-"), r"gl(?:pat|ptt|dt|rt)-[A-Za-z0-9_-]{20,64}"),
    ("Stripe key", ("_live_", "_test_", "_prod_"), r"(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,99}"),
    ("OpenAI key", ("sk-",), r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,200}"),
    ("Google API key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    ("SendGrid key", ("SG.",), r"SG\.[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{16,64}"),
    ("Docker Hub token", ("dckr_pat_",), r"dckr_pat_[A-Za-z0-9_-]{20,64}"),
    ("Hugging Face token", ("hf_",), r"hf_[A-Za-z0-9]{30,64}"),
    ("Azure storage key", ("AccountKey=", "SharedAccessKey="),
     r"(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/=]{20,200}"),
    ("JWT", ("eyJ",), r"eyJ[A-Za-z0-9_-]{10,512}+\.eyJ[A-Za-z0-9_-]{10,8192}+\.[A-Za-z0-9_-]{0,4096}+"),
)  # fmt: skip
_SHAPES = tuple((hints, re.compile(pattern)) for _, hints, pattern in SECRET_SHAPES)
# A PEM body line on its own (the block's markers outside the excerpt): long base64, not just hex, maybe
# after a job log's timestamp. Checked line by line: no regex can look for it fast in running text.
_KEY_LINE = re.compile(
    r"(?:\d{4}-\d\d-\d\dT[0-9:.]{8,20}Z )?(?=[A-Za-z0-9+/]{0,200}[G-Zg-z+/])[A-Za-z0-9+/]{48,200}={0,2}"
)
_KEY_LINE_CHARS = range(48, 232)
# The same, as JSON shows it (a state file): a long base64 run inside a string.
_KEY_MATERIAL = re.compile(r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]{0,200}[G-Zg-z+/])[A-Za-z0-9+/]{48,200}={0,2}")
# ``password=hunter2``, ``"api_key": "abc"``, ``DB_PASSWORD: abc``: keep the name, drop the value. The
# pattern starts at the keyword, never at the name's prefix, so a long identifier costs no backtracking.
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?P<name>(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?
        |client[_-]?secret)[a-z0-9_.-]{0,40}["']?[ \t]{0,5}[:=][ \t]{0,5}["']?)
    (?P<value>[^\s"',;]{4,512})
    """
)
_ASSIGNMENT_WORDS = ("pass", "secret", "token", "key", "credential")
_BEARER = re.compile(r"(?i)\b(authorization:[ \t]{0,5}(?:bearer|token|basic)[ \t]{1,5})[^\s\"']{1,4096}")
# ``https://user:pass@host`` keeps the user; ``https://<long token>@host`` loses the token.
_URL_CREDENTIALS = re.compile(r"(?i)([a-z][a-z0-9+.-]{0,30}://)([^/\s:@\"'<>]{1,256})(:[^@\s/\"'<>]{1,256})?@")
_ADD_MASK = re.compile(r"::add-mask::[^\r\n]{0,4096}")
#: CSI (colours, cursor moves), OSC (hyperlinks, titles) and two-byte escapes (charset designations).
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]{0,64}[ -/]{0,8}[@-~]|\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|[()*+][ -~]|[ -~])")

#: A file may register at most this many ``::add-mask::`` values; more are a flood, not secrets.
MAX_MASKS = 1000
_MIN_MASK_CHARS = 3
_MAX_MASK_CHARS = 4096


class Masks:
    """Literal values to hide wherever they occur (``::add-mask::``), matched in one pass."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values: set[str] = set()
        self.add(values)

    def add(self, values: Iterable[str]) -> None:
        """Register more values (too short or too many are ignored)."""
        for raw in values:
            value = raw.strip()
            fits = _MIN_MASK_CHARS <= len(value) <= _MAX_MASK_CHARS and len(self.values) < MAX_MASKS
            if fits and value not in self.values:
                self.values.add(value)
                self.__dict__.pop("pattern", None)

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """One alternation of every value, longest first (so a value inside another goes with it)."""
        if not self.values:
            return None
        return re.compile("|".join(re.escape(v) for v in sorted(self.values, key=lambda v: (-len(v), v))))

    def __bool__(self) -> bool:
        return bool(self.values)


def masked_values(lines: Iterable[str]) -> set[str]:
    """Collect the values ``lines`` register with ``::add-mask::`` (the rest of the line, as the runner takes it)."""
    found: set[str] = set()
    for line in lines:
        for match in _ADD_MASK.finditer(_ESCAPES.sub("", line)):
            value = match.group(0)[len("::add-mask::") :].strip()
            if len(value) >= _MIN_MASK_CHARS:
                found.add(value)
    return found


def redact(text: str, masks: Masks | Iterable[str] = ()) -> str:
    """Return ``text`` with secrets replaced by ``[REDACTED]``, terminal escapes dropped, NULs and surrogates replaced.

    :param text: untrusted text (a log line, a message, an excerpt, a command, a body).
    :param masks: literal values to hide wherever they occur (``::add-mask::`` values).
    """
    if not text:
        return text
    if not isinstance(masks, Masks):
        masks = Masks(masks)
    text = scrub(text)
    if "\x1b" in text:
        text = _ESCAPES.sub("", text)
    if masks.pattern is not None:
        text = masks.pattern.sub(REDACTED, text)
    if "::add-mask::" in text:
        text = _ADD_MASK.sub("::add-mask::" + REDACTED, text)
    if any(hint in text for hint in _AWS_IDS):
        text = _aws_secret_after_id(text)
    for hints, pattern in _SHAPES:
        if any(hint in text for hint in hints):
            text = pattern.sub(REDACTED, text)
    text = _key_lines(text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(_url_credentials, text)
    lower = text.lower()
    if "authorization" in lower:
        text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    if any(word in lower for word in _ASSIGNMENT_WORDS):
        text = _ASSIGNMENT.sub(lambda m: m.group("name") + REDACTED, text)
    return text


_AWS_IDS = ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")
_AWS_ID = re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])")
#: An AWS secret access key: 40 base64 characters with an upper and a lower case letter (never a git SHA).
_AWS_SECRET = re.compile(
    r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
#: How far after a key id its secret is looked for ("AKIA… and its secret is wJal…", a table row, a URL).
_AWS_REACH = 200


def _aws_secret_after_id(text: str) -> str:
    """``text`` with each AWS secret key that follows an access key id (within :data:`_AWS_REACH` characters,
    whatever is between them) redacted; the ids themselves go with :data:`SECRET_SHAPES`."""
    spans = [
        (match.start(), match.end())
        for key_id in _AWS_ID.finditer(text)
        for match in _AWS_SECRET.finditer(text, key_id.end(), key_id.end() + _AWS_REACH)
    ]
    for start, end in sorted(set(spans), reverse=True):
        text = text[:start] + REDACTED + text[end:]
    return text


def _key_lines(text: str) -> str:
    lines = text.split("\n")
    changed = False
    for index, line in enumerate(lines):
        bare = line.strip()
        if len(bare) in _KEY_LINE_CHARS and " " not in bare[30:] and _KEY_LINE.fullmatch(bare):
            lines[index] = REDACTED
            changed = True
    return "\n".join(lines) if changed else text


def _url_credentials(match: re.Match[str]) -> str:
    scheme, user, password = match.group(1), match.group(2), match.group(3)
    if password:
        return f"{scheme}{user}:{REDACTED}@"
    if len(user) >= 20:  # a user name this long is a token used as one (``https://<token>@github.com``)
        return f"{scheme}{REDACTED}@"
    return match.group(0)


# A JSON string literal as ``json.dumps`` and pydantic write it.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.){0,1000000}"')


def redact_json(text: str) -> str:
    """Redact every string value of a JSON (or JSON lines) text, keeping it valid and unchanged where clean.

    A pattern run over the raw text could swallow a quote or the rest of the file (an unterminated
    key block); run per decoded string, it cannot.
    """
    if not _might_hold_secret(text):
        return text

    def one(match: re.Match[str]) -> str:
        value: Any = json.loads(match.group(0))
        clean = redact(value)
        return match.group(0) if clean == value else json.dumps(clean, ensure_ascii=False)

    return _JSON_STRING.sub(one, text)


def _might_hold_secret(text: str) -> bool:
    # JSON escapes a key block's newlines, so its markers are still plain text here.
    lower = text.lower()
    return (
        any(hint in text for hints, _ in _SHAPES for hint in hints)
        or any(word in lower for word in ("authorization", "://", "::add-mask::", "\\u001b"))
        or _ASSIGNMENT.search(text) is not None
        or _KEY_MATERIAL.search(text) is not None
    )
