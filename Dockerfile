# syntax=docker/dockerfile:1
# Gauntlet as a Docker container action. BASE_IMAGE lets the tests build on a local stand-in base.
ARG BASE_IMAGE=python:3.11.11-slim-bookworm
FROM ${BASE_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# git: the revert and state features shell out to nothing, but users' workflows expect it in the image.
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, in their own layer, so source changes rebuild only the last layers.
COPY pyproject.toml README.md /opt/gauntlet/
RUN python -c "import tomllib; d = tomllib.load(open('/opt/gauntlet/pyproject.toml', 'rb')); print('\n'.join(d['project']['dependencies']))" > /tmp/requirements.txt \
    && python -m pip install --no-compile -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY src /opt/gauntlet/src
COPY templates /opt/gauntlet/templates
RUN python -m pip install --no-compile --no-deps /opt/gauntlet

ENTRYPOINT ["gauntlet", "run"]
