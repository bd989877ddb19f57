#!/usr/bin/env bash
# How the demo's logs were made: real pytest output on the small project in ./project.
# pytest 9.2.0, Python 3.11.7. Iteration 1 runs the broken calc.py (add subtracts);
# iteration 2 runs it after the fix `return a + b`.
#
# The sandbox story (`gauntlet demo`) also needs runs on trees that are not ./project:
#   main/                        the default branch before the pull request (green: pytest-main-green.log)
#   changes/pr-1-calc.py         the PR's first push: ./project with add subtracting (pytest-iteration-1.log)
#   changes/pr-2-calc.py         the PR's fix, all tests pass (pytest-pr-fixed.log)
#   changes/main-culprit-calc.py a commit that breaks main (pytest-main-broken.log)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/project"
sed -i "s/return a + b/return a - b/" calc.py
python -m pytest -q --tb=short -p no:cacheprovider tests > ../pytest-iteration-1.log || true
sed -i "s/return a - b/return a + b/" calc.py
python -m pytest -q --tb=short -p no:cacheprovider tests > ../pytest-iteration-2.log || true

# run_tree TREE CALC LOG: pytest on a copy of TREE with calc.py replaced by CALC (or kept when CALC is -).
run_tree() {
    work="$(mktemp -d)"
    cp -r "$here/$1/." "$work"
    if [ "$2" != - ]; then cp "$here/$2" "$work/calc.py"; fi
    (cd "$work" && python -m pytest -q --tb=short -p no:cacheprovider tests > "$here/$3") || true
    rm -rf "$work"
}
run_tree main - pytest-main-green.log
run_tree main changes/main-culprit-calc.py pytest-main-broken.log
run_tree project changes/pr-2-calc.py pytest-pr-fixed.log
