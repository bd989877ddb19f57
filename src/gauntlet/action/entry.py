"""``gauntlet run`` inside GitHub Actions: inputs in, one routed run, outputs and summary out (DESIGN §5, §8).

One run, in order::

    inputs + GITHUB_*  ->  route (observe/routing.py)  ->  downloads (paths)  ->  observe  ->  pipeline.serve
    (state branch or state_dir; effects on GitHub, or planned in a dry run)  ->  outputs, annotations

The routing table and the observation are the command line's too; what is the Action's
alone is here: inputs, downloads, the GitHub backend and state branch, outputs.

A read-only token (a fork PR's) cannot write: effects are skipped, the state is
not committed, and the run still reports through the job summary and workflow
command annotations, with a notice, and exits 0.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TextIO

from gauntlet.action.branch_reads import branch_reads
from gauntlet.action.downloads import download_artifacts, download_failed_logs, job_names, list_jobs
from gauntlet.action.inputs import AUTO_LOGIN, DEFAULT_BOT_LOGIN, ActionSettings, from_env
from gauntlet.action.known_reads import needs_rules, read_known_failures
from gauntlet.action.outputs import annotation_commands, escape_data, output_values, write_outputs, write_summary
from gauntlet.action.queue_setup import QueueCheck, plan_check, queue_warning
from gauntlet.action.start_reads import begin
from gauntlet.action.state_reads import state_reads
from gauntlet.config import Config, load_config
from gauntlet.effects.base import Backend, EffectResult, Existing
from gauntlet.effects.dryrun import DryRunBackend
from gauntlet.effects.models import Effect, SetCheck
from gauntlet.errors import InputError
from gauntlet.github.backend import GitHubBackend
from gauntlet.github.client import GitHubClient, NotFound, ReadOnlyToken
from gauntlet.github.comments import CommentGone
from gauntlet.github.gitstore import BranchStore
from gauntlet.github.hub import Hub, nothing_fresh, nothing_known, nothing_remembered, nothing_written
from gauntlet.github.start import Start
from gauntlet.models import evolve
from gauntlet.observe.github_facts import Remote
from gauntlet.observe.observation import Downloads, observe
from gauntlet.observe.owners import owners_of
from gauntlet.observe.payload import Delivery, event_facts, read_delivery
from gauntlet.observe.routing import Route, route_of
from gauntlet.pipeline import Clock, serve
from gauntlet.report import RunReport, SetupProblem
from gauntlet.state.local import LocalStore
from gauntlet.state.store import StateStore
from gauntlet.vocabulary import HealthVerdict, RecoveryVerdict

__all__ = ["READ_ONLY_NOTICE", "STEP_RERUN_NOTICE", "Clock", "run_action"]

READ_ONLY_NOTICE = (
    "Gauntlet ran with a read-only token (a pull request from a fork?): the PR comment, check run and state "
    "were not written. Findings are in this summary and in the annotations. To report on fork PRs, run Gauntlet "
    "from a `workflow_run` workflow with `download_artifacts`."
)

#: Said once, in the job summary and as a notice, when a step of the CI job wanted its own run rerun.
STEP_RERUN_NOTICE = (
    "Gauntlet wanted to rerun the failed jobs of this CI run to tell a flake from a real failure, but it runs as "
    "a step of that run, and GitHub reruns only completed runs. Until a rerun of this commit decides, its test "
    "failures count: re-run the failed jobs (a flake then passes and stops counting), or run Gauntlet from a "
    "`workflow_run` workflow (examples/workflows/gauntlet.yml) to have it rerun at once."
)


@dataclass
class _EdgeBackend:
    """Effects through an inner backend, except the job summary, which the edge writes itself.

    It also keeps what the outputs and annotations need: the check effect and whether it landed.
    """

    inner: Backend
    summary_path: Path | None
    check: SetCheck | None = None
    check_landed: bool = False

    def find(self, effect: Effect) -> Existing | None:
        """The inner backend's lookup; a summary is written fresh every run."""
        if effect.type == "write_summary":
            return None
        return self.inner.find(effect)

    def perform(self, effect: Effect, existing: Existing | None) -> EffectResult:
        """Write the summary here; everything else through the inner backend."""
        if effect.type == "write_summary":
            result = write_summary(self.summary_path, effect)
        else:
            result = self.inner.perform(effect, existing)
        if isinstance(effect, SetCheck):
            self.check = effect
            self.check_landed = result.status in ("created", "updated", "unchanged")
        return result


