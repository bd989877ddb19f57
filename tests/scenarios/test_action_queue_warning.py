"""A required Gauntlet check that can never report on ``merge_group`` (issue 29, item 3): the run says so once, in
the job summary, as a ``::warning`` and in its report, with the one-line fix; and says nothing otherwise.

The default branch's rules come from the sandbox's ruleset store (``sandbox/rules.py``), read in the start query
(no call of their own); the workflow files are the checkout's (``GITHUB_WORKFLOW_REF`` names Gauntlet's own).
Every run here is a PR's CI run with Gauntlet as a step of CI's ``test`` job (``examples/workflows/
pull-request.yml``), or, with ``GITHUB_WORKFLOW_REF`` naming ``gauntlet.yml``, the recommended ``workflow_run``
deployment, whose CI workflow is the one that needs the trigger.
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario import REPO, Outcome, Scenario, failing_ci

from gauntlet.action.queue_setup import MAX_BYTES
from gauntlet.sandbox import JobSeed

CI = """name: CI
on:
  pull_request:
  push:
    branches: [main]
{extra}
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: your-org/gauntlet@v1
"""
GAUNTLET = """name: Gauntlet
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
jobs:
  gauntlet:
    runs-on: ubuntu-latest
    steps:
      - uses: your-org/gauntlet@v1
"""
QUEUE = {"type": "merge_queue"}
STEP_REF = {"GITHUB_WORKFLOW_REF": f"{REPO}/.github/workflows/ci.yml@refs/pull/1/merge"}
OWN_REF = {"GITHUB_WORKFLOW_REF": f"{REPO}/.github/workflows/gauntlet.yml@refs/heads/main"}
TITLE = "::warning title=Gauntlet cannot report in the merge queue::"


def _required(*contexts: str) -> dict[str, Any]:
    checks = [{"context": context, "integration_id": 15368} for context in contexts]
    return {"type": "required_status_checks", "parameters": {"required_status_checks": checks}}


def _pr_run(world: Scenario, workflows: dict[str, str], *, env: dict[str, str] = STEP_REF, **inputs: str) -> Outcome:
    number, sha = world.open_pr(f"work-{world.runs}", {"calc.py": "def add(a, b):\n    return a * b\n"})
    files = {**failing_ci(1), **{f".github/workflows/{name}": text for name, text in workflows.items()}}
    world.sandbox.clear_requests()
    event = world.pull_request_event(number, sha, "opened")
    return world.run("pull_request", event, files=files, env=env, inputs=inputs)


def _watched(world: Scenario, ci: str) -> Outcome:
    """The recommended deployment as shipped: gauntlet.yml checks nothing out, and CI's ``ci.yml`` is on main."""
    world.sandbox.commit(REPO, {".github/workflows/ci.yml": ci}, "CI")
    branch = f"work-{world.runs}"
    number, sha = world.open_pr(branch, {"calc.py": "def add(a, b):\n    return a * b\n"})
    log = failing_ci(1)["pytest.log"]
    jobs = [JobSeed(name="test", conclusion="failure", log=log)]
    run = world.sandbox.seed_run(
        REPO, jobs=jobs, head_branch=branch, head_sha=sha, event="pull_request", pull_numbers=[number]
    )
    payload = {
        "action": "completed",
        "workflow_run": world.owner.get_repo(REPO).get_workflow_run(run.id).raw_data,
        "repository": {"full_name": REPO, "default_branch": "main"},
    }
    world.sandbox.clear_requests()
    inputs = {"download_logs": "true", "logs": "", "findings": ""}
    return world.run("workflow_run", payload, inputs=inputs, env=OWN_REF, workflow="Gauntlet", job="gauntlet")


def _warned(outcome: Outcome) -> bool:
    assert outcome.code == 0, outcome.error
    said = (TITLE in outcome.stdout, "[!WARNING]" in outcome.summary, bool(outcome.report["setup_problems"]))
    assert len(set(said)) == 1, f"said in some places only: {said}"
    return said[0]


def _calls(world: Scenario) -> list[str]:
    return [f"{r['method']} {r['path']}" for r in world.sandbox.requests()]


def test_a_required_check_with_a_queue_and_no_trigger_is_warned_once_with_the_fix(world: Scenario) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("CI / test", "Gauntlet")])

    outcome = _pr_run(world, {"ci.yml": CI.format(extra="")})

    assert _warned(outcome)
    fix = "add `merge_group:` under `on:` in .github/workflows/ci.yml"
    assert outcome.stdout.count(TITLE) == 1 and fix in outcome.stdout
    assert outcome.summary.count("[!WARNING]") == 1 and fix in outcome.summary
    assert "`Gauntlet` check is required on `main`" in outcome.summary
    [problem] = outcome.report["setup_problems"]
    assert problem["kind"] == "merge_group_missing" and problem["path"] == ".github/workflows/ci.yml"
    calls = _calls(world)
    assert calls.count("POST /graphql") == 1 and not any("/rules/" in call for call in calls), calls


def test_in_the_recommended_deployment_the_ci_workflow_it_watches_is_the_one_to_fix(world: Scenario) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet")])

    outcome = _pr_run(world, {"ci.yml": CI.format(extra=""), "gauntlet.yml": GAUNTLET}, env=OWN_REF)

    assert _warned(outcome)
    assert "CI (.github/workflows/ci.yml) (Gauntlet runs when it completes)" in outcome.summary
    assert outcome.report["setup_problems"][0]["path"] == ".github/workflows/ci.yml"


