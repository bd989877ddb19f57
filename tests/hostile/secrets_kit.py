"""Fake credentials of every shape the redactor must catch, made at run time (none is ever committed).

``make_secrets(seed)`` returns one value per kind, each random, so no test can pass by
matching a fixed string, and ``leaked(text, secrets)`` says which of them (or a long
enough piece of one) appear in ``text``. (A plain module: the test folders are not packages.)
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Mapping

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _private_key(rng: random.Random) -> str:
    body = "\n".join(["MIIEpAIBAAKCAQEA" + _pick(rng, B64, 48)] + [_pick(rng, B64, 64) for _ in range(6)])
    tail = _pick(rng, B64, 20) + "=="
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n{tail}\n-----END RSA PRIVATE KEY-----"


#: Each kind's maker. The prefixes are the documented formats (GitHub, AWS, Slack, npm, PyPI, Stripe, Google).
MAKERS: dict[str, Callable[[random.Random], str]] = {
    **{f"github {p}": (lambda rng, p=p: f"{p}_" + _pick(rng, ALNUM, 36)) for p in ("ghp", "gho", "ghu", "ghs", "ghr")},
    "github_pat": lambda rng: "github_pat_" + _pick(rng, ALNUM, 22) + "_" + _pick(rng, ALNUM, 59),
    "aws access key id": lambda rng: "AKIA" + _pick(rng, UPPER, 16),
    "aws secret access key": lambda rng: _pick(rng, B64, 40),
    "slack": lambda rng: "xoxb-" + _pick(rng, string.digits, 12) + "-" + _pick(rng, ALNUM, 24),
    "slack webhook": lambda rng: (
        "https://hooks.slack.com/services/T" + _pick(rng, UPPER, 10) + "/" + _pick(rng, ALNUM, 24)
    ),
    "npm": lambda rng: "npm_" + _pick(rng, ALNUM, 36),
    "pypi": lambda rng: "pypi-AgEIcHlwaS5vcmc" + _pick(rng, ALNUM, 60),
    "stripe": lambda rng: "sk_live_" + _pick(rng, ALNUM, 24),
    "google api key": lambda rng: "AIza" + _pick(rng, ALNUM, 35),
    "jwt": lambda rng: "eyJhbGciOiJIUzI1NiJ9.eyJ" + _pick(rng, ALNUM, 30) + "." + _pick(rng, ALNUM, 43),
    "password in url": lambda rng: _pick(rng, ALNUM, 16),
    "password assignment": lambda rng: _pick(rng, ALNUM, 14),
    "masked value": lambda rng: "mask" + _pick(rng, ALNUM, 12),
    "private key": _private_key,
}


def make_secrets(seed: int) -> dict[str, str]:
    """One fresh value per kind."""
    rng = random.Random(seed)
    return {kind: make(rng) for kind, make in MAKERS.items()}


def in_context(secrets: Mapping[str, str]) -> dict[str, str]:
    """Each secret as a job or a tool would print it (the context some shapes need: ``password=``, a URL)."""
    return {
        **secrets,
        "aws secret access key": f"aws_secret_access_key = {secrets['aws secret access key']}",
        "password in url": f"https://deploy:{secrets['password in url']}@registry.example.com/v2",
        "password assignment": f"DB_PASSWORD={secrets['password assignment']}",
    }


def pieces(secret: str) -> list[str]:
    """The parts of ``secret`` that must not appear: the value, and each line of a multi-line one (12+ chars)."""
    lines = [line for line in secret.splitlines() if len(line) >= 12 and "-----" not in line]
    return [secret, *lines] if "\n" in secret else [secret]


def leaked(text: str, secrets: Mapping[str, str]) -> list[str]:
    """The kinds of ``secrets`` whose value (or a line of it) is in ``text``."""
    return [kind for kind, value in secrets.items() if any(piece in text for piece in pieces(value))]
