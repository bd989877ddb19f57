"""The command line (DESIGN §8).

This is the only module that reads the process environment. Heavy imports
(numpy, PyGithub, Jinja2) happen inside the command that needs them, so
``gauntlet --help`` starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gauntlet import __version__
from gauntlet.errors import GauntletError, InputError

if TYPE_CHECKING:
    from gauntlet.ingest.paths import Checkout
    from gauntlet.known import KnownFailures
    from gauntlet.report import RunReport
    from gauntlet.settings import Settings

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit code (0 done, 1 check failed, 2 bad input, 3 GitHub down)."""
    # Gauntlet uses no pydantic plugin, and looking for them (every installed package's entry points) is a
    # tenth of `gauntlet ingest`'s start-up. Set before pydantic is imported; an explicit value, even empty,
    # keeps plugins on (docs/ci-logs.md, start-up).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args))
    except GauntletError as exc:
        print(f"gauntlet: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `gauntlet ingest --json | head`
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gauntlet",
        description="Classify CI failures and review findings, run the gauntlet loop, keep main green.",
    )
    parser.add_argument("--version", action="version", version=f"gauntlet {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    ingest = commands.add_parser("ingest", help="print the findings in logs and findings files")
    from gauntlet.ingest.formats import FORMATS

    ingest.add_argument("--format", choices=FORMATS, default="auto", help="the format of every PATH (auto: detect)")
    ingest.add_argument("--json", action="store_true", help="one Finding per line")
    ingest.add_argument("--raw", action="store_true", help="as each file says, before classification and merging")
    ingest.add_argument("--config", type=Path, default=Path(".github/gauntlet.yml"), help="configuration file")
    ingest.add_argument(
        "--on-default-branch", action="store_true", help="classify as a run on the default branch would (P0)"
    )
    ingest.add_argument(
        "--repo-root",
        type=Path,
        metavar="DIR",
        help="the repository checkout the logs were made from: of the path:line places a log names, files under"
        " DIR are preferred; DIR's absolute path is stripped from paths, as are runner workspaces"
        " (/home/runner/work/x/x/, /github/workspace/)",
    )
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ingest.set_defaults(handler=_ingest)

    run = commands.add_parser("run", help="run one gauntlet iteration for an event")
    _state_options(run)
    run.add_argument("--event-name", help="GitHub event name (pull_request, push, workflow_run, ...)")
    run.add_argument("--event-path", type=Path, help="the event payload JSON (GITHUB_EVENT_PATH)")
    run.add_argument("--logs", action="append", default=[], metavar="GLOB", help="CI log files (repeatable)")
    run.add_argument("--findings", action="append", default=[], metavar="GLOB", help="findings files (repeatable)")
    run.add_argument("--config", type=Path, default=Path(".github/gauntlet.yml"), help="configuration file")
    run.add_argument(
        "--known-failures",
        type=Path,
        default=None,
        metavar="FILE",
        help="the open known-failure issues, as GET issues?labels=known-failure lists them (JSON)",
    )
    run.add_argument("--dry-run", action="store_true", help="decide and report, change nothing")
    run.add_argument("--json", action="store_true", help="print the run report as JSON")
    run.set_defaults(handler=_run)

    status = commands.add_parser("status", help="summarise the stored state")
    _state_options(status)
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status)

    scan = commands.add_parser("scan", help="self-healing scan: proposals, verification, compaction")
    _state_options(scan)
    scan.add_argument("--config", type=Path, default=Path(".github/gauntlet.yml"), help="configuration file")
    scan.add_argument("--repository", default="local/repository", help="owner/name, for the bodies")
    scan.add_argument("--default-branch", default="main", help="the branch proposal PRs target")
    scan.add_argument("--dry-run", action="store_true", help="decide and report, change nothing")
    scan.add_argument("--json", action="store_true", help="print the scan report (proposals) as JSON")
    scan.set_defaults(handler=_scan)

    report = commands.add_parser("report", help="write a static dashboard of the state")
    _state_options(report)
    report.add_argument("--html", type=Path, required=True, metavar="DIR", help="write the site into DIR")
    report.add_argument("--default-branch", default="main", help="the branch the dashboard shows first")
    report.add_argument("--repository-url", type=_web_url, default=None, help="link PRs, issues and commits here")
    report.add_argument("--summary", type=Path, default=None, help="append a short trend (Markdown) to this file")
    report.add_argument("--site-url", type=_web_url, default=None, help="where the site is published (summary)")
    report.set_defaults(handler=_report)

    demo = commands.add_parser("demo", help="play a whole story on built-in inputs (no token, no network)")
    demo.add_argument("--out", type=Path, default=None, help="keep the demo's state and bodies in this folder")
    demo.set_defaults(handler=_demo)

    sandbox = commands.add_parser("sandbox", help="a local GitHub stand-in for tests and the demo", add_help=False)
    sandbox.add_argument("sandbox_args", nargs=argparse.REMAINDER)
    sandbox.set_defaults(handler=_sandbox)

    return parser


