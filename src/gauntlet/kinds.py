"""The kinds of finding (DESIGN §4, contract), in one place: the models type them, known-failure rules check them.

Its own module because the models import the known-failure rules (``gauntlet.known``), which need the list too.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["KINDS", "Kind"]

Kind = Literal[
    "test_failure",
    "build_error",
    "lint",
    "type_error",
    "dependency",
    "infra",
    "timeout",
    "crash",
    "security",
    "review",
    "unknown",
]
#: Every kind, in the contract's order.
KINDS: tuple[str, ...] = get_args(Kind)