def run_action(env: Mapping[str, str], clock: Clock, out: TextIO) -> int:
    """Serve one event inside GitHub Actions; return the exit code (DESIGN §8).

    :param env: the process environment (only :mod:`gauntlet.cli` reads ``os.environ``).
    :param clock: time and sleeping, passed in.
    :param out: where workflow commands and the one-line account go (stdout).
    :raises GauntletError: bad inputs (exit 2), GitHub down after retries (exit 3).
    """
    settings = from_env(env)
    delivery = read_delivery(settings.run.event_name, settings.run.event_path)
    handler = route_of(delivery)
    if handler is None:
        out.write(f"gauntlet: ignored event {settings.run.event_name or '(none)'} (nothing to do for it)\n")
        report = RunReport(decision=None, recovery=RecoveryVerdict(), health=HealthVerdict())
        _finish(settings, report, None, out)
        return 0
    config = _config(settings)
    client = _client(settings, clock)
    token = settings.token.get_secret_value() if settings.token is not None else ""
    if client is not None and settings.bot_login in (AUTO_LOGIN, DEFAULT_BOT_LOGIN):
        settings = evolve(settings, bot_login=_own_login(client, token, settings.bot_login, out))
    # Only when a workflow lacks merge_group (or is not checked out) does the start query ask for the rules.
    queue = QueueCheck()
    if handler == "iteration":
        payload = delivery.checked() if delivery.name == "workflow_run" else None
        queue = plan_check(settings.run.workspace, settings.workflow_ref, payload)
    store = _store(settings, client, clock)
    if handler == "comment" and (client is None or settings.run.repository is None):
        _repository(settings)  # a command needs to know where it is
    start = begin(store, handler, delivery, settings, queue=queue)
    report, edge = _serve(handler, delivery, settings, config, client, clock, out, store, start)
    for problem in report.input_problems:  # the run went on without it; the summary says so too
        out.write(f"::warning title=Gauntlet could not read an input::{escape_data(problem.message)}\n")
    if _reran_itself(report, settings.run.run_id):
        out.write(f"::notice title=Gauntlet::{STEP_RERUN_NOTICE}\n")
        _add_to_summary(settings, STEP_RERUN_NOTICE)
    report = _warn_of_queue_gap(report, queue, start, settings, event_facts(delivery).default_branch, out)
    cost = "no API calls"
    if client is not None:
        report = evolve(
            report, api_calls=client.calls, quota_remaining=client.remaining(), graphql_remaining=client.graphql_left
        )
        cost = client.quota()
    _finish(settings, report, edge, out, cost)
    return 1 if report.check_failed and settings.run.fail_step else 0


def _serve(
    handler: Route,
    delivery: Delivery,
    settings: ActionSettings,
    config: Config,
    client: GitHubClient | None,
    clock: Clock,
    out: TextIO,
    store: StateStore,
    start: Start | None,
) -> tuple[RunReport, _EdgeBackend | None]:
    remote = None
    if client is not None and settings.run.repository is not None:
        remote = Remote(client=client, repository=settings.run.repository, bot_login=settings.bot_login)
    commit = not settings.run.dry_run
    with tempfile.TemporaryDirectory(prefix="gauntlet-downloads-") as folder:
        downloads = Downloads()
        if handler == "iteration" and remote is not None:
            downloads = _download(settings, delivery, remote, Path(folder))
        observation = observe(
            handler,
            delivery,
            settings.run,
            config,
            downloads=downloads,
            remote=remote,
            bot_login=settings.bot_login,
            reviews=start.reviews if start is not None else None,
        )
    if handler == "iteration" and remote is not None:
        first = start.known if start is not None else None
        if first is not None or needs_rules(observation):  # without the start query, a green run reads nothing
            found = read_known_failures(remote.client, remote.repository, first)
            if found is not None:
                observation = evolve(observation, known_failures=found)
    if handler == "close_pr":  # closes the needs-human issues filed about the PR; nothing else is written
        edge = _edge(settings, client, store)
        return serve(handler, observation, config, store, edge, clock, commit=commit), edge
    if handler == "scan":
        _repository(settings)
    first_issues = start.issues if start is not None else None
    edge = _edge(settings, client, store, assign_owners=config.issues.assign_owners, first_issues=first_issues)
    workspace = settings.run.workspace
    reads = state_reads(remote, lambda seen: owners_of(workspace, seen.findings, seen.changed_files))
    if remote is not None and handler == "iteration":
        reads = replace(reads, branch_facts=branch_reads(remote, config))
    if handler == "comment":
        try:
            return serve(handler, observation, config, store, edge, clock, commit=commit, reads=reads), edge
        except CommentGone as exc:
            # Its reaction is the first effect: nothing was done for the command, and nothing is left to answer.
            out.write(f"::notice title=Gauntlet::skipped: {exc}\n")
            return RunReport(decision=None, recovery=RecoveryVerdict(), health=HealthVerdict()), None
    if handler != "iteration":
        return serve(handler, observation, config, store, edge, clock, commit=commit, reads=reads), edge
    try:
        return serve(handler, observation, config, store, edge, clock, commit=commit, reads=reads), edge
    except ReadOnlyToken:
        # The state could not be committed either: report what this run saw and write nothing.
        out.write(f"::notice title=Gauntlet::{READ_ONLY_NOTICE}\n")
        edge = _edge(settings, client, store, read_only=True)
        report = serve(handler, observation, config, store, edge, clock, commit=False, reads=reads)
        _add_to_summary(settings, READ_ONLY_NOTICE)
        return report, edge


