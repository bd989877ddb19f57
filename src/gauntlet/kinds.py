"""The kinds of finding (DESIGN §4, contract), in one place: the models type them, known-failure rules check them.

Its own module because the models import the known-failure rules (``gauntlet.known``), which need the list too;
the sources a finding comes from are here too, so that the input formats are known without loading pydantic
(``gauntlet ingest`` starts a big log's read-ahead before it loads).
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["KINDS", "Kind", "Source"]

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

#: The input format a finding came from; the test-report formats after ``comment`` were added for issue 17.
Source = Literal[
    "log",
    "sarif",
    "junit",
    "review",
    "rdjson",
    "checkstyle",
    "comment",
    "nunit",
    "xunit",
    "trx",
    "ctrf",
    "tap",
    "go-json",
    "mocha-json",
    "jest-json",
    "dart-json",
]
