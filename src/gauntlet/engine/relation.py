"""The one relation between a commit and a failure (DESIGN §3): how close a change comes to what failed.

Confirmation (:func:`gauntlet.engine.revert.sightings_needed`), culprit choice
(:func:`gauntlet.engine.revert.identify_culprit`), learning (:mod:`gauntlet.engine.fixes`) and
self-healing (:mod:`gauntlet.engine.selfheal`) all ask this module, so a change that confirms a
breakage is also the one blamed for it and the one learnt as its fix.

A failure *names* places: its path, its test's file and the source files of its stack frames. A
changed file scores by how close it comes to one of them::

    3  the same file
    2  a file in the same folder (not the repository root, where everything is)
    1  the code under test by name: ``src/calc.py`` for ``tests/test_calc.py``
       (``test_calc.py``, ``calc_test.go``, ``calc.test.ts`` and ``calc_spec.rb`` all test ``calc``)
    0  nothing the failure named (a README, a changelog, another package)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "SAME_FILE",
    "closeness",
    "code_under_test",
    "is_test_file",
    "named_by",
    "named_by_all",
    "score",
    "subject_stem",
]

#: The score of a changed file that is one the failure named.
SAME_FILE = 3


def named_by(path: str | None, test_id: str | None, frames: Iterable[str] = ()) -> set[str]:
    """The repository paths a failure names: its path, its test's file and its stack frames."""
    named = {p for p in (path, test_id.split("::", 1)[0] if test_id else None) if p}
    named.update(frames)
    return {p.removeprefix("./").strip("/") for p in named if p.removeprefix("./").strip("/")}


def named_by_all(failures: Sequence[tuple[str | None, str | None, Sequence[str]]]) -> set[str]:
    """What several failures name together: the union of :func:`named_by` of each ``(path, test id, frames)``."""
    return {p for path, test_id, frames in failures for p in named_by(path, test_id, frames)}


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def subject_stem(path: str) -> str:
    """The name a test and its subject share: ``test_calc.py``, ``calc_test.go``, ``calc.test.ts`` → ``calc``."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0].removeprefix("test_").removesuffix("_test").removesuffix("_spec")


def score(changed: str, named: set[str]) -> int:
    """How close one changed file comes to what a failure ``named`` (the 0-3 scale above)."""
    if changed in named:
        return SAME_FILE
    best = 0
    for other in named:
        if _folder(changed) and _folder(changed) == _folder(other):
            best = max(best, 2)
        elif subject_stem(changed) and subject_stem(changed) == subject_stem(other):
            best = max(best, 1)
    return best


def closeness(files: Iterable[str], named: set[str]) -> int:
    """How close the nearest of ``files`` (a commit's changes) comes to what a failure ``named``."""
    return max((score(f, named) for f in files), default=0)


def is_test_file(path: str) -> bool:
    """True for a test's own file: ``test_*``, ``*_test``, ``*_spec``, ``*.test.*``, or under a tests folder."""
    parts = path.strip("/").split("/")
    name = parts[-1]
    stem = name.split(".", 1)[0]
    return (
        stem.startswith("test_")
        or stem.endswith(("_test", "_spec"))
        or ".test." in name
        or ".spec." in name
        or any(p in ("tests", "test", "__tests__", "spec") for p in parts[:-1])
    )


def code_under_test(test_file: str, frames: Sequence[str], candidates: Iterable[str]) -> str | None:
    """The code a failing test exercises: its first stack frame outside the tests, else one of ``candidates``
    (the files a change touched) that it tests by name (``src/app/core.py`` for ``tests/test_core.py``)."""
    for frame in frames:
        if not is_test_file(frame):
            return frame
    stem = subject_stem(test_file)
    return next((c for c in sorted(set(candidates)) if not is_test_file(c) and subject_stem(c) == stem), None)
