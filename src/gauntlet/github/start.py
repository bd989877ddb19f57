"""The one GraphQL query a run starts with: what it would otherwise read in up to six REST calls.

A PR run reads, before it decides, the state branch's head, its PR's record and the default branch's record at
that head, the PR's review threads and its reviews; a ``/gauntlet`` command reads the head, the same records, the
effect index and the first page of Gauntlet's issues; a run on a branch, the head and its branch's record. Each is
a REST call against the token's 1,000 requests an hour. One GraphQL query reads them all, and GraphQL has a budget
of its own (for ``GITHUB_TOKEN``, 1,000 points an hour per repository; a query of this size costs 1 point):
https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api. A file read in the
query costs no call even when it is too large for a record to remember (the default branch's record of a busy
repository, the effect index at thousands of keys). A run whose workflow files lack ``merge_group`` (or are not
checked out) asks for the default branch's ruleset rules too, and maybe a workflow file there
(``action/queue_setup.py``): nothing reads those by REST, so a failed query only skips that check.

What the query answers is turned into the shapes the REST reads give, so everything after it is the same code:

- the head as ``GET branches/<branch>`` gives it (:func:`~gauntlet.github.trailers.parse_head` reads its trailers);
- the files as bytes, each checked against its blob id (a truncated or binary one is left out: REST reads it);
- review comments and reviews as ``GET pulls/<n>/comments`` and ``GET pulls/<n>/reviews`` list them (a bot's
  login gains the ``[bot]`` GraphQL leaves out; an outdated comment has no ``position``, as in REST);
- the issues as ``GET issues?labels=gauntlet&state=all`` lists them (GraphQL lists no pull requests, so its first
  page reaches at least as far as REST's; a later page is read by REST).

Nothing here is needed: any failure (an error in the answer, a field a GitHub Enterprise Server lacks, an answer
that does not validate, GitHub down) gives ``None``, and the run reads the same by REST. A review list with more
than one page is left to REST too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from gauntlet.errors import GauntletError
from gauntlet.github.branch_rules import BranchRules, from_graphql
from gauntlet.github.client import GitHubClient
from gauntlet.github.trailers import Head, blob_sha, parse_head

__all__ = ["QUERY", "Reviews", "Start", "read_start"]

log = logging.getLogger(__name__)

QUERY = """
query GauntletStart(
  $owner: String!, $name: String!, $stateRef: String!, $record: String!, $base: String!, $index: String!,
  $pr: Int!, $label: String!, $reviews: Boolean!, $issues: Boolean!, $withBase: Boolean!, $withIndex: Boolean!,
  $knownLabel: String!, $known: Boolean!, $rules: Boolean!, $workflow: String!, $withWorkflow: Boolean!
) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $stateRef) {
      target {
        __typename
        oid
        ... on Commit {
          message
          tree { oid }
          parents(first: 1) { nodes { oid } }
          record: file(path: $record) { object { ...blobText } }
          base: file(path: $base) @include(if: $withBase) { object { ...blobText } }
          index: file(path: $index) @include(if: $withIndex) { object { ...blobText } }
        }
      }
    }
    pullRequest(number: $pr) @include(if: $reviews) {
      reviews(first: 100) {
        pageInfo { hasNextPage }
        nodes { databaseId state body url authorAssociation author { __typename login } }
      }
      reviewThreads(first: 100) {
        pageInfo { hasNextPage }
        nodes {
          isOutdated
          subjectType
          comments(first: 100) {
            pageInfo { hasNextPage }
            nodes {
              databaseId body url path line originalLine outdated authorAssociation
              author { __typename login }
            }
          }
        }
      }
    }
    issues(first: 100, labels: [$label], states: [OPEN, CLOSED], orderBy: {field: CREATED_AT, direction: DESC})
      @include(if: $issues) {
      pageInfo { hasNextPage }
      nodes {
        number state body url
        author { __typename login }
        comments { totalCount }
        labels(first: 100) { nodes { name } }
      }
    }
    known: issues(first: 100, labels: [$knownLabel], states: [OPEN], orderBy: {field: CREATED_AT, direction: DESC})
      @include(if: $known) {
      pageInfo { hasNextPage }
      nodes { number body url }
    }
    defaultBranchRef @include(if: $rules) {
      rules(first: 100) {
        nodes {
          type
          parameters { __typename ... on RequiredStatusChecksParameters { requiredStatusChecks { context } } }
        }
      }
      target {
        ... on Commit { workflow: file(path: $workflow) @include(if: $withWorkflow) { object { ...blobText } } }
      }
    }
  }
}

