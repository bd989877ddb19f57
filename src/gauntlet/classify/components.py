"""Components: which part of the repository a finding belongs to (``components`` in the configuration).

Self-healing groups recurring defects by (component, defect type), and reports
show the component; both call :func:`component_of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gauntlet.classify.globs import glob_matches

__all__ = ["UNASSIGNED", "component_of"]

#: The component of a finding with no path or a path no glob matches.
UNASSIGNED = "other"


def component_of(path: str | None, components: Mapping[str, Sequence[str]]) -> str:
    """Return the name of the first component (in configuration order) with a glob matching ``path``.

    :param path: a repository-relative path, or ``None``.
    :param components: component name → path globs (``Config.components``).
    :returns: the component name, or :data:`UNASSIGNED`.
    """
    if path:
        for name, globs in components.items():
            if any(glob_matches(glob, path) for glob in globs):
                return name
    return UNASSIGNED
