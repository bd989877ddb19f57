"""The action's inputs and the runner's ``GITHUB_*`` variables, parsed from a plain mapping (DESIGN §5, §8).

GitHub passes input ``foo_bar`` as ``INPUT_FOO_BAR`` (upper-cased, the id kept
otherwise). Only :mod:`gauntlet.cli` reads ``os.environ``; it hands the mapping
here. Every value is validated: a bad input is a :class:`~gauntlet.errors.ConfigError`
(exit 2) naming the input.
See https://docs.github.com/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions#inputs
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import cast, get_args

from pydantic import BaseModel, ConfigDict, SecretStr

from gauntlet.config import FailOn
from gauntlet.errors import ConfigError
from gauntlet.github.client import DEFAULT_API_URL
from gauntlet.github.gitstore import DEFAULT_STATE_BRANCH
from gauntlet.github.hub import CommentMode
from gauntlet.settings import Settings

__all__ = ["AUTO_LOGIN", "DEFAULT_BOT_LOGIN", "ActionSettings", "from_env", "input_value", "split_globs"]

DEFAULT_BOT_LOGIN = "github-actions[bot]"
#: ``bot_login: auto`` asks GitHub who the token is (``GET /user``), where the token may.
AUTO_LOGIN = "auto"
_TRUE = ("true", "yes", "1", "on")
_FALSE = ("false", "no", "0", "off", "")


class ActionSettings(BaseModel):
    """Everything one run inside GitHub Actions was asked to do."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run: Settings
    token: SecretStr | None
    api_url: str = DEFAULT_API_URL
    server_url: str = "https://github.com"
    bot_login: str = DEFAULT_BOT_LOGIN
    comment_mode: CommentMode = "changes"
    check_name: str = "Gauntlet"
    fail_on: FailOn | None = None
    download_logs: bool = False
    #: Start the run with its one GraphQL query (``github/start.py``); ``False`` reads everything by REST.
    graphql: bool = True
    download_artifacts: tuple[str, ...] = ()
    output_path: Path | None = None
    summary_path: Path | None = None
    #: ``GITHUB_WORKFLOW_REF``: Gauntlet's own workflow file (``owner/repo/.github/workflows/x.yml@ref``).
    workflow_ref: str = ""

    @property
    def uses_branch(self) -> bool:
        """True when state lives on the state branch (no ``state_dir`` input)."""
        return self.run.state_dir is None


def input_value(env: Mapping[str, str], name: str, default: str = "") -> str:
    """The input ``name`` (``INPUT_<NAME>``), stripped; ``default`` when unset or empty."""
    value = env.get(f"INPUT_{name.upper()}", "").strip()
    return value or default


def _flag(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    value = input_value(env, name).lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"input {name}: expected true or false, got {value!r}")


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = input_value(env, name, default).lower()
    if value not in choices:
        raise ConfigError(f"input {name}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def split_globs(text: str) -> tuple[str, ...]:
    """Globs from a newline- or comma-separated input, blanks dropped."""
    return tuple(part.strip() for part in re.split(r"[\n,]", text) if part.strip())


def _artifacts(text: str) -> tuple[str, ...]:
    """``true`` fetches every artifact of the run; otherwise the value lists artifact name globs."""
    if text.lower() in _TRUE:
        return ("*",)
    return () if text.lower() in _FALSE else split_globs(text)


def _inside(workspace: Path, text: str, name: str) -> Path:
    """A workspace-relative path input; ``..`` may not leave the workspace."""
    path = Path(text)
    resolved = (workspace / path).resolve()
    if path.is_absolute() or not resolved.is_relative_to(workspace.resolve()):
        raise ConfigError(f"input {name}: {text!r} must be a path inside the workspace")
    return workspace / path


def from_env(env: Mapping[str, str]) -> ActionSettings:
    """Parse the inputs and ``GITHUB_*`` variables of a run inside GitHub Actions.

    :param env: the process environment (or any mapping shaped like it).
    :raises ConfigError: an input has a value the action does not accept.
    """
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    state_dir = input_value(env, "state_dir")
    dry_run = _flag(env, "dry_run")
    fail_on = input_value(env, "fail_on").lower()
    if fail_on and fail_on not in get_args(FailOn):
        raise ConfigError(f"input fail_on: expected one of {', '.join(get_args(FailOn))}, got {fail_on!r}")
    event_path = env.get("GITHUB_EVENT_PATH")
    run = Settings(
        event_name=env.get("GITHUB_EVENT_NAME") or None,
        event_path=Path(event_path) if event_path else None,
        logs=split_globs(input_value(env, "logs")),
        findings=split_globs(input_value(env, "findings")),
        workspace=workspace,
        inputs_in_workspace=True,
        config=_inside(workspace, input_value(env, "config", ".github/gauntlet.yml"), "config"),
        state_dir=_inside(workspace, state_dir, "state_dir") if state_dir else None,
        state_branch=input_value(env, "state_branch", DEFAULT_STATE_BRANCH),
        dry_run=dry_run,
        repository=env.get("GITHUB_REPOSITORY") or None,
        sha=env.get("GITHUB_SHA") or None,
        run_id=env.get("GITHUB_RUN_ID") or "0",
        run_attempt=env.get("GITHUB_RUN_ATTEMPT") or "1",
        workflow=env.get("GITHUB_WORKFLOW") or "",
        job=env.get("GITHUB_JOB") or "",
        fail_step=_flag(env, "fail_step"),
        review_comments=_flag(env, "review_comments", default=True),
    )
    token = input_value(env, "github_token")
    if not token and not (dry_run and state_dir):
        raise ConfigError("input github_token is required (unless dry_run with state_dir)")
    output, summary = env.get("GITHUB_OUTPUT"), env.get("GITHUB_STEP_SUMMARY")
    mode = cast(CommentMode, _choice(env, "comment_mode", get_args(CommentMode), "changes"))
    return ActionSettings(
        run=run,
        token=SecretStr(token) if token else None,
        api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        bot_login=input_value(env, "bot_login", DEFAULT_BOT_LOGIN),
        comment_mode=mode,
        check_name=input_value(env, "check_name", "Gauntlet"),
        fail_on=cast(FailOn, fail_on) if fail_on else None,
        download_logs=_flag(env, "download_logs"),
        graphql=_flag(env, "graphql", default=True),
        download_artifacts=_artifacts(input_value(env, "download_artifacts")),
        output_path=Path(output) if output else None,
        summary_path=Path(summary) if summary else None,
        workflow_ref=env.get("GITHUB_WORKFLOW_REF") or "",
    )