fragment blobText on Blob { __typename oid byteSize isBinary isTruncated text }
"""


T = TypeVar("T")


class _Node(BaseModel):
    """An object of GitHub's answer, by its GraphQL field names: what is read here, anything else ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=True)


class _PageInfo(_Node):
    has_next_page: bool = False


class _Connection(_Node, Generic[T]):
    page_info: _PageInfo = _PageInfo()
    nodes: list[T | None] = []

    def whole(self) -> list[T]:
        """The nodes, when this is every one of them (no next page)."""
        if self.page_info.has_next_page:
            raise _MorePages
        return [node for node in self.nodes if node is not None]


class _MorePages(Exception):
    """A list longer than the query's page: REST reads it whole."""


class _Actor(_Node):
    typename: str = Field("User", alias="__typename")
    login: str

    def rest(self) -> dict[str, Any]:
        """The REST ``simple-user`` the review reading uses: a bot's login ends in ``[bot]``, which GraphQL leaves
        out."""
        bot = self.typename == "Bot"
        return {
            "login": f"{self.login}[bot]" if bot and not self.login.endswith("[bot]") else self.login,
            "type": "Bot" if bot else "User",
        }


class _Oid(_Node):
    oid: str


class _Id(_Node):
    database_id: int | None = None


class _Object(_Node):
    typename: str = Field(alias="__typename")
    oid: str
    is_binary: bool | None = None
    is_truncated: bool = False
    text: str | None = None


class _Entry(_Node):
    object: _Object | None = None


class _Commit(_Node):
    typename: str = Field(alias="__typename")
    oid: str
    message: str = ""
    tree: _Oid | None = None  # a commit always has one; only a Tree or Blob target leaves it out
    parents: _Connection[_Oid] = _Connection[_Oid]()
    record: _Entry | None = None
    base: _Entry | None = None
    index: _Entry | None = None


class _Ref(_Node):
    target: _Commit | None = None


class _Authored(_Id):
    """What GitHub's ``Comment`` interface gives a review and a review comment alike."""

    body: str | None = None
    url: str | None = None
    author_association: str | None = None
    author: _Actor | None = None


class _Comment(_Authored):
    path: str | None = None
    line: int | None = None
    original_line: int | None = None
    outdated: bool = False


class _Thread(_Node):
    is_outdated: bool = False
    subject_type: str | None = None
    comments: _Connection[_Comment] = _Connection[_Comment]()


class _Review(_Authored):
    state: str | None = None


class _Pull(_Node):
    reviews: _Connection[_Review] = _Connection[_Review]()
    review_threads: _Connection[_Thread] = _Connection[_Thread]()


class _Count(_Node):
    total_count: int | None = None


class _Name(_Node):
    name: str


class _Issue(_Node):
    number: int
    state: str = "OPEN"
    body: str | None = None
    url: str | None = None
    author: _Actor | None = None
    comments: _Count = _Count()
    labels: _Connection[_Name] = _Connection[_Name]()


class _Repository(_Node):
    ref: _Ref | None = None
    pull_request: _Pull | None = None
    issues: _Connection[_Issue] | None = None
    known: _Connection[_Issue] | None = None
    #: Read leniently (``branch_rules.py``): an answer of another shape there only leaves the rules unknown.
    default_branch_ref: Any = None


class _Answer(_Node):
    repository: _Repository


