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
from collections.abc import Iterable, Sequence

from gauntlet.ingest.log.draft import Draft
from gauntlet.models import Kind

#: A file, and the line and column where it has them.
Place = tuple[str, int | None, int | None]

__all__ = ["LINTERS", "lint_rows", "place_block"]

#: ``path:line[:col]``, ``path:[line,col]`` (Maven, Kotlin), ``path(line,col)`` (MSBuild), ``path: line N``
#: (sh, bash), ``"path", line N`` (a Python frame), ``path line N`` (Perl, Tcl), or
#: ``file.o:(.text+0x1a)`` (a linker names only the file): a file name has an extension.
_PLACE = re.compile(
    r"(?<![\w/.\\:-])(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})"
    r"(?::(?P<line>\d{1,7})(?::(?P<column>\d{1,5}))?(?=[:\s,)\]]|$)"
    r"|:\[(?P<bline>\d{1,7}),(?P<bcolumn>\d{1,5})\]|\((?P<pline>\d{1,7}),(?P<pcolumn>\d{1,5})\)"
    r"|(?:\"?,|:)? line (?P<wline>\d{1,7})\b|(?=:\(\.text))"
)
#: A path alone on its line: the header a "stylish" report (ESLint, yamllint, stylelint) lists its file's
#: ``line:col severity message`` rows under.
_HEADER = re.compile(r"^\s*(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})\s*$")
_ROW = re.compile(r"^\s*(?P<line>\d{1,7}):(?P<column>\d{1,5})\s+\[?(?:error|warning)\b")
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
_DIAGNOSTIC = re.compile(r":\d{1,7}(?::\d{1,5})?:\s|:\[\d+,\d+\]|\(\d+,\d+\): |^\s*\d+:\d+\s+\[?error")
#: A package manager or build tool that could not get what the build needs.
_DEPENDENCY = re.compile(
    r"(?i)could not resolve (?:dependencies|dependency|host)|unable to resolve dependency|\bERESOLVE\b"
    r"|no matching distribution found|could not find a version that satisfies|failed to (?:download|fetch)\b"
    r"|not found in (?:the )?registry|could not find (?:package|module)|find_package|no such package"
)
#: A compiler's own words (a bare ``error:`` is any script's; ``error[E0308]`` is a compiler's code).
_COMPILE = re.compile(r"(?i)\bcompil(?:ation|e|ing)\b.{0,40}\b(?:error|failed)|\berror\[\w+\]|\bundefined reference\b")
#: Linters and style checkers by the command a step runs (a table of names, not of output shapes: a step that
#: ran one reports lint, whatever its rows look like). Any command with ``lint`` in its name counts too.
LINTERS = (
    "actionlint", "alex", "ansible-lint", "biome", "black --check", "buf lint", "cfn-lint", "checkov", "checkstyle",
    "clang-format", "clang-tidy", "codespell", "commitlint", "cppcheck", "cpplint", "credo", "cspell", "detekt",
    "doc8", "dotnet format", "editorconfig-checker", "eslint", "flake8", "gofmt", "golangci-lint", "hadolint",
    "hlint", "htmlhint", "isort --check", "jscpd", "ktlint", "luacheck", "markdownlint", "perlcritic",
    "phpcs", "phpstan", "pmd", "prettier --check", "proselint", "psalm", "pycodestyle", "pydocstyle", "pyflakes",
    "pylint", "revive", "rubocop", "ruff", "rustfmt --check", "scalafmt", "shellcheck", "shfmt", "spotbugs",
    "sqlfluff", "standard", "stylelint", "swiftformat", "swiftlint", "textlint", "tflint", "typos", "vale",
    "vulture", "write-good", "xmllint", "yamllint",
)  # fmt: skip
_LINT_STEP = re.compile(r"(?:^|[\s/;&|(])(?:" + "|".join(re.escape(n) for n in LINTERS) + r")\b|\w*lint\b")


def place_block(draft: Draft, texts: Iterable[str], step: str, before: Sequence[str] = ()) -> None:
    """Give ``draft`` (the block's finding) the first place its block names, and a kind when it has none.

    :param texts: the block's lines, the one that explains the failure best first.
    :param step: the failed step's command, lower case (``""`` when the log does not say).
    :param before: the lines just above the block, oldest first (a stylish report's file header may be there).
    """
    lines = list(texts)
    if draft.path is None:
        found = _stylish([*before, *lines[1:]]) or next((p for p in map(_first_place, lines) if p is not None), None)
        if found is not None:
            draft.path, draft.line, draft.column = found
    if draft.kind == "unknown":
        if any(_DEPENDENCY.search(text) for text in lines):
            draft.kind = "dependency"
        elif any(_TEST_WORDS.search(text) for text in lines):
            draft.kind = "test_failure"
        elif draft.path is not None and any(_DIAGNOSTIC.search(text) for text in lines):
            draft.kind = _diagnostic_kind(step)
        elif any(_COMPILE.search(text) for text in lines):
            draft.kind = "build_error"


def lint_rows(lines: Sequence[tuple[int, str]], before: Sequence[str] = ()) -> list[tuple[int, str, Place]]:
    """Each diagnostic row of a linter's block (``path:line[:col]: message``, or a stylish report's rows under
    their file header), with its place: one finding each, as a linter reports one problem per row."""
    rows: list[tuple[int, str, Place]] = []
    header: str | None = next((h.group("path") for h in map(_HEADER.match, reversed(before)) if h), None)
    for number, text in lines:
        found = _HEADER.match(text)
        if found is not None:
            header = found.group("path")
            continue
        row = _ROW.match(text)
        if row is not None and header is not None:
            rows.append((number, text, (header, int(row.group("line")), int(row.group("column")))))
        elif _DIAGNOSTIC.search(text):
            place = _first_place(text)
            if place is not None and place[1] is not None:
                rows.append((number, text, place))
    return rows


def _diagnostic_kind(step: str) -> Kind:
    if _TEST_STEP.search(step):
        return "test_failure"
    return "lint" if _LINT_STEP.search(step) else "build_error"


def _stylish(lines: list[str]) -> Place | None:
    """The first ``line:col error`` row of a stylish report, under the file header above it."""
    for index, text in enumerate(lines):
        row = _ROW.match(text)
        if row is None:
            continue
        header = next((h for h in map(_HEADER.match, reversed(lines[:index])) if h is not None), None)
        if header is not None:
            return header.group("path"), int(row.group("line")), int(row.group("column"))
    return None


def _first_place(text: str) -> Place | None:
    for match in _PLACE.finditer(text):
        path = match.group("path").rstrip(".")
        if _NOT_FILES.search(path) or "://" in text[max(0, match.start() - 3) : match.start()]:
            continue
        number = match.group("line") or match.group("bline") or match.group("pline") or match.group("wline")
        line = int(number) if number else None
        if line == 0:
            continue
        col = match.group("column") or match.group("bcolumn") or match.group("pcolumn")
        return path, line, int(col) if col else None
    return None
