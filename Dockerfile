# Gauntlet as a Docker container action. action.yml says `image: Dockerfile`; a release rewrites that to a
# prebuilt multi-arch image (.github/workflows/release.yml). BASE_IMAGE lets the tests build on a local stand-in
# base (docker/base-image.sh); both stages use it, so the virtual environment's interpreter link stays valid.
ARG BASE_IMAGE=python:3.11.11-slim-bookworm

FROM ${BASE_IMAGE} AS deps
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore
# No pip inside the environment: the base's pip installs into it (`pip --python`), so the image carries one pip.
RUN python -m venv --without-pip /opt/gauntlet

# Dependencies first, in their own layer, so a source change rebuilds only the last layers. Wheels only: no
# compiler is needed on any architecture, and a missing wheel fails the build instead of pulling in a toolchain.
# numpy's own test suites (17 MB) are never run here. hatchling goes into this stage's system Python only, to
# build Gauntlet's wheel below without fetching anything: the layers after this one need no network.
COPY pyproject.toml /src/
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('/src/pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && python -m pip --python /opt/gauntlet/bin/python install --only-binary=:all: -r /tmp/requirements.txt \
    && find /opt/gauntlet/lib -path '*/site-packages/numpy/*' -type d -name tests -prune -exec rm -rf {} + \
    && python -m pip install --only-binary=:all: "hatchling>=1.24"

FROM deps AS build
COPY README.md /src/
COPY src /src/src
COPY templates /src/templates
RUN python -m pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/wheels /src \
    && python -m pip --python /opt/gauntlet/bin/python install --no-deps /tmp/wheels/gauntlet-*.whl

FROM ${BASE_IMAGE}
COPY --from=build /opt/gauntlet /opt/gauntlet
# The bytecode compiled at install time stays (fast start); nothing new is written into the image at run time.
ENV PATH=/opt/gauntlet/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# No USER and no WORKDIR: the runner mounts the workspace at /github/workspace, makes it the working directory
# and runs as root, so files Gauntlet writes there stay readable by the job's later steps. The entrypoint is an
# absolute path because a runner may pass its own PATH into the container (nektos/act does).
ENTRYPOINT ["/opt/gauntlet/bin/gauntlet", "run"]
