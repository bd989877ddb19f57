"""A branch's ruleset rules: ``GET rules/branches/{branch}`` as GitHub documents it, ``Ref.rules`` in GraphQL, and
the two agreeing, since both are served from one stored list (``sandbox/rules.py``).

Every REST answer is validated against GitHub's OpenAPI description (``repository-rule-detailed``) by the
``sandbox`` fixture; the example below is the shape of GitHub's documented response
(https://docs.github.com/rest/repos/rules#get-rules-for-a-branch).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import github
import pytest
from test_graphql import post, variables

from gauntlet.github.branch_rules import BranchRules, from_graphql, from_rest
from gauntlet.github.start import QUERY
from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.contract import validate

RULES = [
    {"type": "merge_queue", "parameters": {"merge_method": "SQUASH", "max_entries_to_build": 3}},
    {
        "type": "required_status_checks",
        "parameters": {
            "strict_required_status_checks_policy": True,
            "required_status_checks": [{"context": "Gauntlet", "integration_id": 15368}, {"context": "CI / test"}],
        },
    },
    {"type": "deletion"},
]
#: GitHub's documented example answer, reduced to a merge queue and a required check.
DOCUMENTED = [
    {
        "type": "merge_queue",
        "parameters": {
            "check_response_timeout_minutes": 30,
            "grouping_strategy": "HEADGREEN",
            "max_entries_to_build": 10,
            "max_entries_to_merge": 3,
            "merge_method": "SQUASH",
            "min_entries_to_merge": 2,
            "min_entries_to_merge_wait_minutes": 15,
        },
        "ruleset_source_type": "Repository",
        "ruleset_source": "monalisa/my-repo",
        "ruleset_id": 42,
    },
    {
        "type": "required_status_checks",
        "parameters": {
            "strict_required_status_checks_policy": False,
            "required_status_checks": [{"context": "Gauntlet", "integration_id": 15368}],
        },
        "ruleset_source_type": "Repository",
        "ruleset_source": "monalisa/my-repo",
        "ruleset_id": 42,
    },
]
RULES_QUERY = """
query($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      rules(first: 100) {
        totalCount
        nodes {
          id type
          parameters {
            __typename
            ... on RequiredStatusChecksParameters {
              requiredStatusChecks { context integrationId } strictRequiredStatusChecksPolicy doNotEnforceOnCreate
            }
            ... on MergeQueueParameters { mergeMethod maxEntriesToBuild checkResponseTimeoutMinutes groupingStrategy }
          }
        }
      }
    }
  }
}
"""


def test_the_documented_answer_validates_and_reads_as_a_queue_requiring_the_check() -> None:
    assert validate("GET", "/repos/{owner}/{repo}/rules/branches/{branch}", 200, DOCUMENTED) == ()
    assert from_rest(DOCUMENTED) == BranchRules(merge_queue=True, required=frozenset({"Gauntlet"}))


def test_rest_lists_a_branchs_rules_with_their_ruleset(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sandbox.set_rules(repo_name, "main", RULES)

    _, rules = gh.requester.requestJsonAndCheck("GET", f"/repos/{repo_name}/rules/branches/main")
    _, other = gh.requester.requestJsonAndCheck("GET", f"/repos/{repo_name}/rules/branches/no-such-branch")

    assert [rule["type"] for rule in rules] == ["merge_queue", "required_status_checks", "deletion"]
    assert {rule["ruleset_source"] for rule in rules} == {repo_name}
    assert rules[0]["parameters"]["merge_method"] == "SQUASH" and rules[0]["parameters"]["grouping_strategy"]
    assert other == []  # a branch need not exist; no rule applies to this one
    assert from_rest(rules) == BranchRules(merge_queue=True, required=frozenset({"Gauntlet", "CI / test"}))


def test_graphql_gives_the_same_rules_as_rest(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sandbox.set_rules(repo_name, "main", RULES)
    owner, name = repo_name.split("/")

    _, answer = gh.requester.graphql_query(RULES_QUERY, {"owner": owner, "name": name, "ref": "refs/heads/main"})
    _, rest = gh.requester.requestJsonAndCheck("GET", f"/repos/{repo_name}/rules/branches/main")

    connection = answer["data"]["repository"]["ref"]["rules"]
    nodes = connection["nodes"]
    assert connection["totalCount"] == 3
    assert [node["type"] for node in nodes] == [rule["type"].upper() for rule in rest]
    queue, checks, deletion = (node["parameters"] for node in nodes)
    assert queue == {
        "__typename": "MergeQueueParameters",
        "mergeMethod": "SQUASH",
        "maxEntriesToBuild": 3,
        "checkResponseTimeoutMinutes": 60,
        "groupingStrategy": "ALLGREEN",
    }
    assert checks["requiredStatusChecks"] == [
        {"context": "Gauntlet", "integrationId": 15368},
        {"context": "CI / test", "integrationId": None},
    ]
    assert checks["strictRequiredStatusChecksPolicy"] is True and deletion is None
    assert from_graphql(connection) == from_rest(rest)


def test_the_start_query_reads_the_rules_and_a_workflow_of_the_default_branch(sandbox: Sandbox, repo_name: str) -> None:
    sandbox.set_rules(repo_name, "main", RULES)
    sandbox.commit(repo_name, {".github/workflows/ci.yml": "on: [pull_request]\n"}, "CI")

    status, _, answer = post(sandbox, {"query": QUERY, "variables": variables(repo_name, reviews=False)})

    assert status == 200 and "errors" not in answer, answer
    ref = answer["data"]["repository"]["defaultBranchRef"]
    assert ref["target"]["workflow"]["object"]["text"] == "on: [pull_request]\n"
    assert from_graphql(ref["rules"]) == from_rest(RULES)
    _, _, skipped = post(sandbox, {"query": QUERY, "variables": variables(repo_name, reviews=False, rules=False)})
    assert "defaultBranchRef" not in skipped["data"]["repository"]


def test_a_tag_has_no_rules_and_a_page_is_a_page(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sandbox.set_rules(repo_name, "main", [{"type": "deletion"}] * 150)
    owner, name = repo_name.split("/")
    head = sandbox.head(repo_name) or ""
    gh.get_repo(repo_name).create_git_ref("refs/tags/v1", head)
    sandbox.set_rules(repo_name, "v1", [{"type": "deletion"}])

    _, tag = gh.requester.graphql_query(RULES_QUERY, {"owner": owner, "name": name, "ref": "refs/tags/v1"})
    _, main = gh.requester.graphql_query(RULES_QUERY, {"owner": owner, "name": name, "ref": "refs/heads/main"})
    _, page = gh.requester.requestJsonAndCheck("GET", f"/repos/{repo_name}/rules/branches/main?per_page=100&page=2")

    assert tag["data"]["repository"]["ref"]["rules"]["totalCount"] == 0
    assert len(main["data"]["repository"]["ref"]["rules"]["nodes"]) == 100 and len(page) == 50


def _put(sandbox: Sandbox, path: str, body: Any) -> int:
    request = urllib.request.Request(f"{sandbox.url}{path}", data=json.dumps(body).encode(), method="PUT")
    try:
        with urllib.request.urlopen(request) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_the_control_sets_rules_and_refuses_rules_github_would_not_have(sandbox: Sandbox, repo_name: str) -> None:
    assert _put(sandbox, f"/_sandbox/repos/{repo_name}/rules/main", {"rules": RULES}) == 204
    assert [rule["type"] for rule in sandbox.store.repo("octo", "app").rules["main"]] == [  # type: ignore[union-attr]
        "merge_queue",
        "required_status_checks",
        "deletion",
    ]
    assert _put(sandbox, f"/_sandbox/repos/{repo_name}/rules/main", {"rules": [{"type": "no_such_rule"}]}) == 422
    bad_checks = {"type": "required_status_checks", "parameters": {"required_status_checks": [{"name": "x"}]}}
    assert _put(sandbox, f"/_sandbox/repos/{repo_name}/rules/main", {"rules": [bad_checks]}) == 422
    assert _put(sandbox, f"/_sandbox/repos/{repo_name}/rules/main", {"rules": "merge_queue"}) == 422
    assert _put(sandbox, "/_sandbox/repos/octo/none/rules/main", {"rules": []}) == 404
    with pytest.raises(ValueError, match="unknown rule type"):
        sandbox.set_rules(repo_name, "main", [{"type": None}])
