"""The dependency rule, read from the source: what each layer may import, no cycles, no big module.

- ``games`` imports nothing of ``db``, ``bot``, ``discord`` or ``sqlalchemy``;
- ``db`` nothing of ``games``, ``bot`` or ``discord``;
- the web pages (``web``) nothing of ``discord``, the Discord side or the terminal;
- the match service (``bot.service``) nothing of ``discord``, of the Discord side (``bot.chat``),
  of the terminal (``bot.terminal``) or of the catalogs (``bot.i18n``, ``games.worded``,
  ``games.words`` and its ``_``: ``FORBIDDEN_NAMES``), and calls no game's wording
  (``Event.render``, ``Game.word``: ``FORBIDDEN_CALLS``): what it tells is data, worded by its
  reader;
  the terminal nothing of ``discord`` or ``bot.chat``;
- the Discord side (``bot.chat``) nothing of ``db``, save the composition root in ``WIRING``;
- no two modules import each other, directly or around a loop;
- no module of ``bot``, ``db`` or ``web`` (the migrations aside) is over ``MAX_LINES`` lines;
- no class name is defined twice across ``bot``, ``db`` and ``web`` (``SHARED_CLASS_NAMES``).

Imports inside functions count, and so do imports under ``if TYPE_CHECKING:``: they do not run,
but they are a dependency all the same, and a loop closed through them is a loop in the design.

``python -m tests.test_imports [ROOT]`` prints what a tree breaks, the checkout by default.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "db", "bot", "web")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "games": ("db", "bot", "discord", "sqlalchemy"),
    "db": ("games", "bot", "discord"),
    "bot.service": (
        "discord",
        "bot.chat",
        "bot.terminal",
        "bot.i18n",
        "games.worded",
        "games.words",
    ),
    "bot.terminal": ("discord", "bot.chat"),
    "web": ("discord", "bot.chat", "bot.terminal"),
}
"""Package → what no module in it may import (each name and everything below it)."""

FORBIDDEN_NAMES: dict[str, tuple[str, ...]] = {
    "bot.service": ("games.words._", "games.words.N_", "games.words.n_"),
}
"""Package → names (not modules) no module in it may import: the catalogs' wording functions."""

FORBIDDEN_CALLS: dict[str, tuple[str, ...]] = {
    "bot.service": ("render", "word"),
}
"""Package → methods no module in it may call: a game's wording of its events
(``Event.render``) and actions (``Game.word``); the reading side words them."""

DISCORD_SIDE = "bot.chat"
WIRING = frozenset({"bot.chat.app", "bot.__main__", "bot.wiring"})
"""The composition root: the only modules that may build ``db`` objects for the Discord side.

Only ``bot.chat.app`` lies inside ``DISCORD_SIDE`` today; the other two are where the wiring may
move, and being outside ``bot.chat`` they are free to import ``db`` anyway.
"""

MAX_LINES = 500
SIZED = ("bot", "db", "web")
UNSIZED = ("db.migrations",)
"""``MAX_LINES`` holds for every module of ``SIZED`` except those under ``UNSIZED``."""
ONE_CLASS_A_NAME = ("bot", "db", "web")
SHARED_CLASS_NAMES: dict[str, str] = {}
"""Class names ``ONE_CLASS_A_NAME`` may define more than once, each with the reason.

A second class of a name is a second type for one concept, whose readers drift apart, or two
concepts under one name, which a reader of either mistakes for the other.
"""


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    named: bool = False
    """``from package import name``: ``imported`` is ``package.name``, a module or not."""
    checking: bool = False
    """Under ``if TYPE_CHECKING:``: read by the type checker only, still a dependency."""

    def where(self, path: Path, root: Path) -> str:
        note = " (TYPE_CHECKING)" if self.checking else ""
        return (
            f"{path.relative_to(root)}:{self.line}: {self.importer} imports {self.imported}{note}"
        )


@dataclass
class Report:
    """What a tree breaks, one list per rule."""

    layers: list[str] = field(default_factory=list)
    """Imports that break ``FORBIDDEN``."""
    database: list[str] = field(default_factory=list)
    """Imports of ``db`` from the Discord side outside ``WIRING``."""
    cycles: list[list[str]] = field(default_factory=list)
    """Each group of modules that import one another around a loop, sorted."""
    oversize: list[str] = field(default_factory=list)
    """Modules over ``MAX_LINES``, with their count."""
    edges: dict[str, dict[str, Import]] = field(default_factory=dict)
    """Importer → imported → the first import between them: to show how a cycle closes."""

    def all(self) -> list[str]:
        cycles = ["cycle among " + ", ".join(group) for group in self.cycles]
        return sorted({*self.layers, *self.database, *cycles, *self.oversize})


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