def _state_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", type=Path, default=Path(".gauntlet"), help="local state folder")
    parser.add_argument("--state-branch", default=None, help="state branch (in GitHub Actions)")
    parser.add_argument("--now", type=_timestamp, default=None, help="fix the clock (ISO 8601)")


def _local_state(args: argparse.Namespace) -> Path:
    """The state folder of a command-line run; the state branch is reached only from inside GitHub Actions."""
    if args.state_branch:
        from gauntlet.errors import ConfigError

        raise ConfigError(
            "--state-branch needs GitHub: inside GitHub Actions set the action's state_branch input; "
            "on the command line keep state in --state-dir"
        )
    return Path(args.state_dir)


def _timestamp(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from exc
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _run(args: argparse.Namespace) -> int:
    from gauntlet.settings import Settings

    # Inside GitHub Actions (the Docker action runs `gauntlet run` bare) everything comes from INPUT_* and
    # GITHUB_*; a workflow step that passes its own files or event keeps the command-line behaviour.
    explicit = args.event_name or args.event_path or args.logs or args.findings
    if os.environ.get("GITHUB_ACTIONS") == "true" and not explicit:
        return _run_action(args)

    settings = Settings(
        event_name=args.event_name,
        event_path=args.event_path,
        logs=tuple(args.logs),
        findings=tuple(args.findings),
        config=args.config,
        state_dir=_local_state(args),
        dry_run=args.dry_run,
        now=args.now,
    )
    return _run_local(settings, as_json=args.json, known_failures=args.known_failures)


def _run_action(args: argparse.Namespace) -> int:
    import time

    from gauntlet.action.entry import run_action
    from gauntlet.pipeline import Clock

    clock = Clock(now=args.now or datetime.now(UTC), sleep=time.sleep, monotonic=time.monotonic)
    return run_action(os.environ, clock, sys.stdout)


def _run_local(settings: Settings, *, as_json: bool, known_failures: Path | None = None) -> int:
    """A run on the command line: routed by the same table as the Action, on a local state folder.

    :param known_failures: a JSON file of the open known-failure issues (docs/known-failures.md), as the Action
        reads them from GitHub: the rules the run matches its failures against.
    :raises InputError: the file cannot be read as a list of issues.
    """
    import time

    from gauntlet.config import load_config
    from gauntlet.effects.base import Backend
    from gauntlet.effects.dryrun import DryRunBackend
    from gauntlet.effects.local import LocalBackend
    from gauntlet.observe.observation import observe
    from gauntlet.observe.payload import read_delivery
    from gauntlet.observe.routing import route_of
    from gauntlet.pipeline import Clock, serve
    from gauntlet.report import RunReport
    from gauntlet.state.local import LocalStore
    from gauntlet.vocabulary import HealthVerdict, RecoveryVerdict

    # An event file without a name is a CI step's own pull_request payload (and no event at all, files alone).
    delivery = read_delivery(settings.event_name or "pull_request", settings.event_path)
    route = route_of(delivery)
    if route is None:
        print(
            f"gauntlet: ignored event {delivery.name} (nothing to do for it)",
            file=sys.stderr if as_json else sys.stdout,
        )
        report = RunReport(decision=None, recovery=RecoveryVerdict(), health=HealthVerdict())
    else:
        config = load_config(settings.config)
        observation = observe(route, delivery, settings, config)
        if known_failures is not None and route == "iteration":
            from gauntlet.models import evolve

            observation = evolve(observation, known_failures=_read_known_failures(known_failures))
        state_dir = settings.state_dir or Path(".gauntlet")
        backend: Backend = DryRunBackend() if settings.dry_run else LocalBackend(state_dir / "out")
        clock = Clock(now=settings.now or datetime.now(UTC), sleep=time.sleep, monotonic=time.monotonic)
        report = serve(route, observation, config, LocalStore(state_dir), backend, clock, commit=not settings.dry_run)
    for problem in report.input_problems:  # also a notice in the summary and the report
        print(f"gauntlet: {problem.level}: {problem.message}", file=sys.stderr)
    if as_json:
        print(report.model_dump_json())
    else:
        print(_describe(report))
    return 1 if report.check_failed and settings.fail_step else 0


def _read_known_failures(path: Path) -> KnownFailures:
    """The rules of the issues listed in ``path`` (a JSON array, as ``GET issues`` answers)."""
    import json

    from gauntlet.known import known_failures

    try:
        issues = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"--known-failures {path}: {exc}") from exc
    if not isinstance(issues, list) or not all(isinstance(item, dict) for item in issues):
        raise InputError(f"--known-failures {path}: expected a JSON array of issues")
    return known_failures(issues)


def _describe(report: RunReport) -> str:
    lines = []
    if report.decision:
        d = report.decision
        lines.append(
            f"iteration {d.iteration}: {d.action} ({d.criticals} critical, {d.majors} major, {d.minors} minor)"
        )
    lines.append(f"recovery: {report.recovery.action} ({report.recovery.reason})")
    lines.append(f"health: {report.health.status}" + "".join(f"; {r}" for r in report.health.reasons))
    lines.extend(f"  {e.status:9} {e.type:15} {e.key}" for e in report.effects)
    return "\n".join(lines)


