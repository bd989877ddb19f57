"""Labels Gauntlet puts on what it files, created before use (DESIGN §5).

Creating an issue with a label that does not exist makes GitHub invent it with a grey colour and no
description; Gauntlet creates its labels first so they are recognisable and documented.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from gauntlet.github.client import Rejected
from gauntlet.github.listing import paged

if TYPE_CHECKING:
    from gauntlet.github.backend import Hub

__all__ = ["BOT_LABEL", "LABELS", "ensure_labels", "issue_labels", "severity_label"]

#: Every issue Gauntlet files carries this label; issues are found again by listing it.
BOT_LABEL = "gauntlet"

#: Name → (colour, description) of the labels Gauntlet uses.
LABELS: dict[str, tuple[str, str]] = {
    BOT_LABEL: ("5319e7", "Filed by Gauntlet"),
    "accepted-risk": ("fbca04", "A finding accepted as a risk with /gauntlet accept-risk"),
    "needs-human": ("d93f0b", "Gauntlet cannot resolve this on its own"),
    "flaky": ("c5def5", "A test that fails and passes without a change (docs/recovery.md)"),
    "severity:critical": ("b60205", "Gauntlet severity: critical"),
    "severity:major": ("d93f0b", "Gauntlet severity: major"),
    "severity:minor": ("fbca04", "Gauntlet severity: minor"),
    "severity:nitpick": ("c2e0c6", "Gauntlet severity: nitpick"),
}

_KIND_LABEL = {"risk": "accepted-risk", "needs-human": "needs-human", "flaky": "flaky"}


def severity_label(severity: str) -> str:
    """The label for a severity (``severity:<x>``)."""
    return f"severity:{severity.strip().lower()}"


def issue_labels(kind: str, severity: str | None, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The labels of an issue of ``kind``: ``gauntlet``, the kind's label, the severity's and ``extra``, once each."""
    names = [BOT_LABEL, _KIND_LABEL[kind]]
    if severity:
        names.append(severity_label(severity))
    # A bare severity name among the extras ("critical") means the severity label, not a label of its own.
    names.extend(severity_label(name) if f"severity:{name.lower()}" in LABELS else name for name in extra)
    return tuple(dict.fromkeys(names))


def ensure_labels(hub: Hub, names: Iterable[str]) -> list[str]:
    """Create whichever of ``names`` the repository lacks; return the ones created.

    One listing call, then one call per missing label. A label created meanwhile by a concurrent run
    (422 ``already_exists``) counts as present.
    """
    path = f"/repos/{hub.repo.full_name}/labels"
    have = {str(label["name"]).lower() for label in paged(hub, path)}
    created: list[str] = []
    for name in dict.fromkeys(names):
        if name.lower() in have:
            continue
        colour, description = LABELS.get(name, ("ededed", "Used by Gauntlet"))
        try:
            hub.client.request("POST", path, body={"name": name, "color": colour, "description": description})
        except Rejected:
            continue  # created meanwhile by a concurrent run
        created.append(name)
    return created
