"""What a query costs, and GitHub's pagination rules, checked before anything runs.

GitHub's formula (https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api):
add up the requests each connection needs, assuming every one returns its ``first``/``last`` items (a connection
inside another one is fetched once per parent item), divide by 100 and round; a query costs at least 1 point.
``nodeCount`` adds up the items those requests may return, at most 500,000. A connection whose items
(``nodes``/``edges``) are asked for needs ``first`` or ``last``, at most 100; asking only its ``totalCount`` needs
neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    NamedTypeNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    value_from_ast_untyped,
)

__all__ = ["MAX_NODES", "MAX_PAGE", "Measure", "measure"]

MAX_PAGE = 100
MAX_NODES = 500_000


@dataclass
class Measure:
    """A query's cost in points, the items it may return, and the pagination errors that refuse it."""

    requests: int = 0
    nodes: int = 0
    errors: list[GraphQLError] = field(default_factory=list)

    @property
    def cost(self) -> int:
        """Points: the requests over 100, rounded half up, at least 1."""
        return max(1, (self.requests + 50) // 100)


@dataclass
class _Walk:
    schema: GraphQLSchema
    variables: dict[str, Any]
    fragments: dict[str, FragmentDefinitionNode]
    result: Measure

    def included(self, node: FieldNode | InlineFragmentNode | FragmentSpreadNode) -> bool:
        for directive in node.directives or ():
            condition = next((a for a in directive.arguments or () if a.name.value == "if"), None)
            if condition is None:
                continue
            value = bool(value_from_ast_untyped(condition.value, self.variables))
            if (directive.name.value == "include" and not value) or (directive.name.value == "skip" and value):
                return False
        return True

    def fields(self, selections: SelectionSetNode | None, parent: GraphQLNamedType) -> list[tuple[FieldNode, Any]]:
        """The fields of a selection set with their parent type, fragments expanded."""
        found: list[tuple[FieldNode, Any]] = []
        for selection in selections.selections if selections else ():
            if not self.included(selection):  # type: ignore[arg-type]
                continue
            if isinstance(selection, FieldNode):
                found.append((selection, parent))
                continue
            if isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments.get(selection.name.value)
                if fragment is None:
                    continue
                condition: NamedTypeNode | None = fragment.type_condition
                inner = fragment.selection_set
            else:
                assert isinstance(selection, InlineFragmentNode)
                condition, inner = selection.type_condition, selection.selection_set
            narrowed = self.schema.get_type(condition.name.value) if condition else parent
            found += self.fields(inner, narrowed or parent)
        return found

    def walk(
        self, selections: SelectionSetNode | None, parent: GraphQLNamedType, fetches: int, path: list[str]
    ) -> None:
        """Count the connections below ``parent``, each fetched ``fetches`` times."""
        for node, owner in self.fields(selections, parent):
            name = node.name.value
            if name.startswith("__") or not isinstance(owner, GraphQLObjectType | GraphQLInterfaceType):
                continue
            definition = owner.fields.get(name)
            if definition is None:
                continue  # validation reports it
            target = get_named_type(definition.type)
            where = [*path, node.alias.value if node.alias else name]
            times = fetches
            if target.name.endswith("Connection"):
                size = self.page(node, target, where, name)
                self.result.requests += fetches
                self.result.nodes += fetches * size
                times = fetches * size
            self.walk(node.selection_set, target, times, where)

    def page(self, node: FieldNode, connection: GraphQLNamedType, path: list[str], name: str) -> int:
        """The page size of one connection (recording its requests and nodes), after checking its bounds."""
        args = {a.name.value: value_from_ast_untyped(a.value, self.variables) for a in node.arguments or ()}
        first, last = args.get("first"), args.get("last")
        sizes = [v for v in (first, last) if isinstance(v, int)]
        for argument, value in (("first", first), ("last", last)):
            if not isinstance(value, int):
                continue
            if value > MAX_PAGE:
                self.refuse(
                    "EXCESSIVE_PAGINATION",
                    f"Requesting {value} records on the `{name}` connection exceeds the `{argument}` limit of "
                    f"{MAX_PAGE} records.",
                    node,
                    path,
                )
            elif value < 1:
                self.refuse(
                    "INVALID_PAGINATION",
                    f"`{argument}` on the `{name}` connection must be between 1 and {MAX_PAGE}.",
                    node,
                    path,
                )
        wants_items = any(f.name.value in ("nodes", "edges") for f, _ in self.fields(node.selection_set, connection))
        if not sizes and wants_items:
            self.refuse(
                "MISSING_PAGINATION_BOUNDARIES",
                f"You must provide a `first` or `last` value to properly paginate the `{name}` connection.",
                node,
                path,
            )
        return max(sizes, default=1)

    def refuse(self, kind: str, message: str, node: FieldNode, path: list[str]) -> None:
        self.result.errors.append(GraphQLError(message, node, path=path, extensions={"type": kind}))


def measure(
    schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: dict[str, Any]
) -> Measure:
    """The cost of running ``operation`` of ``document`` with ``variables`` (already validated against the schema)."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    result = Measure()
    root = schema.get_root_type(operation.operation)
    if root is not None:
        _Walk(schema, variables, fragments, result).walk(operation.selection_set, root, 1, [])
    if result.nodes > MAX_NODES:
        message = f"This query requests up to {result.nodes:,} possible nodes which exceeds the maximum limit of "
        result.errors.append(
            GraphQLError(f"{message}{MAX_NODES:,}.", operation, extensions={"type": "MAX_NODE_LIMIT_EXCEEDED"})
        )
    return result
