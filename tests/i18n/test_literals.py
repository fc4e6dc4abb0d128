"""No English reaches a member without the catalogs, read from the source as the import rule is.

Three kinds of places put text before a member:

- a call that reaches Discord with text: a send, edit or response (its content), an embed's
  title, description, fields, footer and author, a button's or select's label and placeholder,
  a form's title and fields, a thread's name;
- the service's words: a refusal raised for the member to read (a ``MatchError`` or one of the
  engines' ``GameError``\\ s), a ``Private``/``Prompt`` notice's text, a ``Public`` notice's lines;
- a sentence a function of the bot, the service or the engines returns to be shown.

The text given there must come from ``_()`` or ``n_()``: a string literal, or an f-string, with
words in it is an offender, and so is one that reaches the place through a variable or a
constant of the module (or one imported from another scanned module), or through ``+``, ``%``,
``.format`` or ``.join``. What a call returns is not followed: a helper's own texts are checked
where it writes them. Words are two letters or more in a row, so ``"✅"``, ``"3"`` and a mention
pass. ``python -m tests.i18n.test_literals`` lists the offenders.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("bot", "games")
SKIPPED = (
    "bot/terminal",
    "bot/cli.py",
    "bot/__main__.py",
    "bot/settings.py",
    "bot/single_process.py",
    "bot/chat/startup.py",
    "games/players",
)
"""What speaks to the operator at a console, not to members (the terminal reads English
through the same catalogs, by choice), and the engines' players, which never word anything."""
CALLS_IN = ("bot",)
"""Where calls to Discord are looked for."""

TRANSLATED = frozenset({"_", "n_"})
MARKED = "N_"
"""Marks a text for the catalogs without translating it: shown as it is, it stays English."""
WORDS = regex.compile(r"\p{L}{2,}")
SENTENCE = regex.compile(r"\p{L}{2,}[,:;.!?]?\s+\p{L}{2,}")

DISCORD_CALLS: dict[str, tuple[tuple[int, ...], frozenset[str]]] = {
    "send": ((0,), frozenset({"content"})),
    "reply": ((0,), frozenset({"content"})),
    "send_message": ((0,), frozenset({"content"})),
    "edit": ((), frozenset({"content"})),
    "edit_message": ((), frozenset({"content"})),
    "edit_original_response": ((), frozenset({"content"})),
    "Embed": ((), frozenset({"title", "description"})),
    "add_field": ((), frozenset({"name", "value"})),
    "insert_field_at": ((), frozenset({"name", "value"})),
    "set_field_at": ((), frozenset({"name", "value"})),
    "set_footer": ((), frozenset({"text"})),
    "set_author": ((), frozenset({"name"})),
    "Button": ((), frozenset({"label"})),
    "button": ((), frozenset({"label"})),
    "Select": ((), frozenset({"placeholder"})),
    "select": ((), frozenset({"placeholder"})),
    "SelectOption": ((), frozenset({"label", "description"})),
    "TextInput": ((), frozenset({"label", "placeholder", "default"})),
    "Modal": ((), frozenset({"title"})),
    "create_thread": ((), frozenset({"name"})),
}
"""Callable name → (positional arguments, keywords) that carry text to Discord."""
SHOWN_ATTRIBUTES = frozenset({"title", "description", "label", "placeholder", "content"})
"""``x.title = ...`` and the like: set on an embed, a button or a form before it is sent."""
CLASS_KEYWORDS = frozenset({"title"})
"""``class Form(discord.ui.Modal, title=...)``."""

NOTICES: dict[str, tuple[tuple[int, ...], frozenset[str]]] = {
    "Private": ((2,), frozenset({"text"})),
    "Prompt": ((3,), frozenset({"text"})),
    "Public": ((1,), frozenset({"lines"})),
}
"""The service's notices (``bot.service.notices``) and where their words are."""
REFUSAL_ROOTS = frozenset({"MatchError", "GameError"})
"""Exceptions whose text the member reads; every subclass in the scanned source counts too."""


@dataclass
class Module:
    path: Path
    tree: ast.Module
    constants: dict[str, list[ast.expr]] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    """A name imported ``from module import name`` → (module, name)."""

    @property
    def where(self) -> str:
        return self.path.relative_to(ROOT).as_posix()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_modules() -> dict[str, Module]:
    modules = {}
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if any(relative == s or relative.startswith(s + "/") for s in SKIPPED):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            module = Module(path, tree)
            for node in tree.body:
                for name, value in assignments(node):
                    module.constants.setdefault(name, []).append(value)
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    for alias in node.names:
                        module.imports[alias.asname or alias.name] = (node.module, alias.name)
            modules[module_name(path)] = module
    return modules


