"""The import graph: which package may import which (a table), no cycle, and a pure engine and classifier.

Every import in every module counts: top-level or inside a function, ``import x``, ``from x import y`` and
relative imports (``from . import y``). ``docs/architecture.md`` draws the same layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "gauntlet"

#: Package (a folder, or a top-level module) -> the packages it may import, besides itself. Nothing else.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "settings": set(),
    "vocabulary": set(),
    "untrusted": set(),
    "jobkey": set(),
    "kinds": set(),
    "known": {"kinds"},
    "models": {"errors", "kinds", "known"},
    "config": {"errors", "models", "vocabulary"},
    "state": {"errors", "models", "untrusted", "vocabulary"},
    "classify": {"config", "models"},
    "ingest": {"classify", "errors", "kinds", "models", "untrusted", "vocabulary"},
    "effects": {"config", "errors", "models", "state", "untrusted", "vocabulary"},
    "report": {"effects", "models", "vocabulary"},
    "engine": {
        "classify",
        "config",
        "effects",
        "errors",
        "ingest",
        "jobkey",
        "known",
        "models",
        "report",
        "state",
        "untrusted",
        "vocabulary",
    },
    "github": {"effects", "engine", "errors", "models", "state", "untrusted", "vocabulary"},
    "observe": {
        "classify",
        "config",
        "engine",
        "errors",
        "github",
        "ingest",
        "jobkey",
        "models",
        "settings",
        "untrusted",
        "vocabulary",
    },
    "pipeline": {"config", "effects", "engine", "errors", "models", "observe", "report", "state", "vocabulary"},
    "status": {"errors", "state", "vocabulary"},
    "dashboard": {"effects", "errors", "state", "vocabulary"},
    "sandbox": {"errors"},
    "action": {
        "config",
        "effects",
        "engine",
        "errors",
        "github",
        "known",
        "models",
        "observe",
        "pipeline",
        "report",
        "settings",
        "state",
        "untrusted",
        "vocabulary",
    },
    "demo": {"action", "dashboard", "errors", "github", "models", "pipeline", "sandbox", "state", "vocabulary"},
    "cli": {
        "action",
        "config",
        "dashboard",
        "demo",
        "effects",
        "engine",
        "errors",
        "ingest",
        "known",
        "models",
        "observe",
        "pipeline",
        "report",
        "sandbox",
        "settings",
        "state",
        "status",
        "vocabulary",
        "__init__",
    },
    "__main__": {"cli"},
    "__init__": set(),
}

#: No I/O, clock or global randomness in the pure stages (STYLE: "A test checks their imports").
PURE = ("engine", "classify")
FORBIDDEN = {"os", "io", "time", "random", "socket", "subprocess", "shutil", "pathlib", "github", "requests", "urllib"}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "data" in path.relative_to(PACKAGE).parts:  # the demo's sample project, not Gauntlet's code
            continue
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def imports_of(name: str, path: Path) -> Iterator[str]:
    """Every module name ``name`` imports, resolved against the modules that exist (``x.y`` of ``from x import y``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            subs = [f"{base}.{alias.name}" for alias in node.names]
            found = [sub for sub in subs if sub in MODULES]
            yield from found
            if len(found) < len(subs):
                yield base


def _internal(target: str) -> str | None:
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


GRAPH: dict[str, set[str]] = {
    name: {t for t in (_internal(i) for i in imports_of(name, path)) if t is not None and t != name}
    for name, path in MODULES.items()
}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root, children_of_root in graph.items():
        if root in index:
            continue
        work = [(root, iter(sorted(children_of_root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_package_is_in_the_table() -> None:
    assert sorted({_package(m) for m in MODULES} - set(ALLOWED)) == []


def test_no_package_imports_outside_its_row() -> None:
    upward = sorted(
        f"{a} -> {b}"
        for a, targets in GRAPH.items()
        for b in targets
        if _package(a) != _package(b) and _package(b) not in ALLOWED[_package(a)]
    )
    assert upward == []


def test_the_table_itself_has_no_cycle() -> None:
    assert cycles({package: set(allowed) for package, allowed in ALLOWED.items()}) == []


def test_no_module_import_cycle() -> None:
    assert cycles(GRAPH) == []


def test_the_walk_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The walk is not fooled by an import hidden in a function or written relatively."""
    path = tmp_path / "probe.py"
    path.write_text("def f():\n    from ..github import client\n    from . import loop\n    import gauntlet.report\n")
    assert set(imports_of("gauntlet.engine.probe", path)) == {
        "gauntlet.github.client",
        "gauntlet.engine.loop",
        "gauntlet.report",
    }


@pytest.mark.parametrize(
    "name", sorted(m for m in MODULES if _package(m) in PURE), ids=lambda m: m.removeprefix("gauntlet.")
)
def test_pure_modules_do_no_io(name: str) -> None:
    path = MODULES[name]
    roots = {target.split(".")[0] for target in imports_of(name, path)}
    assert not roots & FORBIDDEN
    text = path.read_text(encoding="utf-8")
    assert [call for call in ("datetime.now", "datetime.utcnow", "date.today", "open(") if call in text] == []
