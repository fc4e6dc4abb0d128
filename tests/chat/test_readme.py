"""The README's sample board is what the bot draws: rebuilt here from the renderer."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import games
from bot.chat.boards import render

from .helpers import ALICE, BOB, play, snapshot

README = Path(__file__).parents[2] / "README.md"
SHOWN = {f"<@{ALICE}>": "@alice", f"<@{BOB}>": "@bob"}
"""How Discord shows the players' mentions: as their names."""


def sample() -> str:
    """Capture the Crown mid-match: Alice missed (2,2), Bob hinted, and Bob is to attack."""
    state = play(
        "crown", games.get("crown").new({}, 1), (0, "1 1"), (1, "3 2"), (0, "2 2"), (1, "row")
    )
    snap = replace(
        snapshot("crown", state),
        deadline=datetime.now(UTC) + timedelta(minutes=10),
        deadline_kind="turn",
        history=(f"Both Crowns are placed. <@{ALICE}> attacks first.",),
    )
    post = render.board_post(
        snap,
        [
            f"<@{ALICE}> attacks (2,2): Miss.",
            f"<@{BOB}>'s hint: the Crown's row is greater than 2.",
        ],
    )
    assert post.embed is not None
    lines = [post.content, f"┌ {post.embed.title}"]
    lines += [f"│ {line}" if line else "│" for line in (post.embed.description or "").split("\n")]
    lines += [" ".join(f"[{button.label}]" for button in row) for row in post.layout]
    text = "\n".join(lines).replace("**", "")
    text = re.sub(r"<t:\d+:R>", "in 10 minutes", text)
    for mention, name in SHOWN.items():
        text = text.replace(mention, name)
    return text


def test_the_readme_shows_the_board_as_drawn() -> None:
    readme = README.read_text(encoding="utf-8")
    found = re.search(r"as a member sees it:\n\n```\n(.*?)\n```", readme, re.DOTALL)
    assert found is not None
    assert found.group(1) == sample()
