"""The real-tool corpus (tests/fixtures/corpus) meets its targets: the figures bench/corpus.py prints.

Each log there is a real tool's output on a project broken in a known way; its labels say what was broken
(never what Gauntlet found). The whole corpus is ingested once, in-process.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gauntlet.ingest.log import scan

ROOT = Path(__file__).parents[4]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


@pytest.fixture(scope="module")
def results() -> list[object]:
    return BENCH.run()  # type: ignore[no-any-return]


def test_the_corpus_is_large_and_varied(results: list[object]) -> None:
    total = BENCH.totals(results)
    assert total.cases >= 150
    assert total.tools >= 40
    assert sum(1 for r in results if r.lines > 50_000) >= 2  # type: ignore[attr-defined]
    assert total.passing_logs >= 10


def test_every_case_has_a_generator_and_labels() -> None:
    corpus = ROOT / "tests" / "fixtures" / "corpus"
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        script = (folder / "generate.sh").read_text()
        assert script.splitlines()[1].startswith("#"), folder  # the tools and what is broken, under the shebang
        assert (folder / "versions.txt").read_text().strip(), folder
        for case in (p for p in folder.iterdir() if p.is_dir()):
            assert f"begin {case.name}\n" in script, case
            for line in (case / "labels.jsonl").read_text().splitlines():
                assert set(json.loads(line)) == {"tool", "kind", "path", "line", "test_id"}, case


def test_recall_and_precision_reach_the_targets(results: list[object]) -> None:
    total = BENCH.totals(results)
    assert total.recall >= BENCH.TARGETS["recall"], BENCH.report(results, verbose=False)
    assert total.precision >= BENCH.TARGETS["precision"], BENCH.report(results, verbose=False)


def test_no_duplicates_and_nothing_on_passing_logs(results: list[object]) -> None:
    total = BENCH.totals(results)
    assert total.duplicates == 0, BENCH.report(results, verbose=False)
    assert total.passing_findings == 0, BENCH.report(results, verbose=False)


def test_a_finding_elsewhere_is_no_match() -> None:
    """The scoring can fail: a finding one line off, or in another file of the same name, matches nothing."""
    from gauntlet.models import Finding

    label = BENCH.Label("gcc", "build_error", "src/calc.c", 4, None)

    def finding(path: str, line: int) -> Finding:
        return Finding(
            fingerprint="0" * 16,
            source="log",
            tool="gcc",
            kind="build_error",
            severity="critical",
            path=path,
            line=line,
            message="m",
        )

    assert BENCH.strict(label, finding("src/calc.c", 4))
    assert BENCH.strict(label, finding("calc.c", 4))  # all the log names of it
    assert not BENCH.strict(label, finding("src/calc.c", 5))
    assert not BENCH.strict(label, finding("lib/calc.c", 4))
    assert not BENCH.strict(label, finding("c.c", 4))
    assert BENCH.duplicates([label], [finding("src/calc.c", 4), finding("src/calc.c", 4)]) == 1


UNPARSED = ROOT / "tests" / "fixtures" / "corpus-unparsed"
CORPUS_DIR = ROOT / "tests" / "fixtures" / "corpus"


def test_tools_nobody_wrote_a_parser_for_are_read_by_the_generic_path() -> None:
    """Real output of 32 tools with no parser of their own (``tests/fixtures/corpus-unparsed``): a floor under
    today's figures (strict recall 0.92, precision 0.94 on 2026-12-04; 0.41 / 0.72 before the table of tools),
    and never a finding on a passing log. ``bench/corpus.py --corpus tests/fixtures/corpus-unparsed`` prints
    them; issue 31 asks for 0.70 / 0.92."""
    results = BENCH.run(UNPARSED)
    total = BENCH.totals(results)
    assert total.cases >= 40 and total.passing_logs >= 5
    assert total.recall >= 0.92, BENCH.report(results, verbose=False)
    assert total.precision >= 0.94, BENCH.report(results, verbose=False)
    assert total.passing_findings == 0, BENCH.report(results, verbose=False)


#: The held-out rounds of tools with no parser and no row (``tests/fixtures/corpus-unparsed/fresh*``): each made
#: after the generic path was tuned and measured before any change (the honest estimate for a tool never seen),
#: then the generic rules their misses showed. Untuned on 2026-12-04: fresh 0.368 / 0.639, fresh2 0.355 / 0.633,
#: fresh3 0.148 / 0.407, fresh5 0.517 / 0.621 (after fresh3's rules), fresh6 0.367 / 0.500 (after fresh5's),
#: fresh7 0.531 / 0.727 and fresh4, kept unseen until then, 0.419 / 0.576 with 1 duplicate (after fresh6's;
#: 0.323 / 0.500 before fresh3's), fresh8 0.600 / 0.839 (after fresh4's and fresh7's), fresh10 0.543 / 0.657
#: (0.571 / 0.667 after fresh8's rules, which were written without seeing it), fresh9 0.657 / 0.694 (after
#: fresh10's rules), fresh12 0.281 / 0.406 and fresh11 0.694 / 0.765 (fresh12's rules, dependency failures
#: only, did not move it), fresh13 0.457 / 0.529 (a mix of 29 tools, made after fresh11's and fresh12's
#: rules, kept unseen until they were written), fresh14 0.472 / 0.657 with 1 duplicate (after fresh13's),
#: fresh15 0.514 / 0.649 with 1 duplicate (after fresh14's), fresh16 0.514 / 0.735 (after fresh15's).
#: Floors under today's figures: (folder, logs, passing logs, recall, precision, most duplicates). Issue 31
#: asks for 0.70 / 0.92 and no duplicate.
HELD_OUT = [
    ("fresh", 34, 3, 0.92, 0.97, 0),
    ("fresh2", 33, 3, 0.80, 0.93, 0),
    ("fresh3", 30, 3, 0.62, 0.70, 0),
    ("fresh4", 34, 3, 0.70, 0.74, 0),
    ("fresh5", 31, 3, 0.82, 0.85, 0),
    ("fresh6", 33, 3, 0.83, 0.90, 0),
    ("fresh7", 39, 3, 0.83, 0.87, 0),
    ("fresh8", 32, 3, 0.90, 0.90, 0),
    ("fresh9", 35, 3, 0.82, 0.85, 0),
    ("fresh10", 35, 3, 0.94, 0.97, 0),
    ("fresh11", 35, 3, 0.94, 0.94, 0),
    ("fresh12", 35, 3, 0.87, 0.90, 0),
    ("fresh13", 32, 3, 0.91, 0.91, 0),
    ("fresh14", 32, 3, 0.77, 0.86, 0),
    ("fresh15", 31, 3, 0.83, 0.81, 1),
    # mjml prints its templates' paths with their folder twice, and is read at them (0.838 / 0.865 before)
    ("fresh16", 28, 3, 0.86, 0.84, 0),
    # measured untuned at 0.523 / 0.581 (after its labels' kind was corrected), then its rules were written
    ("fresh17", 35, 4, 0.88, 0.88, 0),
    # measured untuned at 0.627 / 0.745, then its rules were written
    ("fresh19", 38, 4, 0.82, 0.91, 0),
    # measured untuned at 0.540 / 0.763, 0.560 / 0.789 after fresh21's rules, then its own were written
    ("fresh20", 36, 4, 0.74, 0.84, 0),
    # measured untuned at 0.489 / 0.732, then its rules were written
    ("fresh21", 37, 4, 0.70, 0.86, 0),
]


@pytest.mark.parametrize(("folder", "cases", "passing", "recall", "precision", "duplicates"), HELD_OUT)
def test_tools_held_out_from_the_tuning_are_read_by_the_generic_path(
    folder: str, cases: int, passing: int, recall: float, precision: float, duplicates: int
) -> None:
    """A held-out round keeps its figures, no more duplicates than when it was measured (none once tuned), and
    never a finding on a passing log."""
    results = BENCH.run(UNPARSED / folder)
    total = BENCH.totals(results)
    assert total.cases >= cases and total.passing_logs >= passing
    assert total.recall >= recall, BENCH.report(results, verbose=False)
    assert total.precision >= precision, BENCH.report(results, verbose=False)
    assert total.duplicates <= duplicates, BENCH.report(results, verbose=False)
    assert total.passing_findings == 0, BENCH.report(results, verbose=False)


def test_each_tool_without_its_own_parser_leave_one_out() -> None:
    """Every log of the corpus scored with its tools' own parsers out of play (the generic path alone): issue
    31's targets, strict recall >= 0.80 and precision >= 0.93 (0.959 / 0.987 on 2026-12-04; 0.567 / 0.776
    before the table of tools), and nothing on a passing log."""
    results = BENCH.run(leave_out=True)
    total = BENCH.totals(results)
    assert total.recall >= 0.80, BENCH.report(results, verbose=False)
    assert total.precision >= 0.93, BENCH.report(results, verbose=False)
    assert total.passing_findings == 0, BENCH.report(results, verbose=False)


def _steps(log: Path) -> list[bytes]:
    """A GitHub log's own steps (after the checkout, before the runner's post-job cleanup)."""
    lines = log.read_bytes().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if b"##[group]Run " in line and b"actions/checkout" not in line)
    end = next((i for i, line in enumerate(lines) if b"Post job cleanup" in line), len(lines))
    return lines[start:end]


@pytest.mark.parametrize("folder", [row[0] for row in HELD_OUT])
def test_a_failed_step_reads_the_same_after_steps_that_passed(folder: str) -> None:
    """Each failing log of a round, its steps put after the steps of the round's passing logs (real output of
    the same tools, passing): the same findings. What a passing step printed is no failure and explains none
    (fresh8's passing poku run read as a failed test, and took the place of 32 logs' findings)."""
    passing = sorted((UNPARSED / folder).glob("*/*passing*/input.log"))
    before = [line for log in passing for line in _steps(log)]
    assert before
    for log in sorted((UNPARSED / folder).glob("*/*/input.log")):
        if "passing" in log.parent.name:
            continue
        lines = log.read_bytes().splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if b"##[group]Run " in line and b"actions/checkout" not in line)
        alone = [(f.kind, f.path, f.line, f.test_id) for f in scan(lines)]
        after = [(f.kind, f.path, f.line, f.test_id) for f in scan([*lines[:at], *before, *lines[at:]])]
        assert after == alone, log


_WORKSPACE = "/home/runner/work/demo/demo"
_UNDER_WORKSPACE = re.compile(re.escape(_WORKSPACE) + r"[^\s:'\"()\[\],]*")


def _on_windows(raw: bytes) -> bytes:
    """A log as a Windows runner writes it (frame.py's ``--windows``): CRLF, ``D:\\a\\demo\\demo\\`` paths."""
    text = raw.decode("utf-8", "surrogateescape")
    moved = _UNDER_WORKSPACE.sub(lambda m: "D:\\a\\demo\\demo" + m.group(0)[len(_WORKSPACE) :].replace("/", "\\"), text)
    return moved.replace("\n", "\r\n").encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("folder", [CORPUS_DIR, *(UNPARSED / row[0] for row in HELD_OUT)], ids=lambda p: p.name)
def test_a_log_reads_the_same_from_a_windows_runner(folder: Path) -> None:
    """Every log of the corpus and of the held-out rounds with a Windows runner's line ends and workspace: the
    same findings (a node frame, a diagnostic at ``D:\\...``, the prefilter's shapes and unittest's verdict took
    the drive for a name, and a Go race's frames were read only from ``/``)."""
    for log in sorted(folder.glob("**/input.log")):
        raw = log.read_bytes()
        posix = [(f.kind, f.path, f.line, f.test_id) for f in scan(io.BytesIO(raw))]
        windows = [(f.kind, f.path, f.line, f.test_id) for f in scan(io.BytesIO(_on_windows(raw)))]
        assert windows == posix, log


@pytest.mark.parametrize("folder", [row[0] for row in HELD_OUT])
def test_two_failed_steps_of_one_job_read_as_each_alone(folder: str) -> None:
    """Each failing log's step put before the next log's (a first step with ``continue-on-error``): each step's
    findings, as alone. A step's place, rows and diff were read from the step above it too (a Robot test placed
    at the line pyflakes flagged before it: 22 of 311 pairs)."""
    logs = [log for log in sorted((UNPARSED / folder).glob("*/*/input.log")) if "passing" not in log.parent.name]
    for first, second in itertools.pairwise(logs):
        # A test is one defect by its name (its fingerprint): the second step's test of the first step's name is it.
        told = {f.fingerprint: f for log in (second, first) for f in scan(log.read_bytes().splitlines(True))}
        alone = [(f.kind, f.path, f.line, f.test_id) for f in told.values()]
        lines = second.read_bytes().splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if b"##[group]Run " in line and b"actions/checkout" not in line)
        both = [(f.kind, f.path, f.line, f.test_id) for f in scan([*lines[:at], *_steps(first), *lines[at:]])]
        assert sorted(map(repr, both)) == sorted(map(repr, alone)), (first, second)
