"""Score log ingestion on the real-tool corpus in tests/fixtures/corpus against the generators' labels.

Usage::

    .venv/bin/python bench/corpus.py [--corpus DIR] [--verbose] [--leave-one-out] [--misses]

Each case is ``<tool>/<case>/input.log`` with ``labels.jsonl``: the failures its ``generate.sh`` caused
(tool, kind, repository-relative path, line, test id), never Gauntlet's own output. Printed:

* strict recall: labels matched by a finding of the same kind at the same place (path, and line where the
  label has one; test id where the label has one and no path); a path matches itself or, where the log
  names only a file's trailing part (``Main.java`` in a Java frame), that part (see :func:`same_path`);
* precision: the share of critical/major findings that explain some label (same place, any kind);
* duplicates: labels explained by more than one finding;
* findings on passing logs (no labels): any finding at all counts;
* per tool, the cases with a miss, a duplicate or an unexplained finding (``--misses``: with every finding
  of those cases, to see what was found instead).

With ``--leave-one-out`` each log is scored a second time with the own parsers of the tools its labels name
taken out of play (:data:`OWN_PARSERS`: the parser modules written for that tool), so what is left is the
generic path (the CI runner's framing, the diagnostic shapes, the line vocabulary): the figure to expect on a
tool nobody wrote a parser for. Both figures are printed, overall and per tool. Tools that only a generic
module knows by name (shellcheck, perl, lua, bash, ...) have no own parser to take out: they count as generic.

Exit 0 always; the corpus test (tests/unit/ingest/log/test_corpus.py) asserts the targets.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import make_parsers, scan
from gauntlet.models import Finding

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "corpus"
TARGETS = {"recall": 0.95, "precision": 0.95}


@dataclass
class Label:
    """One failure a generator caused."""

    tool: str
    kind: str
    path: str | None
    line: int | None
    test_id: str | None


@dataclass
class CaseResult:
    """How the findings of one log compare with its labels."""

    name: str
    labels: list[Label]
    findings: list[Finding]
    matched: list[bool] = field(default_factory=list)
    lines: int = 0
    duplicates: int = 0
    unexplained: list[Finding] = field(default_factory=list)

    @property
    def serious(self) -> list[Finding]:
        """The findings that would fail a gate: critical and major."""
        return [f for f in self.findings if f.severity in ("critical", "major")]


def same_path(label: str, found: str | None) -> bool:
    """The finding names the label's file: the same path, or its trailing part when that is all the log gives.

    Some tools print only what they know of a file: ``ld`` and valgrind the name compiled into the object
    (``main.c`` for ``src/main.c``), a Java stack frame the class's file (``Main.java``). A finding carrying
    that is placed as well as the log allows; it must not invent the rest, and a different file never matches.
    """
    if found is None:
        return False
    found = found.replace("\\", "/")
    return found == label or label.endswith(f"/{found}")


def _same_place(label: Label, finding: Finding) -> bool:
    if label.path is not None:
        if not same_path(label.path, finding.path):
            return False
        return label.line is None or finding.line == label.line
    if label.test_id is not None:
        return finding.test_id is not None and label.test_id in finding.test_id
    return True


def strict(label: Label, finding: Finding) -> bool:
    """The finding names the label's failure: same kind, same place."""
    return finding.kind == label.kind and _same_place(label, finding)


def explains(label: Label, finding: Finding) -> bool:
    """The finding points at the label's failure, whatever kind it gave it (a place-less label: its kind)."""
    if label.path is None and label.test_id is None:
        return finding.kind == label.kind
    return _same_place(label, finding)


def duplicates(labels: list[Label], findings: list[Finding]) -> int:
    """Findings beyond one per label at each place: two labels at one line may have two findings, not three."""
    places: dict[tuple[str, str | None, int | None, str | None], list[Label]] = defaultdict(list)
    for label in labels:
        places[
            (label.kind if label.path is None and label.test_id is None else "", label.path, label.line, label.test_id)
        ].append(label)
    extra = 0
    for group in places.values():
        found = sum(1 for f in findings if any(explains(label, f) for label in group))
        extra += max(0, found - len(group))
    return extra


