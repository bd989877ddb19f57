"""Fetching what a CI run left behind: the logs of its failed jobs and its findings artifacts.

``list_jobs`` lists the run's jobs (on ``workflow_run`` they name what the run is keyed by);
``download_failed_logs`` downloads the log of each failed one;
``download_artifacts`` fetches the artifacts whose names match (the two-workflow
pattern: a fork PR's CI uploads findings, a ``workflow_run`` with a writing
token reports them). Both endpoints answer with a 302 to a short-lived URL on
another host, fetched without the token. Everything is bounded: bytes per job,
artifacts, files and bytes per archive; archive member names cannot leave the
target folder.
See https://docs.github.com/rest/actions/workflow-jobs#download-job-logs-for-a-workflow-run
"""

from __future__ import annotations

import fnmatch
import io
import re
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from gauntlet.github.client import GitHubClient

__all__ = [
    "MAX_ARTIFACT_BYTES",
    "MAX_JOBS",
    "MAX_LOG_BYTES",
    "download_artifacts",
    "download_failed_logs",
    "job_names",
    "list_jobs",
]

#: The tail of a job log is kept: failures are reported at the end.
MAX_LOG_BYTES = 8 * 1024 * 1024
MAX_JOBS = 20
MAX_ARTIFACTS = 10
MAX_ARTIFACT_BYTES = 32 * 1024 * 1024
MAX_MEMBERS = 200
MAX_MEMBER_BYTES = 16 * 1024 * 1024

_FAILED = ("failure", "timed_out", "startup_failure")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(name: str) -> str:
    return _UNSAFE.sub("-", name).strip("-.")[:80] or "job"


def list_jobs(client: GitHubClient, repository: str, run_id: int) -> list[dict[str, Any]]:
    """The jobs of run ``run_id``'s latest attempt, as GitHub lists them (the first 100; a job without an
    ``id`` is left out).

    :raises GitHubUnavailable: GitHub kept failing.
    """
    path = f"/repos/{repository}/actions/runs/{run_id}/jobs"
    listing = client.request("GET", path, params={"per_page": 100, "filter": "latest"})
    jobs = listing.get("jobs") if isinstance(listing, dict) else None
    return [job for job in jobs or [] if isinstance(job, dict) and isinstance(job.get("id"), int)]


def job_names(jobs: list[dict[str, Any]]) -> list[str]:
    """The jobs' names (a job without one is named by its id)."""
    return [str(job.get("name") or job["id"]) for job in jobs]


def download_failed_logs(
    client: GitHubClient, repository: str, jobs: list[dict[str, Any]], folder: Path
) -> list[tuple[str, Path]]:
    """Download the logs of the failed ones of ``jobs`` (:func:`list_jobs`) into ``folder``.

    :returns: each failed job's name and the file its log was written to (at most :data:`MAX_JOBS`).
    :raises GitHubUnavailable: GitHub kept failing.
    """
    api = f"/repos/{repository}/actions"
    failed = [job for job in jobs if job.get("conclusion") in _FAILED][:MAX_JOBS]
    folder.mkdir(parents=True, exist_ok=True)
    written: list[tuple[str, Path]] = []
    for job in failed:
        location = client.location(f"{api}/jobs/{int(job['id'])}/logs")
        data, _ = client.download(location, MAX_LOG_BYTES)
        name = str(job.get("name") or job["id"])
        path = folder / f"{_safe(name)}-{int(job['id'])}.log"
        path.write_bytes(data)
        written.append((name, path))
    return written


def download_artifacts(
    client: GitHubClient, repository: str, run_id: int, patterns: tuple[str, ...], folder: Path
) -> list[Path]:
    """Download and unpack the run's artifacts whose names match ``patterns`` into ``folder/<artifact>/``.

    :returns: the files unpacked.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    api = f"/repos/{repository}/actions"
    listing = client.request("GET", f"{api}/runs/{run_id}/artifacts", params={"per_page": 100})
    chosen = [
        item
        for item in listing.get("artifacts", [])
        if not item.get("expired") and any(fnmatch.fnmatchcase(str(item.get("name")), p) for p in patterns)
    ][:MAX_ARTIFACTS]
    written: list[Path] = []
    for item in chosen:
        location = client.location(f"{api}/artifacts/{int(item['id'])}/zip")
        data, cut = client.download(location, MAX_ARTIFACT_BYTES)
        if cut:
            continue  # a truncated archive cannot be read; its findings are skipped, not guessed
        written += _unpack(data, folder / _safe(str(item.get("name"))))
    return written


def _unpack(data: bytes, target: Path) -> list[Path]:
    """Unpack regular files of a zip archive, bounded, flattened to safe relative paths."""
    written = []
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return []
    with archive:
        for info in archive.infolist()[:MAX_MEMBERS]:
            if info.is_dir() or info.file_size > MAX_MEMBER_BYTES:
                continue
            parts = [_safe(p) for p in PurePosixPath(info.filename).parts if p not in ("", ".", "..", "/")]
            if not parts:
                continue
            path = target.joinpath(*parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as member:
                path.write_bytes(member.read(MAX_MEMBER_BYTES + 1)[:MAX_MEMBER_BYTES])
            written.append(path)
    return written