def assignments(node: ast.AST) -> Iterator[tuple[str, ast.expr]]:
    """The names ``node`` binds by assignment, with the value each is given."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                yield target.id, node.value
    elif (
        isinstance(node, ast.AnnAssign | ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and node.value is not None
    ):
        yield node.target.id, node.value


def called_name(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return None


def refusal_classes(modules: Iterable[Module]) -> frozenset[str]:
    """The names of the refusal exceptions: ``REFUSAL_ROOTS`` and their subclasses."""
    bases: dict[str, set[str]] = {}
    for module in modules:
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                names = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                bases.setdefault(node.name, set()).update(names)
    found = set(REFUSAL_ROOTS)
    grew = True
    while grew:
        grew = False
        for name, parents in bases.items():
            if name not in found and parents & found:
                found.add(name)
                grew = True
    return frozenset(found)


class Scan:
    """Finds the offenders of one module."""

    def __init__(self, modules: dict[str, Module], module: Module, refusals: frozenset[str]):
        self.modules = modules
        self.module = module
        self.refusals = refusals
        self.offenders: list[tuple[str, int, str]] = []
        self._functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def run(self) -> list[tuple[str, int, str]]:
        self._visit(self.module.tree)
        return self.offenders

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self._functions.append(node)
            for child in ast.iter_child_nodes(node):
                self._visit(child)
            self._functions.pop()
            return
        self._check_node(node)
        for child in ast.iter_child_nodes(node):
            self._visit(child)

    def _check_node(self, node: ast.AST) -> None:
        calls_here = self.module.where.startswith(CALLS_IN)
        if isinstance(node, ast.Call):
            name = called_name(node)
            if name is None:
                return
            if calls_here and name in DISCORD_CALLS:
                self._check_arguments(node, *DISCORD_CALLS[name], why=f"{name}()")
            if name in NOTICES:
                self._check_arguments(node, *NOTICES[name], why=f"{name}()")
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            name = called_name(node.exc)
            if name in self.refusals and node.exc.args:
                self._check(node.exc.args[0], f"raise {name}", sentence=False)
        elif isinstance(node, ast.Return) and node.value is not None and self._functions:
            self._check(node.value, "return", sentence=True)
        elif calls_here and isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr in SHOWN_ATTRIBUTES:
                    self._check(node.value, f".{target.attr} =", sentence=False)
        elif calls_here and isinstance(node, ast.ClassDef):
            for keyword in node.keywords:
                if keyword.arg in CLASS_KEYWORDS:
                    self._check(keyword.value, f"class {keyword.arg}=", sentence=False)

    def _check_arguments(
        self, call: ast.Call, positions: tuple[int, ...], keywords: frozenset[str], why: str
    ) -> None:
        for index in positions:
            if index < len(call.args):
                self._check(call.args[index], why, sentence=False)
        for keyword in call.keywords:
            if keyword.arg in keywords:
                self._check(keyword.value, f"{why} {keyword.arg}=", sentence=False)

    def _check(self, node: ast.expr, why: str, *, sentence: bool) -> None:
        here = self.module.where
        for where, literal in self._english(node, here, sentence=sentence, seen=set()):
            text = ast.unparse(literal)
            text = text if len(text) <= 70 else text[:67] + "..."
            self.offenders.append((where, literal.lineno, f"{why}: {text}"))

    def _english(
        self, node: ast.expr, where: str, *, sentence: bool, seen: set[str]
    ) -> Iterator[tuple[str, ast.expr]]:
        """The literals in ``node`` (written in module ``where``) with English in them that no
        ``_()`` translates, with the module each is written in."""
        pattern = SENTENCE if sentence else WORDS
        inner: list[ast.expr] = []
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and pattern.search(node.value):
                yield where, node
        elif isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            if pattern.search(" ".join(str(part) for part in parts)):
                yield where, node
        elif isinstance(node, ast.Call) and called_name(node) == MARKED and node.args:
            # Marked for the catalogs but shown untranslated: it needs _(value) where shown.
            yield from (
                (w, n) for w, n in self._english(node.args[0], where, sentence=sentence, seen=seen)
            )
        elif isinstance(node, ast.Call):
            inner = self._texts_of_call(node)
        elif isinstance(node, ast.BinOp):
            inner = [node.left, node.right]
        elif isinstance(node, ast.IfExp):
            inner = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            inner = node.values
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            inner = node.elts
        elif isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            inner = [node.elt]
        elif isinstance(node, ast.Name) and where == self.module.where and node.id not in seen:
            seen.add(node.id)
            for source, value in self._values_of(node.id):
                yield from self._english(value, source, sentence=sentence, seen=seen)
        for part in inner:
            yield from self._english(part, where, sentence=sentence, seen=seen)

    @staticmethod
    def _texts_of_call(call: ast.Call) -> list[ast.expr]:
        """The texts a call passes on: ``"...".format()``'s, ``sep.join(parts)``'s; none of
        ``_()``'s, nor of any other call (checked where it writes them)."""
        name = called_name(call)
        function = call.func
        if name in TRANSLATED or not isinstance(function, ast.Attribute):
            return []
        if name in ("format", "strip"):
            return [function.value]
        if name == "join":
            return [function.value, *call.args[:1]]
        return []

    def _values_of(self, name: str) -> list[tuple[str, ast.expr]]:
        """What ``name`` may hold here, with the module it is written in: the enclosing
        function's assignments to it, else the module's, else those of the scanned module it
        is imported from."""
        here = self.module.where
        for function in reversed(self._functions):
            local = [v for node in ast.walk(function) for n, v in assignments(node) if n == name]
            if local:
                return [(here, value) for value in local]
        if name in self.module.constants:
            return [(here, value) for value in self.module.constants[name]]
        source = self.module.imports.get(name)
        if source is not None and source[0] in self.modules:
            module = self.modules[source[0]]
            return [(module.where, value) for value in module.constants.get(source[1], [])]
        return []