def _scan(args: argparse.Namespace) -> int:
    import time

    from gauntlet.config import load_config
    from gauntlet.effects.base import Backend
    from gauntlet.effects.dryrun import DryRunBackend
    from gauntlet.effects.local import LocalBackend
    from gauntlet.engine.scan import ScanReport
    from gauntlet.pipeline import run_scan
    from gauntlet.state.local import LocalStore

    config = load_config(args.config)
    state_dir = _local_state(args)
    backend: Backend = DryRunBackend() if args.dry_run else LocalBackend(state_dir / "out")
    outcome, results = run_scan(
        config,
        LocalStore(state_dir),
        backend,
        repository=args.repository,
        base=args.default_branch,
        now=args.now or datetime.now(UTC),
        commit=not args.dry_run,
        sleep=time.sleep,
        clock=time.monotonic,
    )
    report = ScanReport.of(outcome, results)
    print(report.model_dump_json() if args.json else report.text())
    return 0


def _status(args: argparse.Namespace) -> int:
    from gauntlet.status import summarise

    summary = summarise(_local_state(args))
    print(summary.model_dump_json(indent=2) if args.json else summary.text())
    return 0


def _report(args: argparse.Namespace) -> int:
    import tempfile

    from gauntlet.dashboard import build_site
    from gauntlet.dashboard.source import export_ref
    from gauntlet.dashboard.trend import trend_markdown
    from gauntlet.errors import InputError

    with tempfile.TemporaryDirectory(prefix="gauntlet-report-") as scratch:
        # The report reads every file, so a state branch is read from a local clone (``git fetch`` it first),
        # not file by file through the API as a run does.
        root = Path(args.state_dir)
        if args.state_branch:
            root = Path(scratch)
            export_ref(Path.cwd(), args.state_branch, root)
        dashboard = build_site(
            root, args.html, default_branch=args.default_branch, repository_url=args.repository_url, as_of=args.now
        )
    if args.summary:
        try:
            with args.summary.open("a", encoding="utf-8") as summary:
                summary.write(trend_markdown(dashboard, args.site_url))
        except OSError as exc:
            raise InputError(f"cannot append the trend to {args.summary}: {exc.strerror}") from exc
    print(
        f"dashboard written to {args.html / 'index.html'} (pull requests: {dashboard.prs.total}, "
        f"test outcomes: {dashboard.outcomes}, flaky tests: {dashboard.flaky_total})"
    )
    for problem in dashboard.problems:
        print(f"  skipped {problem}", file=sys.stderr)
    return 0


def _web_url(text: str) -> str:
    # Placed in links on the site: only a web address, never ``javascript:`` or a path.
    if not text.startswith(("https://", "http://")):
        raise argparse.ArgumentTypeError(f"not an http(s) URL: {text!r}")
    return text


def _demo(args: argparse.Namespace) -> int:
    from gauntlet.demo import play

    return play(args.out)


def _ingest(args: argparse.Namespace) -> int:
    """Print the findings ``run`` would act on: classified and merged across the files (``--raw``: as read).

    A file that cannot be read is reported on stderr and the others are still printed;
    the exit is 2 only when no file could be read.
    """
    # First, before pydantic and the parsers load: a big log's read-ahead child starts its pass over the log
    # now and runs while they load (docs/ci-logs.md, throughput).
    from gauntlet.ingest.log.prefetch import read_ahead_paths

    ahead = read_ahead_paths(args.paths, args.format)

    from gauntlet.config import load_config
    from gauntlet.ingest import ingest_paths
    from gauntlet.observe.files import as_run_sees_them

    config = None if args.raw else load_config(args.config)
    checkout = _checkout(args.repo_root) if args.repo_root is not None else None
    result = ingest_paths(args.paths, args.format, root=args.repo_root or Path(), checkout=checkout, ahead=ahead)
    for problem in result.problems:
        print(f"gauntlet: {problem.level}: {problem.message}", file=sys.stderr)
    if config is not None:
        result = as_run_sees_them(result, config, on_default_branch=args.on_default_branch)
    for finding in result.findings:
        if args.json:
            print(finding.model_dump_json())
        else:
            where = f"{finding.path}:{finding.line}" if finding.line else (finding.path or "-")
            print(f"{finding.severity:8} {finding.kind:12} {where}  {finding.message}")
    return 2 if result.nothing_read else 0


def _checkout(root: Path) -> Checkout:
    """``--repo-root``: the checkout, whose files ingest asks about (the only file-system reads it needs)."""
    from gauntlet.errors import InputError
    from gauntlet.ingest import Checkout

    base = root.resolve()
    if not base.is_dir():
        raise InputError(f"--repo-root {root}: not a directory")
    seen: dict[str, bool] = {}

    def exists(relative: str) -> bool:
        if relative not in seen:
            seen[relative] = (base / relative).is_file()
        return seen[relative]

    return Checkout(root=str(base), exists=exists)


def _sandbox(args: argparse.Namespace) -> int:
    from gauntlet.sandbox.cli import main as sandbox_main

    return sandbox_main(args.sandbox_args)
