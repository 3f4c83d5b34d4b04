"""The import graph: imports point down the stages (ingest/__init__.py draws them), never
up, and no module imports itself back through others, at module level or inside a function."""

import ast
from pathlib import Path

from conftest import REPO

# Lowest first; a module may import from its own layer or any layer below it.
LAYERS = [
    ("ingest.settings", "ingest.problems", "ingest.models"),
    ("ingest.crawl",),
    ("ingest.extract",),
    ("ingest.index",),
    ("ingest.kb",),
    ("ingest.ops",),
    ("retrieval",),  # reads the knowledge base; never runs ingestion itself
    ("ingest.crawler", "ingest.selection", "ingest.indexer"),
    ("ingest.pipeline", "ingest.brief"),
    ("ingest.server", "ingest.cli"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for package in ("ingest", "retrieval"):
        for path in (REPO / package).rglob("*.py"):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Our modules that `path` imports, wherever in the file the import stands."""
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                targets.add(name if name in MODULES else node.module)
    return {t for t in targets if t in MODULES}


def _layer(module: str) -> int:
    for index, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and ingest/__init__.py")


GRAPH = {module: _imports(path) for module, path in MODULES.items()}


def test_every_module_has_a_layer():
    for module in MODULES:
        if module not in ("ingest", "retrieval"):
            _layer(module)


def test_imports_point_down():
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in GRAPH.items()
        if m not in ("ingest", "retrieval")
        for t in targets
        if t not in ("ingest", "retrieval") and _layer(t) > _layer(m)
    )
    assert upward == []


def test_no_module_imports_itself_back():
    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        seen = set()
        while stack:
            module, path = stack.pop()
            for target in GRAPH.get(module, ()):
                if target == start:
                    return path + [start]
                if target not in seen:
                    seen.add(target)
                    stack.append((target, path + [target]))
        return None

    cycles = [c for m in GRAPH if (c := cycle_from(m))]
    assert cycles == []