def _nodes(tree: ast.AST, checking: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    """Every node below ``tree``, and whether it sits under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for branches, guarded in ((node.body, True), (node.orelse, checking)):
                for branch in branches:
                    yield branch, guarded
                    yield from _nodes(branch, guarded)
            continue
        yield node, checking
        yield from _nodes(node, checking)


def imports_of(path: Path, root: Path) -> Iterator[Import]:
    """Every module ``path`` imports, anywhere in it, as absolute names."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node, checking in _nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, node.lineno, checking=checking)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield Import(name, base, node.lineno, checking=checking)
            for alias in node.names:  # ``from bot.chat import render`` imports a module too
                yield Import(name, f"{base}.{alias.name}", node.lineno, True, checking)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _sized(name: str) -> bool:
    return any(_within(name, p) for p in SIZED) and not any(_within(name, p) for p in UNSIZED)


def physical_lines(path: Path) -> int:
    return len(path.read_bytes().splitlines())


def scan(root: Path, packages: tuple[str, ...] = PACKAGES) -> Report:
    """Check every module of ``packages`` under ``root`` against each rule."""
    modules = {
        module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }
    report = Report(edges={name: {} for name in modules})
    for name, path in modules.items():
        if _sized(name) and (lines := physical_lines(path)) > MAX_LINES:
            report.oversize.append(f"{path.relative_to(root)}: {lines} lines")
        report.layers += wording_calls(name, path, root)
        imports = list(imports_of(path, root))
        submodules = {imp.imported for imp in imports if imp.named and imp.imported in modules}
        for imp in imports:
            for layer, names in FORBIDDEN_NAMES.items():
                if _within(name, layer) and imp.named and imp.imported in names:
                    report.layers.append(imp.where(path, root))
            if imp.named and imp.imported not in modules:
                continue  # a name defined in the module imported, not a module
            for layer, banned in FORBIDDEN.items():
                if _within(name, layer) and any(_within(imp.imported, b) for b in banned):
                    report.layers.append(imp.where(path, root))
            if _within(name, DISCORD_SIDE) and name not in WIRING and _within(imp.imported, "db"):
                report.database.append(imp.where(path, root))
            # ``from games import grid`` runs the package's __init__ before ``games.grid``, as
            # any import of a submodule does: the edge that matters is to the submodule.
            for_submodule = any(sub.startswith(imp.imported + ".") for sub in submodules)
            if imp.imported in modules and imp.imported != name and not for_submodule:
                report.edges[name].setdefault(imp.imported, imp)
    report.oversize.sort()
    report.cycles = _cycles({name: set(out) for name, out in report.edges.items()})
    report.layers = sorted(set(report.layers))
    report.database = sorted(set(report.database))
    return report


def wording_calls(name: str, path: Path, root: Path) -> list[str]:
    """Calls of ``FORBIDDEN_CALLS``' methods in module ``name``, one line each."""
    banned = {
        method
        for layer, methods in FORBIDDEN_CALLS.items()
        if _within(name, layer)
        for method in methods
    }
    if not banned:
        return []
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in banned
        ):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {name} calls .{node.func.attr}")
    return found


