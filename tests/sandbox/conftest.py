"""Fixtures for the sandbox tests: a running sandbox whose every JSON response is checked against GitHub's
OpenAPI description, and PyGithub / githubkit clients pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import github
import pytest
from contract_coverage import uncovered
from githubkit import GitHub

from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.contract import ContractRecorder

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"

# Every (method, template, status) validated during the session, for the coverage check at its end.
SEEN: set[tuple[str, str, int]] = set()


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    """A sandbox on a free port; the test fails if any response broke the contract."""
    recorder = ContractRecorder()
    with Sandbox.start() as running:
        running.observe(recorder)
        yield running
    SEEN.update(recorder.seen)
    assert not running.app.crashes, "sandbox handler crashed:\n" + "\n".join(running.app.crashes)
    problems = [f"{m.method} {m.template} -> {m.status}: {'; '.join(m.errors[:5])}" for m in recorder.mismatches]
    assert not problems, "responses that break GitHub's OpenAPI description:\n" + "\n".join(problems)


@pytest.fixture
def repo_name(sandbox: Sandbox) -> str:
    """``octo/app`` with a few files; ``github-actions[bot]`` may write to it."""
    sandbox.create_repo(
        REPO,
        {"README.md": "# app\n", "src/app.py": "def main():\n    return 1\n", "src/util.py": "X = 1\n"},
    )
    sandbox.set_permission(REPO, BOT, "write")
    return REPO


@pytest.fixture
def client(sandbox: Sandbox) -> Callable[..., github.Github]:
    """``client(token="octo")``: a PyGithub client for that login."""

    def make(token: str = OWNER) -> github.Github:
        return sandbox.pygithub(token)

    return make


@pytest.fixture
def gh(sandbox: Sandbox) -> Iterator[github.Github]:
    """PyGithub as the repository owner."""
    g = sandbox.pygithub(OWNER)
    yield g
    g.close()


@pytest.fixture
def kit(sandbox: Sandbox) -> Iterator[GitHub[Any]]:
    """githubkit (API version 2022-11-28 models) as the repository owner, on one persistent HTTP client."""
    with GitHub(OWNER, base_url=sandbox.url, http_cache=False, auto_retry=False) as g:
        yield g


# --- Contract coverage: every served operation validated at least once --------------------------------------
#
# Checked when the session ends, whatever the order the tests ran in, and only when every sandbox test ran
# (a -k selection or a single file cannot prove coverage: the summary says so instead of passing quietly).
# Under pytest-xdist each worker sends what it validated to the controller, which checks the union.

SANDBOX_TESTS = Path(__file__).parent
_items: set[str] = set()
_ran: set[str] = set()
_deselected: list[str] = []
_files: set[Path] = set()


def _ours(path: Path) -> bool:
    return path.parent == SANDBOX_TESTS


def pytest_deselected(items: list[pytest.Item]) -> None:
    _deselected.extend(item.nodeid for item in items if _ours(item.path))


def pytest_itemcollected(item: pytest.Item) -> None:
    if _ours(item.path):
        _files.add(item.path)


def pytest_collection_finish(session: pytest.Session) -> None:
    _items.update(item.nodeid for item in session.items if _ours(item.path))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or (report.when == "setup" and report.skipped):
        _ran.add(report.nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: take over what a worker validated."""
    SEEN.update(tuple(entry) for entry in node.workeroutput.get("contract_seen", ()))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller checks
        workeroutput["contract_seen"] = sorted(SEEN)
        return
    if not _items:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    every_file = set(SANDBOX_TESTS.glob("test_*.py"))
    if _deselected or _files != every_file or _ran != _items:
        if reporter is not None:
            reporter.write("\n")  # after the progress line
            reporter.write_line(
                f"sandbox contract coverage not checked: {len(_ran & _items)} of the sandbox tests ran "
                f"({len(_deselected)} deselected, {len(every_file - _files)} files not collected)"
            )
        return
    missing = uncovered(SEEN)
    if missing:
        if reporter is not None:
            reporter.write("\n")  # after the progress line
            reporter.write_line("served operations no sandbox test validated:", red=True)
            for method, template in missing:
                reporter.write_line(f"  {method} {template}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
