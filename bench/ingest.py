"""Benchmark ``gauntlet ingest`` against ``grep -c -E`` on the same realistic job log; prints ratios and peak RSS.

Usage::

    .venv/bin/python bench/ingest.py [--size-mb 200] [--log PATH] [--keep] [--runs 3] [--sizes 200,1000]

The issue's figure is on the shared generator's log (``genlog.py LINES OUT``: 1% step framing, ~6% lines with
failure words that are no failures, rare real failures; 2,600,000 lines are about 225 MB)::

    python3 ../shared/tools/genlog.py 2600000 /tmp/genlog.log
    .venv/bin/python bench/ingest.py --log /tmp/genlog.log --runs 5

The log is written once (streamed, in GitHub's job-log format) from templates of
what passing CI output looks like (pip, compilers, pytest -v, npm, docker
BuildKit, cargo, Maven). As in real job logs, about :data:`ANCHORED_SHARE` of the
lines carry a failure-ish word without being a failure (``test_error_handling
PASSED``, ``-Werror``, ``Failures: 0, Errors: 0``, ``... ok``) and about
:data:`FRAMING_SHARE` are step framing (``##[group]Run ...`` up to
``##[endgroup]``); the job ends with one failed step (a pytest failure, a compiler
error, the runner's exit line). grep gets the same anchors as the prefilter, so
both find the same candidate lines; gauntlet also parses them.

Each figure (the median of ``--runs``) is for the whole process, ``gauntlet ingest`` as a user runs it
(interpreter start, imports, reading, parsing, printing), timed against grep in
the same run (the machine is shared, so only ratios within one run compare).
On a big log with two cores the prefilter's pass runs in a child process ahead of
the scanner (``gauntlet.ingest.log.prefetch``), started before pydantic and the
parsers load, and it also reads back and locates the failed steps it sees; the
figures count both processes' CPU time, and the peak RSS is the larger of the two. It runs four
times: as installed (the prefilter's aho-corasick search, which needs no
Hyperscan), the same pinned to one core (so in one process, no child), as on a
machine with Hyperscan but not ahocorasick-rs (that module made unimportable),
and with neither library (the standard library's search). ``--sizes`` also runs
it on larger logs to show that peak memory stays flat. The package's bytecode is
compiled first, as installing it from a wheel does.

On the shared generator's 225 MB log (2026-12-04, issue 31's third pass, two runs of ``--runs 3`` each, main's
source and then the branch's) the default form takes 0.76 to 0.82 s, 0.32x to 0.36x grep (main: 1.26 to 1.33 s,
0.19x to 0.20x), one process 0.22x (0.15x to 0.16x), Hyperscan only 0.31x to 0.35x (0.19x to 0.20x) and stdlib
only 0.09x (as before), peak RSS 36 MB, 28 findings; docs/ci-logs.md ("The locator's cost per failed step") has
the table. The generic rules of the fourth pass (fresh11 to fresh16) cost a tenth more CPU on that log (more
placing per failed step): 0.80 s, 0.31x to 0.32x grep (0.70 s, 0.36x to 0.37x at their start, in the same run;
one process 1.27 s against 1.13 s). The fifth pass's rules (fresh14 to fresh19, 2026-12-05) cost nothing measurable:
0.82 s, 0.30x grep (runs 0.30 to 0.38), one process 1.28 s, 35 findings (a failed checkout step is no checker's
now, so its quiet steps are no longer merged as one lint finding). The sixth pass's rules (fresh20, fresh21,
2026-12-05) cost no measurable time either (one process, interleaved with cfbc606's source: 1.42 to 1.72 s of CPU
against 1.44 to 1.55 s), and find 29: a gcc command line a passing step echoed no longer places the failure of a
quiet step as a build error. A change to speed must not change what is found:
``bench/ingest_identity.py`` checks that ``ingest --json`` prints the same bytes on every corpus log (with the
read-ahead child and without) and on a big log in each of these forms.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gauntlet
from gauntlet.ingest.log.prefilter import grep_pattern

#: Share of lines with a failure-ish word that is no failure, and of step framing lines (real job logs).
ANCHORED_SHARE = 0.06
FRAMING_SHARE = 0.01
ANCHORED = [
    "gcc -O2 -Wall -Werror -fPIC -Iinclude -c src/module_{n}.c -o build/module_{n}.o",
    "g++ -std=c++17 -O2 -c src/error_reporter_{n}.cpp -o build/error_reporter_{n}.o",
    "tests/test_api_{n}.py::test_error_handling_{m} PASSED                      [ {m}%]",
    "tests/unit/test_parser.py::TestParser::test_fail_fast_disabled_{n} PASSED   [ {m}%]",
    "[INFO] Tests run: {m}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.{n} s",
    "test result: ok. {m} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{n}s",
    "test tests::error_paths_{n} ... ok",
    "  ✓ handles network errors gracefully ({m} ms)",
    "  -> Using cached wheel for package_{n} (errorless build cache hit {m})",
    "Requirement already satisfied: exceptiongroup>=1.0.{n} in ./venv/lib/python3.11/site-packages",
    "=== RUN   TestRetryOnFailure_{n}",
    "--- PASS: TestRetryOnFailure_{n} (0.{m}s)",
    "+ exit 0",
]
PASSING = [
    "gcc -O2 -Wall -fPIC -Iinclude -c src/module_{n}.c -o build/module_{n}.o",
    "tests/test_api_{n}.py::test_get_item_{m} PASSED                            [ {m}%]",
    "Collecting numpy==1.26.{n} (from -r requirements.txt (line {m}))",
    "  Downloading numpy-1.26.{n}-cp311-cp311-manylinux_2_17_x86_64.whl (18.{m} MB)",
    "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 18.2/18.2 MB 95.{m} MB/s eta 0:00:00",
    "Requirement already satisfied: urllib3<3,>=1.21.1 in /opt/hostedtoolcache/Python/3.11.{n}/x64/lib",
    "   Compiling serde v1.0.{n}",
    "   Compiling proc-macro2 v1.0.{m}",
    "tests/test_api_{n}.py::test_get_user_{m} PASSED                            [ {m}%]",
    "test tests::parses_input_{n} ... ok",
    "ok  \tgithub.com/acme/service/internal/store_{n}\t0.{m}s",
    "npm warn deprecated inflight@1.0.{n}: This module is not supported, and leaks memory.",
    "added {n}{m} packages, and audited {m}{n} packages in 3s",
    "#{n} [build {m}/9] RUN pip install --no-cache-dir -r requirements.txt",
    "#{n} 2.{m} Successfully installed flask-3.0.{n} werkzeug-3.0.{m}",
    "  PASS  src/components/Button_{n}.test.tsx ({m}.2 s)",
    "[INFO] Compiling {m} source files to /home/runner/work/app/app/target/classes",
    "Downloaded from central: https://repo.example/maven2/org/slf4j/slf4j-api/2.0.{n}/slf4j-api.jar",
    "Receiving objects: {m}% ({n}/{n}{m}), 1.{m} MiB | 12.{n} MiB/s, done.",
]
#: A passing step's header as the runner prints it: four framing lines of every five here.
STEP = ["##[group]Run make test-{n}", "make test-{n}", "shell: /usr/bin/bash -e {{0}}", "##[endgroup]"]
FAILURE = """\
##[group]Run pytest -q && make
pytest -q && make
shell: /usr/bin/bash -e {{0}}
##[endgroup]
=================================== FAILURES ===================================
_______________________________ test_divide_{n} ________________________________

    def test_divide_{n}():