@dataclass(frozen=True)
class Reviews:
    """A PR's review comments and reviews, as the REST lists give them (``ingest/pr_reviews.py`` reads them)."""

    comments: list[dict[str, Any]]
    reviews: list[dict[str, Any]]


@dataclass(frozen=True)
class Start:
    """What the start query read.

    :param head: the state branch's head (``None``: the branch does not exist yet).
    :param files: files read at the head, by path (``None``: absent); a file left out is read by REST.
    :param reviews: the PR's review comments and reviews (``None``: not asked, or more than one page).
    :param issues: the first page of Gauntlet's issues in REST's shape, and whether another page follows
        (``None``: not asked).
    :param known: the first page of the open known-failure issues (newest first) in REST's shape, and whether
        another page follows (``None``: not asked).
    :param rules: the default branch's ruleset rules, as far as the merge queue goes (``None``: not asked, or
        not answered in a shape this code reads).
    :param workflow: the workflow file asked for, as the default branch has it (``None``: not asked, absent, or
        not read whole).
    """

    head: Head | None
    files: dict[str, bytes | None]
    reviews: Reviews | None = None
    issues: tuple[list[dict[str, Any]], bool] | None = None
    known: tuple[list[dict[str, Any]], bool] | None = None
    rules: BranchRules | None = None
    workflow: bytes | None = None


def read_start(
    client: GitHubClient,
    repository: str,
    *,
    branch: str,
    record: str,
    base: str | None = None,
    pr: int | None = None,
    index: str | None = None,
    label: str | None = None,
    known_label: str | None = None,
    rules: bool = False,
    workflow: str | None = None,
) -> Start | None:
    """Read the state branch's head and ``record`` at it, with the other parts asked for, in one query.

    :param branch: the state branch.
    :param record: the run's own record on it (``v1/prs/12.json``).
    :param base: read this file at the head too (the default branch's record, which a PR run and a command read:
        in the query, a record too large to be remembered costs no call either).
    :param pr: read this PR's review comments and reviews too.
    :param index: read this file at the head too (a command's effect index).
    :param label: read the first page of the issues with this label too (open and closed, newest first).
    :param known_label: read the first page of the open issues with this label too (the known-failure rules).
    :param rules: read the default branch's ruleset rules too (its merge queue and required checks).
    :param workflow: with ``rules``, read this workflow file on the default branch too.
    :returns: ``None`` when the query failed in any way: the run reads the same by REST.
    """
    owner, _, name = repository.partition("/")
    variables = {
        "owner": owner,
        "name": name,
        "stateRef": f"refs/heads/{branch}",
        "record": record,
        "base": base or "",
        "index": index or "",
        "pr": pr or 0,
        "label": label or "",
        "reviews": pr is not None,
        "issues": label is not None,
        "withBase": base is not None,
        "withIndex": index is not None,
        "knownLabel": known_label or "",
        "known": known_label is not None,
        "rules": rules,
        "workflow": workflow or "",
        "withWorkflow": rules and workflow is not None,
    }
    try:
        answer = _Answer.model_validate(client.graphql(QUERY, variables))
    except (GauntletError, ValidationError) as exc:
        log.warning("the start query failed (%s); reading the same by REST", str(exc).splitlines()[0][:200])
        return None
    target = answer.repository.ref.target if answer.repository.ref is not None else None
    if target is not None and (target.typename != "Commit" or target.tree is None):
        return None  # a branch pointing at something else: REST says what
    files: dict[str, bytes | None] = {}
    if target is not None:
        for path, entry in ((record, target.record), (base, target.base), (index, target.index)):
            if path is not None:
                files.update(_file(entry, path))
    return Start(
        head=_head(target, target.tree) if target is not None and target.tree is not None else None,
        files=files,
        reviews=_reviews(answer.repository.pull_request) if pr is not None else None,
        issues=_issues(answer.repository.issues) if label is not None and answer.repository.issues else None,
        known=_issues(answer.repository.known) if known_label is not None and answer.repository.known else None,
        rules=_rules(answer.repository.default_branch_ref) if rules else None,
        workflow=_workflow(answer.repository.default_branch_ref, workflow) if rules and workflow else None,
    )