def load_cases(root: Path) -> list[tuple[str, Path, list[Label]]]:
    """Every case under ``root``: its name (``tool/case``), its log and its labels."""
    cases = []
    for labels_file in sorted(root.glob("*/*/labels.jsonl")):
        rows = [json.loads(line) for line in labels_file.read_text().splitlines() if line.strip()]
        labels = [Label(r["tool"], r["kind"], r["path"], r["line"], r.get("test_id")) for r in rows]
        folder = labels_file.parent
        cases.append((f"{folder.parent.name}/{folder.name}", folder / "input.log", labels))
    return cases


#: The parser modules written for a tool (``gauntlet.ingest.log.<module>``); taken out of play by
#: ``--leave-one-out`` for the logs whose labels name the tool. Generic modules (``diagnostics``, ``scripts``,
#: ``ci``) are never taken out: they are what is measured.
OWN_PARSERS: dict[str, tuple[str, ...]] = {
    "pytest": ("pytests",), "unittest": ("pytests",), "python": ("python",), "mypy": ("python",),
    "pyright": ("python",), "ruff": ("python",), "flake8": ("python",), "pylint": ("python",),
    "bandit": ("python",), "pip": ("python",), "black": ("formatters",), "isort": ("formatters",),
    "prettier": ("formatters",), "rubocop": ("formatters",), "go": ("go",), "go vet": ("go",),
    "staticcheck": ("go",), "gcc": ("c",), "g++": ("c",), "clang": ("c",), "ld": ("c",), "make": ("c",),
    "cmake": ("c",), "ctest": ("c",), "cppcheck": ("c",), "valgrind": ("c",), "asan": ("c",), "ubsan": ("c",),
    "rustc": ("rust",), "cargo": ("rust",), "clippy": ("rust",), "tsc": ("javascript",), "eslint": ("javascript",),
    "yamllint": ("javascript",), "stylelint": ("javascript",), "node": ("javascript", "jstests"),
    "jest": ("jstests",), "mocha": ("jstests",), "npm": ("packages",), "javac": ("jvm",), "java": ("jvm",),
    "maven": ("jvm",), "ruby": ("ruby",), "rspec": ("ruby",), "minitest": ("ruby",), "php": ("php",),
    "phpunit": ("php",), "shell": ("shell",), "exunit": ("elixir",), "elixir": ("elixir",),
}  # fmt: skip


def own_parsers(labels: list[Label]) -> frozenset[str]:
    """The parser class names written for the tools ``labels`` name (:data:`OWN_PARSERS`)."""
    modules = {f"gauntlet.ingest.log.{m}" for label in labels for m in OWN_PARSERS.get(label.tool, ())}
    return frozenset(type(p).__name__ for p in make_parsers() if type(p).__module__ in modules)


def score_case(name: str, log: Path, labels: list[Label], *, leave_out: bool = False) -> CaseResult:
    """Ingest one log and compare its findings with its labels (``leave_out``: without its tools' own parsers)."""
    with log.open("rb") as stream:
        exclude = own_parsers(labels) if leave_out else frozenset()
        findings = list(scan(stream, DEFAULT_LIMITS, exclude=exclude))
    with log.open("rb") as stream:
        lines = sum(block.count(b"\n") for block in iter(lambda: stream.read(1 << 20), b""))
    result = CaseResult(name, labels, findings, lines=lines)
    result.matched = [any(strict(label, f) for f in findings) for label in labels]
    result.duplicates = duplicates(labels, findings)
    result.unexplained = [f for f in result.serious if not any(explains(label, f) for label in labels)]
    return result


@dataclass
class Totals:
    """The corpus-wide figures."""

    cases: int
    labels: int
    matched: int
    serious: int
    unexplained: int
    duplicates: int
    passing_logs: int
    passing_findings: int
    tools: int

    @property
    def recall(self) -> float:
        """Labels strictly matched, over all labels."""
        return self.matched / self.labels if self.labels else 1.0

    @property
    def precision(self) -> float:
        """Critical/major findings on failing logs that explain a label, over all of them."""
        return 1 - self.unexplained / self.serious if self.serious else 1.0


def totals(results: list[CaseResult], root: Path = CORPUS) -> Totals:
    """Add the cases up; findings on passing logs are counted apart from precision."""
    failing = [r for r in results if r.labels]
    passing = [r for r in results if not r.labels]
    return Totals(
        cases=len(results),
        labels=sum(len(r.labels) for r in failing),
        matched=sum(sum(r.matched) for r in failing),
        serious=sum(len(r.serious) for r in failing),
        unexplained=sum(len(r.unexplained) for r in failing),
        duplicates=sum(r.duplicates for r in results),
        passing_logs=len(passing),
        passing_findings=sum(len(r.findings) for r in passing),
        tools=len(tools_run(root)),
    )


