"""The configuration file: strict validation, errors with lines, and the published JSON schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
import yaml

from gauntlet.config import Config, config_schema, load_config, parse_config
from gauntlet.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "schema" / "gauntlet.schema.json"
EXAMPLE = REPO / "examples" / "gauntlet.yml"


def test_no_file_and_an_empty_file_give_the_defaults(tmp_path: Path) -> None:
    assert load_config(None) == Config()
    assert load_config(tmp_path / "missing.yml") == Config()
    empty = tmp_path / "gauntlet.yml"
    empty.write_text("# nothing yet\n")
    assert load_config(empty) == Config()


def test_the_example_is_valid_and_documents_the_new_keys() -> None:
    config = load_config(EXAMPLE)
    assert config.severity and config.components and config.context
    assert config.gauntlet.fail_on == "criticals"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("gauntlet:\n  fail_on: majors\n  fial_on: x\n", "gauntlet.yml:3: gauntlet.fial_on: unknown key"),
        ("paused: false\nsurprise: 1\n", "gauntlet.yml:2: surprise: unknown key"),
        (
            "gauntlet:\n  max_iterations: '10'\n",
            "gauntlet.yml:2: gauntlet.max_iterations: Input should be a valid integer",
        ),
        (
            "gauntlet:\n  max_iterations: 0\n",
            "gauntlet.yml:2: gauntlet.max_iterations: Input should be greater than or equal to 1",
        ),
        ("paused: yes\n", "gauntlet.yml:1: paused: Input should be a valid boolean"),
        ("gauntlet:\n  fail_on: everything\n", "gauntlet.yml:2: gauntlet.fail_on: Input should be 'criticals'"),
        ("gauntlet: {}\ngauntlet: {}\n", "gauntlet.yml:2: gauntlet: duplicate key"),
        ("- a\n", "gauntlet.yml:1: expected a mapping"),
        ("a: [\n", "gauntlet.yml: not valid YAML"),
        ("severity:\n  - tool: ruff\n    severity: huge\n", "gauntlet.yml:3: severity.0.severity: Input should be"),
        (
            "severity:\n  - severity: major\n",
            "gauntlet.yml:2: severity.0: give at least one of kind, tool, rule, path, source",
        ),
        (
            "severity:\n  - kind: lint\n    severity: minor\n    colour: red\n",
            "gauntlet.yml:4: severity.0.colour: unknown key",
        ),
        ("components:\n  api: src/api\n", "gauntlet.yml:2: components.api: Input should be a valid array"),
        (
            "context:\n  - name: x\n    priority: P2\n    kinds: [lint]\n",
            "gauntlet.yml:3: context.0.priority: Input should be 'P0' or 'P1'",
        ),
        ("context:\n  - name: x\n    priority: P0\n", "gauntlet.yml:2: context.0: give at least one of"),
        (
            "context:\n  - name: x\n    components: [nope]\n    priority: P1\n",
            "gauntlet.yml:1: context: context 'x' names unknown components: nope",
        ),
    ],
)
def test_errors_name_the_line_and_the_key(text: str, error: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, ".github/gauntlet.yml")
    assert str(caught.value).startswith(".github/" + error)
    assert ConfigError.exit_code == 2


def test_yaml_1_1_words_stay_words() -> None:
    assert parse_config("revert:\n  auto_revert: off\n").revert.auto_revert == "off"
    assert parse_config("revert:\n  auto_revert: on\n").revert.auto_revert == "on"


def test_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "gauntlet.yml"
    path.write_bytes(b"paused: \xff\n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(path)


def test_schema_is_current() -> None:
    """``schema/gauntlet.schema.json`` is generated from the model; regenerate it with
    ``GAUNTLET_UPDATE_SCHEMA=1 .venv/bin/pytest tests/unit/test_config.py`` after changing the model."""
    current = json.dumps(config_schema(), indent=2, sort_keys=True) + "\n"
    if os.environ.get("GAUNTLET_UPDATE_SCHEMA") == "1":
        SCHEMA.parent.mkdir(exist_ok=True)
        SCHEMA.write_text(current, encoding="utf-8")
    assert SCHEMA.read_text(encoding="utf-8") == current, (
        "schema/gauntlet.schema.json is stale: run GAUNTLET_UPDATE_SCHEMA=1 .venv/bin/pytest tests/unit/test_config.py"
    )


def test_the_example_validates_against_the_published_schema() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(yaml.safe_load(EXAMPLE.read_text(encoding="utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"gauntlet": {"fial_on": "x"}}, schema)


def test_reviews_say_whose_comments_count_and_the_severity_of_labels() -> None:
    config = parse_config('reviews:\n  from: [maintainers, bots: ["CodeRabbitAI[bot]"]]\n  severity: {nit: none}\n')
    assert (config.reviews.maintainers, config.reviews.bots) == (True, frozenset({"coderabbitai[bot]"}))
    assert config.reviews.severity == {"nit": "none"}
    assert Config.model_validate(config.model_dump(mode="json")) == config, "a dump loads back"
    assert parse_config("").reviews.maintainers and not parse_config("").reviews.bots
    assert not parse_config("reviews:\n  from: [bots: []]\n").reviews.maintainers
    with pytest.raises(ConfigError, match=r"gauntlet\.yml:3: reviews\.severity\.nope"):
        parse_config("reviews:\n  severity:\n    nope: minor\n")
    with pytest.raises(ConfigError, match=r"reviews\.from"):
        parse_config("reviews:\n  from: [everyone]\n")
