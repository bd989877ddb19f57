"""``Sandbox``: start a local GitHub in-process (tests, the demo) or from ``gauntlet sandbox serve``.

    with Sandbox.start() as sandbox:
        sandbox.create_repo("octo/app", {"app.py": "print(1)\\n"})
        sandbox.set_permission("octo/app", "github-actions[bot]", "write")
        gh = github.Github(base_url=sandbox.url, auth=github.Auth.Token("github-actions[bot]"))

The token text is the login (``login:session`` is another token of ``login``, with ETags of its own, as each
Actions job's ``GITHUB_TOKEN`` is). Code lives in real bare repositories under ``data_dir`` (a temporary folder
unless given); everything else is in memory.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import github

from gauntlet.sandbox import seed
from gauntlet.sandbox.app import App, Observer
from gauntlet.sandbox.control import control_router
from gauntlet.sandbox.faults import KINDS, Faults, FaultSettings
from gauntlet.sandbox.graph.endpoint import answer
from gauntlet.sandbox.requestlog import RequestLog
from gauntlet.sandbox.routes import router
from gauntlet.sandbox.seed import JobSeed, RunSeed
from gauntlet.sandbox.server import SandboxHTTPServer
from gauntlet.sandbox.store import Repo, Store, WorkflowRun


class Sandbox:
    """A running sandbox server."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        data_dir: Path | None = None,
        latency_ms: int = 0,
        fault_rate: float = 0.0,
        seed: int = 0,
    ) -> None:
        self._owned_dir = data_dir is None
        self.data_dir = Path(tempfile.mkdtemp(prefix="gauntlet-sandbox-")) if data_dir is None else data_dir
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.store = Store(self.data_dir)
        self.store.load_existing()
        self.log = RequestLog()
        self.faults = Faults(FaultSettings(rate=fault_rate, seed=seed, latency_ms=latency_ms))
        self.app = App(self.store, router(), graphql=answer)
        self._server = SandboxHTTPServer(
            (host, port), self.app, control_router(self.log, self.faults), self.log, self.faults
        )
        self._thread: threading.Thread | None = None

    @classmethod
    def start(cls, **options: Any) -> Sandbox:
        """Create a sandbox and serve it from a background thread (``port=0`` picks a free port)."""
        sandbox = cls(**options)
        sandbox.serve_in_thread()
        return sandbox

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:43121`` (PyGithub's ``base_url``)."""
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}"

    def serve_in_thread(self) -> None:
        """Serve from a daemon thread."""
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="gauntlet-sandbox", daemon=True
        )
        self._thread.start()

    def serve_forever(self) -> None:
        """Serve on the calling thread until ``stop`` (from another thread or a signal handler)."""
        self._server.serve_forever(poll_interval=0.05)

    def stop(self) -> None:
        """Stop serving, close the socket and remove the data folder if the sandbox made it."""
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._owned_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    # seeding -------------------------------------------------------------------------------------------------

    def create_repo(
        self,
        full_name: str,
        files: Mapping[str, str | bytes] | None = None,
        *,
        private: bool = False,
        default_branch: str = "main",
        message: str = "Initial commit",
    ) -> Repo:
        """Create ``owner/name`` with one commit holding ``files`` (the owner is admin)."""
        return seed.create_repo(
            self.store, full_name, files, private=private, default_branch=default_branch, message=message
        )

    def commit(
        self,
        full_name: str,
        files: Mapping[str, str | bytes | None],
        message: str = "Change",
        *,
        branch: str | None = None,
        author: str | None = None,
    ) -> str:
        """Commit file changes (``None`` deletes) on a branch (created when missing); returns the sha."""
        return seed.commit(self.store, full_name, files, message, branch=branch, author=author)

    def head(self, full_name: str, branch: str | None = None) -> str | None:
        """The sha a branch (default branch) points at."""
        repo = seed.need_repo(self.store, full_name)
        return repo.git.ref(f"refs/heads/{branch or repo.default_branch}")

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        """Give ``login`` ``read|triage|write|maintain|admin`` on the repository (``none`` removes it)."""
        seed.set_permission(self.store, full_name, login, permission)

    def set_rules(self, full_name: str, branch: str, rules: Sequence[Mapping[str, Any]]) -> None:
        """Make ``rules`` (REST's ``{type, parameters}``) the active ruleset rules of ``branch``."""
        seed.set_rules(self.store, full_name, branch, rules)

    def seed_run(
        self,
        full_name: str,
        *,
        jobs: Sequence[JobSeed],
        name: str = "CI",
        head_branch: str | None = None,
        head_sha: str | None = None,
        event: str = "push",
        artifacts: Mapping[str, Mapping[str, bytes]] | None = None,
        pull_numbers: Sequence[int] = (),
    ) -> WorkflowRun:
        """Add a completed (or, with a ``None`` job conclusion, running) workflow run."""
        run = RunSeed(
            name=name,
            head_branch=head_branch,
            head_sha=head_sha,
            event=event,
            jobs=tuple(jobs),
            artifacts=dict(artifacts or {}),
            pull_numbers=tuple(pull_numbers),
        )
        return seed.seed_run(self.store, full_name, run)

    def finish_jobs(self, full_name: str, run_id: int, outcomes: Mapping[str, tuple[str, str]]) -> WorkflowRun:
        """Complete jobs of a run's latest attempt (after a re-run): ``name -> (conclusion, log)``."""
        return seed.finish_jobs(self.store, full_name, run_id, outcomes)

    def git_url(self, full_name: str, token: str | None = None) -> str:
        """The clone URL; with ``token`` it carries credentials (``x-access-token:TOKEN``) as in Actions."""
        if token is None:
            return f"{self.url}/{full_name}.git"
        host_port = self.url.removeprefix("http://")
        from urllib.parse import quote

        return f"http://x-access-token:{quote(token, safe='')}@{host_port}/{full_name}.git"

    def pygithub(self, login: str, *, per_page: int = 100) -> github.Github:
        """PyGithub authenticated as ``login`` (the token is the login), without retries or request spacing.

        The sandbox is local: spacing only slows tests, and a retry would hide the fault a test injected.
        """
        return github.Github(
            base_url=self.url,
            auth=github.Auth.Token(login),
            retry=None,
            per_page=per_page,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )

    # observing -----------------------------------------------------------------------------------------------

    def requests(self) -> list[dict[str, Any]]:
        """The request log (``GET /_sandbox/requests``)."""
        return self.log.entries()

    def clear_requests(self) -> None:
        """Reset the request log."""
        self.log.clear()

    def set_faults(
        self,
        rate: float,
        *,
        seed: int = 0,
        latency_ms: int = 0,
        kinds: Sequence[str] = KINDS,
        retry_after: int = 1,
        paths: Sequence[str] = (),
    ) -> None:
        """Inject faults into API calls (REST and ``POST /graphql``) from now on (``rate=0`` turns them off)."""
        self.faults.configure(
            FaultSettings(
                rate=rate,
                seed=seed,
                latency_ms=latency_ms,
                kinds=tuple(kinds),
                retry_after=retry_after,
                paths=tuple(paths),
            )
        )

    def observe(self, observer: Observer) -> None:
        """Call ``observer(method, template, status, body)`` for every JSON response (contract tests)."""
        self.app.observers.append(observer)