def _warn_of_queue_gap(
    report: RunReport,
    queue: QueueCheck,
    start: Start | None,
    settings: ActionSettings,
    default_branch: str | None,
    out: TextIO,
) -> RunReport:
    """Say once (a ``::warning``, the job summary, the report) when the required check can never report in the
    default branch's merge queue because the workflow that reports it lacks ``merge_group``."""
    gap = queue.found(start.workflow if start is not None else None)
    rules = start.rules if start is not None else None
    warning = queue_warning(gap, rules, settings.check_name, default_branch or "main")
    if gap is None or warning is None:
        return report
    out.write(f"::warning title=Gauntlet cannot report in the merge queue::{escape_data(warning)}\n")
    _add_to_summary(settings, warning, "WARNING")
    setup = SetupProblem(kind="merge_group_missing", path=gap.path, message=warning)
    return evolve(report, setup_problems=(*report.setup_problems, setup))


def _reran_itself(report: RunReport, own_run: str) -> bool:
    """True when the run asked to rerun the CI run it is a step of (GitHub refuses: it is in progress)."""
    key = f"rerun:{own_run}:"
    return any(
        e.type == "rerun_failed_jobs" and e.status == "skipped" and e.key.startswith(key) for e in report.effects
    )


def _add_to_summary(settings: ActionSettings, note: str, alert: Literal["NOTE", "WARNING"] = "NOTE") -> None:
    if settings.summary_path is not None:
        with settings.summary_path.open("a", encoding="utf-8") as summary:
            summary.write(f"\n> [!{alert}]\n> {note}\n")


def _repository(settings: ActionSettings) -> str:
    if settings.run.repository is None:
        raise InputError("GITHUB_REPOSITORY is not set")
    return settings.run.repository


def _download(settings: ActionSettings, delivery: Delivery, remote: Remote, folder: Path) -> Downloads:
    """The failed jobs' logs and the chosen artifacts of the run the event reports on, as paths."""
    facts = event_facts(delivery)
    raw_run = facts.run_id or settings.run.run_id or "0"
    run_id = int(raw_run) if raw_run.isdigit() else 0  # the payload is untrusted
    if not run_id:
        return Downloads()
    failed: list[tuple[str, Path]] = []
    found: list[Path] = []
    wants_logs = settings.download_logs and facts.conclusion != "success"  # a successful run has no failed job
    jobs = None
    # On workflow_run the CI run's jobs name what is observed: Gauntlet's own job is not CI's.
    if facts.event == "workflow_run" or wants_logs:
        jobs = list_jobs(remote.client, remote.repository, run_id)
    if jobs and wants_logs:
        failed = download_failed_logs(remote.client, remote.repository, jobs, folder / "logs")
    if settings.download_artifacts:
        found = download_artifacts(
            remote.client, remote.repository, run_id, settings.download_artifacts, folder / "artifacts"
        )
    # In name order, as a listing of the folder would give them.
    return Downloads(
        logs=tuple(sorted((path for _, path in failed), key=str)),
        findings=tuple(sorted(found, key=str)),
        failed_jobs=tuple(name for name, _ in failed),
        jobs=tuple(job_names(jobs)) if jobs is not None else None,
    )


