"""Whether Gauntlet's check can ever report on ``merge_group``, told from the workflow files in the checkout.

A merge queue waits for every required check on the group's commit. When the Gauntlet check is required and no
workflow that would report it runs on ``merge_group``, the queue waits until its timeout and drops the PR: the most
common way queues stall (issue 29). Which workflow needs the trigger depends on the setup (docs/topology.md):

- Gauntlet's own workflow (``GITHUB_WORKFLOW_REF``, ``owner/repo/.github/workflows/x.yml@ref``) when it has it;
- when that workflow runs on ``workflow_run`` (the recommended deployment, ``examples/workflows/gauntlet.yml``):
  the CI workflows named in ``on.workflow_run.workflows``, one of which must run on ``merge_group`` (its completed
  run starts Gauntlet, which reports the check on the group's commit);
- otherwise (a step of the CI job, ``examples/workflows/pull-request.yml``): its own workflow.

The recommended deployment checks nothing out: there the completed CI run's workflow (``workflow_run.path``) is
read on the default branch in the start query, with the rules (:class:`QueueCheck`). Only the files decide;
anything that cannot be told (no workflow ref, a file outside the workspace or missing from
it, a file that is not YAML or is larger than :data:`MAX_BYTES`, a named workflow not found) gives nothing, never
a warning on a guess. Whether the queue and the required check exist is GitHub's to say (``github/branch_rules.py``):
:func:`queue_warning` joins the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from gauntlet.github.branch_rules import BranchRules

__all__ = ["MAX_BYTES", "QueueCheck", "QueueGap", "find_gap", "plan_check", "queue_warning", "triggers"]

TRIGGER = "merge_group"
WORKFLOWS = ".github/workflows"
#: A workflow file larger than this is not read (GitHub's own are a few KiB; YAML parsing is not free).
MAX_BYTES = 256 * 1024
#: At most this many files of the workflows folder are read when looking for the workflows ``workflow_run`` names.
MAX_FILES = 100


@dataclass(frozen=True)
class QueueGap:
    """The workflow that must run on ``merge_group`` for Gauntlet's check to report there, and does not.

    :param path: its repository-relative path (``.github/workflows/ci.yml``).
    :param name: its name (``on.workflow_run.workflows`` names it), when Gauntlet runs from ``workflow_run``.
    """

    path: str
    name: str | None = None

    @property
    def fix(self) -> str:
        """The one-line fix."""
        return f"add `{TRIGGER}:` under `on:` in {self.path}"


def triggers(document: Any) -> frozenset[str]:
    """The events a parsed workflow runs on: ``on:`` as a string, a list or a mapping.

    PyYAML reads the key ``on`` as the boolean ``True`` (YAML 1.1), so both keys are looked at.
    """
    if not isinstance(document, dict):
        return frozenset()
    on = document.get("on", document.get(True))
    if isinstance(on, str):
        return frozenset({on})
    if isinstance(on, list):
        return frozenset(item for item in on if isinstance(item, str))
    if isinstance(on, dict):
        return frozenset(key for key in on if isinstance(key, str))
    return frozenset()


def _watched(document: dict[Any, Any]) -> tuple[str, ...]:
    """The workflow names of ``on.workflow_run.workflows`` (a list, or one name)."""
    on = document.get("on", document.get(True))
    run = on.get("workflow_run") if isinstance(on, dict) else None
    names = run.get("workflows") if isinstance(run, dict) else None
    if isinstance(names, str):
        return (names,)
    return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()


def _load(workspace: Path, relative: str) -> dict[Any, Any] | None:
    """The workflow at ``relative`` parsed, or ``None`` (absent, outside the workspace, too large, not YAML)."""
    root = workspace.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file() or path.stat().st_size > MAX_BYTES:
        return None
    return _parse(path.read_bytes())


def _parse(data: bytes) -> dict[Any, Any] | None:
    """A workflow file parsed, or ``None`` (too large, not UTF-8, not YAML, not a mapping)."""
    if len(data) > MAX_BYTES:
        return None
    try:
        document = yaml.safe_load(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):  # GitHub would refuse such a workflow too
        return None
    return document if isinstance(document, dict) else None


def _workflow_path(text: str) -> str | None:
    """``text`` when it is a workflow file's repository-relative path, else ``None``."""
    parts = PurePosixPath(text).parts
    ok = text.startswith(f"{WORKFLOWS}/") and ".." not in parts and text.endswith((".yml", ".yaml"))
    return text if ok else None


def _own_path(workflow_ref: str) -> str | None:
    """``.github/workflows/x.yml`` from ``owner/repo/.github/workflows/x.yml@refs/heads/main``."""
    path = workflow_ref.rpartition("@")[0] if "@" in workflow_ref else workflow_ref
    return _workflow_path("/".join(PurePosixPath(path).parts[2:]))


