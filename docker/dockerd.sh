#!/usr/bin/env bash
# A private Docker engine for the container tests: its own data, exec root and socket under DIR, so it never
# touches a system engine, and it is stopped by its PID alone.
#
#   docker/dockerd.sh start DIR   start dockerd (installing Debian's docker.io if missing); print its DOCKER_HOST
#   docker/dockerd.sh stop DIR    stop the dockerd whose PID is in DIR/dockerd.pid, and wait for it
#
# `start` waits at most GAUNTLET_DOCKERD_TIMEOUT seconds (default 60). If the engine cannot be installed or
# cannot start (no permission for cgroups or overlay mounts, say), it exits 3 with the reason (apt's output or the
# daemon's last log lines), so a test can skip and show why. The engine has no bridge network and touches no iptables: builds and containers use the host network.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
dir=$(realpath -m "$2")
sock="$dir/docker.sock"
pidfile="$dir/dockerd.pid"
log="$dir/dockerd.log"

install_engine() {
    command -v dockerd >/dev/null && command -v docker >/dev/null && return
    echo "dockerd.sh: installing Debian's docker.io" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq --no-install-recommends docker.io; } >&2
    then
        echo "dockerd.sh: cannot install Debian's docker.io here (apt-get failed, see above)" >&2
        exit 3
    fi
}

start() {
    install_engine
    mkdir -p "$dir/data" "$dir/exec"
    # setsid: the engine outlives this script and is not hit by a Ctrl-C aimed at the caller's process group.
    setsid dockerd \
        --data-root "$dir/data" \
        --exec-root "$dir/exec" \
        --pidfile "$pidfile" \
        -H "unix://$sock" \
        --bridge=none --iptables=false --ip6tables=false \
        </dev/null >"$log" 2>&1 &
    local pid=$!
    local deadline=$((SECONDS + ${GAUNTLET_DOCKERD_TIMEOUT:-60}))
    until DOCKER_HOST="unix://$sock" timeout 10 docker version >/dev/null 2>&1; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "dockerd.sh: dockerd exited while starting; its last log lines:" >&2
            tail -n 15 "$log" >&2
            exit 3
        fi
        if ((SECONDS >= deadline)); then
            echo "dockerd.sh: dockerd did not answer within ${GAUNTLET_DOCKERD_TIMEOUT:-60}s; its last log lines:" >&2
            tail -n 15 "$log" >&2
            kill "$pid" 2>/dev/null || true
            exit 3
        fi
        sleep 0.5
    done
    echo "unix://$sock"
}

stop() {
    if [[ -f $pidfile ]]; then
        stop_pid "$(<"$pidfile")"
    fi
    unmount_leftovers
}

stop_pid() {
    local pid=$1
    kill "$pid" 2>/dev/null || return 0
    # dockerd stops its containers and its containerd first; give it 30 s, then end it.
    for _ in $(seq 60); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.5
    done
    kill -KILL "$pid" 2>/dev/null || true
}

unmount_leftovers() {
    # dockerd leaves its host network namespace (exec-root/netns/default) mounted, and a killed one leaves
    # overlay mounts: unmount everything under DIR, deepest first, so the folder can be removed.
    local mounts
    mounts=$(awk -v dir="$dir/" 'index($2, dir) == 1 { print $2 }' /proc/self/mounts | sort -r)
    [[ -z $mounts ]] || xargs -r -n1 umount -l <<<"$mounts"
}

case $action in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