def rule_violations(root: Path, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Every break of every rule under ``root``, one line each."""
    return scan(root, packages).all()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one module (Tarjan's algorithm)."""
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
    return sorted(groups)


def describe(report: Report) -> str:
    """The report as text for a person: each cycle with the imports that close it."""
    out: list[str] = []
    for group in report.cycles:
        out.append(f"cycle among {len(group)} modules: {', '.join(group)}")
        for importer in group:
            for imported, imp in sorted(report.edges[importer].items()):
                if imported in group:
                    note = "  (TYPE_CHECKING)" if imp.checking else ""
                    out.append(f"    {importer} -> {imported}  line {imp.line}{note}")
    sections = [
        ("forbidden imports", report.layers),
        (f"{DISCORD_SIDE} importing db outside {', '.join(sorted(WIRING))}", report.database),
        (f"modules over {MAX_LINES} lines", report.oversize),
    ]
    for title, lines in sections:
        out.append(f"{title}: {len(lines) or 'none'}")
        out.extend(f"    {line}" for line in lines)
    if not report.cycles:
        out.insert(0, "cycles: none")
    return "\n".join(out)


def twin_classes(root: Path, packages: tuple[str, ...] = ONE_CLASS_A_NAME) -> list[str]:
    """Each class name defined in more than one place under ``packages`` (nested classes
    included), with where, one line each; the names of ``SHARED_CLASS_NAMES`` aside."""
    places: dict[str, list[str]] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ClassDef):
                    where = f"{path.relative_to(root)}:{node.lineno}"
                    places.setdefault(node.name, []).append(where)
    return [
        f"class {name}: {', '.join(found)}"
        for name, found in sorted(places.items())
        if len(found) > 1 and name not in SHARED_CLASS_NAMES
    ]


def main(argv: list[str]) -> int:
    root = Path(argv[0]).resolve() if argv else ROOT
    report = scan(root)
    twins = twin_classes(root)
    print(describe(report))
    print(f"class names defined twice: {len(twins) or 'none'}")
    print("".join(f"    {line}\n" for line in twins), end="")
    return 1 if report.all() or twins else 0


# The checkout itself, one test per rule. A rule the checkout breaks for a while gets a strict
# xfail mark naming what breaks it, so that the rule kept again fails until its mark goes.


@pytest.fixture(scope="module")
def project() -> Report:
    return scan(ROOT)


def test_the_project_keeps_its_layers(project: Report) -> None:
    assert project.layers == []


def test_the_discord_side_leaves_the_database_to_the_wiring(project: Report) -> None:
    assert project.database == []


def test_the_project_has_no_import_cycle(project: Report) -> None:
    assert project.cycles == []


def test_no_module_of_bot_or_db_is_over_500_lines(project: Report) -> None:
    assert project.oversize == []


def test_no_class_name_is_defined_twice_in_bot_db_or_web() -> None:
    assert twin_classes(ROOT) == []


# The check itself, on small trees made for each rule.


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


CHECKED = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {}\n"
"""A module whose one import is under ``if TYPE_CHECKING:``, on line 3."""

CLEAN = {
    "games/__init__.py": "",
    "games/base.py": "import dataclasses\n",
    "db/__init__.py": "",
    "db/models.py": "import sqlalchemy\n",
    "db/migrations/versions/0001_start.py": "import sqlalchemy\n" * (MAX_LINES + 100),
    "bot/__init__.py": "",
    "bot/service/__init__.py": "",
    "bot/service/matches.py": "from db import models\nimport games.base\n",
    "bot/terminal/__init__.py": "",
    "bot/terminal/play.py": "from bot.service import matches\n",
    "bot/chat/__init__.py": "",
    "bot/chat/app.py": "import discord\nfrom bot.service import matches\nfrom db import models\n",
    "bot/chat/render.py": CHECKED.format("from bot.service import matches"),
}


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    assert rule_violations(_tree(tmp_path, CLEAN)) == []


def test_a_game_importing_sqlalchemy_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "games/leaky.py": "from sqlalchemy import select\n"})
    assert rule_violations(root) == ["games/leaky.py:1: games.leaky imports sqlalchemy"]


def test_a_game_reaching_the_bot_only_for_the_type_checker_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "games/hint.py": CHECKED.format("import bot.service")})
    assert rule_violations(root) == [
        "games/hint.py:3: games.hint imports bot.service (TYPE_CHECKING)"
    ]


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


def test_the_service_reaching_the_terminal_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "bot/service/ask.py": "import bot.terminal.play\n"})
    assert rule_violations(root) == [
        "bot/service/ask.py:1: bot.service.ask imports bot.terminal.play"
    ]


def test_the_service_wording_through_a_catalog_is_caught(tmp_path: Path) -> None:
    body = "from bot.i18n import N_\nfrom games.words import _, language\nimport games.worded\n"
    root = _tree(tmp_path, {**CLEAN, "bot/service/say.py": body})
    assert rule_violations(root) == [
        "bot/service/say.py:1: bot.service.say imports bot.i18n",
        "bot/service/say.py:2: bot.service.say imports games.words",
        "bot/service/say.py:2: bot.service.say imports games.words._",
        "bot/service/say.py:3: bot.service.say imports games.worded",
    ]