def test_without_a_checkout_the_watched_ci_workflow_is_read_on_main_in_the_start_query(world: Scenario) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet")])

    missing = _watched(world, CI.format(extra=""))

    assert _warned(missing) and "in .github/workflows/ci.yml" in missing.summary
    assert "CI (.github/workflows/ci.yml)" in missing.summary
    calls = _calls(world)
    assert calls.count("POST /graphql") == 1 and not any("ci.yml" in call or "/rules/" in call for call in calls)

    there = _watched(world, CI.format(extra="  merge_group:"))
    assert not _warned(there)
    assert not any("ci.yml" in call or "/rules/" in call for call in _calls(world))


@pytest.mark.parametrize("extra", ["  merge_group:", "  merge_group:\n    types: [checks_requested]"])
def test_with_the_trigger_nothing_is_said_and_nothing_more_is_asked(world: Scenario, extra: str) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet")])

    step = _pr_run(world, {"ci.yml": CI.format(extra=extra)})
    assert not _warned(step)
    calls = _calls(world)
    recommended = _pr_run(world, {"ci.yml": CI.format(extra=extra), "gauntlet.yml": GAUNTLET}, env=OWN_REF)
    assert not _warned(recommended)
    assert not any("/rules/" in call for call in calls)


@pytest.mark.parametrize(
    ("rules", "inputs"),
    [
        ([], {}),  # no rules at all
        ([_required("Gauntlet")], {}),  # required, but no queue
        ([QUEUE, _required("CI / test")], {}),  # a queue, but the Gauntlet check is not required
        ([QUEUE, _required("Gauntlet")], {"check_name": "Gauntlet / PR"}),  # the required name is not this check's
        ([QUEUE], {}),
    ],
)
def test_without_a_queue_or_a_required_gauntlet_check_nothing_is_said(
    world: Scenario, rules: list[dict[str, Any]], inputs: dict[str, str]
) -> None:
    world.sandbox.set_rules(REPO, "main", rules)

    assert not _warned(_pr_run(world, {"ci.yml": CI.format(extra="")}, **inputs))


def test_a_custom_check_name_that_is_required_is_the_one_warned_about(world: Scenario) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet / PR")])

    outcome = _pr_run(world, {"ci.yml": CI.format(extra="")}, check_name="Gauntlet / PR")

    assert _warned(outcome) and "`Gauntlet / PR` check is required" in outcome.summary


@pytest.mark.parametrize(
    ("workflows", "env"),
    [
        ({"ci.yml": "on: [pull_request\njobs: {"}, STEP_REF),  # not YAML
        ({"ci.yml": "\xff\xfe"}, STEP_REF),  # not text GitHub would read
        ({"ci.yml": "# padding\n" * (MAX_BYTES // 10 + 1) + CI.format(extra="")}, STEP_REF),  # too large
        ({"ci.yml": "- a list\n- not a workflow\n"}, STEP_REF),
        ({"ci.yml": "[" * 50_000}, STEP_REF),  # nested past the parser's recursion
        ({}, STEP_REF),  # not checked out
        ({"ci.yml": CI.format(extra="")}, {"GITHUB_WORKFLOW_REF": f"{REPO}/../../etc/passwd@main"}),
        ({"ci.yml": CI.format(extra="")}, {"GITHUB_WORKFLOW_REF": ""}),
        ({"gauntlet.yml": GAUNTLET}, OWN_REF),  # the CI it watches is not in the checkout
        ({"gauntlet.yml": GAUNTLET.replace("[CI]", "{a: 1}"), "ci.yml": CI.format(extra="")}, OWN_REF),
    ],
)
def test_workflow_files_that_cannot_tell_give_no_warning_and_no_crash(
    world: Scenario, workflows: dict[str, str], env: dict[str, str]
) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet")])

    assert not _warned(_pr_run(world, workflows, env=env))


def test_rules_past_the_first_page_or_of_other_kinds_are_read_without_a_crash(world: Scenario) -> None:
    others = [{"type": "deletion"}, {"type": "pull_request"}, _required(), {"type": "non_fast_forward"}] * 30
    world.sandbox.set_rules(REPO, "main", [*others, QUEUE, _required("Gauntlet")])

    outcome = _pr_run(world, {"ci.yml": CI.format(extra="")})

    # The queue rule is the 121st: past the one page the start query reads, so it is not known and not warned of.
    assert not _warned(outcome)
    assert _calls(world).count("POST /graphql") == 1


def test_the_rules_cost_the_start_query_no_point_more(world: Scenario) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet")])

    _pr_run(world, {"ci.yml": CI.format(extra="  merge_group:")})  # the first of all creates the state branch
    asked = _pr_run(world, {"ci.yml": CI.format(extra="")})
    not_asked = _pr_run(world, {"ci.yml": CI.format(extra="  merge_group:")})

    spent = [asked.report["graphql_remaining"], not_asked.report["graphql_remaining"]]
    assert _warned(asked) and not _warned(not_asked)
    assert spent[0] - spent[1] == 1, f"the second query cost {spent[0] - spent[1]} points"
    assert asked.report["api_calls"] == not_asked.report["api_calls"]


@pytest.mark.parametrize("inputs", [{"graphql": "false"}, {}])
def test_without_the_start_query_the_check_is_skipped_and_costs_no_call(
    world: Scenario, inputs: dict[str, str]
) -> None:
    world.sandbox.set_rules(REPO, "main", [QUEUE, _required("Gauntlet")])
    if not inputs:
        world.sandbox.set_faults(rate=1.0, kinds=["500"], paths=["/graphql"])

    outcome = _pr_run(world, {"ci.yml": CI.format(extra="")}, **inputs)
    world.sandbox.set_faults(rate=0.0)

    assert not _warned(outcome)
    assert not any("/rules/" in call or "/contents/.github" in call for call in _calls(world))
