#!/usr/bin/env bash
# Regenerates the CI logs the main-branch scenarios replay (see PROVENANCE.md).
# Every tool line comes from really running the tool on a small project; the only
# lines written by hand are GitHub Actions' own step-failure line
# ("##[error]Process completed with exit code N."), which the runner prints after a
# failed step and which no local tool can produce.
# Usage: tests/scenarios/main_branch/logs/generate.sh  (needs .venv with pytest, mypy, ruff; gcc)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
venv="$(cd "$here/../../../.." && pwd)/.venv/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p src/app tests native
: > src/app/__init__.py

good_calc() {
  cat > src/app/calc.py <<'EOF'
def add(a: int, b: int) -> int:
    return a + b


def divide(a: float, b: float) -> float:
    return a / b
EOF
}
cat > tests/test_calc.py <<'EOF'
import random

from app.calc import add, divide


def test_add():
    assert add(2, 2) == 4


def test_divide():
    assert divide(9, 3) == 3


def test_lucky():
    # Flaky on purpose: GENERATE_SEED picks whether this run is unlucky.
    assert random.Random(int(__import__("os").environ.get("GENERATE_SEED", "0"))).random() < 0.5
EOF

step_fail() {  # the runner's line after a failed step
  echo "##[error]Process completed with exit code $1."
}

run_pytest() {  # $1 = log name, $2 = seed for the flaky test
  (PYTHONPATH=src GENERATE_SEED="$2" "$venv/python" -m pytest -p no:cacheprovider -q -o console_output_style=classic tests 2>&1
   code=$?; [ $code -ne 0 ] && step_fail $code) > "$here/$1"
}

good_calc
run_pytest pytest-pass.log 3                     # every test passes (seed 3 is lucky)
run_pytest pytest-lucky-flaky.log 0              # only the random test fails (seed 0 is unlucky)

sed -i 's/return a + b/return a - b/' src/app/calc.py
run_pytest pytest-add-broken.log 3               # add() broken: test_add fails
sed -i 's|return a / b|return a // b + 1|' src/app/calc.py
run_pytest pytest-add-divide-broken.log 3        # add() and divide() broken
good_calc
sed -i 's|return a / b|return a // b + 1|' src/app/calc.py
run_pytest pytest-divide-broken.log 3            # divide() broken: test_divide fails

good_calc
sed -i 's/def add(a: int, b: int) -> int:/def add(a: int, b: int) -> str:/' src/app/calc.py
("$venv/mypy" --no-incremental --cache-dir=/dev/null --strict src 2>&1; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/mypy-calc-error.log"                  # a type error in src/app/calc.py

good_calc
printf 'import os, sys\n\n\ndef add(a, b):\n    return a + b  # a line that is much too long for the configured limit of the project\n' > src/app/calc.py
("$venv/ruff" check --no-cache --select E501,F401 --line-length 60 src 2>&1; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/ruff-lint.log"                        # lint only: unused imports, long line

cat > native/parser.c <<'EOF'
#include <stdio.h>

int parse(const char *text) {
    int count = 0
    for (; *text; text++) count += *text == ',';
    return count;
}
EOF
(gcc -c -Wall -o /dev/null native/parser.c 2>&1; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/gcc-parser-error.log"                 # a build error in native/parser.c

cat > native/crash.c <<'EOF'
#include <stdio.h>
int main(void) { int *p = NULL; printf("parsing fixtures\n"); fflush(stdout); return *p; }
EOF
gcc -o native/crash native/crash.c
(bash -c './native/crash; exit $?' 2>&1; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/crash-segfault.log"                   # the test binary dies with SIGSEGV (exit 139)

("$venv/python" -c 'import socket; socket.create_connection(("127.0.0.1", 9), timeout=5)' 2>&1
 code=$?; [ $code -ne 0 ] && step_fail $code) > "$here/infra-connection-refused.log"   # a service is unreachable
("$venv/pip" download --no-cache-dir --retries 0 --index-url http://127.0.0.1:9/simple/ -d "$work/dl" leftpad 2>&1
 code=$?; [ $code -ne 0 ] && step_fail $code) > "$here/pip-index-unreachable.log"       # the package index is down

(dd if=/dev/zero of=/dev/full bs=1k count=1 2>&1; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/infra-disk-full.log"                  # runner disk full

(echo "waiting for the test database"; timeout 1 sleep 5; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/timeout.log"                          # a step killed by timeout(1): exit 124

(bash -c 'echo "checking generated files"; test -z "$(echo stale)"' 2>&1; code=$?; [ $code -ne 0 ] && step_fail $code) \
  > "$here/unknown-exit.log"                     # a step fails without saying why
echo "logs written to $here"