>       assert divide(1, 0) is None
E       ZeroDivisionError: division by zero

tests/test_calc.py:11: ZeroDivisionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_divide_{n} - ZeroDivisionError: division by zero
========================= 1 failed, 9 passed in 0.31s ==========================
src/app_{n}.c:7:20: error: too many arguments to function 'add'
make: *** [Makefile:4: app] Error 1
##[error]Process completed with exit code 1."""


def write_log(path: Path, size_mb: int, seed: int = 7) -> None:
    """Write a realistic GitHub job log of about ``size_mb`` MB to ``path``, streaming."""
    rng = random.Random(seed)
    target = size_mb * 1_000_000
    written = 0
    second = 0
    # One step header (len(STEP) framing lines, two of them ##[...]) per this many lines gives FRAMING_SHARE.
    step_every = int(len(STEP) / FRAMING_SHARE)
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            second += 1
            stamp = f"2026-11-29T12:{second // 60 % 60:02d}:{second % 60:02d}."
            lines = []
            for index in range(2000):
                if index % step_every == 0:
                    templates = STEP
                else:
                    templates = [rng.choice(ANCHORED if rng.random() < ANCHORED_SHARE else PASSING)]
                for template in templates:
                    text = template.format(n=rng.randrange(100), m=rng.randrange(100))
                    lines.append(f"{stamp}{rng.randrange(10**7):07d}Z {text}\n")
            chunk = "".join(lines)
            out.write(chunk)
            written += len(chunk.encode())
        tail = FAILURE.format(n=second).splitlines()
        out.write("".join(f"2026-11-29T13:00:00.0000000Z {line}\n" for line in tail))


