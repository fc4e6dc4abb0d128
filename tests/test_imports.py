"""The dependency rule, read from the source: what each layer may import, and no cycles.

- ``games`` imports nothing of ``db``, ``bot``, ``discord`` or ``sqlalchemy``;
- ``db`` nothing of ``games``, ``bot`` or ``discord``;
- the match service (``bot.service``) and the terminal (``bot.terminal``) nothing of ``discord``
  nor of the Discord side (``bot.chat``);
- no two modules import each other, directly or around a loop. Imports under
  ``if TYPE_CHECKING:`` do not run, so they are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "db", "bot")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "games": ("db", "bot", "discord", "sqlalchemy"),
    "db": ("games", "bot", "discord"),
    "bot.service": ("discord", "bot.chat"),
    "bot.terminal": ("discord", "bot.chat"),
}
"""Package → what no module in it may import (each name and everything below it)."""


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    named: bool = False
    """``from package import name``: ``imported`` is ``package.name``, a module or not."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that may run, skipping ``if TYPE_CHECKING:`` bodies."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for branch in node.orelse:
                yield branch
                yield from _runtime_nodes(branch)
            continue
        yield node
        yield from _runtime_nodes(node)


def imports_of(path: Path, root: Path) -> Iterator[Import]:
    """The modules ``path`` imports at run time, as absolute names."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield Import(name, base, node.lineno)
            for alias in node.names:  # ``from bot.chat import render`` imports a module too
                yield Import(name, f"{base}.{alias.name}", node.lineno, named=True)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def rule_violations(root: Path, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Every import that breaks ``FORBIDDEN``, and every import cycle, under ``root``."""
    modules = {
        module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }
    found: list[str] = []
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        imports = list(imports_of(path, root))
        submodules = {imp.imported for imp in imports if imp.named and imp.imported in modules}
        for imp in imports:
            if imp.named and imp.imported not in modules:
                continue  # a name defined in the module imported, not a module
            for layer, banned in FORBIDDEN.items():
                if _within(name, layer) and any(_within(imp.imported, b) for b in banned):
                    where = f"{path.relative_to(root)}:{imp.line}"
                    found.append(f"{where}: {name} imports {imp.imported}")
            # ``from games import grid`` runs the package's __init__ before ``games.grid``, as
            # any import of a submodule does: the edge that matters is to the submodule.
            for_submodule = any(sub.startswith(imp.imported + ".") for sub in submodules)
            if imp.imported in modules and imp.imported != name and not for_submodule:
                graph[name].add(imp.imported)
    found += [" -> ".join(cycle) for cycle in _cycles(graph)]
    return sorted(set(found))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle for each strongly connected group of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_project_keeps_the_dependency_rule() -> None:
    assert rule_violations(ROOT) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


CLEAN = {
    "games/__init__.py": "",
    "games/base.py": "import dataclasses\n",
    "db/__init__.py": "",
    "db/models.py": "import sqlalchemy\n",
    "bot/__init__.py": "",
    "bot/service/__init__.py": "",
    "bot/service/matches.py": "from db import models\nimport games.base\n",
    "bot/chat/__init__.py": "",
    "bot/chat/app.py": "import discord\nfrom bot.service import matches\n",
}


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    assert rule_violations(_tree(tmp_path, CLEAN)) == []


def test_a_game_importing_sqlalchemy_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "games/leaky.py": "from sqlalchemy import select\n"})
    assert rule_violations(root) == ["games/leaky.py:1: games.leaky imports sqlalchemy"]


def test_the_service_importing_discord_is_caught_even_inside_a_function(tmp_path: Path) -> None:
    body = "def send():\n    import discord\n"
    root = _tree(tmp_path, {**CLEAN, "bot/service/notify.py": body})
    assert rule_violations(root) == ["bot/service/notify.py:2: bot.service.notify imports discord"]


def test_the_service_reaching_the_discord_side_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "bot/service/notify.py": "from ..chat import app\n"})
    assert rule_violations(root) == [
        "bot/service/notify.py:1: bot.service.notify imports bot.chat",
        "bot/service/notify.py:1: bot.service.notify imports bot.chat.app",
    ]


def test_db_importing_a_game_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "db/rules.py": "from games import base\n"})
    assert "db/rules.py:1: db.rules imports games" in rule_violations(root)


def test_an_import_cycle_is_caught_but_not_one_under_type_checking(tmp_path: Path) -> None:
    checked = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.chat import app\n"
    looped = {**CLEAN, "bot/chat/render.py": "from bot.chat import app\n"}
    looped["bot/chat/app.py"] += "from bot.chat import render\n"
    assert rule_violations(_tree(tmp_path / "a", {**CLEAN, "bot/chat/render.py": checked})) == []
    assert rule_violations(_tree(tmp_path / "b", looped)) == ["bot.chat.app -> bot.chat.render"]