def _rules(ref: Any) -> BranchRules | None:
    """The default branch's rules from ``Ref.rules``; ``None`` when there is no such branch or no list."""
    return from_graphql(ref.get("rules")) if isinstance(ref, dict) else None


def _workflow(ref: Any, path: str) -> bytes | None:
    """The workflow file read at the default branch's head, checked against its blob id."""
    target = ref.get("target") if isinstance(ref, dict) else None
    entry = target.get("workflow") if isinstance(target, dict) else None
    try:
        return _file(_Entry.model_validate(entry), path).get(path) if isinstance(entry, dict) else None
    except ValidationError:
        return None


def _head(target: _Commit, tree: _Oid) -> Head:
    """The head as ``GET branches/<branch>`` would give it, read by the same code."""
    commit = {
        "sha": target.oid,
        "commit": {"message": target.message, "tree": {"sha": tree.oid}},
        "parents": [{"sha": parent.oid} for parent in target.parents.nodes if parent is not None],
    }
    return parse_head({"commit": commit})


def _file(entry: _Entry | None, path: str) -> dict[str, bytes | None]:
    """``{path: bytes}`` for a text blob read whole, ``{path: None}`` for an absent one, ``{}`` otherwise (REST
    reads it: a truncated, binary or not UTF-8 blob, or a folder)."""
    if entry is None:
        return {path: None}
    blob = entry.object
    if blob is None or blob.typename != "Blob" or blob.is_binary or blob.is_truncated or blob.text is None:
        return {}
    data = blob.text.encode("utf-8")
    if blob_sha(data) != blob.oid:
        return {}
    return {path: data}


def _reviews(pull: _Pull | None) -> Reviews | None:
    """The review comments and reviews in REST's shape; ``None`` when a list has another page (REST reads all)."""
    if pull is None:
        return None
    try:
        threads = [(thread, thread.comments.whole()) for thread in pull.review_threads.whole()]
        reviews = pull.reviews.whole()
    except _MorePages:
        return None
    comments = [
        _comment(node, thread, nodes[0].database_id if position else None)
        for thread, nodes in threads
        for position, node in enumerate(nodes)
    ]
    return Reviews(comments=comments, reviews=[_review(review) for review in reviews])


def _comment(node: _Comment, thread: _Thread, root: int | None) -> dict[str, Any]:
    """A review comment as ``GET pulls/<n>/comments`` lists it: a reply names its thread's first comment, and an
    outdated one has neither ``position`` nor ``line``."""
    line = None if node.outdated or thread.is_outdated else node.line
    return {
        "id": node.database_id,
        "in_reply_to_id": root,
        "user": node.author.rest() if node.author else None,
        "author_association": node.author_association,
        "subject_type": (thread.subject_type or "LINE").lower(),
        "position": line,
        "line": line,
        "original_line": node.original_line,
        "body": node.body,
        "html_url": node.url,
        "path": node.path,
    }


def _review(node: _Review) -> dict[str, Any]:
    """A review as ``GET pulls/<n>/reviews`` lists it."""
    return {
        "id": node.database_id,
        "state": node.state,
        "user": node.author.rest() if node.author else None,
        "author_association": node.author_association,
        "body": node.body,
        "html_url": node.url,
    }


def _issues(connection: _Connection[_Issue]) -> tuple[list[dict[str, Any]], bool]:
    """The issues as ``GET issues`` lists them (``state`` in lower case, ``comments`` a count), and whether more
    follow."""
    items = [
        {
            "number": issue.number,
            "state": issue.state.lower(),
            "user": issue.author.rest() if issue.author else None,
            "html_url": issue.url,
            "comments": issue.comments.total_count,
            "body": issue.body,
            "labels": [{"name": label.name} for label in issue.labels.nodes if label is not None],
        }
        for issue in connection.nodes
        if issue is not None
    ]
    return items, connection.page_info.has_next_page
