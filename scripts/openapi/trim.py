"""Produce the trimmed copy of GitHub's OpenAPI description that the sandbox serves and is checked against.

Usage: python scripts/openapi/trim.py [--source FILE] [--out FILE]

Without ``--source`` the pinned ``@octokit/openapi`` package is fetched with ``npm pack`` into a temporary
directory (the full package is ~385 MB unpacked, so only ``generated/api.github.com.json`` is extracted).
The output keeps only the operations listed in ``OPERATIONS`` and the components they reach, so every
``$ref`` in it resolves inside the file itself. Examples are dropped: they are not all schema-valid and
the sandbox builds its responses from the schemas instead.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
MEMBER = "package/generated/api.github.com.json"
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "src/gauntlet/sandbox/openapi/api.github.com.trimmed.json"

# The operations the sandbox serves, as "METHOD /path-template" exactly as the description spells them.
OPERATIONS: tuple[str, ...] = (
    "GET /user",
    "GET /users/{username}",
    "GET /rate_limit",
    "POST /user/repos",
    "GET /orgs/{org}",
    "POST /orgs/{org}/repos",
    "GET /repos/{owner}/{repo}",
    "GET /repos/{owner}/{repo}/branches",
    "GET /repos/{owner}/{repo}/branches/{branch}",
    "GET /repos/{owner}/{repo}/rules/branches/{branch}",
    "POST /repos/{owner}/{repo}/git/blobs",
    "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
    "POST /repos/{owner}/{repo}/git/trees",
    "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
    "POST /repos/{owner}/{repo}/git/commits",
    "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
    "GET /repos/{owner}/{repo}/git/ref/{ref}",
    "GET /repos/{owner}/{repo}/git/matching-refs/{ref}",
    "POST /repos/{owner}/{repo}/git/refs",
    "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
    "DELETE /repos/{owner}/{repo}/git/refs/{ref}",
    "GET /repos/{owner}/{repo}/contents/{path}",
    "PUT /repos/{owner}/{repo}/contents/{path}",
    "DELETE /repos/{owner}/{repo}/contents/{path}",
    "GET /repos/{owner}/{repo}/commits",
    "GET /repos/{owner}/{repo}/commits/{ref}",
    "GET /repos/{owner}/{repo}/compare/{basehead}",
    "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls",
    "GET /repos/{owner}/{repo}/issues",
    "POST /repos/{owner}/{repo}/issues",
    "GET /repos/{owner}/{repo}/issues/{issue_number}",
    "PATCH /repos/{owner}/{repo}/issues/{issue_number}",
    "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
    "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
    "GET /repos/{owner}/{repo}/issues/comments/{comment_id}",
    "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
    "DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}",
    "GET /repos/{owner}/{repo}/labels",
    "POST /repos/{owner}/{repo}/labels",
    "GET /repos/{owner}/{repo}/labels/{name}",
    "GET /repos/{owner}/{repo}/issues/{issue_number}/labels",
    "POST /repos/{owner}/{repo}/issues/{issue_number}/labels",
    "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
    "POST /repos/{owner}/{repo}/issues/{issue_number}/assignees",
    "GET /repos/{owner}/{repo}/issues/{issue_number}/reactions",
    "POST /repos/{owner}/{repo}/issues/{issue_number}/reactions",
    "GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
    "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
    "GET /repos/{owner}/{repo}/pulls",
    "POST /repos/{owner}/{repo}/pulls",
    "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/commits",
    "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers",
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers",
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments",
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
    "GET /repos/{owner}/{repo}/pulls/comments/{comment_id}",
    "PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}",
    "DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id}",
    "PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals",
    "POST /repos/{owner}/{repo}/check-runs",
    "GET /repos/{owner}/{repo}/check-runs/{check_run_id}",
    "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
    "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
    "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    "POST /repos/{owner}/{repo}/statuses/{sha}",
    "GET /repos/{owner}/{repo}/commits/{ref}/statuses",
    "GET /repos/{owner}/{repo}/commits/{ref}/status",
    "GET /repos/{owner}/{repo}/actions/runs",
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}",
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
    "GET /repos/{owner}/{repo}/actions/jobs/{job_id}",
    "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
    "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
    "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
    "PUT /repos/{owner}/{repo}/collaborators/{username}",
    "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
)

# Where the description is known to disagree with what GitHub sends: (schema, property) -> the fix.
# An outdated review comment has "position": null and "line": null (its line left the diff), though the description
# types both as plain integers: https://github.com/github/rest-api-description/issues/1901 (and #5568).
CORRECTIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("pull-request-review-comment", "position"): {"nullable": True},
    ("pull-request-review-comment", "line"): {"nullable": True},
}

# Keys that only document: dropping them keeps the file small and avoids invalid examples.
_DROP = ("examples", "example", "x-github", "externalDocs", "tags", "description", "summary", "x-stackQL-resource")


def fetch_description(workdir: Path) -> Path:
    """Fetch the pinned package with npm and extract the REST description.

    :param workdir: a scratch directory.
    :returns: the path of ``api.github.com.json``.
    """
    subprocess.run(
        ["npm", "pack", f"{PACKAGE}@{VERSION}", "--silent", "--pack-destination", str(workdir)],
        check=True,
        cwd=workdir,
    )
    tarball = next(workdir.glob("*.tgz"))
    with tarfile.open(tarball) as archive:
        archive.extract(MEMBER, workdir, filter="data")
    return workdir / MEMBER


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        # "properties" maps names to schemas: a property may be called "description" or "example".
        return {k: _strip(v) for k, v in node.items() if k not in _DROP or _is_schema_map_key(node, k)}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _is_schema_map_key(node: dict[str, Any], key: str) -> bool:
    # Inside "properties" a key is a property name, and a property's schema is a dict with a type or $ref.
    value = node.get(key)
    return isinstance(value, dict) and ("type" in value or "$ref" in value or "allOf" in value or "anyOf" in value)


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.add(ref)
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def trim(description: dict[str, Any]) -> dict[str, Any]:
    """Keep the served operations and every component they reach.

    :param description: the full OpenAPI description.
    :returns: a standalone description.
    :raises KeyError: when an operation in ``OPERATIONS`` is not in the description.
    """
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        method, template = operation.split(" ", 1)
        item = description["paths"][template]
        paths.setdefault(template, {})[method.lower()] = _strip(item[method.lower()])
    components: dict[str, dict[str, Any]] = {}
    pending: set[str] = set()
    _refs(paths, pending)
    done: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in done:
            continue
        done.add(ref)
        _, _, kind, name = ref.split("/", 3)
        node = _strip(description["components"][kind][name])
        components.setdefault(kind, {})[name] = node
        _refs(node, pending)
    for (schema, prop), fix in CORRECTIONS.items():
        if schema in components.get("schemas", {}):  # only where a served operation reaches it
            components["schemas"][schema]["properties"][prop].update(fix)
    # Sorted, so that the same inputs give the same bytes (the pending set has no order).
    components = {kind: dict(sorted(named.items())) for kind, named in sorted(components.items())}
    return {
        "openapi": description["openapi"],
        "info": {"title": description["info"]["title"], "version": description["info"]["version"]},
        "x-source": f"{PACKAGE}@{VERSION} {MEMBER}, trimmed by scripts/openapi/trim.py",
        "paths": paths,
        "components": components,
    }


def main(argv: list[str]) -> int:
    """Write the trimmed description; returns an exit code."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", type=Path, help="an api.github.com.json already on disk")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        source = args.source or fetch_description(Path(scratch))
        description = json.loads(source.read_text(encoding="utf-8"))
    trimmed = trim(description)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(trimmed, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(trimmed['paths'])} paths, {args.out.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