def tools_run(root: Path = CORPUS) -> dict[str, str]:
    """Every tool the generators ran, with the version it printed (each folder's versions.txt)."""
    found: dict[str, str] = {}
    for versions in sorted(root.glob("*/versions.txt")):
        for line in versions.read_text().splitlines():
            name, _, version = line.partition(": ")
            found.setdefault(name, version.strip())
    return found


def run(root: Path = CORPUS, *, leave_out: bool = False) -> list[CaseResult]:
    """Score every case of the corpus (``leave_out``: each without its tools' own parsers)."""
    return [score_case(name, log, labels, leave_out=leave_out) for name, log, labels in load_cases(root)]


def _describe(finding: Finding) -> str:
    return f"{finding.tool}/{finding.kind} {finding.path}:{finding.line} {finding.message[:90]!r}"


def report(results: list[CaseResult], *, verbose: bool, misses: bool = False, root: Path = CORPUS) -> str:
    """The printed report: totals, then per tool the cases that missed a target.

    :param verbose: every case, with all its findings.
    :param misses: the cases that missed a target, with all their findings (what was found instead).
    :param root: the corpus the results are of (its versions.txt files count the tools run).
    """
    total = totals(results, root)
    lines = [
        f"corpus: {total.cases} logs ({total.passing_logs} passing), {total.labels} labels, "
        f"{total.tools} tools run, {sum(1 for r in results if r.lines > 50_000)} logs over 50,000 lines",
        f"strict recall      {total.recall:.3f}  ({total.matched}/{total.labels}; target >= {TARGETS['recall']})",
        f"precision          {total.precision:.3f}  ({total.serious - total.unexplained}/{total.serious} "
        f"critical/major findings explain a label; target >= {TARGETS['precision']})",
        f"duplicates         {total.duplicates}  (target 0)",
        f"passing findings   {total.passing_findings}  (on {total.passing_logs} passing logs; target 0)",
    ]
    by_tool: dict[str, list[CaseResult]] = defaultdict(list)
    for result in results:
        by_tool[result.name.split("/")[0]].append(result)
    rows = []
    for tool, cases in sorted(by_tool.items()):
        labels = sum(len(r.labels) for r in cases)
        matched = sum(sum(r.matched) for r in cases)
        bad = [r for r in cases if not all(r.matched) or r.duplicates or r.unexplained or (not r.labels and r.findings)]
        if bad or verbose:
            rows.append(f"  {tool:<14} {matched}/{labels} labels, {len(cases)} logs")
        for result in bad if not verbose else cases:
            for label, ok in zip(result.labels, result.matched, strict=True):
                if not ok:
                    rows.append(f"    miss   {result.name}: {label.kind} {label.path}:{label.line}")
            if result.duplicates:
                rows.append(f"    dup    {result.name}: {result.duplicates}")
            extra = result.findings if not result.labels else result.unexplained
            for finding in extra:
                rows.append(f"    extra  {result.name}: {_describe(finding)}")
            if verbose or misses:
                for finding in result.findings:
                    rows.append(f"    found  {result.name}: {_describe(finding)}")
    if rows:
        lines.append("per tool (only folders with a miss, a duplicate or an unexplained finding):")
        lines.extend(rows)
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, score the corpus, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--verbose", action="store_true", help="every case's findings, not only the misses")
    parser.add_argument("--leave-one-out", action="store_true", help="also score each log without its tools' parsers")
    parser.add_argument("--misses", action="store_true", help="each case with a miss, with all it found instead")
    args = parser.parse_args()
    started = time.perf_counter()
    results = run(args.corpus)
    print(report(results, verbose=args.verbose, misses=args.misses, root=args.corpus))
    if args.leave_one_out:
        print("\nleave-one-out: each log without its own tools' parsers (the generic path alone)")
        print(report(run(args.corpus, leave_out=True), verbose=args.verbose, misses=args.misses, root=args.corpus))
    print(f"scored in {time.perf_counter() - started:.1f} s")
    sys.exit(0)


if __name__ == "__main__":
    main()