def _named(workspace: Path, names: tuple[str, ...]) -> list[tuple[str, dict[Any, Any]]] | None:
    """The workflows of the folder whose name is one of ``names``, each with its path; ``None`` when one of the
    names matches no file (it cannot be told)."""
    folder = workspace / WORKFLOWS
    if not folder.is_dir():
        return None
    found: list[tuple[str, dict[Any, Any]]] = []
    files = sorted(p.name for p in folder.iterdir() if p.suffix in (".yml", ".yaml"))[:MAX_FILES]
    for file in files:
        relative = f"{WORKFLOWS}/{file}"
        document = _load(workspace, relative)
        # Without a `name:`, GitHub names a workflow by its path.
        name = document.get("name") if document is not None else None
        if document is not None and (name if isinstance(name, str) else relative) in names:
            found.append((relative, document))
    seen = {document.get("name") if isinstance(document.get("name"), str) else path for path, document in found}
    return found if seen >= set(names) else None


@dataclass(frozen=True)
class QueueCheck:
    """What a run knows before it starts about the ``merge_group`` trigger, and what it must ask GitHub.

    :param gap: the workflow of the checkout that lacks the trigger (``None``: none, or it cannot be told).
    :param remote: the CI workflow to read on the default branch instead (in the start query), when Gauntlet runs
        from ``workflow_run`` without a checkout: the completed run's ``workflow_run.path``.
    :param name: that workflow's name (``workflow_run.name``).
    """

    gap: QueueGap | None = None
    remote: str | None = None
    name: str | None = None

    @property
    def asks(self) -> bool:
        """True when the start query should read the default branch's rules (and maybe ``remote``)."""
        return self.gap is not None or self.remote is not None

    def found(self, remote_file: bytes | None) -> QueueGap | None:
        """The gap, with ``remote`` read (its bytes; ``None``: not read)."""
        if self.gap is not None or self.remote is None or remote_file is None:
            return self.gap
        document = _parse(remote_file)
        if document is None or TRIGGER in triggers(document):
            return None
        return QueueGap(path=self.remote, name=self.name)


def plan_check(workspace: Path, workflow_ref: str, payload: Any) -> QueueCheck:
    """What the checkout says, and, for a ``workflow_run`` run without Gauntlet's workflow in its checkout (the
    recommended deployment checks nothing out), the CI workflow to read on GitHub.

    :param payload: the event's payload when it is a ``workflow_run`` event, else ``None``.
    """
    own = _own_path(workflow_ref)
    if own is not None and _load(workspace, own) is not None:
        return QueueCheck(gap=find_gap(workspace, workflow_ref))
    run = payload.get("workflow_run") if isinstance(payload, dict) else None
    path = run.get("path") if isinstance(run, dict) else None
    name = run.get("name") if isinstance(run, dict) else None
    remote = _workflow_path(path) if isinstance(path, str) else None
    return QueueCheck(remote=remote, name=name if isinstance(name, str) and remote is not None else None)


def find_gap(workspace: Path, workflow_ref: str) -> QueueGap | None:
    """The workflow that must have ``merge_group`` for Gauntlet's check to report in the queue, when it lacks it.

    :param workspace: the checkout (``GITHUB_WORKSPACE``).
    :param workflow_ref: ``GITHUB_WORKFLOW_REF``, which names Gauntlet's own workflow file.
    :returns: ``None`` when the trigger is there, or when the files cannot tell.
    """
    own = _own_path(workflow_ref)
    document = _load(workspace, own) if own is not None else None
    if own is None or document is None:
        return None
    events = triggers(document)
    if TRIGGER in events:
        return None
    if "workflow_run" not in events:
        return QueueGap(path=own)
    names = _watched(document)
    watched = _named(workspace, names) if names else None
    if not watched or any(TRIGGER in triggers(found) for _, found in watched):
        return None
    path, found = watched[0]
    name = found.get("name")
    return QueueGap(path=path, name=name if isinstance(name, str) else None)


def queue_warning(gap: QueueGap | None, rules: BranchRules | None, check_name: str, branch: str) -> str | None:
    """The warning for a required Gauntlet check that can never report on ``merge_group``, or ``None``.

    :param gap: what :func:`find_gap` found in the workflow files.
    :param rules: the default branch's rules (``None``: not known, no warning).
    :param check_name: the Gauntlet check's name (input ``check_name``): a required check's context.
    :param branch: the branch the rules are of.
    """
    if gap is None or rules is None or not rules.merge_queue or check_name not in rules.required:
        return None
    via = f"{gap.name} ({gap.path})" if gap.name is not None else gap.path
    started = " (Gauntlet runs when it completes)" if gap.name is not None else ""
    return (
        f"The `{check_name}` check is required on `{branch}`, which has a merge queue, but {via}{started} does "
        f"not run on `{TRIGGER}`: the check can never report on a queued group, and the queue waits until it "
        f"times out. Fix: {gap.fix}."
    )
