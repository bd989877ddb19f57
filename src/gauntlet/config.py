"""The repository's configuration file, ``.github/gauntlet.yml``, as one validated model.

Each engine part owns one section; every section has the defaults of DESIGN §3,
so an empty file (or none) is a valid configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gauntlet.errors import ConfigError

__all__ = [
    "Config",
    "FailOn",
    "GauntletConfig",
    "HealthConfig",
    "RecoveryConfig",
    "RevertConfig",
    "SelfHealConfig",
    "load_config",
]

FailOn = Literal["criticals", "majors", "minors", "never"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GauntletConfig(_Section):
    """The per-PR loop (DESIGN §3)."""

    fail_on: FailOn = "criticals"
    max_iterations: int = Field(10, ge=1, le=1000)


class RecoveryConfig(_Section):
    """Attempts, retry budgets and circular-fix detection."""

    verification_budget: int = Field(3, ge=0)
    unknown_budget: int = Field(2, ge=0)
    infra_budget: int = Field(2, ge=0)


class RevertConfig(_Section):
    """Automatic revert PRs on the default branch."""

    auto_revert: Literal["on", "shadow", "off"] = "on"
    max_age_hours: float = Field(24, gt=0)
    max_reverts_per_day: int = Field(3, ge=0)


class SelfHealConfig(_Section):
    """Self-healing scans and proposals."""

    enabled: bool = True
    window_days: int = Field(14, ge=1)
    max_patch_per_day: int = Field(10, ge=0)
    max_minor_per_day: int = Field(3, ge=0)
    cooldown_hours: float = Field(24, ge=0)
    watch_days: int = Field(7, ge=1)


class HealthConfig(_Section):
    """Health thresholds."""

    pressure_warn: float = 0.8
    pressure_block: float = 1.0
    stall_hours: float = 24


class Config(_Section):
    """The whole configuration file."""

    paused: bool = False
    gauntlet: GauntletConfig = GauntletConfig()
    recovery: RecoveryConfig = RecoveryConfig()
    revert: RevertConfig = RevertConfig()
    selfheal: SelfHealConfig = SelfHealConfig()
    health: HealthConfig = HealthConfig()


def load_config(path: Path | None) -> Config:
    """Read and validate a configuration file; a missing ``path`` gives the defaults.

    :raises ConfigError: the file is not YAML or does not match the model.
    """
    if path is None or not path.exists():
        return Config()
    import yaml
    from pydantic import ValidationError

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        key = ".".join(str(p) for p in problem["loc"])
        raise ConfigError(f"{path}: {key}: {problem['msg']}") from exc
