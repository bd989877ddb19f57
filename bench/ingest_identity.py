"""Check that ``gauntlet ingest --json`` prints the same bytes before and after a change, on every corpus log.

Usage::

    PYTHONPATH=OLD/src .venv/bin/python bench/ingest_identity.py --save /tmp/before.json --big /tmp/genlog.log
    .venv/bin/python bench/ingest_identity.py --compare /tmp/before.json --big /tmp/genlog.log

A speed change must not change what is found. Every ``input.log`` of ``tests/fixtures/corpus*``, every log of
``tests/fixtures/logs`` and every log of ``../shared/corpora/logchunks-dev`` is ingested in this process (as
``main(["ingest", "--json", PATH])``, its exit code, stdout and stderr kept), once as it runs and once with the
prefilter's read-ahead child forced on for small files too (:data:`gauntlet.ingest.log.prefetch.MIN_BYTES` set to
0). Each ``--big`` log is ingested by the command line in a process of its own, the way ``bench/ingest.py`` runs it:
with the child, pinned to one core (no child), and with only Hyperscan or only the standard library's search.
``--save`` writes the outputs (run it on the old code); ``--compare`` runs the same and exits 1 at the first output
that differs, naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``../shared`` from the main checkout, ``../../../shared`` from a worktree under ``wt/``.
CORPORA = [base / "shared" / "corpora" / "logchunks-dev" for base in ROOT.parents]
#: How ``bench/ingest.py`` runs the big log: as installed, on one core (no child), and with one search each.
VARIANTS = {
    "child": "",
    "one core": "import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); ",
    "hyperscan": "sys.modules['ahocorasick_rs'] = None; ",
    "stdlib": "sys.modules['ahocorasick_rs'] = None; sys.modules['hyperscan'] = None; ",
}
_INGEST = "import sys; {}from gauntlet.cli import main; raise SystemExit(main(sys.argv[1:]))"


def corpus_logs() -> list[Path]:
    """Every log of the corpora, in a fixed order."""
    fixtures = ROOT / "tests" / "fixtures"
    logs = sorted(fixtures.glob("corpus*/**/input.log")) + sorted(fixtures.glob("logs/**/*.log"))
    for corpus in CORPORA:
        if corpus.is_dir():
            logs.extend(sorted(corpus.rglob("*.log")))
            break
    return logs


def _in_process(logs: list[Path], *, forced: bool) -> Iterator[tuple[str, list[object]]]:
    from gauntlet.cli import main
    from gauntlet.ingest.log import prefetch

    saved = prefetch.MIN_BYTES
    if forced:
        prefetch.MIN_BYTES = 0
    try:
        for log in logs:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["ingest", "--json", str(log)])
            yield f"{'child ' if forced else ''}{log.relative_to(log.anchor)}", [code, out.getvalue(), err.getvalue()]
    finally:
        prefetch.MIN_BYTES = saved


def _processes(big: list[Path]) -> Iterator[tuple[str, list[object]]]:
    for log in big:
        for name, prelude in VARIANTS.items():
            command = [sys.executable, "-c", _INGEST.format(prelude), "ingest", "--json", str(log)]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            yield f"{name} {log}", [done.returncode, done.stdout, done.stderr]


def outputs(big: list[Path]) -> Iterator[tuple[str, list[object]]]:
    """Each run's name and its exit code, stdout and stderr."""
    logs = corpus_logs()
    yield from _in_process(logs, forced=False)
    yield from _in_process(logs, forced=True)
    yield from _processes(big)


def main() -> int:
    """Save the outputs, or compare them with saved ones; 1 at the first difference."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", type=Path, metavar="FILE")
    mode.add_argument("--compare", type=Path, metavar="FILE")
    parser.add_argument("--big", type=Path, action="append", default=[], help="a big log, run as the CLI runs")
    args = parser.parse_args()
    before = json.loads(args.compare.read_text()) if args.compare else None
    found: dict[str, list[object]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # no .github/gauntlet.yml of this checkout's: the default configuration
        for name, output in outputs([log.resolve() for log in args.big]):
            found[name] = output
            if before is not None and before.get(name) != output:
                print(f"differs: {name}\n  before: {before.get(name)!r:.2000}\n  after:  {output!r:.2000}")
                return 1
    if args.save:
        args.save.write_text(json.dumps(found))
    elif before is not None and set(before) != set(found):
        print(f"runs differ: {sorted(set(before) ^ set(found))[:10]}")
        return 1
    findings = sum(str(output[1]).count("\n") for output in found.values())
    print(f"{len(found)} runs, {findings} findings: {'saved' if args.save else 'identical'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
