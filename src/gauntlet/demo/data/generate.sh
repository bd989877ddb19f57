#!/usr/bin/env bash
# How the demo's logs were made: real pytest output on the small project in ./project.
# pytest 9.2.0, Python 3.11.7. Iteration 1 runs the broken calc.py (add subtracts);
# iteration 2 runs it after the fix `return a + b`.
set -eu
cd "$(dirname "$0")/project"
sed -i "s/return a + b/return a - b/" calc.py
python -m pytest -q --tb=short -p no:cacheprovider tests > ../pytest-iteration-1.log || true
sed -i "s/return a - b/return a + b/" calc.py
python -m pytest -q --tb=short -p no:cacheprovider tests > ../pytest-iteration-2.log || true
