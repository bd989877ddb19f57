"""Score failure extraction on LogChunks in-process: per language, leave-projects-out folds, the locator alone.

Usage::

    .venv/bin/python bench/logchunks.py [--corpus DIR] [-v] [--alone] [--folds]

The rule is the official scorer's (``../shared/tools/score_logchunks.py``, which runs ``gauntlet ingest`` once per
log and is the figure to quote): a log is a hit when one finding's ``log_lines`` overlap the labelled chunk, with
2 lines of margin, and span fewer than 60 lines. ``--alone`` switches every tool parser off (only the CI runner's
lines are read), to score the locator by itself. ``--folds`` tunes the locator's numbers on two thirds of the
languages (each is one project) and scores the other third, three ways.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import gauntlet.ingest.log.reading as log_scan
from gauntlet.ingest.log import locator
from gauntlet.ingest.log.ci import CiRunner

MARGIN, MAX_SPAN = 2, 60
ROOT = Path(__file__).resolve().parents[1]
#: ``../shared`` from the main checkout, ``../../shared`` from a worktree under ``wt/``.
CORPORA = [base / "shared" / "corpora" / "logchunks-dev" for base in (ROOT.parent, ROOT.parents[1])]
#: The locator's numbers tried by ``--folds``.
GRID = {"THRESHOLD": (2.0, 3.0, 4.0), "TAIL_BONUS": (0.0, 2.0, 4.0), "CASCADE_GAP": (0, 3, 6)}


def _labels(corpus: Path) -> Iterator[dict[str, object]]:
    for line in (corpus / "labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["chunk_first_line"] is not None:
            yield row


def score(corpus: Path, *, verbose: bool = False) -> dict[str, tuple[bool, int]]:
    """For each labelled log: whether it is a hit, and how many critical or major findings it got."""
    results: dict[str, tuple[bool, int]] = {}
    for row in _labels(corpus):
        with (corpus / str(row["log"])).open("rb") as stream:
            findings = list(log_scan.scan(stream))
        low, high = int(str(row["chunk_first_line"])) - MARGIN, int(str(row["chunk_last_line"])) + MARGIN
        spans = [finding.log_lines for finding in findings if finding.log_lines]
        hit = any(start <= high and end >= low and end - start < MAX_SPAN for start, end in spans)
        results[str(row["log"])] = (hit, sum(finding.severity in ("critical", "major") for finding in findings))
        if verbose and not hit:
            print(f"miss {row['log']}: chunk {row['chunk_first_line']}-{row['chunk_last_line']}, findings {spans[:6]}")
    return results


def _language(log: str) -> str:
    return log.split("/", 1)[0]


def _rate(results: dict[str, tuple[bool, int]], languages: set[str]) -> float:
    picked = [hit for log, (hit, _) in results.items() if _language(log) in languages]
    return sum(picked) / max(len(picked), 1)


def table(results: dict[str, tuple[bool, int]]) -> None:
    """Print hits per language, the hit rate and the findings per log, as the official scorer does."""
    for language in sorted({_language(log) for log in results}):
        hits = [hit for log, (hit, _) in results.items() if _language(log) == language]
        print(f"  {language:14} {sum(hits)}/{len(hits)}")
    counts = [count for _, count in results.values()]
    hits = sum(hit for hit, _ in results.values())
    print(
        f"chunk hit rate {hits / len(results):.3f} ({hits}/{len(results)}), median findings/log "
        f"{statistics.median(counts)}, mean {statistics.mean(counts):.1f}"
    )


def folds(corpus: Path) -> None:
    """Tune :data:`GRID` on two thirds of the languages, score the third left out; three folds."""
    default = tuple(getattr(locator, name) for name in GRID)
    runs: dict[tuple[float, ...], dict[str, tuple[bool, int]]] = {}
    for values in itertools.product(*GRID.values()):
        for name, value in zip(GRID, values, strict=True):
            setattr(locator, name, value)
        runs[values] = score(corpus)
    for name, value in zip(GRID, default, strict=True):
        setattr(locator, name, value)
    languages = sorted({_language(log) for log in runs[default]})
    for index in range(3):
        held = set(languages[index::3])
        tuning = set(languages) - held
        best = max(runs, key=lambda values: (_rate(runs[values], tuning), values == default))
        print(f"fold {index}: held out {', '.join(sorted(held))}")
        print(
            f"  tuned {dict(zip(GRID, best, strict=True))}: {_rate(runs[best], tuning):.3f} tuning, "
            f"{_rate(runs[best], held):.3f} held out; defaults: {_rate(runs[default], tuning):.3f} tuning, "
            f"{_rate(runs[default], held):.3f} held out"
        )


def main() -> int:
    """Score the corpus as asked; print the table (and the folds)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=next((c for c in CORPORA if c.is_dir()), CORPORA[0]))
    parser.add_argument("-v", action="store_true", help="print each miss")
    parser.add_argument("--alone", action="store_true", help="the locator alone: every tool parser off")
    parser.add_argument("--folds", action="store_true", help="leave-projects-out tuning of the locator's numbers")
    args = parser.parse_args()
    if not (args.corpus / "labels.jsonl").is_file():
        parser.error(f"no LogChunks corpus at {args.corpus}")
    if args.alone:
        log_scan.make_parsers = lambda exclude=(): [CiRunner()]
    table(score(args.corpus, verbose=args.v))
    if args.folds:
        folds(args.corpus)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