def _run(command: list[str]) -> tuple[float, int, str, float]:
    """Run a command to its end; return its wall seconds, its own peak RSS (KiB), its stdout and CPU seconds."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in (0, 1):
            raise SystemExit(f"{command[:3]} exited with {process.returncode}")
        out.seek(0)
        return elapsed, usage.ru_maxrss, out.read().decode(), usage.ru_utime + usage.ru_stime


# ``gauntlet ingest --json LOG`` as the console script runs it; the other forms first make search libraries
# unimportable (a ``None`` entry in sys.modules), as on a machine where they are not installed. By default
# the prefilter runs aho-corasick (no Hyperscan at all); without it, Hyperscan; without both, ``bytes.find``.
# "one process" is the default without the read-ahead child (as on one core): what the child saves.
INGEST = "import sys; from gauntlet.cli import main; raise SystemExit(main(sys.argv[1:]))"
LABELS = {
    "default": "aho-corasick",
    "single": "one process",
    "hyperscan": "Hyperscan only",
    "stdlib": "stdlib only",
}
_HIDDEN = {"default": [], "single": [], "hyperscan": ["ahocorasick_rs"], "stdlib": ["ahocorasick_rs", "hyperscan"]}
# The read-ahead child is started only with a second core: this form says there is one.
_ONE_CORE = "import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "


def measure(log: Path, runs: int) -> dict[str, list[tuple[float, int, str, float]]]:
    """Every run's wall time, peak RSS, output and CPU time of grep and of each ingest form, in run order."""
    commands = {"grep": ["grep", "-c", "-E", grep_pattern(), str(log)]}
    for name, hidden in _HIDDEN.items():
        if name == "single" and not hasattr(os, "sched_setaffinity"):
            continue  # no way to pin a process to one core here
        code = "import sys; " + "".join(f"sys.modules[{module!r}] = None; " for module in hidden) + INGEST
        if name == "single":
            code = _ONE_CORE + code
        commands[name] = [sys.executable, "-c", code, "ingest", "--json", str(log)]
    results: dict[str, list[tuple[float, int, str, float]]] = {name: [] for name in commands}
    for _ in range(runs):  # interleaved, so a busy moment of the shared machine hits all of them alike
        for name, command in commands.items():
            results[name].append(_run(command))
    return results


def report(log: Path, runs: int) -> None:
    """Print grep's and gauntlet's throughput, their ratio and gauntlet's peak RSS for one log (medians of runs).

    The ratio is taken within each run (grep and gauntlet a moment apart) and its median printed, with the
    run-to-run range: the machine is shared, so only ratios within one run compare.
    """
    size_mb = log.stat().st_size / 1_000_000
    subprocess.run(["cat", str(log)], check=True, stdout=subprocess.DEVNULL)  # warm the page cache for all
    results = measure(log, runs)
    greps = results["grep"]
    grep_s = statistics.median(run[0] for run in greps)
    grep_cpu = statistics.median(run[3] for run in greps)
    print(f"log:          {size_mb:.0f} MB, {log}")
    print(
        f"grep -c -E:   {grep_s:.2f} s ({grep_cpu:.2f} s CPU), {size_mb / grep_s:.0f} MB/s, {greps[0][2].strip()} lines"
    )
    for name, label in LABELS.items():
        if name not in results:
            continue
        runs_of = results[name]
        wall_s = statistics.median(run[0] for run in runs_of)
        cpu_s = statistics.median(run[3] for run in runs_of)
        ratios = sorted(grep[0] / run[0] for grep, run in zip(greps, runs_of, strict=True))
        cpu_ratio = statistics.median(grep[3] / run[3] for grep, run in zip(greps, runs_of, strict=True))
        peak_kib = max(run[1] for run in runs_of)
        found = len(runs_of[0][2].splitlines())
        print(
            f"gauntlet ingest, {label:14}: {wall_s:.2f} s ({cpu_s:.2f} s CPU), {size_mb / wall_s:.0f} MB/s, "
            f"{statistics.median(ratios):.2f}x grep (runs {ratios[0]:.2f}-{ratios[-1]:.2f}; "
            f"{cpu_ratio:.2f}x in CPU time), peak RSS {peak_kib / 1024:.0f} MB, {found} findings"
        )


def main() -> int:
    """Write (or reuse) the logs, run grep and ``gauntlet ingest`` on each (medians of ``--runs``), print figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--sizes", help="comma-separated sizes in MB to run in turn (memory stays flat)")
    parser.add_argument("--log", type=Path, help="use this log instead of writing one")
    parser.add_argument("--keep", action="store_true", help="keep the generated logs")
    parser.add_argument("--runs", type=int, default=3, help="report the medians of this many runs of each")
    args = parser.parse_args()
    # As installed from a wheel (pip and the image compile bytecode at install time): an editable checkout
    # under PYTHONDONTWRITEBYTECODE would otherwise compile every module from source on every start.
    compileall.compile_dir(Path(gauntlet.__file__).parent, quiet=1)
    if args.log is not None:
        report(args.log, args.runs)
        return 0
    sizes = [int(size) for size in args.sizes.split(",")] if args.sizes else [args.size_mb]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, medians of {args.runs} runs")
    for size in sizes:
        log = Path(tempfile.mkdtemp(prefix="gauntlet-bench-")) / "job.log"
        write_log(log, size)
        try:
            report(log, args.runs)
        finally:
            if not args.keep:
                log.unlink()
                log.parent.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
