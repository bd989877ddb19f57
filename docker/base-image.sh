#!/usr/bin/env bash
# The local stand-in for the official slim Python image, for building the Dockerfile where no registry image can
# be pulled: Debian bookworm's python3 (3.11, as in the default base) with pip and venv, made by mmdebstrap and
# imported into the engine at DOCKER_HOST.
#
#   docker/base-image.sh TAG [CACHE_DIR]
#
# The image is cached in CACHE_DIR (default: $TMPDIR/gauntlet-docker-cache) as a `docker save` archive under a key
# of this script's own text: a change here makes a new one, and a rerun on the same machine skips the minutes
# mmdebstrap takes. Loading the archive gives the same image ID in every engine, so layers built on the base
# can be cached too (`docker build --cache-from`).
# Inside it: Debian's EXTERNALLY-MANAGED marker is gone (the image's pip installs into its own environment),
# the machine's CA bundle replaces Debian's, and pip gets this machine's index settings (/etc/pip.conf), so a
# build here reaches the package index the way pip on this machine does. git is left out: Gauntlet does not run
# it, and the official slim image has none either. Installs mmdebstrap with apt when it is missing.
set -euo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 TAG [CACHE_DIR]" >&2; exit 2; }
tag=$1
cache=${2:-${TMPDIR:-/tmp}/gauntlet-docker-cache}
mirror=${GAUNTLET_DEBIAN_MIRROR:-http://deb.debian.org/debian}
key=$(cksum <"$0" | cut -d' ' -f1)
saved="$cache/base-image-$key.tar"
rootfs="$cache/base-rootfs-$key.tar"

pip_conf() {
    # Only settings that make sense inside the image: the CA bundle (copied in) and an index URL if one is set;
    # this machine's local find-links and file:// indexes are paths the image does not have.
    echo "[global]"
    echo "cert = /etc/ssl/certs/ca-certificates.crt"
    local index
    index=${PIP_INDEX_URL:-$(python3 -m pip config get global.index-url 2>/dev/null || true)}
    [[ -n $index ]] && echo "index-url = $index"
    return 0
}

build_rootfs() {
    if ! command -v mmdebstrap >/dev/null; then
        echo "base-image.sh: installing mmdebstrap" >&2
        export DEBIAN_FRONTEND=noninteractive
        timeout 300 apt-get update -qq >&2
        timeout 600 apt-get install -y -qq --no-install-recommends mmdebstrap >&2
    fi
    mkdir -p "$cache"
    local conf partial="$cache/partial-$$-base-rootfs-$key.tar"
    conf=$(mktemp)
    pip_conf >"$conf"
    local ca=/etc/ssl/certs/ca-certificates.crt
    # stdin from /dev/null: without a mirror on the command line mmdebstrap would read sources from stdin.
    timeout 900 mmdebstrap --variant=minbase --format=tar \
        --include=ca-certificates,python3,python3-pip,python3-venv,python-is-python3 \
        --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --customize-hook='rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED' \
        --customize-hook="cp $ca \"\$1\"$ca" \
        --customize-hook="cp $conf \"\$1\"/etc/pip.conf" \
        bookworm "$partial" "$mirror" </dev/null >&2
    rm -f "$conf"
    mv "$partial" "$rootfs"
}

import_rootfs() {
    # The environment the official image sets; an imported tarball has none, and PATH=...:$PATH would lose it.
    timeout 300 docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        "$rootfs" "gauntlet-base:$key" >/dev/null
    timeout 300 docker save -o "$saved.partial.$$" "gauntlet-base:$key"
    mv "$saved.partial.$$" "$saved"
    rm -f "$rootfs"
    # Bases made by older versions of this script are never loaded again.
    find "$cache" -maxdepth 1 -name 'base-image-*.tar' ! -name "${saved##*/}" -delete
}

if [[ -f $saved ]]; then
    timeout 300 docker load -q -i "$saved" >/dev/null
else
    [[ -f $rootfs ]] || build_rootfs
    import_rootfs
fi
timeout 60 docker tag "gauntlet-base:$key" "$tag"
echo "$tag"
