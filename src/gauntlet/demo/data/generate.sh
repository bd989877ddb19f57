#!/usr/bin/env bash
# How the demo's CI logs were made: real pytest and ruff output on the small project's trees.
# pytest 9.2.0, ruff 0.17.6, Python 3.11.7. Run from anywhere; it rewrites the logs in this folder.
#
#   project/                     the PR's tree: calc.py (add, divide, mean) and its four tests
#   main/                        the default branch before the pull request
#   changes/pr-1-calc.py         the PR's first push: add subtracts, an unused import, no zero guards
#   changes/pr-2-calc.py         the PR's fix
#   changes/main-culprit-calc.py a commit that breaks main
#
# review-iteration-1.json and review-iteration-2.json are the reviewers' findings on the PR's two pushes
# (gauntlet's review format, written by hand: reviewers are people and agents, not tools to re-run).
#
# pytest-iteration-2.log (project/ as it is: add fixed, the zero guards still missing) is what the
# action's scenario tests use for a second iteration; the demo's second iteration is pytest-pr-fixed.log.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"

# copy TREE CALC: a scratch copy of TREE with calc.py replaced by CALC (kept when CALC is -); prints its path.
copy() {
    work="$(mktemp -d)"
    cp -r "$here/$1/." "$work"
    if [ "$2" != - ]; then cp "$here/$2" "$work/calc.py"; fi
    echo "$work"
}

# pytest_log TREE CALC LOG and ruff_log TREE CALC LOG: the tool's output on that tree, as CI prints it.
pytest_log() {
    work="$(copy "$1" "$2")"
    (cd "$work" && python -m pytest -q --tb=short -p no:cacheprovider tests > "$here/$3") || true
    rm -rf "$work"
}
ruff_log() {
    work="$(copy "$1" "$2")"
    (cd "$work" && ruff check --no-cache --isolated --output-format=full . > "$here/$3") || true
    rm -rf "$work"
}

pytest_log project changes/pr-1-calc.py pytest-iteration-1.log
ruff_log project changes/pr-1-calc.py ruff-iteration-1.log
pytest_log project - pytest-iteration-2.log
pytest_log project changes/pr-2-calc.py pytest-pr-fixed.log
ruff_log project changes/pr-2-calc.py ruff-pr-fixed.log
pytest_log main - pytest-main-green.log
pytest_log main changes/main-culprit-calc.py pytest-main-broken.log
