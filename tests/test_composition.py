"""The composition rule, read from the source: every part is handed what it uses where it is
built or registered (``bot.wiring``), and none finds another through the Discord client.

- nothing calls ``parlor(...)``, the lookup of the client an interaction reached;
- nothing reads or sets ``client.service``, ``client.delivery`` or ``client.tournaments``;
- no class is named ``Front``, the client-side forwarder to the parts;
- no class of the match service (``bot.service``) inherits from another class of the project,
  save exceptions, protocols, enums and plain dataclasses: use cases hold their parts.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib
import inspect
import pkgutil
import typing
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("bot", "web", "bench")
PROJECT = ("games", "db", "bot", "web", "bench")
LOOKED_UP = frozenset({"service", "delivery", "tournaments"})
"""What the client once held for the parts that found them through it."""


def lookups_in(source: str, where: str) -> Iterator[str]:
    """Each lookup through the client in ``source``, as ``where:line: what``."""
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "parlor":
                yield f"{where}:{node.lineno}: parlor(...)"
        elif isinstance(node, ast.Attribute) and node.attr in LOOKED_UP:
            owner = node.value
            on_client = (isinstance(owner, ast.Name) and owner.id == "client") or (
                isinstance(owner, ast.Attribute) and owner.attr == "client"
            )
            if on_client:
                yield f"{where}:{node.lineno}: client.{node.attr}"
        elif isinstance(node, ast.ClassDef) and node.name == "Front":
            yield f"{where}:{node.lineno}: class Front"


def project_lookups(root: Path = ROOT) -> list[str]:
    return [
        found
        for package in SCANNED
        for path in sorted((root / package).rglob("*.py"))
        for found in lookups_in(path.read_text(), str(path.relative_to(root)))
    ]


def allowed_base(base: type) -> bool:
    """A base a service class may have: not the project's, or an exception, a protocol, an
    enum or a plain dataclass of it."""
    return (
        base.__module__.split(".")[0] not in PROJECT
        or issubclass(base, BaseException)
        or issubclass(base, enum.Enum)
        or typing.Protocol in base.__mro__
        or dataclasses.is_dataclass(base)
    )


def inherited(package: str) -> list[str]:
    """Each class of ``package`` (a package of the project) with a base of the project it may
    not have, as ``module.Class(Base)``."""
    root = importlib.import_module(package)
    found = []
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                found += [
                    f"{module.__name__}.{name}({base.__name__})"
                    for base in cls.__bases__
                    if not allowed_base(base)
                ]
    return sorted(found)


def test_no_part_is_found_through_the_client() -> None:
    assert project_lookups() == []


def test_the_match_service_is_composed_not_inherited() -> None:
    assert inherited("bot.service") == []


# The checks themselves, on small sources.


def test_a_lookup_through_the_client_is_caught() -> None:
    source = (
        "async def press(interaction):\n"
        "    bot = parlor(interaction)\n"
        "    await interaction.client.service.accept(1, 2)\n"
        "    client.delivery = None\n"
        "class Front:\n"
        "    pass\n"
    )
    assert sorted(lookups_in(source, "bot/chat/matches/buttons.py")) == [
        "bot/chat/matches/buttons.py:2: parlor(...)",
        "bot/chat/matches/buttons.py:3: client.service",
        "bot/chat/matches/buttons.py:4: client.delivery",
        "bot/chat/matches/buttons.py:5: class Front",
    ]


def test_parts_handed_over_are_not_lookups() -> None:
    source = "def build(parts, desk):\n    return parts.matches.lookups, desk.service\n"
    assert list(lookups_in(source, "bot/wiring.py")) == []


def test_a_service_class_inheriting_a_use_case_is_caught() -> None:
    class Runner:
        pass

    Runner.__module__ = "bot.service.runner"

    class Play(Runner):
        pass

    class Refused(ValueError):
        pass

    assert not allowed_base(Runner)
    assert allowed_base(Refused) and allowed_base(ValueError)
    assert [b for b in Play.__bases__ if not allowed_base(b)] == [Runner]
