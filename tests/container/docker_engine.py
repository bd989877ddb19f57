"""A private Docker engine, the image built on the local stand-in base, and ``docker run`` as the Actions runner.

The engine (``docker/dockerd.sh``) lives in its own temporary folder with its own
socket and is stopped by its PID. The base image comes from ``docker/base-image.sh``,
which caches it between runs on the same machine, as does ``build_image`` for the
dependencies' layer. ``run_as_runner``
mirrors the runner's container step (actions/runner ``ContainerActionHandler``):
``/github/workspace`` as the working directory and mount, ``/github/home``,
``/github/workflow`` (the event payload) and ``/github/file_commands`` (outputs,
summary) mounted, ``INPUT_*`` and ``GITHUB_*`` passed by name, plus ``--network
host`` so the container reaches a sandbox on 127.0.0.1. Every command is
time-boxed. (A plain module: the test folders are not packages.)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "docker"
CACHE = Path(tempfile.gettempdir()) / "gauntlet-docker-cache"
BASE_TAG = "gauntlet-base:local"  # the stand-in base, as imported into the engine
ENGINE_UNAVAILABLE = 3  # docker/dockerd.sh: the engine could not be installed or started here

# Generous bounds: they stop a wedged engine from hanging CI, they are not performance targets.
START_TIMEOUT = 900  # may include installing docker.io
BASE_TIMEOUT = 1200  # mmdebstrap on a cold cache
BUILD_TIMEOUT = 600
RUN_TIMEOUT = 120


class EngineUnavailable(Exception):
    """The engine cannot run on this machine; the message is the reason, for a skip."""


@dataclass(frozen=True)
class Engine:
    """A running private dockerd."""

    home: Path
    host: str

    def env(self) -> dict[str, str]:
        """The environment for a docker client talking to this engine, with the classic builder.

        The classic builder needs no BuildKit frontend image (which would be pulled from a registry) and works
        with any client, whether or not it has the buildx plugin.
        """
        return {**os.environ, "DOCKER_HOST": self.host, "DOCKER_BUILDKIT": "0"}

    def docker(self, *args: str, timeout: float) -> str:
        """Run ``docker ARGS`` against this engine; return stdout, or raise with stderr on failure."""
        proc = subprocess.run(
            ["docker", *args],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if proc.returncode != 0:
            raise AssertionError(f"docker {args[0]} exited {proc.returncode}:\n{proc.stderr[-4000:]}")
        return proc.stdout


def start_engine() -> Engine:
    """Start a private dockerd in a new short-pathed folder (unix socket paths are capped at 108 bytes).

    :raises EngineUnavailable: the script said the engine cannot run here (exit 3), with its reason.
    """
    if os.geteuid() != 0:
        raise EngineUnavailable("dockerd needs root, and this test runs as a normal user")
    home = Path(tempfile.mkdtemp(prefix="gauntlet-dockerd-", dir="/tmp"))
    proc = subprocess.run(
        [str(SCRIPTS / "dockerd.sh"), "start", str(home)],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        check=False,
    )
    if proc.returncode == ENGINE_UNAVAILABLE:
        stop_engine(home)
        raise EngineUnavailable(proc.stderr.strip())
    if proc.returncode != 0:
        stop_engine(home)
        raise AssertionError(f"docker/dockerd.sh start exited {proc.returncode}:\n{proc.stderr}")
    return Engine(home=home, host=proc.stdout.strip())


def stop_engine(home: Path) -> None:
    """Stop the engine by its PID and remove its folder."""
    subprocess.run([str(SCRIPTS / "dockerd.sh"), "stop", str(home)], check=True, timeout=60)
    shutil.rmtree(home)


@dataclass(frozen=True)
class Image:
    """The built image, its ``deps`` stage, and what they cost."""

    tag: str
    deps_tag: str
    size_bytes: int
    base_seconds: float
    build_seconds: float


def build_image(engine: Engine) -> Image:
    """Load the stand-in base and build the repository's Dockerfile on it.

    The ``deps`` stage (the dependencies' layer, the slow part: pip downloads them) is kept in the cache as a
    ``docker save`` archive keyed by the base, the Dockerfile and pyproject.toml, and reused with
    ``--cache-from``, so a rerun with the same dependencies builds only Gauntlet's own layers.
    """
    started = time.monotonic()
    proc = subprocess.run(
        [str(SCRIPTS / "base-image.sh"), BASE_TAG, str(CACHE)],
        env=engine.env(),
        capture_output=True,
        text=True,
        timeout=BASE_TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"docker/base-image.sh exited {proc.returncode}:\n{proc.stderr[-4000:]}")
    based = time.monotonic()
    base_id = engine.docker("image", "inspect", "--format", "{{.Id}}", BASE_TAG, timeout=30).strip()
    deps_tag, saved = "gauntlet-deps:local", CACHE / f"deps-{_deps_key(base_id)}.tar"
    cache_from = ["--cache-from", deps_tag] if _load(engine, saved) else []
    build = ["build", "--network", "host", "--build-arg", f"BASE_IMAGE={BASE_TAG}", *cache_from]
    engine.docker(*build, "--target", "deps", "--tag", deps_tag, str(ROOT), timeout=BUILD_TIMEOUT)
    tag = "gauntlet:test-" + _deps_key(base_id)
    engine.docker(*build, "--tag", tag, str(ROOT), timeout=BUILD_TIMEOUT)
    built = time.monotonic()
    if not cache_from:
        _save(engine, deps_tag, saved)
    size = int(engine.docker("image", "inspect", "--format", "{{.Size}}", tag, timeout=30).strip())
    return Image(tag=tag, deps_tag=deps_tag, size_bytes=size, base_seconds=based - started, build_seconds=built - based)


def _deps_key(base_id: str) -> str:
    """A short hash of what the ``deps`` stage is built from."""
    digest = hashlib.sha256(base_id.encode())
    for name in ("Dockerfile", "pyproject.toml"):
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()[:16]


def _load(engine: Engine, saved: Path) -> bool:
    """Load a cached image archive; a damaged one is deleted (it is rebuilt), not trusted."""
    if not saved.exists():
        return False
    proc = subprocess.run(
        ["docker", "load", "--quiet", "--input", str(saved)],
        env=engine.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        saved.unlink()
        return False
    return True


def _save(engine: Engine, tag: str, saved: Path) -> None:
    """Save an image archive in the cache, replacing older ones of its kind (each is about 300 MB)."""
    partial = saved.with_name(f"partial-{os.getpid()}-{saved.name}")
    engine.docker("save", "--output", str(partial), tag, timeout=300)
    for old in saved.parent.glob("deps-*.tar"):
        old.unlink()
    partial.rename(saved)


@dataclass(frozen=True)
class Job:
    """The runner's folders for one container step, on the host."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def workflow(self) -> Path:
        return self.root / "_github_workflow"

    @property
    def file_commands(self) -> Path:
        return self.root / "_runner_file_commands"

    @property
    def home(self) -> Path:
        return self.root / "_github_home"

    @classmethod
    def make(cls, root: Path) -> Job:
        """Create the folders."""
        job = cls(root)
        for folder in (job.workspace, job.workflow, job.file_commands, job.home):
            folder.mkdir(parents=True)
        return job


@dataclass(frozen=True)
class Run:
    """What one container step left: exit code, stdout and stderr, outputs file text, summary text, timings."""

    code: int
    stdout: str
    stderr: str
    output_text: str
    summary: str
    seconds: float
    first_output_seconds: float | None


def run_as_runner(engine: Engine, image: str, job: Job, env: Mapping[str, str]) -> Run:
    """Run ``image`` the way the runner runs a Docker action step.

    ``env`` holds the ``INPUT_*`` and ``GITHUB_*`` values that point at the sandbox; the paths inside the
    container (workspace, event, outputs, summary) are set here, as the runner sets them.
    """
    step = uuid.uuid4()
    output = job.file_commands / f"set_output_{step}"
    summary = job.file_commands / f"step_summary_{step}"
    output.touch()
    summary.touch()
    inside = {
        "HOME": "/github/home",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_OUTPUT": f"/github/file_commands/{output.name}",
        "GITHUB_STEP_SUMMARY": f"/github/file_commands/{summary.name}",
        "RUNNER_TEMP": str(job.root),
        **env,
    }
    name = f"gauntlet-step-{step}"
    command = ["docker", "run", "--rm", "--name", name, "--network", "host", "--workdir", "/github/workspace"]
    for host, container in (
        (job.home, "/github/home"),
        (job.workflow, "/github/workflow"),
        (job.file_commands, "/github/file_commands"),
        (job.workspace, "/github/workspace"),
    ):
        command += ["-v", f"{host}:{container}"]
    for key in inside:  # by name only, as the runner does: values stay out of the command line
        command += ["-e", key]
    command.append(image)
    errors = job.root / f"stderr-{step}"
    started = time.monotonic()
    first: float | None = None
    lines: list[str] = []
    with (
        errors.open("w", encoding="utf-8") as stderr,
        subprocess.Popen(
            command, env={**engine.env(), **inside}, stdout=subprocess.PIPE, stderr=stderr, text=True
        ) as proc,
    ):
        # A hung container is killed (the client alone would leave it running) and the read below then ends.
        watchdog = threading.Timer(RUN_TIMEOUT, _kill, args=(engine, name, proc))
        watchdog.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if first is None:
                    first = time.monotonic() - started
                lines.append(line)
            code = proc.wait()
        finally:
            watchdog.cancel()
    if code == -signal.SIGKILL:
        raise AssertionError(f"the container step ran longer than {RUN_TIMEOUT}s and was killed")
    return Run(
        code=code,
        stdout="".join(lines),
        stderr=errors.read_text(encoding="utf-8"),
        output_text=output.read_text(encoding="utf-8"),
        summary=summary.read_text(encoding="utf-8"),
        seconds=time.monotonic() - started,
        first_output_seconds=first,
    )


def _kill(engine: Engine, name: str, proc: subprocess.Popen[str]) -> None:
    subprocess.run(["docker", "kill", name], env=engine.env(), capture_output=True, timeout=30, check=False)
    proc.kill()
