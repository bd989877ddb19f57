"""Action inputs and GITHUB_* variables: parsed from a plain mapping, bad values named."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.action.inputs import from_env, split_globs
from gauntlet.errors import ConfigError


def env(**inputs: str) -> dict[str, str]:
    base = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_REPOSITORY": "octo/app",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_API_URL": "https://ghe.example/api/v3",
        "GITHUB_RUN_ID": "42",
        "GITHUB_RUN_ATTEMPT": "2",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/file_commands/output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
        "INPUT_GITHUB_TOKEN": "ghs_token",
    }
    return base | {f"INPUT_{name.upper()}": value for name, value in inputs.items()}


def test_defaults_and_github_variables() -> None:
    settings = from_env(env())

    assert settings.token is not None and settings.token.get_secret_value() == "ghs_token"
    assert settings.api_url == "https://ghe.example/api/v3"
    assert settings.bot_login == "github-actions[bot]"
    assert settings.comment_mode == "changes"
    assert settings.check_name == "Gauntlet"
    assert settings.fail_on is None and not settings.download_logs and settings.download_artifacts == ()
    assert settings.uses_branch and settings.run.state_branch == "gauntlet-state"
    assert settings.run.config == Path("/github/workspace/.github/gauntlet.yml")
    assert (settings.run.run_id, settings.run.run_attempt) == ("42", "2")
    assert settings.output_path == Path("/github/file_commands/output")
    assert "ghs_token" not in repr(settings), "the token never shows in logs"


def test_inputs_override_defaults() -> None:
    settings = from_env(
        env(
            logs="ci/*.log\nbuild.log",
            findings="a.sarif, b.xml",
            download_logs="TRUE",
            download_artifacts="findings-*",
            fail_on="Majors",
            fail_step="yes",
            comment_mode="always",
            check_name="Gauntlet (py3.12)",
            state_dir=".gauntlet",
            dry_run="true",
            bot_login="my-app[bot]",
        )
    )

    assert settings.run.logs == ("ci/*.log", "build.log")
    assert settings.run.findings == ("a.sarif", "b.xml")
    assert settings.download_logs and settings.download_artifacts == ("findings-*",)
    assert settings.fail_on == "majors" and settings.run.fail_step
    assert settings.comment_mode == "always" and settings.check_name == "Gauntlet (py3.12)"
    assert settings.run.state_dir == Path("/github/workspace/.gauntlet") and not settings.uses_branch
    assert settings.run.dry_run and settings.bot_login == "my-app[bot]"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("fail_on", "everything", "input fail_on"),
        ("comment_mode", "sometimes", "input comment_mode"),
        ("dry_run", "maybe", "input dry_run"),
        ("config", "../../etc/passwd", "input config"),
        ("state_dir", "/tmp/elsewhere", "input state_dir"),
    ],
)
def test_bad_inputs_are_config_errors_naming_the_input(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_env(env(**{name: value}))


def test_a_token_is_required_unless_dry_run_with_a_state_dir() -> None:
    with pytest.raises(ConfigError, match="github_token"):
        from_env(env(github_token=""))
    assert from_env(env(github_token="", dry_run="true", state_dir="s")).token is None


def test_download_artifacts_true_means_all() -> None:
    assert from_env(env(download_artifacts="true")).download_artifacts == ("*",)
    assert from_env(env(download_artifacts="false")).download_artifacts == ()


def test_split_globs_drops_blanks() -> None:
    assert split_globs("a,\n\n b ,c\n") == ("a", "b", "c")
