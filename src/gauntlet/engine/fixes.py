"""What fixed a failure (DESIGN §3, learning): the files of its fix diff, ranked by what the failure named.

A failure→fix pair's diff is every file changed between the last commit where the
failure was seen and the first where it was gone (:class:`~gauntlet.models.FixDiff`,
one compare call at the edge). Each changed file scores by the one commit↔failure
relation (:mod:`gauntlet.engine.relation`): 3 the same file, 2 the same folder, 1 the
code under test by name, 0 nothing the failure named.

The files are kept best first. A pair whose best file scores 0 is ``low`` confidence:
it is kept, but it teaches no rule and is never shown as what fixed the failure.
"""

from __future__ import annotations

from collections.abc import Sequence

from gauntlet.engine.relation import score

__all__ = ["MAX_FILES", "rank_files"]

#: Files a pair keeps, at most (best first).
MAX_FILES = 20


def rank_files(files: Sequence[str], named: set[str]) -> tuple[list[str], int]:
    """``files`` best first by their overlap with ``named``, and how many of the first ones overlap at all.

    :param files: the fix diff's changed files.
    :param named: what the failure named (:func:`gauntlet.engine.relation.named_by`).
    :returns: at most :data:`MAX_FILES` files, and the count of those that touch what the failure named
        (0: a low-confidence pair).
    """
    scored = sorted((-score(f, named), f) for f in set(files))[:MAX_FILES]
    return [f for _, f in scored], sum(1 for best, _ in scored if best < 0)