def test_the_service_wording_a_games_events_or_actions_is_caught(tmp_path: Path) -> None:
    body = (
        "from games import words\n\n"
        "def step(engine, action, events, names):\n"
        "    return engine.word(action), [e.render(names) for e in events]\n"
    )
    files = {**CLEAN, "games/words.py": "", "bot/service/replays.py": body}
    root = _tree(tmp_path, files)
    assert rule_violations(root) == [
        "bot/service/replays.py:1: bot.service.replays imports games.words",
        "bot/service/replays.py:4: bot.service.replays calls .render",
        "bot/service/replays.py:4: bot.service.replays calls .word",
    ]


def test_the_web_pages_reaching_the_discord_side_are_caught(tmp_path: Path) -> None:
    files = {**CLEAN, "web/__init__.py": "", "web/app.py": "from bot.chat import render\n"}
    assert rule_violations(_tree(tmp_path, files)) == [
        "web/app.py:1: web.app imports bot.chat",
        "web/app.py:1: web.app imports bot.chat.render",
    ]


def test_db_importing_a_game_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CLEAN, "db/rules.py": "from games import base\n"})
    assert "db/rules.py:1: db.rules imports games" in rule_violations(root)


def test_the_discord_side_importing_db_outside_the_wiring_is_caught(tmp_path: Path) -> None:
    files = {
        **CLEAN,
        "bot/chat/games/__init__.py": "",
        "bot/chat/games/flag.py": "from db.models import Match\n",
        "bot/chat/boards.py": CHECKED.format("from db import models"),
    }
    assert rule_violations(_tree(tmp_path, files)) == [
        "bot/chat/boards.py:3: bot.chat.boards imports db (TYPE_CHECKING)",
        "bot/chat/boards.py:3: bot.chat.boards imports db.models (TYPE_CHECKING)",
        "bot/chat/games/flag.py:1: bot.chat.games.flag imports db.models",
    ]


def test_an_import_cycle_is_caught(tmp_path: Path) -> None:
    looped = {**CLEAN, "bot/chat/render.py": "from bot.chat import app\n"}
    looped["bot/chat/app.py"] += "from bot.chat import render\n"
    assert rule_violations(_tree(tmp_path, looped)) == ["cycle among bot.chat.app, bot.chat.render"]


def test_a_cycle_closed_only_under_type_checking_is_caught(tmp_path: Path) -> None:
    looped = {
        **CLEAN,
        "bot/chat/buttons.py": "from bot.chat import delivery\n",
        "bot/chat/delivery.py": "from bot.chat import render\n",
        "bot/chat/render.py": CHECKED.format("from bot.chat import buttons"),
    }
    root = _tree(tmp_path, looped)
    report = scan(root)
    assert report.all() == ["cycle among bot.chat.buttons, bot.chat.delivery, bot.chat.render"]
    assert "bot.chat.render -> bot.chat.buttons  line 3  (TYPE_CHECKING)" in describe(report)


def test_a_module_of_bot_or_db_over_the_limit_is_caught(tmp_path: Path) -> None:
    files = {
        **CLEAN,
        "bot/chat/long.py": "x = 1\n" * (MAX_LINES + 1),
        "bot/chat/full.py": "x = 1\n" * MAX_LINES,
        "db/queries.py": "\n" * (MAX_LINES + 2),
        "games/rules.py": "x = 1\n" * (MAX_LINES * 2),
    }
    assert rule_violations(_tree(tmp_path, files)) == [
        f"bot/chat/long.py: {MAX_LINES + 1} lines",
        f"db/queries.py: {MAX_LINES + 2} lines",
    ]


def test_a_class_name_defined_twice_is_caught(tmp_path: Path) -> None:
    files = {
        **CLEAN,
        "db/history.py": "class Point:\n    pass\n",
        "bot/service/charts.py": "import dataclasses\n\n\nclass Point:\n    pass\n",
        "web/pages.py": "def page():\n    class Row:\n        pass\n",
        "web/boards.py": "class Row:\n    pass\n",
        "games/grid.py": "class Point:\n    pass\n",
    }
    assert twin_classes(_tree(tmp_path, files)) == [
        "class Point: bot/service/charts.py:4, db/history.py:1",
        "class Row: web/boards.py:1, web/pages.py:2",
    ]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
