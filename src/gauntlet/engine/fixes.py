"""What fixed a failure (DESIGN §3, learning): the files of its fix diff, ranked by what the failure named.

A failure→fix pair's diff is every file changed between the last commit where the
failure was seen and the first where it was gone (:class:`~gauntlet.models.FixDiff`,
one compare call at the edge). The failure *names* places: its path, its test's file
and the source files of its stack frames. Each changed file scores by how close it
comes to one of them::

    3  the same file
    2  a file in the same folder (not the repository root, where everything is)
    1  the same stem (``calc.py`` for ``tests/test_calc.py``)
    0  nothing the failure named (a README, a changelog, another package)

The files are kept best first. A pair whose best file scores 0 is ``low`` confidence:
it is kept, but it teaches no rule and is never shown as what fixed the failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["MAX_FILES", "SAME_FILE", "closeness", "named_by", "rank_files"]

#: Files a pair keeps, at most (best first).
MAX_FILES = 20

#: The score of a changed file that is one the failure named.
SAME_FILE = 3


def named_by(path: str | None, test_id: str | None, frames: Iterable[str] = ()) -> set[str]:
    """The repository paths a failure names: its path, its test's file and its stack frames."""
    named = {p for p in (path, test_id.split("::", 1)[0] if test_id else None) if p}
    named.update(frames)
    return {p.strip("/") for p in named if p.strip("/")}


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _stem(path: str) -> str:
    """The name a test and its subject share: ``test_calc.py``, ``calc_test.go``, ``calc.test.ts`` → ``calc``."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0].removeprefix("test_").removesuffix("_test").removesuffix("_spec")


def _score(changed: str, named: set[str]) -> int:
    if changed in named:
        return SAME_FILE
    best = 0
    for other in named:
        if _folder(changed) and _folder(changed) == _folder(other):
            best = max(best, 2)
        elif _stem(changed) and _stem(changed) == _stem(other):
            best = max(best, 1)
    return best


def closeness(files: Iterable[str], named: set[str]) -> int:
    """How close the nearest of ``files`` comes to what a failure ``named`` (the 0-3 scale above)."""
    return max((_score(f, named) for f in files), default=0)


def rank_files(files: Sequence[str], named: set[str]) -> tuple[list[str], int]:
    """``files`` best first by their overlap with ``named``, and how many of the first ones overlap at all.

    :param files: the fix diff's changed files.
    :param named: what the failure named (:func:`named_by`).
    :returns: at most :data:`MAX_FILES` files, and the count of those that touch what the failure named
        (0: a low-confidence pair).
    """
    scored = sorted((-_score(f, named), f) for f in set(files))[:MAX_FILES]
    return [f for _, f in scored], sum(1 for score, _ in scored if score < 0)
