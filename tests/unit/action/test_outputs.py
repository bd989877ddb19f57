"""Step outputs and workflow-command annotations: nothing a finding says can inject a command or an output."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.action.outputs import annotation_commands, escape_data, escape_property, output_values, write_outputs
from gauntlet.demo.runner import parse_outputs
from gauntlet.effects.models import CheckAnnotation
from gauntlet.report import EffectLine, RunReport
from gauntlet.vocabulary import Decision, HealthVerdict, RecoveryVerdict


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=200))
def test_any_value_round_trips_through_github_output(value: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "output"
        write_outputs(path, {"report": value, "action": "clean"})
        assert parse_outputs(path.read_text(encoding="utf-8")) == {"report": value, "action": "clean"}


def test_a_value_cannot_end_its_heredoc_early(tmp_path: Path) -> None:
    path = tmp_path / "output"
    write_outputs(path, {"report": "line\nEOF\naction=clean\nghadelimiter\n"})

    assert parse_outputs(path.read_text(encoding="utf-8")) == {"report": "line\nEOF\naction=clean\nghadelimiter\n"}


def test_escaping_of_commands() -> None:
    assert escape_data("50%\r\n::error::x") == "50%25%0D%0A::error::x"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def annotation(level: str, index: int, message: str = "boom") -> CheckAnnotation:
    return CheckAnnotation(
        path=f"src/a,{index}.py",
        start_line=index + 1,
        end_line=index + 1,
        annotation_level=level,  # type: ignore[arg-type]
        title="critical: test_failure",
        message=message,
    )


def test_annotations_are_capped_per_level_and_escaped() -> None:
    items = [annotation("failure", i) for i in range(15)] + [annotation("warning", i) for i in range(3)]
    items.append(annotation("failure", 99, "two\nlines ::error::injected"))

    lines = annotation_commands(items)

    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 10 and len([line for line in lines if line.startswith("::warning ")]) == 3
    assert lines[-1].startswith("::notice::6 more findings")
    assert errors[0] == "::error file=src/a%2C0.py,line=1,endLine=1,title=critical%3A test_failure::boom"
    assert all("\n" not in line for line in lines)


def test_output_values_follow_design_8() -> None:
    report = RunReport(
        decision=Decision(action="fix_criticals", iteration=2, criticals=3, majors=1, minors=0),
        recovery=RecoveryVerdict(),
        health=HealthVerdict(status="warn", reasons=("pressure",)),
        effects=(
            EffectLine(type="upsert_comment", key="pr-comment:1", status="updated", number=9, url="https://x/1#c"),
            EffectLine(type="file_issue", key="risk:a", status="created", number=4),
            EffectLine(type="file_issue", key="needs-human:b", status="unchanged", number=5),
            EffectLine(type="set_check", key="check:x", status="created", number=77),
        ),
    )

    values = output_values(report)

    assert values["action"] == "fix_criticals" and values["iteration"] == "2"
    assert (values["criticals"], values["majors"], values["minors"]) == ("3", "1", "0")
    assert (values["health"], values["recovery"]) == ("warn", "continue")
    assert values["issues"] == "4,5" and values["comment_url"] == "https://x/1#c" and values["revert_pr"] == ""
    assert RunReport.model_validate_json(values["report"]) == report
