"""Where a failure no tool parser explained is, and what kind it is, from the block itself.

The locator finds the block that explains a failed step (:mod:`.locator`); for a tool without a parser of its
own, that block still says where: compilers, linters, test runners and stack traces all print
``path:line[:col]``. This reads the first such place in the block (the best line first, then the block in
order), and names a kind the locator left ``unknown`` from the shape of the block and what the step ran:

- a diagnostic (``path:line[:col]: message``) is a ``build_error``, or a ``test_failure`` when the step ran
  the tests (``go test``, ``npm test``, ``pytest``, ``ctest``, ``mvn test``, ...);
- test runners' own verdict words (``--- FAIL``, ``FAILED``, ``not ok``, an assertion) are a ``test_failure``.

Paths must look like files (a name with an extension); hosts in URLs, versions and times are not places.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gauntlet.ingest.log.draft import Draft

__all__ = ["place_block"]

#: ``path:line[:col]``, or ``file.o:(.text+0x1a)`` (a linker names only the file): a file name has an extension.
_PLACE = re.compile(
    r"(?<![\w/.\\:-])(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})"
    r"(?::(?P<line>\d{1,7})(?::(?P<column>\d{1,5}))?(?=[:\s,)\]]|$)|(?=:\(\.text))"
)
_NOT_FILES = re.compile(r"(?i)\.(?:com|org|net|io|dev|local|localhost)$|^\d+\.\d+")
#: What a test runner says of a failed test, across xUnit-, spec- and TAP-style runners.
_TEST_WORDS = re.compile(
    r"--- FAIL|\bFAIL(?:ED)?\b|\bnot ok \d|(?i:\bassert(?:ion(?:error)?)?\b)"
    r"|(?i:\bexpected\b.{0,80}\b(?:but|got|received|actual)\b)"
)
#: A step that ran the tests: the failure in its block is a test's.
_TEST_STEP = re.compile(
    r"\b(?:go test|npm (?:run )?test|yarn test|pnpm test|pytest|tox|nox|ctest|mvn\b.*\btest|gradlew?\b.*\btest"
    r"|cargo test|dotnet test|rspec|rake test|phpunit|mix test|jest|vitest|mocha|prove|busted|stack test"
    r"|cabal test|swift test|make (?:test|check))\b"
)
_DIAGNOSTIC = re.compile(r":\d{1,7}(?::\d{1,5})?:\s")


def place_block(draft: Draft, texts: Iterable[str], step: str) -> None:
    """Give ``draft`` (the block's finding) the first place its block names, and a kind when it has none.

    :param texts: the block's lines, the one that explains the failure best first.
    :param step: the failed step's command, lower case (``""`` when the log does not say).
    """
    lines = list(texts)
    if draft.path is None:
        for text in lines:
            found = _first_place(text)
            if found is not None:
                draft.path, draft.line, draft.column = found
                break
    if draft.kind == "unknown":
        testing = bool(_TEST_STEP.search(step))
        if any(_TEST_WORDS.search(text) for text in lines):
            draft.kind = "test_failure"
        elif draft.path is not None and any(_DIAGNOSTIC.search(text) for text in lines):
            draft.kind = "test_failure" if testing else "build_error"


def _first_place(text: str) -> tuple[str, int | None, int | None] | None:
    for match in _PLACE.finditer(text):
        path = match.group("path").rstrip(".")
        if _NOT_FILES.search(path) or "://" in text[max(0, match.start() - 3) : match.start()]:
            continue
        line = int(match.group("line")) if match.group("line") else None
        if line == 0:
            continue
        column = int(match.group("column")) if match.group("column") else None
        return path, line, column
    return None