def offenders() -> list[tuple[str, int, str]]:
    """Each text that bypasses the catalogs: its file, line, and where it goes (the first
    place found, when it goes to several)."""
    modules = read_modules()
    refusals = refusal_classes(modules.values())
    found: dict[tuple[str, int], str] = {}
    for module in modules.values():
        for where, line, why in Scan(modules, module, refusals).run():
            found.setdefault((where, line), why)
    return sorted((where, line, why) for (where, line), why in found.items())


def test_the_scan_finds_english_where_it_would_reach_a_member() -> None:
    source = """
import discord
from bot.i18n import _

HELLO = "Hello there"
TITLE = N_("Leaderboard")

class Form(discord.ui.Modal, title="Your secret"):
    pass

async def answer(interaction, n):
    text = "You need the Manage Server permission."
    await interaction.response.send_message(text, ephemeral=True)
    await interaction.followup.send(f"{n} moves left")
    await interaction.followup.send(_("Fine: {n}", n=n))
    await interaction.followup.send(HELLO + "!")
    await interaction.followup.send(TITLE)
    await interaction.followup.send(_(TITLE))
    embed = discord.Embed(title=_("Stats"), description="Top players")
    embed.set_footer(text="✅ " + str(n))
    button = discord.ui.Button(label="3")
    raise WrongStatus("This match is over.")

def words():
    return "crown:attack:1"

def sentence():
    return f"It is {name}'s turn."
"""
    module = Module(ROOT / "bot" / "chat" / "example.py", ast.parse(source))
    for node in module.tree.body:
        for name, value in assignments(node):
            module.constants.setdefault(name, []).append(value)
    found = Scan({}, module, frozenset({"WrongStatus"})).run()
    lines = sorted({line for _where, line, _why in found})
    # the constant, the marked title shown untranslated, the form's title, the local text, the
    # f-string, the embed's description, the refusal and the returned sentence; not _(),
    # "✅ ", "3" or an id
    assert lines == [5, 6, 8, 12, 14, 19, 22, 28]


def test_no_english_reaches_a_member_without_the_catalogs() -> None:
    found = offenders()
    listing = "\n".join(f"{where}:{line}: {why}" for where, line, why in found)
    assert not found, f"{len(found)} texts bypass the catalogs (use _()):\n{listing}"


if __name__ == "__main__":
    for where, line, why in offenders():
        print(f"{where}:{line}: {why}")
    sys.exit(0)