def _edge(
    settings: ActionSettings,
    client: GitHubClient | None,
    store: StateStore,
    *,
    read_only: bool = False,
    assign_owners: bool = True,
    first_issues: tuple[list[dict[str, Any]], bool] | None = None,
) -> _EdgeBackend:
    inner: Backend
    if settings.run.dry_run or read_only or client is None or settings.run.repository is None:
        inner = DryRunBackend()
    else:
        branch = store if isinstance(store, BranchStore) else None
        first_attempt = settings.run.run_attempt == "1"
        hub = Hub(
            client=client,
            repo=client.repo(settings.run.repository),
            bot_login=settings.bot_login,
            known=branch.known if branch is not None else nothing_known,
            written=branch.written if branch is not None else nothing_written,
            # A rerun (attempt 2 and on) may follow an attempt that wrote and died before its commit: it looks.
            remembers=branch.remembers if branch is not None and first_attempt else nothing_remembered,
            fresh=branch.fresh if branch is not None and first_attempt else nothing_fresh,
            comment_mode=settings.comment_mode,
            check_name=settings.check_name,
            assign_owners=assign_owners,
            own_run=settings.run.run_id,
            first_issues=first_issues,
        )
        inner = GitHubBackend(hub)
    return _EdgeBackend(inner=inner, summary_path=settings.summary_path)


#: Token prefixes GitHub gives each kind of token
#: (https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/):
#: a user's (personal, fine-grained, OAuth, user-to-server) and an app installation's (``GITHUB_TOKEN`` is one).
USER_TOKEN_PREFIXES = ("ghp_", "github_pat_", "gho_", "ghu_")
INSTALLATION_TOKEN_PREFIXES = ("ghs_",)


def _own_login(client: GitHubClient, token: str, bot_login: str, out: TextIO) -> str:
    """Gauntlet's own identity, when ``bot_login`` is the default or ``auto``.

    A user token writes as its user: ``GET /user`` says who (with the default ``bot_login`` a personal
    access token would otherwise post a new sticky comment every run, never recognising its own). An
    installation token writes as the Actions bot and may not read ``/user``: no call. Any other token keeps
    the default, unless ``auto`` asks to try.
    """
    if token.startswith(INSTALLATION_TOKEN_PREFIXES):
        return DEFAULT_BOT_LOGIN
    if not token.startswith(USER_TOKEN_PREFIXES) and bot_login != AUTO_LOGIN:
        return bot_login
    try:
        return str(client.request("GET", "/user")["login"])
    except (ReadOnlyToken, NotFound):
        out.write(f"::notice title=Gauntlet::the token cannot read /user; using {DEFAULT_BOT_LOGIN} as bot_login\n")
        return DEFAULT_BOT_LOGIN


def _store(settings: ActionSettings, client: GitHubClient | None, clock: Clock) -> StateStore:
    if settings.run.state_dir is not None:
        return LocalStore(settings.run.state_dir)
    if client is None or settings.run.repository is None:
        raise InputError("state on a branch needs GITHUB_REPOSITORY and a github_token (or use state_dir)")
    branch = settings.run.state_branch or "gauntlet-state"
    return BranchStore(client, settings.run.repository, branch, sleep=clock.sleep)


def _client(settings: ActionSettings, clock: Clock) -> GitHubClient | None:
    if settings.token is None:
        return None
    if settings.run.dry_run and settings.run.state_dir is not None:
        # The documented no-network mode: state in a folder and effects only planned need no GitHub at all.
        return None
    return GitHubClient(settings.token.get_secret_value(), settings.api_url, throttle=clock.throttle)


def _config(settings: ActionSettings) -> Config:
    config = load_config(settings.run.config)
    if settings.fail_on is None:
        return config
    return evolve(config, gauntlet=evolve(config.gauntlet, fail_on=settings.fail_on))


def _finish(
    settings: ActionSettings, report: RunReport, edge: _EdgeBackend | None, out: TextIO, cost: str = "no API calls"
) -> None:
    """Outputs, and annotations as workflow commands when the check run did not carry them."""
    if edge is not None and edge.check is not None and not edge.check_landed:
        out.writelines(line + "\n" for line in annotation_commands(edge.check.annotations))
    if settings.output_path is not None:
        write_outputs(settings.output_path, output_values(report))
    out.write(f"{_account(report)}; {cost}\n")


def _account(report: RunReport) -> str:
    decision = report.decision
    head = f"gauntlet: {decision.action} (iteration {decision.iteration})" if decision else "gauntlet: done"
    effects = ", ".join(f"{e.type} {e.status}" for e in report.effects)
    return f"{head}; health {report.health.status}; {effects or 'no effects'}"
