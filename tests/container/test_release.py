"""The release: its tag check and action.yml pin (docker/release.py), and the workflow step that moves the tags."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

import gauntlet

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docker" / "release.py"
IMAGE = "ghcr.io/octo/gauntlet:v1.2.3"


def load_release() -> ModuleType:
    """docker/release.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("release", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = load_release()


def project(tmp_path: Path, pyproject: str, init: str) -> Path:
    """A minimal tree with a pyproject version and a ``gauntlet/__init__.py``."""
    (tmp_path / "src" / "gauntlet").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "gauntlet"\nversion = "{pyproject}"\n')
    (tmp_path / "src" / "gauntlet" / "__init__.py").write_text(f'"""Doc."""\n\n__version__ = "{init}"\n')
    return tmp_path


def test_the_package_version_is_the_same_in_pyproject_and_the_module() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]

    assert release.package_version() == declared == gauntlet.__version__


def test_only_v_and_the_package_version_is_a_release_tag() -> None:
    version = gauntlet.__version__

    assert release.tag_version(f"v{version}") == version
    assert release.tag_version(f"refs/tags/v{version}") == version
    for wrong in (version, f"v{version}.1", f"v{version}-rc1", "v9.9.9", "latest"):
        with pytest.raises(release.ReleaseError, match="does not match the package version"):
            release.tag_version(wrong)


def test_a_version_bumped_in_one_place_only_stops_the_release(tmp_path: Path) -> None:
    root = project(tmp_path, pyproject="1.3.0", init="1.2.3")

    with pytest.raises(release.ReleaseError, match=re.escape("pyproject.toml says 1.3.0, gauntlet.__version__ says")):
        release.tag_version("v1.3.0", root)
    assert release.tag_version("v1.2.3", project(tmp_path / "same", "1.2.3", "1.2.3")) == "1.2.3"


def test_the_script_prints_the_version_or_fails_with_the_reason() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)

    good, bad, usage = run("version", f"v{gauntlet.__version__}"), run("version", "v0.0.0-nope"), run("nonsense")

    assert (good.returncode, good.stdout) == (0, f"{gauntlet.__version__}\n")
    assert bad.returncode == 1 and "does not match the package version" in bad.stderr
    assert usage.returncode == 2


def test_pinning_changes_only_the_image_of_the_real_action() -> None:
    text = (ROOT / "action.yml").read_text(encoding="utf-8")

    pinned = release.pin_action(text, IMAGE)

    before, after = yaml.safe_load(text), yaml.safe_load(pinned)
    assert before["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert after["runs"] == {"using": "docker", "image": f"docker://{IMAGE}"}
    assert {k: v for k, v in after.items() if k != "runs"} == {k: v for k, v in before.items() if k != "runs"}
    assert len(pinned.splitlines()) == len(text.splitlines())


def test_pinning_refuses_a_pinned_action_and_a_bad_image() -> None:
    text = (ROOT / "action.yml").read_text(encoding="utf-8")

    with pytest.raises(release.ReleaseError, match="found 0"):
        release.pin_action(release.pin_action(text, IMAGE), IMAGE)
    for image in ("ghcr.io/Octo/gauntlet:v1.2.3", "ghcr.io/octo/gauntlet:latest", "ghcr.io/octo/gauntlet"):
        with pytest.raises(release.ReleaseError, match="not a lower-case image reference"):
            release.pin_action(text, image)


def test_the_release_workflow_builds_both_architectures_on_a_version_tag() -> None:
    workflow: dict[Any, Any] = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    steps = workflow["jobs"]["release"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    build = next(step for step in steps if str(step.get("uses", "")).startswith("docker/build-push-action"))

    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as True
    assert set(build["with"]["platforms"].split(",")) == {"linux/amd64", "linux/arm64"}
    assert build["with"]["push"] is True
    assert build["with"]["tags"] == "${{ steps.image.outputs.ref }}"
    assert 'docker/release.py version "$GITHUB_REF_NAME"' in runs
    assert "ghcr.io/${OWNER,,}/gauntlet:v${VERSION}" in runs
    assert 'docker/release.py pin-action "$IMAGE" action.yml' in runs
    assert runs.index("release.py version") < runs.index("ghcr.io/") < runs.index("pin-action")


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd``; return its stdout."""
    return subprocess.run(
        ["git", "-c", "user.name=maintainer", "-c", "user.email=m@localhost", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()


def test_the_release_step_moves_both_tags_to_a_commit_that_runs_the_image(tmp_path: Path) -> None:
    workflow: dict[Any, Any] = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    step = next(s for s in workflow["jobs"]["release"]["steps"] if "pin-action" in s.get("run", ""))
    origin, work, bin_dir = tmp_path / "origin.git", tmp_path / "work", tmp_path / "bin"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(work))
    for name in ("action.yml", "pyproject.toml", "docker/release.py", "src/gauntlet/__init__.py"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes((ROOT / name).read_bytes())
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "source")
    tag = f"v{gauntlet.__version__}"
    git(work, "tag", "-a", tag, "-m", "tagged by a maintainer")
    git(work, "push", "-q", "origin", "HEAD", tag)
    source = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "-q", "--detach", tag)  # as actions/checkout leaves a tag push
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    image = f"ghcr.io/octo/gauntlet:{tag}"

    subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=work,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "IMAGE": image, "TAG": tag},
        check=True,
        capture_output=True,
        timeout=120,
    )

    released = git(origin.parent, "--git-dir", str(origin), "rev-parse", f"{tag}^{{commit}}")
    major = tag.split(".", maxsplit=1)[0]
    assert git(origin.parent, "--git-dir", str(origin), "rev-parse", f"{major}^{{commit}}") == released
    assert git(work, "rev-parse", f"{released}^") == source, "the release commit sits on the tagged source"
    shown = git(work, "show", f"{released}:action.yml")
    assert yaml.safe_load(shown)["runs"] == {"using": "docker", "image": f"docker://{image}"}
    assert git(work, "diff", "--name-only", source, released) == "action.yml"
